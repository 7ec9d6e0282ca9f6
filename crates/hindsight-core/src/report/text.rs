//! Plain-text rendering in the style of compiler diagnostics, optionally coloured.

use std::fmt::Write as _;

use super::words::{plural_s, tri_state};
use super::{Evidence, Report};
use crate::rules::Severity;

/// ANSI styles, or nothing when colour is off.
struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
    fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    fn severity(&self, severity: Severity, text: &str) -> String {
        let code = match severity {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
        };
        self.paint(code, text)
    }
}

/// Renders the report for a terminal; `color` adds ANSI colours.
pub fn render(report: &Report, color: bool) -> String {
    // Hidden characters from the input (bidi controls, zero-width spaces,
    // escape sequences) are shown, never passed to the terminal; only this
    // renderer's own colour codes stay.
    let out = render_raw(report, color);
    super::visible::visible(&out, color).into_owned()
}

fn render_raw(report: &Report, color: bool) -> String {
    let style = Style { on: color };
    let mut out = String::new();
    let (errors, warnings, infos) = report.counts();
    let _ = writeln!(
        out,
        "{} {} source{}, {} checkpoint{}, {} server{}, {} finding{} ({errors} error, {warnings} warning, {infos} info)",
        style.bold("hindsight:"),
        report.sources.len(),
        plural_s(report.sources.len()),
        report.checkpoints.len(),
        plural_s(report.checkpoints.len()),
        report.servers.len(),
        plural_s(report.servers.len()),
        report.findings.len(),
        plural_s(report.findings.len()),
    );
    for source in &report.sources {
        let _ = writeln!(
            out,
            "  {} {} ({}, {} lines{})",
            style.dim("source"),
            source.name,
            source.format.name(),
            source.lines,
            if source.understood {
                ""
            } else {
                ", nothing recognised"
            }
        );
    }
    let _ = writeln!(out, "{}", headline(report, &style));

    if !report.checkpoints.is_empty() {
        let _ = writeln!(out, "\n{}", style.bold("Timeline"));
        for c in &report.checkpoints {
            let at = c.message.map(|m| format!("msg {m}")).unwrap_or_default();
            let host = c.host.as_deref().unwrap_or("local");
            let _ = writeln!(
                out,
                "  {:>3}  {:<7} {:<9} {:<20} {}",
                c.id + 1,
                style.bold(c.kind_name()),
                at,
                host,
                first_line(&c.command, 90)
            );
            if !c.ledger.is_empty() {
                let _ = writeln!(out, "       checks: {}", ledger_line(&style, &c.ledger));
            }
        }
    }

    if !report.servers.is_empty() {
        let _ = writeln!(out, "\n{}", style.bold("Servers"));
        for s in &report.servers {
            let mut head = format!("  {} {}", s.id + 1, s.engine_name());
            if let Some(host) = &s.host {
                let _ = write!(head, " on {host}");
            }
            let _ = write!(head, " port {}", s.port_text());
            if let Some(tp) = s.tp_size {
                let _ = write!(head, ", tp {tp}");
            }
            if let Some(draft) = &s.draft_model {
                let algorithm = s.speculative_algorithm.as_deref().unwrap_or("draft");
                let _ = write!(head, ", {algorithm} drafter {draft}");
            }
            let _ = writeln!(out, "{head}");
            let _ = writeln!(
                out,
                "     ready: {}   drafter loaded: {}   ranks: {}{}",
                tri_state(s.ready),
                s.drafter_loaded_text(),
                s.ranks_text(),
                s.load_seconds
                    .map(|t| format!("   weights loaded in {t} s"))
                    .unwrap_or_default()
            );
            if !s.ledger.is_empty() {
                let _ = writeln!(out, "     checks: {}", ledger_line(&style, &s.ledger));
            }
            if !s.phases.is_empty() {
                let phases: Vec<String> = s
                    .phases
                    .iter()
                    .map(|p| format!("{} (line {})", p.phase_name(), p.evidence.line_start))
                    .collect();
                let _ = writeln!(out, "     phases: {}", phases.join(" → "));
            }
            if s.restarts > 0 {
                let _ = writeln!(
                    out,
                    "     restarts: {} in the log (above: the last run){}",
                    s.restarts,
                    s.earlier_failures_note()
                );
            }
            if let Some(failure) = &s.failure {
                let _ = writeln!(
                    out,
                    "     failure: {} at {}:{}",
                    failure.kind, failure.evidence.source, failure.evidence.line_start
                );
            } else if let Some(last) = &s.last_line {
                let _ = writeln!(
                    out,
                    "     log stops at {}:{}: {}",
                    last.source,
                    last.line_start,
                    first_line(&last.text, 80)
                );
            }
        }
    }

    if !report.findings.is_empty() {
        let _ = writeln!(out, "\n{}", style.bold("Findings"));
    }
    for finding in &report.findings {
        let _ = writeln!(
            out,
            "\n{}: {}",
            style.severity(
                finding.severity,
                &format!("{}[{}]", finding.severity.name(), finding.rule)
            ),
            style.bold(&finding.title)
        );
        let _ = writeln!(out, "  {}", finding.message);
        // One gutter width per finding, as compilers align their excerpts.
        let width = finding
            .evidence
            .iter()
            .map(|e| e.line_end.to_string().len())
            .max()
            .unwrap_or(1);
        for evidence in &finding.evidence {
            excerpt(&mut out, evidence, width, &style);
            if let Some(label) = label(report, evidence) {
                let _ = writeln!(
                    out,
                    "  {} {}",
                    style.paint("1;34", &format!("{} |", " ".repeat(width))),
                    style.severity(finding.severity, &format!("^ {label}"))
                );
            }
        }
        let mut note = format!("status: {}", finding.status.name().replace('-', " "));
        if let Some(server) = finding.server.and_then(|id| report.servers.get(id)) {
            let _ = write!(note, "; server {}: {}", server.id + 1, server.label());
        }
        let _ = writeln!(out, "  {} {note}", style.paint("1;34", "= note:"));
        let _ = writeln!(
            out,
            "  {} {}",
            style.paint("1;32", "= check:"),
            finding.suggestion
        );
        let _ = writeln!(
            out,
            "  {} hindsight explain {}",
            style.paint("1;34", "= help:"),
            finding.rule
        );
    }

    if !report.diagnostics.is_empty() {
        let _ = writeln!(out, "\n{}", style.bold("Diagnostics"));
        for d in &report.diagnostics {
            let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
            let _ = writeln!(out, "  {}: {}{at}: {}", d.level, d.source, d.message);
        }
    }
    // The bottom line again at the bottom, where the eye ends.
    let _ = writeln!(out, "\n{}", headline(report, &style));
    out
}

/// The summary's headline, coloured by verdict.
fn headline(report: &Report, style: &Style) -> String {
    let code = match report.summary.verdict {
        super::Verdict::AllClear => "1;32",
        super::Verdict::Findings => "1",
        super::Verdict::ServerFailed | super::Verdict::NotUnderstood => "1;31",
        super::Verdict::Unresolved => "1;33",
    };
    style.paint(code, &report.summary.headline)
}

fn excerpt(out: &mut String, evidence: &Evidence, width: usize, style: &Style) {
    let range = if evidence.line_start == evidence.line_end {
        evidence.line_start.to_string()
    } else {
        format!("{}-{}", evidence.line_start, evidence.line_end)
    };
    let _ = writeln!(
        out,
        "  {}{} {}:{range}",
        " ".repeat(width),
        style.paint("1;34", "-->"),
        evidence.source
    );
    let _ = writeln!(
        out,
        "  {}",
        style.paint("1;34", &format!("{} |", " ".repeat(width)))
    );
    // Decoded text from one JSON record spans several lines on one source
    // line: number only its first line then.
    let literal =
        evidence.text.lines().count() <= (evidence.line_end - evidence.line_start + 1) as usize + 1;
    let mut number = evidence.line_start;
    for (index, line) in evidence.text.lines().enumerate() {
        let gutter = if line.starts_with("… ") && line.ends_with(" more lines …")
            || !literal && index > 0
        {
            " ".repeat(width)
        } else {
            let n = format!("{number:>width$}");
            number += 1;
            n
        };
        let _ = writeln!(
            out,
            "  {} {}",
            style.paint("1;34", &format!("{gutter} |")),
            first_line(line, 160)
        );
    }
}

/// What an excerpt is, read from the report: an agent's command, the output
/// it saw, or a server's log. Prose and anything else get no label.
fn label(report: &Report, evidence: &Evidence) -> Option<String> {
    let line = evidence.line_start;
    let within =
        |e: &Evidence| e.source == evidence.source && (e.line_start..=e.line_end).contains(&line);
    let at = |c: &super::CheckpointReport| {
        let mut at = c.message.map(|m| format!(" (msg {m})")).unwrap_or_default();
        if let Some(host) = &c.host {
            let _ = write!(at, " on {host}");
        }
        at
    };
    if let Some(c) = report.checkpoints.iter().find(|c| within(&c.evidence)) {
        return Some(format!("{} command {}{}", c.kind_name(), c.id + 1, at(c)));
    }
    // The tightest output holding the line: a background command's output
    // spans every later poll of it, and other commands' outputs between.
    if let Some(c) = report
        .checkpoints
        .iter()
        .filter(|c| c.output.as_ref().is_some_and(within))
        .min_by_key(|c| {
            c.output
                .as_ref()
                .map_or(u32::MAX, |o| o.line_end.saturating_sub(o.line_start))
        })
    {
        return Some(format!(
            "what the agent saw of {} command {}{}",
            c.kind_name(),
            c.id + 1,
            at(c)
        ));
    }
    report
        .servers
        .iter()
        .find(|s| s.log_source.as_deref() == Some(evidence.source.as_str()))
        .map(|s| format!("the log of server {}: {}", s.id + 1, s.label()))
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    let more = text.lines().nth(1).is_some();
    if line.chars().count() > max {
        let cut: String = line.chars().take(max).collect();
        format!("{cut}…")
    } else if more {
        format!("{line} …")
    } else {
        line.to_owned()
    }
}

/// `port-listening passed · request-answered not-checked`, coloured by status.
fn ledger_line(style: &Style, ledger: &[super::LedgerReport]) -> String {
    ledger
        .iter()
        .map(|entry| {
            let status = entry.status.name();
            let painted = match entry.status {
                crate::facts::ledger::LedgerStatus::Passed => style.paint("32", status),
                crate::facts::ledger::LedgerStatus::Failed => style.paint("31", status),
                crate::facts::ledger::LedgerStatus::Indirect => style.paint("36", status),
                _ => style.paint("33", status),
            };
            format!("{} {painted}", entry.check)
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

//! Markdown rendering: a postmortem that pastes into an issue or a wiki.

use std::fmt::Write as _;

use super::words::shorten;
use super::words::tri_state;
use super::{Evidence, Report};

/// Renders the report as Markdown.
pub fn render(report: &Report) -> String {
    // Hidden characters from the input are shown as markers.
    let out = render_raw(report);
    super::visible::visible(&out, false).into_owned()
}

fn render_raw(report: &Report) -> String {
    let mut out = String::new();
    let (errors, warnings, infos) = report.counts();
    let _ = writeln!(out, "# hindsight report\n");
    let _ = writeln!(out, "**{}**\n", prose(&cell(&report.summary.headline)));
    let _ = writeln!(
        out,
        "{} finding(s): {errors} error, {warnings} warning, {infos} info. \
         {} checkpoint(s), {} server(s).\n",
        report.findings.len(),
        report.checkpoints.len(),
        report.servers.len()
    );
    let _ = writeln!(out, "## Sources\n");
    let _ = writeln!(out, "| source | format | lines |\n|---|---|---|");
    for s in &report.sources {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            cell(&s.name),
            s.format.name(),
            s.lines
        );
    }

    if !report.checkpoints.is_empty() {
        let _ = writeln!(out, "\n## Timeline\n");
        let _ = writeln!(
            out,
            "| # | kind | message | host | command |\n|---|---|---|---|---|"
        );
        for c in &report.checkpoints {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | `{}` |",
                c.id + 1,
                c.kind_name(),
                c.message.map(|m| m.to_string()).unwrap_or_default(),
                prose(&cell(c.host.as_deref().unwrap_or(""))),
                cell(&shorten(&c.command, 120))
            );
        }
    }

    if !report.servers.is_empty() {
        let _ = writeln!(out, "\n## Servers\n");
        let _ = writeln!(
            out,
            "| # | engine | host | port | tp | drafter | ready | drafter loaded | ranks seen |\n|---|---|---|---|---|---|---|---|---|"
        );
        for s in &report.servers {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.id + 1,
                s.engine_name(),
                prose(&cell(s.host.as_deref().unwrap_or(""))),
                s.port_text(),
                s.tp_size.map(|p| p.to_string()).unwrap_or_default(),
                prose(&cell(s.draft_model.as_deref().unwrap_or(""))),
                tri_state(s.ready),
                s.drafter_loaded_text(),
                s.ranks_text()
            );
        }
        // A restart hides an earlier run behind the last one: say so.
        for s in report.servers.iter().filter(|s| s.restarts > 0) {
            let _ = writeln!(
                out,
                "\nServer {} ({}) was restarted {} in its log: the table shows the last run{}.",
                s.id + 1,
                s.engine_name(),
                s.restart_count(),
                s.earlier_failures_note()
            );
        }
    }

    let ledgers = report
        .servers
        .iter()
        .filter(|s| !s.ledger.is_empty())
        .map(|s| {
            (
                format!("server {} ({})", s.id + 1, s.engine_name()),
                &s.ledger,
            )
        })
        .chain(
            report
                .checkpoints
                .iter()
                .filter(|c| !c.ledger.is_empty())
                .map(|c| {
                    (
                        format!("checkpoint {} ({})", c.id + 1, c.kind_name()),
                        &c.ledger,
                    )
                }),
        );
    for (title, ledger) in ledgers {
        let _ = writeln!(
            out,
            "\n### Verification ledger: {title}\n\n| check | status | detail | evidence |\n|---|---|---|---|"
        );
        for entry in ledger {
            let cited: Vec<String> = entry
                .evidence
                .iter()
                .map(|e| format!("`{}:{}`", cell(&e.source), e.line_start))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                entry.check,
                entry.status.name(),
                inline(&cell(&entry.detail)),
                cited.join(", ")
            );
        }
    }

    let _ = writeln!(out, "\n## Findings\n");
    if report.findings.is_empty() {
        let _ = writeln!(out, "{}", prose(&cell(&report.summary.headline)));
    }
    for f in &report.findings {
        let _ = writeln!(
            out,
            "### {} `{}`: {}\n\n{}\n",
            f.severity.name(),
            f.rule,
            f.title,
            inline(&f.message)
        );
        for e in &f.evidence {
            evidence(&mut out, e);
        }
        let fence = fence_for(&f.suggestion);
        let _ = writeln!(out, "Check with:\n\n{fence}sh\n{}\n{fence}\n", f.suggestion);
    }

    if !report.diagnostics.is_empty() {
        let _ = writeln!(out, "## Diagnostics\n");
        for d in &report.diagnostics {
            let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
            let _ = writeln!(
                out,
                "- {} `{}{at}`: {}",
                d.level,
                cell(&d.source),
                inline(&d.message)
            );
        }
    }
    out
}

fn evidence(out: &mut String, e: &Evidence) {
    let fence = fence_for(&e.text);
    let _ = writeln!(
        out,
        "`{}` lines {}–{}:\n\n{fence}text\n{}\n{fence}\n",
        cell(&e.source),
        e.line_start,
        e.line_end,
        e.text
    );
}

/// A code fence longer than any run of backticks in `text`, so nothing in
/// it can close the block early.
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// Text from the input outside code: every character Markdown or HTML
/// would act on is escaped, so a pasted `<img onerror=…>` or
/// `[x](javascript:…)` shows as text in any Markdown viewer.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A message whose `code spans` stay code (their content is literal in
/// Markdown, HTML included) and whose other text is [`prose`]. With an odd
/// number of backticks the pairing is unknown, and all of it is prose.
fn inline(text: &str) -> String {
    if text.matches('`').count() % 2 == 1 {
        return prose(text);
    }
    text.split('`')
        .enumerate()
        .map(|(i, piece)| {
            if i % 2 == 1 {
                format!("`{piece}`")
            } else {
                prose(piece)
            }
        })
        .collect()
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('\n', " ")
        .replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Source, analyze};

    /// The Markdown with code blocks and code spans taken out: what a
    /// viewer would interpret.
    fn outside_code(markdown: &str) -> String {
        let mut out = String::new();
        let mut fence: Option<String> = None;
        for line in markdown.lines() {
            let ticks: String = line.chars().take_while(|&c| c == '`').collect();
            match &fence {
                Some(open) if ticks.len() >= open.len() && line.trim_end() == ticks => fence = None,
                Some(_) => {}
                None if ticks.len() >= 3 => fence = Some(ticks),
                None => {
                    for (i, piece) in line.split('`').enumerate() {
                        if i % 2 == 0 {
                            out.push_str(piece);
                        }
                    }
                    out.push('\n');
                }
            }
        }
        out
    }

    #[test]
    fn pasted_html_and_links_stay_text() {
        let vectors = [
            "<script>alert(1)</script>",
            "<img src=x onerror=alert(1)>",
            "[click](javascript:alert(1))",
            "```</pre><svg onload=alert(1)>",
            "`<b>x</b>",
        ];
        let mut transcript = String::new();
        for v in vectors {
            transcript.push_str(&format!(
                "$ vllm serve '{v}' --port 8000 > '/tmp/{v}.log' 2>&1 &\n$ ssh '{v}' tail -5 /tmp/x.log\n"
            ));
        }
        transcript.push_str("The server is up. <img src=x onerror=alert(2)>\n");
        let report = analyze(&[Source::new("<svg onload=alert(3)>.txt", transcript)]);
        let markdown = render(&report);
        let outside = outside_code(&markdown);
        assert!(!outside.contains('<'), "raw HTML outside code:\n{outside}");
        let live_link = outside
            .match_indices("](")
            .any(|(at, _)| !outside[..at].ends_with('\\'));
        assert!(!live_link, "a live link:\n{outside}");
        // The vectors are still there, as text.
        assert!(markdown.contains("onerror=alert(1)"));
    }
}

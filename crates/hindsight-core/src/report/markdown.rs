//! Markdown rendering: a postmortem that pastes into an issue or a wiki.

use std::fmt::Write as _;

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
    let _ = writeln!(out, "**{}**\n", cell(&report.summary.headline));
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
                cell(c.host.as_deref().unwrap_or("")),
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
                cell(s.host.as_deref().unwrap_or("")),
                s.port_text(),
                s.tp_size.map(|p| p.to_string()).unwrap_or_default(),
                cell(s.draft_model.as_deref().unwrap_or("")),
                tri(s.ready),
                tri(s.drafter_loaded),
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
                cell(&entry.detail),
                cited.join(", ")
            );
        }
    }

    let _ = writeln!(out, "\n## Findings\n");
    if report.findings.is_empty() {
        let _ = writeln!(out, "{}", cell(&report.summary.headline));
    }
    for f in &report.findings {
        let _ = writeln!(
            out,
            "### {} `{}`: {}\n\n{}\n",
            f.severity.name(),
            f.rule,
            f.title,
            f.message
        );
        for e in &f.evidence {
            evidence(&mut out, e);
        }
        let _ = writeln!(out, "Check with:\n\n```sh\n{}\n```\n", f.suggestion);
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
                d.message
            );
        }
    }
    out
}

fn evidence(out: &mut String, e: &Evidence) {
    let fence = if e.text.contains("```") {
        "````"
    } else {
        "```"
    };
    let _ = writeln!(
        out,
        "`{}` lines {}–{}:\n\n{fence}text\n{}\n{fence}\n",
        e.source, e.line_start, e.line_end, e.text
    );
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('\n', " ")
        .replace('`', "'")
}

fn shorten(text: &str, max: usize) -> String {
    let flat = text.replace('\n', " ");
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

fn tri(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

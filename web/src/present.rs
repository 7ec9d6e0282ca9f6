//! Pure presentation helpers: the words and numbers the results show, derived
//! from a [`Report`] without touching the DOM, so they are tested natively and
//! the components stay thin.

use hindsight_core::Severity;
use hindsight_core::report::{CheckpointReport, Evidence, FindingReport, Report, ServerReport};
use hindsight_core::rules::CheckStatus;

/// File name of the Markdown export.
pub(crate) const MARKDOWN_FILE: &str = "hindsight-report.md";
/// File name of the JSON export.
pub(crate) const JSON_FILE: &str = "hindsight-report.json";

/// Severities in the order the page shows them: worst first.
const SEVERITY_ORDER: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// `1 thing` / `2 things`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one-line summary above the results.
pub(crate) fn summary(report: &Report) -> String {
    let (errors, warnings, infos) = report.counts();
    let mut findings = plural(report.findings.len(), "finding", "findings");
    let parts: Vec<String> = [
        (errors, "error", "errors"),
        (warnings, "warning", "warnings"),
        (infos, "info", "info"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, one, many)| plural(n, one, many))
    .collect();
    if !parts.is_empty() {
        findings.push_str(&format!(" ({})", parts.join(", ")));
    }
    [
        findings,
        plural(report.checkpoints.len(), "checkpoint", "checkpoints"),
        plural(report.servers.len(), "server", "servers"),
        plural(report.sources.len(), "source", "sources"),
    ]
    .join(" · ")
}

/// Findings grouped by severity, worst first; empty groups are left out.
pub(crate) fn by_severity(report: &Report) -> Vec<(Severity, Vec<FindingReport>)> {
    SEVERITY_ORDER
        .iter()
        .map(|&severity| {
            let findings: Vec<FindingReport> = report
                .findings
                .iter()
                .filter(|f| f.severity == severity)
                .cloned()
                .collect();
            (severity, findings)
        })
        .filter(|(_, findings)| !findings.is_empty())
        .collect()
}

/// The heading of one severity group.
pub(crate) fn severity_heading(severity: Severity, count: usize) -> String {
    let word = match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Info",
    };
    format!("{word} ({count})")
}

/// A finding's status in words.
pub(crate) fn status_label(status: CheckStatus) -> &'static str {
    match status {
        CheckStatus::NotChecked => "never checked",
        CheckStatus::Failed => "checked, failed",
        CheckStatus::Inconclusive => "checked, result not shown",
    }
}

/// A three-way fact: shown, shown failing, or not shown either way.
pub(crate) fn tri_state(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

/// Whether the server was told to use a draft model at all.
pub(crate) fn is_speculative(server: &ServerReport) -> bool {
    server.draft_model.is_some() || server.speculative_algorithm.is_some()
}

/// "drafter loaded" for a server: n/a when it has no drafter.
pub(crate) fn drafter_loaded(server: &ServerReport) -> &'static str {
    if is_speculative(server) || server.drafter_loaded.is_some() {
        tri_state(server.drafter_loaded)
    } else {
        "n/a"
    }
}

/// The drafter as one line: `EAGLE3 · /data/drafter`.
pub(crate) fn drafter(server: &ServerReport) -> Option<String> {
    match (&server.speculative_algorithm, &server.draft_model) {
        (Some(algorithm), Some(model)) => Some(format!("{algorithm} · {model}")),
        (Some(one), None) | (None, Some(one)) => Some(one.clone()),
        (None, None) => None,
    }
}

/// What the rank count is based on: the linked log, or only what the agent saw.
pub(crate) fn ranks_label(server: &ServerReport) -> &'static str {
    if server.log_source.is_some() {
        "ranks in log"
    } else {
        "ranks seen"
    }
}

/// The heading over a server's last line: its log's end, or, without a
/// linked log, the last line the agent saw of it.
pub(crate) fn last_line_label(server: &ServerReport) -> &'static str {
    if server.log_source.is_some() {
        "Log stops at"
    } else {
        "Last line the agent saw"
    }
}

/// `8 of 8`.
pub(crate) fn ranks(server: &ServerReport) -> String {
    format!("{} of {}", server.ranks_seen, server.ranks_expected)
}

/// Whether fewer ranks were seen than expected.
pub(crate) fn ranks_short(server: &ServerReport) -> bool {
    server.ranks_seen < server.ranks_expected
}

/// An optional value, or a dash.
pub(crate) fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| v.to_string())
}

/// The parallelism of a server: `tp 8`, `tp 4 · pp 2`. Tensor parallelism is
/// always shown (1 when unset); the other sizes only when above 1.
pub(crate) fn parallelism(server: &ServerReport) -> String {
    let mut parts = vec![format!("tp {}", server.tp_size.unwrap_or(1))];
    parts.extend(
        [
            ("pp", server.pp_size),
            ("dp", server.dp_size),
            ("ep", server.ep_size),
        ]
        .into_iter()
        .filter_map(|(name, size)| size.filter(|&n| n > 1).map(|n| format!("{name} {n}"))),
    );
    parts.join(" · ")
}

/// The rules whose evidence points at a checkpoint's command or output
/// lines, so the timeline can mark the actions a finding is about.
pub(crate) fn flags(checkpoint: &CheckpointReport, findings: &[FindingReport]) -> Vec<String> {
    let own: Vec<&Evidence> = std::iter::once(&checkpoint.evidence)
        .chain(checkpoint.output.as_ref())
        .collect();
    let overlaps = |e: &Evidence| {
        own.iter().any(|o| {
            o.source == e.source && e.line_start <= o.line_end && o.line_start <= e.line_end
        })
    };
    let mut rules: Vec<String> = Vec::new();
    for finding in findings {
        if finding.evidence.iter().any(overlaps) && !rules.contains(&finding.rule) {
            rules.push(finding.rule.clone());
        }
    }
    rules
}

/// For findings in display order, which of their evidence excerpts were
/// already quoted by an earlier finding (the launch line often backs several),
/// so the page can fold the repeats.
pub(crate) fn repeated_evidence<'a>(
    findings: impl IntoIterator<Item = &'a FindingReport>,
) -> Vec<Vec<bool>> {
    let mut seen: Vec<(&str, u32, u32)> = Vec::new();
    findings
        .into_iter()
        .map(|finding| {
            finding
                .evidence
                .iter()
                .map(|e| {
                    let key = (e.source.as_str(), e.line_start, e.line_end);
                    let repeat = seen.contains(&key);
                    if !repeat {
                        seen.push(key);
                    }
                    repeat
                })
                .collect()
        })
        .collect()
}

/// Where evidence comes from: `log.txt:12` or `log.txt:12–15`.
pub(crate) fn evidence_label(evidence: &Evidence) -> String {
    if evidence.line_end > evidence.line_start {
        format!(
            "{}:{}–{}",
            evidence.source, evidence.line_start, evidence.line_end
        )
    } else {
        format!("{}:{}", evidence.source, evidence.line_start)
    }
}

/// Line numbers for an evidence block's gutter, one per shown line. An
/// excerpt cut in the middle (`… N more lines …`) gets a blank gutter there
/// and resumes counting after the cut.
pub(crate) fn gutter(evidence: &Evidence) -> Vec<String> {
    let mut number = evidence.line_start;
    evidence
        .text
        .split('\n')
        .map(|line| {
            if let Some(skipped) = cut_marker(line) {
                number = number.saturating_add(skipped);
                String::new()
            } else {
                let shown = number.to_string();
                number = number.saturating_add(1);
                shown
            }
        })
        .collect()
}

/// The number of lines a `… N more lines …` marker stands for.
fn cut_marker(line: &str) -> Option<u32> {
    line.strip_prefix("… ")?
        .strip_suffix(" more lines …")?
        .parse()
        .ok()
}

/// A byte count for people: `812 B`, `31.4 KB`, `2.0 MB`.
pub(crate) fn size(bytes: usize) -> String {
    // Display only; precision loss on huge inputs does not matter.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{:.1} KB", b / 1000.0)
    } else {
        format!("{:.1} MB", b / 1_000_000.0)
    }
}

/// The footer of a source editor: `92 lines · 8.1 KB`.
pub(crate) fn text_stats(text: &str) -> String {
    format!(
        "{} · {}",
        plural(text.lines().count(), "line", "lines"),
        size(text.len())
    )
}

/// A piece of rule documentation text: prose or inline code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inline {
    Text(String),
    Code(String),
}

/// Splits the rules' Markdown (prose with `inline code`) into pieces; an
/// unmatched backtick is kept as text.
pub(crate) fn inline_code(markdown: &str) -> Vec<Inline> {
    let mut pieces = Vec::new();
    let mut rest = markdown;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            break;
        };
        if open > 0 {
            pieces.push(Inline::Text(rest[..open].to_owned()));
        }
        pieces.push(Inline::Code(after[..close].to_owned()));
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Inline::Text(rest.to_owned()));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Report {
        hindsight_core::analyze(&crate::seed::sources())
    }

    /// The seed's report with its findings replaced by `rule-0`, `rule-1`…
    /// of the given severities.
    fn with_findings(severities: &[Severity]) -> Report {
        let mut report = seed();
        let template = report.findings[0].clone();
        report.findings = severities
            .iter()
            .enumerate()
            .map(|(i, &severity)| FindingReport {
                rule: format!("rule-{i}"),
                severity,
                ..template.clone()
            })
            .collect();
        report
    }

    #[test]
    fn summary_counts_findings_by_severity_and_everything_else() {
        let report = with_findings(&[Severity::Warning, Severity::Error, Severity::Warning]);
        assert_eq!(
            summary(&report),
            format!(
                "3 findings (1 error, 2 warnings) · {} checkpoints · 1 server · 2 sources",
                report.checkpoints.len()
            )
        );
        let one = with_findings(&[Severity::Info]);
        assert!(summary(&one).starts_with("1 finding (1 info) · "));
    }

    #[test]
    fn empty_report_summary_has_no_breakdown() {
        let report = hindsight_core::analyze(&[]);
        assert_eq!(
            summary(&report),
            "0 findings · 0 checkpoints · 0 servers · 0 sources"
        );
        assert!(by_severity(&report).is_empty());
    }

    #[test]
    fn findings_are_grouped_worst_first_and_keep_their_order() {
        let report = with_findings(&[
            Severity::Warning,
            Severity::Error,
            Severity::Info,
            Severity::Warning,
        ]);
        let shape: Vec<(Severity, Vec<String>)> = by_severity(&report)
            .into_iter()
            .map(|(s, f)| (s, f.into_iter().map(|f| f.rule).collect()))
            .collect();
        assert_eq!(
            shape,
            [
                (Severity::Error, vec!["rule-1".to_owned()]),
                (
                    Severity::Warning,
                    vec!["rule-0".to_owned(), "rule-3".to_owned()]
                ),
                (Severity::Info, vec!["rule-2".to_owned()]),
            ]
        );
        assert_eq!(severity_heading(Severity::Warning, 2), "Warnings (2)");
    }

    #[test]
    fn seed_server_reads_as_the_cli_shows_it() {
        let report = seed();
        let server = &report.servers[0];
        assert_eq!(parallelism(server), "tp 8");
        assert_eq!(
            drafter(server).as_deref(),
            Some("EAGLE3 · /data/eagle3/aq-medai-k2-drafter")
        );
        assert_eq!(drafter_loaded(server), "unknown");
        assert_eq!(tri_state(server.ready), "unknown");
        assert_eq!(ranks(server), "8 of 8");
        assert_eq!(ranks_label(server), "ranks in log");
        assert_eq!(last_line_label(server), "Log stops at");
        let mut unlinked = server.clone();
        unlinked.log_source = None;
        assert_eq!(ranks_label(&unlinked), "ranks seen");
        assert_eq!(last_line_label(&unlinked), "Last line the agent saw");
        assert!(!ranks_short(server));
        assert_eq!(or_dash(server.port), "8000");
        assert_eq!(or_dash(None::<u16>), "—");
    }

    #[test]
    fn servers_without_drafter_say_not_applicable() {
        let mut server = seed().servers.remove(0);
        server.draft_model = None;
        server.speculative_algorithm = None;
        server.drafter_loaded = None;
        assert_eq!(drafter_loaded(&server), "n/a");
        assert_eq!(drafter(&server), None);
        server.tp_size = None;
        assert_eq!(parallelism(&server), "tp 1");
        server.tp_size = Some(4);
        server.pp_size = Some(2);
        server.dp_size = Some(1);
        assert_eq!(parallelism(&server), "tp 4 · pp 2");
    }

    #[test]
    fn the_launch_carries_every_seed_flag() {
        let report = seed();
        let launch = report
            .checkpoints
            .iter()
            .find(|c| c.kind_name() == "launch")
            .map(|c| flags(c, &report.findings))
            .unwrap_or_default();
        for rule in crate::seed::RULES {
            assert!(launch.iter().any(|r| r == rule), "{rule} is not flagged");
        }
        // No build or kill is evidence of anything in the seed.
        for checkpoint in &report.checkpoints {
            if matches!(checkpoint.kind_name(), "build" | "kill") {
                assert!(flags(checkpoint, &report.findings).is_empty());
            }
        }
    }

    #[test]
    fn evidence_quoted_by_an_earlier_finding_is_marked_repeated() {
        let quote = |source: &str, line: u32| Evidence {
            source: source.into(),
            line_start: line,
            line_end: line,
            text: "x".into(),
        };
        let mut report = with_findings(&[Severity::Warning; 3]);
        report.findings[0].evidence = vec![quote("t", 59), quote("t", 80)];
        report.findings[1].evidence = vec![quote("t", 59), quote("log", 59)];
        report.findings[2].evidence = vec![quote("t", 80), quote("log", 60)];
        assert_eq!(
            repeated_evidence(&report.findings),
            [vec![false, false], vec![true, false], vec![true, false]]
        );
    }

    #[test]
    fn evidence_labels_and_gutters() {
        let mut evidence = Evidence {
            source: "log".into(),
            line_start: 7,
            line_end: 7,
            text: "a".into(),
        };
        assert_eq!(evidence_label(&evidence), "log:7");
        assert_eq!(gutter(&evidence), ["7"]);
        evidence.line_end = 105;
        evidence.text = "a\nb\n… 95 more lines …\ny\nz".into();
        assert_eq!(evidence_label(&evidence), "log:7–105");
        assert_eq!(gutter(&evidence), ["7", "8", "", "104", "105"]);
    }

    #[test]
    fn inline_code_splits_on_backtick_pairs() {
        assert_eq!(
            inline_code("run `ss -ltn` then `curl`."),
            [
                Inline::Text("run ".into()),
                Inline::Code("ss -ltn".into()),
                Inline::Text(" then ".into()),
                Inline::Code("curl".into()),
                Inline::Text(".".into()),
            ]
        );
        assert_eq!(inline_code("a ` b"), [Inline::Text("a ` b".into())]);
        assert_eq!(inline_code(""), []);
    }

    #[test]
    fn every_rule_doc_renders_without_stray_backticks() {
        for rule in hindsight_core::rules::ALL {
            for text in [rule.why, rule.example, rule.check] {
                for piece in inline_code(text) {
                    if let Inline::Text(t) = piece {
                        assert!(!t.contains('`'), "{}: unbalanced backticks", rule.id);
                    }
                }
            }
        }
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(31_400), "31.4 KB");
        assert_eq!(size(2_000_000), "2.0 MB");
        assert_eq!(text_stats("a\nb\n"), "2 lines · 4 B");
        assert_eq!(text_stats(""), "0 lines · 0 B");
    }

    #[test]
    fn plural_words() {
        assert_eq!(plural(1, "server", "servers"), "1 server");
        assert_eq!(plural(0, "server", "servers"), "0 servers");
        assert_eq!(status_label(CheckStatus::NotChecked), "never checked");
    }
}

//! Pure presentation helpers: the words and numbers the results show, derived
//! from a [`Report`] without touching the DOM, so they are tested natively and
//! the components stay thin.

use hindsight_core::Severity;
use hindsight_core::report::{CheckpointReport, Evidence, FindingReport, Report, ServerReport};
use hindsight_core::rules::CheckStatus;

/// File name of the Markdown export.
pub const MARKDOWN_FILE: &str = "hindsight-report.md";
/// File name of the JSON export.
pub const JSON_FILE: &str = "hindsight-report.json";

/// Severities in the order the page shows them: worst first.
const SEVERITY_ORDER: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// `1 thing` / `2 things`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one-line summary above the results.
pub fn summary(report: &Report) -> String {
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
pub fn by_severity(report: &Report) -> Vec<(Severity, Vec<FindingReport>)> {
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
pub fn severity_heading(severity: Severity, count: usize) -> String {
    let word = match severity {
        Severity::Error => "Errors",
        Severity::Warning => "Warnings",
        Severity::Info => "Info",
    };
    format!("{word} ({count})")
}

/// A finding's status in words.
pub fn status_label(status: CheckStatus) -> &'static str {
    match status {
        CheckStatus::NotChecked => "never checked",
        CheckStatus::Failed => "checked, failed",
        CheckStatus::Inconclusive => "checked, result not shown",
    }
}

pub use hindsight_core::report::words::tri_state;

/// "drafter loaded" for a server: n/a when it loads no drafter (the
/// core's own test, so the page and the CLI agree).
pub fn drafter_loaded(server: &ServerReport) -> &'static str {
    server.drafter_loaded_text()
}

/// The drafter as one line: `EAGLE3 · /data/drafter`.
pub fn drafter(server: &ServerReport) -> Option<String> {
    match (&server.speculative_algorithm, &server.draft_model) {
        (Some(algorithm), Some(model)) => Some(format!("{algorithm} · {model}")),
        (Some(one), None) | (None, Some(one)) => Some(one.clone()),
        (None, None) => None,
    }
}

/// What the rank count is based on: the linked log, or only what the agent saw.
pub fn ranks_label(server: &ServerReport) -> &'static str {
    if server.log_source.is_some() {
        "ranks in log"
    } else {
        "ranks seen"
    }
}

/// The heading over a server's last line: its log's end, or, without a
/// linked log, the last line the agent saw of it.
pub fn last_line_label(server: &ServerReport) -> &'static str {
    if server.log_source.is_some() {
        "Log stops at"
    } else {
        "Last line the agent saw"
    }
}

/// `8 of 8`, `3 of at least 8`, `2 (expected unknown)`.
pub fn ranks(server: &ServerReport) -> String {
    server.ranks_text()
}

/// Whether fewer ranks were seen than expected.
pub fn ranks_short(server: &ServerReport) -> bool {
    server
        .ranks_expected
        .is_some_and(|expected| server.ranks_seen < expected)
}

/// An optional value, or a dash.
pub fn or_dash<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| v.to_string())
}

/// The parallelism of a server: `tp 8`, `tp 4 · pp 2`. Tensor parallelism is
/// always shown (1 when unset); the other sizes only when above 1.
pub fn parallelism(server: &ServerReport) -> String {
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
pub fn flags(checkpoint: &CheckpointReport, findings: &[FindingReport]) -> Vec<String> {
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
pub fn repeated_evidence<'a>(
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
pub fn evidence_label(evidence: &Evidence) -> String {
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
pub fn gutter(evidence: &Evidence) -> Vec<String> {
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

/// How often a server restarted in its log, and how earlier runs failed:
/// `once; before: cuda-oom (line 16)`. `None` for a single run (the card
/// then shows nothing: the facts above are the last run's either way).
pub fn restarts(server: &ServerReport) -> Option<String> {
    if server.restarts == 0 {
        return None;
    }
    let times = server.restart_count();
    let failures: Vec<String> = server
        .earlier_failures
        .iter()
        .map(|f| format!("{} (line {})", f.kind, f.evidence.line_start))
        .collect();
    Some(if failures.is_empty() {
        times
    } else {
        format!("{times}; before: {}", failures.join(", "))
    })
}

/// A byte count for people: `812 B`, `31.4 KB`, `2.0 MB`.
pub fn size(bytes: usize) -> String {
    // Display only; precision loss on huge inputs does not matter.
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if bytes < 1_000_000 {
        format!("{} KB", fixed(b / 1000.0, 1))
    } else {
        format!("{} MB", fixed(b / 1_000_000.0, 1))
    }
}

/// `value` with `decimals` digits after the point (at most 6): what
/// `format!("{value:.N}")` prints, except that an exact tie (0.125 to two
/// places) rounds away from zero rather than to even, and a negative number
/// that rounds to zero prints no sign. For the magnitudes the
/// page shows: up to 2^53 units of the last digit; beyond, and for NaN and
/// infinities, zero.
///
/// Every number the page prints goes through here rather than the standard
/// library's float formatting, which would add about 5 KB (gzipped) of
/// shortest-digits and exact-digits algorithms to the page for a few
/// percentages, pixel offsets and timings.
pub fn fixed(value: f64, decimals: u32) -> String {
    let decimals = decimals.min(6);
    let unit = 10u64.pow(decimals);
    // Above 2^53 an f64 holds no fraction digits anyway.
    #[allow(clippy::cast_precision_loss)]
    let scaled = (value.abs() * unit as f64).round();
    let units = if scaled.is_finite() && scaled < 9_007_199_254_740_992.0 {
        // Finite, whole, non-negative and in range: the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let units = scaled as u64;
        units
    } else {
        0
    };
    let sign = if value < 0.0 && units > 0 { "-" } else { "" };
    let (whole, fraction) = (units / unit, units % unit);
    if decimals == 0 {
        format!("{sign}{whole}")
    } else {
        format!(
            "{sign}{whole}.{fraction:0width$}",
            width = decimals as usize
        )
    }
}

/// Lower case, for case-insensitive search. In the browser this is
/// JavaScript's `toLowerCase` (the same Unicode mapping): the standard
/// library's would add its 11 KB lower-case table to the page.
pub fn lower(text: &str) -> String {
    #[cfg(target_arch = "wasm32")]
    {
        String::from(js_sys::JsString::from(text).to_lower_case())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        text.to_lowercase()
    }
}

/// The footer of a source editor: `92 lines · 8.1 KB`.
pub fn text_stats(text: &str) -> String {
    format!(
        "{} · {}",
        plural(text.lines().count(), "line", "lines"),
        size(text.len())
    )
}

/// A piece of rule documentation text: prose or inline code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inline {
    Text(String),
    Code(String),
}

/// Splits the rules' Markdown (prose with `inline code`) into pieces; an
/// unmatched backtick is kept as text.
pub fn inline_code(markdown: &str) -> Vec<Inline> {
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

/// What the filter bar lets through.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filter {
    /// Lower-cased search text; empty matches everything.
    pub search: String,
    /// Severities and checkpoint kinds switched off.
    pub hidden_severities: Vec<Severity>,
    pub hidden_kinds: Vec<&'static str>,
    /// Only this host (`local` for commands run without `ssh`).
    pub host: Option<String>,
    /// Only this server (its index in the report).
    pub server: Option<usize>,
}

/// The host label of a command or server: its host, or `local`.
pub fn host_label(host: Option<&str>) -> String {
    host.unwrap_or("local").to_owned()
}

/// Whether `needle` (lower-case) occurs in any of `texts`, ignoring case.
fn mentions(needle: &str, texts: &[&str]) -> bool {
    needle.is_empty() || texts.iter().any(|t| lower(t).contains(needle))
}

impl Filter {
    pub fn finding(&self, finding: &FindingReport, report: &Report) -> bool {
        let server = finding.server.and_then(|i| report.servers.get(i));
        let host = host_label(server.and_then(|s| s.host.as_deref()));
        !self.hidden_severities.contains(&finding.severity)
            && self.host.as_ref().is_none_or(|h| *h == host)
            && self.server.is_none_or(|s| finding.server == Some(s))
            && (mentions(
                &self.search,
                &[
                    &finding.rule,
                    &finding.title,
                    &finding.message,
                    &finding.suggestion,
                ],
            ) || finding
                .evidence
                .iter()
                .any(|e| mentions(&self.search, &[&e.text])))
    }

    pub fn checkpoint(&self, checkpoint: &CheckpointReport, report: &Report) -> bool {
        let host = host_label(checkpoint.host.as_deref());
        let server_host = self
            .server
            .and_then(|i| report.servers.get(i))
            .map(|s| host_label(s.host.as_deref()));
        !self.hidden_kinds.contains(&checkpoint.kind_name())
            && self.host.as_ref().is_none_or(|h| *h == host)
            && server_host.is_none_or(|h| h == host)
            && mentions(
                &self.search,
                &[
                    &checkpoint.command,
                    checkpoint.output.as_ref().map_or("", |o| o.text.as_str()),
                ],
            )
    }
}

/// Every host in the report, in order of first appearance.
pub fn hosts(report: &Report) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    let all = report
        .checkpoints
        .iter()
        .map(|c| c.host.as_deref())
        .chain(report.servers.iter().map(|s| s.host.as_deref()));
    for host in all {
        let label = host_label(host);
        if !hosts.contains(&label) {
            hosts.push(label);
        }
    }
    hosts
}

/// A server in one line: `sglang · host:8000`.
pub fn server_label(server: &ServerReport) -> String {
    let place = match (&server.host, server.port) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.clone(),
        (None, Some(port)) => format!("port {port}"),
        (None, None) => "local".to_owned(),
    };
    format!("{} · {place}", server.engine_name())
}

/// Seconds since midnight of a log time such as `2026-02-11 22:34:41` (or
/// `22:34:41.123`, `2026-02-11T22:34:41Z`): the first `HH:MM:SS` in it.
pub fn seconds_of(time: &str) -> Option<u32> {
    let bytes = time.as_bytes();
    (0..bytes.len().saturating_sub(7)).find_map(|i| {
        let t = bytes.get(i..i + 8)?;
        let digit = |k: usize| t[k].is_ascii_digit();
        if !(digit(0)
            && digit(1)
            && t[2] == b':'
            && digit(3)
            && digit(4)
            && t[5] == b':'
            && digit(6)
            && digit(7))
        {
            return None;
        }
        let n = |k: usize| u32::from(t[k] - b'0') * 10 + u32::from(t[k + 1] - b'0');
        Some(n(0) * 3600 + n(3) * 60 + n(6))
    })
}

/// `34 s`, `2 min 5 s`, `1 h 3 min`.
pub fn duration(seconds: u32) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 if seconds.is_multiple_of(60) => format!("{} min", seconds / 60),
        60..3600 => format!("{} min {} s", seconds / 60, seconds % 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

/// The note between two consecutive checkpoints when time passed or
/// messages went by: `12 messages later`, `3 min later`.
pub fn gap(before: &CheckpointReport, after: &CheckpointReport) -> Option<String> {
    let seconds = match (
        before.time.as_deref().and_then(seconds_of),
        after.time.as_deref().and_then(seconds_of),
    ) {
        (Some(a), Some(b)) if b >= a + 60 => Some(b - a),
        _ => None,
    };
    let messages = match (before.message, after.message) {
        (Some(a), Some(b)) if b > a + 1 => Some(b - a - 1),
        _ => None,
    };
    match (seconds, messages) {
        (Some(s), _) => Some(format!("{} later", duration(s))),
        (None, Some(m)) => Some(format!(
            "{} later",
            plural(m as usize, "message", "messages")
        )),
        (None, None) => None,
    }
}

/// The line under the overview saying what its axes are.
pub fn lanes_caption(report: &Report) -> String {
    let first = report.checkpoints.first().and_then(|c| c.message);
    let last = report.checkpoints.last().and_then(|c| c.message);
    let hosts = match (first, last) {
        (Some(a), Some(b)) if a != b => format!("Checkpoints placed by message (msg {a} to {b})"),
        _ => "Checkpoints in order".to_owned(),
    };
    if report.servers.is_empty() {
        hosts
    } else {
        format!("{hosts}; server bars by their log's clock")
    }
}

/// One lane of the timeline overview.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    pub label: String,
    pub marks: Vec<Mark>,
    pub segments: Vec<Segment>,
}

/// A checkpoint on a host's lane, at `x` percent of the width.
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    pub x: f64,
    pub kind: &'static str,
    pub checkpoint: usize,
    pub title: String,
}

/// A phase on a server's lane: from `x` for `width` percent.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    pub x: f64,
    pub width: f64,
    pub phase: &'static str,
    pub label: String,
}

/// The overview: a lane per host with its checkpoints placed by message
/// (or by order when there are no message numbers), then a lane per server
/// across the whole width on its own clock (its log's times), split into its
/// phases by their durations (equal parts when the log has no times). A
/// failure ends the bar. Transcripts rarely carry times, so the two axes
/// cannot be one; [`lanes_caption`] says which is which.
pub fn lanes(report: &Report) -> Vec<Lane> {
    let checkpoints = &report.checkpoints;
    let by_message = checkpoints.iter().all(|c| c.message.is_some());
    let position = |i: usize| -> f64 {
        let (at, lo, hi) = if by_message {
            let m = |k: usize| checkpoints.get(k).and_then(|c| c.message).unwrap_or(0) as f64;
            (m(i), m(0), m(checkpoints.len().saturating_sub(1)))
        } else {
            (i as f64, 0.0, checkpoints.len().saturating_sub(1) as f64)
        };
        if hi > lo {
            2.0 + 96.0 * (at - lo) / (hi - lo)
        } else {
            50.0
        }
    };
    let mut lanes: Vec<Lane> = hosts(report)
        .into_iter()
        .filter(|host| {
            checkpoints
                .iter()
                .any(|c| host_label(c.host.as_deref()) == *host)
        })
        .map(|host| Lane {
            marks: checkpoints
                .iter()
                .enumerate()
                .filter(|(_, c)| host_label(c.host.as_deref()) == host)
                .map(|(i, c)| Mark {
                    x: position(i),
                    kind: c.kind_name(),
                    checkpoint: i,
                    title: format!("{}: {}", c.kind_name(), c.command),
                })
                .collect(),
            segments: Vec::new(),
            label: host,
        })
        .collect();
    for server in &report.servers {
        let start = 0.0;
        let span = 99.0;
        let times: Vec<Option<u32>> = server
            .phases
            .iter()
            .map(|p| p.time.as_deref().and_then(seconds_of))
            .collect();
        // Each phase lasts until the next one with a time; the last gets a
        // share as long as the average, so it stays visible.
        let lengths: Vec<Option<u32>> = (0..times.len())
            .map(|i| match (times[i], times.get(i + 1).copied().flatten()) {
                (Some(a), Some(b)) if b >= a => Some(b - a),
                _ => None,
            })
            .collect();
        let known: Vec<u32> = lengths.iter().flatten().copied().collect();
        let fallback = if known.is_empty() {
            1.0
        } else {
            (f64::from(known.iter().sum::<u32>()) / known.len() as f64).max(1.0)
        };
        let weights: Vec<f64> = lengths
            .iter()
            .map(|l| l.map_or(fallback, |s| f64::from(s).max(fallback / 10.0)))
            .collect();
        let total: f64 = weights.iter().sum::<f64>().max(f64::EPSILON);
        let mut x = start;
        let mut segments: Vec<Segment> = Vec::new();
        for ((phase, weight), length) in server.phases.iter().zip(&weights).zip(&lengths) {
            let width = span * weight / total;
            segments.push(Segment {
                x,
                width,
                phase: phase.phase_name(),
                label: match length {
                    Some(s) => format!("{} · {}", phase.phase_name(), duration(*s)),
                    None => phase.phase_name().to_owned(),
                },
            });
            x += width;
        }
        if let Some(failure) = &server.failure {
            segments.push(Segment {
                x: x.min(97.0),
                width: 1.0,
                phase: "failed",
                label: format!("failed: {}", failure.kind),
            });
        }
        lanes.push(Lane {
            label: server_label(server),
            marks: Vec::new(),
            segments,
        });
    }
    lanes
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
    fn fixed_prints_what_format_prints() {
        let mut values: Vec<f64> = vec![0.0, -0.0, 1.0, -1.5, 99.999, 1e12, -2.71, 0.05, 7.0e-7];
        values.extend((0..20_000).map(|k| f64::from(k) / 997.0));
        values.extend((0..20_000).map(|k| f64::from(k) * 37.3));
        for value in values {
            for decimals in 0..=3 {
                let ours = fixed(value, decimals);
                let std = format!("{value:.prec$}", prec = decimals as usize);
                // `format!` keeps the sign of a negative number rounded to
                // zero (`-0.00`); the page prints no such sign.
                let std = match std.strip_prefix('-') {
                    Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_owned(),
                    _ => std,
                };
                // Exact ties (0.125 to two places) go away from zero here
                // and to even in `format!`; any other difference is a bug.
                let tie = format!("{value:.prec$}", prec = decimals as usize + 1).ends_with('5')
                    && value * 10f64.powi(decimals as i32 + 1)
                        == (value * 10f64.powi(decimals as i32 + 1)).round();
                assert!(ours == std || tie, "{value} to {decimals}: {ours} vs {std}");
            }
        }
        assert_eq!(fixed(f64::NAN, 2), "0.00");
        assert_eq!(fixed(f64::INFINITY, 0), "0");
        assert_eq!(fixed(-0.004, 2), "0.00");
        assert_eq!(size(31_449), "31.4 KB");
    }

    #[test]
    fn restarts_name_the_earlier_failures() {
        let mut server = seed().servers[0].clone();
        assert_eq!(restarts(&server), None);
        server.restarts = 1;
        assert_eq!(restarts(&server).as_deref(), Some("once"));
        let failure = hindsight_core::report::FailureReport {
            kind: hindsight_core::report::FailureKind::OutOfMemory,
            message: String::new(),
            port: None,
            api_port: None,
            evidence: server.phases[0].evidence.clone(),
        };
        server.restarts = 2;
        server.earlier_failures = vec![failure];
        let line = server.phases[0].evidence.line_start;
        assert_eq!(
            restarts(&server),
            Some(format!("2 times; before: cuda-oom (line {line})"))
        );
    }

    #[test]
    fn lower_case_search_is_unicode_aware() {
        assert_eq!(lower("Port ÉCOUTE ΣΑΣ"), "port écoute σας");
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

    #[test]
    fn filters_narrow_findings_and_checkpoints() {
        let report = hindsight_core::analyze(&crate::seed::sources());
        let all = Filter::default();
        assert!(report.findings.iter().all(|f| all.finding(f, &report)));
        let search = Filter {
            search: "readiness".into(),
            ..Filter::default()
        };
        let shown: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| search.finding(f, &report))
            .map(|f| f.rule.as_str())
            .collect();
        assert!(shown.contains(&"load-taken-as-ready"), "{shown:?}");
        assert!(shown.len() < report.findings.len());
        let no_errors = Filter {
            hidden_severities: vec![Severity::Error],
            ..Filter::default()
        };
        assert!(
            report
                .findings
                .iter()
                .filter(|f| no_errors.finding(f, &report))
                .all(|f| f.severity != Severity::Error)
        );
        let verify_only = Filter {
            hidden_kinds: vec!["build", "kill", "launch", "wait", "other"],
            ..Filter::default()
        };
        assert!(
            report
                .checkpoints
                .iter()
                .filter(|c| verify_only.checkpoint(c, &report))
                .all(|c| c.kind_name() == "verify")
        );
        let elsewhere = Filter {
            host: Some("nowhere".into()),
            ..Filter::default()
        };
        assert!(
            !report
                .checkpoints
                .iter()
                .any(|c| elsewhere.checkpoint(c, &report))
        );
        assert_eq!(hosts(&report), ["root@10.1.230.174"]);
    }

    #[test]
    fn times_durations_and_gaps() {
        assert_eq!(seconds_of("2026-02-11 22:34:41"), Some(81_281));
        assert_eq!(seconds_of("[22:34:41.5]"), Some(81_281));
        assert_eq!(seconds_of("no time"), None);
        assert_eq!(duration(34), "34 s");
        assert_eq!(duration(125), "2 min 5 s");
        assert_eq!(duration(3 * 3600 + 120), "3 h 2 min");
        let report = hindsight_core::analyze(&crate::seed::sources());
        let gaps: Vec<String> = report
            .checkpoints
            .windows(2)
            .filter_map(|w| gap(&w[0], &w[1]))
            .collect();
        assert!(
            gaps.iter().any(|g| g.ends_with("messages later")),
            "{gaps:?}"
        );
    }

    #[test]
    fn lanes_place_hosts_and_server_phases() {
        let report = hindsight_core::analyze(&crate::seed::sources());
        let lanes = lanes(&report);
        assert_eq!(lanes.len(), 2, "one host, one server");
        let host = &lanes[0];
        assert_eq!(host.marks.len(), report.checkpoints.len());
        assert!(host.marks.iter().all(|m| (0.0..=100.0).contains(&m.x)));
        assert!(host.marks.windows(2).all(|w| w[0].x <= w[1].x));
        let server = &lanes[1];
        assert!(server.label.starts_with("sglang"));
        assert_eq!(server.segments.len(), report.servers[0].phases.len());
        let end = server.segments.last().map_or(0.0, |s| s.x + s.width);
        assert!(end <= 100.0 + 1e-9, "{end}");
        assert!(
            // The seed's log: configured at 22:34:13, NCCL up 11 s later.
            server
                .segments
                .iter()
                .any(|s| s.label == "configured · 11 s"),
            "{:?}",
            server.segments
        );
    }
}

//! `secret-exposed`: a credential appears in the transcript or a log.

use super::{CheckStatus, Finding, Rule, Severity};
use crate::timeline::{Quote, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "secret-exposed",
    title: "A credential appears in the transcript or a log",
    severity: Severity::Error,
    why: "Transcripts and server logs are pasted into tickets, chat and \
postmortems, and agents' session files are kept on disk for weeks. A token \
printed by `env`, passed as `--api-key` on a command line (which also shows in \
`ps` to every user of the machine) or embedded in a URL is exposed to everyone \
who reads them. Rotate it; hindsight shows it redacted.",
    example: "The agent runs `export HF_TOKEN=hf_…; huggingface-cli download …` \
or starts `vllm serve … --api-key sk-…`, and the key lands in the transcript.",
    check: "Find every copy before sharing the transcript, then rotate the \
credential: `grep -nE 'hf_[A-Za-z0-9]{30,}|sk-[A-Za-z0-9_-]{20,}|--api-key' FILE`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut reported: Vec<&str> = Vec::new();
    // The rest of a private key's body is redacted, not reported.
    let credentials = timeline.secrets.iter().filter(|s| !s.continuation);
    for secret in credentials.clone() {
        if reported.contains(&secret.value.as_str()) {
            continue;
        }
        reported.push(&secret.value);
        // The scan finds a value once per line.
        let lines = credentials
            .clone()
            .filter(|s| s.value == secret.value)
            .count();
        let source = &timeline.sources[secret.line.source];
        let line = source.lines.line(secret.line.start);
        findings.push(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            status: CheckStatus::NotChecked,
            message: format!(
                "A {} ({}) appears in {} at line {line}{}.",
                secret.kind,
                secret.redacted,
                source.name,
                match lines {
                    1 => String::new(),
                    2 => " and on 1 other line".to_owned(),
                    _ => format!(" and on {} other lines", lines - 1),
                },
            ),
            evidence: vec![quote(timeline, secret)],
            suggestion: format!(
                "grep -nF '{}' '{}'  # then rotate the credential",
                secret.redacted.trim_end_matches("…[redacted]"),
                source.name.replace('\'', ""),
            ),
            server: None,
        });
    }
    findings
}

/// The decoded command or output holding the secret, when the source escapes
/// text (JSON), else the line itself.
fn quote(timeline: &Timeline, secret: &crate::secrets::Secret) -> Quote {
    let line = secret.line;
    // The secret's line starts inside the record.
    let within = |span: crate::source::Span| {
        span.source == line.source && span.start <= line.start && line.start < span.end
    };
    timeline
        .checkpoints
        .iter()
        .filter(|c| c.decoded)
        .find_map(|c| {
            if within(c.span) && c.command.contains(&secret.value) {
                Some(c.command_quote())
            } else {
                c.output
                    .filter(|o| within(*o))
                    .and_then(|_| c.output_quote())
                    .filter(|q| q.text.as_deref().is_some_and(|t| t.contains(&secret.value)))
            }
        })
        .unwrap_or_else(|| Quote::from(line))
}

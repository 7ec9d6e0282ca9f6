//! SARIF 2.1.0 rendering, so code-scanning tools (GitHub code scanning, IDE
//! SARIF viewers, CI dashboards) can show hindsight's findings.
//!
//! Built with `serde_json` values only: SARIF is a large format and we write a
//! small, fixed part of it. The tool driver lists every rule from its
//! declaration (so `ruleIndex` is stable across runs and configurations);
//! each finding's first evidence is its location and the rest are related
//! locations. Diagnostics become tool execution notifications.

use serde_json::{Map, Value, json};

use super::{Evidence, FindingReport, Report};
use crate::rules::{self, Severity};

/// The schema URI written into every log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders the report as a SARIF 2.1.0 log (pretty JSON, trailing newline).
pub fn render(report: &Report) -> String {
    let log = to_value(report);
    let mut text =
        serde_json::to_string_pretty(&log).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    text.push('\n');
    text
}

/// The SARIF log as a JSON value.
pub fn to_value(report: &Report) -> Value {
    let version = report
        .generator
        .strip_prefix("hindsight ")
        .unwrap_or(env!("CARGO_PKG_VERSION"));
    let driver = json!({
        "name": "hindsight",
        "informationUri": "https://example.invalid/hindsight",
        "semanticVersion": version,
        "version": version,
        "rules": rules::ALL.iter().map(|rule| rule_descriptor(rule)).collect::<Vec<_>>(),
    });
    let artifacts: Vec<Value> = report
        .sources
        .iter()
        .map(|source| {
            json!({
                "location": { "uri": uri(&source.name) },
                "length": source.bytes,
                "properties": { "format": source.format.name() },
            })
        })
        .collect();
    let notifications: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let mut notification = json!({
                "level": match d.level.name() {
                    "error" => "error",
                    "warning" => "warning",
                    _ => "note",
                },
                "message": { "text": d.message },
            });
            if !d.source.is_empty() {
                let mut physical = json!({ "artifactLocation": { "uri": uri(&d.source) } });
                if let Some(line) = d.line.filter(|&l| l >= 1) {
                    physical["region"] = json!({ "startLine": line });
                }
                notification["locations"] = json!([{ "physicalLocation": physical }]);
            }
            notification
        })
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "artifacts": artifacts,
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "columnKind": "unicodeCodePoints",
            "results": report.findings.iter().map(result).collect::<Vec<_>>(),
        }],
    })
}

fn rule_descriptor(rule: &rules::Rule) -> Value {
    json!({
        "id": rule.id,
        "name": camel_case(rule.id),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": rule.why, "markdown": rule.why },
        "help": {
            "text": format!("{}\n\nHow to check: {}", rule.why, rule.check),
            "markdown": crate::rules::docs::markdown(rule),
        },
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": { "tags": ["verification"] },
    })
}

fn result(finding: &FindingReport) -> Value {
    let mut object = Map::new();
    object.insert("ruleId".into(), json!(finding.rule));
    if let Some(index) = rules::ALL.iter().position(|r| r.id == finding.rule) {
        object.insert("ruleIndex".into(), json!(index));
    }
    object.insert("level".into(), json!(level(finding.severity)));
    object.insert(
        "message".into(),
        json!({ "text": format!("{}\nCheck: {}", finding.message, finding.suggestion) }),
    );
    let mut located = finding.evidence.iter().filter(|e| !e.source.is_empty());
    if let Some(first) = located.next() {
        object.insert("locations".into(), json!([location(first, None)]));
        let related: Vec<Value> = located
            .enumerate()
            .map(|(i, e)| location(e, Some(i + 1)))
            .collect();
        if !related.is_empty() {
            object.insert("relatedLocations".into(), Value::Array(related));
        }
    }
    // Stable across runs of the same session, so dashboards can track a
    // finding from one upload to the next.
    if let Some(first) = finding.evidence.first() {
        object.insert(
            "partialFingerprints".into(),
            json!({ "hindsight/v1": format!("{}:{}:{}", finding.rule, first.source, first.line_start) }),
        );
    }
    object.insert(
        "properties".into(),
        json!({
            "title": finding.title,
            "status": finding.status.name(),
            "suggestion": finding.suggestion,
            "server": finding.server,
        }),
    );
    Value::Object(object)
}

fn location(evidence: &Evidence, id: Option<usize>) -> Value {
    let mut physical = json!({ "artifactLocation": { "uri": uri(&evidence.source) } });
    // SARIF lines are 1-based; evidence without lines has no region.
    if evidence.line_start >= 1 {
        physical["region"] = json!({
            "startLine": evidence.line_start,
            "endLine": evidence.line_end.max(evidence.line_start),
            "snippet": { "text": evidence.text },
        });
    }
    let mut location = json!({ "physicalLocation": physical });
    if let Some(id) = id {
        location["id"] = json!(id);
    }
    location
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A source name as a relative URI reference: spaces and other characters
/// outside RFC 3986's unreserved and path sets are percent-encoded.
fn uri(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        let keep = byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte);
        if keep {
            out.push(char::from(byte));
        } else if byte == b'\\' {
            out.push('/');
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `port-unchecked` → `PortUnchecked`, SARIF's conventional rule name.
fn camel_case(id: &str) -> String {
    id.split('-')
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris() {
        assert_eq!(camel_case("port-unchecked"), "PortUnchecked");
        assert_eq!(uri("my log.txt"), "my%20log.txt");
        assert_eq!(uri("a/b.jsonl"), "a/b.jsonl");
        assert_eq!(uri("é"), "%C3%A9");
    }

    #[test]
    fn an_empty_report_is_a_valid_run() {
        let log = to_value(&crate::analyze(&[]));
        assert_eq!(log["version"], "2.1.0");
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .map(Vec::len),
            Some(rules::ALL.len())
        );
        assert_eq!(log["runs"][0]["results"], json!([]));
    }
}

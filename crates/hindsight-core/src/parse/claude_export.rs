//! "Claude Session Export" Markdown: a Claude Code session written out by an
//! exporter as `### User` / `### Assistant` entries, each with a `> time`
//! line and the message's raw content blocks as pretty-printed JSON (`text`,
//! `tool_use`, `tool_result`), under a `# Claude Session Export` header.
//!
//! It is read as the session it was: each content block becomes the record
//! the JSONL session would hold, and [`super::claude_code`] reads those, so
//! background shells, polls, kills and browser tools mean the same here.
//! Spans point at the block's own lines (a command's at its `"command":`
//! line). A JSON array that does not parse is a diagnostic, and the rest
//! is still read; text outside the arrays is prose of the entry's role.

use serde_json::{Value, json};

use super::Parsed;
use crate::diagnostic::Diagnostic;
use crate::source::{Span, lines_with_offsets};

/// Whether a pasted text is such an export: its header, or a `###
/// Assistant` entry whose body is a JSON array of content blocks.
pub fn looks_like(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    if head.trim_start().starts_with("# Claude Session Export") {
        return true;
    }
    let lines: Vec<&str> = head.lines().map(str::trim_end).collect();
    lines.iter().enumerate().any(|(i, line)| {
        matches!(*line, "### Assistant" | "### User")
            && lines[i + 1..]
                .iter()
                .take(4)
                .position(|l| *l == "[")
                .is_some_and(|at| {
                    lines[i + 2 + at..].iter().take(3).any(|l| {
                        let l = l.trim_start();
                        l.starts_with("\"type\": \"") || l.starts_with("\"tool_use_id\":")
                    })
                })
    })
}

/// Reads the export into the events its session would give.
pub fn parse(text: &str, source: usize) -> Parsed {
    let lines: Vec<(usize, &str)> = lines_with_offsets(text).collect();
    let span_of = |from: usize, to: usize| Span::of_lines(&lines, source, from, to);
    let mut records: Vec<(Value, Span)> = Vec::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut role: Option<&str> = None;
    let mut time: Option<String> = None;
    // Text of the current entry outside its JSON: (first line, last line).
    let mut prose: Option<(usize, usize)> = None;
    let flush = |prose: &mut Option<(usize, usize)>,
                 role: Option<&str>,
                 time: &Option<String>,
                 records: &mut Vec<(Value, Span)>| {
        if let (Some((from, to)), Some(role)) = (prose.take(), role) {
            let said: Vec<&str> = lines[from..=to].iter().map(|(_, l)| *l).collect();
            records.push((
                json!({"type": role, "timestamp": time, "message": {"content": said.join("\n")}}),
                span_of(from, to),
            ));
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].1.trim_end();
        if let Some(heading) = line.strip_prefix("### ") {
            flush(&mut prose, role, &time, &mut records);
            role = match heading.split_whitespace().next() {
                Some("Assistant") => Some("assistant"),
                Some("User") => Some("user"),
                _ => None,
            };
            time = None;
            i += 1;
            continue;
        }
        if line.starts_with("## ") || line.starts_with("# ") || line == "---" {
            flush(&mut prose, role, &time, &mut records);
            if !line.starts_with("---") {
                role = None;
            }
            i += 1;
            continue;
        }
        if role.is_some()
            && time.is_none()
            && prose.is_none()
            && let Some(stamp) = line.strip_prefix("> ")
        {
            time = Some(stamp.trim().to_owned());
            i += 1;
            continue;
        }
        if line == "["
            && let Some(role) = role
            && let Some(end) = (i + 1..lines.len()).find(|&j| lines[j].1.trim_end() == "]")
        {
            flush(&mut prose, Some(role), &time, &mut records);
            let whole = span_of(i, end);
            let json_text = text.get(whole.start..whole.end).unwrap_or("");
            match serde_json::from_str::<Vec<Value>>(json_text) {
                Ok(blocks) => {
                    let spans = block_spans(&lines[i + 1..end], i + 1);
                    let exact = spans.len() == blocks.len();
                    for (k, block) in blocks.into_iter().enumerate() {
                        let span = if exact {
                            let (from, to) = spans[k];
                            let command = (from..=to).find(|&j| {
                                block.get("type").and_then(Value::as_str) == Some("tool_use")
                                    && lines[j].1.trim_start().starts_with("\"command\":")
                            });
                            match command {
                                Some(j) => span_of(j, j),
                                None => span_of(from, to),
                            }
                        } else {
                            whole
                        };
                        records.push((
                            json!({"type": role, "timestamp": time, "message": {"content": [block]}}),
                            span,
                        ));
                    }
                }
                Err(error) => diagnostics.push(Diagnostic::warning(
                    source,
                    Some(u32::try_from(i + 1).unwrap_or(u32::MAX)),
                    format!("an entry's content blocks are not valid JSON, skipped: {error}"),
                )),
            }
            i = end + 1;
            continue;
        }
        if !line.trim().is_empty() && role.is_some() {
            prose = Some(prose.map_or((i, i), |(from, _)| (from, i)));
        }
        i += 1;
    }
    flush(&mut prose, role, &time, &mut records);
    let mut parsed = super::claude_code::parse_records(records);
    parsed.diagnostics.extend(diagnostics);
    parsed
}

/// The line range of each block of a pretty-printed array body: a block
/// opens with `  {` and closes with `  }` or `  },` (two spaces in).
fn block_spans(body: &[(usize, &str)], first: usize) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    for (k, (_, line)) in body.iter().enumerate() {
        let line = line.trim_end();
        if line == "  {" {
            open = Some(first + k);
        } else if (line == "  }" || line == "  },")
            && let Some(from) = open.take()
        {
            spans.push((from, first + k));
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPORT: &str = r#"# Claude Session Export

## Conversation

### Assistant
> 12/1/2025, 8:40:13 PM

[
  {
    "type": "tool_use",
    "id": "toolu_1",
    "name": "Bash",
    "input": {
      "command": "uvicorn app.main:app --port 8081 > /tmp/app.log 2>&1 &",
      "run_in_background": true
    }
  }
]

---

### User
> 12/1/2025, 8:40:14 PM

[
  {
    "tool_use_id": "toolu_1",
    "type": "tool_result",
    "content": "Command running in background with ID: 2db55c",
    "is_error": false
  }
]

---

### Assistant
> 12/1/2025, 8:40:18 PM

[
  {
    "type": "tool_use",
    "id": "toolu_2",
    "name": "Bash",
    "input": {
      "command": "sleep 3 && curl -s http://localhost:8081/health"
    }
  }
]

---

### User
> 12/1/2025, 8:40:21 PM

[
  {
    "type": "tool_result",
    "content": "Exit code 7",
    "is_error": true,
    "tool_use_id": "toolu_2"
  }
]

---

### Assistant
> 12/1/2025, 8:40:30 PM

[
  {
    "type": "text",
    "text": "The backend is up on 8081."
  }
]
"#;

    #[test]
    fn an_export_reads_as_its_session() {
        assert!(looks_like(EXPORT));
        assert!(!looks_like("### Assistant\nHello\n"));
        let report = crate::analyze(&[crate::Source::new("t.md", EXPORT)]);
        let kinds: Vec<&str> = report.checkpoints.iter().map(|c| c.kind.name()).collect();
        assert_eq!(kinds, ["launch", "verify"]);
        // The command's own line is its evidence.
        assert_eq!(report.checkpoints[0].evidence.line_start, 14);
        assert_eq!(report.servers.len(), 1);
        assert_eq!(report.servers[0].port, Some(8081));
        assert_eq!(report.servers[0].ready, Some(false));
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
        assert!(rules.contains(&"claim-without-evidence"), "{rules:?}");
    }

    #[test]
    fn odd_exports_never_panic() {
        for text in [
            "# Claude Session Export\n### Assistant\n[\n  {\n",
            "# Claude Session Export\n### User\n> t\n[\n1, \"x\", null, [], {}\n]\n",
            "# Claude Session Export\n### Assistant\n[\n]\n### User\n]\n[\n",
            "# Claude Session Export\n### Assistant\n> \u{1f916}\n\u{0}\u{feff}[\n  {\n  }\n]\n",
        ] {
            let report = crate::analyze(&[crate::Source::new("t.md", text)]);
            assert!(report.checkpoints.is_empty(), "{text:?}");
        }
    }

    #[test]
    fn a_broken_array_is_a_diagnostic_and_the_rest_is_read() {
        let broken = EXPORT.replacen("\"id\": \"toolu_2\",", "\"id\": \"toolu_2\" oops", 1);
        let parsed = parse(&broken, 0);
        assert_eq!(parsed.diagnostics.len(), 1);
        let commands = parsed
            .events
            .iter()
            .filter(|e| matches!(e.kind, super::super::EventKind::Command { .. }))
            .count();
        assert_eq!(commands, 1);
    }
}

//! pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`).
//!
//! A header `{"type":"session","version":3,…}`, then entries linked by
//! `id`/`parentId`. The conversation is in `message` entries, whose
//! `message.role` is `user`, `assistant` (content blocks `text`, `thinking`,
//! `toolCall` with `name` and `arguments`), `toolResult` (`toolCallId`,
//! `content` blocks, `isError`) or `bashExecution` (a command the user ran
//! with `!`: `command`, `output`, `exitCode`). The `bash` tool's result ends
//! with `Command exited with code N` when the status is not 0, or `Command
//! timed out after N seconds` when pi stopped it. Other entries (model and
//! thinking-level changes, compactions, branch summaries, labels) say
//! nothing of what ran and are kept as unrecognized.
//!
//! Entries form a tree (a `/tree` branch continues from an earlier entry);
//! the file holds every branch in the order written, and is read in that
//! order, as what the agent did, branch or not.

use std::collections::HashMap;

use serde_json::Value;

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// The footer pi's `bash` tool adds to an output whose status is not 0.
const EXITED: &str = "Command exited with code ";
/// The footer of a command pi stopped at its timeout.
const TIMED_OUT: &str = "Command timed out after ";

/// Whether a record is a pi session's: its header, or a `message` entry
/// whose message has a role.
pub fn looks_like(record: &Value) -> bool {
    match record.get("type").and_then(Value::as_str) {
        Some("session") => record.get("version").is_some() || record.get("cwd").is_some(),
        Some("message") => record
            .get("message")
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
            .is_some_and(|role| {
                matches!(
                    role,
                    "user" | "assistant" | "toolResult" | "bashExecution" | "custom"
                )
            }),
        Some("model_change" | "thinking_level_change") => record.get("parentId").is_some(),
        _ => false,
    }
}

/// Parses a session file.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    // Tool call id → the command event it started.
    let mut calls: HashMap<String, usize> = HashMap::new();
    for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
        let span = Span::new(source, offset, offset + line.len());
        if line.trim().is_empty() {
            continue;
        }
        let Some(record) = parsed.json_record(line, span, number + 1) else {
            continue;
        };
        let before = parsed.events.len();
        if record.get("type").and_then(Value::as_str) == Some("message")
            && let Some(message) = record.get("message")
        {
            let time = record
                .get("timestamp")
                .and_then(Value::as_str)
                .map(str::to_owned);
            read_message(message, span, time, &mut calls, &mut parsed.events);
        }
        // Every line leaves an event, so nothing is lost.
        if parsed.events.len() == before {
            parsed.events.push(Event {
                span,
                kind: EventKind::Unrecognized,
            });
        }
    }
    parsed
}

/// The events of one message.
fn read_message(
    message: &Value,
    span: Span,
    time: Option<String>,
    calls: &mut HashMap<String, usize>,
    events: &mut Vec<Event>,
) {
    let mut push = |kind: EventKind| {
        events.push(Event { span, kind });
        events.len() - 1
    };
    match message.get("role").and_then(Value::as_str) {
        Some("user") => {
            let text = text_of(message.get("content"));
            if !text.trim().is_empty() {
                push(EventKind::Prose {
                    role: Role::User,
                    text: Some(text),
                });
            }
        }
        Some("assistant") => {
            let blocks = message
                .get("content")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for block in blocks {
                match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                        if !text.trim().is_empty() {
                            push(EventKind::Prose {
                                role: Role::Assistant,
                                text: Some(text.to_owned()),
                            });
                        }
                    }
                    Some("toolCall") => {
                        let id = block.get("id").and_then(Value::as_str).unwrap_or("");
                        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
                        let arguments = block.get("arguments").unwrap_or(&Value::Null);
                        if let Some(kind) = tool_event(name, arguments, time.clone()) {
                            let command = matches!(kind, EventKind::Command { .. });
                            let event = push(kind);
                            if command {
                                calls.insert(id.to_owned(), event);
                            }
                        }
                    }
                    // Thinking is the agent's own notes, not what it told
                    // anyone; images carry no text.
                    _ => {}
                }
            }
        }
        Some("toolResult") => {
            let call = message
                .get("toolCallId")
                .and_then(Value::as_str)
                .unwrap_or("");
            // Only a command's result is an output; a file read's or an
            // edit's says nothing a check needs.
            let Some(&command) = calls.get(call) else {
                return;
            };
            let (body, exit_code) = result_of(&text_of(message.get("content")));
            let is_error = message
                .get("isError")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            push(EventKind::Output {
                command,
                text: Some(body),
                exit_code,
                is_error: is_error || exit_code.is_some_and(|c| c != 0),
            });
        }
        Some("bashExecution") => {
            // The user's `!command`: run by a person, its output with it.
            let Some(command) = message.get("command").and_then(Value::as_str) else {
                return;
            };
            let event = push(EventKind::tool_command(
                command.to_owned(),
                Actor::Human,
                time,
            ));
            let exit_code = message
                .get("exitCode")
                .and_then(Value::as_i64)
                .and_then(|c| i32::try_from(c).ok());
            let cancelled = message
                .get("cancelled")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let output = message.get("output").and_then(Value::as_str).unwrap_or("");
            push(EventKind::Output {
                command: event,
                text: Some(output.to_owned()),
                exit_code,
                is_error: cancelled || exit_code.is_some_and(|c| c != 0),
            });
        }
        Some("custom") => {
            // An extension's message shown in the conversation.
            let text = text_of(message.get("content"));
            if !text.trim().is_empty() {
                push(EventKind::Prose {
                    role: Role::Unknown,
                    text: Some(text),
                });
            }
        }
        _ => {}
    }
}

/// The event a tool call stands for: a shell command for `bash`, a file
/// written for `write` and `edit`; `None` for tools that only read.
fn tool_event(name: &str, arguments: &Value, time: Option<String>) -> Option<EventKind> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    match name {
        "bash" => Some(EventKind::tool_command(
            text("command")?.to_owned(),
            Actor::Agent,
            time,
        )),
        "write" => Some(EventKind::FileWrite {
            path: text("path")?.to_owned(),
            text: text("content").unwrap_or_default().to_owned(),
        }),
        // One replacement (`oldText`/`newText`) or several (`edits`): the
        // new text is what the file now holds there.
        "edit" => {
            let path = text("path")?.to_owned();
            let mut written: Vec<&str> = text("newText").into_iter().collect();
            if let Some(edits) = arguments.get("edits").and_then(Value::as_array) {
                written.extend(
                    edits
                        .iter()
                        .filter_map(|e| e.get("newText").and_then(Value::as_str)),
                );
            }
            Some(EventKind::FileWrite {
                path,
                text: written.join("\n"),
            })
        }
        _ => None,
    }
}

/// A string content, or the text blocks of a block list, joined.
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// A `bash` result's output and status, from its footer: `Command exited
/// with code N`, or a timeout (pi kills the command: 143, as SIGTERM).
/// `(no output)` is pi's word for an empty output.
fn result_of(text: &str) -> (String, Option<i32>) {
    let trimmed = text.trim_end();
    let (body, last) = match trimmed.rfind('\n') {
        Some(at) => (&trimmed[..at], trimmed[at + 1..].trim()),
        None => ("", trimmed.trim()),
    };
    let code = if let Some(code) = last.strip_prefix(EXITED) {
        code.trim().parse().ok()
    } else if last.starts_with(TIMED_OUT) {
        Some(143)
    } else {
        None
    };
    let body = match code {
        Some(_) => body.trim_end(),
        None => trimmed,
    };
    let body = if body.trim() == "(no output)" {
        ""
    } else {
        body
    };
    (body.to_owned(), code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> String {
        let mut text = String::from(
            r#"{"type":"session","version":3,"id":"019e68d1","timestamp":"2026-05-27T10:29:44.398Z","cwd":"/root/trl"}"#,
        );
        for line in lines {
            text.push('\n');
            text.push_str(line);
        }
        text.push('\n');
        text
    }

    #[test]
    fn commands_outputs_and_statuses() {
        let text = session(&[
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-05-27T09:46:22Z","message":{"role":"user","content":[{"type":"text","text":"start vllm"}]}}"#,
            r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-05-27T09:46:30Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Starting it."},{"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"nohup vllm serve m --port 8000 > /tmp/v.log 2>&1 &"}},{"type":"toolCall","id":"t2","name":"read","arguments":{"path":"/x"}}]}}"#,
            r#"{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-05-27T09:46:31Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash","content":[{"type":"text","text":"(no output)"}],"isError":false}}"#,
            r#"{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-05-27T09:46:32Z","message":{"role":"toolResult","toolCallId":"t2","toolName":"read","content":[{"type":"text","text":"file"}],"isError":false}}"#,
            r#"{"type":"message","id":"a5","parentId":"a4","timestamp":"2026-05-27T09:47:00Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t3","name":"bash","arguments":{"command":"curl -sf localhost:8000/health"}}]}}"#,
            r#"{"type":"message","id":"a6","parentId":"a5","timestamp":"2026-05-27T09:47:01Z","message":{"role":"toolResult","toolCallId":"t3","toolName":"bash","content":[{"type":"text","text":"curl: (7) Failed to connect\n\nCommand exited with code 7"}],"isError":true}}"#,
            r#"{"type":"message","id":"a7","parentId":"a6","timestamp":"2026-05-27T09:48:00Z","message":{"role":"bashExecution","command":"nvidia-smi","output":"No running processes found\n","exitCode":0,"cancelled":false,"truncated":false}}"#,
            "{not json",
        ]);
        let parsed = parse(&text, 0);
        let commands: Vec<(&str, Actor)> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text, actor, .. } => Some((text.as_str(), *actor)),
                _ => None,
            })
            .collect();
        assert_eq!(
            commands,
            [
                (
                    "nohup vllm serve m --port 8000 > /tmp/v.log 2>&1 &",
                    Actor::Agent
                ),
                ("curl -sf localhost:8000/health", Actor::Agent),
                ("nvidia-smi", Actor::Human),
            ]
        );
        let outputs: Vec<(&str, Option<i32>, bool)> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output {
                    text: Some(text),
                    exit_code,
                    is_error,
                    ..
                } => Some((text.as_str(), *exit_code, *is_error)),
                _ => None,
            })
            .collect();
        assert_eq!(
            outputs,
            [
                ("", None, false),
                ("curl: (7) Failed to connect", Some(7), true),
                ("No running processes found\n", Some(0), false),
            ]
        );
        let prose: Vec<&str> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Prose { text: Some(t), .. } => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(prose, ["start vllm", "Starting it."]);
        assert_eq!(parsed.diagnostics.len(), 1);
        // Every line is kept: header, eight records.
        let lines: std::collections::BTreeSet<usize> =
            parsed.events.iter().map(|e| e.span.start).collect();
        assert_eq!(lines.len(), 9);
    }

    #[test]
    fn timeouts_and_writes() {
        assert_eq!(
            result_of("Loading weights: 92%\n\nCommand timed out after 180 seconds"),
            ("Loading weights: 92%".to_owned(), Some(143))
        );
        assert_eq!(
            result_of("Command timed out after 300 seconds"),
            (String::new(), Some(143))
        );
        // A footer-like line inside the output is not the footer.
        assert_eq!(
            result_of("Command exited with code 3\nmore"),
            ("Command exited with code 3\nmore".to_owned(), None)
        );
        let edit = serde_json::json!({"path": "a.py", "edits": [{"oldText": "x", "newText": "import vllm"}]});
        assert!(matches!(
            tool_event("edit", &edit, None),
            Some(EventKind::FileWrite { path, text }) if path == "a.py" && text == "import vllm"
        ));
        assert!(tool_event("grep", &edit, None).is_none());
    }

    #[test]
    fn detection() {
        let text = session(&[
            r#"{"type":"model_change","id":"236cb3db","parentId":null,"timestamp":"2026-05-27T09:44:07.401Z","provider":"deepseek","modelId":"deepseek-v4-pro"}"#,
        ]);
        assert_eq!(
            crate::parse::detect(&text),
            crate::source::Format::PiSession
        );
    }
}

//! Codex TUI session recordings (`CODEX_TUI_RECORD_SESSION=1`).
//!
//! codex-rs/tui writes one JSON record a line, `{"ts","dir","kind",…}`:
//! `dir` is `meta` (`session_start`, `session_end`), `to_tui` (what the TUI
//! was sent: `codex_event` with the agent's protocol event in `payload`,
//! plus redraws, key presses, log lines, history inserts) or `from_tui`
//! (`op`: what the user submitted, in `payload`). The agent's work is in the
//! `codex_event` payloads, the same events a rollout's `event_msg` records
//! hold: `exec_command_begin` (the argv and a `call_id`), `exec_command_end`
//! (its output and exit code), `agent_message`, `user_message`. Most of a
//! recording is UI noise (redraws, key events), read and passed over.
//! Newer TUIs record fewer protocol events; a recording that holds no
//! command and no message is reported as such by the report's coverage.

use std::collections::HashMap;

use serde_json::Value;

use super::codex::from_argv;
use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// Whether a record looks like a TUI recording's (for detection).
pub fn looks_like(record: &Value) -> bool {
    record.get("ts").is_some()
        && matches!(
            record.get("dir").and_then(Value::as_str),
            Some("meta" | "to_tui" | "from_tui")
        )
        && record.get("kind").and_then(Value::as_str).is_some()
}

/// Parses a recording.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let mut calls: HashMap<String, usize> = HashMap::new();
    for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
        let span = Span::new(source, offset, offset + line.len());
        if line.trim().is_empty() {
            continue;
        }
        let Some(record) = parsed.json_record(line, span, number + 1) else {
            continue;
        };
        let time = record.get("ts").and_then(Value::as_str).map(str::to_owned);
        let kind = record.get("kind").and_then(Value::as_str).unwrap_or("");
        let mut push = |kind: EventKind| {
            parsed.events.push(Event { span, kind });
            parsed.events.len() - 1
        };
        match kind {
            "codex_event" => {
                let Some(message) = record.pointer("/payload/msg") else {
                    continue;
                };
                let call = message
                    .get("call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                match message.get("type").and_then(Value::as_str).unwrap_or("") {
                    "exec_command_begin" => {
                        let Some(argv) = message.get("command").and_then(Value::as_array) else {
                            push(EventKind::Unrecognized);
                            continue;
                        };
                        let id = push(EventKind::Command {
                            text: from_argv(argv),
                            actor: if message.get("source").and_then(Value::as_str)
                                == Some("user_shell")
                            {
                                Actor::Human
                            } else {
                                Actor::Agent
                            },
                            prompt_host: None,
                            time,
                            background: false,
                        });
                        if let Some(call) = call {
                            calls.insert(call, id);
                        }
                    }
                    "exec_command_end" => {
                        let Some(&command) = call.as_ref().and_then(|c| calls.get(c)) else {
                            push(EventKind::Unrecognized);
                            continue;
                        };
                        let exit_code = message
                            .get("exit_code")
                            .and_then(Value::as_i64)
                            .and_then(|c| i32::try_from(c).ok());
                        push(EventKind::Output {
                            command,
                            text: Some(output_text(message)),
                            exit_code,
                            is_error: exit_code.is_some_and(|c| c != 0),
                        });
                    }
                    "agent_message" | "user_message" => {
                        let role = if message.get("type").and_then(Value::as_str)
                            == Some("agent_message")
                        {
                            Role::Assistant
                        } else {
                            Role::User
                        };
                        let said = message.get("message").and_then(Value::as_str).unwrap_or("");
                        if !said.trim().is_empty() {
                            push(EventKind::Prose {
                                role,
                                text: Some(said.to_owned()),
                            });
                        }
                    }
                    // Deltas, reasoning, token counts, task and session
                    // bookkeeping: the whole messages and outputs follow.
                    _ => {}
                }
            }
            "op" => {
                // What the user submitted: `{"type":"user_input","items":[…]}`
                // in older TUIs, an app command wrapping it in newer ones.
                let said = user_input(record.get("payload").unwrap_or(&Value::Null));
                if !said.trim().is_empty() {
                    push(EventKind::Prose {
                        role: Role::User,
                        text: Some(said),
                    });
                }
            }
            // UI noise and session bookkeeping.
            "app_event"
            | "key_event"
            | "log_line"
            | "insert_history"
            | "insert_history_cell"
            | "session_start"
            | "session_end"
            | "new_session"
            | "clear_ui"
            | "file_search_start"
            | "file_search_result" => {}
            _ => {
                push(EventKind::Unrecognized);
            }
        }
    }
    parsed
}

/// What a command printed, as the agent saw it.
fn output_text(message: &Value) -> String {
    let field = |name: &str| message.get(name).and_then(Value::as_str).unwrap_or("");
    if !field("aggregated_output").is_empty() {
        return field("aggregated_output").to_owned();
    }
    let (stdout, stderr) = (field("stdout"), field("stderr"));
    match (stdout.is_empty(), stderr.is_empty()) {
        (false, false) => format!("{stdout}\n{stderr}"),
        (false, true) => stdout.to_owned(),
        (true, _) if !stderr.is_empty() => stderr.to_owned(),
        _ => field("formatted_output").to_owned(),
    }
}

/// The text items of a submitted user input, however deeply it is wrapped.
fn user_input(payload: &Value) -> String {
    let mut found = Vec::new();
    collect_text(payload, &mut found, 0);
    found.join("\n")
}

fn collect_text(value: &Value, found: &mut Vec<String>, depth: u8) {
    if depth > 6 {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(items) = map.get("items").and_then(Value::as_array) {
                for item in items {
                    if let Some(text) = item
                        .get("text")
                        .or_else(|| item.get("Text").and_then(|t| t.get("text")))
                        .and_then(Value::as_str)
                    {
                        found.push(text.to_owned());
                    }
                }
                return;
            }
            for inner in map.values() {
                collect_text(inner, found, depth + 1);
            }
        }
        Value::Array(items) => {
            for inner in items {
                collect_text(inner, found, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_outputs_and_messages_from_codex_events() {
        let text = r#"{"ts":"2025-08-10T03:12:26.500Z","dir":"meta","kind":"session_start","cwd":"/w","model":"gpt-5"}
{"ts":"2025-08-10T03:12:26.501Z","dir":"to_tui","kind":"app_event","variant":"RequestRedraw"}
{"ts":"2025-08-10T03:12:27.000Z","dir":"from_tui","kind":"op","payload":{"type":"user_input","items":[{"type":"text","text":"start vllm"}]}}
{"ts":"2025-08-10T03:12:28.000Z","dir":"to_tui","kind":"codex_event","payload":{"id":"1","msg":{"type":"exec_command_begin","call_id":"c1","command":["bash","-lc","nohup vllm serve m --port 8001 > v.log 2>&1 &"],"cwd":"/w","parsed_cmd":[]}}}
{"ts":"2025-08-10T03:12:29.000Z","dir":"to_tui","kind":"codex_event","payload":{"id":"1","msg":{"type":"exec_command_end","call_id":"c1","stdout":"","stderr":"","aggregated_output":"","exit_code":0,"duration":{"secs":0,"nanos":1},"formatted_output":""}}}
{"ts":"2025-08-10T03:12:30.000Z","dir":"to_tui","kind":"codex_event","payload":{"id":"1","msg":{"type":"agent_message","message":"The server is up."}}}
{"ts":"2025-08-10T03:12:31.000Z","dir":"meta","kind":"session_end"}
"#;
        let parsed = parse(text, 0);
        let kinds: Vec<String> = parsed
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command { text, .. } => format!("cmd {text}"),
                EventKind::Output { exit_code, .. } => format!("out {exit_code:?}"),
                EventKind::Prose { role, text } => {
                    format!("{role:?} {}", text.as_deref().unwrap_or(""))
                }
                _ => "other".to_owned(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "User start vllm",
                "cmd nohup vllm serve m --port 8001 > v.log 2>&1 &",
                "out Some(0)",
                "Assistant The server is up."
            ]
        );
        assert!(looks_like(
            &serde_json::json!({"ts":"t","dir":"to_tui","kind":"app_event"})
        ));
    }
}

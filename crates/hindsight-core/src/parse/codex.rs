//! OpenAI Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`).
//!
//! Each line is `{"timestamp","type","payload"}`. Shell commands come from
//! `function_call` records of three generations of tools (`shell` with an argv
//! array, `shell_command` with a string, `exec_command` with `cmd`) and from
//! `local_shell_call`; outputs from `function_call_output`, paired by
//! `call_id`, whose exit code is either JSON metadata or an `Exit code: N` /
//! `Process exited with code N` header. Assistant text appears twice (as a
//! `response_item` message and as an `agent_message` event): shown once.

use std::collections::HashMap;

use serde_json::Value;

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// The shell tools whose calls carry a command, in every generation of the
/// CLI (a `local_shell_call` is told by its `action` instead).
pub(crate) const SHELL_TOOLS: &[&str] = &[
    "shell",
    "shell_command",
    "exec_command",
    "container.exec",
    "local_shell",
];

/// The unified-exec tool that polls a running command's session or types
/// into it (Ctrl-C stops it).
pub(crate) const STDIN_TOOL: &str = "write_stdin";

/// Whether a record looks like a Codex rollout line (for detection).
pub fn looks_like(record: &Value) -> bool {
    record.get("payload").is_some()
        && matches!(
            record.get("type").and_then(Value::as_str),
            Some("session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        )
}

/// Parses a rollout file.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let mut calls: HashMap<String, usize> = HashMap::new();
    // Unified exec: a command still running when its call returned lives
    // on as a session (`Process running with session ID 59697`), which
    // `write_stdin` polls for output or stops with Ctrl-C. Session → the
    // command event.
    let mut sessions: HashMap<String, usize> = HashMap::new();
    // The last assistant text, to drop its `agent_message` duplicate.
    let mut last_assistant_text: Option<String> = None;
    for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
        let span = Span::new(source, offset, offset + line.len());
        if line.trim().is_empty() {
            continue;
        }
        let Some(record) = parsed.json_record(line, span, number + 1) else {
            continue;
        };
        let time = record
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        // Early rollouts had no envelope: the record is the payload.
        let (kind, payload) = match record.get("payload") {
            Some(payload) => (
                record.get("type").and_then(Value::as_str).unwrap_or(""),
                payload,
            ),
            None => ("response_item", &record),
        };
        let item = payload.get("type").and_then(Value::as_str).unwrap_or("");
        let mut still_running: Option<usize> = None;
        let mut push = |kind: EventKind| {
            parsed.events.push(Event { span, kind });
            parsed.events.len() - 1
        };
        match (kind, item) {
            ("response_item", "function_call" | "local_shell_call" | "custom_tool_call")
                if payload.get("name").and_then(Value::as_str) == Some(STDIN_TOOL) =>
            {
                let (session, chars) = stdin_write(payload);
                let call = payload.get("call_id").and_then(Value::as_str).unwrap_or("");
                let event = if chars.contains('\u{3}') {
                    // Ctrl-C: the session's process is stopped.
                    push(EventKind::tool_command(
                        format!("{} {session}", super::claude_code::KILL_SHELL),
                        Actor::Agent,
                        time,
                    ))
                } else if let Some(&command) = sessions.get(&session) {
                    // A poll: more output of the command that runs there.
                    push(EventKind::Unrecognized);
                    command
                } else {
                    // A session started before this rollout: a look at it.
                    let command = push(EventKind::tool_command(
                        format!("{} {session}", super::claude_code::SHELL_OUTPUT),
                        Actor::Agent,
                        time,
                    ));
                    sessions.insert(session, command);
                    command
                };
                calls.insert(call.to_owned(), event);
            }
            ("response_item", "function_call" | "local_shell_call" | "custom_tool_call") => {
                if let Some(command) = command_of(payload) {
                    let id = push(EventKind::tool_command(command, Actor::Agent, time));
                    if let Some(call) = payload.get("call_id").and_then(Value::as_str) {
                        calls.insert(call.to_owned(), id);
                    }
                } else {
                    push(EventKind::Unrecognized);
                }
            }
            ("response_item", "function_call_output" | "custom_tool_call_output") => {
                let call = payload.get("call_id").and_then(Value::as_str).unwrap_or("");
                match calls.get(call) {
                    Some(&command) => {
                        if let Some(session) = running_session(payload.get("output")) {
                            // Still running: a background process from now
                            // on, polled through its session.
                            still_running = Some(command);
                            sessions.insert(session, command);
                        }
                        let (exit_code, body) = output_of(payload.get("output"));
                        push(EventKind::Output {
                            command,
                            text: Some(body),
                            exit_code,
                            is_error: exit_code.is_some_and(|c| c != 0),
                        });
                    }
                    None => {
                        push(EventKind::Unrecognized);
                    }
                }
            }
            ("response_item", "message") => {
                let role = match payload.get("role").and_then(Value::as_str) {
                    Some("assistant") => Role::Assistant,
                    Some("user") => Role::User,
                    _ => Role::Unknown,
                };
                let text = message_text(payload);
                if role == Role::Assistant {
                    last_assistant_text = Some(text.clone());
                }
                push(EventKind::Prose {
                    role,
                    text: Some(text),
                });
            }
            ("event_msg", "agent_message") => {
                let text = payload.get("message").and_then(Value::as_str).unwrap_or("");
                if last_assistant_text.as_deref() == Some(text) {
                    push(EventKind::Unrecognized);
                } else {
                    push(EventKind::Prose {
                        role: Role::Assistant,
                        text: Some(text.to_owned()),
                    });
                }
            }
            _ => {
                push(EventKind::Unrecognized);
            }
        }
        if let Some(Event {
            kind: EventKind::Command { background, .. },
            ..
        }) = still_running.and_then(|command| parsed.events.get_mut(command))
        {
            *background = true;
        }
    }
    parsed
}

/// The session a `write_stdin` call writes to, and what it writes.
fn stdin_write(payload: &Value) -> (String, String) {
    let arguments: Value = match payload.get("arguments") {
        Some(Value::String(text)) => serde_json::from_str(text).unwrap_or(Value::Null),
        Some(other) => other.clone(),
        None => Value::Null,
    };
    let session = match arguments.get("session_id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        _ => String::new(),
    };
    let chars = arguments
        .get("chars")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    (session, chars)
}

/// The session of a command that was still running when its call
/// returned: `Process running with session ID 59697` in the output header.
fn running_session(output: Option<&Value>) -> Option<String> {
    let text = match output? {
        Value::String(text) => text.as_str(),
        Value::Object(object) => object.get("output").and_then(Value::as_str)?,
        _ => return None,
    };
    // In the header's first lines, as `header` reads the exit code: never
    // a scan of the whole output.
    text.lines().take(8).find_map(|line| {
        let id = line
            .strip_prefix("Process running with session ID ")?
            .trim();
        (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_owned())
    })
}

/// The shell command of a tool call, whichever generation of tool it is.
fn command_of(payload: &Value) -> Option<String> {
    if let Some(argv) = payload.pointer("/action/command").and_then(Value::as_array) {
        return Some(from_argv(argv));
    }
    let name = payload.get("name").and_then(Value::as_str).unwrap_or("");
    if !SHELL_TOOLS.contains(&name) {
        return None;
    }
    let arguments: Value = match payload.get("arguments") {
        Some(Value::String(text)) => serde_json::from_str(text).ok()?,
        Some(other) => other.clone(),
        None => return None,
    };
    match arguments.get("command").or_else(|| arguments.get("cmd")) {
        Some(Value::Array(argv)) => Some(from_argv(argv)),
        Some(Value::String(command)) => Some(command.clone()),
        _ => None,
    }
}

/// `["bash","-lc","script"]` → `script`; any other argv is re-quoted.
pub(crate) fn from_argv(argv: &[Value]) -> String {
    let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
    if let [shell, flag, script] = words.as_slice() {
        let shell = shell.rsplit('/').next().unwrap_or(shell);
        if matches!(shell, "bash" | "sh" | "zsh") && matches!(*flag, "-lc" | "-c") {
            return (*script).to_owned();
        }
    }
    words
        .iter()
        .map(|w| {
            if w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:@,".contains(c))
                && !w.is_empty()
            {
                (*w).to_owned()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The output text and exit code, from any of the output shapes.
fn output_of(output: Option<&Value>) -> (Option<i32>, String) {
    let text = match output {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Object(_)) => {
            let object = output.cloned().unwrap_or(Value::Null);
            return structured(&object).unwrap_or((None, object.to_string()));
        }
        _ => String::new(),
    };
    // The 2025 `shell` tool: a JSON string with `output` and `metadata`.
    if text.trim_start().starts_with('{')
        && let Ok(object) = serde_json::from_str::<Value>(&text)
        && let Some(result) = structured(&object)
    {
        return result;
    }
    header(&text)
}

fn structured(object: &Value) -> Option<(Option<i32>, String)> {
    let body = object.get("output").and_then(Value::as_str)?;
    let code = object
        .pointer("/metadata/exit_code")
        .or_else(|| object.get("exit_code"))
        .and_then(Value::as_i64)
        .and_then(|c| i32::try_from(c).ok());
    Some((code, body.to_owned()))
}

/// `Exit code: 0\nWall time: …\nOutput:\n…` and the unified-exec header.
fn header(text: &str) -> (Option<i32>, String) {
    let mut code = None;
    for line in text.lines().take(8) {
        let value = line
            .strip_prefix("Exit code: ")
            .or_else(|| line.strip_prefix("Process exited with code "));
        if let Some(value) = value {
            code = value.trim().parse().ok();
        }
    }
    let body = match text.find("Output:\n") {
        Some(at) if code.is_some() || text[..at].contains("Wall time") => &text[at + 8..],
        _ => text,
    };
    (code, body.to_owned())
}

fn message_text(payload: &Value) -> String {
    payload
        .get("content")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command { text, .. } => format!("cmd {text}"),
                EventKind::Output {
                    command,
                    text,
                    exit_code,
                    ..
                } => {
                    format!(
                        "out {command} {exit_code:?} {}",
                        text.as_deref().unwrap_or("")
                    )
                }
                EventKind::Prose { role, .. } => format!("prose {role:?}"),
                _ => "other".to_owned(),
            })
            .collect()
    }

    #[test]
    fn every_shell_tool_and_output_shape() {
        let text = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls /x\"]}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"a\\nb\\n\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.1}}"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"false\"}","call_id":"c2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Exit code: 1\nWall time: 0.1 seconds\nOutput:\nno"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo hi\"}","call_id":"c3"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Chunk ID: x\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi"}}
"#;
        assert_eq!(
            events(text),
            [
                "cmd ls /x",
                "out 0 Some(0) a\nb\n",
                "cmd false",
                "out 2 Some(1) no",
                "cmd echo hi",
                "out 4 Some(0) hi"
            ]
        );
    }

    #[test]
    fn unified_exec_sessions_are_polled_and_stopped() {
        let text = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"uvicorn app:app --port 8000\"}","call_id":"c1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 59697\nOriginal token count: 9\nOutput:\nINFO:     Started server process [42]\n"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":59697,\"chars\":\"\",\"yield_time_ms\":1000}","call_id":"c2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"Chunk ID: b\nWall time: 5.0 seconds\nProcess running with session ID 59697\nOriginal token count: 9\nOutput:\nINFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":59697,\"chars\":\"\\u0003\"}","call_id":"c3"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Chunk ID: c\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\n^C"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":777,\"chars\":\"\"}","call_id":"c4"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"Chunk ID: d\nWall time: 5.0 seconds\nProcess running with session ID 777\nOriginal token count: 1\nOutput:\nready"}}
"#;
        assert_eq!(
            events(text),
            [
                "cmd uvicorn app:app --port 8000",
                "out 0 None INFO:     Started server process [42]\n",
                "other",
                "out 0 None INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n",
                "cmd KillShell 59697",
                "out 4 Some(0) ^C",
                "cmd BashOutput 777",
                "out 6 None ready"
            ]
        );
        // The still-running command is a background launch; Ctrl-C stops it.
        let report = crate::analyze(&[crate::Source::new("r.jsonl", text)]);
        let kinds: Vec<&str> = report.checkpoints.iter().map(|c| c.kind.name()).collect();
        assert_eq!(kinds, ["launch", "kill", "verify"]);
        assert_eq!(report.servers[0].port, Some(8000));
        assert_eq!(report.servers[0].ready, Some(false));
        assert_eq!(report.servers[0].stopped_by, Some(1));
    }

    #[test]
    fn duplicated_assistant_text_is_shown_once() {
        let text = r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"Done."}}
"#;
        assert_eq!(events(text), ["prose Assistant", "other"]);
    }
}

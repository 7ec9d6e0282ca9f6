//! OpenHands (ex-OpenDevin) trajectories: a JSON array of events, or an
//! evaluation record with `history: [events]`.
//!
//! An evaluation's `output.jsonl` holds one such record per line (one
//! instance each); every line's events are read, cited at that line.
//!
//! `action: "run"` events carry the command in `args.command`; their
//! `observation: "run"` answers point back through `cause` and carry the
//! output in `content` and the exit code in `extras.metadata.exit_code`
//! (older: `extras.exit_code`). `-1` means the command is still running:
//! no new output for a while (a foreground server that is up looks exactly
//! like that) or a time-out; OpenHands then says `success: false`, which is
//! no failure of the command. `args.is_input` marks text typed into a
//! running process, not a command.

use std::collections::HashMap;

use serde_json::Value;

use super::json_doc::Locator;
use super::{Actor, Event, EventKind, Parsed, Role};
use crate::diagnostic::Diagnostic;

/// The events of a document, if it is an OpenHands trajectory.
pub fn events_of(document: &Value) -> Option<&Vec<Value>> {
    let events = match document {
        Value::Array(events) => events,
        Value::Object(object) => object.get("history")?.as_array()?,
        _ => return None,
    };
    events
        .iter()
        .any(|e| e.get("action").is_some() || e.get("observation").is_some())
        .then_some(events)
}

/// Whether a JSON Lines text is an evaluation's `output.jsonl`: its first
/// record holds OpenHands events.
pub fn looks_like_jsonl(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|record| {
            record.is_object() && events_of(&record).is_some() && text.trim().contains('\n')
        })
}

/// Parses a trajectory document, or an `output.jsonl` of them.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() && looks_like_jsonl(text) {
        for (offset, line) in crate::source::lines_with_offsets(text) {
            let Ok(record) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if let Some(events) = events_of(&record) {
                let mut locator = Locator::new(text, source);
                locator.skip_to_offset(offset);
                read_events(events, &mut locator, &mut parsed);
            }
        }
        return parsed;
    }
    let Some(document) = super::json_doc::document(text, source, &mut parsed) else {
        return parsed;
    };
    let Some(events) = events_of(&document) else {
        parsed.diagnostics.push(Diagnostic::warning(
            source,
            None,
            "no OpenHands events (`action`/`observation`) found in this JSON document",
        ));
        return parsed;
    };
    let mut locator = Locator::new(text, source);
    read_events(events, &mut locator, &mut parsed);
    parsed
}

/// The events of one trajectory, located from the locator's place on.
fn read_events(events: &[Value], locator: &mut Locator<'_>, parsed: &mut Parsed) {
    let mut actions: HashMap<i64, usize> = HashMap::new();
    for event in events {
        if let Some(id) = event.get("id").and_then(Value::as_i64) {
            locator.skip_to(&format!("\"id\": {id}"));
        }
        let time = event
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let agent = event.get("source").and_then(Value::as_str) != Some("user");
        match (
            event.get("action").and_then(Value::as_str),
            event.get("observation").and_then(Value::as_str),
        ) {
            (Some("run"), _) => {
                let args = event.get("args");
                let command = args.and_then(|a| a.get("command")).and_then(Value::as_str);
                let is_input = args
                    .and_then(|a| a.get("is_input"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let command_span = command.map(|c| locator.find(c));
                if let Some(thought) = args
                    .and_then(|a| a.get("thought"))
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                {
                    let span = locator.find(thought);
                    parsed.events.push(Event {
                        span,
                        kind: EventKind::Prose {
                            role: Role::Assistant,
                            text: Some(thought.to_owned()),
                        },
                    });
                }
                let Some(command) = command.filter(|_| !is_input) else {
                    continue;
                };
                let span = command_span.unwrap_or_else(|| locator.find(command));
                locator.string(command);
                if let Some(id) = event.get("id").and_then(Value::as_i64) {
                    actions.insert(id, parsed.events.len());
                }
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Command {
                        text: command.to_owned(),
                        actor: if agent { Actor::Agent } else { Actor::Human },
                        prompt_host: None,
                        time,
                        background: false,
                    },
                });
            }
            // The file editor (`str_replace_editor`: create, str_replace,
            // insert) and `write`: what the agent put in a file, kept for
            // what a later run of it loads.
            (Some("edit" | "write"), _) => {
                let args = event.get("args");
                let text_of = |key: &str| {
                    args.and_then(|a| a.get(key))
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                };
                let Some(path) = text_of("path") else {
                    continue;
                };
                let text = text_of("file_text")
                    .or_else(|| text_of("new_str"))
                    .or_else(|| text_of("content"))
                    .unwrap_or("");
                let span = locator.find(path);
                parsed.events.push(Event {
                    span,
                    kind: EventKind::FileWrite {
                        path: path.to_owned(),
                        text: text.to_owned(),
                    },
                });
            }
            // The agent's last word (`finish`: its final thought, else the
            // message) and its thinking aloud (`think`): what it takes the
            // work to have come to.
            (Some("finish" | "think"), _) => {
                let args = event.get("args");
                let text = ["final_thought", "thought", "content"]
                    .iter()
                    .find_map(|k| {
                        args.and_then(|a| a.get(*k))
                            .and_then(Value::as_str)
                            .filter(|t| !t.is_empty())
                    })
                    .or_else(|| event.get("message").and_then(Value::as_str));
                let Some(text) = text.filter(|t| !t.is_empty()) else {
                    continue;
                };
                let span = locator.string(text);
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Prose {
                        role: Role::Assistant,
                        text: Some(text.to_owned()),
                    },
                });
            }
            (Some("message"), _) => {
                let content = event
                    .pointer("/args/content")
                    .or_else(|| event.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let span = locator.string(content);
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Prose {
                        role: if agent { Role::Assistant } else { Role::User },
                        text: Some(content.to_owned()),
                    },
                });
            }
            (_, Some("run")) => {
                let Some(&command) = event
                    .get("cause")
                    .and_then(Value::as_i64)
                    .and_then(|cause| actions.get(&cause))
                else {
                    continue;
                };
                let content = event.get("content").and_then(Value::as_str).unwrap_or("");
                let exit_code = event
                    .pointer("/extras/metadata/exit_code")
                    .or_else(|| event.pointer("/extras/exit_code"))
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok());
                let span = locator.string(content);
                // -1: still running (no new output for a while) or timed
                // out; `success: false` then says only that it has not
                // finished.
                let running = exit_code == Some(-1);
                let failed = event.get("success").and_then(Value::as_bool) == Some(false);
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Output {
                        command,
                        text: Some(content.to_owned()),
                        exit_code: exit_code.filter(|c| *c >= 0),
                        is_error: exit_code.is_some_and(|c| c > 0) || failed && !running,
                    },
                });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(parsed: &Parsed) -> Vec<(Option<i32>, bool)> {
        parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output {
                    exit_code,
                    is_error,
                    ..
                } => Some((*exit_code, *is_error)),
                _ => None,
            })
            .collect()
    }

    /// A foreground server that is up: exit code -1 and `success: false`
    /// mean it is still running, not that it failed.
    #[test]
    fn still_running_is_no_failure() {
        let text = r#"[
  {"id": 13, "source": "agent", "action": "run", "args": {"command": "python3 -m http.server 8000", "is_input": false}},
  {"id": 14, "source": "agent", "cause": 13, "observation": "run",
   "content": "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...",
   "extras": {"command": "python3 -m http.server 8000", "metadata": {"exit_code": -1, "suffix": "\n[The command has no new output after 30 seconds.]"}},
   "success": false},
  {"id": 15, "source": "agent", "action": "run", "args": {"command": "make", "is_input": false}},
  {"id": 16, "source": "agent", "cause": 15, "observation": "run", "content": "make: *** Error 2",
   "extras": {"command": "make", "exit_code": 2}}
]"#;
        assert_eq!(outputs(&parse(text, 0)), [(None, false), (Some(2), true)]);
    }

    #[test]
    fn editor_writes_are_file_writes() {
        let text = r#"[
  {"id": 3, "source": "agent", "action": "edit", "args": {"path": "/workspace/repro.py", "command": "create", "file_text": "import pkg\nprint(pkg.f())", "old_str": null, "new_str": null}}
]"#;
        let writes: Vec<(String, String)> = parse(text, 0)
            .events
            .into_iter()
            .filter_map(|e| match e.kind {
                EventKind::FileWrite { path, text } => Some((path, text)),
                _ => None,
            })
            .collect();
        assert_eq!(
            writes,
            [(
                "/workspace/repro.py".to_owned(),
                "import pkg\nprint(pkg.f())".to_owned()
            )]
        );
    }

    /// An evaluation's output.jsonl: one instance per line, each with its
    /// `history`; every line's commands are read at that line.
    #[test]
    fn evaluation_output_jsonl() {
        let text = concat!(
            r#"{"instance_id": "a", "history": [{"id": 5, "source": "agent", "action": "run", "args": {"command": "ls", "is_input": false}}, {"id": 6, "source": "agent", "cause": 5, "observation": "run", "content": "x.py", "extras": {"metadata": {"exit_code": 0}}, "success": true}]}"#,
            "\n",
            r#"{"instance_id": "b", "history": [{"id": 5, "source": "agent", "action": "run", "args": {"command": "pytest", "is_input": false}}, {"id": 6, "source": "agent", "cause": 5, "observation": "run", "content": "1 failed", "extras": {"metadata": {"exit_code": 1}}, "success": false}]}"#,
            "\n"
        );
        assert_eq!(
            crate::parse::detect(text),
            crate::source::Format::OpenhandsTrajectory
        );
        let parsed = parse(text, 0);
        let lines: Vec<(String, usize)> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text: c, .. } => {
                    Some((c.clone(), text[..e.span.start].matches('\n').count() + 1))
                }
                _ => None,
            })
            .collect();
        assert_eq!(lines, [("ls".to_owned(), 1), ("pytest".to_owned(), 2)]);
        assert_eq!(outputs(&parsed), [(Some(0), false), (Some(1), true)]);
    }

    #[test]
    fn run_actions_and_observations_pair_by_cause() {
        let text = r#"[
  {"id": 12, "timestamp": "2025-01-01T12:00:00.123456", "source": "agent", "action": "run",
   "args": {"command": "curl -s localhost:8000/health", "is_input": false, "thought": "Check it."}},
  {"id": 13, "source": "agent", "action": "run", "args": {"command": "C-c", "is_input": true}},
  {"id": 14, "source": "agent", "cause": 12, "observation": "run",
   "content": "curl: (7) Failed to connect", "extras": {"metadata": {"exit_code": 7}}}
]"#;
        let parsed = parse(text, 0);
        let kinds: Vec<String> = parsed
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command { text, .. } => format!("cmd {text}"),
                EventKind::Output {
                    command, exit_code, ..
                } => format!("out {command} {exit_code:?}"),
                EventKind::Prose { .. } => "prose".to_owned(),
                _ => "other".to_owned(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "prose",
                "cmd curl -s localhost:8000/health",
                "out 1 Some(7)"
            ]
        );
        let command = &parsed.events[1].span;
        assert_eq!(
            &text[command.start..command.end],
            "\"curl -s localhost:8000/health\""
        );
    }
}

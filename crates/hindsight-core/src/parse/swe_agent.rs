//! SWE-agent trajectories (`.traj`): one JSON object whose `trajectory`
//! steps hold `action` (the command line), `observation` (merged output, no
//! exit code) and `thought`. Demonstrations in `history` are skipped: they
//! are examples, not things the agent ran.

use serde_json::Value;

use super::json_doc::Locator;
use super::{Actor, Event, EventKind, Parsed, Role};

/// SWE-agent's own commands, which are not shell programs.
const SPECIAL: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "find_file",
    "search_file",
    "search_dir",
    "submit",
    "str_replace_editor",
    "filemap",
];

/// Whether a document is a SWE-agent trajectory.
pub fn is_trajectory(document: &Value) -> bool {
    document.get("trajectory").is_some_and(Value::is_array)
}

/// Parses a trajectory document.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(document) = super::json_doc::document(text, source, &mut parsed) else {
        return parsed;
    };
    let Some(steps) = document.get("trajectory").and_then(Value::as_array) else {
        return parsed;
    };
    let mut locator = Locator::new(text, source);
    locator.skip_to("\"trajectory\"");
    for step in steps {
        let text_of = |key: &str| step.get(key).and_then(Value::as_str).unwrap_or("");
        let thought = text_of("thought");
        if !thought.trim().is_empty() {
            let span = locator.string(thought);
            parsed.events.push(Event {
                span,
                kind: EventKind::Prose {
                    role: Role::Assistant,
                    text: Some(thought.trim().to_owned()),
                },
            });
        }
        let action = text_of("action").trim();
        let program = action.split_whitespace().next().unwrap_or("");
        if action.is_empty() || SPECIAL.contains(&program) {
            continue;
        }
        let span = locator.string(text_of("action"));
        let command = parsed.events.len();
        parsed.events.push(Event {
            span,
            kind: EventKind::Command {
                text: action.to_owned(),
                actor: Actor::Agent,
                prompt_host: None,
                time: None,
                background: false,
            },
        });
        let observation = text_of("observation");
        // mini-swe-agent style observations carry `<returncode>N</returncode>`.
        let exit_code = observation
            .split_once("<returncode>")
            .and_then(|(_, rest)| rest.split_once("</returncode>"))
            .and_then(|(code, _)| code.trim().parse().ok());
        let span = locator.string(observation);
        parsed.events.push(Event {
            span,
            kind: EventKind::Output {
                command,
                text: Some(observation.to_owned()),
                exit_code,
                is_error: exit_code.is_some_and(|c: i32| c != 0),
            },
        });
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_steps_become_commands_and_special_commands_do_not() {
        let text = r#"{"trajectory": [
  {"thought": "Start the server.", "action": "vllm serve m --port 8001 &", "observation": "", "response": ""},
  {"thought": "", "action": "open src/x.py", "observation": "[File: src/x.py]"},
  {"thought": "", "action": "ss -ltn | grep 8001", "observation": "LISTEN 0 4096 0.0.0.0:8001 0.0.0.0:*"}
], "history": [], "info": {"exit_status": "submitted"}}"#;
        let parsed = parse(text, 0);
        let commands: Vec<&str> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            commands,
            ["vllm serve m --port 8001 &", "ss -ltn | grep 8001"]
        );
    }
}

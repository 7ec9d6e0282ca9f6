//! SWE-agent trajectories (`.traj`): one JSON object that holds every step
//! twice. `trajectory` is the run as it happened: each step's `action` (the
//! command line), `observation` (merged output, no exit code) and `thought`.
//! `history` is the chat as sent to the model: the same actions in assistant
//! messages (1.x also as `tool_calls`), the same outputs in user or tool
//! messages with a footer (`(Open file: …)`, `(Current directory: …)`,
//! `bash-$`), and demonstrations (`is_demo`) that the agent never ran.
//!
//! Commands and outputs are read from `trajectory`, one step each, and
//! cited at the step's own lines. `history` is read only for the actions
//! `trajectory` lacks (files written without it, or cut short), so no
//! command is read twice. 0.x actions end with `\n`; 1.x outputs come from
//! a PTY with `\r\n` line ends, read here as `\n`.
//!
//! SWE-agent's own file commands (`create`, `edit`, `str_replace_editor`)
//! are no shell commands; what they write is kept as a file write, so a
//! later `python reproduce.py` can be seen to import what the script holds.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::Span;

/// SWE-agent's own commands, which are not shell programs.
const SPECIAL: &[&str] = &[
    "open",
    "goto",
    "scroll_up",
    "scroll_down",
    "create",
    "edit",
    "insert",
    "append",
    "find_file",
    "search_file",
    "search_dir",
    "submit",
    "str_replace_editor",
    "filemap",
    "exit_forfeit",
    "exit_cost",
    "exit_context",
    "exit_format",
    "skip",
];

/// Whether a document is a SWE-agent trajectory: a `trajectory` array, or
/// (files without one) a `history` of chat messages (`role`), as OpenHands'
/// event lists never are.
pub fn is_trajectory(document: &Value) -> bool {
    if document.get("trajectory").is_some_and(Value::is_array) {
        return true;
    }
    document
        .get("history")
        .and_then(Value::as_array)
        .is_some_and(|items| {
            !items.is_empty()
                && items.iter().all(|item| item.get("role").is_some())
                && items.iter().any(|item| item.get("action").is_some())
        })
}

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(borrow, default)]
    trajectory: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    history: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
struct Step<'a> {
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    observation: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thought: Option<&'a RawValue>,
    #[serde(default)]
    state: Option<Value>,
}

#[derive(Deserialize, Default)]
struct Item<'a> {
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    is_demo: Option<bool>,
    #[serde(default)]
    message_type: Option<String>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thought: Option<&'a RawValue>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

/// A JSON value of the document: where it is, and its text when it is a
/// string (or a list of text parts).
struct Located {
    span: Span,
    text: String,
}

/// Where a value of the document is: it borrows from the document, so its
/// place is its offset.
fn span_of(document: &str, source: usize, raw: &RawValue) -> Option<Span> {
    let json = raw.get();
    let start = (json.as_ptr() as usize).checked_sub(document.as_ptr() as usize)?;
    let end = start.checked_add(json.len())?;
    (document.get(start..end) == Some(json)).then(|| Span::new(source, start, end))
}

fn locate(document: &str, source: usize, raw: Option<&RawValue>) -> Option<Located> {
    let raw = raw?;
    let span = span_of(document, source, raw)?;
    let text = match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(text) => text,
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    Some(Located { span, text })
}

/// One action the agent ran, with what it saw.
struct Action {
    command: Located,
    /// The command's text when it is not the located text (a 1.x tool call
    /// whose `arguments` hold it).
    command_text: Option<String>,
    observation: Option<Located>,
    thought: Option<Located>,
    /// The file SWE-agent had open (`state.open_file`), which `edit` edits.
    open_file: Option<String>,
}

/// Parses a trajectory document.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    if super::json_doc::document(text, source, &mut parsed).is_none() {
        return parsed;
    }
    let Ok(document) = serde_json::from_str::<Document<'_>>(text) else {
        return parsed;
    };
    let steps: Vec<Action> = document
        .trajectory
        .iter()
        .flatten()
        .filter_map(|raw| {
            let step: Step<'_> = serde_json::from_str(raw.get()).ok()?;
            Some(Action {
                command: locate(text, source, step.action)?,
                command_text: None,
                observation: locate(text, source, step.observation),
                thought: locate(text, source, step.thought),
                open_file: step.state.as_ref().and_then(open_file),
            })
        })
        .collect();
    let history = history_actions(text, source, document.history.as_deref().unwrap_or(&[]));
    // The history repeats the trajectory's actions in order: only those it
    // has beyond them are read from it.
    let mut at = 0;
    let mut extra = Vec::new();
    for action in history {
        let key = action_key(&action);
        match steps[at..].iter().position(|s| action_key(s) == key) {
            Some(offset) => at += offset + 1,
            None => extra.push(action),
        }
    }
    let mut writer = Writer::default();
    for action in steps.iter().chain(&extra) {
        push_action(&mut parsed, &mut writer, action);
    }
    parsed
}

/// An action's command as compared between `trajectory` and `history`.
fn action_key(action: &Action) -> &str {
    action
        .command_text
        .as_deref()
        .unwrap_or(&action.command.text)
        .trim()
}

/// `state.open_file`: a dict in 1.x, a JSON string in 0.x.
fn open_file(state: &Value) -> Option<String> {
    let parsed;
    let state = match state {
        Value::String(text) => {
            parsed = serde_json::from_str::<Value>(text).ok()?;
            &parsed
        }
        other => other,
    };
    state
        .get("open_file")
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty() && *f != "n/a")
        .map(str::to_owned)
}

/// The actions of `history`: assistant messages with an action (or a 1.x
/// `bash` tool call), each with the user or tool message that answered it.
/// Demonstrations are skipped.
fn history_actions(text: &str, source: usize, items: &[&RawValue]) -> Vec<Action> {
    let mut actions: Vec<Action> = Vec::new();
    let mut waiting = false;
    for raw in items {
        let Ok(item) = serde_json::from_str::<Item<'_>>(raw.get()) else {
            continue;
        };
        if item.is_demo == Some(true) || item.message_type.as_deref() == Some("demonstration") {
            continue;
        }
        match item.role.as_deref() {
            Some("assistant") => {
                waiting = false;
                let from_call = item.tool_calls.as_deref().and_then(bash_call);
                let command = locate(text, source, item.action)
                    .filter(|a| !a.text.trim().is_empty())
                    .map(|a| (a, None))
                    .or_else(|| {
                        let (_, command) = from_call.clone()?;
                        let span = span_of(text, source, raw)?;
                        let at = Located {
                            span,
                            text: command.clone(),
                        };
                        Some((at, Some(command)))
                    });
                let Some((command, command_text)) = command else {
                    continue;
                };
                actions.push(Action {
                    command,
                    command_text,
                    observation: None,
                    thought: locate(text, source, item.thought),
                    open_file: None,
                });
                waiting = true;
            }
            Some("user" | "tool") if waiting => {
                waiting = false;
                if let Some(last) = actions.last_mut() {
                    last.observation = locate(text, source, item.content).map(|mut o| {
                        o.text = without_footer(&o.text).to_owned();
                        o
                    });
                }
            }
            _ => {}
        }
    }
    actions
}

/// The command of a 1.x function call: `bash`'s `command` argument; other
/// tools are SWE-agent's own (`str_replace_editor`, `submit`), named by
/// the tool and its arguments.
fn bash_call(calls: &[Value]) -> Option<(String, String)> {
    let function = calls.first()?.get("function")?;
    let name = function.get("name")?.as_str()?;
    let arguments: Value = match function.get("arguments")? {
        Value::String(json) => serde_json::from_str(json).ok()?,
        other => other.clone(),
    };
    let command = if name == "bash" {
        arguments.get("command")?.as_str()?.to_owned()
    } else {
        name.to_owned()
    };
    Some((name.to_owned(), command))
}

/// A history observation without the footer SWE-agent adds for the model.
fn without_footer(text: &str) -> &str {
    match text.rfind("(Open file: ") {
        Some(at) if text[at..].contains("(Current directory: ") => {
            text[..at].trim_end_matches('\n')
        }
        _ => text,
    }
}

/// What SWE-agent's file commands write: `create` names the file, `edit`
/// writes into the open one.
#[derive(Default)]
struct Writer {
    open: Option<String>,
}

fn push_action(parsed: &mut Parsed, writer: &mut Writer, action: &Action) {
    if let Some(thought) = &action.thought
        && !thought.text.trim().is_empty()
    {
        parsed.events.push(Event {
            span: thought.span,
            kind: EventKind::Prose {
                role: Role::Assistant,
                text: Some(thought.text.trim().to_owned()),
            },
        });
    }
    let line = action
        .command_text
        .as_deref()
        .unwrap_or(&action.command.text)
        .trim();
    let program = line.split_whitespace().next().unwrap_or("");
    if line.is_empty() {
        return;
    }
    if SPECIAL.contains(&program) {
        if let Some((path, text)) = file_write(line, writer, action.open_file.as_deref()) {
            parsed.events.push(Event {
                span: action.command.span,
                kind: EventKind::FileWrite { path, text },
            });
        }
        return;
    }
    let command = parsed.events.len();
    parsed.events.push(Event {
        span: action.command.span,
        kind: EventKind::Command {
            text: line.to_owned(),
            actor: Actor::Agent,
            prompt_host: None,
            time: None,
            background: false,
        },
    });
    let Some(observation) = &action.observation else {
        return;
    };
    let output = observation.text.replace("\r\n", "\n");
    // mini-swe-agent style observations carry `<returncode>N</returncode>`.
    let exit_code = output
        .split_once("<returncode>")
        .and_then(|(_, rest)| rest.split_once("</returncode>"))
        .and_then(|(code, _)| code.trim().parse().ok());
    parsed.events.push(Event {
        span: observation.span,
        kind: EventKind::Output {
            command,
            text: Some(output),
            exit_code,
            is_error: exit_code.is_some_and(|c: i32| c != 0),
        },
    });
}

/// The file and text of a file command: `create PATH`, `open PATH` (only
/// moves the open file), `edit N:M` + lines + `end_of_edit` into the open
/// file, `str_replace_editor create PATH --file_text TEXT`.
fn file_write(line: &str, writer: &mut Writer, open: Option<&str>) -> Option<(String, String)> {
    let mut words = line.split_whitespace();
    let program = words.next()?;
    match program {
        "create" | "open" => {
            let path = words.next()?.trim_matches('"').to_owned();
            writer.open = Some(path.clone());
            (program == "create").then(|| (path, String::new()))
        }
        "edit" | "insert" | "append" => {
            let path = open.map(str::to_owned).or_else(|| writer.open.clone())?;
            let body = line.split_once('\n').map_or("", |(_, body)| body);
            let body = body
                .trim_end()
                .strip_suffix("end_of_edit")
                .unwrap_or(body)
                .to_owned();
            writer.open = Some(path.clone());
            Some((path, body))
        }
        "str_replace_editor" => {
            let argv = crate::shell::parse(line).into_iter().next()?.argv;
            let path = argv.get(2)?.clone();
            let text = ["--file_text", "--new_str"]
                .iter()
                .find_map(|flag| {
                    let at = argv.iter().position(|a| a == flag)?;
                    argv.get(at + 1).cloned()
                })
                .unwrap_or_default();
            matches!(
                argv.get(1).map(String::as_str),
                Some("create" | "str_replace" | "insert")
            )
            .then_some((path, text))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(parsed: &Parsed, text: &str) -> Vec<String> {
        let line = |span: &Span| text[..span.start].matches('\n').count() + 1;
        parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text: c, .. } => Some(format!("{}: $ {c}", line(&e.span))),
                EventKind::Output { text: Some(o), .. } => {
                    Some(format!("{}: > {}", line(&e.span), o.trim_end()))
                }
                EventKind::FileWrite { path, text: t } => Some(
                    format!("{}: write {path} {}", line(&e.span), t)
                        .trim_end()
                        .to_owned(),
                ),
                _ => None,
            })
            .collect()
    }

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

    /// 0.x: keys in the order SWE-agent writes them (`action` before
    /// `thought`), the same steps again in `history` with the footer.
    #[test]
    fn each_action_once_at_its_trajectory_step() {
        let text = r#"{
    "environment": "swe_main",
    "trajectory": [
        {
            "action": "pip install -e .\n",
            "observation": "Successfully installed pkg-1.0\n",
            "response": "Install it.\n```\npip install -e .\n```",
            "state": "{\"open_file\": \"n/a\", \"working_dir\": \"/repo\"}\n",
            "thought": "Install it.\n"
        },
        {
            "action": "create reproduce.py\n",
            "observation": "[File: /repo/reproduce.py (1 lines total)]\n1:\n",
            "response": "",
            "state": "{\"open_file\": \"/repo/reproduce.py\", \"working_dir\": \"/repo\"}\n",
            "thought": "A script.\n"
        },
        {
            "action": "edit 1:1\nimport pkg\nprint(pkg.f())\nend_of_edit\n",
            "observation": "File updated.\n",
            "response": "",
            "state": "{\"open_file\": \"/repo/reproduce.py\", \"working_dir\": \"/repo\"}\n",
            "thought": "Fill it.\n"
        },
        {
            "action": "python reproduce.py\n",
            "observation": "344\n",
            "response": "",
            "state": "{\"open_file\": \"/repo/reproduce.py\", \"working_dir\": \"/repo\"}\n",
            "thought": "Run it.\n"
        }
    ],
    "history": [
        {"role": "system", "content": "SETTING", "agent": "primary"},
        {"role": "user", "content": "demo: pip install -e .", "agent": "primary", "is_demo": true},
        {"role": "user", "content": "The issue", "agent": "primary"},
        {"role": "assistant", "content": "Install it.", "thought": "Install it.\n", "action": "pip install -e .\n", "agent": "primary"},
        {"role": "user", "content": "Successfully installed pkg-1.0\n\n(Open file: n/a)\n(Current directory: /repo)\nbash-$", "agent": "primary"},
        {"role": "assistant", "content": "Run it.", "thought": "Run it.\n", "action": "python reproduce.py\n", "agent": "primary"},
        {"role": "user", "content": "344\n(Open file: /repo/reproduce.py)\n(Current directory: /repo)\nbash-$", "agent": "primary"}
    ],
    "info": {"exit_status": "submitted"}
}"#;
        assert_eq!(
            summary(&parse(text, 0), text),
            [
                "5: $ pip install -e .",
                "6: > Successfully installed pkg-1.0",
                "12: write reproduce.py",
                "19: write /repo/reproduce.py import pkg\nprint(pkg.f())",
                "26: $ python reproduce.py",
                "27: > 344",
            ]
        );
    }

    /// 1.x function calling: no trailing newline, `\r\n` from the PTY, and
    /// a history whose actions are also tool calls.
    #[test]
    fn function_calling_shape() {
        let text = r#"{"trajectory": [
  {"action": "ls -F", "observation": "a.py\r\nb.py", "response": "", "thought": "Look.", "execution_time": 0.1, "state": {"open_file": null, "working_dir": "/testbed"}}
], "history": [
  {"role": "assistant", "content": "Look.", "thought": "Look.", "action": "ls -F", "agent": "main", "message_type": "action",
   "tool_calls": [{"function": {"arguments": "{\"command\":\"ls -F\"}", "name": "bash"}, "id": "call_1", "type": "function"}]},
  {"role": "tool", "content": "a.py\r\nb.py\n(Open file: n/a)\n(Current directory: /testbed)\nbash-$", "agent": "main", "message_type": "observation", "tool_call_ids": ["call_1"]}
], "info": {}}"#;
        assert_eq!(
            summary(&parse(text, 0), text),
            ["2: $ ls -F", "2: > a.py\nb.py"]
        );
    }

    /// Without `trajectory`, the history is the record: tool calls and
    /// their answers, footers removed, demonstrations skipped.
    #[test]
    fn history_alone() {
        let text = r#"{"history": [
  {"role": "user", "content": "demo", "is_demo": true, "agent": "main", "message_type": "demonstration", "action": "rm -rf /"},
  {"role": "assistant", "content": "Run the tests.", "agent": "main", "message_type": "action",
   "tool_calls": [{"function": {"arguments": "{\"command\":\"pytest -q\"}", "name": "bash"}, "id": "c1", "type": "function"}]},
  {"role": "tool", "content": "3 passed in 0.1s\n(Open file: n/a)\n(Current directory: /testbed)\nbash-$", "agent": "main", "message_type": "observation"}
], "info": {}}"#;
        let value: Value = serde_json::from_str(text).unwrap_or_default();
        assert!(is_trajectory(&value));
        assert_eq!(
            summary(&parse(text, 0), text),
            ["3: $ pytest -q", "5: > 3 passed in 0.1s"]
        );
    }
}

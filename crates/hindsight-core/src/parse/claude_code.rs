//! Claude Code session JSONL (`~/.claude/projects/…/*.jsonl`) and the
//! headless `claude -p --output-format stream-json` stream.
//!
//! One JSON record per line. Bash `tool_use` blocks are paired with their
//! `tool_result` by id, never by position (parallel calls return out of
//! order). The exit status is only text: `Exit code N` on the result's first
//! line, or `is_error`. Background shells report later through `BashOutput`
//! polls. Thinking blocks are not claims; compaction summaries are prose, never
//! evidence. A sidechain record (`isSidechain: true`) is a sub-agent's, so
//! its commands are the sub-agent's. Unknown record types are kept as [`EventKind::Unrecognized`].

use std::collections::HashMap;

use serde_json::Value;

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::diagnostic::Diagnostic;
use crate::source::{Span, lines_with_offsets};

/// Tool names that run shell commands (Claude Code on Windows has a
/// `PowerShell` tool beside `Bash`).
pub(crate) const SHELL_TOOLS: &[&str] = &["Bash", "bash", "PowerShell"];
/// Tool names that poll a background shell's output.
pub(crate) const POLL_TOOLS: &[&str] = &["BashOutput", "TaskOutput"];

/// Tool names that stop a background shell (and what runs in it).
pub(crate) const KILL_TOOLS: &[&str] = &["KillShell", "KillBash", "TaskStop"];

/// The command a stopped background shell is recorded as: `KillShell ID`
/// (the timeline classifies it as a kill).
pub const KILL_SHELL: &str = "KillShell";

/// The background shell a stop or poll tool names, by whichever key its
/// version uses (`shell_id`, `bash_id`, `task_id`), in a JSONL record or a
/// rendered session's JSON input.
pub(crate) fn shell_id(input: &Value) -> Option<&str> {
    ["shell_id", "bash_id", "task_id"]
        .iter()
        .find_map(|key| input.get(*key).and_then(Value::as_str))
}

/// The command a poll of a background shell the transcript never showed
/// starting is recorded as: `BashOutput ID` (the timeline classifies it
/// as a look at that shell's output). A session excerpt, or one resumed
/// from an earlier session, often opens with the agent reading the output
/// of a server it started before: that output shows the server.
pub const SHELL_OUTPUT: &str = "BashOutput";

/// The command a browser tool's page load is recorded as: `browser-open
/// URL` (the timeline reads it as a request to that URL).
pub const BROWSER_OPEN: &str = "browser-open";

/// Whether a tool loads a page in a browser (Playwright's or Puppeteer's
/// MCP server, Claude's own browser tools): a request to its URL.
pub(crate) fn is_browser_open(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with("browser_navigate")
        || name.ends_with("puppeteer_navigate")
        || name.ends_with("navigate_page")
        || name.ends_with("__navigate")
}

#[derive(Default)]
struct State {
    parsed: Parsed,
    /// tool_use id → command event index.
    commands: HashMap<String, usize>,
    /// tool_use id of a `BashOutput` poll → the shell id it polls.
    polls: HashMap<String, String>,
    /// Background shell id (`bash_1`) → command event index.
    shells: HashMap<String, usize>,
    /// The last human `!cmd` still waiting for its output.
    human_command: Option<usize>,
}

/// Whether a line looks like a Claude Code record (for detection).
pub fn looks_like(record: &Value) -> bool {
    let has = |key: &str| record.get(key).is_some();
    let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
    (has("parentUuid") || has("sessionId") || has("session_id") || has("message"))
        && matches!(kind, "user" | "assistant" | "system" | "summary" | "result")
        || matches!(kind, "file-history-snapshot" | "summary")
}

/// Parses a session file.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut state = State::default();
    for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
        let span = Span::new(source, offset, offset + line.len());
        let json = strip_read_prefix(line).trim();
        if json.is_empty() {
            continue;
        }
        if let Some(mut record) = state.parsed.json_record(json, span, number + 1) {
            state.record(&mut record, span);
        }
    }
    // Held while the timeline is built from them.
    state.parsed.events.shrink_to_fit();
    state.parsed
}

/// Parses records another container holds (a Markdown export's JSON
/// blocks), each with the span of the text it came from.
pub(crate) fn parse_records(records: impl IntoIterator<Item = (Value, Span)>) -> Parsed {
    let mut state = State::default();
    for (mut record, span) in records {
        state.record(&mut record, span);
    }
    state.parsed.events.shrink_to_fit();
    state.parsed
}

/// Claude Code's Read tool prefixes lines with `     12→`; pasted back, they
/// must go before the JSON can be read.
fn strip_read_prefix(line: &str) -> &str {
    let trimmed = line.trim_start();
    let digits = trimmed.len()
        - trimmed
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits > 0
        && let Some(rest) = trimmed[digits..].strip_prefix('→')
    {
        return rest;
    }
    line
}

impl State {
    fn push(&mut self, span: Span, kind: EventKind) -> usize {
        self.parsed.events.push(Event { span, kind });
        self.parsed.events.len() - 1
    }

    fn record(&mut self, record: &mut Value, span: Span) {
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("");
        let time = record
            .get("timestamp")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match kind {
            "assistant" => self.assistant(record, span, time),
            "user" => self.user(record, span),
            // A conversation summary: prose, never evidence.
            "summary" => {
                let text = record
                    .get("summary")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                self.push(
                    span,
                    EventKind::Prose {
                        role: Role::Unknown,
                        text,
                    },
                );
            }
            _ => {
                self.push(span, EventKind::Unrecognized);
            }
        }
    }

    fn assistant(&mut self, record: &Value, span: Span, time: Option<String>) {
        let actor = if record.get("isSidechain").and_then(Value::as_bool) == Some(true) {
            Actor::SubAgent
        } else {
            Actor::Agent
        };
        let Some(content) = record.pointer("/message/content") else {
            self.push(span, EventKind::Unrecognized);
            return;
        };
        // Older files put one block per record; stream-json and newer files
        // may put several. Either way each block is handled on its own.
        let blocks: Vec<&Value> = match content {
            Value::Array(blocks) => blocks.iter().collect(),
            Value::String(_) => vec![content],
            _ => Vec::new(),
        };
        for block in blocks {
            if let Some(text) = block.as_str() {
                let text = Some(text.to_owned());
                self.push(
                    span,
                    EventKind::Prose {
                        role: Role::Assistant,
                        text,
                    },
                );
                continue;
            }
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block.get("text").and_then(Value::as_str).map(str::to_owned);
                    self.push(
                        span,
                        EventKind::Prose {
                            role: Role::Assistant,
                            text,
                        },
                    );
                }
                Some("tool_use") => self.tool_use(block, span, time.clone(), actor),
                // Thinking is private reasoning, not a claim.
                _ => {}
            }
        }
    }

    fn tool_use(&mut self, block: &Value, span: Span, time: Option<String>, actor: Actor) {
        let name = block.get("name").and_then(Value::as_str).unwrap_or("");
        let id = block
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let input = block.get("input");
        if SHELL_TOOLS.contains(&name) {
            let Some(command) = input.and_then(|i| i.get("command")).and_then(Value::as_str) else {
                return;
            };
            let background = input
                .and_then(|i| i.get("run_in_background"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let event = self.push(
                span,
                EventKind::Command {
                    text: command.to_owned(),
                    actor,
                    prompt_host: None,
                    time,
                    background,
                },
            );
            self.commands.insert(id, event);
        } else if is_browser_open(name) {
            let Some(url) = input.and_then(|i| i.get("url")).and_then(Value::as_str) else {
                return;
            };
            let event = self.push(
                span,
                EventKind::tool_command(format!("{BROWSER_OPEN} {url}"), actor, time),
            );
            self.commands.insert(id, event);
        } else if KILL_TOOLS.contains(&name) {
            // Stopping a background shell: a kill of whatever it runs.
            let shell = input.and_then(shell_id).unwrap_or("");
            let event = self.push(
                span,
                EventKind::tool_command(format!("{KILL_SHELL} {shell}"), actor, time),
            );
            // Its answer says whether anything was stopped (`Shell d5cc44
            // is not running, so cannot be killed (status: failed)`).
            self.commands.insert(id, event);
        } else if POLL_TOOLS.contains(&name) {
            let shell = input.and_then(shell_id).unwrap_or("");
            // `TaskOutput` also reads subagents' results; only `BashOutput`
            // surely reads a shell.
            if name == SHELL_OUTPUT && !self.shells.contains_key(shell) {
                // A shell started before this transcript: the poll is a
                // look at its output, and later polls of it add to that.
                let command = self.push(
                    span,
                    EventKind::tool_command(format!("{SHELL_OUTPUT} {shell}"), actor, time),
                );
                self.shells.insert(shell.to_owned(), command);
            }
            self.polls.insert(id, shell.to_owned());
        }
    }

    fn user(&mut self, record: &mut Value, span: Span) {
        // Taken out, so a tool's output moves into its event uncopied.
        let content = record.pointer_mut("/message/content").map(Value::take);
        let record = &*record;
        match content {
            Some(Value::String(text)) => self.user_text(&text, record, span),
            Some(Value::Array(blocks)) => {
                for mut block in blocks {
                    match block.get("type").and_then(Value::as_str) {
                        Some("tool_result") => self.tool_result(&mut block, record, span),
                        Some("text") => {
                            let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                            self.user_text(text, record, span);
                        }
                        // Images and documents are skipped, not copied.
                        _ => {}
                    }
                }
            }
            _ => {
                self.push(span, EventKind::Unrecognized);
            }
        }
    }

    fn user_text(&mut self, text: &str, record: &Value, span: Span) {
        // `!cmd` in Claude Code: a command the human ran, not the agent.
        if let Some(command) = between(text, "<bash-input>", "</bash-input>") {
            let event = self.push(
                span,
                EventKind::Command {
                    text: command.to_owned(),
                    actor: Actor::Human,
                    prompt_host: None,
                    time: record
                        .get("timestamp")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    background: false,
                },
            );
            self.human_command = Some(event);
            return;
        }
        if text.contains("<bash-stdout>") || text.contains("<bash-stderr>") {
            if let Some(command) = self.human_command.take() {
                let mut output = between(text, "<bash-stdout>", "</bash-stdout>")
                    .unwrap_or("")
                    .to_owned();
                let stderr = between(text, "<bash-stderr>", "</bash-stderr>").unwrap_or("");
                if !stderr.is_empty() {
                    output.push('\n');
                    output.push_str(stderr);
                }
                self.push(
                    span,
                    EventKind::Output {
                        command,
                        text: Some(output),
                        exit_code: None,
                        is_error: false,
                    },
                );
            }
            return;
        }
        let meta = text.starts_with("<command-")
            || text.starts_with("<local-command")
            || text.starts_with("<system-reminder>");
        if meta {
            self.push(span, EventKind::Unrecognized);
        } else {
            // Compaction summaries are user records too: prose, not evidence.
            self.push(
                span,
                EventKind::Prose {
                    role: Role::User,
                    text: Some(text.to_owned()),
                },
            );
        }
    }

    fn tool_result(&mut self, block: &mut Value, record: &Value, span: Span) {
        let text = result_text(block.get_mut("content").map(Value::take));
        let id = block
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        let is_error = block
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        if let Some(&command) = self.commands.get(id) {
            // `Command running in background with ID: bash_1`
            if let Some(shell) = text
                .split("with ID: ")
                .nth(1)
                .map(|rest| {
                    rest.split_whitespace()
                        .next()
                        .unwrap_or("")
                        .trim_end_matches('.')
                })
                .filter(|_| text.contains("running in background"))
            {
                self.shells.insert(shell.to_owned(), command);
                return;
            }
            let (exit_code, body) = split_exit_code(&text);
            let body = text.len() - body.len();
            // A read of a background task's output file is a poll of it.
            if let Some(EventKind::Command { text: read, .. }) =
                self.parsed.events.get(command).map(|e| &e.kind)
                && let Some(task) = task_output_read(read)
                && let Some(&launch) = self.shells.get(task)
                && launch != command
            {
                self.push(
                    span,
                    EventKind::Output {
                        command: launch,
                        text: Some(text.get(body..).unwrap_or_default().to_owned()),
                        exit_code: None,
                        is_error: false,
                    },
                );
            }
            if text.contains("<persisted-output>") {
                self.parsed.diagnostics.push(Diagnostic::info(
                    span.source,
                    None,
                    "a tool output was saved outside the session file (<persisted-output>); only its preview was analyzed",
                ));
            }
            self.push(
                span,
                EventKind::Output {
                    command,
                    // The body is the text's end: moved, or copied only
                    // when an exit status came before it.
                    text: Some(if body == 0 {
                        text
                    } else {
                        text.get(body..).unwrap_or_default().to_owned()
                    }),
                    exit_code,
                    is_error,
                },
            );
            return;
        }
        if let Some(shell) = self.polls.get(id) {
            let Some(&command) = self.shells.get(shell) else {
                return;
            };
            let structured = record
                .get("toolUseResult")
                .or_else(|| record.get("tool_use_result"));
            let stdout = structured
                .and_then(|r| r.get("stdout"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| between(&text, "<stdout>", "</stdout>").map(str::to_owned))
                .unwrap_or_default();
            let exit_code = structured
                .and_then(|r| r.get("exitCode"))
                .and_then(Value::as_i64)
                .and_then(|c| i32::try_from(c).ok());
            // What the poll said of the process (`running`, `completed`,
            // `failed`): the agent saw it before the output.
            let stdout = match between(&text, "<status>", "</status>") {
                Some(status) => format!("<status>{status}</status>\n{stdout}"),
                None => stdout,
            };
            self.push(
                span,
                EventKind::Output {
                    command,
                    text: Some(stdout),
                    exit_code,
                    is_error,
                },
            );
        }
    }
}

/// The background task whose output file a command reads: Claude Code
/// writes a background shell's output to `…/tasks/<id>.output`, and agents
/// `cat` or `tail` that file instead of polling. `None` for any other
/// command.
pub(crate) fn task_output_read(command: &str) -> Option<&str> {
    let at = command.find("/tasks/")? + "/tasks/".len();
    let rest = &command[at..];
    let end = rest.find(".output")?;
    let id = &rest[..end];
    (!id.is_empty()
        && id.len() <= 40
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    .then_some(id)
}

/// The text of a tool result: a string, or a list of text blocks.
fn result_text(content: Option<Value>) -> String {
    match content {
        Some(Value::String(text)) => text,
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Splits `Exit code N\n…` (Claude Code ≥ 2.0) into the code and the output
/// (always the text's end).
fn split_exit_code(text: &str) -> (Option<i32>, &str) {
    let text_without_error = text.strip_prefix("Error: ").unwrap_or(text);
    if let Some(rest) = text_without_error.strip_prefix("Exit code ") {
        let (code, body) = rest.split_once('\n').unwrap_or((rest, ""));
        if let Ok(code) = code.trim().parse() {
            return (Some(code), body);
        }
    }
    (None, text)
}

fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close).map_or(text.len(), |e| start + e);
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command { text, actor, .. } => format!("cmd {actor:?} {text}"),
                EventKind::Output {
                    command,
                    text,
                    exit_code,
                    ..
                } => format!(
                    "out {command} {exit_code:?} {}",
                    text.as_deref().unwrap_or("")
                ),
                EventKind::Prose { role, .. } => format!("prose {role:?}"),
                _ => "other".to_owned(),
            })
            .collect()
    }

    #[test]
    fn tool_use_and_result_pair_by_id_not_position() {
        let text = r#"{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"echo a"}}]},"timestamp":"2026-01-01T00:00:00Z"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"false"}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"Exit code 1\nboom","is_error":true}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"a"}]}}
"#;
        assert_eq!(
            events(text),
            [
                "cmd Agent echo a",
                "cmd Agent false",
                "out 1 Some(1) boom",
                "out 0 None a"
            ]
        );
    }

    #[test]
    fn background_shell_output_comes_from_polls() {
        let text = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"vllm serve m","run_in_background":true}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"Command running in background with ID: bash_1"}]}}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"p","name":"BashOutput","input":{"bash_id":"bash_1"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"p","content":"<status>running</status>"}]},"toolUseResult":{"shellId":"bash_1","stdout":"INFO started","exitCode":null}}
"#;
        assert_eq!(
            events(text),
            [
                "cmd Agent vllm serve m",
                "out 0 None <status>running</status>\nINFO started"
            ]
        );
    }

    #[test]
    fn a_poll_of_a_shell_started_before_the_session_is_a_look_at_it() {
        let text = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"p","name":"BashOutput","input":{"bash_id":"bash_7"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"p","content":"<status>running</status>"}]},"toolUseResult":{"shellId":"bash_7","stdout":"INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)","exitCode":null}}
{"type":"assistant","message":{"content":[{"type":"tool_use","id":"c","name":"Bash","input":{"command":"curl -s -m 5 http://127.0.0.1:8000/health"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c","content":"Exit code 7","is_error":true}]}}
"#;
        assert_eq!(
            events(text)[..2],
            [
                "cmd Agent BashOutput bash_7",
                "out 0 None <status>running</status>\nINFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)"
            ]
        );
        // The shell's server is found, and the refused request after its
        // banner says it is down now.
        let report = crate::analyze(&[crate::Source::new("s.jsonl", text)]);
        assert_eq!(report.servers.len(), 1, "{:?}", report.servers);
        assert_eq!(report.servers[0].port, Some(8000));
        assert_eq!(report.servers[0].ready, Some(false));
        // A subagent's result read with `TaskOutput` is not a shell's.
        let task = text.replace("BashOutput", "TaskOutput");
        assert!(
            !events(&task)
                .iter()
                .any(|e| e.starts_with("cmd Agent TaskOutput"))
        );
    }

    #[test]
    fn sidechain_commands_are_the_sub_agents() {
        let text = r#"{"type":"assistant","isSidechain":false,"message":{"content":[{"type":"tool_use","id":"a","name":"Task","input":{"prompt":"check the GPUs"}},{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo main"}}]}}
{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","id":"c","name":"Bash","input":{"command":"nvidia-smi"}}]}}
"#;
        let actors: Vec<Actor> = parse(text, 0)
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { actor, .. } => Some(*actor),
                _ => None,
            })
            .collect();
        assert_eq!(actors, [Actor::Agent, Actor::SubAgent]);
        // Condensing keeps the mark, and the report names the actor.
        let report = crate::analyze(&[crate::Source::new("s.jsonl", text)]);
        let shown: Vec<&str> = report.checkpoints.iter().map(|c| c.actor.name()).collect();
        assert_eq!(shown, ["agent", "sub-agent"]);
    }

    #[test]
    fn headless_stream_json() {
        let text = r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash"],"model":"claude-sonnet-4-5"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"nvidia-smi -L"}}]},"parent_tool_use_id":null,"session_id":"s1"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"GPU 0: NVIDIA H100 80GB HBM3","is_error":false}]},"parent_tool_use_id":null,"session_id":"s1","tool_use_result":{"stdout":"GPU 0: NVIDIA H100 80GB HBM3","stderr":"","interrupted":false,"isImage":false}}
{"type":"result","subtype":"success","is_error":false,"duration_ms":4120,"num_turns":2,"result":"One H100.","session_id":"s1","total_cost_usd":0.01}
"#;
        assert!(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .any(|r| looks_like(&r))
        );
        assert_eq!(
            events(text),
            [
                "other",
                "cmd Agent nvidia-smi -L",
                "out 1 None GPU 0: NVIDIA H100 80GB HBM3",
                "other"
            ]
        );
    }

    #[test]
    fn human_commands_thinking_and_bad_lines() {
        let text = "{\"type\":\"user\",\"message\":{\"content\":\"<bash-input>nvidia-smi</bash-input>\"}}\n{\"type\":\"user\",\"message\":{\"content\":\"<bash-stdout>No running processes found</bash-stdout><bash-stderr></bash-stderr>\"}}\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"}]}}\n{not json\n     5→{\"type\":\"summary\",\"summary\":\"s\"}\n";
        let parsed = parse(text, 0);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].line, Some(4));
        assert_eq!(
            events(text),
            [
                "cmd Human nvidia-smi",
                "out 0 None No running processes found",
                "other",
                "prose Unknown"
            ]
        );
    }
}

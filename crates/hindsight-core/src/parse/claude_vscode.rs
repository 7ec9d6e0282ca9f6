//! Claude Code's VS Code panel, copied as text: each tool call is its name
//! and description on one line, `IN` over its input, `OUT` over its result.
//!
//! ```text
//! The config points at llama-server on port 8081. I'll start it.
//!
//! Bash Start llama-server on port 8081
//! IN
//! llama-server -m /m/q.gguf --port 8081 2>&1
//!
//! OUT
//! Command running in background with ID: bq37sl65d. Output is being written to: /tmp/…
//! Monitor
//! IN
//! {
//!   "command": "until curl -sf http://127.0.0.1:8081/health; do sleep 2; done"
//! }
//! OUT
//! Monitor started (task bgvbyd773, timeout 180000ms). …
//! Read prompt_builder.cpp (lines 2-51)
//! llama-server is up.
//! ```
//!
//! `Bash`/`PowerShell` inputs are shell commands; a `Monitor`'s is JSON
//! whose `command` runs in the background (its `OUT` says only that it
//! started); `TaskStop`/`KillShell` stop a background shell by its id;
//! `BashOutput`/`TaskOutput` look at one. Other tools are summary lines
//! (`Read x`, `Edit x`, `Grep "…"`, `23 lines of output`). A result runs to
//! the next tool line or to the agent's next sentence: the copy keeps no
//! other mark between them. The user's turns are not marked either; all
//! prose is read as the agent's.

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// Tools whose call shows `IN` and `OUT` blocks.
const BLOCK_TOOLS: &[&str] = &[
    "Bash",
    "PowerShell",
    "Monitor",
    "TaskStop",
    "KillShell",
    "KillBash",
    "BashOutput",
    "TaskOutput",
];

/// Tools the panel shows as one summary line.
const SUMMARY_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "Update",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "Task",
    "Agent",
    "NotebookEdit",
    "MultiEdit",
];

/// The tool of a line that opens an `IN` block (`Bash Start the server`).
fn block_tool<'l>(line: &'l str, next: Option<&str>) -> Option<&'l str> {
    if next.map(str::trim_end) != Some("IN") {
        return None;
    }
    let name = line.split_whitespace().next()?;
    BLOCK_TOOLS.contains(&name).then_some(name)
}

/// A tool's one-line summary, or the panel's own note under it.
fn is_summary(line: &str) -> bool {
    let trimmed = line.trim();
    let first = trimmed.split_whitespace().next().unwrap_or("");
    (SUMMARY_TOOLS.contains(&first) && trimmed.len() > first.len())
        || matches!(trimmed, "Modified" | "Created" | "IN" | "OUT")
        || trimmed.ends_with(" lines of output")
        || trimmed.starts_with("Added ") && trimmed.contains(" line")
}

/// Whether a line is the agent's sentence rather than a result's line: a
/// capitalised sentence of six words or more, with none of the marks of a
/// log or of program output.
fn is_sentence(line: &str) -> bool {
    let text = line.trim();
    let words: Vec<&str> = text.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    words.len() >= 6
        && first.chars().next().is_some_and(char::is_uppercase)
        && !first.ends_with(':')
        && !text.contains([
            '=', '|', '[', ']', '{', '}', '<', '>', '/', '\\', '"', '\t', '$',
        ])
        && text.ends_with(['.', '!', '?', ':'])
}

/// Whether a pasted text is this rendering: tool lines over `IN` blocks,
/// and their `OUT`s.
pub fn looks_like(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let lines: Vec<&str> = head.lines().take(4000).collect();
    let calls = lines
        .windows(2)
        .filter(|pair| block_tool(pair[0], Some(pair[1])).is_some())
        .count();
    let outs = lines.iter().filter(|l| l.trim_end() == "OUT").count();
    calls >= 2 && outs >= 1
}

/// A tool's JSON input (`{"task_id": "…"}`), when it is JSON.
fn json_input(input: &str) -> Option<serde_json::Value> {
    serde_json::from_str(input.trim()).ok()
}

/// Reads the rendering into prose, commands and their outputs.
pub fn parse(text: &str, source: usize) -> Parsed {
    let lines: Vec<(usize, &str)> = lines_with_offsets(text).collect();
    let mut parsed = Parsed::default();
    let span = |from: usize, to: usize| Span::of_lines(&lines, source, from, to);
    let line = |i: usize| lines.get(i).map(|(_, l)| l.trim_end_matches(['\r', '\n']));
    // Background shells by the id the panel gave them, and the event of
    // the command each runs.
    let mut shells: Vec<String> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let here = line(index).unwrap_or("");
        if let Some(tool) = block_tool(here, line(index + 1)) {
            // The input: up to `OUT` (a call cut before its result has none).
            let mut end = index + 1;
            let mut input = String::new();
            while let Some(next) = line(end + 1) {
                if next.trim_end() == "OUT" || block_tool(next, line(end + 2)).is_some() {
                    break;
                }
                if !input.is_empty() {
                    input.push('\n');
                }
                input.push_str(next);
                end += 1;
            }
            let input = input.trim().to_owned();
            let has_out = line(end + 1).is_some_and(|l| l.trim_end() == "OUT");
            // The result: up to the next tool line or the agent's sentence.
            let out_from = end + 2;
            let mut out_end = end + 1;
            let mut output: Vec<&str> = Vec::new();
            if has_out {
                while let Some(next) = line(out_end + 1) {
                    // The first line after `OUT` is the result's, whatever
                    // it reads like (`Monitor started (task …).`).
                    if block_tool(next, line(out_end + 2)).is_some()
                        || is_summary(next)
                        || (out_end > end + 1 && is_sentence(next))
                    {
                        break;
                    }
                    output.push(next);
                    out_end += 1;
                }
            }
            let result = output.join("\n");
            // The background shell a stop or poll names.
            let shell = || {
                json_input(&input)
                    .and_then(|v| super::claude_code::shell_id(&v).map(str::to_owned))
                    .unwrap_or_default()
            };
            let command = match tool {
                "Monitor" => {
                    json_input(&input).and_then(|v| v.get("command")?.as_str().map(str::to_owned))
                }
                "TaskStop" | "KillShell" | "KillBash" => {
                    let id = shell();
                    // Only a shell the session started: a monitor's task
                    // stopped is no server's.
                    shells
                        .contains(&id)
                        .then(|| format!("{} {id}", super::claude_code::KILL_SHELL))
                }
                "BashOutput" | "TaskOutput" => {
                    let id = shell();
                    Some(format!("{} {id}", super::claude_code::SHELL_OUTPUT))
                }
                _ => Some(input.clone()),
            };
            let background_id = result
                .split("running in background with ID: ")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| c.is_whitespace() || c == '.').next())
                .filter(|id| !id.is_empty());
            let event_end = if has_out { out_end } else { end };
            match command.filter(|c| !c.trim().is_empty()) {
                Some(command) => {
                    let background = tool == "Monitor" || background_id.is_some();
                    let command_event = parsed.events.len();
                    parsed.events.push(Event {
                        span: span(index, end),
                        kind: EventKind::Command {
                            text: command,
                            actor: Actor::Agent,
                            prompt_host: None,
                            time: None,
                            background,
                        },
                    });
                    if let Some(id) = background_id {
                        shells.push(id.to_owned());
                    }
                    // A background start's note and a monitor's are no
                    // output of the command.
                    if has_out && !background && !output.is_empty() {
                        parsed.events.push(Event {
                            span: span(out_from, out_end),
                            kind: EventKind::Output {
                                command: command_event,
                                text: Some(result),
                                exit_code: None,
                                is_error: false,
                            },
                        });
                    }
                }
                None => parsed.events.push(Event {
                    span: span(index, event_end),
                    kind: EventKind::Unrecognized,
                }),
            }
            index = event_end + 1;
            continue;
        }
        if here.trim().is_empty() {
            index += 1;
            continue;
        }
        if is_summary(here) {
            parsed.events.push(Event {
                span: span(index, index),
                kind: EventKind::Unrecognized,
            });
            index += 1;
            continue;
        }
        // The agent's words: a paragraph, to a blank or a tool line.
        let mut end = index;
        let mut words = here.to_owned();
        while let Some(next) = line(end + 1) {
            if next.trim().is_empty()
                || is_summary(next)
                || block_tool(next, line(end + 2)).is_some()
            {
                break;
            }
            words.push('\n');
            words.push_str(next);
            end += 1;
        }
        parsed.events.push(Event {
            span: span(index, end),
            kind: EventKind::Prose {
                role: Role::Assistant,
                text: Some(words),
            },
        });
        index = end + 1;
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    const PANEL: &str = "The config points at llama-server on port 8081. I'll start both services.\n\nBash Start llama-server on port 8081\nIN\n/opt/llama-server \\\n  -m /m/q.gguf --host 127.0.0.1 --port 8081 2>&1\n\nOUT\nCommand running in background with ID: bq37sl65d. Output is being written to: /tmp/t/bq37sl65d.output\nMonitor\nIN\n{\n  \"description\": \"readiness\",\n  \"command\": \"until curl -sf http://127.0.0.1:8081/health; do sleep 2; done\"\n}\nOUT\nMonitor started (task bgvbyd773, timeout 180000ms). You will be notified on each event.\nBash Check GPU memory\nIN\nnvidia-smi --query-gpu=memory.used --format=csv 2>&1\n\nOUT\nmemory.used [MiB]\n0 MiB\nCUDA ran out of memory with the full context, so I will relaunch it smaller.\n\nRead prompt_builder.cpp (lines 2-51)\nTaskStop\nIN\n{\n  \"task_id\": \"bq37sl65d\"\n}\nOUT\n{\"message\":\"Successfully stopped task\"}\n";

    fn summary(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command {
                    text, background, ..
                } => format!("cmd{} {text}", if *background { "&" } else { "" }),
                EventKind::Output { command, text, .. } => {
                    format!("out {command} {}", text.as_deref().unwrap_or(""))
                }
                EventKind::Prose { text, .. } => format!("prose {}", text.as_deref().unwrap_or("")),
                _ => "other".to_owned(),
            })
            .collect()
    }

    #[test]
    fn tool_blocks_become_commands_and_outputs() {
        assert!(looks_like(PANEL));
        assert_eq!(
            summary(PANEL),
            [
                "prose The config points at llama-server on port 8081. I'll start both services.",
                "cmd& /opt/llama-server \\\n  -m /m/q.gguf --host 127.0.0.1 --port 8081 2>&1",
                "cmd& until curl -sf http://127.0.0.1:8081/health; do sleep 2; done",
                "cmd nvidia-smi --query-gpu=memory.used --format=csv 2>&1",
                "out 3 memory.used [MiB]\n0 MiB",
                "prose CUDA ran out of memory with the full context, so I will relaunch it smaller.",
                "other",
                "cmd KillShell bq37sl65d",
                "out 7 {\"message\":\"Successfully stopped task\"}",
            ]
        );
    }

    #[test]
    fn other_texts_are_not_this_rendering() {
        assert!(!looks_like("$ curl localhost:8000\nIN\nOUT\n"));
        assert!(!looks_like("Bash run it\nsome output\n"));
    }
}

//! Codex CLI's terminal rendering, pasted as text (`codex` 0.4x to 0.14x):
//! what a user copies from the TUI into an issue or a chat.
//!
//! ```text
//! › start the api and check it
//!
//! • I'll start the server first.
//!
//! • Ran uvicorn main:app --port 8077
//!   └ INFO:     Uvicorn running on http://0.0.0.0:8077 (Press CTRL+C to quit)
//!     … +3 lines (ctrl + t to view transcript)
//!
//! • Ran python3 -c '
//!   │ import json
//!   │ … +23 lines
//!   └ ok
//! ```
//!
//! `›` opens the user's message; `•` opens an item: `Ran`/`Running` a shell
//! command (its further lines prefixed `│`, its output opened by `└` and
//! indented four columns), `Explored`/`Edited`/`Added` (file reads and
//! edits, not commands), or the assistant's prose (its wrapped lines
//! indented two columns). `◦ Running` is a command still running when the
//! text was copied. `Waited for` / `Interacted with background terminal ·
//! CMD` are a look at (or input to) a command run in the background. The
//! rest (the boxed banner, `───` rules, `Worked for`, approval notices) is
//! the interface's own. Spans are the lines an item covers; a command's
//! text and its output are given decoded (prefixes off, lines joined).

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// Whether a pasted text is Codex's terminal rendering: commands it ran
/// (`• Ran …`, `◦ Running …`) or its explored and edited files, with the
/// `└` of their results.
pub fn looks_like(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let mut items = 0usize;
    let mut results = 0usize;
    for line in head.lines().take(2000) {
        if command_of(line).is_some()
            || line.starts_with("• Explored")
            || line.starts_with("• Edited ")
            || line.starts_with("• Added ")
        {
            items += 1;
        }
        if line.starts_with("  └ ") || line == "  └" {
            results += 1;
        }
    }
    items >= 1 && results >= 1 && items + results >= 3
}

/// The command of a `• Ran CMD` / `• Running CMD` / `◦ Running CMD` line.
fn command_of(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("• ")
        .or_else(|| line.strip_prefix("◦ "))?;
    rest.strip_prefix("Ran ")
        .or_else(|| rest.strip_prefix("Running "))
        .filter(|c| !c.trim().is_empty())
}

/// The command a background terminal line names (`• Waited for background
/// terminal · CMD`, `↳ Interacted with background terminal · CMD`).
fn background_of(line: &str) -> Option<&str> {
    let at = line.find("background terminal · ")?;
    let head = &line[..at];
    (head.starts_with("• Waited for") || head.starts_with("↳ Interacted with"))
        .then(|| &line[at + "background terminal · ".len()..])
}

/// Lines of the interface itself, never the agent's words.
fn is_chrome(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty()
        || trimmed.starts_with(['╭', '│', '╰', '─', '■'])
        || trimmed.starts_with("Tip: ")
        || trimmed.starts_with("✔ You approved")
        || trimmed.starts_with("✗ You ")
        || trimmed.starts_with("• Worked for")
        || trimmed.starts_with("─ Worked for")
        || trimmed.starts_with("Token usage:")
        || trimmed.starts_with("To continue this session")
}

/// Reads the rendering into prose, commands and their outputs.
pub fn parse(text: &str, source: usize) -> Parsed {
    let lines: Vec<(usize, &str)> = lines_with_offsets(text).collect();
    let mut parsed = Parsed::default();
    let span = |from: usize, to: usize| Span::of_lines(&lines, source, from, to);
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].1;
        if let Some(command) = command_of(line).or_else(|| background_of(line)) {
            let polled = background_of(line).is_some();
            // The command's own further lines: `│` lines, or a wrap of a
            // long command onto unindented lines before its result.
            let mut text = command.to_owned();
            let mut end = index;
            while let Some(&(_, next)) = lines.get(end + 1) {
                if let Some(more) = next
                    .strip_prefix("  │ ")
                    .or_else(|| next.strip_prefix("  │"))
                {
                    text.push('\n');
                    text.push_str(more);
                } else if !next.is_empty()
                    && !next.starts_with([' ', '•', '◦', '›', '↳', '─', '✔', '✗', '■'])
                    && lines
                        .get(end + 2)
                        .is_some_and(|(_, after)| after.starts_with("  └") || after.is_empty())
                {
                    text.push(' ');
                    text.push_str(next);
                } else {
                    break;
                }
                end += 1;
            }
            let command_event = parsed.events.len();
            parsed.events.push(Event {
                span: span(index, end),
                kind: EventKind::Command {
                    text: if polled {
                        format!("{} {text}", super::claude_code::SHELL_OUTPUT)
                    } else {
                        text
                    },
                    actor: Actor::Agent,
                    prompt_host: None,
                    time: None,
                    background: false,
                },
            });
            // Its output: `└ first line`, then lines indented four columns.
            let mut output = String::new();
            let mut out_from = None;
            let mut out_end = end;
            while let Some(&(_, next)) = lines.get(out_end + 1) {
                let piece = if out_from.is_none() {
                    next.strip_prefix("  └ ")
                        .or_else(|| (next == "  └").then_some(""))
                } else {
                    next.strip_prefix("    ")
                };
                let Some(piece) = piece else {
                    break;
                };
                if out_from.is_some() {
                    output.push('\n');
                }
                out_from.get_or_insert(out_end + 1);
                output.push_str(piece);
                out_end += 1;
            }
            if let Some(from) = out_from {
                // A run the user stopped with Ctrl-C ends in `^C`: killed
                // by SIGINT, as a shell's status says (130).
                let interrupted = output.lines().last().is_some_and(|l| l.trim() == "^C");
                let shown = if output.trim() == "(no output)" {
                    String::new()
                } else {
                    output
                };
                parsed.events.push(Event {
                    span: span(from, out_end),
                    kind: EventKind::Output {
                        command: command_event,
                        text: Some(shown),
                        exit_code: interrupted.then_some(130),
                        is_error: interrupted,
                    },
                });
            }
            index = out_end + 1;
            continue;
        }
        if let Some(said) = line.strip_prefix("› ").or_else(|| line.strip_prefix("• ")) {
            let role = if line.starts_with('›') {
                Role::User
            } else {
                Role::Assistant
            };
            // Items that are not words: file reads and edits, with their
            // `└` lines.
            let tool = role == Role::Assistant
                && [
                    "Explored",
                    "Edited ",
                    "Added ",
                    "Deleted ",
                    "Updated Plan",
                    "Called ",
                ]
                .iter()
                .any(|w| said.starts_with(w))
                || is_chrome(line);
            let mut words = said.to_owned();
            let mut end = index;
            while let Some(&(_, next)) = lines.get(end + 1) {
                let Some(more) = next.strip_prefix("  ") else {
                    break;
                };
                if !tool {
                    words.push('\n');
                    words.push_str(more.trim_start_matches("└ "));
                }
                end += 1;
            }
            if !tool && !words.trim().is_empty() {
                parsed.events.push(Event {
                    span: span(index, end),
                    kind: EventKind::Prose {
                        role,
                        text: Some(words),
                    },
                });
            } else if tool {
                parsed.events.push(Event {
                    span: span(index, end),
                    kind: EventKind::Unrecognized,
                });
            }
            index = end + 1;
            continue;
        }
        if !is_chrome(line) {
            parsed.events.push(Event {
                span: span(index, index),
                kind: EventKind::Unrecognized,
            });
        }
        index += 1;
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text, .. } => Some(format!("cmd {text}")),
                EventKind::Output { command, text, .. } => {
                    Some(format!("out {command} {}", text.as_deref().unwrap_or("")))
                }
                EventKind::Prose { role, text } => {
                    Some(format!("prose {role:?} {}", text.as_deref().unwrap_or("")))
                }
                _ => None,
            })
            .collect()
    }

    /// Lines of real 0.128 and 0.140 renderings, shortened.
    #[test]
    fn commands_outputs_and_words() {
        let text = "╭──────────────────────╮\n│ >_ OpenAI Codex (v0.140.0) │\n╰──────────────────────╯\n\n› ok, let's begin!\n\n• Before anything else I'll read the skill, so its\n  rules apply from the first step.\n\n• Explored\n  └ Read SKILL.md (viberate skill)\n\n• Ran python3 -m http.server 8791\n  └ Traceback (most recent call last):\n      File \"/usr/lib/python3.10/runpy.py\", line 196, in _run_module_as_main\n    … +10 lines (ctrl + t to view transcript)\n    PermissionError: [Errno 1] Operation not permitted\n\n✔ You approved codex to always run commands that start with python3 -m http.server\n\n◦ Running python3 -m http.server 8791\n\n• Ran python3 -c '\n  │ import json\n  │ … +23 lines\n  └ ok\n\n• Ran curl -s http://localhost:8077/api/config\n  └ (no output)\n\n• Waited for background terminal · HERMES_HOME=/h /v/bin/uvicorn main:app --host\n0.0.0.0 --port 8077\n\n• The server is up on 8791.\n";
        assert!(looks_like(text));
        assert_eq!(
            events(text),
            [
                "prose User ok, let's begin!",
                "prose Assistant Before anything else I'll read the skill, so its\nrules apply from the first step.",
                "cmd python3 -m http.server 8791",
                "out 3 Traceback (most recent call last):\n  File \"/usr/lib/python3.10/runpy.py\", line 196, in _run_module_as_main\n… +10 lines (ctrl + t to view transcript)\nPermissionError: [Errno 1] Operation not permitted",
                "cmd python3 -m http.server 8791",
                "cmd python3 -c '\nimport json\n… +23 lines",
                "out 6 ok",
                "cmd curl -s http://localhost:8077/api/config",
                "out 8 ",
                "cmd BashOutput HERMES_HOME=/h /v/bin/uvicorn main:app --host 0.0.0.0 --port 8077",
                "prose Assistant The server is up on 8791.",
            ]
        );
        assert_eq!(super::super::detect(text), super::super::Format::PastedText);
        // A run stopped with Ctrl-C ends killed by SIGINT.
        let stopped = "• Ran uvicorn main:app --port 8077\n  └ INFO:     Uvicorn running on http://0.0.0.0:8077 (Press CTRL+C to quit)\n    ^C\n";
        let parsed = parse(stopped, 0);
        assert!(matches!(
            parsed.events[1].kind,
            EventKind::Output {
                exit_code: Some(130),
                ..
            }
        ));
        // A Claude Code rendering or a plain log is not Codex's.
        assert!(!looks_like("⏺ Bash(ls)\n  ⎿  a\n"));
        assert!(!looks_like(
            "INFO:     Uvicorn running on http://0.0.0.0:8000\n"
        ));
    }
}

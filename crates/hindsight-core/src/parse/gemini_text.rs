//! Gemini CLI's terminal rendering, pasted as text: what a user copies from
//! the TUI into an issue or a chat.
//!
//! ```text
//! ╭──────────────────────────────────────╮
//! │  > start the dev server              │
//! ╰──────────────────────────────────────╯
//!
//! ✦ I'll start it in the background.
//!
//!  ╭────────────────────────────────────────────────────────╮
//!  │ ✔  Shell python manage.py runserver & (Start the server) │
//!  │                                                        │
//!  │    Watching for file changes with StatReloader         │
//!  ╰────────────────────────────────────────────────────────╯
//! ```
//!
//! The user's message is a box whose line opens with `>`; the assistant's
//! words open with `✦` (its wrapped lines indented two columns); a tool
//! call is a box whose first line is a status glyph (`✔` done, `✗`/`x`
//! failed, `⊷`/`o` running, `?` awaiting approval), the tool's name and
//! its argument. For `Shell` the argument is the command, then the
//! description in brackets, and the box's further lines are its output.
//! Other tools (`ReadFile`, `Edit`, `WriteFile`, `GoogleSearch`) are kept as
//! lines of no meaning. A copy often loses a box's right border or its
//! corner; only the left `│` is relied on.

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// Status glyphs a tool box's first line opens with.
const STATUS: &[&str] = &["✔", "✗", "x", "⊷", "o", "?", "-"];

/// Whether a pasted text is Gemini CLI's terminal rendering: the
/// assistant's `✦` words and a tool box.
pub fn looks_like(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let words = head.lines().filter(|l| l.starts_with("✦ ")).count();
    let tools = head.lines().filter(|l| tool_line(l).is_some()).count();
    words >= 1 && tools >= 1
}

/// A box line's content, after the left border.
fn boxed(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix('│')
        .map(|rest| rest.trim_end().strip_suffix('│').unwrap_or(rest.trim_end()))
}

/// `│ ✔  Shell CMD (description) │` → (status, tool, argument).
fn tool_line(line: &str) -> Option<(&str, &str, &str)> {
    let content = boxed(line)?.trim_start();
    let status = STATUS.iter().find(|s| content.starts_with(*s))?;
    let rest = content[status.len()..].strip_prefix("  ")?;
    let (tool, argument) = rest.split_once(' ').unwrap_or((rest, ""));
    let named = tool.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && tool.chars().all(|c| c.is_ascii_alphanumeric());
    named.then_some((*status, tool, argument.trim()))
}

/// A shell call's command: its argument without the description the model
/// gave it, in brackets at the end.
fn command_of(argument: &str) -> &str {
    if argument.ends_with(')')
        && let Some(open) = argument.rfind(" (")
    {
        return argument[..open].trim_end();
    }
    argument
}

/// Reads the rendering into words, commands and their outputs.
pub fn parse(text: &str, source: usize) -> Parsed {
    let lines: Vec<(usize, &str)> = lines_with_offsets(text).collect();
    let mut parsed = Parsed::default();
    let span = |from: usize, to: usize| Span::of_lines(&lines, source, from, to);
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].1;
        if let Some((status, tool, argument)) = tool_line(line) {
            // The box's other lines, to its bottom.
            let mut end = index;
            let mut output: Vec<&str> = Vec::new();
            while let Some(&(_, next)) = lines.get(end + 1) {
                let Some(content) = boxed(next) else {
                    break;
                };
                output.push(content.strip_prefix("    ").unwrap_or(content.trim_start()));
                end += 1;
            }
            if lines
                .get(end + 1)
                .is_some_and(|(_, l)| l.trim_start().starts_with('╰'))
            {
                end += 1;
            }
            if tool == "Shell" && !argument.is_empty() {
                let command = command_of(argument).to_owned();
                let event = parsed.events.len();
                parsed.events.push(Event {
                    span: span(index, index),
                    kind: EventKind::Command {
                        background: command.trim_end().ends_with('&'),
                        text: command,
                        actor: Actor::Agent,
                        prompt_host: None,
                        time: None,
                    },
                });
                let body = output.join("\n").trim().to_owned();
                // A box with no lines under the call: the tool showed no output.
                if !output.is_empty() {
                    parsed.events.push(Event {
                        span: span(index + 1, end),
                        kind: EventKind::Output {
                            command: event,
                            text: Some(body),
                            exit_code: None,
                            is_error: matches!(status, "✗" | "x"),
                        },
                    });
                }
            } else {
                parsed.events.push(Event {
                    span: span(index, end),
                    kind: EventKind::Unrecognized,
                });
            }
            index = end + 1;
            continue;
        }
        // The user's message: a box line opening with `>`.
        if let Some(said) = boxed(line).and_then(|c| c.trim_start().strip_prefix("> ")) {
            parsed.events.push(Event {
                span: span(index, index),
                kind: EventKind::Prose {
                    role: Role::User,
                    text: Some(said.trim().to_owned()),
                },
            });
            index += 1;
            continue;
        }
        if let Some(said) = line.strip_prefix("✦ ") {
            // Its paragraphs go on, indented, to the next item.
            let mut words = said.to_owned();
            let mut end = index;
            while let Some(&(_, next)) = lines.get(end + 1) {
                let structure =
                    next.starts_with("✦ ") || next.trim_start().starts_with(['╭', '│', '╰']);
                if structure || !(next.is_empty() || next.starts_with(' ')) {
                    break;
                }
                words.push('\n');
                words.push_str(next.trim());
                end += 1;
            }
            parsed.events.push(Event {
                span: span(index, end),
                kind: EventKind::Prose {
                    role: Role::Assistant,
                    text: Some(words.trim().to_owned()),
                },
            });
            index = end + 1;
            continue;
        }
        index += 1;
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of a real Gemini CLI rendering, shortened.
    #[test]
    fn words_and_shell_boxes() {
        let text = "╭──────────────╮\n│  > models are registered. what comes next?  │\n╰──────────────╯\n\n✦ We start with the superuser:\n\n  python manage.py createsuperuser\n\n ╭──────────────────────╮\n │ ✔  Shell python manage.py createsuperuser (Creating a superuser.)   │\n │                                                                   │\n │    Superuser creation skipped due to not running in a TTY.       │\n ╰──────────────────────╯\n✦ It needs a terminal.\n\n ╭──────────────────────\n │ ✔  Shell python manage.py runserver & (Starting the server in the background.)\n ╰──────────────────────\n ╭──────────────────────\n │ ✔  ReadFile mysite/settings.py\n ╰──────────────────────\n✦ The Django development server is running in the background now.\n";
        assert!(looks_like(text));
        let events: Vec<String> = parse(text, 0)
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command {
                    text, background, ..
                } => Some(format!(
                    "cmd{} {text}",
                    if *background { " bg" } else { "" }
                )),
                EventKind::Output { command, text, .. } => {
                    Some(format!("out {command} {}", text.as_deref().unwrap_or("")))
                }
                EventKind::Prose { role, text } => {
                    Some(format!("prose {role:?} {}", text.as_deref().unwrap_or("")))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            events,
            [
                "prose User models are registered. what comes next?",
                "prose Assistant We start with the superuser:\n\npython manage.py createsuperuser",
                "cmd python manage.py createsuperuser",
                "out 2 Superuser creation skipped due to not running in a TTY.",
                "prose Assistant It needs a terminal.",
                "cmd bg python manage.py runserver &",
                "prose Assistant The Django development server is running in the background now.",
            ]
        );
        assert_eq!(super::super::detect(text), super::super::Format::PastedText);
    }
}

//! The Markdown a Cline-family agent exports a task as (Cline, Roo Code, Kilo
//! Code and their forks: SourceCraft Code Assistant, IBM Bob): `**User:**` /
//! `**Assistant:**` turns between `---` rules, the assistant's tool calls
//! written as XML and each result quoted back in the next user turn.
//!
//! ```text
//! **Assistant:**
//!
//! I'll start the server:
//!
//! <execute_command>
//! <command>uvicorn app.main:app --reload</command>
//! </execute_command>
//!
//! ---
//!
//! **User:**
//!
//! [execute_command for 'uvicorn app.main:app --reload'] Result:
//! Command executed in terminal  within working directory '/w'. Exit code: 0
//! Output:
//! INFO:     Uvicorn running on http://127.0.0.1:8000
//! ```
//!
//! `<execute_command>` is a shell command; its result (`Exit code: N`, then
//! `Output:`) is its output, matched by the command it quotes, else the
//! latest command waiting; `Command is still running in the user's
//! terminal` means it went on in the background. `<attempt_completion>`'s
//! `<result>` is the agent's closing claim, prose like its other words.
//! `<thinking>` is private reasoning, and `<environment_details>` the
//! editor's state: neither is anyone's words. Other tools' calls and results
//! (`read_file`, `write_to_file`) are kept as lines of no meaning.

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

/// Whether a pasted text is such an export.
pub fn looks_like(text: &str) -> bool {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    (head.contains("**Assistant:**") || head.contains("**User:**"))
        && (head.contains("<execute_command>") || head.contains("[execute_command for '"))
}

/// Tags whose whole block is no one's words.
const HIDDEN: &[&str] = &["thinking", "environment_details"];

/// The editor's state lists the terminals still running and what each
/// printed since the last look:
///
/// ```text
/// # Actively Running Terminals
/// ## Terminal 2 (Active)
/// ### Original command: `cd frontend && streamlit run app.py`
/// ### New Output
///   Local URL: http://localhost:8502
/// ```
///
/// That output is the running command's, the agent's view of it.
fn running_output(
    lines: &[(usize, &str)],
    from: usize,
    to: usize,
    source: usize,
    parsed: &mut Parsed,
) {
    let mut command: Option<usize> = None;
    let mut index = from;
    while index <= to {
        let trimmed = lines[index].1.trim();
        if let Some(original) = trimmed
            .strip_prefix("### Original command: `")
            .and_then(|r| r.strip_suffix('`'))
        {
            command = parsed.events.iter().rposition(
                |e| matches!(&e.kind, EventKind::Command { text, .. } if text == original),
            );
        } else if trimmed == "### New Output"
            && let Some(event) = command
        {
            let first = index + 1;
            let mut last = index;
            while last < to {
                let next = lines[last + 1].1.trim_start();
                if next.starts_with('#') || next.starts_with("</environment_details>") {
                    break;
                }
                last += 1;
            }
            while last > index && lines[last].1.trim().is_empty() {
                last -= 1;
            }
            let body: Vec<&str> = lines[first..=last.max(index)]
                .iter()
                .map(|(_, l)| *l)
                .collect();
            if last >= first && body.iter().any(|l| !l.trim().is_empty()) {
                parsed.events.push(Event {
                    span: Span::of_lines(lines, source, first, last),
                    kind: EventKind::Output {
                        command: event,
                        text: Some(body.join("\n")),
                        exit_code: None,
                        is_error: false,
                    },
                });
            }
            index = last;
        }
        index += 1;
    }
}

/// Reads the export into prose, commands and their outputs.
pub fn parse(text: &str, source: usize) -> Parsed {
    let lines: Vec<(usize, &str)> = lines_with_offsets(text).collect();
    let mut parsed = Parsed::default();
    let span = |from: usize, to: usize| Span::of_lines(&lines, source, from, to);
    let mut role = Role::Unknown;
    // Commands waiting for their result: (command text, event index).
    let mut waiting: Vec<(String, usize)> = Vec::new();
    // The prose being gathered: its first line and its text.
    let mut prose: Option<(usize, usize, String)> = None;
    let flush = |parsed: &mut Parsed, prose: &mut Option<(usize, usize, String)>, role: Role| {
        if let Some((from, to, words)) = prose.take()
            && !words.trim().is_empty()
        {
            parsed.events.push(Event {
                span: span(from, to),
                kind: EventKind::Prose {
                    role,
                    text: Some(words.trim().to_owned()),
                },
            });
        }
    };
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].1;
        let trimmed = line.trim();
        let marker = match trimmed {
            "**User:**" => Some(Role::User),
            "**Assistant:**" => Some(Role::Assistant),
            _ => None,
        };
        if let Some(next) = marker {
            flush(&mut parsed, &mut prose, role);
            role = next;
            index += 1;
            continue;
        }
        if trimmed == "---" {
            flush(&mut parsed, &mut prose, role);
            index += 1;
            continue;
        }
        // A hidden block: skipped to its closing tag.
        if let Some(tag) = HIDDEN
            .iter()
            .find(|t| trimmed.starts_with(&format!("<{t}>")))
        {
            flush(&mut parsed, &mut prose, role);
            let close = format!("</{tag}>");
            let mut end = index;
            while end + 1 < lines.len() && !lines[end].1.contains(&close) {
                end += 1;
            }
            if *tag == "environment_details" {
                running_output(&lines, index, end, source, &mut parsed);
            }
            index = end + 1;
            continue;
        }
        if trimmed.starts_with("<execute_command>") && role == Role::Assistant {
            flush(&mut parsed, &mut prose, role);
            let mut end = index;
            let mut block = String::new();
            while end < lines.len() {
                block.push_str(lines[end].1);
                block.push('\n');
                if lines[end].1.contains("</execute_command>") {
                    break;
                }
                end += 1;
            }
            let end = end.min(lines.len() - 1);
            if let Some(command) = between(&block, "<command>", "</command>") {
                let command = command.trim().to_owned();
                let event = parsed.events.len();
                parsed.events.push(Event {
                    span: span(index, end),
                    kind: EventKind::Command {
                        text: command.clone(),
                        actor: Actor::Agent,
                        prompt_host: None,
                        time: None,
                        background: false,
                    },
                });
                waiting.push((command, event));
            }
            index = end + 1;
            continue;
        }
        if let Some(quoted) = trimmed
            .strip_prefix("[execute_command for '")
            .and_then(|rest| rest.strip_suffix("'] Result:"))
        {
            flush(&mut parsed, &mut prose, role);
            // The result's lines: up to the turn's end.
            let mut end = index;
            while end + 1 < lines.len() {
                let next = lines[end + 1].1.trim();
                if next == "---"
                    || next == "**User:**"
                    || next == "**Assistant:**"
                    || next.starts_with("<environment_details>")
                {
                    break;
                }
                end += 1;
            }
            let body: Vec<&str> = lines[index + 1..=end].iter().map(|(_, l)| *l).collect();
            let at = waiting
                .iter()
                .rposition(|(command, _)| command == quoted)
                .or_else(|| waiting.len().checked_sub(1));
            if let Some(at) = at {
                let (_, command) = waiting.remove(at);
                let (output, exit_code, running) = result(&body);
                if running
                    && let Some(EventKind::Command { background, .. }) =
                        parsed.events.get_mut(command).map(|e| &mut e.kind)
                {
                    *background = true;
                }
                parsed.events.push(Event {
                    span: span(index, end),
                    kind: EventKind::Output {
                        command,
                        text: Some(output),
                        exit_code,
                        is_error: exit_code.is_some_and(|c| c != 0),
                    },
                });
            }
            index = end + 1;
            continue;
        }
        // Another tool's call or result: nothing of it is read.
        if trimmed.starts_with('[') && trimmed.ends_with("] Result:")
            || trimmed.starts_with('<')
                && !trimmed.starts_with("<attempt_completion>")
                && !trimmed.starts_with("<result>")
                && !trimmed.starts_with("</")
                && !trimmed.starts_with("<task>")
        {
            flush(&mut parsed, &mut prose, role);
            parsed.events.push(Event {
                span: span(index, index),
                kind: EventKind::Unrecognized,
            });
            index += 1;
            continue;
        }
        // Words: the agent's (its completion's `<result>` too) or the user's.
        let words = trimmed
            .trim_start_matches("<attempt_completion>")
            .trim_start_matches("<result>")
            .trim_start_matches("<task>")
            .trim_end_matches("</attempt_completion>")
            .trim_end_matches("</result>")
            .trim_end_matches("</task>");
        if !words.trim().is_empty() {
            match prose.as_mut() {
                Some((_, to, text)) => {
                    *to = index;
                    text.push('\n');
                    text.push_str(words);
                }
                None => prose = Some((index, index, words.to_owned())),
            }
        }
        index += 1;
    }
    flush(&mut parsed, &mut prose, role);
    parsed
}

/// The text between two markers.
fn between<'t>(text: &'t str, open: &str, close: &str) -> Option<&'t str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

/// A command's result: its output (after `Output:`), its exit code, and
/// whether it was still running.
fn result(body: &[&str]) -> (String, Option<i32>, bool) {
    let mut exit_code = None;
    let mut running = false;
    let mut output: Vec<&str> = Vec::new();
    let mut in_output = false;
    for line in body {
        if in_output {
            output.push(line);
            continue;
        }
        let trimmed = line.trim();
        if let Some(at) = trimmed.find("Exit code: ") {
            exit_code = trimmed[at + "Exit code: ".len()..]
                .trim_end_matches('.')
                .trim()
                .parse()
                .ok();
        }
        if trimmed.contains("still running in the user's terminal") {
            running = true;
        }
        if trimmed == "Output:" || trimmed.starts_with("Here's the output so far:") {
            in_output = true;
        }
    }
    (output.join("\n").trim_end().to_owned(), exit_code, running)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command {
                    text, background, ..
                } => Some(format!(
                    "cmd{} {text}",
                    if *background { " bg" } else { "" }
                )),
                EventKind::Output {
                    command,
                    text,
                    exit_code,
                    ..
                } => Some(format!(
                    "out {command} {exit_code:?} {}",
                    text.as_deref().unwrap_or("")
                )),
                EventKind::Prose { role, text } => {
                    Some(format!("prose {role:?} {}", text.as_deref().unwrap_or("")))
                }
                _ => None,
            })
            .collect()
    }

    /// The shapes of a real Roo Code fork's and IBM Bob's exports, shortened.
    #[test]
    fn turns_commands_results_and_the_completion() {
        let text = "**User:**\n\n<task>\nadd GET /questions\n</task>\n<environment_details>\n# VSCode Visible Files\napp/main.py\n</environment_details>\n\n---\n\n**Assistant:**\n\n<thinking>private</thinking>\nI'll launch the server:\n\n<execute_command>\n<command>uvicorn app.main:app --reload</command>\n</execute_command>\n\n---\n\n**User:**\n\n[execute_command for 'uvicorn app.main:app --reload'] Result:\nCommand is still running in the user's terminal.\nHere's the output so far:\nINFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n\n---\n\n**Assistant:**\n\n<execute_command>\n<command>npm run dev</command>\n</execute_command>\n\n---\n\n**User:**\n\n[execute_command for 'npm run dev'] Result:\nCommand executed in terminal  within working directory '/w'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\n\n> next dev\n\n---\n\n**Assistant:**\n\n<attempt_completion>\n<result>\nThe endpoint works fully.\n</result>\n</attempt_completion>\n";
        assert!(looks_like(text));
        assert_eq!(
            events(text),
            [
                "prose User add GET /questions",
                "prose Assistant I'll launch the server:",
                "cmd bg uvicorn app.main:app --reload",
                "out 2 None INFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)",
                "cmd npm run dev",
                "out 4 Some(1) \n> next dev",
                "prose Assistant The endpoint works fully.",
            ]
        );
    }

    /// The editor's list of running terminals carries what a background
    /// command printed since: that output is the command's.
    #[test]
    fn running_terminals_output_is_the_commands() {
        let text = "**Assistant:**\n\n<execute_command>\n<command>cd frontend && streamlit run app.py</command>\n</execute_command>\n\n---\n\n**User:**\n\n[execute_command for 'cd frontend && streamlit run app.py'] Result:\nCommand is still running in the user's terminal.\n\n<environment_details>\n# Actively Running Terminals\n## Terminal 2 (Active)\n### Original command: `cd frontend && streamlit run app.py`\n### New Output\n  You can now view your Streamlit app in your browser.\n  Local URL: http://localhost:8502\n\n# Current Time\n12/5/2025\n</environment_details>\n";
        let e = events(text);
        assert!(
            e.iter().any(|l| l.starts_with("out 0 None")
                && l.contains("Local URL: http://localhost:8502")
                && !l.contains("Current Time")),
            "{e:?}"
        );
        // No running terminal named: nothing is invented.
        let plain = text.replace(
            "### Original command: `cd frontend && streamlit run app.py`\n",
            "",
        );
        assert!(
            !events(&plain).iter().any(|l| l.contains("Local URL")),
            "{:?}",
            events(&plain)
        );
    }
}

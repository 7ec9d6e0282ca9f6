//! Pasted chat and terminal text: `[msg N]` dumps, `Human:`/`Assistant:`
//! turns, fenced code blocks and terminal captures with shell prompts.
//!
//! Pasted text has no schema, so this parser recognises a few line shapes and
//! keeps everything else: a prompt line (`$ cmd`, `user@host:~$ cmd`) starts a
//! command; the lines after it, up to the next prompt, message marker or
//! closing fence, are its output; other lines are prose of the current message.

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::diagnostic::Diagnostic;
use crate::re::regex;
use crate::source::{Span, lines_with_offsets};

regex!(
    MARKER,
    r"(?i-u)^(?:\[msg (\d+)\](?:\s*\[?(user|assistant|human|system|tool|ai)\]?:?)?|#{0,3}\s*\**(human|assistant|user|ai)\**:)"
);
regex!(
    PROMPT,
    r"^(?-u:(?:\([\w.-]+\)\s+)?)(?:\[?(?-u:([\w.-]+@[\w.-]+))(?::[^\t\n\x0B\x0C\r $#]*|(?-u:\s+)[^\]\t\n\x0B\x0C\r ]+\])?(?-u:\s?)[$#]|\$)(?:(?-u:\s)(.*))?$"
);

/// Whether a line starts a message (`[msg 12] assistant`, `Human:`, `**Assistant**:`).
pub fn is_message_marker(line: &str) -> bool {
    MARKER.as_ref().is_some_and(|re| re.is_match(line))
}

/// A shell prompt line: the host it names (if any) and where the command
/// starts. The command may be empty: a bare prompt ends the previous output.
pub fn prompt(line: &str) -> Option<(Option<String>, usize)> {
    let captures = PROMPT.as_ref()?.captures(line)?;
    let command_start = captures.get(2).map_or(line.len(), |m| m.start());
    Some((
        captures.get(1).map(|m| m.as_str().to_owned()),
        command_start,
    ))
}

struct OpenCommand {
    event: usize,
    output: Option<Span>,
    /// Claude Code's terminal rendering: output lines carry `⎿` and an
    /// indent that are not part of the output, so it is kept decoded.
    tui: Option<TuiOutput>,
}

#[derive(Default)]
struct TuiOutput {
    text: String,
    exit_code: Option<i32>,
    is_error: bool,
}

/// The glyph Claude Code puts before tool calls and replies (macOS, Linux).
const TUI_GLYPHS: &[char] = &['⏺', '●'];

/// `⏺ Bash(cmd…` → (`Bash`, `cmd…`); the tool name must be capitalised.
fn tui_tool(trimmed: &str) -> Option<(&str, &str)> {
    let rest = trimmed.trim_start_matches(TUI_GLYPHS).trim_start();
    let open = rest.find('(')?;
    let name = &rest[..open];
    let valid = !name.is_empty()
        && name.len() <= 40
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == ' ');
    (valid && (trimmed.starts_with(TUI_GLYPHS) || name == "Bash"))
        .then(|| (name, &rest[open + 1..]))
}

/// Whether a wrapped `Bash(…)` call is complete: its parentheses balance.
fn parens_closed(text: &str) -> bool {
    let mut depth = 1i32;
    let mut single = false;
    let mut double = false;
    for c in text.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '(' if !single && !double => depth += 1,
            ')' if !single && !double => depth -= 1,
            _ => {}
        }
    }
    depth <= 0
}

/// Parses pasted text into message, prose, command and output events.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let mut role = Role::Unknown;
    let mut open: Option<OpenCommand> = None;
    let mut in_fence = false;
    // Claude Code's terminal rendering changes what `> ` and indents mean.
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let mut tui_mode = head.contains('⎿') || head.contains("⏺ ");
    let mut skipping_results = false;
    let mut lines = lines_with_offsets(text).peekable();

    while let Some((offset, line)) = lines.next() {
        let span = Span::new(source, offset, offset + line.len());
        let trimmed = line.trim_start();

        if trimmed.starts_with("```") {
            close(&mut parsed, &mut open);
            in_fence = !in_fence;
            continue;
        }
        if let Some((name, rest)) = tui_tool(trimmed) {
            close(&mut parsed, &mut open);
            tui_mode = true;
            if name != "Bash" {
                // Read, Update, Task…: not shell commands; skip their results.
                skipping_results = true;
                continue;
            }
            skipping_results = false;
            let mut command = rest.to_owned();
            let mut end = offset + line.len();
            let mut joined = 0;
            // The UI hard-wraps long commands at the terminal width and keeps
            // the spaces at the break, so the lines join without adding any.
            while !parens_closed(&command) && joined < 200 {
                let Some((next_offset, next)) = lines.next() else {
                    break;
                };
                command.push_str(next.trim_start());
                end = next_offset + next.len();
                joined += 1;
            }
            let command = command.trim_end();
            let command = command.strip_suffix(')').unwrap_or(command).to_owned();
            let event = parsed.events.len();
            parsed.events.push(Event {
                span: Span::new(source, offset, end),
                kind: EventKind::Command {
                    text: command,
                    actor: Actor::Agent,
                    prompt_host: None,
                    time: None,
                    background: false,
                },
            });
            open = Some(OpenCommand {
                event,
                output: None,
                tui: Some(TuiOutput::default()),
            });
            continue;
        }
        if tui_mode {
            let result = trimmed.strip_prefix('⎿').map(str::trim_start);
            if let Some(tui) = open
                .as_mut()
                .and_then(|o| o.tui.as_mut().map(|t| (o.output, t)))
            {
                let (output, output_text) = tui;
                // Results start with `⎿`; their further lines are indented.
                let continues = output.is_some() && line.starts_with("     ");
                if let Some(text_line) = result.or(continues.then_some(trimmed)) {
                    if let Some(collapsed) = text_line
                        .strip_prefix("… +")
                        .and_then(|r| r.split_whitespace().next())
                    {
                        parsed.diagnostics.push(Diagnostic::info(
                            source,
                            Some(line_number(text, offset)),
                            format!("{collapsed} output lines were collapsed in the paste; the agent saw them, this analysis cannot"),
                        ));
                    } else {
                        if output_text.text.is_empty() {
                            let (code, error) = tui_exit_code(text_line);
                            output_text.exit_code = code;
                            output_text.is_error = error;
                        }
                        if !output_text.text.is_empty() {
                            output_text.text.push('\n');
                        }
                        output_text.text.push_str(text_line);
                    }
                    if let Some(command) = open.as_mut() {
                        command.output = Some(command.output.map_or(span, |o| o.cover(span)));
                    }
                    continue;
                }
            } else if skipping_results && (result.is_some() || line.starts_with("     ")) {
                continue;
            }
            if let Some(reply) = trimmed.strip_prefix(TUI_GLYPHS) {
                close(&mut parsed, &mut open);
                skipping_results = false;
                let start = offset + (line.len() - reply.trim_start().len());
                if !reply.trim().is_empty() {
                    parsed.events.push(Event {
                        span: Span::new(source, start, span.end),
                        kind: EventKind::Prose {
                            role: Role::Assistant,
                            text: None,
                        },
                    });
                }
                continue;
            }
            if let Some(prompt_text) = line.strip_prefix("> ").or_else(|| line.strip_prefix("❯ "))
            {
                close(&mut parsed, &mut open);
                skipping_results = false;
                role = Role::User;
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Message { index: None, role },
                });
                let start = offset + (line.len() - prompt_text.len());
                parsed.events.push(Event {
                    span: Span::new(source, start, span.end),
                    kind: EventKind::Prose { role, text: None },
                });
                continue;
            }
        }
        if let Some((index, marker_role, marker_end)) = marker(trimmed) {
            close(&mut parsed, &mut open);
            in_fence = false;
            role = marker_role;
            parsed.events.push(Event {
                span,
                kind: EventKind::Message { index, role },
            });
            // `Assistant: Starting the server.` carries prose on the marker line.
            let rest_start = offset + (line.len() - trimmed.len()) + marker_end;
            let rest = &text[rest_start..span.end];
            let leading = rest.len() - rest.trim_start().len();
            if !rest.trim().is_empty() {
                parsed.events.push(Event {
                    span: Span::new(source, rest_start + leading, span.end),
                    kind: EventKind::Prose { role, text: None },
                });
            }
            continue;
        }
        if let Some((prompt_host, command_start)) = prompt(line) {
            close(&mut parsed, &mut open);
            if line[command_start..].trim().is_empty() {
                continue;
            }
            let mut command = line[command_start..].to_owned();
            let mut end = offset + line.len();
            // Join continuation lines (`\`, open quotes, a trailing `&&`).
            let mut joined = 0;
            while needs_continuation(&command) && joined < 200 {
                let Some((next_offset, next)) = lines.next() else {
                    break;
                };
                command.push('\n');
                command.push_str(next.strip_prefix("> ").unwrap_or(next));
                end = next_offset + next.len();
                joined += 1;
            }
            let event = parsed.events.len();
            parsed.events.push(Event {
                span: Span::new(source, offset, end),
                kind: EventKind::Command {
                    text: command,
                    actor: if role == Role::User {
                        Actor::Human
                    } else {
                        Actor::Agent
                    },
                    prompt_host,
                    time: None,
                    background: false,
                },
            });
            open = Some(OpenCommand {
                event,
                output: None,
                tui: None,
            });
            continue;
        }
        if let Some(command) = open.as_mut().filter(|o| o.tui.is_none()) {
            // Output runs to the next prompt or marker; blank lines inside it
            // belong to it, but trailing blank lines are trimmed on close.
            if !line.trim().is_empty() {
                command.output = Some(match command.output {
                    Some(output) => output.cover(span),
                    None => span,
                });
            } else if command.output.is_none() {
                // Leading blank lines are not output.
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        parsed.events.push(Event {
            span,
            kind: if in_fence {
                EventKind::Unrecognized
            } else {
                EventKind::Prose { role, text: None }
            },
        });
    }
    close(&mut parsed, &mut open);
    parsed
}

fn close(parsed: &mut Parsed, open: &mut Option<OpenCommand>) {
    if let Some(OpenCommand {
        event,
        output: Some(span),
        tui,
    }) = open.take()
    {
        let (text, exit_code, is_error) = match tui {
            Some(tui) => (Some(tui.text), tui.exit_code, tui.is_error),
            None => (None, None, false),
        };
        parsed.events.push(Event {
            span,
            kind: EventKind::Output {
                command: event,
                text,
                exit_code,
                is_error,
            },
        });
    }
}

/// `Error: Exit code 1` / `Exit code 1` on a result's first line.
fn tui_exit_code(first: &str) -> (Option<i32>, bool) {
    let error = first.starts_with("Error");
    let code = first
        .trim_start_matches("Error: ")
        .strip_prefix("Exit code ")
        .and_then(|c| c.trim().parse().ok());
    (code, error || code.is_some_and(|c| c != 0))
}

fn line_number(text: &str, offset: usize) -> u32 {
    let before = &text.as_bytes()[..offset.min(text.len())];
    u32::try_from(before.iter().filter(|&&b| b == b'\n').count() + 1).unwrap_or(u32::MAX)
}

fn marker(line: &str) -> Option<(Option<u64>, Role, usize)> {
    let captures = MARKER.as_ref()?.captures(line)?;
    let end = captures.get(0).map_or(0, |m| m.end());
    let index = captures.get(1).and_then(|m| m.as_str().parse().ok());
    let role_word = captures
        .get(2)
        .or_else(|| captures.get(3))
        .map(|m| m.as_str().to_ascii_lowercase());
    let role = match role_word.as_deref() {
        Some("user" | "human") => Role::User,
        Some("assistant" | "ai") => Role::Assistant,
        _ => Role::Unknown,
    };
    Some((index, role, end))
}

/// Whether a command line goes on to the next line.
fn needs_continuation(command: &str) -> bool {
    let trimmed = command.trim_end();
    if trimmed.ends_with("&&") || trimmed.ends_with("||") || trimmed.ends_with('|') {
        return true;
    }
    let mut single = false;
    let mut double = false;
    let mut escaped = false;
    for c in command.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    single || double || escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Message { index, .. } => format!("msg {index:?}"),
                EventKind::Prose { .. } => format!("prose {}", &text[e.span.start..e.span.end]),
                EventKind::Command {
                    text, prompt_host, ..
                } => {
                    format!("cmd {text} @{prompt_host:?}")
                }
                EventKind::Output { command, .. } => {
                    format!("out of {command}: {}", &text[e.span.start..e.span.end])
                }
                EventKind::Log(_) | EventKind::Unrecognized | EventKind::FileWrite { .. } => {
                    "other".to_owned()
                }
            })
            .collect()
    }

    #[test]
    fn patterns_compile() {
        assert!(MARKER.is_some() && PROMPT.is_some());
    }

    #[test]
    fn messages_commands_and_outputs() {
        let text = "[msg 7] assistant\nChecking.\n$ tail -2 x.log\nline one\n\nline two\n\n[msg 8] user\nok\n";
        assert_eq!(
            kinds(text),
            [
                "msg Some(7)",
                "prose Checking.",
                "cmd tail -2 x.log @None",
                "out of 2: line one\n\nline two",
                "msg Some(8)",
                "prose ok",
            ]
        );
    }

    #[test]
    fn prompts_with_hosts_and_continuations() {
        let text = "root@gpu-1:/data# python -m sglang.launch_server \\\n  --port 30000\n(venv) me@box:~/x$ echo 'a\nb'\na\nb\n";
        let k = kinds(text);
        assert_eq!(
            k[0],
            "cmd python -m sglang.launch_server \\\n  --port 30000 @Some(\"root@gpu-1\")"
        );
        assert_eq!(k[1], "cmd echo 'a\nb' @Some(\"me@box\")");
        assert_eq!(k[2], "out of 1: a\nb");
    }

    #[test]
    fn claude_code_terminal_rendering() {
        let text = "> start the server\n\n⏺ I'll launch it.\n\n⏺ Bash(ssh gpu1 'nohup python -m sglang.launch_server --model-path /models/some-long-directory-na\n      me/app --port 30000 > /x.log 2>&1 &')\n  ⎿  (No content)\n\n⏺ Read(notes.md)\n  ⎿  Read 24 lines\n\n● Bash(curl -s localhost:30000/health)\n  ⎿  Error: Exit code 7\n     curl: (7) Failed to connect\n     … +42 lines (ctrl+r to expand)\n";
        let parsed = parse(text, 0);
        let k = kinds(text);
        assert_eq!(k[0], "msg None");
        assert_eq!(k[1], "prose start the server");
        assert_eq!(k[2], "prose I'll launch it.");
        assert_eq!(
            k[3],
            "cmd ssh gpu1 'nohup python -m sglang.launch_server --model-path /models/some-long-directory-name/app --port 30000 > /x.log 2>&1 &' @None"
        );
        let outputs: Vec<_> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Output {
                    text,
                    exit_code,
                    is_error,
                    ..
                } => Some((text.clone(), *exit_code, *is_error)),
                _ => None,
            })
            .collect();
        assert_eq!(outputs[0], (Some("(No content)".into()), None, false));
        assert_eq!(
            outputs[1],
            (
                Some("Error: Exit code 7\ncurl: (7) Failed to connect".into()),
                Some(7),
                true
            )
        );
        assert_eq!(outputs.len(), 2);
        assert!(
            parsed.diagnostics[0]
                .message
                .starts_with("42 output lines were collapsed")
        );
    }

    #[test]
    fn role_labels_and_fences() {
        let text = "Human: start it\n\nAssistant: Starting.\n```bash\n$ nvidia-smi\nNo running processes found\n```\nDone.\n";
        let k = kinds(text);
        assert_eq!(k[0], "msg None");
        assert_eq!(k[1], "prose start it");
        assert_eq!(k[2], "msg None");
        assert_eq!(k[3], "prose Starting.");
        assert_eq!(k[4], "cmd nvidia-smi @None");
        assert_eq!(k[5], "out of 4: No running processes found");
        assert_eq!(k[6], "prose Done.");
    }
}

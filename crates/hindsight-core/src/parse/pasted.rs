//! Pasted chat and terminal text: `[msg N]` dumps, `Human:`/`Assistant:`
//! turns, fenced code blocks and terminal captures with shell prompts.
//!
//! Pasted text has no schema, so this parser recognises a few line shapes and
//! keeps everything else: a prompt line (`$ cmd`, `user@host:~$ cmd`) starts a
//! command; the lines after it, up to the next prompt, message marker or
//! closing fence, are its output; other lines are prose of the current message.

use std::sync::LazyLock;

use regex::Regex;

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::source::{Span, lines_with_offsets};

static MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:\[msg (\d+)\](?:\s*\[?(user|assistant|human|system|tool|ai)\]?:?)?|#{0,3}\s*\**(human|assistant|user|ai)\**:)",
    )
    .ok()
});

static PROMPT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\([\w.-]+\)\s+)?(?:\[?([\w.-]+@[\w.-]+)(?::[^\s$#]*|\s+[^\]\s]+\])?\s?[$#]|\$)(?:\s(.*))?$",
    )
    .ok()
});

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
}

/// Parses pasted text into message, prose, command and output events.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let mut role = Role::Unknown;
    let mut open: Option<OpenCommand> = None;
    let mut in_fence = false;
    let mut lines = lines_with_offsets(text).peekable();

    while let Some((offset, line)) = lines.next() {
        let span = Span::new(source, offset, offset + line.len());
        let trimmed = line.trim_start();

        if trimmed.starts_with("```") {
            close(&mut parsed, &mut open);
            in_fence = !in_fence;
            continue;
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
                    kind: EventKind::Prose { role },
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
            });
            continue;
        }
        if let Some(command) = open.as_mut() {
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
                EventKind::Prose { role }
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
    }) = open.take()
    {
        parsed.events.push(Event {
            span,
            kind: EventKind::Output {
                command: event,
                text: None,
                exit_code: None,
                is_error: false,
            },
        });
    }
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
                EventKind::Log(_) | EventKind::Unrecognized => "other".to_owned(),
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

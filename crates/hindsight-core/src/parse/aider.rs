//! aider's `.aider.chat.history.md`: `#### ` lines are the user's input,
//! `> ` lines aider's own output, everything else the model's reply.
//!
//! Commands are what aider actually ran: `> Running CMD` after a suggested
//! shell block was accepted, and the user's `#### /run CMD` / `/test CMD` /
//! `!CMD`. aider does not store command output or exit codes; `> Added N
//! lines of output to the chat.` is all that is left, so outputs are empty
//! and a diagnostic says so once.

use super::{Actor, Event, EventKind, Parsed, Role};
use crate::diagnostic::Diagnostic;
use crate::source::{Span, lines_with_offsets};

/// Whether a text looks like an aider chat history (for detection), also
/// one kept inside another Markdown file, where the header is quoted and
/// escaped (`> \# aider chat started at …`).
pub fn looks_like(head: &str) -> bool {
    head.lines().take(50).any(|l| header(l).is_some())
}

/// The session header, plain or quoted and escaped.
fn header(line: &str) -> Option<&str> {
    line.trim_start_matches(['>', ' '])
        .trim_start_matches('\\')
        .strip_prefix("# aider chat started at ")
}

/// A user's input line: `#### text`, or quoted in a document that holds
/// the history (`> ##### text`).
fn user_input(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("> ").unwrap_or(line);
    rest.strip_prefix("##### ")
        .or_else(|| rest.strip_prefix("#### "))
}

/// Parses a chat history.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    let mut told = false;
    for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
        let span = Span::new(source, offset, offset + line.len());
        let content = line.trim_end();
        if let Some(started) = header(content) {
            parsed.events.push(Event {
                span,
                kind: EventKind::Message {
                    index: None,
                    role: Role::Unknown,
                },
            });
            let _ = started;
            continue;
        }
        let (command, actor) = if let Some(user) = user_input(content) {
            let user = user.trim();
            let run = user
                .strip_prefix("/run ")
                .or_else(|| user.strip_prefix("/test "))
                .or_else(|| user.strip_prefix('!'));
            match run {
                Some(command) => (Some(command.to_owned()), Actor::Human),
                None => {
                    if !user.is_empty() {
                        parsed.events.push(Event {
                            span,
                            kind: EventKind::Prose {
                                role: Role::User,
                                text: None,
                            },
                        });
                    }
                    continue;
                }
            }
        } else if let Some(tool) = content.strip_prefix("> ") {
            match tool.strip_prefix("Running ") {
                Some(command) => (Some(command.to_owned()), Actor::Agent),
                None => {
                    if tool.starts_with("Added ") && tool.contains("lines of output") && !told {
                        told = true;
                        parsed.diagnostics.push(Diagnostic::info(
                            source,
                            Some(u32::try_from(number + 1).unwrap_or(u32::MAX)),
                            "aider does not save command output or exit codes in its chat history; only that output was added",
                        ));
                    }
                    parsed.events.push(Event {
                        span,
                        kind: EventKind::Unrecognized,
                    });
                    continue;
                }
            }
        } else {
            if !content.trim().is_empty() {
                parsed.events.push(Event {
                    span,
                    kind: EventKind::Prose {
                        role: Role::Assistant,
                        text: None,
                    },
                });
            }
            continue;
        };
        if let Some(command) = command {
            parsed.events.push(Event {
                span,
                kind: EventKind::Command {
                    text: command,
                    actor,
                    prompt_host: None,
                    time: None,
                    background: false,
                },
            });
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ran_commands_and_user_runs() {
        let text = "# aider chat started at 2025-06-01 10:00:00\n\n#### start vllm  \n\nRun this:\n```bash\nvllm serve m --port 8000\n```\n> vllm serve m --port 8000  \n> Run shell command? (Y)es/(N)o [Yes]: y  \n> Running vllm serve m --port 8000  \n> Added 12 lines of output to the chat.  \n#### /run curl -s localhost:8000/v1/models  \n";
        let parsed = parse(text, 0);
        let commands: Vec<(String, Actor)> = parsed
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Command { text, actor, .. } => Some((text.clone(), *actor)),
                _ => None,
            })
            .collect();
        assert_eq!(
            commands,
            [
                ("vllm serve m --port 8000".to_owned(), Actor::Agent),
                ("curl -s localhost:8000/v1/models".to_owned(), Actor::Human)
            ]
        );
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(looks_like(text));
    }
}

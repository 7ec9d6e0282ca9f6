//! From text to events: format detection and one parser per input format.
//!
//! Parsing never fails. Every parser returns events plus diagnostics; lines it
//! does not understand are kept as [`EventKind::Unrecognized`] so nothing is
//! silently dropped. Parsers know nothing of checkpoints or rules.

pub mod logline;
pub mod pasted;
pub mod sglang_log;
pub mod shell;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Diagnostic;
use crate::source::{Source, SourceId, Span};

pub use logline::{FailureKind, LogLine, Signal};

/// An input format hindsight can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Pasted chat or terminal text: `[msg N]` markers, `$ ` prompts, output.
    PastedText,
    /// An SGLang server log.
    SglangLog,
}

impl Format {
    pub const ALL: &'static [Format] = &[Format::PastedText, Format::SglangLog];

    pub fn name(self) -> &'static str {
        match self {
            Format::PastedText => "pasted-text",
            Format::SglangLog => "sglang-log",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Whether the format stores text escaped inside JSON strings.
    pub fn is_json(self) -> bool {
        false
    }

    /// Whether this format is a server log (as opposed to a transcript).
    pub fn is_log(self) -> bool {
        matches!(self, Format::SglangLog)
    }
}

/// Who ran a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Agent,
    Human,
    Unknown,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    Unknown,
}

/// One thing that happened, with the bytes it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub span: Span,
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    /// The start of a message (`[msg 3131] assistant`).
    Message { index: Option<u64>, role: Role },
    /// Prose written by someone; its text is the span.
    Prose { role: Role },
    /// A shell command that was run.
    Command {
        /// The command text, continuation lines joined.
        text: String,
        actor: Actor,
        /// The host named by the terminal prompt (`root@gpu1:~#`), if any.
        prompt_host: Option<String>,
        /// When it was issued, as the transcript writes it.
        time: Option<String>,
        /// Started in the background (its output comes later, if ever).
        background: bool,
    },
    /// Output of the command event at index `command` (in the same event list).
    Output {
        command: usize,
        /// The decoded output when it is not literally in the source (JSON
        /// formats escape it); `None` means the span's text is the output.
        text: Option<String>,
        exit_code: Option<i32>,
        /// The tool reported an error (`is_error`), even without an exit code.
        is_error: bool,
    },
    /// A line of a server log.
    Log(LogLine),
    /// A line no rule of the format explains; kept so nothing is lost.
    Unrecognized,
}

/// The events of one source plus what went wrong reading it.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub events: Vec<Event>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Guesses a source's format from its first bytes.
pub fn detect(text: &str) -> Format {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    let mut log_lines = 0usize;
    let mut transcript_marks = 0usize;
    for line in head.lines().take(400) {
        let trimmed = line.trim_start();
        if pasted::is_message_marker(trimmed) || pasted::prompt(line).is_some() {
            transcript_marks += 1;
        }
        let stripped = logline::strip_ansi(trimmed);
        for segment in stripped.split('\r') {
            let classified = logline::classify(segment);
            if classified.time.is_some() || classified.signal.is_some() {
                log_lines += 1;
            }
        }
    }
    if log_lines > 0 && log_lines >= transcript_marks * 4 {
        Format::SglangLog
    } else {
        Format::PastedText
    }
}

/// Parses one source with the given format.
pub fn parse(source: &Source, id: SourceId, format: Format) -> Parsed {
    match format {
        Format::PastedText => pasted::parse(&source.text, id),
        Format::SglangLog => sglang_log::parse(&source.text, id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_logs_and_transcripts() {
        let log = "[2026-02-11 22:34:51] server_args=ServerArgs(tp_size=8)\n[2026-02-11 22:35:07 TP0] Load weight begin.\n";
        assert_eq!(detect(log), Format::SglangLog);
        let chat =
            "[msg 1] assistant\n$ tail -5 /x.log\n[2026-02-11 22:35:07 TP0] Load weight begin.\n";
        assert_eq!(detect(chat), Format::PastedText);
        assert_eq!(detect(""), Format::PastedText);
    }

    #[test]
    fn format_names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(*format));
        }
    }
}

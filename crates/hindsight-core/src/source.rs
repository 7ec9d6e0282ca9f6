//! Named input sources, byte spans into them, and byte-offset → line lookup.
//!
//! Every event, checkpoint and finding points back into a [`Source`] through a
//! [`Span`], so that a report can always quote the exact lines it relies on.

use serde::{Deserialize, Serialize};

use crate::engine::Engine;

/// An input format hindsight can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Pasted chat or terminal text: `[msg N]` markers, `$ ` prompts, output.
    PastedText,
    /// A Claude Code session file (JSONL), or its `stream-json` output.
    ClaudeCodeJsonl,
    /// An OpenAI Codex CLI rollout (JSONL).
    CodexRollout,
    /// A Codex TUI session recording (`CODEX_TUI_RECORD_SESSION=1`, JSONL
    /// of `dir`/`kind`/`payload` records).
    CodexTuiRecording,
    /// A pi coding agent session (`~/.pi/agent/sessions/…/*.jsonl`).
    PiSession,
    /// A Gemini CLI session (`~/.gemini/tmp/<hash>/chats/session-*.json`, a
    /// JSON document, or `.jsonl`), a `/chat save` checkpoint or `logs.json`.
    GeminiCliSession,
    /// aider's `.aider.chat.history.md`.
    AiderHistory,
    /// An OpenHands trajectory (JSON array of events).
    OpenhandsTrajectory,
    /// A SWE-agent `.traj` file.
    SweAgentTrajectory,
    /// An SGLang server log.
    SglangLog,
    /// A vLLM server log.
    VllmLog,
    /// A Text Generation Inference (launcher and router) log.
    TgiLog,
    /// A llama.cpp `llama-server` log.
    LlamaCppLog,
    /// An Ollama server log.
    OllamaLog,
    /// A TensorRT-LLM (`trtllm-serve`, C++ runtime) log.
    TensorrtLlmLog,
    /// A server log whose engine its lines do not tell.
    ServerLog,
    /// A JSON document of no known transcript shape (a saved report, a
    /// config): kept, but nothing is extracted from it.
    JsonDocument,
}

impl Format {
    pub const ALL: &'static [Format] = &[
        Format::PastedText,
        Format::ClaudeCodeJsonl,
        Format::CodexRollout,
        Format::CodexTuiRecording,
        Format::PiSession,
        Format::GeminiCliSession,
        Format::AiderHistory,
        Format::OpenhandsTrajectory,
        Format::SweAgentTrajectory,
        Format::SglangLog,
        Format::VllmLog,
        Format::TgiLog,
        Format::LlamaCppLog,
        Format::OllamaLog,
        Format::TensorrtLlmLog,
        Format::ServerLog,
        Format::JsonDocument,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::PastedText => "pasted-text",
            Format::ClaudeCodeJsonl => "claude-code-jsonl",
            Format::CodexRollout => "codex-rollout",
            Format::CodexTuiRecording => "codex-tui-recording",
            Format::PiSession => "pi-session",
            Format::GeminiCliSession => "gemini-cli-session",
            Format::AiderHistory => "aider-history",
            Format::OpenhandsTrajectory => "openhands-trajectory",
            Format::SweAgentTrajectory => "swe-agent-trajectory",
            Format::SglangLog => "sglang-log",
            Format::VllmLog => "vllm-log",
            Format::TgiLog => "tgi-log",
            Format::LlamaCppLog => "llama-cpp-log",
            Format::OllamaLog => "ollama-log",
            Format::TensorrtLlmLog => "tensorrt-llm-log",
            Format::ServerLog => "server-log",
            Format::JsonDocument => "json-document",
        }
    }

    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Whether the format stores text escaped inside JSON strings.
    pub fn is_json(self) -> bool {
        matches!(
            self,
            Format::ClaudeCodeJsonl
                | Format::CodexRollout
                | Format::CodexTuiRecording
                | Format::PiSession
                | Format::GeminiCliSession
                | Format::OpenhandsTrajectory
                | Format::SweAgentTrajectory
        )
    }

    /// Whether this format is a server log (as opposed to a transcript).
    pub fn is_log(self) -> bool {
        self.log_engine().is_some()
    }

    /// The engine a server-log format belongs to (`Unknown` for a generic
    /// server log); `None` for transcripts and documents.
    pub fn log_engine(self) -> Option<Engine> {
        match self {
            Format::SglangLog => Some(Engine::Sglang),
            Format::VllmLog => Some(Engine::Vllm),
            Format::TgiLog => Some(Engine::Tgi),
            Format::LlamaCppLog => Some(Engine::LlamaCpp),
            Format::OllamaLog => Some(Engine::Ollama),
            Format::TensorrtLlmLog => Some(Engine::TensorrtLlm),
            Format::ServerLog => Some(Engine::Unknown),
            _ => None,
        }
    }

    /// The server-log format of an engine.
    pub fn of_engine(engine: Engine) -> Format {
        match engine {
            Engine::Sglang => Format::SglangLog,
            Engine::Vllm => Format::VllmLog,
            Engine::Tgi => Format::TgiLog,
            Engine::LlamaCpp => Format::LlamaCppLog,
            Engine::Ollama => Format::OllamaLog,
            Engine::TensorrtLlm => Format::TensorrtLlmLog,
            Engine::Unknown => Format::ServerLog,
        }
    }
}

/// One input: a transcript or a server log, with the name the user gave it
/// (usually the file name; a pasted log is linked to its server by that name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// File name or label; used in evidence and to link logs to launches.
    pub name: String,
    /// The text. Invalid UTF-8 has already been replaced (see [`Source::from_bytes`]).
    pub text: String,
    /// A format chosen by the user; `None` means detect it.
    pub format: Option<Format>,
    /// Byte offset of the first invalid UTF-8 sequence in the original bytes, if any.
    pub invalid_utf8_at: Option<usize>,
    /// Set when `text` is already a line-preserving condensation of the
    /// original (see [`crate::condense`]): what the condenser saw of it.
    pub condensed: Option<Condensed>,
}

/// What a condensed source's original looked like: its size, and the reading
/// problems found in it before the text was condensed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Condensed {
    pub original_bytes: u64,
    /// Problems in the original, each with its 1-based line.
    pub notes: Vec<(Option<u32>, String)>,
}

impl Source {
    /// A source whose format will be detected.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
            format: None,
            invalid_utf8_at: None,
            condensed: None,
        }
    }

    /// A source from raw bytes: invalid UTF-8 is replaced by U+FFFD and
    /// remembered, so the analysis can say so instead of refusing the input.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Self {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::new(name, text),
            Err(error) => {
                let mut source = Self::new(name, String::from_utf8_lossy(bytes).into_owned());
                source.invalid_utf8_at = Some(error.valid_up_to());
                source
            }
        }
    }

    /// [`Source::from_bytes`] that takes the bytes: valid UTF-8 (the usual
    /// case) becomes the text without a copy.
    pub fn from_vec(name: impl Into<String>, bytes: Vec<u8>) -> Self {
        match String::from_utf8(bytes) {
            Ok(text) => Self::new(name, text),
            Err(error) => {
                let at = error.utf8_error().valid_up_to();
                let mut source =
                    Self::new(name, String::from_utf8_lossy(error.as_bytes()).into_owned());
                source.invalid_utf8_at = Some(at);
                source
            }
        }
    }

    /// Forces a format instead of detecting it.
    #[must_use]
    pub fn with_format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }
}

/// Index of a source in the slice given to [`crate::analyze`].
pub type SourceId = usize;

/// A byte range in one source. `end` is exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub source: SourceId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(source: SourceId, start: usize, end: usize) -> Self {
        Self { source, start, end }
    }

    /// The span from the start of line `from` to the end of line `to`, of
    /// a text's lines as [`lines_with_offsets`] gives them: what a reader
    /// of a line-based format spans an item with.
    pub fn of_lines(lines: &[(usize, &str)], source: SourceId, from: usize, to: usize) -> Span {
        let start = lines.get(from).map_or(0, |(offset, _)| *offset);
        let end = lines
            .get(to)
            .map_or(start, |(offset, line)| offset + line.len());
        Span::new(source, start, end.max(start))
    }

    /// The smallest span covering both (they must be in the same source).
    #[must_use]
    pub fn cover(self, other: Span) -> Span {
        Span {
            source: self.source,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// Line starts of one text, for turning byte offsets into 1-based line numbers.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        // Sized once: a guess from a typical line length, so a big log does
        // not regrow the vector a dozen times.
        let mut starts = Vec::with_capacity(1 + text.len() / 96);
        starts.push(0);
        starts.extend(memchr_newlines(text.as_bytes()).map(|i| i + 1));
        // The guess is far too big for long lines (a condensed session's
        // records), and the index is kept for the whole analysis.
        starts.shrink_to_fit();
        Self { starts }
    }

    /// 1-based line number of a byte offset.
    pub fn line(&self, offset: usize) -> u32 {
        let index = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        u32::try_from(index + 1).unwrap_or(u32::MAX)
    }

    /// Line numbers (1-based, inclusive) covered by a byte range.
    pub fn lines(&self, start: usize, end: usize) -> (u32, u32) {
        let last = if end > start { end - 1 } else { start };
        (self.line(start), self.line(last))
    }

    /// Byte offset where the given 1-based line starts.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.starts.get((line as usize).checked_sub(1)?).copied()
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

/// Offsets of every `\n`, found with SIMD (a 100 MB log has a million).
fn memchr_newlines(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'\n', bytes)
}

/// Iterates the lines of a text with their byte offsets; the `\n` (and a
/// `\r` before it) is not part of the line. Line breaks are found with the
/// memchr crate's SIMD search (std's `split` on a char searches a word at a
/// time), since logs of a gigabyte are read through here.
pub fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes)
        .map(Some)
        .chain(std::iter::once(None))
        .map_while(move |newline| {
            let offset = start;
            let end = match newline {
                Some(at) => at,
                // A last line without a newline, unless the text ended with one.
                None if offset < bytes.len() => bytes.len(),
                None => return None,
            };
            start = end + 1;
            // `\n` is ASCII, so both ends are char boundaries.
            let raw = text.get(offset..end).unwrap_or("");
            Some((offset, raw.strip_suffix('\r').unwrap_or(raw)))
        })
}

/// Returns the largest char boundary `<= index`, so slicing never panics.
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_numbers_are_one_based_and_span_aware() {
        let index = LineIndex::new("a\nbb\n\nccc");
        assert_eq!(index.line(0), 1);
        assert_eq!(index.line(2), 2);
        assert_eq!(index.line(5), 3);
        assert_eq!(index.line(6), 4);
        assert_eq!(index.lines(2, 5), (2, 2));
        assert_eq!(index.lines(2, 7), (2, 4));
        assert_eq!(index.line_count(), 4);
    }

    #[test]
    fn invalid_utf8_is_replaced_and_remembered() {
        let source = Source::from_bytes("x.log", b"ok\n\xff\xfebad\n");
        assert_eq!(source.invalid_utf8_at, Some(3));
        assert!(source.text.contains("bad"));
    }

    #[test]
    fn lines_keep_offsets_and_drop_crlf() {
        let lines: Vec<_> = lines_with_offsets("a\r\nb\nc").collect();
        assert_eq!(lines, vec![(0, "a"), (3, "b"), (5, "c")]);
    }

    #[test]
    fn lines_match_split_inclusive_at_the_edges() {
        // The memchr walk must agree with `split_inclusive('\n')` on every edge:
        // no line for "", no empty line after a final newline, empty lines kept.
        for text in ["", "a", "a\n", "\n\n", "a\nb", "\r\n", "a\r", "x\n\ny\r\n"] {
            let expected: Vec<(usize, &str)> = text
                .split_inclusive('\n')
                .scan(0, |at, line| {
                    let start = *at;
                    *at += line.len();
                    let line = line.strip_suffix('\n').unwrap_or(line);
                    Some((start, line.strip_suffix('\r').unwrap_or(line)))
                })
                .collect();
            let got: Vec<_> = lines_with_offsets(text).collect();
            assert_eq!(got, expected, "{text:?}");
        }
    }
}

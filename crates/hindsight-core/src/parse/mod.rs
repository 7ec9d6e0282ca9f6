//! From text to events: format detection and one parser per input format.
//!
//! Parsing never fails. Every parser returns events plus diagnostics; lines it
//! does not understand are kept as [`EventKind::Unrecognized`] so nothing is
//! silently dropped. Parsers know nothing of checkpoints or rules.

pub mod aider;
pub mod claude_code;
pub mod claude_export;
pub mod claude_vscode;
pub mod cline_export;
pub mod codex;
pub mod codex_text;
pub mod codex_tui;
pub mod dialect;
pub mod gemini;
pub mod gemini_text;
mod json_doc;
pub mod json_log;
pub mod launch_head;
pub mod llamacpp_log;
pub mod logline;
pub mod ollama_log;
pub mod openhands;
pub mod pasted;
pub mod pi;
pub mod sglang_log;
pub mod swe_agent;
pub mod tgi_log;
pub mod trtllm_log;
pub mod vllm_log;

use crate::diagnostic::Diagnostic;
use crate::source::{Format, Source, SourceId, Span};

pub use logline::{FailureKind, LogLine, Signal};

/// Who ran a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    Agent,
    /// A sub-agent the agent started (Claude Code's Task tool): its records
    /// are a sidechain, in the session file or in `subagents/agent-*.jsonl`.
    SubAgent,
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
    /// Prose written by someone: the span's text, or `text` when the source
    /// escapes it (JSON formats).
    Prose { role: Role, text: Option<String> },
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
    /// A file the agent wrote or edited with an editor tool (SWE-agent's
    /// `create`/`edit`, OpenHands' `edit`): its path and the text written
    /// (the whole file, or the part an edit put in).
    FileWrite { path: String, text: String },
    /// A line of a server log.
    Log(LogLine),
    /// A server log pasted into a transcript outside any command's output
    /// (a chat turn that quotes a log, a raw log appended after a session):
    /// the span's lines, to be read as a log of this format.
    PastedLog { format: Format },
    /// A line no rule of the format explains; kept so nothing is lost.
    Unrecognized,
}

impl EventKind {
    /// A command from an agent's tool call, with no prompt host, run in the
    /// foreground: a shell call, or what another tool stands for (a
    /// background shell stopped or read, a page loaded, a session's Ctrl-C).
    pub(crate) fn tool_command(text: String, actor: Actor, time: Option<String>) -> EventKind {
        EventKind::Command {
            text,
            actor,
            prompt_host: None,
            time,
            background: false,
        }
    }
}

/// The events of one source plus what went wrong reading it.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    pub events: Vec<Event>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// One JSON Lines record, parsed; a line that does not parse is a
    /// warning and an unrecognized event in its place, so nothing is lost.
    pub(crate) fn json_record(
        &mut self,
        line: &str,
        span: Span,
        line_number: usize,
    ) -> Option<serde_json::Value> {
        match serde_json::from_str(line.trim()) {
            Ok(record) => Some(record),
            Err(error) => {
                self.diagnostics.push(Diagnostic::warning(
                    span.source,
                    Some(u32::try_from(line_number).unwrap_or(u32::MAX)),
                    format!("malformed JSON record skipped: {error}"),
                ));
                self.events.push(Event {
                    span,
                    kind: EventKind::Unrecognized,
                });
                None
            }
        }
    }
}

/// How many sentences a log may hold per line with a time or a signal
/// (its untimed warnings, a tool's explanation of a failure) before the
/// text reads as prose quoting a few log lines.
const PROSE_PER_LOG_LINE: usize = 2;

/// Fewer sentences than this are a log's own explanation (TensorRT-LLM's
/// "The following component could not be created: KV cache"), however few
/// its timed lines.
const MIN_PROSE: usize = 4;

/// Whether a line reads as a sentence: six words or more, most of them
/// plain words, and none of a log's or a command's marks (`=`, `|`, `{`).
fn is_prose(line: &str) -> bool {
    let line = line.trim();
    if line.contains(['=', '|', '{', '}', '<', '>']) || line.starts_with(['[', '(', '-', '#', '$'])
    {
        return false;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 6 {
        return false;
    }
    let plain = words
        .iter()
        .filter(|w| {
            let w = w.trim_end_matches([',', '.', ':', ';', '!', '?', ')']);
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        })
        .count();
    plain * 4 >= words.len() * 3
}

/// Guesses a source's format from its first bytes.
pub fn detect(text: &str) -> Format {
    let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
    if let Some(format) = detect_jsonl(head) {
        return format;
    }
    // A log written as JSON Lines is read line by line below, not as one
    // JSON document.
    if looks_like_json_document(head) && !json_log_lines(head) {
        return detect_json_document(text);
    }
    if aider::looks_like(head) {
        return Format::AiderHistory;
    }
    // Codex's terminal rendering quotes whole logs in its results; its
    // `• Ran` items decide.
    if codex_text::looks_like(head) || gemini_text::looks_like(head) {
        return Format::PastedText;
    }
    let mut log_lines = 0usize;
    // Sentences: a chat export's or a write-up's own lines.
    let mut prose_lines = 0usize;
    let mut transcript_marks = 0usize;
    // A transcript's own structure: turn markers, commands at prompts,
    // shell fences, the terminal rendering's tool calls and results. A
    // transcript quotes log lines in its outputs, often many more than its
    // own lines, so its structure decides before any count of log lines.
    let mut turns = 0usize;
    let mut prompts = 0usize;
    let mut shell_fences = 0usize;
    let mut tui = 0usize;
    // Votes per engine, in `Engine` order.
    let mut votes = [0usize; 7];
    // Whether the first line with text is a command at a prompt: alone,
    // that is the launch pasted above its log (`root@host:~# tritonserver
    // …`), not a transcript's structure.
    let mut prompt_first = None;
    // Commands at prompts that all come first, before any output (`export
    // HF_ENDPOINT=…`, then the launch): a log's preamble. How many of them
    // are set-up, whether the last one is, and whether a prompt came after
    // output (then they are a session's).
    let mut output_seen = false;
    let mut prompt_after_output = false;
    let mut head_setups = 0usize;
    let mut last_head_setup = false;
    // Whether the line before ends in a continuation (a launch's options).
    let mut continued = false;
    // Lines of text since the last command written bare, and how many such
    // commands came after output.
    let mut since_bare: Option<usize> = None;
    let mut heredoc: Option<String> = None;
    let mut bare_marks = 0usize;
    for line in head.lines().take(400) {
        let trimmed = line.trim_start();
        let turn = pasted::is_message_marker(trimmed);
        // A prompt quoted in a Markdown reply (`> root@pod:/# ollama ps`) is
        // a prompt.
        let unquoted = line.strip_prefix("> ").unwrap_or(line);
        // The command typed at a prompt, if one is.
        let typed = pasted::prompt(unquoted)
            .map(|(_, start)| unquoted[start..].trim())
            .filter(|c| !c.is_empty());
        let command = typed.is_some();
        if prompt_first.is_none() && !trimmed.is_empty() {
            prompt_first = Some(command);
        }
        match typed {
            Some(_) if output_seen => prompt_after_output = true,
            Some(typed) => {
                // Set-up before the launch (`export HF_ENDPOINT=…`, `cd
                // /srv`, `conda activate x`), not a second command.
                let setup = typed
                    .split_whitespace()
                    .next()
                    .is_some_and(crate::shell::is_setup);
                head_setups += usize::from(setup);
                last_head_setup = setup;
            }
            None => output_seen |= !trimmed.is_empty(),
        }
        turns += usize::from(turn);
        prompts += usize::from(command);
        tui += usize::from(
            trimmed.starts_with('⎿') || trimmed.starts_with(['⏺', '●']) && trimmed.contains('('),
        );
        let shell_fence = trimmed
            .strip_prefix("```")
            .is_some_and(|lang| matches!(lang.trim(), "bash" | "sh" | "shell" | "console" | "zsh"));
        shell_fences += usize::from(shell_fence);
        // A shell fence is a command block of a document or chat: no log
        // holds one (an issue's log fence is bare, `text` or `log`).
        // Commands written bare at a line's start (`curl -vl http://…`,
        // then its output, then `docker exec -it vllm netstat -tulnp`): a
        // terminal pasted without its prompts. A log's own launch script
        // heads it, its commands one after another; commands with output
        // between them are a session's.
        // A heredoc's body (`cat > cfg.yml <<EOF` … `EOF`) is the
        // command's, not output.
        if let Some(marker) = &heredoc {
            if trimmed.trim_end() == marker {
                heredoc = None;
            }
            continue;
        }
        let bare =
            !command && !continued && pasted::is_bare_command(trimmed) && !trimmed.starts_with('-');
        continued = trimmed.trim_end().ends_with('\\');
        if bare && let Some((_, after)) = trimmed.split_once("<<") {
            let marker = after
                .trim_start_matches('-')
                .trim()
                .trim_matches(['\'', '"'])
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_owned();
            heredoc = (!marker.is_empty()).then_some(marker);
        }
        let mut interleaved = false;
        if bare {
            if since_bare.is_some_and(|n| n > 0) {
                interleaved = true;
                // The command before it, once.
                transcript_marks += usize::from(bare_marks == 0);
                bare_marks += 1;
            }
            since_bare = Some(0);
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') && !continued {
            since_bare = since_bare.map(|n| n + 1);
        }
        if turn || command || shell_fence || interleaved {
            transcript_marks += 1;
        }
        let stripped = logline::strip_ansi(trimmed);
        for segment in stripped.split('\r') {
            let classified = logline::classify(segment);
            let hint = logline::engine_hint(segment, &classified);
            // A collector's envelope (journald, `docker logs -t`, a compose
            // or pod prefix) makes a line a log's, whatever it holds.
            if classified.time.is_some()
                || classified.signal.is_some()
                || json_log::engine_of(segment).is_some()
                || logline::strip_envelope(segment).len() < segment.trim_start().len()
            {
                log_lines += 1;
            }
            if let Some(engine) = hint {
                votes[engine as usize] += 1;
            }
            if classified.time.is_none() && classified.signal.is_none() && is_prose(segment) {
                prose_lines += 1;
            }
        }
    }
    let mut structured =
        tui > 0 || turns >= 2 || prompts >= 2 || turns >= 1 && (prompts + shell_fences) >= 1;
    // Only above a log that is most of the text: a command and a few
    // lines of its output are a transcript.
    let text_lines = head
        .lines()
        .take(400)
        .filter(|l| !l.trim().is_empty())
        .count();
    let preamble =
        prompts >= 1 && !prompt_after_output && head_setups + 1 == prompts && !last_head_setup;
    if preamble
        && prompt_first == Some(true)
        && turns == 0
        && shell_fences == 0
        && log_lines * 2 >= text_lines
        && log_lines >= 5
    {
        transcript_marks = transcript_marks.saturating_sub(prompts);
        structured = tui > 0;
    }
    if structured {
        Format::PastedText
    } else if log_lines > 0
        && log_lines >= transcript_marks * 4
        // A few log-like lines (a Flask banner, a test's output) among more
        // sentences are a chat export's or a write-up's, not a log.
        && (prose_lines < MIN_PROSE || prose_lines <= log_lines * PROSE_PER_LOG_LINE)
    {
        // A log whose lines name no engine (a launcher's own lines: mpirun,
        // a supervisor) is the log of the engine its pasted launch starts.
        match log_engine_of(&votes) {
            crate::engine::Engine::Unknown => Format::of_engine(
                launch_head::find(head, crate::engine::Engine::Unknown)
                    .map_or(crate::engine::Engine::Unknown, |l| l.engine),
            ),
            engine => Format::of_engine(engine),
        }
    } else {
        Format::PastedText
    }
}

/// The engine most lines point to. Ollama's runner prints llama.cpp's own
/// lines and trtllm-serve prints uvicorn's, so any Ollama line wins over
/// llama.cpp.
pub(crate) fn log_engine_of(votes: &[usize; 7]) -> crate::engine::Engine {
    use crate::engine::Engine;
    const ORDER: [Engine; 6] = [
        Engine::Sglang,
        Engine::Vllm,
        Engine::Tgi,
        Engine::LlamaCpp,
        Engine::Ollama,
        Engine::TensorrtLlm,
    ];
    if votes[Engine::Ollama as usize] > 0
        && votes[Engine::Ollama as usize] * 4 >= votes[Engine::LlamaCpp as usize].min(4)
    {
        return Engine::Ollama;
    }
    ORDER
        .iter()
        .copied()
        .filter(|e| votes[*e as usize] > 0)
        .max_by_key(|e| votes[*e as usize])
        .unwrap_or(Engine::Unknown)
}

/// Whether the first lines are JSON log records, one a line.
fn json_log_lines(head: &str) -> bool {
    let lines: Vec<&str> = head
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(10)
        .collect();
    let records = lines
        .iter()
        .filter(|l| {
            serde_json::from_str::<serde_json::Value>(l.trim())
                .ok()
                .as_ref()
                .and_then(serde_json::Value::as_object)
                .is_some_and(json_log::is_log_record)
        })
        .count();
    records >= 2 && records * 2 > lines.len()
}

/// `{"…` or `[{`, `["`, `[]`: a JSON document, not `[msg 1]` or `[2026-…]`.
fn looks_like_json_document(head: &str) -> bool {
    let mut chars = head.trim_start().chars();
    let open = chars.next();
    let next = chars.find(|c| !c.is_whitespace());
    matches!(
        (open, next),
        (Some('{'), Some('"' | '}')) | (Some('['), Some('{' | '"' | ']' | '['))
    )
}

/// Whole-document JSON transcripts, told apart by their keys.
fn detect_json_document(text: &str) -> Format {
    let Ok(document) = serde_json::from_str::<serde_json::Value>(text) else {
        // An OpenHands evaluation's `output.jsonl`: one record per line,
        // each longer than the head JSON Lines detection reads.
        if openhands::looks_like_jsonl(text) {
            return Format::OpenhandsTrajectory;
        }
        // A legacy Gemini CLI session is rewritten whole: a copy taken
        // mid-write is cut short, and its messages before the cut still count.
        let head = &text[..crate::source::floor_char_boundary(text, 64 * 1024)];
        if gemini::looks_like_cut_session(head) {
            return Format::GeminiCliSession;
        }
        return Format::JsonDocument;
    };
    if swe_agent::is_trajectory(&document) {
        Format::SweAgentTrajectory
    } else if openhands::events_of(&document).is_some() {
        Format::OpenhandsTrajectory
    } else if gemini::looks_like_document(&document) {
        Format::GeminiCliSession
    } else {
        Format::JsonDocument
    }
}

/// JSONL transcripts: the first records that parse decide. The first line of
/// a Claude Code file can exceed the head we look at, so a cut line counts as
/// JSON when it starts like one. JSON Lines that are log records (a message
/// with a level or a time) are a log, not a transcript.
fn detect_jsonl(head: &str) -> Option<Format> {
    let mut json_lines = 0;
    let mut log_records = 0;
    // Lines that open a JSON object but do not parse (a file cut at every
    // line, a copy that lost its ends): their keys still tell the format.
    let mut broken = (0usize, 0usize, 0usize);
    for line in head.lines().filter(|l| !l.trim().is_empty()).take(20) {
        let line = line.trim_start();
        let line = line
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .strip_prefix('→')
            .unwrap_or(line);
        if !line.starts_with('{') {
            return None;
        }
        let Ok(record) = serde_json::from_str::<serde_json::Value>(line) else {
            broken.0 += 1;
            let has = |key: &str| line.contains(key);
            if has("\"response_item\"") || has("\"session_meta\"") || has("\"event_msg\"") {
                broken.1 += 1;
            } else if has("\"type\":\"assistant\"")
                || has("\"type\":\"user\"")
                || has("\"parentUuid\"")
                || has("\"sessionId\"")
            {
                broken.2 += 1;
            }
            continue;
        };
        json_lines += 1;
        if record.as_object().is_some_and(json_log::is_log_record)
            && !claude_code::looks_like(&record)
        {
            log_records += 1;
            continue;
        }
        if codex::looks_like(&record) {
            return Some(Format::CodexRollout);
        }
        if codex_tui::looks_like(&record) {
            return Some(Format::CodexTuiRecording);
        }
        if pi::looks_like(&record) {
            return Some(Format::PiSession);
        }
        if claude_code::looks_like(&record) {
            return Some(Format::ClaudeCodeJsonl);
        }
        if record.get("history").is_some()
            && !swe_agent::is_trajectory(&record)
            && openhands::events_of(&record).is_some()
        {
            return Some(Format::OpenhandsTrajectory);
        }
        if gemini::looks_like_record(&record) || gemini::looks_like_stream_event(&record) {
            return Some(Format::GeminiCliSession);
        }
    }
    // Only broken lines, most of them with a format's own keys: that
    // format, whose reader says which lines it could not read.
    if json_lines == 0 && broken.0 >= 2 {
        if broken.1 * 2 > broken.0 {
            return Some(Format::CodexRollout);
        }
        if broken.2 * 2 > broken.0 {
            return Some(Format::ClaudeCodeJsonl);
        }
    }
    // JSON lines of no known shape: Claude Code's reader keeps unknown records.
    (json_lines > 1 && log_records * 2 < json_lines).then_some(Format::ClaudeCodeJsonl)
}

/// Parses one source with the given format.
pub fn parse(source: &Source, id: SourceId, format: Format) -> Parsed {
    parse_text(&source.text, id, format)
}

/// [`parse`] of a bare text: the log condenser parses pieces of a log that
/// are never a [`Source`] of their own.
pub fn parse_text(text: &str, id: SourceId, format: Format) -> Parsed {
    parse_text_with(text, id, format, false)
}

/// [`parse_text`]; `excerpt` for a log region a transcript quotes, whose end
/// is where the quote stops, not where the log did (see
/// [`logline::parse_log_excerpt`]).
fn parse_text_with(text: &str, id: SourceId, format: Format, excerpt: bool) -> Parsed {
    let mut parsed = if excerpt && format.log_engine().is_some() {
        logline::parse_log_excerpt(text, id)
    } else {
        parse_format(text, id, format)
    };
    if let Some(engine) = format.log_engine()
        && let Some(head) = launch_head::find(text, engine)
    {
        // The command pasted above the log: an event of its own, in order.
        let at = parsed.events.partition_point(|e| e.span.start < head.start);
        parsed.events.insert(
            at,
            Event {
                span: Span::new(id, head.start, head.end),
                kind: EventKind::Log(LogLine {
                    signal: Some(Signal::Launch(Box::new(logline::PastedLaunch {
                        engine: head.engine,
                        settings: head.settings,
                        command: head.command,
                    }))),
                    ..LogLine::default()
                }),
            },
        );
    }
    parsed
}

/// Parses a log pasted inside a transcript (a [`EventKind::PastedLog`]
/// span of `source`) with the parser of `format`; its events keep spans
/// into the transcript. Reading problems are the transcript's own.
pub fn parse_region(source: &Source, id: SourceId, region: Span, format: Format) -> Parsed {
    let Some(text) = source.text.get(region.start..region.end) else {
        return Parsed::default();
    };
    let mut parsed = parse_text_with(text, id, format, true);
    for event in &mut parsed.events {
        event.span = Span::new(
            id,
            event.span.start + region.start,
            event.span.end + region.start,
        );
    }
    parsed.diagnostics.clear();
    parsed
}

fn parse_format(text: &str, id: SourceId, format: Format) -> Parsed {
    match format {
        Format::PastedText if claude_export::looks_like(text) => claude_export::parse(text, id),
        Format::PastedText if codex_text::looks_like(text) => codex_text::parse(text, id),
        Format::PastedText if claude_vscode::looks_like(text) => claude_vscode::parse(text, id),
        Format::PastedText if cline_export::looks_like(text) => cline_export::parse(text, id),
        Format::PastedText if gemini_text::looks_like(text) => gemini_text::parse(text, id),
        Format::PastedText => pasted::parse(text, id),
        Format::ClaudeCodeJsonl => claude_code::parse(text, id),
        Format::CodexRollout => codex::parse(text, id),
        Format::CodexTuiRecording => codex_tui::parse(text, id),
        Format::PiSession => pi::parse(text, id),
        Format::GeminiCliSession => gemini::parse(text, id),
        Format::AiderHistory => aider::parse(text, id),
        Format::OpenhandsTrajectory => openhands::parse(text, id),
        Format::SweAgentTrajectory => swe_agent::parse(text, id),
        Format::ServerLog => logline::parse_other_log(text, id),
        // Every engine's log is read by the one reader, which walks the
        // engines' dialects line by line (an engine's format names the log,
        // but a stack's log mixes engines).
        Format::SglangLog
        | Format::VllmLog
        | Format::TgiLog
        | Format::LlamaCppLog
        | Format::OllamaLog
        | Format::TensorrtLlmLog => logline::parse_log(text, id),
        Format::JsonDocument => Parsed {
            events: Vec::new(),
            diagnostics: vec![Diagnostic::info(
                id,
                None,
                "a JSON document with no known transcript or log shape; nothing was extracted from it",
            )],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_logs_in_envelopes_and_under_their_launch() {
        // journald around llama.cpp's JSON lines, and a C++ crash report.
        let journal = "Aug 07 06:19:14 host llama[5185]: {\"function\":\"update_slots\",\"level\":\"INFO\",\"line\":1705,\"msg\":\"slot context shift\",\"tid\":\"1\",\"timestamp\":1754540354}\n\
            Aug 07 06:19:14 host llama[5185]: libc++abi: terminating due to uncaught exception of type std::length_error: vector\n\
            Aug 07 06:19:14 host llama[5185]: error: Uncaught SIGABRT (SI_TKILL) at 0x3e900001441\n";
        assert_eq!(detect(journal), Format::LlamaCppLog);
        // `docker logs -t`: RFC 3339 times with nanoseconds and a `Z`.
        let docker = "2024-12-17T20:43:27.485381977Z INFO:     Multiprocessing frontend to use\n\
            2024-12-17T20:43:27.488903547Z INFO:     Started engine process with PID 85\n\
            2024-12-17T20:43:32.099029075Z INFO:     Defaulting to use mp for distributed inference.\n";
        assert_eq!(detect(docker), Format::ServerLog);
        // One command at a prompt, then its log: a log with its launch.
        let mut launched = String::from(
            "root@1cccece5c83c:~# python3 -m vllm.entrypoints.openai.api_server --model m --port 8001\n",
        );
        for i in 0..6 {
            launched.push_str(&format!(
                "INFO 12-16 10:12:3{i} [__init__.py:216] Automatically detected platform cuda.\n"
            ));
        }
        assert_eq!(detect(&launched), Format::VllmLog);
        // A command and a few lines of its output stay a transcript.
        let short = "$ systemctl status vllm\n     Active: failed (Result: exit-code) since Tue 2026-01-06\n";
        assert_eq!(detect(short), Format::PastedText);
    }

    #[test]
    fn a_chat_export_quoting_a_banner_is_no_log() {
        // An IDE assistant's export: the step titles and the replies are
        // sentences; the only log-like lines are the app's own banner.
        let export = "Make a new project folder and build a typing tutor web app in it.\n\nGood, the dependencies are in. Next I will test the backend:\n\nStart the Flask backend server\n\nshell\n\nCompleted\ncd backend && python app.py &\n * Serving Flask app 'app'\n * Debug mode: on\nAddress already in use\nPort 5000 is in use by another program. Either identify and stop that program, or start the server with a different port.\n\nThe port is taken by another program on this machine, so I will move the app to another port.\n\nNow I will update the frontend so that it talks to the new port as well.\n\nThe tests pass and the app should be ready for you to open in the browser.\n\nLet me know if you want me to add more lessons to the tutor as well.\n";
        assert_eq!(detect(export), Format::PastedText);
        // A log's own few sentences (an error spelled out over lines) keep
        // it a log.
        let log = "[07/08/2025-19:47:15] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: Executor creation failed due to insufficient GPU memory.\n\nThe following component could not be created: KV cache\nTotal GPU memory (GiB): 140.06\nFree GPU memory before component creation attempt (GiB): 108.86\n";
        assert_eq!(detect(log), Format::TensorrtLlmLog);
    }

    /// Commands written without prompts, each followed by what it printed,
    /// are a terminal session, though the output looks like a log's; a
    /// log headed by its launch script (exports, a heredoc, the launch) is
    /// still a log.
    #[test]
    fn bare_commands_with_output_between_are_a_session() {
        let session = "Started the containers with compose.\n\ncurl -vl http://127.0.0.1:8098/v1\n*   Trying 127.0.0.1:8098...\n* Connected to 127.0.0.1 (127.0.0.1) port 8098\n* Recv failure: Connection was aborted\n\ndocker exec -it vllm netstat -tulnp\nActive Internet connections (only servers)\ntcp 0 0 172.18.0.18:35869 0.0.0.0:* LISTEN 54/python3\n\nSo nothing is listening on port 8000.\n";
        assert_eq!(detect(session), Format::PastedText);
        let log = "MODEL=nvidia/DeepSeek-R1-FP4\ncat >./extra.yml<<EOF\nuse_cuda_graph: true\nEOF\nexport TLLM_LOG_LEVEL=WARNING\ntrtllm-serve ${MODEL} --port 8001 \\\n    --tp_size 8\n[04/30/2025-14:03:32] [TRT-LLM] [I] Starting TensorRT-LLM init.\n[04/30/2025-14:03:40] [TRT-LLM] [E] Failed to initialize executor on rank 6: CUDA driver error\n[04/30/2025-14:03:41] [TRT-LLM] [I] rank 0 done\n[04/30/2025-14:03:42] [TRT-LLM] [I] rank 1 done\n[04/30/2025-14:03:43] [TRT-LLM] [I] rank 2 done\n";
        assert_eq!(detect(log), Format::TensorrtLlmLog);
    }

    /// Set-up commands and the launch at prompts, all above the log: the
    /// log's preamble. A prompt after output is a session's.
    #[test]
    fn prompts_only_above_a_log_are_its_preamble() {
        let log = "(lmdeploy) u@h:~$ export HF_ENDPOINT=https://hf-mirror.example\n(lmdeploy) u@h:~$ lmdeploy serve api_server internlm/internlm2_5-7b-chat --server-port 23333 --log-level INFO\nFetching 20 files: 100%|████| 20/20 [00:00<00:00, 83468.74it/s]\n2024-07-06 11:45:28,372 - lmdeploy - INFO - input backend=turbomind, backend_config=TurbomindEngineConfig(tp=1)\n2024-07-06 11:45:28,372 - lmdeploy - INFO - input chat_template_config=None\n2024-07-06 11:45:28,504 - lmdeploy - INFO - updated chat_template_onfig=ChatTemplateConfig(model_name='internlm2')\n2024-07-06 11:45:33,012 - lmdeploy - INFO - Starting turbomind engine\n2024-07-06 11:45:41,390 - lmdeploy - INFO - turbomind model loaded\n";
        assert_eq!(detect(log), Format::ServerLog);
        let session = log.replace(
            "2024-07-06 11:45:28,504",
            "(lmdeploy) u@h:~$ curl -s localhost:23333/v1/models\n2024-07-06 11:45:28,504",
        );
        assert_eq!(detect(&session), Format::PastedText);
    }

    #[test]
    fn detects_logs_and_transcripts() {
        let log = "[2026-02-11 22:34:51] server_args=ServerArgs(tp_size=8)\n[2026-02-11 22:35:07 TP0] Load weight begin.\n";
        assert_eq!(detect(log), Format::SglangLog);
        let chat =
            "[msg 1] assistant\n$ tail -5 /x.log\n[2026-02-11 22:35:07 TP0] Load weight begin.\n";
        assert_eq!(detect(chat), Format::PastedText);
        assert_eq!(detect("{\n  \"version\": 1\n}\n"), Format::JsonDocument);
        assert_eq!(detect("[\n  {\"name\": 1}\n]"), Format::JsonDocument);
        assert_eq!(
            detect("[\n  {\"action\": \"run\"}\n]"),
            Format::OpenhandsTrajectory
        );
        assert_eq!(detect("{\"trajectory\": []}"), Format::SweAgentTrajectory);
        assert_eq!(
            detect(
                "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": []\n}\n"
            ),
            Format::GeminiCliSession
        );
        assert_eq!(
            detect(
                "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    {\"id\": \"u"
            ),
            Format::GeminiCliSession
        );
        assert_eq!(
            detect(
                "{\"sessionId\":\"s\",\"projectHash\":\"p\",\"kind\":\"main\"}\n{\"id\":\"u\",\"timestamp\":\"t\",\"type\":\"user\",\"content\":\"hi\"}\n"
            ),
            Format::GeminiCliSession
        );
        assert_eq!(
            detect("[{\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}]"),
            Format::GeminiCliSession
        );
        assert_eq!(
            detect("# aider chat started at 2025-06-01 10:00:00\n"),
            Format::AiderHistory
        );
        assert_eq!(detect("[msg 3101] user\nhi\n"), Format::PastedText);
        assert_eq!(
            detect("[2026-02-11 22:34:51] server_args=ServerArgs(tp_size=8)\n"),
            Format::SglangLog
        );
        assert_eq!(detect(""), Format::PastedText);
    }

    #[test]
    fn detects_each_engine_from_its_lines() {
        let cases = [
            (
                "(APIServer pid=1) INFO 11-30 10:00:00 [api_server.py:1] vLLM API server version 0.10.2\n(APIServer pid=1) INFO 11-30 10:00:01 [utils.py:1] non-default args: {'model': 'm'}\n",
                Format::VllmLog,
            ),
            (
                "INFO 11-30 10:00:00 llm_engine.py:1] Initializing an LLM engine (v0.6.4) with config: model='m'\n",
                Format::VllmLog,
            ),
            (
                "2026-11-30T10:00:00.1Z  INFO text_generation_launcher: Args { model_id: \"m\" }\n2026-11-30T10:00:01.1Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0\n",
                Format::TgiLog,
            ),
            (
                "build: 4524 (6171c9d2) with cc for x86_64-linux-gnu\nmain: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 7\nmain: loading model\n",
                Format::LlamaCppLog,
            ),
            (
                "time=2026-11-30T10:00:00.000Z level=INFO source=routes.go:1 msg=\"Listening on 127.0.0.1:11434 (version 0.9.0)\"\nllama_model_loader: loaded meta data with 3 key-value pairs\nload_tensors: offloaded 33/33 layers to GPU\n",
                Format::OllamaLog,
            ),
            (
                "[TensorRT-LLM][INFO] MPI size: 2, rank: 0\n[11/30/2026-10:00:00] [TRT-LLM] [I] Loaded engine size: 100 MiB\n",
                Format::TensorrtLlmLog,
            ),
            (
                "Traceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory.\n",
                Format::ServerLog,
            ),
            // Only the launcher's own lines, under the engine's launch.
            (
                "mpirun -n 8 python3 run.py --engine_dir /e\n\nmpirun noticed that process rank 6 with PID 0 on node n exited on signal 9 (Killed).\n",
                Format::TensorrtLlmLog,
            ),
        ];
        for (text, format) in cases {
            assert_eq!(detect(text), format, "{text}");
        }
    }

    #[test]
    fn format_names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(*format));
        }
    }
}

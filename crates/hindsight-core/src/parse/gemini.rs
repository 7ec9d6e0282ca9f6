//! Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/session-*.json`
//! and `.jsonl`), and the other files Gemini CLI keeps beside them.
//!
//! Five shapes, one format:
//! - the legacy session file: one JSON document `{sessionId, projectHash,
//!   startTime, lastUpdated, messages: [MessageRecord]}`, pretty-printed and
//!   rewritten whole (a copy taken mid-write is cut short: the messages
//!   before the cut are still read);
//! - the current session file: JSON lines, applied in order. A metadata
//!   line (`sessionId`, `projectHash`, `kind`), message lines (a later line
//!   with the same `id` replaces the message: that is how a tool call's
//!   result is filled in), `{"$set": {…}}` metadata updates and
//!   `{"$rewindTo": id}`, which drops that message and every later one;
//! - a `/chat save` checkpoint (`checkpoint-<tag>.json`): the model's
//!   history, `[{role, parts}]` or `{history: [{role, parts}]}`, with
//!   `functionCall` and `functionResponse` parts;
//! - `logs.json`: the user's prompts only;
//! - headless output (`gemini -p … --output-format stream-json`): JSON
//!   lines of events, `init` (`session_id`, `model`), `message` (`role`
//!   `user` or `assistant`, `content`, `delta` when the text streams in
//!   pieces), `tool_use` (`tool_name`, `tool_id`, `parameters`),
//!   `tool_result` (`tool_id`, `status` `success` or `error`, `output`,
//!   `error`), `error` and `result`. The assistant's pieces of one reply
//!   are one prose event over their lines.
//!
//! A message is `{id, timestamp, type, content}`: `type` `user` or `gemini`
//! (`info`, `error`, `warning` are the CLI's notices); `content` is a string
//! or a list of parts. A `gemini` message carries `toolCalls`; a shell call
//! is `run_shell_command` with `args.command` (and `is_background`), and its
//! `result[].functionResponse.response.output` is the text the model saw,
//! an envelope whose wording changed between versions: `Command:`,
//! `Directory:`, `Stdout:`/`Stderr:` or `Output:`, `Error:`, `Exit Code:`,
//! `Signal:`, `Background PIDs:`, `Process Group PGID:`; the newest leaves
//! out empty fields and a zero exit code. The exit code is read from that
//! text: the call's `status` is `success` even for `Exit Code: 127`. A call
//! the user cancelled answers `{"error": "[Operation Cancelled] …"}`.
//! Thoughts are private reasoning, not claims, and are skipped.
//!
//! A pretty-printed document spans many lines, so each event's span is the
//! JSON string it came from (the command, the output, the message text),
//! found within its own message's bytes; in JSON lines it is the line.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::json_doc::Locator;
use super::{Actor, Event, EventKind, Parsed, Role};
use crate::diagnostic::Diagnostic;
use crate::source::{Span, lines_with_offsets};

/// Tool names that run shell commands.
pub(crate) const SHELL_TOOLS: &[&str] = &["run_shell_command"];

/// The message types a session records.
const MESSAGE_TYPES: &[&str] = &["user", "gemini", "info", "error", "warning"];

/// Whether a whole JSON document is a Gemini CLI session, checkpoint or
/// prompt log (for detection).
pub fn looks_like_document(document: &Value) -> bool {
    match document {
        Value::Object(object) => {
            let session = object
                .get("messages")
                .and_then(Value::as_array)
                .is_some_and(|m| {
                    object.get("projectHash").is_some_and(Value::is_string)
                        || m.iter()
                            .any(|m| m.get("type").and_then(Value::as_str) == Some("gemini"))
                });
            session
                || object
                    .get("history")
                    .and_then(Value::as_array)
                    .is_some_and(|h| is_history(h))
        }
        Value::Array(items) => is_history(items) || is_prompt_log(items),
        _ => false,
    }
}

/// Whether a JSON line is a record of a Gemini CLI session file (for
/// detection): its metadata line, a message, a `$set` or a `$rewindTo`.
pub fn looks_like_record(record: &Value) -> bool {
    let string = |key: &str| record.get(key).is_some_and(Value::is_string);
    let metadata = string("sessionId") && string("projectHash");
    let message = string("id")
        && record.get("content").is_some()
        && record
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| MESSAGE_TYPES.contains(&t));
    metadata || message || string("$rewindTo") || record.get("$set").is_some_and(Value::is_object)
}

/// Whether a JSON line is an event of headless `stream-json` output.
pub fn looks_like_stream_event(record: &Value) -> bool {
    let string = |key: &str| record.get(key).is_some_and(Value::is_string);
    match record.get("type").and_then(Value::as_str) {
        Some("init") => string("session_id") && string("model"),
        Some("tool_use") => string("tool_name") && string("tool_id"),
        Some("tool_result") => string("tool_id") && string("status"),
        Some("message") => {
            matches!(
                record.get("role").and_then(Value::as_str),
                Some("user" | "assistant")
            ) && string("content")
        }
        _ => false,
    }
}

/// Whether the start of a document that does not parse (cut short while
/// being rewritten) is a legacy session file.
pub fn looks_like_cut_session(head: &str) -> bool {
    head.trim_start().starts_with('{')
        && head.contains("\"sessionId\"")
        && head.contains("\"projectHash\"")
        && head.contains("\"messages\"")
}

/// `[{role: "user" | "model", parts: […]}]`: the model's history.
fn is_history(items: &[Value]) -> bool {
    !items.is_empty()
        && items.iter().all(|item| {
            matches!(
                item.get("role").and_then(Value::as_str),
                Some("user" | "model")
            ) && item.get("parts").is_some_and(Value::is_array)
        })
}

/// `logs.json`: `[{sessionId, messageId, type, message, timestamp}]`.
fn is_prompt_log(items: &[Value]) -> bool {
    !items.is_empty()
        && items.iter().all(|item| {
            item.get("sessionId").is_some_and(Value::is_string)
                && item.get("messageId").is_some_and(Value::is_number)
                && item.get("message").is_some_and(Value::is_string)
        })
}

/// Parses a session file, checkpoint or prompt log.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut out = Emitter::new(source);
    match serde_json::from_str::<Value>(text) {
        Ok(document) => out.document(text, &document),
        Err(error) => {
            // JSON lines, unless no record of a session file starts it (a
            // document cut short: its lines are pieces of one value).
            let jsonl = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(20)
                .any(|l| {
                    serde_json::from_str::<Value>(l.trim()).is_ok_and(|r| looks_like_record(&r))
                });
            let stream = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(20)
                .any(|l| {
                    serde_json::from_str::<Value>(l.trim())
                        .is_ok_and(|r| looks_like_stream_event(&r))
                });
            if stream {
                out.stream(text);
            } else if jsonl {
                out.lines(text);
            } else {
                out.cut_document(text, &error);
            }
        }
    }
    out.finish()
}

/// The arrays of a document that hold its records, borrowed so each
/// element's place in the text is known.
#[derive(Deserialize)]
struct Containers<'a> {
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
    #[serde(borrow, default)]
    history: Option<&'a RawValue>,
}

/// Where a borrowed JSON value lies in the text it was read from.
fn place_of(text: &str, raw: &RawValue) -> Option<(usize, usize)> {
    let inner = raw.get();
    let start = (inner.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
    let end = start.checked_add(inner.len())?;
    (text.get(start..end) == Some(inner)).then_some((start, end))
}

/// The records of a parsed document with their byte ranges: the messages
/// of a session, the turns of a checkpoint, the entries of a prompt log.
fn records<'d>(text: &str, document: &'d Value) -> Vec<(&'d Value, usize, usize)> {
    let (values, raws) = match document {
        Value::Array(items) => (
            items.as_slice(),
            serde_json::from_str::<Vec<&RawValue>>(text).unwrap_or_default(),
        ),
        Value::Object(object) => {
            let key = if object.get("messages").is_some_and(Value::is_array) {
                "messages"
            } else {
                "history"
            };
            let values = object
                .get(key)
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let raws = serde_json::from_str::<Containers<'_>>(text)
                .ok()
                .and_then(|c| {
                    if key == "messages" {
                        c.messages
                    } else {
                        c.history
                    }
                })
                .and_then(|array| serde_json::from_str::<Vec<&RawValue>>(array.get()).ok())
                .unwrap_or_default();
            (values, raws)
        }
        _ => (&[][..], Vec::new()),
    };
    values
        .iter()
        .enumerate()
        .map(|(i, value)| {
            let (start, end) = raws
                .get(i)
                .and_then(|raw| place_of(text, raw))
                .unwrap_or((0, text.len()));
            (value, start, end)
        })
        .collect()
}

/// Where the events of one record are found.
trait Places {
    /// The record as a whole (for notices and unknown records).
    fn record(&mut self, message: &Value) -> Span;
    /// A message's text, given as the strings it is made of.
    fn prose(&mut self, message: &Value, parts: &[&str]) -> Span;
    /// A tool call's command.
    fn command(&mut self, message: &Value, call: &Value, command: &str) -> Span;
    /// A tool call's result, given as the string the response holds.
    fn output(&mut self, message: &Value, call: &Value, raw: &str) -> Span;
}

/// In a document: the JSON strings themselves, searched for within the
/// record's bytes, in order.
struct InText<'t> {
    locator: Locator<'t>,
    source: usize,
    start: usize,
    end: usize,
}

impl Places for InText<'_> {
    fn record(&mut self, _message: &Value) -> Span {
        Span::new(self.source, self.start, self.end)
    }

    fn prose(&mut self, _message: &Value, parts: &[&str]) -> Span {
        let mut span: Option<Span> = None;
        for part in parts {
            let found = self.locator.string(part);
            span = Some(span.map_or(found, |s| s.cover(found)));
        }
        span.unwrap_or_else(|| Span::new(self.source, self.start, self.start))
    }

    fn command(&mut self, _message: &Value, call: &Value, command: &str) -> Span {
        // The call's id comes first in its record, its command after it; in
        // a record written in another key order, the command's first place.
        let anywhere = self.locator.find(command);
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            self.locator.string(id);
        }
        let after_id = self.locator.string(command);
        if after_id.end == after_id.start {
            anywhere
        } else {
            after_id
        }
    }

    fn output(&mut self, _message: &Value, _call: &Value, raw: &str) -> Span {
        if raw.is_empty() {
            return self.locator.here();
        }
        self.locator.string(raw)
    }
}

/// In JSON lines: the line where each thing first appeared.
struct OnLines {
    source: usize,
    /// Message id → the line it first appeared on, and the first line on
    /// which it had text.
    messages: HashMap<String, (Span, Option<Span>)>,
    /// Tool call id → the line it first appeared on, and the first line on
    /// which it had a result.
    calls: HashMap<String, (Span, Option<Span>)>,
}

fn id_of(value: &Value) -> &str {
    value.get("id").and_then(Value::as_str).unwrap_or("")
}

impl Places for OnLines {
    fn record(&mut self, message: &Value) -> Span {
        self.messages
            .get(id_of(message))
            .map_or(Span::new(self.source, 0, 0), |m| m.0)
    }

    fn prose(&mut self, message: &Value, _parts: &[&str]) -> Span {
        self.messages
            .get(id_of(message))
            .map_or(Span::new(self.source, 0, 0), |m| m.1.unwrap_or(m.0))
    }

    fn command(&mut self, message: &Value, call: &Value, _command: &str) -> Span {
        match self.calls.get(id_of(call)) {
            Some(call) => call.0,
            None => self.record(message),
        }
    }

    fn output(&mut self, message: &Value, call: &Value, _raw: &str) -> Span {
        match self.calls.get(id_of(call)) {
            Some(call) => call.1.unwrap_or(call.0),
            None => self.record(message),
        }
    }
}

impl OnLines {
    fn new(source: usize) -> Self {
        Self {
            source,
            messages: HashMap::new(),
            calls: HashMap::new(),
        }
    }

    /// Notes where a message and its calls first appeared, and first had
    /// text and results.
    fn seen(&mut self, message: &Value, line: Span) {
        let has_text = !message_text(message.get("content")).trim().is_empty();
        let entry = self
            .messages
            .entry(id_of(message).to_owned())
            .or_insert((line, None));
        if has_text && entry.1.is_none() {
            entry.1 = Some(line);
        }
        for call in message
            .get("toolCalls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let has_result = call.get("result").is_some_and(|r| !r.is_null());
            let entry = self
                .calls
                .entry(id_of(call).to_owned())
                .or_insert((line, None));
            if has_result && entry.1.is_none() {
                entry.1 = Some(line);
            }
        }
    }
}

struct Emitter {
    source: usize,
    parsed: Parsed,
    /// Events of no known meaning, kept after the others.
    unknown: Vec<Event>,
    /// A sub-agent's session: its commands are the sub-agent's.
    actor: Actor,
    /// A checkpoint's calls still waiting for their responses: the key
    /// they pair by (see [`pairing_key`]), the tool's name, the command event.
    pending: Vec<(String, String, usize)>,
}

impl Emitter {
    fn new(source: usize) -> Self {
        Self {
            source,
            parsed: Parsed::default(),
            unknown: Vec::new(),
            actor: Actor::Agent,
            pending: Vec::new(),
        }
    }

    fn finish(mut self) -> Parsed {
        self.parsed.events.append(&mut self.unknown);
        self.parsed
    }

    fn push(&mut self, span: Span, kind: EventKind) -> usize {
        self.parsed.events.push(Event { span, kind });
        self.parsed.events.len() - 1
    }

    fn actor_from(&mut self, metadata: &Value) {
        if metadata.get("kind").and_then(Value::as_str) == Some("subagent") {
            self.actor = Actor::SubAgent;
        }
    }

    /// A whole document: a legacy session, a checkpoint or a prompt log.
    fn document(&mut self, text: &str, document: &Value) {
        let checkpoint = match document {
            Value::Array(items) => is_history(items),
            Value::Object(object) => {
                !object.get("messages").is_some_and(Value::is_array)
                    && object.get("history").is_some_and(Value::is_array)
            }
            _ => false,
        };
        let prompts = matches!(document, Value::Array(items) if is_prompt_log(items));
        if document.is_array() && !checkpoint && !prompts {
            self.parsed.diagnostics.push(Diagnostic::warning(
                self.source,
                None,
                "a JSON array of neither Gemini CLI history turns nor prompts; nothing was read from it",
            ));
            return;
        }
        if document.is_object() && !checkpoint {
            self.actor_from(document);
            if !document.get("messages").is_some_and(Value::is_array) {
                // A JSON-lines file of one line: its metadata only.
                if !looks_like_record(document) {
                    self.parsed.diagnostics.push(Diagnostic::warning(
                        self.source,
                        None,
                        "no Gemini CLI messages (`messages`, `history`) found in this JSON document",
                    ));
                }
                return;
            }
        }
        for (record, start, end) in records(text, document) {
            let mut places = InText {
                locator: Locator::within(text, self.source, start, end),
                source: self.source,
                start,
                end,
            };
            if checkpoint {
                self.turn(record, &mut places);
            } else if prompts {
                self.prompt(record, &mut places);
            } else {
                self.message(record, &mut places);
            }
        }
    }

    /// A legacy session cut short: the messages before the cut.
    fn cut_document(&mut self, text: &str, error: &serde_json::Error) {
        let line = u32::try_from(error.line()).ok();
        let Some(CutRecords { records, complete }) = cut_records(text) else {
            self.parsed.diagnostics.push(Diagnostic::warning(
                self.source,
                line,
                format!(
                    "not valid JSON, so nothing was read from this Gemini CLI session: {error}"
                ),
            ));
            return;
        };
        if !complete {
            self.parsed.diagnostics.push(Diagnostic::warning(
                self.source,
                line,
                format!(
                    "the session file is cut short ({error}); the {} messages before the cut were read",
                    records.len()
                ),
            ));
        }
        for (record, start, end) in &records {
            let mut places = InText {
                locator: Locator::within(text, self.source, *start, *end),
                source: self.source,
                start: *start,
                end: *end,
            };
            self.message(record, &mut places);
        }
    }

    /// JSON lines: applied in order, as Gemini CLI loads them, then told.
    fn lines(&mut self, text: &str) {
        let mut places = OnLines::new(self.source);
        // Message ids in the order they first appeared, and their last state.
        let mut order: Vec<String> = Vec::new();
        let mut latest: HashMap<String, Value> = HashMap::new();
        for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
            let span = Span::new(self.source, offset, offset + line.len());
            let line_number = u32::try_from(number + 1).unwrap_or(u32::MAX);
            if line.trim().is_empty() {
                continue;
            }
            let Some(record) = self.json_line(line, span, line_number) else {
                continue;
            };
            if let Some(id) = record.get("$rewindTo").and_then(Value::as_str) {
                let from = order.iter().position(|m| m == id).unwrap_or(0);
                let dropped = order.split_off(from);
                for id in &dropped {
                    latest.remove(id);
                }
                if !dropped.is_empty() {
                    self.parsed.diagnostics.push(Diagnostic::info(
                        self.source,
                        Some(line_number),
                        format!(
                            "the conversation was rewound here: {} earlier message{} left the agent's history and {} not analyzed (any command in them did run)",
                            dropped.len(),
                            if dropped.len() == 1 { "" } else { "s" },
                            if dropped.len() == 1 { "is" } else { "are" },
                        ),
                    ));
                }
            } else if let Some(set) = record.get("$set") {
                self.actor_from(set);
                // A history rewrite (output masking) lists every message:
                // only the ones never seen are new.
                for message in set
                    .get("messages")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let id = id_of(message);
                    if !id.is_empty() && !latest.contains_key(id) {
                        places.seen(message, span);
                        order.push(id.to_owned());
                        latest.insert(id.to_owned(), message.clone());
                    }
                }
            } else if record.get("id").is_some_and(Value::is_string) {
                let id = id_of(&record).to_owned();
                places.seen(&record, span);
                if !latest.contains_key(&id) {
                    order.push(id.clone());
                }
                latest.insert(id, record);
            } else if record.get("sessionId").is_some() {
                self.actor_from(&record);
            } else {
                self.unknown.push(Event {
                    span,
                    kind: EventKind::Unrecognized,
                });
            }
        }
        for id in &order {
            if let Some(message) = latest.get(id) {
                self.message(message, &mut places);
            }
        }
    }

    /// One line of a JSON-lines shape, parsed; a line that does not parse
    /// is a diagnostic and a line of no meaning.
    fn json_line(&mut self, line: &str, span: Span, line_number: u32) -> Option<Value> {
        match serde_json::from_str(line.trim()) {
            Ok(record) => Some(record),
            Err(error) => {
                self.parsed.diagnostics.push(Diagnostic::warning(
                    self.source,
                    Some(line_number),
                    format!("malformed JSON record skipped: {error}"),
                ));
                self.unknown.push(Event {
                    span,
                    kind: EventKind::Unrecognized,
                });
                None
            }
        }
    }

    /// Headless `stream-json` output, one event a line.
    fn stream(&mut self, text: &str) {
        // Shell calls waiting for their result: tool id → command event.
        let mut calls: HashMap<String, usize> = HashMap::new();
        // The assistant's reply streaming in: its span and text so far.
        let mut reply: Option<(Span, String)> = None;
        for (number, (offset, line)) in lines_with_offsets(text).enumerate() {
            let span = Span::new(self.source, offset, offset + line.len());
            if line.trim().is_empty() {
                continue;
            }
            let line_number = u32::try_from(number + 1).unwrap_or(u32::MAX);
            let Some(record) = self.json_line(line, span, line_number) else {
                continue;
            };
            let kind = record.get("type").and_then(Value::as_str);
            let role = record.get("role").and_then(Value::as_str);
            let content = record.get("content").and_then(Value::as_str);
            if kind == Some("message") && role == Some("assistant") {
                let content = content.unwrap_or("");
                let delta = record.get("delta").and_then(Value::as_bool) == Some(true);
                match reply.as_mut() {
                    Some((open, text)) if delta => {
                        *open = open.cover(span);
                        text.push_str(content);
                    }
                    _ => {
                        self.end_reply(reply.take());
                        reply = Some((span, content.to_owned()));
                    }
                }
                continue;
            }
            self.end_reply(reply.take());
            match kind {
                Some("message") => {
                    if let Some(content) = content.filter(|c| !c.trim().is_empty()) {
                        self.push(
                            span,
                            EventKind::Prose {
                                role: Role::User,
                                text: Some(content.to_owned()),
                            },
                        );
                    }
                }
                Some("tool_use") => {
                    let name = record.get("tool_name").and_then(Value::as_str);
                    let parameters = record.get("parameters");
                    let command = parameters
                        .and_then(|p| p.get("command"))
                        .and_then(Value::as_str)
                        .filter(|c| !c.trim().is_empty());
                    let (Some(name), Some(command)) = (name, command) else {
                        continue;
                    };
                    if !SHELL_TOOLS.contains(&name) {
                        continue;
                    }
                    let background = parameters
                        .and_then(|p| p.get("is_background"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    let event = self.push(
                        span,
                        EventKind::Command {
                            text: command.to_owned(),
                            actor: self.actor,
                            prompt_host: None,
                            time: record
                                .get("timestamp")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                            background,
                        },
                    );
                    if let Some(id) = record.get("tool_id").and_then(Value::as_str) {
                        calls.insert(id.to_owned(), event);
                    }
                }
                Some("tool_result") => {
                    let Some(command) = record
                        .get("tool_id")
                        .and_then(Value::as_str)
                        .and_then(|id| calls.remove(id))
                    else {
                        continue;
                    };
                    let status = record.get("status").and_then(Value::as_str);
                    // An error result holds `error: {type, message}`.
                    let error = record.get("error").and_then(|e| {
                        e.get("message")
                            .and_then(Value::as_str)
                            .or_else(|| e.as_str())
                    });
                    let output = record.get("output").and_then(Value::as_str);
                    let response = match (output, error) {
                        (Some(output), _) if status != Some("error") || error.is_none() => {
                            Response {
                                raw: output,
                                other: None,
                                is_error: false,
                            }
                        }
                        (_, Some(error)) => Response {
                            raw: error,
                            other: None,
                            is_error: true,
                        },
                        _ => Response {
                            raw: "",
                            other: None,
                            is_error: status == Some("error"),
                        },
                    };
                    self.output(command, span, &response, status);
                }
                _ => self.unknown.push(Event {
                    span,
                    kind: EventKind::Unrecognized,
                }),
            }
        }
        self.end_reply(reply);
    }

    /// The assistant's streamed reply, once whole.
    fn end_reply(&mut self, reply: Option<(Span, String)>) {
        if let Some((span, text)) = reply
            && !text.trim().is_empty()
        {
            self.push(
                span,
                EventKind::Prose {
                    role: Role::Assistant,
                    text: Some(text),
                },
            );
        }
    }

    /// One session message.
    fn message(&mut self, message: &Value, places: &mut impl Places) {
        let time = message.get("timestamp").and_then(Value::as_str);
        match message.get("type").and_then(Value::as_str) {
            Some("user") => {
                // What the user typed; `content` may add files they named.
                let content = message
                    .get("displayContent")
                    .filter(|d| !message_text(Some(d)).trim().is_empty())
                    .or_else(|| message.get("content"));
                self.prose(message, content, Role::User, places);
            }
            Some("gemini") => {
                self.prose(message, message.get("content"), Role::Assistant, places);
                for call in message
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.tool_call(message, call, time, places);
                }
            }
            // The CLI's own notices (`info`, `error`, `warning`) and
            // anything newer: not the agent's words.
            _ => {
                let span = places.record(message);
                self.unknown.push(Event {
                    span,
                    kind: EventKind::Unrecognized,
                });
            }
        }
    }

    fn prose(
        &mut self,
        message: &Value,
        content: Option<&Value>,
        role: Role,
        places: &mut impl Places,
    ) {
        let parts = text_parts(content);
        let text = parts.join("\n");
        if text.trim().is_empty() {
            return;
        }
        let span = places.prose(message, &parts);
        self.push(
            span,
            EventKind::Prose {
                role,
                text: Some(text),
            },
        );
    }

    fn tool_call(
        &mut self,
        message: &Value,
        call: &Value,
        time: Option<&str>,
        places: &mut impl Places,
    ) {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        if !SHELL_TOOLS.contains(&name) {
            return;
        }
        let args = call.get("args");
        let Some(command) = args
            .and_then(|a| a.get("command"))
            .and_then(Value::as_str)
            .filter(|c| !c.trim().is_empty())
        else {
            return;
        };
        let background = args
            .and_then(|a| a.get("is_background"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let span = places.command(message, call, command);
        let time = time
            .or_else(|| call.get("timestamp").and_then(Value::as_str))
            .map(str::to_owned);
        let command_event = self.push(
            span,
            EventKind::Command {
                text: command.to_owned(),
                actor: self.actor,
                prompt_host: None,
                time,
                background,
            },
        );
        let Some(response) = response_of(call.get("result")) else {
            return;
        };
        let status = call.get("status").and_then(Value::as_str);
        let span = places.output(message, call, response.raw);
        self.output(command_event, span, &response, status);
    }

    fn output(
        &mut self,
        command: usize,
        span: Span,
        response: &Response<'_>,
        status: Option<&str>,
    ) {
        let (text, exit_code, failed) = if response.is_error {
            // The tool failed or was stopped: no exit code. A cancellation
            // says nothing of the command's own outcome.
            let cancelled =
                status == Some("cancelled") || response.raw.starts_with("[Operation Cancelled]");
            (response.text().to_owned(), None, !cancelled)
        } else {
            let read = shell_output(response.text());
            (read.body, read.exit_code, read.failed)
        };
        self.push(
            span,
            EventKind::Output {
                command,
                text: Some(text),
                exit_code,
                is_error: failed || exit_code.is_some_and(|c| c != 0) || status == Some("error"),
            },
        );
    }

    /// One turn of a checkpoint: the model's text and calls, or the user's
    /// text and the calls' responses.
    fn turn(&mut self, turn: &Value, places: &mut InText<'_>) {
        let model = turn.get("role").and_then(Value::as_str) == Some("model");
        let parts = turn.get("parts").and_then(Value::as_array);
        let texts = text_parts(turn.get("parts"));
        let text = texts.join("\n");
        if !text.trim().is_empty() {
            let span = places.prose(turn, &texts);
            let role = if model { Role::Assistant } else { Role::User };
            self.push(
                span,
                EventKind::Prose {
                    role,
                    text: Some(text),
                },
            );
        }
        for part in parts.into_iter().flatten() {
            if let Some(call) = part.get("functionCall").filter(|_| model) {
                let name = call.get("name").and_then(Value::as_str).unwrap_or("");
                let command = call
                    .pointer("/args/command")
                    .and_then(Value::as_str)
                    .filter(|c| !c.trim().is_empty());
                let (true, Some(command)) = (SHELL_TOOLS.contains(&name), command) else {
                    continue;
                };
                let background = call
                    .pointer("/args/is_background")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let span = places.locator.string(command);
                let event = self.push(
                    span,
                    EventKind::Command {
                        text: command.to_owned(),
                        actor: self.actor,
                        prompt_host: None,
                        time: None,
                        background,
                    },
                );
                self.pending
                    .push((pairing_key(call), name.to_owned(), event));
            } else if let Some(response) = part.get("functionResponse").filter(|_| !model) {
                // By id, else the oldest call of the same tool.
                let key = pairing_key(response);
                let name = response.get("name").and_then(Value::as_str).unwrap_or("");
                let Some(at) = self
                    .pending
                    .iter()
                    .position(|(k, _, _)| *k == key)
                    .or_else(|| self.pending.iter().position(|(_, n, _)| n == name))
                else {
                    continue;
                };
                let (_, _, command) = self.pending.remove(at);
                let Some(read) = response_of(Some(part)) else {
                    continue;
                };
                let span = if read.raw.is_empty() {
                    places.locator.here()
                } else {
                    places.locator.string(read.raw)
                };
                self.output(command, span, &read, None);
            }
        }
    }

    /// One entry of `logs.json`: a prompt the user typed.
    fn prompt(&mut self, entry: &Value, places: &mut InText<'_>) {
        let Some(message) = entry.get("message").and_then(Value::as_str) else {
            return;
        };
        if message.trim().is_empty() {
            return;
        }
        let span = places.locator.string(message);
        self.push(
            span,
            EventKind::Prose {
                role: Role::User,
                text: Some(message.to_owned()),
            },
        );
    }
}

/// A call's id, or its name when the history keeps no ids (then calls and
/// responses pair in order).
fn pairing_key(call: &Value) -> String {
    match call.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => format!("id:{id}"),
        _ => format!(
            "name:{}",
            call.get("name").and_then(Value::as_str).unwrap_or("")
        ),
    }
}

/// The strings of a message's text: a string, or the text parts of a part
/// list (thoughts left out).
fn text_parts(content: Option<&Value>) -> Vec<&str> {
    match content {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
            .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
            .collect(),
        Some(part @ Value::Object(_))
            if part.get("thought").and_then(Value::as_bool) != Some(true) =>
        {
            part.get("text")
                .and_then(Value::as_str)
                .into_iter()
                .collect()
        }
        _ => Vec::new(),
    }
}

fn message_text(content: Option<&Value>) -> String {
    text_parts(content).join("\n")
}

/// What a tool call's result holds.
struct Response<'v> {
    /// The string as the session stores it (found in the text for spans).
    raw: &'v str,
    /// A response of another shape, written out.
    other: Option<String>,
    /// `{"error": …}`: the tool failed, or was cancelled.
    is_error: bool,
}

impl Response<'_> {
    fn text(&self) -> &str {
        self.other.as_deref().unwrap_or(self.raw)
    }
}

/// The response of a call's result: `[{functionResponse: {response}}]`, one
/// such part, or a bare string.
fn response_of(result: Option<&Value>) -> Option<Response<'_>> {
    let part = match result? {
        Value::Array(parts) => parts
            .iter()
            .find(|p| p.get("functionResponse").is_some())
            .or_else(|| parts.first())?,
        Value::Null => return None,
        other => other,
    };
    if let Some(text) = part.as_str() {
        return Some(Response {
            raw: text,
            other: None,
            is_error: false,
        });
    }
    let response = part.pointer("/functionResponse/response")?;
    if let Some(output) = response.get("output").and_then(Value::as_str) {
        return Some(Response {
            raw: output,
            other: None,
            is_error: false,
        });
    }
    if let Some(error) = response.get("error").and_then(Value::as_str) {
        return Some(Response {
            raw: error,
            other: None,
            is_error: true,
        });
    }
    Some(Response {
        raw: "",
        other: Some(response.to_string()),
        is_error: false,
    })
}

/// What the shell tool's text says.
#[derive(Debug, PartialEq)]
struct ShellOutput {
    /// The command's own output (stdout then stderr), without the envelope.
    body: String,
    exit_code: Option<i32>,
    /// An `Error:` or a signal: the command did not end normally.
    failed: bool,
}

/// Reads the shell tool's envelope (every version's wording); text of any
/// other shape (a summary, a refusal) is the output as it is, with no code.
fn shell_output(text: &str) -> ShellOutput {
    let plain = |body: &str| ShellOutput {
        body: body.to_owned(),
        exit_code: None,
        failed: false,
    };
    if text.starts_with("Command was cancelled")
        || text.starts_with("Command was automatically cancelled")
    {
        // `… Below is the output before it was cancelled:\n<output>`
        let body = text
            .split_once(" before it was cancelled:\n")
            .map_or("", |(_, body)| body);
        return plain(body);
    }
    let newest = text.starts_with("Output: ");
    if !(newest || text.starts_with("Command: ") || text.starts_with("Stdout: ")) {
        return plain(text);
    }
    let lines: Vec<&str> = text.split('\n').collect();
    // The fields after the output, each on one line, read from the end.
    let mut end = lines.len();
    let (mut exit, mut signal, mut error) = (None, None, None);
    while let Some(line) = end.checked_sub(1).and_then(|i| lines.get(i)) {
        if let Some(value) = line.strip_prefix("Exit Code: ") {
            exit = Some(value.trim());
        } else if let Some(value) = line.strip_prefix("Signal: ") {
            signal = Some(value.trim());
        } else if !(line.starts_with("Background PIDs: ")
            || line.starts_with("Process Group PGID: "))
        {
            break;
        }
        end -= 1;
    }
    if let Some(value) = end
        .checked_sub(1)
        .and_then(|i| lines.get(i))
        .and_then(|l| l.strip_prefix("Error: "))
    {
        error = Some(value.trim());
        end -= 1;
    }
    let fields = lines.get(..end).unwrap_or_default();
    let field = |name: &str| fields.iter().position(|l| l.starts_with(name));
    let value = |from: usize, to: usize, name: &str| -> String {
        let mut taken: Vec<&str> = fields.get(from..to).unwrap_or_default().to_vec();
        if let Some(first) = taken.first_mut() {
            *first = first.strip_prefix(name).unwrap_or(first);
        }
        let joined = taken.join("\n");
        if joined.trim() == "(empty)" {
            String::new()
        } else {
            joined
        }
    };
    let body = match (field("Output: "), field("Stdout: ")) {
        (Some(at), _) => value(at, fields.len(), "Output: "),
        (None, Some(at)) => {
            let stderr = fields
                .iter()
                .rposition(|l| l.starts_with("Stderr: "))
                .filter(|&s| s > at);
            match stderr {
                Some(s) => {
                    let (out, err) = (value(at, s, "Stdout: "), value(s, fields.len(), "Stderr: "));
                    match (out.is_empty(), err.is_empty()) {
                        (_, true) => out,
                        (true, false) => err,
                        (false, false) => format!("{out}\n{err}"),
                    }
                }
                None => value(at, fields.len(), "Stdout: "),
            }
        }
        (None, None) => String::new(),
    };
    let said = |v: Option<&str>| v.is_some_and(|v| !matches!(v, "" | "0" | "(none)" | "null"));
    let failed = said(signal) || said(error);
    let exit_code = match exit {
        Some(code) => code.parse().ok(),
        // The newest wording leaves out a zero exit code, and says any
        // other end (a signal, an error).
        None if newest && !failed => Some(0),
        None => None,
    };
    ShellOutput {
        body,
        exit_code,
        failed,
    }
}

/// The messages of a legacy session read one at a time, each with its byte
/// range, up to the cut.
struct CutRecords {
    records: Vec<(Value, usize, usize)>,
    /// The list ended (`]`) before the text did.
    complete: bool,
}

/// The messages of a legacy session cut short, read one at a time until the
/// cut.
fn cut_records(text: &str) -> Option<CutRecords> {
    let key = text.find("\"messages\"")?;
    let after = key + "\"messages\"".len();
    let rest = text.get(after..)?;
    let colon = rest.find(|c: char| !c.is_whitespace())?;
    if !rest.get(colon..)?.starts_with(':') {
        return None;
    }
    let rest = rest.get(colon + 1..)?;
    let open = rest.find(|c: char| !c.is_whitespace())?;
    if !rest.get(open..)?.starts_with('[') {
        return None;
    }
    let mut at = after + colon + 1 + open + 1;
    let mut records = Vec::new();
    loop {
        let rest = text.get(at..)?;
        let skip = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_whitespace() || c == ',')
                .len();
        at += skip;
        let rest = text.get(at..)?;
        if rest.starts_with(']') {
            return Some(CutRecords {
                records,
                complete: true,
            });
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                let end = at + stream.byte_offset();
                records.push((value, at, end));
                at = end;
            }
            _ => {
                return Some(CutRecords {
                    records,
                    complete: false,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        parse(text, 0)
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Command {
                    text,
                    actor,
                    background,
                    ..
                } => format!(
                    "cmd {actor:?}{} {text}",
                    if *background { " bg" } else { "" }
                ),
                EventKind::Output {
                    command,
                    text,
                    exit_code,
                    is_error,
                } => format!(
                    "out {command} {exit_code:?}{} {}",
                    if *is_error { " error" } else { "" },
                    text.as_deref().unwrap_or("")
                ),
                EventKind::Prose { role, text } => {
                    format!("prose {role:?} {}", text.as_deref().unwrap_or(""))
                }
                _ => "other".to_owned(),
            })
            .collect()
    }

    /// The lines (1-based) each event's span covers.
    fn lines(text: &str) -> Vec<(usize, usize)> {
        let index = crate::source::LineIndex::new(text);
        parse(text, 0)
            .events
            .iter()
            .map(|e| {
                let (a, b) = index.lines(e.span.start, e.span.end);
                (a as usize, b as usize)
            })
            .collect()
    }

    #[test]
    fn every_envelope_wording() {
        let old = "Command: pip install x\nDirectory: (root)\nStdout: (empty)\nStderr: bash: pip: command not found\nError: (none)\nExit Code: 127\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 881";
        assert_eq!(
            shell_output(old),
            ShellOutput {
                body: "bash: pip: command not found".into(),
                exit_code: Some(127),
                failed: false
            }
        );
        let merged = "Command: ls\nDirectory: (root)\nOutput: a\nError: b\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 9";
        assert_eq!(
            shell_output(merged),
            ShellOutput {
                body: "a\nError: b".into(),
                exit_code: Some(0),
                failed: false
            }
        );
        let newest = "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345";
        assert_eq!(
            shell_output(newest),
            ShellOutput {
                body: "AgentSessions/\nREADME.md".into(),
                exit_code: Some(0),
                failed: false
            }
        );
        let failed = "Output: (empty)\nExit Code: 2\nProcess Group PGID: 7";
        assert_eq!(shell_output(failed).exit_code, Some(2));
        assert_eq!(shell_output(failed).body, "");
        let killed = "Output: loading\nSignal: 9\nProcess Group PGID: 7";
        assert_eq!(
            shell_output(killed),
            ShellOutput {
                body: "loading".into(),
                exit_code: None,
                failed: true
            }
        );
        let spawn = "Output: (empty)\nError: spawn bash ENOENT";
        assert!(shell_output(spawn).failed);
        assert_eq!(
            shell_output("Command: x\nDirectory: (root)\nOutput: y\nExit Code: (none)").exit_code,
            None
        );
        let cancelled = "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nINFO loading";
        assert_eq!(shell_output(cancelled).body, "INFO loading");
        assert_eq!(shell_output(cancelled).exit_code, None);
        let summary = "The command listed two files.";
        assert_eq!(shell_output(summary).body, summary);
        assert_eq!(shell_output(summary).exit_code, None);
    }

    const LEGACY: &str = r#"{
  "sessionId": "s1",
  "projectHash": "abc",
  "messages": [
    {
      "id": "u1",
      "timestamp": "2025-10-27T19:56:01.701Z",
      "type": "user",
      "content": "install it"
    },
    {
      "id": "g1",
      "timestamp": "2025-10-27T19:56:04.625Z",
      "type": "gemini",
      "content": "I'll install it.",
      "toolCalls": [
        {
          "id": "run_shell_command-1",
          "name": "run_shell_command",
          "args": {
            "command": "pip install x",
            "description": "Install x."
          },
          "result": [
            {
              "functionResponse": {
                "id": "run_shell_command-1",
                "name": "run_shell_command",
                "response": {
                  "output": "Command: pip install x\nDirectory: (root)\nOutput: bash: line 1: pip: command not found\nError: (none)\nExit Code: 127\nSignal: 0\nBackground PIDs: (none)\nProcess Group PGID: 88536"
                }
              }
            }
          ],
          "status": "success",
          "timestamp": "2025-10-27T19:56:05.000Z",
          "resultDisplay": "bash: line 1: pip: command not found"
        },
        {
          "id": "run_shell_command-2",
          "name": "run_shell_command",
          "args": { "command": "python3" },
          "result": [
            {
              "functionResponse": {
                "id": "run_shell_command-2",
                "name": "run_shell_command",
                "response": { "error": "[Operation Cancelled] Reason: User cancelled the operation." }
              }
            }
          ],
          "status": "cancelled"
        },
        {
          "id": "read_file-3",
          "name": "read_file",
          "args": { "file_path": "/x" },
          "result": [{ "functionResponse": { "response": { "output": "x" } } }],
          "status": "success"
        }
      ],
      "thoughts": [{ "subject": "Done", "description": "It is installed." }]
    },
    {
      "id": "i1",
      "timestamp": "2025-10-27T19:56:06.000Z",
      "type": "info",
      "content": "Request cancelled."
    }
  ]
}
"#;

    #[test]
    fn legacy_document_with_spans_at_the_command_and_output() {
        assert!(looks_like_document(
            &serde_json::from_str(LEGACY).unwrap_or(Value::Null)
        ));
        assert_eq!(
            events(LEGACY),
            [
                "prose User install it",
                "prose Assistant I'll install it.",
                "cmd Agent pip install x",
                "out 2 Some(127) error bash: line 1: pip: command not found",
                "cmd Agent python3",
                "out 4 None [Operation Cancelled] Reason: User cancelled the operation.",
                "other",
            ]
        );
        let at = |needle: &str| {
            LEGACY
                .lines()
                .position(|l| l.contains(needle))
                .map_or(0, |i| i + 1)
        };
        let spans = lines(LEGACY);
        assert_eq!(spans[0], (at("\"install it\""), at("\"install it\"")));
        assert_eq!(spans[2].0, at("\"command\": \"pip install x\""));
        assert_eq!(spans[3].0, at("\"output\": \"Command: pip"));
        assert_eq!(spans[4].0, at("\"command\": \"python3\""));
        assert_eq!(spans[5].0, at("[Operation Cancelled]"));
        // The notice spans its whole record.
        assert_eq!(
            spans[6],
            (at("\"id\": \"i1\"") - 1, at("\"Request cancelled.\"") + 1)
        );
    }

    #[test]
    fn a_cut_document_keeps_the_messages_before_the_cut() {
        let cut = &LEGACY[..LEGACY.find("\"id\": \"i1\"").unwrap_or(0)];
        assert!(looks_like_cut_session(cut));
        let parsed = parse(cut, 0);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(
            parsed.diagnostics[0]
                .message
                .contains("2 messages before the cut")
        );
        assert_eq!(events(cut).len(), 6);
        let garbage = "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": {";
        assert!(parse(garbage, 0).events.is_empty());
        assert_eq!(parse(garbage, 0).diagnostics.len(), 1);
    }

    #[test]
    fn json_lines_replace_messages_by_id_and_rewind() {
        let text = r#"{"sessionId":"s2","projectHash":"p","startTime":"t","lastUpdated":"t","kind":"main"}
{"id":"u1","timestamp":"2026-04-29T21:39:33.155Z","type":"user","content":[{"text":"Say hello and list files."}]}
{"$set":{"lastUpdated":"2026-04-29T21:39:33.156Z"}}
{"id":"g1","timestamp":"2026-04-29T21:39:35.125Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls -F"},"status":"executing","timestamp":"t"}]}
{"id":"g1","timestamp":"2026-04-29T21:39:35.125Z","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls -F"},"result":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"}}}],"status":"success","timestamp":"t"}]}
{"id":"g2","timestamp":"t","type":"gemini","content":[{"text":"thinking","thought":true},{"text":"Hello! I listed the files."}]}
{"id":"u2","timestamp":"t","type":"user","content":"start the server"}
{"id":"g3","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c2","name":"run_shell_command","args":{"command":"ollama serve","is_background":true},"result":[{"functionResponse":{"response":{"output":"Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view."}}}],"status":"success"}]}
{"$rewindTo":"u2"}
{not json
{"id":"g4","timestamp":"t","type":"gemini","content":"Done."}
"#;
        assert!(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .all(|r| looks_like_record(&r))
        );
        let parsed = parse(text, 0);
        assert_eq!(
            parsed
                .diagnostics
                .iter()
                .map(|d| d.line)
                .collect::<Vec<_>>(),
            [Some(9), Some(10)]
        );
        assert_eq!(
            events(text),
            [
                "prose User Say hello and list files.",
                "cmd Agent ls -F",
                "out 1 Some(0) AgentSessions/\nREADME.md",
                "prose Assistant Hello! I listed the files.",
                "prose Assistant Done.",
                "other",
            ]
        );
        // The command where it was first recorded, its output where it came.
        assert_eq!(&lines(text)[..4], [(2, 2), (4, 4), (5, 5), (6, 6)]);
    }

    #[test]
    fn background_calls_and_sub_agents() {
        let text = r#"{"sessionId":"s3","projectHash":"p","kind":"subagent"}
{"id":"g1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c2","name":"run_shell_command","args":{"command":"ollama serve","is_background":true},"result":[{"functionResponse":{"response":{"output":"Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view."}}}],"status":"success"}]}
"#;
        assert_eq!(
            events(text),
            [
                "cmd SubAgent bg ollama serve",
                "out 0 None Command moved to background (PID: 4242). Output hidden. Press Ctrl+B to view."
            ]
        );
    }

    /// Headless `stream-json` output (records of a real run, shortened).
    #[test]
    fn stream_json_events() {
        let text = r#"{"type": "init", "timestamp": "2026-01-30T06:18:17.750Z", "session_id": "6727b31e", "model": "gemini-3-pro-preview"}
{"type": "message", "timestamp": "2026-01-30T06:18:17.751Z", "role": "user", "content": "Build the page."}
{"type": "tool_use", "timestamp": "2026-01-30T06:25:43.689Z", "tool_name": "run_shell_command", "tool_id": "run_shell_command-1", "parameters": {"command": "npm run build"}}
{"type": "tool_use", "timestamp": "2026-01-30T06:25:44.000Z", "tool_name": "read_file", "tool_id": "read_file-2", "parameters": {"path": "a.txt"}}
{"type": "tool_result", "timestamp": "2026-01-30T06:25:45.617Z", "tool_id": "run_shell_command-1", "status": "success", "output": "\n> build\n> vite build\n\nvite v6.4.1 building for production..."}
{"type": "tool_use", "timestamp": "2026-01-30T06:25:50.000Z", "tool_name": "run_shell_command", "tool_id": "run_shell_command-3", "parameters": {"command": "curl -sf localhost:5173"}}
{"type": "tool_result", "timestamp": "2026-01-30T06:25:51.000Z", "tool_id": "run_shell_command-3", "status": "error", "error": {"type": "shell_error", "message": "Exit code 7"}}
{"type": "message", "timestamp": "2026-01-30T06:26:16.149Z", "role": "assistant", "content": "The preview is ", "delta": true}
{"type": "message", "timestamp": "2026-01-30T06:26:16.183Z", "role": "assistant", "content": "(Verified running).", "delta": true}
{"type": "result", "timestamp": "2026-01-30T06:26:20.000Z", "status": "success", "stats": {"total_tokens": 1}}
"#;
        assert_eq!(crate::parse::detect(text), crate::Format::GeminiCliSession);
        assert!(
            parse(text, 0).diagnostics.is_empty(),
            "{:?}",
            parse(text, 0).diagnostics
        );
        assert_eq!(
            events(text),
            [
                "prose User Build the page.",
                "cmd Agent npm run build",
                "out 1 None \n> build\n> vite build\n\nvite v6.4.1 building for production...",
                "cmd Agent curl -sf localhost:5173",
                "out 3 None error Exit code 7",
                "prose Assistant The preview is (Verified running).",
                // `init` and `result`, kept as lines of no meaning.
                "other",
                "other",
            ]
        );
        // The streamed reply is one event over its two lines.
        assert!(lines(text).contains(&(8, 9)), "{:?}", lines(text));
    }

    #[test]
    fn checkpoints_pair_calls_and_responses() {
        let text = r#"{
  "history": [
    { "role": "user", "parts": [{ "text": "Is vLLM up?" }] },
    {
      "role": "model",
      "parts": [
        { "text": "Checking.", "thought": true },
        { "functionCall": { "name": "run_shell_command", "args": { "command": "curl -s localhost:8000/v1/models" } } }
      ]
    },
    {
      "role": "user",
      "parts": [
        { "functionResponse": { "name": "run_shell_command", "response": { "output": "Command: curl -s localhost:8000/v1/models\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 7\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 5" } } }
      ]
    },
    { "role": "model", "parts": [{ "text": "It is not answering yet." }] }
  ],
  "authType": "oauth-personal"
}"#;
        let document = serde_json::from_str(text).unwrap_or(Value::Null);
        assert!(looks_like_document(&document));
        assert_eq!(
            events(text),
            [
                "prose User Is vLLM up?",
                "cmd Agent curl -s localhost:8000/v1/models",
                "out 1 Some(7) error ",
                "prose Assistant It is not answering yet."
            ]
        );
        assert_eq!(lines(text)[1], (8, 8));
        assert_eq!(lines(text)[2], (14, 14));
    }

    #[test]
    fn prompt_logs_are_the_users_words() {
        let text = r#"[
  {
    "sessionId": "s",
    "messageId": 0,
    "type": "user",
    "message": "start vllm on 8001",
    "timestamp": "2025-07-01T10:00:00.000Z"
  }
]"#;
        assert!(looks_like_document(
            &serde_json::from_str(text).unwrap_or(Value::Null)
        ));
        assert_eq!(events(text), ["prose User start vllm on 8001"]);
        assert_eq!(lines(text), [(6, 6)]);
    }

    #[test]
    fn missing_and_odd_fields_are_skipped() {
        let text = r#"{"sessionId":"s","projectHash":"p","messages":[
{"id":"g1","type":"gemini","content":null,"toolCalls":[
  {"id":"a","name":"run_shell_command","args":{}},
  {"id":"b","name":"run_shell_command","args":{"command":"   "}},
  {"id":"c","name":"run_shell_command","args":{"command":"nvidia-smi"}},
  {"id":"d","name":"run_shell_command","args":{"command":"df -h"},"result":null},
  {"id":"e","name":"run_shell_command","args":{"command":"uptime"},"result":"up 3 days","status":"success"},
  {"id":"f","name":"run_shell_command","args":{"command":"true"},"result":[{"functionResponse":{"response":{"llmContent":"x"}}}]},
  {"id":"g","name":"run_shell_command","args":{"command":"make"},"result":[{"functionResponse":{"response":{"error":"Tool execution denied by policy."}}}],"status":"error"},
  "not a call"
]},
{"type":"user"},
{"id":"u","type":"user","content":[{"inlineData":{"mimeType":"image/png"}}],"displayContent":"look at this"},
{"id":"x","type":"thing","content":"?"},
42
]}"#;
        assert_eq!(
            events(text),
            [
                "cmd Agent nvidia-smi",
                "cmd Agent df -h",
                "cmd Agent uptime",
                "out 2 None up 3 days",
                "cmd Agent true",
                "out 4 None {\"llmContent\":\"x\"}",
                "cmd Agent make",
                "out 6 None error Tool execution denied by policy.",
                "prose User look at this",
                "other",
                "other",
            ]
        );
        assert!(
            parse(r#"{"sessionId":"s","projectHash":"p"}"#, 0)
                .events
                .is_empty()
        );
        assert!(
            parse(r#"{"sessionId":"s","projectHash":"p"}"#, 0)
                .diagnostics
                .is_empty()
        );
        assert_eq!(parse("[1, 2]", 0).diagnostics.len(), 1);
        assert!(parse("", 0).events.is_empty());
    }
}

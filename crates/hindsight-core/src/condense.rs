//! Line-preserving condensation of Claude Code sessions, so that a 1 GB
//! session file is analyzed in bounded memory.
//!
//! Most of a long session's bytes are things no rule looks at: the content of
//! files the agent read, the whole original file stored with every edit,
//! base64 screenshots, thinking blocks and their signatures. The condenser
//! rewrites each JSON record to just what the Claude Code parser reads (record
//! type, time, text blocks, shell commands and their results, background-shell
//! polls), one output line per input line. Other tools' calls and results go
//! whole, and so do the ids every record repeats (`parentUuid`, `sessionId`,
//! the message's `id` and `role`): detection needs a session id only on a
//! record without a message (stream-json's `system` and `result` lines). Line numbers, and so every piece of
//! evidence, stay the same; byte offsets do not, which is why a condensed
//! [`crate::Source`] remembers its original size.
//!
//! Credentials are the exception to "no rule looks at it": an API key in a file
//! the agent read is still an exposed key. Every credential-shaped match in a
//! dropped part is carried over in a `hindsight.secrets` list on the same line,
//! so the secret scan finds it there.
//!
//! Parsing is typed and borrowed (`serde_json` with [`RawValue`]): the parts
//! kept are copied as raw JSON without being decoded, and the parts dropped
//! are skipped without being allocated. The CLI feeds the condenser one line
//! at a time while reading a file, so the whole file is never in memory;
//! [`crate::analyze`] condenses whole texts the same way, so that every face
//! analyzes the same condensed records.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::diagnostic::LONG_LINE;
use crate::parse::claude_code::{POLL_TOOLS, SHELL_TOOLS};
use crate::source::floor_char_boundary;
use crate::timeline::secrets;

/// Rewrites Claude Code JSONL lines; keeps the tool-call ids it has seen so
/// results can be matched to shell calls across lines.
#[derive(Debug, Default)]
pub struct Condenser {
    /// Ids of shell and shell-poll tool calls: their results are kept.
    kept_calls: HashSet<String>,
    /// Ids of shell-poll calls: the parser reads their `toolUseResult` too.
    poll_calls: HashSet<String>,
    /// Lines and bytes seen so far.
    lines: u32,
    bytes: u64,
    /// Reading problems, each with its line.
    notes: Vec<(Option<u32>, String)>,
    nul_noted: bool,
    long_noted: bool,
}

impl Condenser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Notes that the original's bytes were not all UTF-8 (the reader replaced
    /// them) on the line about to be given to [`Condenser::line`].
    pub fn note_invalid_utf8(&mut self, at_byte: u64) {
        if !self
            .notes
            .iter()
            .any(|(_, n)| n.starts_with("invalid UTF-8"))
        {
            self.notes.push((
                Some(self.lines + 1),
                format!(
                    "invalid UTF-8 from byte {at_byte} on; bad bytes were replaced with U+FFFD"
                ),
            ));
        }
    }

    /// What the original looked like, for the condensed [`crate::Source`].
    pub fn finish(self) -> crate::source::Condensed {
        crate::source::Condensed {
            original_bytes: self.bytes,
            notes: self.notes,
        }
    }

    /// Condenses one line (without its `\n`; the caller counts it as one
    /// byte). A line that is not a JSON object is returned as it is, so that
    /// the parser reports it, unless it is over [`LONG_LINE`] bytes: then only
    /// that much is kept. The result never contains a newline.
    pub fn line<'a>(&mut self, line: &'a str) -> Cow<'a, str> {
        self.lines = self.lines.saturating_add(1);
        self.bytes += line.len() as u64 + 1;
        if !self.nul_noted && line.contains('\0') {
            self.nul_noted = true;
            self.notes.push((
                Some(self.lines),
                "NUL bytes: this looks like binary data; it was read as text".to_owned(),
            ));
        }
        let trimmed = line.trim();
        let record = if trimmed.starts_with('{') {
            serde_json::from_str::<Record<'_>>(trimmed).ok()
        } else {
            None
        };
        let Some(record) = record else {
            return self.keep_as_is(line);
        };
        let condensed = self.condense(record);
        match serde_json::to_string(&condensed) {
            // Only worth it when it saves something; otherwise the original
            // line is the best evidence.
            Ok(text) if text.len() < line.len() => Cow::Owned(text),
            _ => Cow::Borrowed(line),
        }
    }

    /// A line the parser must judge: kept, but never more than [`LONG_LINE`].
    fn keep_as_is<'a>(&mut self, line: &'a str) -> Cow<'a, str> {
        if line.len() <= LONG_LINE {
            return Cow::Borrowed(line);
        }
        if !self.long_noted {
            self.long_noted = true;
            self.notes.push((
                Some(self.lines),
                format!(
                    "line is {} bytes long and not a JSON record; only its first {} KiB were kept",
                    line.len(),
                    LONG_LINE / 1024
                ),
            ));
        }
        let cut = floor_char_boundary(line, LONG_LINE);
        Cow::Borrowed(&line[..cut])
    }

    /// Condenses a whole text, line by line; the result has as many lines.
    pub fn text(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len().min(1 << 20));
        let mut lines = text.split('\n').peekable();
        while let Some(line) = lines.next() {
            // A `\r\n` ending stays with the line: the parser trims it.
            out.push_str(&self.line(line));
            if lines.peek().is_some() {
                out.push('\n');
            }
        }
        out
    }

    fn condense<'a>(&mut self, record: Record<'a>) -> Condensed<'a> {
        let mut dropped: Vec<&'a str> = Vec::new();
        let mut needs_structured = false;
        let message = record.message.map(|message| {
            let content = message.content.map(|content| match content {
                Content::Text(text) => CondensedContent::Text(text),
                Content::Blocks(blocks) => CondensedContent::Blocks(
                    blocks
                        .into_iter()
                        .filter_map(|block| self.block(block, &mut dropped, &mut needs_structured))
                        .collect(),
                ),
            });
            CondensedMessage { content }
        });
        let structured = record.tool_use_result.or(record.tool_use_result_snake);
        let structured = if needs_structured {
            structured.and_then(|raw| serde_json::from_str::<Structured<'_>>(raw.get()).ok())
        } else {
            None
        };
        // Credentials in the dropped tool inputs and results are carried
        // over. Not searched: `toolUseResult` (it repeats the result the
        // model saw, and an edit's `originalFile` was read before it was
        // edited), thinking and images; the kept parts stay on the line for
        // the secret scan itself.
        let mut found: Vec<&'a str> = Vec::new();
        for part in dropped {
            for fragment in secrets::fragments(part) {
                if !found.contains(&fragment) {
                    found.push(fragment);
                }
            }
        }
        // A record with a message is told by it; one without keeps what
        // detection reads instead.
        let ids = message.is_none();
        Condensed {
            kind: record.kind,
            timestamp: record.timestamp,
            parent_uuid: record.parent_uuid.filter(|_| ids),
            session_id: record.session_id.filter(|_| ids),
            session_id_snake: record.session_id_snake.filter(|_| ids),
            // Only a sub-agent's records say so; `false` is the default.
            is_sidechain: record.is_sidechain.filter(|&sidechain| sidechain),
            summary: record.summary,
            message,
            tool_use_result: structured,
            hindsight: (!found.is_empty()).then_some(Note { secrets: found }),
        }
    }

    /// Keeps a content block, trimmed to what the parser reads, or drops it.
    fn block<'a>(
        &mut self,
        block: Block<'a>,
        dropped: &mut Vec<&'a str>,
        needs_structured: &mut bool,
    ) -> Option<CondensedBlock<'a>> {
        match block.kind.as_deref() {
            Some("text") => Some(CondensedBlock {
                kind: block.kind,
                text: block.text,
                ..CondensedBlock::default()
            }),
            Some("tool_use") => {
                let name = block.name.as_deref().unwrap_or("");
                let shell = SHELL_TOOLS.contains(&name) || POLL_TOOLS.contains(&name);
                if shell && let Some(id) = &block.id {
                    self.kept_calls.insert(id.to_string());
                    if POLL_TOOLS.contains(&name) {
                        self.poll_calls.insert(id.to_string());
                    }
                }
                if !shell {
                    // Another tool (Read, Edit…): the parser ignores it.
                    if let Some(input) = block.input {
                        dropped.push(input.get());
                    }
                    return None;
                }
                Some(CondensedBlock {
                    kind: block.kind,
                    id: block.id,
                    name: block.name,
                    input: block.input,
                    ..CondensedBlock::default()
                })
            }
            Some("tool_result") => {
                let id = block.tool_use_id.as_deref().unwrap_or("");
                let keep = self.kept_calls.remove(id);
                // A shell's `toolUseResult` repeats its result; only a
                // poll's is read (its `stdout` and `exitCode`).
                *needs_structured |= self.poll_calls.remove(id);
                if !keep {
                    // The result of another tool, or of an unknown call.
                    if let Some(content) = block.content {
                        dropped.push(content.get());
                    }
                    return None;
                }
                Some(CondensedBlock {
                    kind: block.kind,
                    tool_use_id: block.tool_use_id,
                    content: block.content,
                    // `false` is what the parser assumes without it.
                    is_error: block.is_error.filter(|&error| error),
                    ..CondensedBlock::default()
                })
            }
            // Thinking, images, documents: never read by the parser.
            _ => None,
        }
    }
}

/// The fields of a record the Claude Code parser and detection read; serde
/// skips every other field without allocating it.
#[derive(Deserialize)]
struct Record<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "parentUuid", borrow, default)]
    parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "session_id", borrow, default)]
    session_id_snake: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
    #[serde(borrow, default)]
    summary: Option<&'a RawValue>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
    #[serde(rename = "tool_use_result", borrow, default)]
    tool_use_result_snake: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    content: Option<Content<'a>>,
}

/// `message.content`: a string, or a list of blocks.
enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(block) = seq.next_element::<Block<'a>>()? {
                    blocks.push(block);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Blocks(Vec::new()))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                // An object where a list was expected: the parser ignores it.
                de::IgnoredAny::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Content::Blocks(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Blocks(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Blocks(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Blocks(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Blocks(Vec::new()))
            }
        }
        deserializer.deserialize_any(ContentVisitor(std::marker::PhantomData))
    }
}

/// One content block; `thinking`, `signature` and image `source` fields are
/// skipped by serde, never copied.
#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(default)]
    is_error: Option<bool>,
}

/// `toolUseResult` of a background-shell poll: its output and exit code.
#[derive(Deserialize, Serialize)]
struct Structured<'a> {
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    stdout: Option<&'a RawValue>,
    #[serde(
        rename = "exitCode",
        borrow,
        default,
        skip_serializing_if = "Option::is_none"
    )]
    exit_code: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct Condensed<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "parentUuid", skip_serializing_if = "Option::is_none")]
    parent_uuid: Option<&'a RawValue>,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a RawValue>,
    #[serde(rename = "session_id", skip_serializing_if = "Option::is_none")]
    session_id_snake: Option<&'a RawValue>,
    #[serde(rename = "isSidechain", skip_serializing_if = "Option::is_none")]
    is_sidechain: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<CondensedMessage<'a>>,
    #[serde(rename = "toolUseResult", skip_serializing_if = "Option::is_none")]
    tool_use_result: Option<Structured<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hindsight: Option<Note<'a>>,
}

#[derive(Serialize)]
struct CondensedMessage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<CondensedContent<'a>>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum CondensedContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<CondensedBlock<'a>>),
}

#[derive(Serialize, Default)]
struct CondensedBlock<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
}

/// What the condenser adds: credential-shaped text from the parts it dropped.
#[derive(Serialize)]
struct Note<'a> {
    secrets: Vec<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condense(lines: &[&str]) -> Vec<String> {
        let mut condenser = Condenser::new();
        lines
            .iter()
            .map(|line| condenser.line(line).into_owned())
            .collect()
    }

    #[test]
    fn keeps_shell_calls_and_their_results_drops_file_reads() {
        let out = condense(&[
            r#"{"type":"assistant","timestamp":"t1","cwd":"/x","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"long thoughts","signature":"c2lnbmF0dXJl"},{"type":"tool_use","id":"a","name":"Bash","input":{"command":"nvidia-smi","description":"GPUs"}},{"type":"tool_use","id":"b","name":"Read","input":{"file_path":"/etc/big"}}]}}"#,
            r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"GPU 0: free","is_error":false},{"type":"tool_result","tool_use_id":"b","content":"     1→lots of file content"}]},"toolUseResult":{"stdout":"GPU 0: free","stderr":""}}"#,
        ]);
        assert_eq!(
            out[0],
            r#"{"type":"assistant","timestamp":"t1","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"nvidia-smi","description":"GPUs"}}]}}"#
        );
        assert_eq!(
            out[1],
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"GPU 0: free"}]}}"#
        );
    }

    #[test]
    fn ids_stay_only_where_detection_needs_them() {
        let out = condense(&[
            r#"{"type":"system","subtype":"init","session_id":"s1","tools":["Bash","Read","Edit","Write","Grep","Glob"],"model":"claude-sonnet-4-5"}"#,
            r#"{"type":"user","parentUuid":"p","sessionId":"s","isSidechain":true,"cwd":"/home/someone/a/long/path","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"user","parentUuid":"p","sessionId":"s","isSidechain":false,"cwd":"/home/someone/a/long/path","message":{"role":"user","content":"hi"}}"#,
        ]);
        assert_eq!(out[0], r#"{"type":"system","session_id":"s1"}"#);
        assert_eq!(
            out[1],
            r#"{"type":"user","isSidechain":true,"message":{"content":"hi"}}"#
        );
        assert_eq!(out[2], r#"{"type":"user","message":{"content":"hi"}}"#);
    }

    #[test]
    fn escaped_strings_survive() {
        let line = r#"{"type":"user","message":{"role":"user","content":"say \"hi\"\nthen \u00e9 ⏺"},"cwd":"/a/very/long/path/that/makes/condensing/worth/it"}"#;
        let out = condense(&[line]);
        let value: serde_json::Value = serde_json::from_str(&out[0]).expect("valid JSON");
        assert_eq!(value["message"]["content"], "say \"hi\"\nthen é ⏺");
    }

    #[test]
    fn secrets_in_dropped_parts_are_carried_over() {
        let out = condense(&[
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"/root/.env"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"r","content":"HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\nOTHER=1 and a lot more text that is not needed at all, a lot more text that is not needed at all, a lot more text that is not needed at all"}]}}"#,
        ]);
        assert!(out[1].contains("hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"));
        assert!(!out[1].contains("OTHER=1"));
    }

    #[test]
    fn non_json_and_short_lines_are_untouched() {
        let lines = [
            "not json at all",
            "{\"type\":\"user\",",
            r#"{"type":"x"}"#,
            "",
        ];
        assert_eq!(condense(&lines), lines);
    }

    #[test]
    fn huge_malformed_lines_are_cut_and_noted() {
        let huge = format!("{{\"type\":\"user\",\"message\":\"{}", "x".repeat(200_000));
        let mut condenser = Condenser::new();
        assert_eq!(condenser.line("{}").len(), 2);
        assert_eq!(condenser.line(&huge).len(), LONG_LINE);
        assert_eq!(condenser.line("a\0b"), "a\0b");
        let info = condenser.finish();
        assert_eq!(info.original_bytes, 3 + huge.len() as u64 + 1 + 4);
        assert_eq!(info.notes.len(), 2);
        assert_eq!(info.notes[0].0, Some(2));
        assert!(
            info.notes[0].1.contains("200026 bytes long"),
            "{:?}",
            info.notes
        );
        assert_eq!(info.notes[1].0, Some(3));
    }

    #[test]
    fn whole_texts_keep_their_line_count() {
        let text = "{\"type\":\"summary\",\"summary\":\"s\",\"leafUuid\":\"0123456789abcdef\"}\r\nbad\n\n{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"image\",\"source\":{\"data\":\"AAAA\"}}]}}";
        let out = Condenser::new().text(text);
        assert_eq!(out.split('\n').count(), text.split('\n').count());
        assert!(!out.contains("AAAA"));
        assert!(!out.contains("leafUuid"));
    }
}

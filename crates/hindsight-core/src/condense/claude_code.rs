//! What a Claude Code record is condensed to: record type, time, text
//! blocks, shell commands and their results, background-shell polls, and the
//! sub-agent mark. Other tools' calls and results go whole, and so do the ids
//! every record repeats (`parentUuid`, `sessionId`, the message's `id` and
//! `role`): detection needs a session id only on a record without a message
//! (stream-json's `system` and `result` lines).
//!
//! Parsing is typed and borrowed (`serde_json` with [`RawValue`]): the parts
//! kept are copied as raw JSON without being decoded, and the parts dropped
//! are skipped without being allocated.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{Note, Outcome, carried};
use crate::parse::claude_code::{KILL_TOOLS, POLL_TOOLS, SHELL_TOOLS, is_browser_open};

/// The tool calls whose results are still to come.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Calls {
    /// Ids of shell and shell-poll tool calls: their results are kept.
    kept_calls: HashSet<String>,
    /// Ids of shell-poll calls: the parser reads their `toolUseResult` too.
    poll_calls: HashSet<String>,
}

impl Calls {
    /// Condenses one record (a trimmed line that starts with `{`).
    pub(super) fn condense(&mut self, line: &str) -> Outcome {
        let Ok(record) = serde_json::from_str::<Record<'_>>(line) else {
            return Outcome::NotARecord;
        };
        match serde_json::to_string(&self.record(record)) {
            Ok(text) => Outcome::Rewritten(text),
            Err(_) => Outcome::Keep,
        }
    }

    fn record<'a>(&mut self, record: Record<'a>) -> Condensed<'a> {
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
            hindsight: carried(&dropped),
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
                let shell = SHELL_TOOLS.contains(&name)
                    || POLL_TOOLS.contains(&name)
                    || KILL_TOOLS.contains(&name)
                    || is_browser_open(name);
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

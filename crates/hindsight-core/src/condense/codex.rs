//! What a Codex rollout record is condensed to.
//!
//! Kept as they are, byte for byte, because they are the evidence: shell
//! calls (every generation of the shell tool, and `local_shell_call`),
//! `write_stdin` calls (polls of a running command, Ctrl-C), their outputs, messages made only of text, and `agent_message` events (the
//! parser shows one of each pair of assistant texts). Cut to their envelope
//! (time, record type, item type): encrypted reasoning, other tools' calls and
//! outputs (`apply_patch` carries whole files), every other event (they
//! repeat outputs and messages: `exec_command_end`, `user_message`,
//! `token_count`), `session_meta` (its instructions), `turn_context` and
//! `compacted`. A message with images keeps its text items only.
//!
//! Early rollouts had no envelope: their record is the item itself, and a
//! cut record keeps that shape so the parser reads it the same way.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{Note, Outcome, carried};
use crate::parse::codex::{SHELL_TOOLS, STDIN_TOOL};

/// The shell calls whose outputs are kept.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Calls {
    /// Call ids of shell calls. Never forgotten: the parser pairs every
    /// output with its call, however many there are.
    shell_calls: HashSet<String>,
}

impl Calls {
    /// Condenses one record (a trimmed line that starts with `{`).
    pub(super) fn condense(&mut self, line: &str) -> Outcome {
        let Ok(record) = serde_json::from_str::<Item<'_>>(line) else {
            return Outcome::NotARecord;
        };
        let (enveloped, item) = match &record.payload {
            Some(payload) => (true, payload.as_ref()),
            None => (false, &record),
        };
        let kind = if enveloped {
            record.kind.as_deref().unwrap_or("")
        } else {
            "response_item"
        };
        let item_kind = item.kind.as_deref().unwrap_or("");
        let mut dropped: Vec<&str> = Vec::new();
        let mut cut = Cut {
            kind: item.kind.clone(),
            ..Cut::default()
        };
        match (kind, item_kind) {
            ("response_item", "function_call" | "local_shell_call" | "custom_tool_call") => {
                let shell = item.action.is_some()
                    || item
                        .name
                        .as_deref()
                        .is_some_and(|name| SHELL_TOOLS.contains(&name) || name == STDIN_TOOL);
                if shell {
                    if let Some(id) = &item.call_id {
                        self.shell_calls.insert(id.to_string());
                    }
                    return Outcome::Keep;
                }
                dropped.extend(
                    item.arguments
                        .iter()
                        .chain(&item.input)
                        .map(|raw| raw.get()),
                );
                cut.name.clone_from(&item.name);
                cut.call_id.clone_from(&item.call_id);
            }
            ("response_item", "function_call_output" | "custom_tool_call_output") => {
                if item
                    .call_id
                    .as_deref()
                    .is_some_and(|id| self.shell_calls.contains(id))
                {
                    return Outcome::Keep;
                }
                dropped.extend(item.output.map(RawValue::get));
                cut.call_id.clone_from(&item.call_id);
            }
            ("response_item", "message") => {
                let Some(content) = item.content else {
                    return Outcome::Keep;
                };
                let Ok(parts) = serde_json::from_str::<Vec<Part<'_>>>(content.get()) else {
                    return Outcome::Keep;
                };
                if parts.iter().all(|part| part.text.is_some()) {
                    return Outcome::Keep;
                }
                // Images and files: the parser reads text items only.
                cut.role.clone_from(&item.role);
                cut.content = Some(parts.into_iter().filter(|p| p.text.is_some()).collect());
            }
            ("event_msg", "agent_message") => return Outcome::Keep,
            // A record the parser does not read: only its envelope stays. An
            // unknown shape without a type is kept, as nothing says what it is.
            _ if record.kind.is_none() => return Outcome::Keep,
            _ => {}
        }
        cut.hindsight = carried(&dropped);
        let text = if enveloped {
            serde_json::to_string(&Envelope {
                timestamp: record.timestamp,
                kind: record.kind.clone(),
                payload: cut,
            })
        } else {
            cut.timestamp = record.timestamp;
            serde_json::to_string(&cut)
        };
        match text {
            Ok(text) => Outcome::Rewritten(text),
            Err(_) => Outcome::Keep,
        }
    }
}

/// A record, or its payload: the fields the parser and detection read.
/// Everything else is skipped by serde without being allocated.
#[derive(Deserialize)]
struct Item<'a> {
    #[serde(borrow, default)]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    payload: Option<Box<Item<'a>>>,
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    #[serde(borrow, default)]
    action: Option<&'a RawValue>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
}

/// One item of a message's content.
#[derive(Deserialize, Serialize)]
struct Part<'a> {
    #[serde(
        rename = "type",
        borrow,
        default,
        skip_serializing_if = "Option::is_none"
    )]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    text: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct Envelope<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Cow<'a, str>>,
    payload: Cut<'a>,
}

/// What is left of an item the parser does not read.
#[derive(Serialize, Default)]
struct Cut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a RawValue>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<Cow<'a, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Vec<Part<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hindsight: Option<Note<'a>>,
}

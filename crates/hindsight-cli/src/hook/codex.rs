//! OpenAI Codex CLI's hook protocol, as its published schemas give it
//! (`codex-rs/hooks/schema/generated/*.command.{input,output}.schema.json`
//! in github.com/openai/codex):
//!
//! - `PostToolUse` input: `session_id`, `turn_id`, `transcript_path` (the
//!   rollout; may be null), `cwd`, `hook_event_name`, `model`,
//!   `permission_mode`, `tool_name`, `tool_input`, `tool_response`,
//!   `tool_use_id`; output `hookSpecificOutput` with `hookEventName` and
//!   `additionalContext`, plus the common `systemMessage`;
//! - `Stop` input: the same envelope with `stop_hook_active` and
//!   `last_assistant_message` (nullable); output `{"decision": "block",
//!   "reason": …}` (a non-blank reason is required) or `systemMessage`.
//!
//! Codex puts no cap of its own on how often a stop may be refused, so the
//! guard's `max_blocks` per turn (`turn_id`) is what ends a loop.

use anyhow::Result;
use serde_json::Value;

use super::{Answer, Input, Kind, answer, event_name, input, stop_kind, text_field};

/// Reads one event.
pub(super) fn read(value: &Value) -> Result<Input> {
    let event = event_name(value)?;
    let kind = match event.as_str() {
        "PostToolUse" => Kind::AfterTool,
        "Stop" => stop_kind(
            value,
            "last_assistant_message",
            text_field(value, "turn_id"),
        ),
        _ => Kind::Other,
    };
    Ok(input(
        value,
        event,
        kind,
        text_field(value, "transcript_path"),
    ))
}

/// Writes one answer; a refusal is `"decision": "block"`.
pub(super) fn write(reply: &Answer, event: &Input) -> Value {
    answer(reply, event, "block")
}

/// The last assistant message of a (condensed) rollout: an `agent_message`
/// event or an assistant `message` item, whichever comes last.
pub(super) fn last_message(text: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let record: Value = serde_json::from_str(line).ok()?;
        let payload = record.get("payload")?;
        match payload.get("type").and_then(Value::as_str)? {
            "agent_message" => text_field(payload, "message"),
            "message" if payload.get("role").and_then(Value::as_str) == Some("assistant") => {
                let texts: Vec<&str> = payload
                    .get("content")?
                    .as_array()?
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        }
    })
}

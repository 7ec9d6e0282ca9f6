//! Gemini CLI's hook protocol, as its hooks reference documents it
//! (`docs/hooks/reference.md` in github.com/google-gemini/gemini-cli):
//!
//! - every event: `session_id`, `transcript_path` (the session's JSON),
//!   `cwd`, `hook_event_name`, `timestamp`;
//! - `AfterTool`: `tool_name`, `tool_input`, `tool_response`; answered with
//!   `hookSpecificOutput.additionalContext`, appended to the tool result
//!   the model reads;
//! - `AfterAgent` (once per turn, after the final response): `prompt`,
//!   `prompt_response` (the final text), `stop_hook_active` (already in a
//!   retry); refused with `{"decision": "deny", "reason": …}`: the reason
//!   goes to the agent as a new prompt;
//! - `systemMessage` is shown to the user.

use anyhow::Result;
use serde_json::Value;

use super::{Answer, Input, Kind, answer, event_name, input, stop_kind, text_field};

/// Reads one event.
pub(super) fn read(value: &Value) -> Result<Input> {
    let event = event_name(value)?;
    let kind = match event.as_str() {
        "AfterTool" => Kind::AfterTool,
        "AfterAgent" => stop_kind(value, "prompt_response", None),
        _ => Kind::Other,
    };
    Ok(input(
        value,
        event,
        kind,
        text_field(value, "transcript_path"),
    ))
}

/// Writes one answer. (`hookSpecificOutput.hookEventName` as the CLI's own
/// `AfterToolOutput` type in `packages/core/src/hooks/types.ts` has it; it
/// treats `block` as `deny`, and escapes `<` and `>` in the context.)
pub(super) fn write(reply: &Answer, event: &Input) -> Value {
    answer(reply, event, "deny")
}

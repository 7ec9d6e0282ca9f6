//! Claude Code's hook protocol, as its hooks reference documents it
//! (code.claude.com/docs/en/hooks; docs.anthropic.com/en/docs/claude-code/hooks):
//!
//! - every event: `session_id`, `transcript_path` (the session's JSONL),
//!   `cwd`, `permission_mode`, `hook_event_name`;
//! - `PostToolUse`: `tool_name`, `tool_input`, `tool_response`,
//!   `tool_use_id`; answered with `hookSpecificOutput.additionalContext`
//!   (with `hookSpecificOutput.hookEventName`), which the model reads;
//! - `PostToolBatch`: once after every call of a parallel batch resolved,
//!   before the next model request; answered the same way;
//! - `Stop` / `SubagentStop`: `stop_hook_active` (true when Claude is already
//!   continuing because a stop hook refused) and `last_assistant_message`
//!   (the text it is stopping on; the transcript file may not hold it yet);
//!   (`last_assistant_message` came with Claude Code 2.1.47, see
//!   anthropics/claude-code#26710; before it, the message is read from the
//!   transcript's last assistant record, [`last_message`]);
//!   `SubagentStop` adds `agent_id` and `agent_transcript_path`, the
//!   sub-agent's own transcript;
//! - `agent_id` (any event) is present only when the hook fires inside a
//!   sub-agent; its tool calls are then read from its own transcript. Refused with `{"decision": "block",
//!   "reason": …}`: the reason goes to Claude, which continues;
//! - `systemMessage` (any event) is shown to the user, not the model.
//!
//! Exit status 2 would block with stderr as the reason; the guard never
//! uses it (it exits 0 always, so an internal error cannot block).

use anyhow::Result;
use serde_json::Value;

use super::{Answer, Input, Kind, answer, event_name, input, stop_kind, text_field};

/// Reads one event.
pub(super) fn read(value: &Value) -> Result<Input> {
    let event = event_name(value)?;
    let kind = match event.as_str() {
        "PostToolUse" | "PostToolBatch" => Kind::AfterTool,
        "Stop" | "SubagentStop" => stop_kind(value, "last_assistant_message", None),
        _ => Kind::Other,
    };
    // A sub-agent's stop is about its own transcript; so is a tool call it
    // made (the event then carries its `agent_id`, and the commands are in
    // its own file, `<session>/subagents/agent-<id>.jsonl` beside the
    // session's, not in the session's).
    let transcript = if event == "SubagentStop" {
        text_field(value, "agent_transcript_path").or_else(|| text_field(value, "transcript_path"))
    } else {
        let main = text_field(value, "transcript_path");
        match (&main, text_field(value, "agent_id")) {
            (Some(main), Some(agent)) => {
                Some(sub_agent_transcript(main, &agent).unwrap_or_else(|| main.clone()))
            }
            _ => main,
        }
    };
    Ok(input(value, event, kind, transcript))
}

/// The transcript of sub-agent `agent` of the session at `main`, if it is
/// there.
fn sub_agent_transcript(main: &str, agent: &str) -> Option<String> {
    let main = std::path::Path::new(main);
    let safe = !agent.is_empty()
        && agent
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let path = main
        .parent()?
        .join(main.file_stem()?)
        .join("subagents")
        .join(format!("agent-{agent}.jsonl"));
    (safe && path.is_file()).then(|| path.to_string_lossy().into_owned())
}

/// Writes one answer; a refusal is `"decision": "block"`.
pub(super) fn write(reply: &Answer, event: &Input) -> Value {
    answer(reply, event, "block")
}

/// The text of the last assistant record of a (condensed) Claude Code
/// session, for a `Stop` without `last_assistant_message` (older versions).
pub(super) fn last_message(text: &str) -> Option<String> {
    text.lines().rev().find_map(|line| {
        let record: Value = serde_json::from_str(line).ok()?;
        if record.get("type").and_then(Value::as_str) != Some("assistant") {
            return None;
        }
        let content = record.get("message")?.get("content")?.as_array()?;
        let texts: Vec<&str> = content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    })
}

//! Server logs written as JSON, one object a line.
//!
//! Engines and collectors write logs as JSON objects: docker's json-file
//! driver (`{"log":"…\n","stream":"stderr","time":"…"}`), TGI's
//! `--json-output` (`{"timestamp":…,"level":"INFO","fields":{"message":
//! "Starting shard","rank":0},"target":"text_generation_launcher","span":
//! {"rank":0,"name":"shard-manager"}}`), llama.cpp's 2024 server
//! (`{"tid":…,"level":"INFO","function":"main","msg":"HTTP server
//! listening","port":"8080",…}`), Kubernetes and cloud collectors
//! (`message`, `msg`, `textPayload`, `MESSAGE`). This module turns such an
//! object back into the plain line the engine would have printed, so the
//! one set of templates reads both: the time, level and logger first, then
//! the message, then the fields that say something (rank, port, host) as
//! `key=value`.

use serde_json::{Map, Value};

use crate::engine::Engine;

/// Keys that hold the message, most specific first.
const MESSAGE_KEYS: &[&str] = &["message", "msg", "MESSAGE", "textPayload", "event", "text"];
/// Keys that hold the time.
const TIME_KEYS: &[&str] = &["timestamp", "time", "ts", "asctime", "@timestamp"];
/// Fields worth keeping after the message: what a template or a rank tag
/// may read.
const FIELD_KEYS: &[&str] = &[
    "rank",
    "tp_rank",
    "dp_rank",
    "world_size",
    "port",
    "hostname",
    "host",
    "model",
    "model_id",
    "status",
    "error",
];

/// The plain line a JSON log object stands for, or `None` when the line is
/// not a JSON object holding a log message.
pub fn text_of(line: &str) -> Option<String> {
    let trimmed = line.trim();
    if !trimmed.starts_with("{\"") || !trimmed.ends_with('}') {
        return None;
    }
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(trimmed) else {
        return None;
    };
    // docker's json-file driver: the line as the program printed it.
    if let Some(Value::String(log)) = object.get("log") {
        return Some(log.trim_end_matches(['\n', '\r']).to_owned());
    }
    let fields = object.get("fields").and_then(Value::as_object);
    let span = object.get("span").and_then(Value::as_object);
    let message = MESSAGE_KEYS
        .iter()
        .find_map(|k| string(fields.and_then(|f| f.get(*k))).or_else(|| string(object.get(*k))))?;
    let mut text = String::new();
    if let Some(time) = TIME_KEYS.iter().find_map(|k| scalar(object.get(*k))) {
        text.push_str(&time);
        text.push_str("  ");
    }
    if let Some(level) = ["level", "levelname", "severity"]
        .iter()
        .find_map(|k| string(object.get(*k)))
    {
        text.push_str(&level.to_ascii_uppercase());
        text.push(' ');
    }
    if let Some(name) = span.and_then(|s| string(s.get("name"))) {
        text.push_str(&name);
        text.push_str(": ");
    }
    // TGI's target and llama.cpp's function are the logger's name.
    if let Some(logger) = ["target", "function", "logger", "name"]
        .iter()
        .find_map(|k| string(object.get(*k)))
    {
        text.push_str(&logger);
        text.push_str(": ");
    }
    text.push_str(&message);
    for key in FIELD_KEYS {
        let value = fields
            .and_then(|f| f.get(*key))
            .or_else(|| object.get(*key))
            .or_else(|| span.and_then(|s| s.get(*key)));
        if let Some(value) = scalar(value) {
            text.push_str(&format!(" {key}={value}"));
        }
    }
    Some(text)
}

/// The engine a JSON log object's own keys tell: llama.cpp's server logs
/// `tid` and `function`; TGI names its targets `text_generation_*`.
pub fn engine_of(line: &str) -> Option<Engine> {
    let trimmed = line.trim();
    if !trimmed.starts_with("{\"") {
        return None;
    }
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(trimmed) else {
        return None;
    };
    // llama.cpp's server: `{"tid":…,"function":…}`, and before it had a
    // thread id (2023), `{"timestamp":…,"level":…,"function":…,"line":…}`.
    if object.contains_key("function")
        && (object.contains_key("tid")
            || object.contains_key("line") && object.contains_key("level"))
    {
        return Some(Engine::LlamaCpp);
    }
    let target = string(object.get("target")).unwrap_or_default();
    target.starts_with("text_generation").then_some(Engine::Tgi)
}

/// Whether a JSON object is a log record (for detection: JSON Lines that
/// are a log, not a transcript).
pub fn is_log_record(object: &Map<String, Value>) -> bool {
    let has_message = object.contains_key("log")
        || MESSAGE_KEYS.iter().any(|k| object.contains_key(*k))
        || object
            .get("fields")
            .and_then(Value::as_object)
            .is_some_and(|f| f.contains_key("message"));
    let has_level_or_time = ["level", "levelname", "severity", "stream"]
        .iter()
        .chain(TIME_KEYS)
        .any(|k| object.contains_key(*k));
    has_message && has_level_or_time
}

fn string(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn scalar(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_become_the_lines_they_stand_for() {
        assert_eq!(
            text_of(r#"{"log":"[2026-01-02 10:00:00 TP0] Load weight begin.\n","stream":"stderr","time":"2026-01-02T10:00:00Z"}"#).as_deref(),
            Some("[2026-01-02 10:00:00 TP0] Load weight begin.")
        );
        assert_eq!(
            text_of(r#"{"timestamp":"2024-03-06T17:53:31.05Z","level":"INFO","fields":{"message":"Starting shard","rank":1},"target":"text_generation_launcher","span":{"rank":1,"name":"shard-manager"}}"#).as_deref(),
            Some("2024-03-06T17:53:31.05Z  INFO shard-manager: text_generation_launcher: Starting shard rank=1")
        );
        assert_eq!(
            text_of(r#"{"tid":"0x1","timestamp":1711270965,"level":"INFO","function":"main","line":3524,"msg":"HTTP server listening","port":"8080","hostname":"127.0.0.1"}"#).as_deref(),
            Some("1711270965  INFO main: HTTP server listening port=8080 hostname=127.0.0.1")
        );
        assert_eq!(
            text_of(r#"{"type":"assistant","message":{"content":[]}}"#),
            None
        );
        assert_eq!(text_of("{not json"), None);
    }

    #[test]
    fn engines_from_their_keys() {
        assert_eq!(
            engine_of(r#"{"tid":"0x1","level":"INFO","function":"main","msg":"model loaded"}"#),
            Some(Engine::LlamaCpp)
        );
        assert_eq!(
            engine_of(
                r#"{"level":"INFO","fields":{"message":"x"},"target":"text_generation_router"}"#
            ),
            Some(Engine::Tgi)
        );
    }
}

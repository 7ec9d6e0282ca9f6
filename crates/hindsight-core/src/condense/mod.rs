//! Line-preserving condensation of agent sessions (Claude Code JSONL and
//! Codex rollouts), so that a 1 GB session file is analyzed in bounded memory;
//! server logs have a condenser of their own ([`LogCondenser`], in `log`).
//!
//! Most of a long session's bytes are things no rule looks at: the content of
//! files the agent read, the whole original file stored with every edit,
//! base64 screenshots, thinking blocks and their signatures, encrypted
//! reasoning, and events that repeat what another record already holds. The
//! condenser rewrites each JSON record to just what its format's parser reads,
//! one output line per input line; what each format keeps is told in
//! [`claude_code`] and [`codex`]. Line numbers, and so every piece of
//! evidence, stay the same; byte offsets do not, which is why a condensed
//! [`crate::Source`] remembers its original size.
//!
//! Credentials are the exception to "no rule looks at it": an API key in a file
//! the agent read is still an exposed key. Every credential-shaped match in a
//! dropped part is carried over in a `hindsight.secrets` list on the same line
//! (the parsers ignore the key), so the secret scan finds it there.
//!
//! Parsing is typed and borrowed (`serde_json` with [`RawValue`]): the parts
//! kept are copied as raw JSON without being decoded, and the parts dropped
//! are skipped without being allocated. The CLI feeds the condenser one line
//! at a time while reading a file, so the whole file is never in memory;
//! [`crate::analyze`] condenses whole texts the same way, so that every face
//! analyzes the same condensed records.

mod claude_code;
mod codex;
mod log;

pub use log::{LogCondenser, Sizes};

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::Format;
use crate::diagnostic::LONG_LINE;
use crate::secrets;
use crate::source::floor_char_boundary;

/// Rewrites the lines of one session file; keeps the tool-call ids it has
/// seen so results can be matched to shell calls across lines.
///
/// Serializable, so a reader that comes back to a growing file (the CLI's
/// live guard, run once per agent event) can save the condenser between
/// runs and condense only the lines added since, with the same result as
/// condensing the whole file at once.
#[derive(Debug, Serialize, Deserialize)]
pub struct Condenser {
    /// The format's own state: which calls' results to keep.
    shape: Shape,
    /// Lines and bytes seen so far.
    lines: u32,
    bytes: u64,
    /// Reading problems, each with its line.
    notes: Vec<(Option<u32>, String)>,
    nul_noted: bool,
    long_noted: bool,
}

/// The formats that are condensed, each with what it remembers across lines.
#[derive(Debug, Serialize, Deserialize)]
enum Shape {
    ClaudeCode(claude_code::Calls),
    Codex(codex::Calls),
}

/// What a format's condenser made of one line.
enum Outcome {
    /// Not a record of the format (not JSON, or not an object): the parser
    /// must judge the line itself.
    NotARecord,
    /// A record whose every byte may be evidence: kept as it is.
    Keep,
    /// The record rewritten to what the parser reads.
    Rewritten(String),
}

impl Default for Condenser {
    fn default() -> Self {
        Self::new()
    }
}

impl Condenser {
    /// A condenser for a Claude Code session.
    pub fn new() -> Self {
        Self::with_shape(Shape::ClaudeCode(claude_code::Calls::default()))
    }

    /// A condenser for `format`, if that format is condensed (the session
    /// formats that grow to gigabytes); `None` for every other format, whose
    /// text is analyzed as it is.
    pub fn for_format(format: Format) -> Option<Self> {
        match format {
            Format::ClaudeCodeJsonl => Some(Self::new()),
            Format::CodexRollout => Some(Self::with_shape(Shape::Codex(codex::Calls::default()))),
            _ => None,
        }
    }

    fn with_shape(shape: Shape) -> Self {
        Self {
            shape,
            lines: 0,
            bytes: 0,
            notes: Vec::new(),
            nul_noted: false,
            long_noted: false,
        }
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
        if !trimmed.starts_with('{') {
            return self.keep_as_is(line);
        }
        let outcome = match &mut self.shape {
            Shape::ClaudeCode(calls) => calls.condense(trimmed),
            Shape::Codex(calls) => calls.condense(trimmed),
        };
        if !matches!(outcome, Outcome::NotARecord) && line.len() > LONG_LINE && !self.long_noted {
            // Nothing was cut, but a reader should know why this line is slow
            // to show and where the big record is.
            self.long_noted = true;
            self.notes.push((
                Some(self.lines),
                format!(
                    "line is {} bytes long; it is a JSON record and was read whole",
                    line.len()
                ),
            ));
        }
        match outcome {
            Outcome::NotARecord => self.keep_as_is(line),
            // Only worth it when it saves something; otherwise the original
            // line is the best evidence.
            Outcome::Rewritten(text) if text.len() < line.len() => Cow::Owned(text),
            Outcome::Rewritten(_) | Outcome::Keep => Cow::Borrowed(line),
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
}

/// Credential-shaped text in the parts a condenser dropped, each once.
fn carried<'a>(dropped: &[&'a str]) -> Option<Note<'a>> {
    let mut found: Vec<&'a str> = Vec::new();
    for part in dropped {
        for fragment in secrets::fragments(part) {
            if !found.contains(&fragment) {
                found.push(fragment);
            }
        }
    }
    (!found.is_empty()).then_some(Note { secrets: found })
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

    /// Every record shape of a Codex rollout, old and new.
    const ROLLOUT: &str = concat!(
        r#"{"timestamp":"t0","type":"session_meta","payload":{"id":"s","cwd":"/w","instructions":"a long AGENTS.md that nobody reads here, a long AGENTS.md that nobody reads here"}}"#,
        "\n",
        r#"{"timestamp":"t1","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAAAABpZ2VuY3J5cHRlZCByZWFzb25pbmcgdGhhdCBpcyBsb25nIGFuZCBvcGFxdWU="}}"#,
        "\n",
        r#"{"timestamp":"t2","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"nvidia-smi\"]}","call_id":"c1"}}"#,
        "\n",
        r#"{"timestamp":"t3","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"GPU 0: 0MiB\\n\",\"metadata\":{\"exit_code\":0}}"}}"#,
        "\n",
        r#"{"timestamp":"t4","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","stdout":"GPU 0: 0MiB\n","aggregated_output":"GPU 0: 0MiB\n","exit_code":0}}"#,
        "\n",
        r#"{"timestamp":"t5","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"c2","input":"*** Begin Patch\n*** Add File: .env\n+HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789\n+REST=a lot of other file content that is not needed\n*** End Patch"}}"#,
        "\n",
        r#"{"timestamp":"t6","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2","output":"Success. Updated the following files:\nA .env\n"}}"#,
        "\n",
        r#"{"timestamp":"t7","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"curl -s localhost:30000/health\"}","call_id":"c3"}}"#,
        "\n",
        r#"{"timestamp":"t8","type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"Process exited with code 7\nOutput:\ncurl: (7) Failed to connect"}}"#,
        "\n",
        r#"{"timestamp":"t9","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"see the screenshot"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"}]}}"#,
        "\n",
        r#"{"timestamp":"t10","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"The server is up."}]}}"#,
        "\n",
        r#"{"timestamp":"t11","type":"event_msg","payload":{"type":"agent_message","message":"The server is up."}}"#,
        "\n",
        r#"{"timestamp":"t12","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":123456,"output_tokens":789}}}}"#,
        "\n",
        r#"{"type":"local_shell_call","call_id":"c4","status":"completed","action":{"type":"exec","command":["bash","-lc","ss -ltnp"]}}"#,
        "\n",
        r#"{"type":"function_call_output","call_id":"c4","output":"LISTEN 0 4096 0.0.0.0:30000"}"#,
        "\n",
        r#"{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking about ports and many other things"}]}"#,
        "\n",
        "not json\n",
    );

    fn codex_lines() -> Vec<String> {
        let mut condenser = Condenser::for_format(Format::CodexRollout).expect("condensed");
        ROLLOUT
            .lines()
            .map(|line| condenser.line(line).into_owned())
            .collect()
    }

    #[test]
    fn codex_keeps_shell_calls_outputs_and_text_and_cuts_the_rest() {
        let out = codex_lines();
        let original: Vec<&str> = ROLLOUT.lines().collect();
        assert_eq!(out.len(), original.len());
        // Evidence stays byte for byte.
        for kept in [2, 3, 7, 8, 10, 11, 13, 14, 16] {
            assert_eq!(out[kept], original[kept], "line {}", kept + 1);
        }
        assert_eq!(
            out[0],
            r#"{"timestamp":"t0","type":"session_meta","payload":{}}"#
        );
        assert_eq!(
            out[1],
            r#"{"timestamp":"t1","type":"response_item","payload":{"type":"reasoning"}}"#
        );
        assert_eq!(
            out[4],
            r#"{"timestamp":"t4","type":"event_msg","payload":{"type":"exec_command_end"}}"#
        );
        // Another tool's input goes, its credential stays.
        assert!(out[5].contains("hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"));
        assert!(!out[5].contains("REST=") && out[5].contains(r#""call_id":"c2""#));
        assert_eq!(
            out[6],
            r#"{"timestamp":"t6","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c2"}}"#
        );
        assert_eq!(
            out[9],
            r#"{"timestamp":"t9","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"see the screenshot"}]}}"#
        );
        assert_eq!(
            out[12],
            r#"{"timestamp":"t12","type":"event_msg","payload":{"type":"token_count"}}"#
        );
        // An early record without an envelope keeps that shape.
        assert_eq!(out[15], r#"{"type":"reasoning"}"#);
    }

    /// What the Codex parser makes of a text, without spans.
    fn codex_events(text: &str) -> Vec<String> {
        crate::parse::codex::parse(text, 0)
            .events
            .into_iter()
            .map(|event| format!("{:?}", event.kind))
            .collect()
    }

    #[test]
    fn codex_parser_reads_the_same_events_from_condensed_rollouts() {
        let mut texts = vec![ROLLOUT.to_owned()];
        texts.extend(
            crate::test_examples::texts()
                .into_iter()
                .filter(|(name, _)| name.starts_with("rollout-") && name.ends_with(".jsonl"))
                .map(|(_, text)| text),
        );
        assert!(texts.len() >= 3, "the Codex examples were not found");
        for text in texts {
            let condensed = Condenser::for_format(Format::CodexRollout)
                .expect("condensed")
                .text(&text);
            assert_eq!(condensed.lines().count(), text.lines().count());
            assert_eq!(codex_events(&condensed), codex_events(&text));
        }
    }

    #[test]
    fn a_condenser_saved_between_lines_condenses_as_one_that_never_stopped() {
        let sessions: Vec<(Format, String)> = crate::test_examples::texts()
            .into_iter()
            .filter(|(name, _)| name.ends_with(".jsonl"))
            .filter_map(|(_, text)| {
                let format = crate::parse::detect(&text);
                Condenser::for_format(format).map(|_| (format, text))
            })
            .collect();
        assert!(sessions.len() >= 4, "the session examples were not found");
        for (format, text) in sessions {
            let whole = Condenser::for_format(format)
                .expect("condensed")
                .text(&text);
            let lines: Vec<&str> = text.lines().collect();
            // Saved and restored after every third line, as the live guard
            // does between agent events.
            let mut condenser = Condenser::for_format(format).expect("condensed");
            let mut pieces = Vec::new();
            for chunk in lines.chunks(3) {
                for line in chunk {
                    pieces.push(condenser.line(line).into_owned());
                }
                let saved = serde_json::to_string(&condenser).expect("saved");
                condenser = serde_json::from_str(&saved).expect("restored");
            }
            assert_eq!(pieces.join("\n"), whole.trim_end_matches('\n'));
        }
    }
}

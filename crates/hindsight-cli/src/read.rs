//! Reading inputs: a Claude Code session is streamed line by line through the
//! core's condenser, so a 1 GB file never sits in memory; anything else is
//! read whole (logs and pasted text are kept verbatim for evidence).

use std::io::{self, BufRead, BufReader, Read};

use hindsight_core::condense::Condenser;
use hindsight_core::{Format, Source};

/// How much of the start decides the format (the core's detection looks at
/// no more than this either).
const HEAD: usize = 64 * 1024;

/// The read size: small enough that a chunk is still in the CPU's cache
/// when the condenser reads it (a 1 MiB buffer made the kernel's copy and
/// the condenser's first pass over it each miss the cache).
const CHUNK: usize = 128 * 1024;

/// Reads one input. `forced` is the user's `--input-format`, if any.
pub fn read_source(name: String, reader: impl Read, forced: Option<Format>) -> io::Result<Source> {
    let mut reader = BufReader::with_capacity(CHUNK, reader);
    let mut head = Vec::with_capacity(HEAD);
    (&mut reader).take(HEAD as u64).read_to_end(&mut head)?;
    let format =
        forced.unwrap_or_else(|| hindsight_core::parse::detect(&String::from_utf8_lossy(&head)));
    if format == Format::ClaudeCodeJsonl {
        let mut source = condensed(io::Cursor::new(head).chain(reader))?;
        source.name = name;
        // Left to detection when it was detected: condensed records keep
        // every key detection reads, and the report says "detected".
        source.format = forced;
        return Ok(source);
    }
    reader.read_to_end(&mut head)?;
    let mut source = Source::from_bytes(name, &head);
    source.format = forced;
    Ok(source)
}

/// Streams a JSONL file through the condenser, one line at a time. A line
/// is condensed where it lies in the reader's buffer; only one that spans
/// two reads is copied first.
fn condensed(mut reader: impl BufRead) -> io::Result<Source> {
    let mut lines = Lines {
        condenser: Condenser::new(),
        text: String::new(),
        offset: 0,
        invalid_utf8_at: None,
    };
    // The start of a line that runs past the buffer.
    let mut partial = Vec::new();
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        let mut used = 0;
        for end in memchr::memchr_iter(b'\n', buffer) {
            if partial.is_empty() {
                lines.line(&buffer[used..end], true);
            } else {
                partial.extend_from_slice(&buffer[used..end]);
                lines.line(&partial, true);
                partial.clear();
            }
            used = end + 1;
        }
        partial.extend_from_slice(&buffer[used..]);
        let length = buffer.len();
        reader.consume(length);
    }
    if !partial.is_empty() {
        lines.line(&partial, false);
    }
    // What doubling left unused is never touched, but it is still asked of
    // the allocator; give it back.
    lines.text.shrink_to_fit();
    let mut info = lines.condenser.finish();
    // The condenser counts a newline after every line; the last may have none.
    info.original_bytes = lines.offset;
    let mut source = Source::new(String::new(), lines.text);
    source.invalid_utf8_at = lines.invalid_utf8_at;
    source.condensed = Some(info);
    Ok(source)
}

/// The condensed text so far, and where the original is.
struct Lines {
    condenser: Condenser,
    text: String,
    offset: u64,
    invalid_utf8_at: Option<usize>,
}

impl Lines {
    /// Condenses one line (without its `\n`, which `ends_line` says it had).
    fn line(&mut self, line: &[u8], ends_line: bool) {
        let decoded = match std::str::from_utf8(line) {
            Ok(valid) => std::borrow::Cow::Borrowed(valid),
            Err(error) => {
                let at = self.offset + error.valid_up_to() as u64;
                self.invalid_utf8_at
                    .get_or_insert(usize::try_from(at).unwrap_or(usize::MAX));
                self.condenser.note_invalid_utf8(at);
                String::from_utf8_lossy(line)
            }
        };
        self.text.push_str(&self.condenser.line(&decoded));
        if ends_line {
            self.text.push('\n');
        }
        self.offset += line.len() as u64 + u64::from(ends_line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = concat!(
        r#"{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"curl -s localhost:8000/health"}}]}}"#,
        "\n",
        r#"{"type":"user","sessionId":"s","cwd":"/some/long/working/directory/that/condensing/drops","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"OK"}]}}"#,
        "\n"
    );

    #[test]
    fn streamed_session_gives_the_same_report_as_the_whole_text() {
        let streamed = read_source("s.jsonl".into(), SESSION.as_bytes(), None).expect("read");
        assert!(streamed.condensed.is_some());
        assert!(streamed.text.len() < SESSION.len());
        let whole = Source::new("s.jsonl", SESSION);
        assert_eq!(
            hindsight_core::analyze(&[streamed]).to_json(),
            hindsight_core::analyze(&[whole]).to_json()
        );
    }

    #[test]
    fn lines_longer_than_a_read_and_a_last_line_without_newline() {
        let big = format!(
            r#"{{"type":"user","message":{{"content":[{{"type":"tool_result","tool_use_id":"r","content":"{}"}}]}}}}"#,
            "y".repeat(3 * CHUNK)
        );
        let session = format!("{SESSION}{big}\n{SESSION}{}", SESSION.trim_end());
        let streamed = read_source("s.jsonl".into(), session.as_bytes(), None).expect("read");
        let info = streamed.condensed.clone().expect("condensed");
        assert_eq!(info.original_bytes, session.len() as u64);
        assert_eq!(streamed.text.lines().count(), session.lines().count());
        assert!(!streamed.text.ends_with('\n'));
        let whole = Source::new("s.jsonl", session.clone());
        let (streamed, whole) = (
            hindsight_core::analyze(&[streamed]),
            hindsight_core::analyze(&[whole]),
        );
        // Diagnostics differ: a whole text's long lines are noted before
        // condensing, a streamed file's only when they are not records.
        assert_eq!(streamed.sources, whole.sources);
        assert_eq!(streamed.checkpoints, whole.checkpoints);
        assert_eq!(streamed.checkpoints.len(), 3);
    }

    #[test]
    fn invalid_utf8_is_noted_with_its_line() {
        let mut bytes = SESSION.as_bytes().to_vec();
        bytes.extend_from_slice(b"{\"type\":\"user\",\"message\":\"\xff\"}");
        let source = read_source("s.jsonl".into(), &bytes[..], None).expect("read");
        let report = hindsight_core::analyze(&[source]);
        let diagnostic = report
            .diagnostics
            .iter()
            .find(|d| d.message.contains("invalid UTF-8"))
            .expect("a diagnostic");
        assert_eq!(diagnostic.line, Some(3));
        assert_eq!(report.sources[0].bytes, bytes.len() as u64);
    }

    #[test]
    fn logs_are_read_whole() {
        let log = "[2026-02-11 22:37:00] The server is fired up and ready to roll!\n";
        let source = read_source("x.log".into(), log.as_bytes(), None).expect("read");
        assert_eq!(source.text, log);
        assert!(source.condensed.is_none());
    }
}

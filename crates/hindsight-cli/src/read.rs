//! Reading inputs: a Claude Code session is streamed line by line through the
//! core's condenser, so a 1 GB file never sits in memory; anything else is
//! read whole (logs and pasted text are kept verbatim for evidence).

use std::io::{self, BufRead, BufReader, Read};

use hindsight_core::condense::Condenser;
use hindsight_core::{Format, Source};

/// How much of the start decides the format (the core's detection looks at
/// no more than this either).
const HEAD: usize = 64 * 1024;

/// Reads one input. `forced` is the user's `--input-format`, if any.
pub fn read_source(name: String, reader: impl Read, forced: Option<Format>) -> io::Result<Source> {
    let mut reader = BufReader::with_capacity(1 << 20, reader);
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

/// Streams a JSONL file through the condenser, one line at a time.
fn condensed(reader: impl Read) -> io::Result<Source> {
    let mut reader = BufReader::with_capacity(1 << 20, reader);
    let mut condenser = Condenser::new();
    let mut text = String::new();
    let mut line = Vec::new();
    let mut offset: u64 = 0;
    let mut invalid_utf8_at = None;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let ends_line = line.last() == Some(&b'\n');
        if ends_line {
            line.pop();
        }
        let length = line.len() as u64 + u64::from(ends_line);
        let decoded = match std::str::from_utf8(&line) {
            Ok(valid) => std::borrow::Cow::Borrowed(valid),
            Err(error) => {
                let at = offset + error.valid_up_to() as u64;
                invalid_utf8_at.get_or_insert(usize::try_from(at).unwrap_or(usize::MAX));
                condenser.note_invalid_utf8(at);
                String::from_utf8_lossy(&line)
            }
        };
        text.push_str(&condenser.line(&decoded));
        if ends_line {
            text.push('\n');
        }
        offset += length;
    }
    let mut info = condenser.finish();
    // The condenser counts a newline after every line; the last may have none.
    info.original_bytes = offset;
    let mut source = Source::new(String::new(), text);
    source.invalid_utf8_at = invalid_utf8_at;
    source.condensed = Some(info);
    Ok(source)
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

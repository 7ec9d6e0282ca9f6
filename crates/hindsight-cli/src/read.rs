//! Reading inputs: a session file (Claude Code JSONL or a Codex rollout) is
//! streamed line by line through the core's condenser, and a server log
//! through its log condenser (which keeps the lines the log reader uses,
//! verbatim, and blanks the rest), so neither a 1 GB session nor a 1 GB log
//! sits in memory. Anything else (pasted text, JSON documents) is read whole.

use std::borrow::Cow;
use std::io::{self, BufRead, BufReader, Read};

use hindsight_core::condense::{Condenser, LogCondenser};
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
    if let Some(condenser) = Condenser::for_format(format) {
        let mut source = condensed(condenser, io::Cursor::new(head).chain(reader))?;
        source.name = name;
        // Left to detection when it was detected: condensed records keep
        // every key detection reads, and the report says "detected".
        source.format = forced;
        return Ok(source);
    }
    if let Some(condenser) = LogCondenser::for_format(format) {
        let mut source = condensed_log(condenser, io::Cursor::new(head).chain(reader))?;
        source.name = name;
        // The log's head is kept whole, so detection reads what it read here.
        source.format = forced;
        return Ok(source);
    }
    reader.read_to_end(&mut head)?;
    let mut source = Source::from_vec(name, head);
    source.format = forced;
    Ok(source)
}

/// Calls `line` with each line of a reader (without its `\n`, and whether
/// it had one). A line is handed over where it lies in the reader's buffer;
/// only one that spans two reads is copied first.
fn each_line(mut reader: impl BufRead, mut line: impl FnMut(&[u8], bool)) -> io::Result<()> {
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
                line(&buffer[used..end], true);
            } else {
                partial.extend_from_slice(&buffer[used..end]);
                line(&partial, true);
                partial.clear();
            }
            used = end + 1;
        }
        partial.extend_from_slice(&buffer[used..]);
        let length = buffer.len();
        reader.consume(length);
    }
    if !partial.is_empty() {
        line(&partial, false);
    }
    Ok(())
}

/// Decodes one line, noting where its first invalid UTF-8 is (its byte in
/// the file, `offset` being the line's).
fn decode(line: &[u8], offset: u64, note: impl FnOnce(u64)) -> Cow<'_, str> {
    match std::str::from_utf8(line) {
        Ok(valid) => Cow::Borrowed(valid),
        Err(error) => {
            note(offset + error.valid_up_to() as u64);
            String::from_utf8_lossy(line)
        }
    }
}

/// Streams a server log through the log condenser.
fn condensed_log(mut condenser: LogCondenser, reader: impl BufRead) -> io::Result<Source> {
    let mut offset = 0u64;
    each_line(reader, |line, ends_line| {
        let text = decode(line, offset, |at| condenser.note_invalid_utf8(at));
        condenser.line(&text, ends_line);
        offset += line.len() as u64 + u64::from(ends_line);
    })?;
    let (text, info) = condenser.finish();
    let mut source = Source::new(String::new(), text);
    source.condensed = Some(info);
    Ok(source)
}

/// Streams a JSONL file through the condenser, one line at a time.
fn condensed(condenser: Condenser, reader: impl BufRead) -> io::Result<Source> {
    let mut lines = Lines {
        condenser,
        text: String::new(),
        offset: 0,
        invalid_utf8_at: None,
    };
    each_line(reader, |line, ends_line| lines.line(line, ends_line))?;
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
        let (condenser, invalid) = (&mut self.condenser, &mut self.invalid_utf8_at);
        let decoded = decode(line, self.offset, |at| {
            invalid.get_or_insert(usize::try_from(at).unwrap_or(usize::MAX));
            condenser.note_invalid_utf8(at);
        });
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
        assert_eq!(streamed.checkpoints.len(), 3);
        assert_eq!(streamed.diagnostics.len(), 1);
        assert!(
            streamed.diagnostics[0]
                .message
                .contains("JSON record and was read whole"),
            "{:?}",
            streamed.diagnostics
        );
        assert_eq!(streamed.to_json(), whole.to_json());
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
    fn codex_rollouts_are_streamed_and_give_the_same_report() {
        let rollout = include_str!(
            "../../../examples/seed-codex/rollout-2026-02-11T22-10-00-0199a6c2-5e1b-7c3d-9a8f-1b2c3d4e5f60.jsonl"
        );
        let streamed = read_source("r.jsonl".into(), rollout.as_bytes(), None).expect("read");
        let info = streamed
            .condensed
            .clone()
            .expect("streamed through the condenser");
        assert_eq!(info.original_bytes, rollout.len() as u64);
        assert!(streamed.text.len() < rollout.len());
        let whole = Source::new("r.jsonl", rollout);
        let (streamed, whole) = (
            hindsight_core::analyze(&[streamed]),
            hindsight_core::analyze(&[whole]),
        );
        assert_eq!(streamed.sources[0].format, Format::CodexRollout);
        assert!(!streamed.checkpoints.is_empty() && !streamed.findings.is_empty());
        assert_eq!(streamed.to_json(), whole.to_json());
    }

    #[test]
    fn pasted_text_is_read_whole() {
        let text = "$ curl -s localhost:8000/health\nOK\n";
        let source = read_source("x.txt".into(), text.as_bytes(), None).expect("read");
        assert_eq!(source.text, text);
        assert!(source.condensed.is_none());
    }

    #[test]
    fn logs_are_streamed_and_give_the_same_report() {
        // A long run: start-up, then routine lines well past the kept head.
        let mut log = String::from(
            "[2026-02-11 22:34:51] server_args=ServerArgs(model_path='/m', tp_size=2, port=30000)\n\
             [2026-02-11 22:35:07 TP0] Load weight begin. avail mem=70.00 GB\n\
             [2026-02-11 22:35:07 TP1] Load weight begin. avail mem=70.00 GB\n\
             [2026-02-11 22:37:00] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n\
             [2026-02-11 22:37:02] The server is fired up and ready to roll!\n",
        );
        let routine = "[2026-02-11 22:38:00 TP0] Decode batch. #running-req: 1, #token: 90, token usage: 0.00, gen throughput (token/s): 80.00, #queue-req: 0, \n";
        while log.len() < 6 << 20 {
            log.push_str(routine);
            log.push_str("[2026-02-11 22:38:01] INFO:     127.0.0.1:5000 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n");
        }
        log.push_str("[2026-02-11 23:00:00 TP1] Scheduler hit an exception: torch.OutOfMemoryError: CUDA out of memory.\n");
        let streamed = read_source("x.log".into(), log.as_bytes(), None).expect("read");
        let info = streamed.condensed.clone().expect("condensed");
        assert_eq!(info.original_bytes, log.len() as u64);
        assert!(
            streamed.text.len() < log.len() / 10,
            "{}",
            streamed.text.len()
        );
        assert_eq!(streamed.text.lines().count(), log.lines().count());
        let whole = Source::new("x.log", log.clone());
        let (streamed, whole) = (
            hindsight_core::analyze(&[streamed]),
            hindsight_core::analyze(&[whole]),
        );
        assert_eq!(
            streamed.servers[0].failure.as_ref().map(|f| f.kind.name()),
            Some("cuda-oom")
        );
        assert_eq!(streamed.to_json(), whole.to_json());
    }
}

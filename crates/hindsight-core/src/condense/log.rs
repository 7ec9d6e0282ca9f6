//! Line-preserving condensation of server logs, so that a reader that streams
//! a log (the CLI) holds a few megabytes of it, not the whole file.
//!
//! A long-running server's log is mostly routine: batch statistics, access
//! lines, metrics, one per request or per second, each telling the lifecycle
//! nothing the first of them did not. The log reader keeps only the lines
//! that say something ([`crate::parse::logline`]); the condenser runs that
//! same reader over the log one piece at a time and keeps exactly the lines
//! it used, verbatim, and an empty line in place of every other. Line
//! numbers, and so every piece of evidence, stay those of the file.
//!
//! Why the condensed log reads as the whole one: a piece is read by a fresh
//! reader, which keeps at least what the whole log's reader keeps of those
//! lines. Its memory only ever makes it keep less (a rank already seen, a
//! request after one already counted), and at a piece's start it remembers
//! nothing. Reading the kept lines again, with empty lines between, then
//! gives the same events, since an empty line says nothing and joins no
//! block. Pieces end where a new line of the same log starts, never inside
//! a multi-line block. The head (the pasted launch command, format
//! detection's window) and the tail (a shell's job report) are kept whole,
//! and so is every line that holds a credential, which the secret scan must
//! still find. A test holds the condensed report equal to the whole one on
//! every example and corpus log.
//!
//! Lines over [`LONG_LINE`] bytes keep their first [`LONG_LINE`] bytes:
//! the reader never examines more.

use crate::Format;
use crate::diagnostic::LONG_LINE;
use crate::secrets;
use crate::source::{Condensed, floor_char_boundary};

/// Bytes of the log kept whole at its start: what format detection and
/// [`crate::parse::launch_head`] look at.
const HEAD: usize = 256 * 1024;

/// Lines read in the first piece whatever their size: the launch command
/// pasted above a log is looked for in these, and a piece must not cut it.
const HEAD_LINES: usize = 120;

/// Bytes, and lines, kept whole at the end, where a shell's job report is
/// looked for.
const TAIL: usize = 64 * 1024;
const TAIL_LINES: usize = 64;

/// The size of a piece read at once: big enough that a reader's set-up is
/// nothing beside its reading, small enough to stay in cache-friendly memory.
const PIECE: usize = 4 << 20;

/// How much is kept whole at each end, and the size of a piece.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub head: usize,
    pub tail: usize,
    pub tail_lines: usize,
    pub piece: usize,
}

/// Condenses one server log, fed line by line.
#[derive(Debug)]
pub struct LogCondenser {
    format: Format,
    /// [`HEAD`], [`TAIL`] and [`PIECE`], smaller in tests.
    sizes: Sizes,
    /// The condensed text so far.
    text: String,
    /// Whole lines not yet condensed, each followed by `\n`.
    pending: String,
    /// Where each pending line starts in `pending`.
    starts: Vec<usize>,
    /// Whether the last line given ended with a newline.
    last_ended: bool,
    /// Bytes of the original before the first pending line.
    emitted_bytes: usize,
    /// Lines moved to `text` so far.
    emitted: usize,
    /// How long `pending` must grow before a piece is tried again, after a
    /// try that found no place to end it: the search looks back over
    /// thousands of lines, and must not run again for every line read.
    retry_at: usize,
    lines: u32,
    bytes: u64,
    invalid_utf8: Option<(u32, u64)>,
    nul_line: Option<u32>,
    long_line: Option<(u32, usize)>,
}

impl LogCondenser {
    /// A condenser for a log of `format`; `None` for transcripts and
    /// documents, which are not logs.
    pub fn for_format(format: Format) -> Option<Self> {
        let sizes = Sizes {
            head: HEAD,
            tail: TAIL,
            tail_lines: TAIL_LINES,
            piece: PIECE,
        };
        Self::with_sizes(format, sizes)
    }

    /// [`Self::for_format`] with other sizes: tests make pieces small, so
    /// that short logs are cut in many places.
    #[doc(hidden)]
    pub fn with_sizes(format: Format, sizes: Sizes) -> Option<Self> {
        format.is_log().then(|| Self {
            format,
            sizes,
            text: String::new(),
            pending: String::new(),
            starts: Vec::new(),
            last_ended: true,
            emitted_bytes: 0,
            emitted: 0,
            retry_at: 0,
            lines: 0,
            bytes: 0,
            invalid_utf8: None,
            nul_line: None,
            long_line: None,
        })
    }

    /// Notes the first invalid UTF-8 in the original, at byte `at` of the
    /// line about to be given.
    pub fn note_invalid_utf8(&mut self, at: u64) {
        if self.invalid_utf8.is_none() {
            self.invalid_utf8 = Some((self.lines.saturating_add(1), at));
        }
    }

    /// Takes one line, without its `\n` (`ends_line` says it had one; only
    /// the last line of a file may not).
    pub fn line(&mut self, line: &str, ends_line: bool) {
        self.lines = self.lines.saturating_add(1);
        self.bytes += line.len() as u64 + u64::from(ends_line);
        if self.nul_line.is_none() && line.contains('\0') {
            self.nul_line = Some(self.lines);
        }
        // A line ending in `\r\n` is that long without its `\r`.
        let length = line.strip_suffix('\r').unwrap_or(line).len();
        if self.long_line.is_none() && length > LONG_LINE {
            self.long_line = Some((self.lines, length));
        }
        let line = &line[..floor_char_boundary(line, LONG_LINE)];
        self.last_ended = ends_line;
        self.starts.push(self.pending.len());
        self.pending.push_str(line);
        self.pending.push('\n');
        if self.pending.len() >= (self.sizes.piece + self.sizes.tail).max(self.retry_at) {
            self.condense_piece();
        }
    }

    /// Condenses a whole text, as a reader streaming it line by line would.
    pub fn text(mut self, text: &str) -> (String, Condensed) {
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', text.as_bytes()) {
            // `\n` is ASCII: both ends are char boundaries.
            self.line(text.get(start..newline).unwrap_or(""), true);
            start = newline + 1;
        }
        if start < text.len() {
            self.line(text.get(start..).unwrap_or(""), false);
        }
        self.finish()
    }

    /// The condensed text, and what the original was: its size and its
    /// reading problems, as [`crate::diagnostic::scan_text`] and
    /// [`crate::analyze`] would tell them of the whole text.
    pub fn finish(mut self) -> (String, Condensed) {
        let lines = self.starts.len();
        let tail_from = self.pending.len().saturating_sub(self.sizes.tail);
        let keep_whole: Vec<bool> = (0..lines)
            .map(|i| {
                let end = self
                    .starts
                    .get(i + 1)
                    .copied()
                    .unwrap_or(self.pending.len());
                end > tail_from || i + self.sizes.tail_lines >= lines
            })
            .collect();
        self.emit(lines, &keep_whole);
        if !self.last_ended && self.text.ends_with('\n') && lines > 0 {
            self.text.pop();
        }
        self.text.shrink_to_fit();
        let mut notes = Vec::new();
        if let Some((line, at)) = self.invalid_utf8 {
            notes.push((
                Some(line),
                format!("invalid UTF-8 from byte {at} on; bad bytes were replaced with U+FFFD"),
            ));
        }
        let mut scanned = Vec::new();
        if let Some(line) = self.nul_line {
            scanned.push((
                Some(line),
                "NUL bytes: this looks like binary data; it was read as text".to_owned(),
            ));
        }
        if let Some((line, length)) = self.long_line {
            scanned.push((
                Some(line),
                format!(
                    "line is {length} bytes long; only its first {} KiB were examined",
                    LONG_LINE / 1024
                ),
            ));
        }
        scanned.sort_by_key(|(line, _)| *line);
        notes.extend(scanned);
        (
            self.text,
            Condensed {
                original_bytes: self.bytes,
                notes,
            },
        )
    }

    /// Condenses the pending lines up to a safe end, leaving at least
    /// [`TAIL`] bytes pending (they may be the log's tail).
    fn condense_piece(&mut self) {
        let target = self.pending.len().saturating_sub(self.sizes.tail);
        // The last line starting at or before the target…
        let last = self
            .starts
            .partition_point(|&s| s <= target)
            .saturating_sub(1);
        // …or an earlier one that surely starts a new line of the log.
        let lowest = last.saturating_sub(4096).max(1);
        let safe = (lowest..=last).rev().find(|&i| self.starts_new_line(i));
        // None: the piece may end inside a block (a long `Args {` dump).
        // Wait for a line that starts one, but not for ever.
        let end = match safe {
            Some(end) => Some(end),
            None if self.pending.len() >= 4 * self.sizes.piece + self.sizes.tail => Some(last),
            None => None,
        };
        // The first piece holds the lines a launch command is looked for in.
        match end {
            Some(end) if end > 0 && self.emitted + end > HEAD_LINES => {
                self.emit(end, &[]);
                self.retry_at = 0;
            }
            _ => self.retry_at = self.pending.len() + self.sizes.piece.max(1),
        }
    }

    /// Whether pending line `i` begins a new line of the log: it opens as
    /// the line before it did, with a time, a tag or a bracket (no block of
    /// the reader takes such a line, bar an `Args {` dump, which ends at a
    /// timed line).
    fn starts_new_line(&self, i: usize) -> bool {
        let line = |i: usize| {
            let start = self.starts.get(i).copied().unwrap_or(0);
            let end = self
                .starts
                .get(i + 1)
                .copied()
                .unwrap_or(self.pending.len());
            self.pending.as_bytes().get(start..end).unwrap_or(&[])
        };
        if i == 0 {
            return false;
        }
        let (this, before) = (line(i), line(i - 1));
        this.len() > 5
            && this
                .first()
                .is_some_and(|b| b.is_ascii_digit() || *b == b'[' || *b == b'(')
            && this.get(..5) == before.get(..5)
    }

    /// Reads the first `count` pending lines as one piece and moves them to
    /// the condensed text: the lines the reader used (or `keep_whole` says),
    /// an empty line for every other.
    fn emit(&mut self, count: usize, keep_whole: &[bool]) {
        if count == 0 {
            return;
        }
        let end = self
            .starts
            .get(count)
            .copied()
            .unwrap_or(self.pending.len());
        let piece = self.pending.get(..end).unwrap_or("");
        let mut kept = vec![false; count];
        let starts = &self.starts[..count];
        let mut mark = |from: usize, to: usize| {
            let first = starts.partition_point(|&s| s <= from).saturating_sub(1);
            let last = starts
                .partition_point(|&s| s < to.max(from + 1))
                .saturating_sub(1);
            for flag in kept.iter_mut().take(last + 1).skip(first) {
                *flag = true;
            }
        };
        for event in crate::parse::parse_text(piece, 0, self.format).events {
            mark(event.span.start, event.span.end);
        }
        for span in secrets::credential_spans(piece) {
            mark(span.start, span.end);
        }
        // The head is read with the first piece, so that a block or command
        // that runs past it is not cut, and kept whole.
        let head = self.sizes.head.saturating_sub(self.emitted_bytes);
        for (i, &keep) in kept.iter().enumerate() {
            if keep || starts[i] < head || keep_whole.get(i).copied().unwrap_or(false) {
                let start = starts[i];
                let stop = starts.get(i + 1).copied().unwrap_or(end);
                // The line without the `\n` every pending line has.
                self.text
                    .push_str(piece.get(start..stop.saturating_sub(1)).unwrap_or(""));
            }
            self.text.push('\n');
        }
        self.emitted += count;
        self.emitted_bytes += end;
        self.pending.drain(..end);
        self.starts.drain(..count);
        for start in &mut self.starts {
            *start -= end;
        }
    }
}

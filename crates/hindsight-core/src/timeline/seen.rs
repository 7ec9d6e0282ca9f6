//! What the agent saw of a command's output, held compactly.
//!
//! A long session has hundreds of thousands of output lines, and rules read
//! every one of them (a signal, a rank tag, an error word). Holding each as
//! an owned string with its own log-line classification made these lines
//! most of a big session's memory. Here an output's decoded text is held
//! once (it is also what the report quotes), each line is two integers
//! pointing into it, and only lines that say something as a log line (a
//! time, a rank, a lifecycle signal) keep their classification. Rules read
//! lines through [`SeenLine`], a borrowed view with the fields an owned line
//! would have.

use std::borrow::Cow;
use std::sync::OnceLock;

use super::Quote;
use crate::diagnostic::LONG_LINE;
use crate::parse::LogLine;
use crate::parse::logline::{classify as classify_line, rank_in_text, strip_ansi};
use crate::source::{Span, floor_char_boundary, lines_with_offsets};

/// One output line the agent saw, with what it says as a log line.
#[derive(Debug, Clone, Copy)]
pub struct SeenLine<'a> {
    /// The line's bytes, or the whole record for sources that escape text.
    pub span: Span,
    /// The line as the agent saw it (ANSI codes removed).
    pub text: &'a str,
    pub log: &'a LogLine,
    /// A rank tag anywhere in the line (log prefix or process title).
    pub rank: Option<&'a str>,
}

impl SeenLine<'_> {
    /// This line as evidence.
    pub fn quote(self) -> Quote {
        Quote {
            span: self.span,
            text: Some(self.text.to_owned()),
        }
    }
}

/// Every line the agent saw of one checkpoint's output, from all its pieces
/// (a background command's output may come in several polls).
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// The decoded pieces (outputs a transcript holds escaped), joined by
    /// newlines; lines found literally in them point here.
    text: String,
    /// The text of every other line: ANSI codes removed, or copied from a
    /// source that holds the output verbatim.
    extra: String,
    /// Where the output as the report quotes it starts in `text`: the
    /// decoded pieces since the last verbatim one. `None` when the last
    /// piece was verbatim (the source's own lines are quoted then).
    quoted_from: Option<usize>,
    pieces: Vec<Piece>,
    /// One per line, in order.
    lines: Vec<Entry>,
    /// Offset and length of each line of the verbatim pieces within its
    /// piece's span, in order.
    raw: Vec<(u32, u32)>,
    /// The classification of the lines that say something, by line index.
    tells: Vec<(u32, Tell)>,
}

/// One output event.
#[derive(Debug, Clone, Copy)]
struct Piece {
    span: Span,
    /// Its lines are cited by the whole record (the text was escaped);
    /// otherwise each by its own bytes.
    decoded: bool,
    /// Its first line's index in `lines`.
    first: u32,
    /// For a verbatim piece, its first line's index in `raw`.
    raw_from: u32,
}

/// Where one line's text is: in `text`, or in `extra` when `len` has
/// [`IN_EXTRA`] set.
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: u32,
    len: u32,
}

const IN_EXTRA: u32 = 1 << 31;

#[derive(Debug, Clone)]
struct Tell {
    log: LogLine,
    rank: Option<String>,
}

/// A classified line before it is stored.
struct Classified<'t> {
    text: Cow<'t, str>,
    /// Where the raw segment is in the piece's text.
    offset: usize,
    raw_len: usize,
    log: LogLine,
    rank: Option<String>,
}

impl Classified<'_> {
    /// Says something about a server: kept even when the rest is pruned.
    fn telling(&self) -> bool {
        self.log.signal.is_some() || self.rank.is_some() || self.log.rank.is_some()
    }
}

/// The classification of a line that says nothing as a log line.
fn empty_log() -> &'static LogLine {
    static EMPTY: OnceLock<LogLine> = OnceLock::new();
    EMPTY.get_or_init(LogLine::default)
}

impl Seen {
    /// Adds one output event's lines. `decoded` is its text when the
    /// transcript escapes it (then the text is held here, and its lines cite
    /// the record); otherwise its lines are `source[span]`, each cited by its
    /// own bytes. With `prune`, a long output keeps only the lines that say
    /// something and a few at each end (see [`prune_lines`]).
    pub(crate) fn add(&mut self, span: Span, decoded: Option<String>, source: &str, prune: bool) {
        let (Ok(first), Ok(raw_from)) = (
            u32::try_from(self.lines.len()),
            u32::try_from(self.raw.len()),
        ) else {
            return;
        };
        self.pieces.push(Piece {
            span,
            decoded: decoded.is_some(),
            first,
            raw_from,
        });
        let Some(text) = decoded else {
            self.quoted_from = None;
            let output = source.get(span.start..span.end).unwrap_or("");
            let lines = prune_if(classify_output(output), prune);
            self.reserve(lines.iter());
            self.raw.reserve_exact(lines.len());
            for line in lines {
                let (Ok(offset), Ok(raw_len)) =
                    (u32::try_from(line.offset), u32::try_from(line.raw_len))
                else {
                    continue;
                };
                if self.push(None, line) {
                    self.raw.push((offset, raw_len));
                }
            }
            return;
        };
        // The report's quote joins the decoded pieces with newlines.
        if self.quoted_from.is_some() {
            self.text.push('\n');
        }
        let base = self.text.len();
        self.quoted_from.get_or_insert(base);
        if self.text.is_empty() {
            self.text = text;
        } else {
            self.text.push_str(&text);
        }
        let output = self.text.get(base..).unwrap_or("");
        // A line found literally in the text points into it; only a changed
        // line (ANSI codes removed) is copied. The lines borrow `self.text`,
        // so they are stored once classifying is done.
        let lines: Vec<(Option<(usize, usize)>, Classified<'static>)> =
            prune_if(classify_output(output), prune)
                .into_iter()
                .map(|line| match line.text {
                    Cow::Borrowed(same) => (
                        Some((base + line.offset, same.len())),
                        Classified {
                            text: Cow::Borrowed(""),
                            ..line
                        },
                    ),
                    Cow::Owned(changed) => (
                        None,
                        Classified {
                            text: Cow::Owned(changed),
                            ..line
                        },
                    ),
                })
                .collect();
        self.reserve(lines.iter().map(|(_, line)| line));
        for (literal, line) in lines {
            self.push(literal, line);
        }
    }

    /// Makes room for exactly these lines: checkpoints are many, and what
    /// doubling leaves unused would otherwise stay until all are made. (A
    /// line that points into `text` has no text of its own here.)
    fn reserve<'l, 't: 'l>(&mut self, lines: impl Iterator<Item = &'l Classified<'t>>) {
        let (mut count, mut copied, mut telling) = (0, 0, 0);
        for line in lines {
            count += 1;
            copied += line.text.len();
            telling += usize::from(line.rank.is_some() || line.log != *empty_log());
        }
        self.lines.reserve_exact(count);
        self.extra.reserve_exact(copied);
        self.tells.reserve_exact(telling);
    }

    /// Stores one line: its text at `literal` (start and length in `text`),
    /// or copied to `extra`. False when it does not fit the offsets.
    fn push(&mut self, literal: Option<(usize, usize)>, line: Classified<'_>) -> bool {
        let (at, len, flag) = match literal {
            Some((at, len)) => (at, len, 0),
            None => (self.extra.len(), line.text.len(), IN_EXTRA),
        };
        let (Ok(at), Ok(len), Ok(index)) = (
            u32::try_from(at),
            u32::try_from(len),
            u32::try_from(self.lines.len()),
        ) else {
            return false;
        };
        // Lines are cut at `LONG_LINE`, far below the flag bit.
        if len >= IN_EXTRA {
            return false;
        }
        if literal.is_none() {
            self.extra.push_str(&line.text);
        }
        if line.rank.is_some() || line.log != *empty_log() {
            self.tells.push((
                index,
                Tell {
                    log: line.log,
                    rank: line.rank,
                },
            ));
        }
        self.lines.push(Entry {
            at,
            len: len | flag,
        });
        true
    }

    /// Gives back what growing the lists left unused.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.extra.shrink_to_fit();
        self.pieces.shrink_to_fit();
        self.lines.shrink_to_fit();
        self.raw.shrink_to_fit();
        self.tells.shrink_to_fit();
    }

    /// The decoded output as the report quotes it, when the transcript
    /// escapes it (the source's own lines are the quote otherwise).
    pub fn output(&self) -> Option<&str> {
        self.quoted_from.and_then(|from| self.text.get(from..))
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn first(&self) -> Option<SeenLine<'_>> {
        self.iter().next()
    }

    pub fn iter(&self) -> SeenIter<'_> {
        SeenIter {
            seen: self,
            entries: self.lines.iter().enumerate(),
        }
    }

    fn view(&self, index: usize, entry: &Entry) -> SeenLine<'_> {
        let at = entry.at as usize;
        let len = (entry.len & !IN_EXTRA) as usize;
        let holder = if entry.len & IN_EXTRA == 0 {
            &self.text
        } else {
            &self.extra
        };
        let text = holder.get(at..at + len).unwrap_or("");
        // Pieces and tells are few and sorted: a binary search each, and
        // none for the usual one piece and no tells (rules walk every line
        // of every output several times).
        let piece = match self.pieces.as_slice() {
            [only] => Some(only),
            pieces => pieces
                .partition_point(|p| p.first as usize <= index)
                .checked_sub(1)
                .and_then(|p| pieces.get(p)),
        };
        let span = match piece {
            Some(piece) if piece.decoded => piece.span,
            Some(piece) => {
                let raw = (piece.raw_from as usize + index).checked_sub(piece.first as usize);
                let (offset, raw_len) = raw
                    .and_then(|r| self.raw.get(r))
                    .map_or((0, 0), |&(o, l)| (o as usize, l as usize));
                let start = piece.span.start + offset;
                Span::new(piece.span.source, start, start + raw_len)
            }
            None => Span::new(0, 0, 0),
        };
        let tell = if self.tells.is_empty() {
            None
        } else {
            self.tells
                .binary_search_by_key(&index, |(line, _)| *line as usize)
                .ok()
                .and_then(|t| self.tells.get(t))
        };
        let (log, rank) = match tell {
            Some((_, tell)) => (&tell.log, tell.rank.as_deref()),
            None => (empty_log(), None),
        };
        SeenLine {
            span,
            text,
            log,
            rank,
        }
    }
}

/// The lines of a [`Seen`], in order.
#[derive(Debug, Clone)]
pub struct SeenIter<'a> {
    seen: &'a Seen,
    entries: std::iter::Enumerate<std::slice::Iter<'a, Entry>>,
}

impl<'a> Iterator for SeenIter<'a> {
    type Item = SeenLine<'a>;
    fn next(&mut self) -> Option<SeenLine<'a>> {
        let (index, entry) = self.entries.next()?;
        Some(self.seen.view(index, entry))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl DoubleEndedIterator for SeenIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let (index, entry) = self.entries.next_back()?;
        Some(self.seen.view(index, entry))
    }
}

impl ExactSizeIterator for SeenIter<'_> {}

impl<'a> IntoIterator for &'a Seen {
    type Item = SeenLine<'a>;
    type IntoIter = SeenIter<'a>;
    fn into_iter(self) -> SeenIter<'a> {
        self.iter()
    }
}

/// Classifies each line (each `\r` segment) of an output the way a log line
/// would be; blank segments are skipped.
fn classify_output(output: &str) -> Vec<Classified<'_>> {
    let mut seen = Vec::new();
    for (offset, line) in lines_with_offsets(output) {
        let examined = &line[..floor_char_boundary(line, LONG_LINE)];
        let mut segment_start = 0;
        for segment in examined.split('\r') {
            let start = offset + segment_start;
            segment_start += segment.len() + 1;
            if segment.trim().is_empty() {
                continue;
            }
            // Only the segment itself may stay borrowed: its offset says
            // where it is.
            let text = match strip_ansi(segment) {
                Cow::Borrowed(same)
                    if same.as_ptr() == segment.as_ptr() && same.len() == segment.len() =>
                {
                    Cow::Borrowed(same)
                }
                other => Cow::Owned(other.into_owned()),
            };
            seen.push(Classified {
                log: classify_line(&text),
                rank: rank_in_text(&text),
                offset: start,
                raw_len: segment.len(),
                text,
            });
        }
    }
    seen
}

fn prune_if(lines: Vec<Classified<'_>>, prune: bool) -> Vec<Classified<'_>> {
    if prune { prune_lines(lines) } else { lines }
}

/// For an output no check reads (`git log`, `ls`, an editor's output), keeps
/// only what can still matter: lines that say something about a server (a
/// lifecycle signal or a rank tag) and a few lines at each end, so that an
/// output is never taken for empty.
fn prune_lines(mut lines: Vec<Classified<'_>>) -> Vec<Classified<'_>> {
    const ENDS: usize = 5;
    let total = lines.len();
    if total <= 2 * ENDS {
        return lines;
    }
    let mut index = 0;
    lines.retain(|line| {
        let keep = index < ENDS || index >= total - ENDS || line.telling();
        index += 1;
        keep
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Signal;

    fn texts(seen: &Seen) -> Vec<&str> {
        seen.iter().map(|l| l.text).collect()
    }

    #[test]
    fn decoded_pieces_are_quoted_joined_and_cite_their_record() {
        let mut seen = Seen::default();
        let record = Span::new(0, 10, 90);
        seen.add(record, Some("a\r\n\nb\rc".to_owned()), "", false);
        let poll = Span::new(0, 100, 150);
        seen.add(poll, Some("\x1b[32mok\x1b[0m".to_owned()), "", false);
        assert_eq!(texts(&seen), ["a", "b", "c", "ok"]);
        assert_eq!(seen.output(), Some("a\r\n\nb\rc\n\x1b[32mok\x1b[0m"));
        let spans: Vec<Span> = seen.iter().map(|l| l.span).collect();
        assert_eq!(spans, [record, record, record, poll]);
        assert_eq!(seen.iter().next_back().map(|l| l.text), Some("ok"));
        assert_eq!(seen.len(), 4);
    }

    #[test]
    fn verbatim_lines_cite_their_own_bytes() {
        let source = "$ tail x.log\nfirst\n\x1b[1mbold\x1b[0m\r\nlast";
        let span = Span::new(3, 13, source.len());
        let mut seen = Seen::default();
        seen.add(span, None, source, false);
        assert_eq!(texts(&seen), ["first", "bold", "last"]);
        assert_eq!(seen.output(), None);
        for line in &seen {
            let raw = &source[line.span.start..line.span.end];
            assert!(raw.contains(line.text), "{raw:?} / {:?}", line.text);
            assert_eq!(line.span.source, 3);
        }
    }

    #[test]
    fn a_verbatim_piece_ends_the_decoded_quote() {
        let mut seen = Seen::default();
        seen.add(Span::new(0, 0, 1), Some("one".to_owned()), "", false);
        seen.add(Span::new(0, 2, 5), None, "x\nabc", false);
        assert_eq!(seen.output(), None);
        seen.add(Span::new(0, 6, 7), Some("two".to_owned()), "", false);
        assert_eq!(seen.output(), Some("two"));
        assert_eq!(texts(&seen), ["one", "abc", "two"]);
    }

    #[test]
    fn pruning_keeps_the_ends_and_telling_lines() {
        let mut text: Vec<String> = (0..30).map(|i| format!("line {i}")).collect();
        text[15] = "[2026-02-11 22:37:00] The server is fired up and ready to roll!".to_owned();
        let mut seen = Seen::default();
        seen.add(Span::new(0, 0, 1), Some(text.join("\n")), "", true);
        let kept = texts(&seen);
        assert_eq!(kept.len(), 11, "{kept:?}");
        assert_eq!(kept[5], text[15]);
        let ready = seen.iter().nth(5).expect("a line");
        assert!(matches!(ready.log.signal, Some(Signal::Ready)));
        assert!(seen.iter().nth(4).is_some_and(|l| l.log.signal.is_none()));
        assert_eq!(seen.output().map(|o| o.lines().count()), Some(30));
    }
}

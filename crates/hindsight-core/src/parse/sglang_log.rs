//! SGLang server logs: one event per line, or per `\r`-separated progress
//! update within a line, with the rank tag, timestamp and lifecycle signal.

use super::logline::{classify, strip_ansi};
use super::{Event, EventKind, Parsed};
use crate::diagnostic::LONG_LINE;
use crate::source::{Span, floor_char_boundary, lines_with_offsets};

/// Parses a whole log. Blank lines produce nothing; every other segment
/// becomes a [`EventKind::Log`] event, with or without a signal.
pub fn parse(text: &str, source: usize) -> Parsed {
    let mut parsed = Parsed::default();
    for (offset, line) in lines_with_offsets(text) {
        let examined = &line[..floor_char_boundary(line, LONG_LINE)];
        // tqdm redraws a bar with `\r`: each redraw is one update.
        let mut segment_start = 0;
        for segment in examined.split('\r') {
            let start = offset + segment_start;
            segment_start += segment.len() + 1;
            if segment.trim().is_empty() {
                continue;
            }
            let clean = strip_ansi(segment);
            let log = classify(&clean);
            parsed.events.push(Event {
                span: Span::new(source, start, start + segment.len()),
                kind: EventKind::Log(log),
            });
        }
    }
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Signal;

    #[test]
    fn carriage_return_updates_are_separate_events() {
        let text = "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.0it/s]\rLoading safetensors checkpoint shards: 100% Completed | 2/2 [00:02<00:00,  1.0it/s]\n";
        let parsed = parse(text, 0);
        assert_eq!(parsed.events.len(), 2);
        let EventKind::Log(last) = &parsed.events[1].kind else {
            panic!("log event expected")
        };
        assert!(matches!(
            last.signal,
            Some(Signal::ShardProgress {
                done: 2,
                total: 2,
                ..
            })
        ));
        assert_eq!(
            &text[parsed.events[1].span.start..parsed.events[1].span.start + 7],
            "Loading"
        );
    }

    #[test]
    fn ansi_colours_do_not_hide_signals() {
        let parsed = parse(
            "\x1b[32m[2026-02-11 22:37:00] The server is fired up and ready to roll!\x1b[0m\n",
            0,
        );
        let EventKind::Log(line) = &parsed.events[0].kind else {
            panic!("log event expected")
        };
        assert_eq!(line.signal, Some(Signal::Ready));
    }
}

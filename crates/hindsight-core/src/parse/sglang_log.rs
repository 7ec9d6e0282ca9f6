//! SGLang server logs: `[2026-02-11 22:35:07 DP0 TP3] message`, the rank tag
//! built from DP/PP/ATTN_CP/MOE_DP/TP/EP (absent at tp=1 since ~v0.4.7),
//! `server_args=ServerArgs(…)` as the settings dump. Lines are read by the
//! shared [`super::logline`] classifier.
//!
//! Two more shapes carry the same tags: a line whose time a pasting user
//! cut (`[TP0] Scheduler hit an exception:`), and the 2026 logger with
//! level, pid and source position around the tags (`2026-03-18
//! 11:22:06.731 ERROR 120984 [ TP0 scheduler.py:3190] Scheduler hit an
//! exception`, sgl-project/sglang#21723).

use super::dialect::{Dialect, Prefix};
use crate::engine::Engine;
use crate::re::{capture, regex};
use crate::settings::{self, ServerSettings};

// The 2026 logger: time with milliseconds, level, pid, then the tags and
// the source position in one bracket. Only a line with a tag is SGLang's:
// the same shape without one is Python's common
// `%(asctime)s %(levelname)s %(process)d [%(filename)s:%(lineno)d]`.
regex!(
    SGLANG_LEVEL_PREFIX,
    r"(?-u)^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?) +[A-Z]+ +\d+ +\[ ?((?:(?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+ )+)[\w.-]+:\d+\] ?"
);
regex!(
    SGLANG_PREFIX,
    r"(?-u)^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|\d\d-\d\d \d\d:\d\d:\d\d|\d\d:\d\d:\d\d)((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)\] ?"
);

/// How Sglang's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::Sglang,
    prefix,
    settings,
};

/// `server_args=ServerArgs(…)`, dumped at startup.
pub fn settings(message: &str) -> Option<ServerSettings> {
    let at = message.find("server_args=ServerArgs(")?;
    Some(settings::from_dump(&message[at + 22..]))
}

/// `[time( DPn)?( TPn)?] `: SGLang's logger prefix.
pub fn prefix(line: &str) -> Option<Prefix> {
    if line.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return level_prefix(line);
    }
    if !line.starts_with('[') {
        return None;
    }
    if let Some(found) = gpu_id_prefix(line) {
        return Some(found);
    }
    // Most lines of a long log take the hand-written reader (tens of ns
    // instead of a regex capture's hundreds); it accepts exactly what the
    // pattern accepts, and anything else goes to the pattern.
    if let Some(found) = read_prefix(line) {
        return Some(found);
    }
    let c = capture(&SGLANG_PREFIX, line)?;
    Some(Prefix {
        time: c.get(1).map(|m| m.as_str().to_owned()),
        rank: c
            .get(2)
            .map(|m| m.as_str().trim())
            .filter(|tag| !tag.is_empty())
            .map(str::to_owned),
        aux_rank: None,
        message: c.get(0).map_or(0, |m| m.end()),
        engine: Some(Engine::Sglang),
    })
}

/// `[gpu_id=2] `: the prefix of SGLang's scheduler processes in 2024
/// (v0.2–v0.3), one per tensor-parallel rank, before the logger's `TPn`.
fn gpu_id_prefix(line: &str) -> Option<Prefix> {
    let rest = line.strip_prefix("[gpu_id=")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest.get(digits..)?.strip_prefix(']')?;
    if digits == 0 {
        return None;
    }
    Some(Prefix {
        time: None,
        rank: Some(format!("TP{}", &rest[..digits])),
        aux_rank: None,
        message: line.len() - after.trim_start_matches(' ').len(),
        engine: Some(Engine::Sglang),
    })
}

/// [`SGLANG_LEVEL_PREFIX`]: checked first for ` [` and a tag letter after
/// it near the start, as every line of a log opening with a digit comes
/// here.
fn level_prefix(line: &str) -> Option<Prefix> {
    let head = line.as_bytes().get(..80.min(line.len()))?;
    let tagged = memchr::memmem::find_iter(head, b" [").any(|at| {
        let inside = at + 2 + usize::from(head.get(at + 2) == Some(&b' '));
        head.get(inside).is_some_and(|b| b"ADEMPT".contains(b))
    });
    if !tagged {
        return None;
    }
    let c = capture(&SGLANG_LEVEL_PREFIX, line)?;
    Some(Prefix {
        time: c.get(1).map(|m| m.as_str().to_owned()),
        rank: c.get(2).map(|m| m.as_str().trim().to_owned()),
        aux_rank: None,
        message: c.get(0).map_or(0, |m| m.end()),
        engine: Some(Engine::Sglang),
    })
}

/// [`SGLANG_PREFIX`] by hand, owning its parts.
fn read_prefix(line: &str) -> Option<Prefix> {
    let (time, tags, message) = read_tags(line)?;
    Some(Prefix {
        time: (!time.is_empty()).then(|| time.to_owned()),
        rank: (!tags.is_empty()).then(|| tags.to_owned()),
        aux_rank: None,
        message,
        engine: Some(Engine::Sglang),
    })
}

/// [`SGLANG_PREFIX`] by hand: `[` time (tags) `]` and one optional space,
/// as borrowed time, trimmed tags (empty when none) and the message's
/// offset. Borrowed, so the server-log fast path reads a line's rank
/// without allocating.
pub(super) fn read_tags(line: &str) -> Option<(&str, &str, usize)> {
    let bytes = line.as_bytes();
    // `\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`, `\d\d-\d\d \d\d:\d\d:\d\d`, `\d\d:\d\d:\d\d`,
    // tried in the pattern's order.
    let shaped = |shape: &[u8]| {
        let Some(head) = bytes.get(1..=shape.len()) else {
            return false;
        };
        // Separators first: a line of another shape (TensorRT-LLM's
        // `[11/30/2026-…`, `[GIN]`) fails at its first one.
        shape
            .iter()
            .zip(head)
            .all(|(want, got)| *want == b'd' || want == got)
            && shape
                .iter()
                .zip(head)
                .all(|(want, got)| *want != b'd' || got.is_ascii_digit())
    };
    // No time at all: a pasted line whose time was cut, `[TP0] …`; then a
    // tag must follow (checked below).
    let time_len = [&b"dddd-dd-dd dd:dd:dd"[..], b"dd-dd dd:dd:dd", b"dd:dd:dd"]
        .into_iter()
        .find(|shape| shaped(shape))
        .map_or(0, <[u8]>::len);
    let tags_start = 1 + time_len;
    let mut at = tags_start;
    // ` (DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+`, any number of times (without a
    // time, the first without its space).
    while bytes.get(at) == Some(&b' ') || (time_len == 0 && at == tags_start) {
        let skip = usize::from(bytes.get(at) == Some(&b' '));
        let rest = &bytes[at + skip..];
        let Some(name) = [&b"ATTN_CP"[..], b"MOE_DP", b"DP", b"PP", b"TP", b"EP"]
            .into_iter()
            .find(|name| rest.starts_with(name))
        else {
            break;
        };
        let digits = rest[name.len()..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 {
            break;
        }
        at += skip + name.len() + digits;
    }
    if bytes.get(at) != Some(&b']') || (time_len == 0 && at == tags_start) {
        return None;
    }
    let mut end = at + 1;
    if bytes.get(end) == Some(&b' ') {
        end += 1;
    }
    Some((
        line.get(1..1 + time_len)?,
        // Each tag is ` NAMEdigits`: only leading spaces to trim.
        line.get(tags_start..at)?.trim_start_matches(' '),
        end,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{EventKind, Signal};

    /// PyTorch's NCCL watchdog across versions (sgl-project/sglang#10216,
    /// #3932, #3254): each is an NCCL failure.
    #[test]
    fn nccl_watchdog_words_are_nccl_failures() {
        for line in [
            "[rank1]:[E909 08:45:30.126335825 ProcessGroupNCCL.cpp:2252] [PG ID 2 PG GUID 3 Rank 1]  failure detected by watchdog at work sequence id: 40231 PG status: last enqueued work: 40267, last completed work: 40230",
            "[rank3]:[E227 16:30:43.526290891 ProcessGroupNCCL.cpp:1785] [PG ID 2 PG GUID 3 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 32, last enqueued NCCL work: 32, last completed NCCL work: 31.",
            "[rank3]:[E227 16:30:43.526306740 ProcessGroupNCCL.cpp:630] [Rank 3] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "  what():  [PG ID 0 PG GUID 0(default_pg) Rank 15] Process group watchdog thread terminated with exception",
        ] {
            assert!(
                matches!(
                    crate::parse::logline::classify(line).signal,
                    Some(Signal::Failure {
                        kind: crate::parse::FailureKind::Nccl,
                        ..
                    })
                ),
                "{line}"
            );
        }
    }

    /// The launcher's word when a scheduler dies before it reports ready,
    /// in the `%m-%d` time of 2026 builds (sgl-project/sglang, 0.5.x).
    #[test]
    fn scheduler_is_dead_is_an_engine_death() {
        let line = crate::parse::logline::classify(
            "[01-28 04:18:10] Rank 0 scheduler is dead. Please check if there are relevant logs.",
        );
        assert!(matches!(
            line.signal,
            Some(Signal::Failure {
                kind: crate::parse::FailureKind::EngineDied,
                ..
            })
        ));
        assert_eq!(line.time.as_deref(), Some("01-28 04:18:10"));
    }

    #[test]
    fn pattern_compiles() {
        assert!(SGLANG_PREFIX.is_some());
    }

    /// The hand-written reader agrees with the pattern wherever it answers.
    #[test]
    fn hand_reader_agrees_with_the_pattern() {
        for line in [
            "[2026-02-11 22:35:07 DP0 TP3] Decode batch.",
            "[2026-02-11 22:35:07] The server is fired up and ready to roll!",
            "[2026-02-11 22:35:07 TP12]Load weight end.",
            "[02-11 22:35:07 ATTN_CP1 MOE_DP2 EP3] x",
            "[22:35:07 PP1] x",
            "[2026-02-11 22:35:07 TP] x",
            "[2026-02-11 22:35:07 XX1] x",
            "[2026-02-11 22:35:0] x",
            "[2026-02-11 22:35:07",
            "[12:00:00]",
            "[1",
            "[",
        ] {
            let by_pattern = super::capture(&SGLANG_PREFIX, line).map(|c| {
                (
                    c.get(1).map(|m| m.as_str().to_owned()),
                    c.get(2)
                        .map(|m| m.as_str().trim())
                        .filter(|t| !t.is_empty())
                        .map(str::to_owned),
                    c.get(0).map_or(0, |m| m.end()),
                )
            });
            let by_hand = read_prefix(line).map(|p| (p.time, p.rank, p.message));
            if by_hand.is_some() {
                assert_eq!(by_hand, by_pattern, "{line}");
            }
            assert_eq!(
                prefix(line).map(|p| (p.time, p.rank, p.message)),
                by_pattern,
                "{line}"
            );
        }
    }

    #[test]
    fn carriage_return_updates_are_separate_events() {
        let text = "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.0it/s]\rLoading safetensors checkpoint shards: 100% Completed | 2/2 [00:02<00:00,  1.0it/s]\n";
        let parsed = crate::parse::logline::parse_log(text, 0);
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
        let parsed = crate::parse::logline::parse_log(
            "\x1b[32m[2026-02-11 22:37:00] The server is fired up and ready to roll!\x1b[0m\n",
            0,
        );
        let EventKind::Log(line) = &parsed.events[0].kind else {
            panic!("log event expected")
        };
        assert_eq!(line.signal, Some(Signal::Ready { port: None }));
    }

    #[test]
    fn old_and_short_time_formats() {
        let p = prefix("[12-27 11:24:23 TP1] x").expect("a prefix");
        assert_eq!(p.rank.as_deref(), Some("TP1"));
        // SGLang 2024's per-rank prefix.
        let p = prefix("[gpu_id=3] Memory pool end. avail mem=8.07 GB").expect("a prefix");
        assert_eq!(p.rank.as_deref(), Some("TP3"));
        assert_eq!(
            &"[gpu_id=3] Memory pool end."[p.message..],
            "Memory pool end."
        );
        assert!(prefix("[gpu_id=] x").is_none() && prefix("[gpu_id=3 x").is_none());
        assert!(prefix("[11:24:23] x").is_some());
        assert!(prefix("[GIN] 2026/04/10").is_none());
    }
}

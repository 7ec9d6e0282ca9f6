//! TensorRT-LLM logs: the C++ runtime's `[TensorRT-LLM][INFO] message` and
//! the Python side's `[11/30/2026-10:00:00] [TRT-LLM] [I] message`, with rank
//! tags `[RANK 0]` or in the message (`MPI size: 4, rank: 0`, `Rank 0 is
//! using GPU 0`). `trtllm-serve` answers through uvicorn.

use super::dialect::{Dialect, Prefix, no_settings};
use crate::engine::Engine;
use crate::re::capture;
use crate::re::regex;

regex!(
    TRT_PREFIX,
    r"^(?-u:(?:\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\]\s*)?\[(?:TRT-LLM|TensorRT-LLM)\])((?:(?-u:\s*)\[[^\]]{1,16}\])*)(?-u:\s*)"
);
regex!(TRT_RANK, r"(?-u)\[RANK (\d+)\]");

/// How TensorrtLlm's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::TensorrtLlm,
    prefix,
    settings: no_settings,
};

pub fn prefix(line: &str) -> Option<Prefix> {
    if !line.starts_with('[') {
        return None;
    }
    let c = capture(&TRT_PREFIX, line)?;
    let tags = c.get(2).map_or("", |m| m.as_str());
    Some(Prefix {
        time: c.get(1).map(|m| m.as_str().to_owned()),
        rank: capture(&TRT_RANK, tags)
            .and_then(|r| r.get(1))
            .map(|m| format!("rank {}", m.as_str())),
        aux_rank: None,
        message: c.get(0).map_or(0, |m| m.end()),
        engine: Some(Engine::TensorrtLlm),
    })
}

/// The rank of a line with TensorRT-LLM's prefix, read by hand with what
/// [`TRT_PREFIX`] and [`TRT_RANK`] accept: `Some(digits)` of its `[RANK n]`
/// (empty when the tags name none), `None` when the line has no such prefix
/// or is not plain ASCII there; the caller then classifies it in full.
pub(super) fn fast_rank(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let head = &bytes[..bytes.len().min(512)];
    let space = |c: &u8| matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r');
    let mut i = 0;
    let shape = b"[dd/dd/dddd-dd:dd:dd]";
    let timed = head.len() >= shape.len()
        && shape.iter().zip(head).all(|(want, got)| match want {
            b'd' => got.is_ascii_digit(),
            other => other == got,
        });
    if timed {
        i = shape.len();
        while head.get(i).is_some_and(space) {
            i += 1;
        }
    }
    let tag_len = [&b"[TRT-LLM]"[..], b"[TensorRT-LLM]"]
        .into_iter()
        .find(|tag| head[i..].starts_with(tag))?
        .len();
    i += tag_len;
    let tags_start = i;
    let mut tags_end = i;
    // `(?:\s*\[[^\]]{1,16}\])*`
    // `last`: where the last tag was looked for.
    let last = loop {
        let mut j = tags_end;
        while head.get(j).is_some_and(space) {
            j += 1;
        }
        if head.get(j) != Some(&b'[') {
            break j;
        }
        let inner = head[j + 1..].iter().take(17).position(|b| *b == b']');
        match inner {
            Some(len) if (1..=16).contains(&len) => tags_end = j + 1 + len + 1,
            _ => break j,
        }
    };
    // Every byte read above lies before `last + 18`. The pattern reads
    // Unicode (`\d`, `\s`, `[^\]]{1,16}` counts chars), so they decide the
    // same as here only if all are ASCII; the rest of the line is not read.
    if !head[..head.len().min(last + 18)].is_ascii() {
        return None;
    }
    if tags_end >= head.len() && bytes.len() > head.len() {
        return None;
    }
    let tags = &line[tags_start..tags_end];
    // `\[RANK (\d+)\]`, the first in the tags.
    // By hand: `match_indices` sets up a substring search per line, and so
    // does `memchr` per call; the tags are a few short brackets.
    let rank = tags
        .bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'[')
        .find_map(|(at, _)| {
            let rest = tags.get(at..)?.strip_prefix("[RANK ")?;
            let count = rest.bytes().take_while(u8::is_ascii_digit).count();
            (count > 0 && rest.as_bytes().get(count) == Some(&b']')).then(|| &rest[..count])
        });
    Some(rank.unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Signal;
    use crate::parse::logline::classify;

    /// TensorRT-LLM 1.1+ (NVIDIA/TensorRT-LLM#9680, #7703): the banner lost
    /// its hyphen, and the PyTorch backend's weights come as a tqdm bar over
    /// modules (`desc="Loading weights concurrently"` in its loader).
    #[test]
    fn newer_banner_and_weights_bar() {
        assert_eq!(
            classify("[TensorRT-LLM] TensorRT LLM version: 1.2.0rc2").signal,
            Some(Signal::ProcessStart)
        );
        assert_eq!(
            classify(
                "Loading weights concurrently:  63%|██████▎   | 703/1113 [01:02<00:36, 11.24it/s]"
            )
            .signal,
            Some(Signal::ShardProgress {
                percent: 63,
                done: 703,
                total: 1113,
                elapsed_seconds: Some(62)
            })
        );
        // vLLM's line of the same start is still the end of loading.
        assert!(matches!(
            classify(
                "INFO 11-30 14:00:50 [default_loader.py:262] Loading weights took 29.48 seconds"
            )
            .signal,
            Some(Signal::WeightsEnd { .. })
        ));
    }

    #[test]
    fn patterns_compile() {
        assert!(TRT_PREFIX.is_some() && TRT_RANK.is_some());
    }

    #[test]
    fn both_prefixes() {
        let line = classify("[TensorRT-LLM][INFO] MPI size: 4, rank: 2");
        assert_eq!(line.rank.as_deref(), Some("rank 2"));
        assert_eq!(
            line.signal,
            Some(Signal::DistInit {
                done: true,
                world_size: Some(4)
            })
        );
        let line =
            classify("[11/30/2026-10:00:00] [TRT-LLM] [RANK 1] [I] Loaded engine size: 15323 MiB");
        assert_eq!(line.time.as_deref(), Some("11/30/2026-10:00:00"));
        assert_eq!(line.rank.as_deref(), Some("rank 1"));
        assert!(matches!(line.signal, Some(Signal::WeightsEnd { .. })));
        assert_eq!(
            classify("[TensorRT-LLM][INFO] Max tokens in paged KV cache: 38400. Allocating 5033164800 bytes.").signal,
            Some(Signal::KvCacheAllocated)
        );
    }
}

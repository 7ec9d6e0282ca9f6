//! TensorRT-LLM logs: the C++ runtime's `[TensorRT-LLM][INFO] message` and
//! the Python side's `[11/30/2026-10:00:00] [TRT-LLM] [I] message`, with rank
//! tags `[RANK 0]` or in the message (`MPI size: 4, rank: 0`, `Rank 0 is
//! using GPU 0`). `trtllm-serve` answers through uvicorn.

use super::Parsed;
use super::logline::{Prefix, capture, parse_log};
use crate::engine::Engine;
use crate::re::regex;

regex!(
    TRT_PREFIX,
    r"^(?-u:(?:\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\]\s*)?\[(?:TRT-LLM|TensorRT-LLM)\])((?:(?-u:\s*)\[[^\]]{1,16}\])*)(?-u:\s*)"
);
regex!(TRT_RANK, r"(?-u)\[RANK (\d+)\]");

/// Parses a whole log, see [`super::logline::parse_log`].
pub fn parse(text: &str, source: usize) -> Parsed {
    parse_log(text, source)
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Signal;
    use crate::parse::logline::classify;

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

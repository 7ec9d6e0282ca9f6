//! vLLM server logs: `LEVEL MM-DD HH:MM:SS [file.py:N] message` (older:
//! `file.py:N] ` without the bracket), under per-process prefixes added by
//! `decorate_logs`: `(APIServer pid=N)`, `(EngineCore_DP0 pid=N)`,
//! `(Worker_TP1_EP1 pid=N)`, `(VllmWorker TP3 pid=N)`, `(VllmWorker rank=3
//! pid=N)`, V0's `(VllmWorkerProcess pid=N)` (no rank: workers are told apart
//! by pid) and Ray's `(RayWorkerWrapper pid=N, ip=A)`. Settings come from
//! `non-default args: {…}`, `args: Namespace(…)` and the engine's `with
//! config: model=…` line.

use super::dialect::{Dialect, Prefix};
use crate::engine::Engine;
use crate::re::capture;
use crate::re::regex;
use crate::settings;
use crate::settings::ServerSettings;

regex!(
    PROCESS,
    r"(?-u)^\(([A-Za-z_]\w*)(?: (TP\d+|rank=\d+))? pid=(\d+)(?:, ip=([\d.]+))?\)\s*"
);
regex!(
    LEVEL_TIME,
    r"^(?-u:(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(\d\d-\d\d \d\d:\d\d:\d\d)(?:\.\d+)?\s+)(?:\[[^\]]*\]|[^\t\n\x0B\x0C\r ]+(?-u:\.py:\d+\]))(?-u:\s?)"
);

/// The process names vLLM's `decorate_logs` and its Ray executor use.
const VLLM_PROCESSES: &[&str] = &[
    "APIServer",
    "ApiServer",
    "EngineCore",
    "Worker",
    "VllmWorker",
    "RayWorkerWrapper",
    "DPCoordinator",
];

/// How Vllm's log lines read.
pub const DIALECT: Dialect = Dialect {
    engine: Engine::Vllm,
    prefix,
    settings,
};

/// Process tags, then level, time and source file.
pub fn prefix(line: &str) -> Option<Prefix> {
    let mut result = Prefix::default();
    let mut at = 0;
    let mut in_engine_core = false;
    // Nested tags: `(EngineCore_0 pid=A) (VllmWorker TP1 pid=B) INFO …`.
    while line[at..].starts_with('(') {
        let Some(c) = capture(&PROCESS, &line[at..]) else {
            break;
        };
        let name = c.get(1).map_or("", |m| m.as_str());
        let index = c.get(2).map(|m| m.as_str());
        let pid = c.get(3).map_or("", |m| m.as_str());
        let ip = c.get(4).map(|m| m.as_str());
        match tag(name, index, pid, ip, in_engine_core) {
            Tag::Rank(rank) => result.rank = Some(rank),
            Tag::Aux(rank) => result.aux_rank = Some(rank),
            Tag::None => {}
        }
        in_engine_core |= name.starts_with("EngineCore");
        // Ray tags every actor's output this way, so only vLLM's own
        // process names tell the engine; another's (`SGLangEngine`) leaves
        // it to the rest of the line.
        if VLLM_PROCESSES.iter().any(|p| name.starts_with(p)) {
            result.engine = Some(Engine::Vllm);
        }
        at += c.get(0).map_or(0, |m| m.end());
    }
    // Ray prints every actor's output behind `(ActorName pid=N)`, the shape
    // of vLLM's process tags: SGLang run as a Ray actor (slime, verl)
    // writes `(SGLangEngine pid=N) [time DP1 TP3] …`, SGLang's line whole.
    if at > 0
        && let Some(inner) = super::sglang_log::prefix(&line[at..])
    {
        return Some(Prefix {
            message: at + inner.message,
            ..inner
        });
    }
    // The pattern starts with a level word: most lines are rejected by their
    // first byte without running it.
    if matches!(
        line.as_bytes().get(at),
        Some(b'D' | b'I' | b'W' | b'E' | b'C')
    ) && let Some(c) = capture(&LEVEL_TIME, &line[at..])
    {
        result.time = c.get(1).map(|m| m.as_str().to_owned());
        at += c.get(0).map_or(0, |m| m.end());
        result.engine = Some(Engine::Vllm);
    }
    result.message = at;
    (at > 0 || result.engine.is_some()).then_some(result)
}

/// vLLM's process tags at the start of a line, read by hand with what
/// [`PROCESS`] accepts: calls `visit` with each tag's name, index, pid and
/// ip, and returns where the tags end. `None` when the tags are not plain
/// ASCII, where the pattern's Unicode classes could read them differently:
/// the caller then classifies the line in full.
pub(super) fn read_process_tags<'t>(
    line: &'t str,
    mut visit: impl FnMut(&'t str, Option<&'t str>, &'t str, Option<&'t str>),
) -> Option<usize> {
    let bytes = line.as_bytes();
    let head = &bytes[..bytes.len().min(512)];
    if !head.is_ascii() {
        return None;
    }
    let digits = |from: usize| {
        head.get(from..).map_or(0, |rest| {
            rest.iter().take_while(|b| b.is_ascii_digit()).count()
        })
    };
    let mut at = 0;
    while head.get(at) == Some(&b'(') {
        let mut i = at + 1;
        if !head
            .get(i)
            .is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
        {
            break;
        }
        while head
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            i += 1;
        }
        let name = &line[at + 1..i];
        // `(?: (TP\d+|rank=\d+))?`: without it, ` pid=` must come next.
        let mut index = None;
        for lead in [&b" TP"[..], b" rank="] {
            if head[i..].starts_with(lead) {
                let count = digits(i + lead.len());
                if count > 0 {
                    index = Some(&line[i + 1..i + lead.len() + count]);
                    i += lead.len() + count;
                }
                break;
            }
        }
        if !head[i..].starts_with(b" pid=") {
            break;
        }
        i += 5;
        let count = digits(i);
        if count == 0 {
            break;
        }
        let pid = &line[i..i + count];
        i += count;
        let mut ip = None;
        if head[i..].starts_with(b", ip=") {
            let from = i + 5;
            let count = head[from..]
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b'.')
                .count();
            if count > 0 && head.get(from + count) == Some(&b')') {
                ip = Some(&line[from..from + count]);
                i = from + count;
            }
        }
        if head.get(i) != Some(&b')') {
            break;
        }
        i += 1;
        // `\s*`, in ASCII (the head is ASCII).
        while head
            .get(i)
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r'))
        {
            i += 1;
        }
        if i >= head.len() && bytes.len() > head.len() {
            // Tags longer than the ASCII-checked head: let the pattern decide.
            return None;
        }
        visit(name, index, pid, ip);
        at = i;
    }
    Some(at)
}

/// The (rank, aux rank) that process tags read by [`read_process_tags`]
/// give, as [`prefix`] gives them.
pub(super) fn process_ranks(tags: &str) -> (Option<String>, Option<String>) {
    let (mut rank, mut aux) = (None, None);
    let mut in_engine_core = false;
    read_process_tags(tags, |name, index, pid, ip| {
        match tag(name, index, pid, ip, in_engine_core) {
            Tag::Rank(found) => rank = Some(found),
            Tag::Aux(found) => aux = Some(found),
            Tag::None => {}
        }
        in_engine_core |= name.starts_with("EngineCore");
    });
    (rank, aux)
}

enum Tag {
    Rank(String),
    Aux(String),
    None,
}

/// What a process tag says about ranks; `in_engine_core` when an
/// `EngineCore` tag came before it on the line (V1).
fn tag(name: &str, index: Option<&str>, pid: &str, ip: Option<&str>, in_engine_core: bool) -> Tag {
    if let Some(suffix) = name.strip_prefix("Worker") {
        let parts: Vec<&str> = suffix.split('_').filter(|p| !p.is_empty()).collect();
        // `(Worker pid=514)`: V1 tags a worker so before it knows its rank,
        // then as `(Worker_TP0 pid=514)`; only a log without the indexed
        // tags counts workers by pid.
        return if parts.is_empty() {
            Tag::Aux(format!("pid {pid}"))
        } else {
            Tag::Rank(parts.join(" "))
        };
    }
    match (name, index) {
        ("VllmWorker", Some(index)) => match index.strip_prefix("rank=") {
            Some(rank) => Tag::Rank(format!("rank {rank}")),
            None => Tag::Rank(index.to_owned()),
        },
        // V0 and Ray workers: the driver (rank 0) prints untagged, which
        // `Lifecycle` counts once it has seen a `worker pid` tag.
        ("VllmWorkerProcess" | "VllmWorker", None) => Tag::Rank(format!("worker pid {pid}")),
        // V1 runs every rank, rank 0 too, as a Ray actor under the engine
        // core (`(EngineCore_DP0 pid=A) (RayWorkerWrapper pid=B) …`): no
        // untagged driver is a rank beside them.
        ("RayWorkerWrapper", _) if in_engine_core => Tag::Rank(match ip {
            Some(ip) => format!("ray worker pid {pid}@{ip}"),
            None => format!("ray worker pid {pid}"),
        }),
        ("RayWorkerWrapper", _) => Tag::Rank(match ip {
            Some(ip) => format!("worker pid {pid}@{ip}"),
            None => format!("worker pid {pid}"),
        }),
        _ if name.starts_with("EngineCore") => Tag::Aux(name.to_owned()),
        _ => Tag::None,
    }
}

/// `non-default args: {…}`, `args: Namespace(…)`, `… with config: model=…`.
pub fn settings(message: &str) -> Option<ServerSettings> {
    if let Some(at) = message.find("non-default args: {") {
        return Some(settings::from_dump(&message[at + 18..]));
    }
    if let Some(at) = message.find("args: Namespace(") {
        return Some(settings::from_dump(&message[at + 15..]));
    }
    if message.contains("LLM engine")
        && let Some(at) = message.find("with config: ")
    {
        return Some(settings::from_dump(&message[at + 13..]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::logline::classify;
    use crate::parse::{FailureKind, Signal};

    #[test]
    fn patterns_compile() {
        assert!(PROCESS.is_some() && LEVEL_TIME.is_some());
    }

    /// SGLang run as a Ray actor (THUDM/slime#369): Ray's actor tag, then
    /// SGLang's own line, whose rank tags and engine count.
    #[test]
    fn ray_actor_tag_before_an_sglang_line() {
        let line = "(SGLangEngine pid=6680) [2025-09-22 14:35:35 DP1 TP3] Scheduler hit an exception: Traceback (most recent call last):";
        let found = prefix(line);
        assert_eq!(found.as_ref().and_then(|p| p.engine), Some(Engine::Sglang));
        assert_eq!(
            found.as_ref().and_then(|p| p.rank.as_deref()),
            Some("DP1 TP3")
        );
        let classified = classify(line);
        assert!(matches!(
            classified.signal,
            Some(Signal::Failure {
                kind: FailureKind::EngineDied,
                ..
            })
        ));
        assert_eq!(
            crate::parse::logline::fast_ranks(
                "(SGLangEngine pid=6680) [2025-09-22 14:35:36 DP1 TP3] Decode batch. #running-req: 1"
            )
            .map(|(rank, _)| rank.map(|r| r.into_owned())),
            Some(Some("DP1 TP3".to_owned()))
        );
    }

    /// The CUDA driver's and runtime's own out-of-memory words, as a V1
    /// engine core prints them (noonghunna/club-3090#60), are an OOM, not
    /// a generic exception.
    #[test]
    fn driver_out_of_memory_is_an_oom() {
        for line in [
            "(EngineCore pid=74) ERROR 05-07 00:37:03 [core.py:1136] RuntimeError: CUDA driver error: out of memory",
            "RuntimeError: CUDA error: out of memory",
        ] {
            assert!(
                matches!(
                    classify(line).signal,
                    Some(Signal::Failure {
                        kind: FailureKind::OutOfMemory,
                        ..
                    })
                ),
                "{line}"
            );
        }
    }

    #[test]
    fn prefixes_give_time_and_rank() {
        let line = classify(
            "(VllmWorker TP3 pid=675227) INFO 08-25 11:01:23 [default_loader.py:267] Loading weights took 1.13 seconds",
        );
        assert_eq!(line.rank.as_deref(), Some("TP3"));
        assert_eq!(line.time.as_deref(), Some("08-25 11:01:23"));
        assert_eq!(
            line.signal,
            Some(Signal::WeightsEnd {
                arch: None,
                draft: false,
                seconds: Some(1.13)
            })
        );
        let nested = classify(
            "(EngineCore_0 pid=1) (VllmWorker rank=1 pid=2) INFO 08-25 11:01:23 [x.py:1] hi",
        );
        assert_eq!(nested.rank.as_deref(), Some("rank 1"));
        assert_eq!(nested.aux_rank.as_deref(), Some("EngineCore_0"));
        // A V1 worker before it knows its rank: a weak hint, which the
        // indexed `(Worker_TP0 pid=514)` of the same process replaces.
        let early = classify("(Worker pid=514) INFO 07-12 02:33:40 [x.py:1] hi");
        assert_eq!(
            (early.rank, early.aux_rank.as_deref()),
            (None, Some("pid 514"))
        );
        assert_eq!(
            classify("(Worker_DP0_TP1_EP1 pid=530) INFO 11-30 10:00:00 [x.py:1] y")
                .rank
                .as_deref(),
            Some("DP0 TP1 EP1")
        );
        assert_eq!(
            classify("(VllmWorkerProcess pid=13105) INFO 11-30 10:00:00 model_runner.py:1] y")
                .rank
                .as_deref(),
            Some("worker pid 13105")
        );
        assert_eq!(
            classify("(RayWorkerWrapper pid=7, ip=10.0.0.2) INFO 11-30 10:00:00 [x.py:1] y")
                .rank
                .as_deref(),
            Some("worker pid 7@10.0.0.2")
        );
        // V1's Ray actors run under the engine core, rank 0 among them.
        assert_eq!(
            classify("(EngineCore_DP0 pid=6183) (RayWorkerWrapper pid=578) INFO 11-24 22:55:33 [pynccl.py:111] y")
                .rank
                .as_deref(),
            Some("ray worker pid 578")
        );
    }

    #[test]
    fn readiness_bind_and_drafter() {
        assert_eq!(
            classify("(APIServer pid=1) INFO 11-30 10:00:00 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8001").signal,
            Some(Signal::Bound { host: "0.0.0.0".into(), port: Some(8001) })
        );
        assert_eq!(
            classify("(APIServer pid=1) INFO:     Application startup complete.").signal,
            Some(Signal::AppStartupComplete)
        );
        assert_eq!(
            classify("INFO 11-30 10:00:00 [gpu_model_runner.py:1] Loading drafter model...").signal,
            Some(Signal::DrafterBegin)
        );
        assert!(matches!(
            classify("INFO 11-30 10:00:00 [eagle.py:1] Detected EAGLE model without its own embed_tokens in the checkpoint. Sharing target model embedding weights with the draft model.").signal,
            Some(Signal::WeightsEnd { draft: true, .. })
        ));
        assert_eq!(
            classify("(Worker_TP0 pid=1) INFO 11-30 10:00:00 [gpu_model_runner.py:1] Model loading took 15.27 GiB memory and 34.512 seconds").signal,
            Some(Signal::WeightsEnd { arch: None, draft: false, seconds: Some(34.512) })
        );
        assert_eq!(
            classify("INFO 11-30 10:00:00 [gpu_model_runner.py:1] Graph capturing finished in 12 secs, took 0.52 GiB").signal,
            Some(Signal::CudaGraphEnd { draft: false })
        );
    }

    #[test]
    fn settings_dumps() {
        let Some(Signal::Settings(s)) = classify(
            "(APIServer pid=1) INFO 11-30 10:00:00 [utils.py:1] non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'port': 8001, 'model': 'Qwen/Qwen3-8B', 'tensor_parallel_size': 4, 'gpu_memory_utilization': 0.85, 'speculative_config': {'method': 'eagle3', 'model': 'yuhuili/EAGLE3', 'num_speculative_tokens': 3}}",
        ).signal else {
            panic!("settings expected")
        };
        assert_eq!(s.model.as_deref(), Some("Qwen/Qwen3-8B"));
        assert_eq!(s.port, Some(8001));
        assert_eq!(s.tp_size, Some(4));
        assert_eq!(s.mem_fraction, Some(0.85));
        assert_eq!(s.speculative_algorithm.as_deref(), Some("eagle3"));
        assert_eq!(s.draft_model.as_deref(), Some("yuhuili/EAGLE3"));
        let Some(Signal::Settings(s)) = classify(
            "INFO 11-30 10:00:00 api_server.py:1] args: Namespace(host='0.0.0.0', port=5001, model='/m', tensor_parallel_size=2, speculative_model=None)",
        ).signal else {
            panic!("settings expected")
        };
        assert_eq!((s.port, s.tp_size), (Some(5001), Some(2)));
        assert_eq!(s.draft_model, None);
        let Some(Signal::Settings(s)) = classify(
            "INFO 11-30 10:00:00 [core.py:1] Initializing a V1 LLM engine (v0.10.2) with config: model='/m', speculative_config=SpeculativeConfig(method='mtp', model='/m', num_spec_tokens=2), tokenizer='/m', tensor_parallel_size=2, pipeline_parallel_size=1",
        ).signal else {
            panic!("settings expected")
        };
        assert_eq!(s.speculative_algorithm.as_deref(), Some("mtp"));
        assert_eq!((s.tp_size, s.pp_size), (Some(2), Some(1)));
    }

    #[test]
    fn engine_death() {
        assert!(matches!(
            classify("(EngineCore_DP0 pid=9) ERROR 11-30 10:00:00 [core.py:1] EngineCore failed to start.").signal,
            Some(Signal::Failure { kind: FailureKind::EngineDied, .. })
        ));
    }
}

//! The server-log parser keeps events only for lines that tell the lifecycle
//! something, and reads most lines' rank tags by hand without classifying
//! them. These tests hold both shortcuts to the plain reading (classify and
//! keep every line): on every example log, on every line of every example,
//! and on logs shuffled together from all of them (restarts, failures
//! between requests, progress bars, colour codes, CRLF, wrapped lines).

use hindsight_core::Engine;
use hindsight_core::parse::logline::{
    OTHER_SERVER_LITERALS, classify, fast_ranks, parse_log, parse_log_every_line, parse_other_log,
};
use hindsight_core::timeline::Lifecycle;
use hindsight_tests::{cases, sources};

const ENGINES: &[Engine] = &[
    Engine::Unknown,
    Engine::Sglang,
    Engine::Vllm,
    Engine::Ollama,
    Engine::TensorrtLlm,
];

/// The lifecycle from the fast parsers and from the plain one, per engine:
/// the reading of logs of no known engine on every text, the engines' own
/// on every text without another kind of server's lines (which their logs
/// never hold).
fn assert_same_lifecycle(name: &str, text: &str) {
    let every = parse_log_every_line(text, 0);
    let other = parse_other_log(text, 0);
    let engines_own = !OTHER_SERVER_LITERALS.iter().any(|l| text.contains(l));
    let fast = engines_own.then(|| parse_log(text, 0));
    for &engine in ENGINES {
        let b = format!("{:?}", Lifecycle::from_log(engine, &every));
        let a = format!("{:?}", Lifecycle::from_log(engine, &other));
        assert_eq!(a, b, "{name} read as {engine:?} (a log of no known engine)");
        if let Some(fast) = &fast {
            let a = format!("{:?}", Lifecycle::from_log(engine, fast));
            assert_eq!(a, b, "{name} read as {engine:?}");
        }
    }
}

/// Every text in `examples/`: logs and transcripts alike (a transcript read
/// as a log is just an unusual log).
fn example_texts() -> Vec<(String, String)> {
    cases()
        .iter()
        .flat_map(|case| sources(case))
        .map(|source| (source.name.clone(), source.text.clone()))
        .collect()
}

#[test]
fn every_example_gives_the_same_lifecycle_both_ways() {
    let texts = example_texts();
    assert!(texts.len() > 40, "examples not found");
    for (name, text) in &texts {
        assert_same_lifecycle(name, text);
    }
}

#[test]
fn fewer_events_are_kept_than_lines_in_a_long_log() {
    let text = std::fs::read_to_string(
        hindsight_tests::root().join("examples/log-sglang-tp8-healthy/server.log"),
    )
    .unwrap_or_default();
    let routine = "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 3, #token: 2311, token usage: 0.00, cuda graph: True, gen throughput (token/s): 187.22, #queue-req: 0, \n";
    let long = format!("{text}{}", routine.repeat(10_000));
    assert!(parse_log(&long, 0).events.len() < 400);
    assert_eq!(
        parse_log_every_line(&long, 0).events.len(),
        text.lines().count() + 10_000
    );
    assert_same_lifecycle("long", &long);
}

/// Two sequences the shuffles below found: a failed request (5xx) must not
/// use up the wanted served request, and a start line beginning a new run
/// must make the run's first accept rate wanted again.
#[test]
fn a_failed_request_or_a_new_run_hides_no_later_signal() {
    assert_same_lifecycle(
        "5xx, then 200",
        "2026-11-30T10:00:16.1234567Z (APIServer pid=88) INFO:     127.0.0.1:40002 - \"POST /v1/completions HTTP/1.1\" 500 Internal Server Error\n\
         [GIN] 2026/11/30 - 09:00:21 | 200 |  8.912731s |       127.0.0.1 | POST     \"/api/chat\"\n\
         [2026-11-30 22:10:31 TP1] Init torch distributed ends. mem usage=1.88 GB\n",
    );
    let accept = "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 1, accept len: 2.31, gen throughput (token/s): 99.0, #queue-req: 0, \n";
    assert_same_lifecycle(
        "accept, failure, restart, accept",
        &format!(
            "{accept}(EngineCore_DP0 pid=5120) ERROR 11-30 19:02:36 [core.py:718] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.16 GiB.\n\
             build: 6123 (79c1160b) with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu\n\
             2026-05-17 10:46:45.713 | 2.21.392.960 I slot launch_slot_: id  3 | task 0 | processing task, is_child = 0\n\
             {accept}[2026-02-11 22:34:53 TP7] Ignore import error when loading sglang.srt.models.gemma3_mm: No module named 'transformers.models.gemma3_mm'\n"
        ),
    );
}

/// A small deterministic generator (no randomness in tests).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }
}

#[test]
fn logs_shuffled_from_every_example_give_the_same_lifecycle_both_ways() {
    let texts = example_texts();
    let mut lines: Vec<String> = texts
        .iter()
        .filter(|(name, _)| name.ends_with(".log") || name.ends_with(".txt"))
        .flat_map(|(_, text)| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    // Routine lines in bulk, and the awkward shapes.
    for extra in [
        "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 3, #token: 2311, token usage: 0.00, cuda graph: True, gen throughput (token/s): 187.22, #queue-req: 0, ",
        "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 1, accept len: 2.31, gen throughput (token/s): 99.0, #queue-req: 0, ",
        "(APIServer pid=1849) INFO:     10.0.3.7:40412 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
        "(Worker_TP3 pid=3101) WARNING 11-30 18:00:25 [custom_all_reduce.py:144] Custom allreduce is disabled",
        "[11/30/2026-07:00:01] [TRT-LLM] [RANK 5] [I] iter = 1200, num_scheduled_requests = 12",
        "\x1b[32m[2026-02-11 22:37:00 TP6] Prefill batch. #new-seq: 1\x1b[0m",
        "Loading safetensors checkpoint shards:  50% Completed | 1/2 [00:01<00:01,  1.0it/s]\rLoading safetensors checkpoint shards: 100% Completed | 2/2 [00:02<00:00,  1.0it/s]",
        "[2026-11-30 10:03:12 TP1] KV Cache is allocated. #tokens: 1067894\r",
        "",
    ] {
        for _ in 0..20 {
            lines.push(extra.to_owned());
        }
    }
    let mut rng = Lcg(0x5eed);
    for round in 0..30 {
        let count = 200 + rng.next() % 600;
        let mut text = String::new();
        for _ in 0..count {
            text.push_str(&lines[rng.next() % lines.len()]);
            text.push_str(if round % 3 == 0 { "\r\n" } else { "\n" });
        }
        assert_same_lifecycle(&format!("shuffle {round}"), &text);
    }
}

#[test]
fn hand_read_ranks_equal_the_classifier() {
    let mut checked = 0;
    let mut lines: Vec<String> = example_texts()
        .iter()
        .flat_map(|(_, text)| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    for crafted in [
        "(EngineCore_DP0 pid=12) (Worker_TP1_EP1 pid=13) INFO 11-30 10:00:00 [x.py:1] hi",
        "(VllmWorker rank=3 pid=99) INFO 11-30 10:00:00 [x.py:1] hi",
        "(VllmWorkerProcess pid=4242) INFO 11-30 10:00:00 [x.py:1] hi",
        "(RayWorkerWrapper pid=77, ip=10.0.0.2) INFO 11-30 10:00:00 [x.py:1] hi",
        "(RayWorkerWrapper pid=77, ip=10.0.0.2 INFO broken",
        "(Worker_TP pid=3) x",
        "(Worker_TP1 pid=) x",
        "(9bad pid=1) x",
        "[11/30/2026-07:00:01] [TRT-LLM] [RANK 12] [I] iter = 1",
        "[TensorRT-LLM][INFO] [RANK 3] iter",
        "[TRT-LLM] [averyveryverylongtag] [RANK 1] x",
        "[TRT-LLM] [RANK x] [RANK 2] x",
        "[11/30/2026-07:00:01] no tag",
        "[GIN] 2026/04/10 - 09:00:18 | 200 | 1.2ms | 127.0.0.1 | POST \"/api/chat\"",
        "[2026-11-30 10:03:11 DP1 TP3] x",
        "[2026-11-30 10:03:11 ATTN_CP1 MOE_DP2 EP3] x",
        "[pod/sglang-0] [2026-11-30 10:03:11 TP3] x",
        "srv-1  | (Worker_TP2 pid=5) INFO x",
        "2026-11-30T12:01:05.800000Z  INFO text_generation_router::server: router/src/server.rs:622: Success",
        "2026-11-30T12:01:05Z [2026-11-30 10:03:11 TP7] x",
        "INFO:     127.0.0.1:54321 - \"GET /health HTTP/1.1\" 200 OK",
        "(Wörker_TP1 pid=3) x",
        "(Worker_TP1 pid=3)\u{a0}(Worker_TP2 pid=4) x",
    ] {
        lines.push(crafted.to_owned());
    }
    for line in &lines {
        // The precondition: a line with `ank` holds a trigger and is always
        // classified; escape codes are stripped before reading.
        if line.contains("ank") || line.contains('\x1b') {
            continue;
        }
        if let Some((rank, aux)) = fast_ranks(line) {
            let full = classify(line);
            assert_eq!(rank.as_deref(), full.rank.as_deref(), "rank of {line:?}");
            assert_eq!(
                aux.as_deref(),
                full.aux_rank.as_deref(),
                "aux rank of {line:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} lines were read by hand");
}

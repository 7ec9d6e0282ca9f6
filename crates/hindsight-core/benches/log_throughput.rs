//! Throughput of the server-log parser on a generated 1 GB log, in bounded
//! memory: the log is generated and parsed 64 MiB at a time (the events of
//! one chunk are dropped before the next), so memory stays at one chunk
//! whatever the size. First the cost of each stage on one line of each
//! engine, then the whole run. Figures, never assertions:
//! `cargo bench -p hindsight-core --bench log_throughput`
//! (`HINDSIGHT_BENCH_MB=256` for a shorter run).

// A benchmark: printing figures and reading the clock are its job.
#![allow(clippy::print_stderr, clippy::disallowed_methods)]

use hindsight_core::parse::logline::parse_log;
use hindsight_core::parse::{EventKind, Signal};

/// Real lines of the six engines, mostly the routine kind that fills a long
/// log (batches, access lines, metrics), plus lifecycle lines.
const TEMPLATE: &[&str] = &[
    "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 3, #token: 2311, token usage: 0.00, cuda graph: True, gen throughput (token/s): 187.22, #queue-req: 0, ",
    "[2026-11-30 10:03:12] INFO:     10.0.3.7:40412 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
    "(APIServer pid=1849) INFO 11-30 14:01:31 [loggers.py:123] Engine 000: Avg prompt throughput: 3.1 tokens/s, Avg generation throughput: 41.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%",
    "[2026-11-30 10:03:12 TP3] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, ",
    "2026-11-30T12:01:05.800000Z  INFO text_generation_router::server: router/src/server.rs:622: Success",
    "time=2026-11-30T09:00:18.000Z level=INFO source=server.go:637 msg=\"llama runner started in 5.65 seconds\"",
    "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
    "[2026-11-30 10:01:38 TP5] KV Cache is allocated. #tokens: 1067894, K size: 6.11 GB, V size: 6.11 GB",
    "(Worker_TP1 pid=3101) WARNING 11-30 18:00:25 [custom_all_reduce.py:144] Custom allreduce is disabled because your platform lacks GPU P2P capability",
    "[11/30/2026-07:00:01] [TRT-LLM] [RANK 2] [I] iter = 1200, global_step = 1200, num_scheduled_requests = 12",
];

fn main() {
    per_line_costs();
    throughput();
}

fn throughput() {
    let megabytes: usize = std::env::var("HINDSIGHT_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let total = megabytes * 1024 * 1024;
    let chunk_size = 64 * 1024 * 1024;
    let mut chunk = String::with_capacity(chunk_size + 512);
    let (mut done, mut lines, mut signals) = (0usize, 0usize, 0usize);
    let mut elapsed = std::time::Duration::ZERO;
    let mut next = 0usize;
    while done < total {
        chunk.clear();
        while chunk.len() < chunk_size.min(total - done) {
            chunk.push_str(TEMPLATE[next % TEMPLATE.len()]);
            chunk.push('\n');
            next += 1;
        }
        let start = std::time::Instant::now();
        let parsed = parse_log(&chunk, 0);
        for event in &parsed.events {
            lines += 1;
            if let EventKind::Log(line) = &event.kind
                && line
                    .signal
                    .as_ref()
                    .is_some_and(|s| !matches!(s, Signal::Request { .. }))
            {
                signals += 1;
            }
        }
        drop(parsed);
        elapsed += start.elapsed();
        done += chunk.len();
    }
    let seconds = elapsed.as_secs_f64();
    eprintln!(
        "parsed {:.2} GB ({lines} lines, {signals} lifecycle signals) in {seconds:.2} s: {:.3} GB/s on one core",
        done as f64 / 1e9,
        done as f64 / seconds / 1e9
    );
}

/// Nanoseconds per line: envelope, prefix, and the whole classification.
fn per_line_costs() {
    use hindsight_core::parse::logline::{classify, prefix, strip_envelope};
    for line in TEMPLATE {
        let n = 20_000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(strip_envelope(std::hint::black_box(line)));
        }
        let envelope = t.elapsed().as_nanos() / n;
        let t = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(prefix(std::hint::black_box(line)));
        }
        let pre = t.elapsed().as_nanos() / n;
        let t = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(classify(std::hint::black_box(line)));
        }
        let all = t.elapsed().as_nanos() / n;
        eprintln!("{envelope:>6} {pre:>6} {all:>6} ns  {}", &line[..40]);
    }
}

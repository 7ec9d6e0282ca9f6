//! Throughput of the server-log parser on a generated 1 GB log, in bounded
//! memory. The log is what a long-running server writes: each engine's
//! start-up (settings, NCCL, weights with a progress bar, KV cache, graphs,
//! bind, ready) and then its routine lines (batches, access lines, metrics),
//! over and over, one restart every 64 MiB. The six engines take turns, a
//! sixth of the size each. Each 64 MiB chunk is generated and parsed on its
//! own and its events dropped before the next, so memory stays at one chunk
//! whatever the size. First the cost of a routine line of each engine (in
//! a log of that line alone), then the whole run. Figures, never assertions:
//! `cargo bench -p hindsight-core --bench log_throughput`
//! (`HINDSIGHT_BENCH_MB=256` for a shorter run).

// A benchmark: printing figures and reading the clock are its job.
#![allow(clippy::print_stderr, clippy::disallowed_methods)]

use hindsight_core::parse::logline::parse_log;

/// One engine's log: start-up lines, then the routine lines that fill it.
struct EngineLog {
    name: &'static str,
    startup: &'static [&'static str],
    routine: &'static [&'static str],
}

const ENGINES: &[EngineLog] = &[
    EngineLog {
        name: "sglang",
        startup: &[
            "[2026-11-30 10:00:01] server_args=ServerArgs(model_path='/data/models/Kimi-K2.5-INT4', tp_size=8, port=8000, host='0.0.0.0', speculative_algorithm='EAGLE3', speculative_draft_model_path='/data/eagle3/drafter', mem_fraction_static=0.9)",
            "[2026-11-30 10:00:05 TP0] Init torch distributed begin.",
            "[2026-11-30 10:00:07 TP0] Init torch distributed ends. mem usage=1.12 GB",
            "[2026-11-30 10:00:07 TP1] Init torch distributed ends. mem usage=1.12 GB",
            "[2026-11-30 10:00:08 TP0] Load weight begin. avail mem=93.17 GB",
            "[2026-11-30 10:00:08 TP1] Load weight begin. avail mem=93.17 GB",
            "Loading safetensors checkpoint shards:  50% Completed | 32/64 [00:17<00:17,  1.84it/s]\rLoading safetensors checkpoint shards: 100% Completed | 64/64 [00:34<00:00,  1.85it/s]",
            "[2026-11-30 10:00:43 TP0] Load weight end. elapsed=34.2 s, type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=20.1 GB, mem usage=73.0 GB.",
            "[2026-11-30 10:00:45 TP0] Load weight end. elapsed=2.1 s, type=LlamaForCausalLMEagle3, dtype=torch.bfloat16, avail mem=19.1 GB, mem usage=1.0 GB.",
            "[2026-11-30 10:00:46 TP0] KV Cache is allocated. #tokens: 1067894, K size: 6.11 GB, V size: 6.11 GB",
            "[2026-11-30 10:00:47 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=7.9 GB",
            "[2026-11-30 10:01:10 TP0] Capture cuda graph end. Time elapsed: 23.1 s. mem usage=1.2 GB. avail mem=6.7 GB.",
            "[2026-11-30 10:01:12] INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
            "[2026-11-30 10:01:20] The server is fired up and ready to roll!",
        ],
        routine: &[
            "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 3, #token: 2311, token usage: 0.00, accept len: 2.31, cuda graph: True, gen throughput (token/s): 187.22, #queue-req: 0, ",
            "[2026-11-30 10:03:11 TP0] Decode batch. #running-req: 3, #token: 2431, token usage: 0.00, accept len: 2.08, cuda graph: True, gen throughput (token/s): 181.90, #queue-req: 0, ",
            "[2026-11-30 10:03:12] INFO:     10.0.3.7:40412 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
            "[2026-11-30 10:03:12 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, ",
        ],
    },
    EngineLog {
        name: "vllm",
        startup: &[
            "(APIServer pid=1849) INFO 11-30 14:00:01 [api_server.py:1896] vLLM API server version 0.11.0",
            "(APIServer pid=1849) INFO 11-30 14:00:01 [utils.py:328] non-default args: {'model_tag': '/models/Llama-3.1-70B', 'port': 8000, 'tensor_parallel_size': 2}",
            "(Worker_TP0 pid=2011) INFO 11-30 14:00:20 [gpu_model_runner.py:2602] Model loading took 65.9 GiB and 41.2 seconds",
            "(Worker_TP1 pid=2012) INFO 11-30 14:00:20 [gpu_model_runner.py:2602] Model loading took 65.9 GiB and 41.3 seconds",
            "(EngineCore_DP0 pid=1990) INFO 11-30 14:00:30 [kv_cache_utils.py:1087] GPU KV cache size: 301,648 tokens",
            "(EngineCore_DP0 pid=1990) INFO 11-30 14:00:50 [gpu_model_runner.py:3480] Graph capturing finished in 19 secs, took 0.55 GiB",
            "(APIServer pid=1849) INFO 11-30 14:01:00 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000",
            "(APIServer pid=1849) INFO:     Application startup complete.",
        ],
        routine: &[
            "(APIServer pid=1849) INFO 11-30 14:01:31 [loggers.py:123] Engine 000: Avg prompt throughput: 3.1 tokens/s, Avg generation throughput: 41.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%",
            "(APIServer pid=1849) INFO:     10.0.3.7:40412 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
            "(APIServer pid=1849) INFO:     10.0.3.7:40418 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
        ],
    },
    EngineLog {
        name: "tgi",
        startup: &[
            "2026-11-30T12:00:00.100000Z  INFO text_generation_launcher: Args { model_id: \"meta-llama/Llama-3.1-8B-Instruct\", num_shard: Some(2), port: 80 }",
            "2026-11-30T12:00:00.200000Z  INFO download: text_generation_launcher: Starting check and download process for meta-llama/Llama-3.1-8B-Instruct",
            "2026-11-30T12:00:10.300000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
            "2026-11-30T12:00:10.300000Z  INFO shard-manager: text_generation_launcher: Starting shard rank=1",
            "2026-11-30T12:00:31.500000Z  INFO shard-manager: text_generation_launcher: Shard ready in 21.2s rank=0",
            "2026-11-30T12:00:31.600000Z  INFO shard-manager: text_generation_launcher: Shard ready in 21.3s rank=1",
            "2026-11-30T12:00:40.000000Z  INFO text_generation_router::server: router/src/server.rs:2378: Connected",
        ],
        routine: &[
            "2026-11-30T12:01:05.800000Z  INFO chat_completions{total_time=\"1.204s\" validation_time=\"312µs\" queue_time=\"70µs\" inference_time=\"1.203s\" time_per_token=\"18.2ms\" seed=\"None\"}: text_generation_router::server: router/src/server.rs:622: Success",
            "2026-11-30T12:01:06.100000Z  INFO compat_generate{default_return_full_text=true}:generate{parameters=GenerateParameters { max_new_tokens: Some(64) } total_time=\"801ms\"}: text_generation_router::server: router/src/server.rs:622: Success",
        ],
    },
    EngineLog {
        name: "llama.cpp",
        startup: &[
            "build: 6350 (a1b2c3d4) with cc (Debian 12.2.0-14) 12.2.0 for x86_64-linux-gnu",
            "main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 11",
            "main: loading model",
            "srv    load_model: loading model '/models/qwen2.5-7b-q4_k_m.gguf'",
            "llama_kv_cache_unified:      CUDA0 KV buffer size =  1024.00 MiB",
            "main: model loaded",
            "main: server is listening on http://127.0.0.1:8080 - starting the main loop",
        ],
        routine: &[
            "slot launch_slot_: id  0 | task 1207 | processing task",
            "slot update_slots: id  0 | task 1207 | new prompt, n_ctx_slot = 4096, n_keep = 0, n_prompt_tokens = 412",
            "slot      release: id  0 | task 1207 | stop processing: n_past = 530, truncated = 0",
            "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
        ],
    },
    EngineLog {
        name: "ollama",
        startup: &[
            "time=2026-11-30T09:00:00.000Z level=INFO source=routes.go:1331 msg=\"server config\" env=\"map[OLLAMA_HOST:http://0.0.0.0:11434 OLLAMA_KEEP_ALIVE:5m0s]\"",
            "time=2026-11-30T09:00:00.100Z level=INFO source=routes.go:1384 msg=\"Listening on [::]:11434 (version 0.12.3)\"",
            "time=2026-11-30T09:00:12.000Z level=INFO source=server.go:400 msg=\"starting runner\" cmd=\"/usr/bin/ollama runner --model /root/.ollama/models/blobs/sha256-6a0746 --port 40123\"",
            "time=2026-11-30T09:00:18.000Z level=INFO source=server.go:637 msg=\"llama runner started in 5.65 seconds\"",
        ],
        routine: &[
            "[GIN] 2026/11/30 - 09:00:18 | 200 |  6.223713614s |       127.0.0.1 | POST     \"/api/chat\"",
            "[GIN] 2026/11/30 - 09:00:21 | 200 |  1.001253102s |       127.0.0.1 | POST     \"/api/chat\"",
            "time=2026-11-30T09:00:22.000Z level=INFO source=server.go:1288 msg=\"llm request\" model=qwen2.5:7b",
        ],
    },
    EngineLog {
        name: "tensorrt-llm",
        startup: &[
            "[11/30/2026-07:00:00] [TRT-LLM] [I] Starting TensorRT-LLM init.",
            "[11/30/2026-07:00:02] [TRT-LLM] [RANK 0] [I] MPI size: 4, rank: 0",
            "[11/30/2026-07:00:40] [TRT-LLM] [RANK 0] [I] Loaded engine size: 15323 MiB",
            "[11/30/2026-07:00:41] [TRT-LLM] [RANK 0] [I] [MemUsageChange] Allocated 30.00 GiB for max tokens in paged KV cache (38400).",
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
            "INFO:     Application startup complete.",
        ],
        routine: &[
            "[11/30/2026-07:00:01] [TRT-LLM] [RANK 0] [I] iter = 1200, global_step = 1200, num_scheduled_requests = 12, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 12}",
            "[11/30/2026-07:00:01] [TRT-LLM] [RANK 2] [I] iter = 1200, global_step = 1200, num_scheduled_requests = 12, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': 12}",
            "INFO:     127.0.0.1:40412 - \"POST /v1/completions HTTP/1.1\" 200 OK",
        ],
    },
];

/// A clock of CPU time, so that other work on a shared machine does not count
/// against the parser: Linux's `/proc/self/schedstat` (nanoseconds on CPU of
/// this thread), else the wall clock.
struct Clock {
    wall: std::time::Instant,
    cpu: Option<u64>,
}

fn cpu_nanos() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: std::time::Instant::now(),
            cpu: cpu_nanos(),
        }
    }

    fn elapsed(&self) -> std::time::Duration {
        match (self.cpu, cpu_nanos()) {
            (Some(then), Some(now)) => std::time::Duration::from_nanos(now.saturating_sub(then)),
            _ => self.wall.elapsed(),
        }
    }
}

fn main() {
    per_line_costs();
    if std::env::var_os("HINDSIGHT_BENCH_ENGINE").is_none() {
        throughput();
    }
}

/// One 64 MiB chunk of an engine's log: its start-up, then routine lines.
fn chunk_of(engine: &EngineLog, size: usize, out: &mut String) {
    out.clear();
    for line in engine.startup {
        out.push_str(line);
        out.push('\n');
    }
    let mut next = 0;
    while out.len() < size {
        out.push_str(engine.routine[next % engine.routine.len()]);
        out.push('\n');
        next += 1;
    }
}

fn throughput() {
    let megabytes: usize = std::env::var("HINDSIGHT_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let total = megabytes * 1024 * 1024;
    let per_engine = total / ENGINES.len();
    let chunk_size = 64 * 1024 * 1024;
    let mut chunk = String::with_capacity(chunk_size + 1024);
    let (mut all_bytes, mut all_time, mut all_events) = (0usize, 0f64, 0usize);
    for engine in ENGINES {
        let (mut done, mut events, mut lines) = (0usize, 0usize, 0usize);
        let mut elapsed = std::time::Duration::ZERO;
        while done < per_engine {
            chunk_of(engine, chunk_size.min(per_engine - done), &mut chunk);
            lines += chunk.lines().count();
            let start = Clock::start();
            let parsed = parse_log(&chunk, 0);
            events += parsed.events.len();
            drop(parsed);
            elapsed += start.elapsed();
            done += chunk.len();
        }
        let seconds = elapsed.as_secs_f64();
        eprintln!(
            "{:>13}: {:.2} GB, {lines} lines, {events} events kept, {seconds:.2} s: {:.2} GB/s",
            engine.name,
            done as f64 / 1e9,
            done as f64 / seconds / 1e9
        );
        all_bytes += done;
        all_time += seconds;
        all_events += events;
    }
    eprintln!(
        "parsed {:.2} GB ({all_events} events kept) in {all_time:.2} s of CPU: {:.2} GB/s on one core",
        all_bytes as f64 / 1e9,
        all_bytes as f64 / all_time / 1e9
    );
}

/// Nanoseconds per routine line, in a 16 MiB log of that line alone.
fn per_line_costs() {
    // Patterns and searchers are built on first use: not a line's cost.
    let mut text = String::new();
    for engine in ENGINES {
        chunk_of(engine, 1 << 20, &mut text);
        std::hint::black_box(parse_log(&text, 0));
    }
    // `HINDSIGHT_BENCH_ENGINE=tgi` measures one engine's lines (for a profiler).
    let only = std::env::var("HINDSIGHT_BENCH_ENGINE").ok();
    for engine in ENGINES {
        if only.as_deref().is_some_and(|name| name != engine.name) {
            continue;
        }
        for line in engine.routine {
            text.clear();
            while text.len() < 16 * 1024 * 1024 {
                text.push_str(line);
                text.push('\n');
            }
            let count = text.lines().count();
            let start = Clock::start();
            let parsed = std::hint::black_box(parse_log(&text, 0));
            let nanos = start.elapsed().as_nanos() / count as u128;
            drop(parsed);
            eprintln!(
                "{nanos:>6} ns  {:<13} {}",
                engine.name,
                &line[..48.min(line.len())]
            );
        }
    }
}

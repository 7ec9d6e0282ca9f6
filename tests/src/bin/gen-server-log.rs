//! Writes a long server log for benchmarks: `gen-server-log PATH MB ENGINE`
//! (ENGINE: sglang, vllm or tgi). What a busy server writes over a day: its
//! start-up on 8 ranks (settings, distributed init, weights with a progress
//! bar, KV cache, graphs, bind, ready), then batch statistics and access
//! lines, with a restart every 64 MiB. Deterministic: the same arguments
//! give the same bytes.

#![forbid(unsafe_code)]
// A command-line tool: printing is its job.
#![allow(clippy::print_stderr)]

use std::io::{BufWriter, Write};

const RANKS: u32 = 8;

fn startup(engine: &str, out: &mut String) {
    match engine {
        "vllm" => {
            out.push_str("(APIServer pid=1849) INFO 11-30 14:00:01 [api_server.py:1896] vLLM API server version 0.11.0\n");
            out.push_str("(APIServer pid=1849) INFO 11-30 14:00:01 [utils.py:328] non-default args: {'model_tag': '/models/Llama-3.1-405B', 'port': 8000, 'tensor_parallel_size': 8}\n");
            for rank in 0..RANKS {
                out.push_str(&format!("(Worker_TP{rank} pid={}) INFO 11-30 14:00:20 [gpu_model_runner.py:2602] Model loading took 95.9 GiB and 41.2 seconds\n", 2011 + rank));
            }
            out.push_str("(EngineCore_DP0 pid=1990) INFO 11-30 14:00:30 [kv_cache_utils.py:1087] GPU KV cache size: 301,648 tokens\n");
            out.push_str("(EngineCore_DP0 pid=1990) INFO 11-30 14:00:50 [gpu_model_runner.py:3480] Graph capturing finished in 19 secs, took 0.55 GiB\n");
            out.push_str("(APIServer pid=1849) INFO 11-30 14:01:00 [api_server.py:1971] Starting vLLM API server 0 on http://0.0.0.0:8000\n");
            out.push_str("(APIServer pid=1849) INFO:     Application startup complete.\n");
        }
        "tgi" => {
            out.push_str("2026-11-30T12:00:00.100000Z  INFO text_generation_launcher: Args { model_id: \"meta-llama/Llama-3.1-70B-Instruct\", num_shard: Some(8), port: 8080 }\n");
            for rank in 0..RANKS {
                out.push_str(&format!("2026-11-30T12:00:10.300000Z  INFO shard-manager: text_generation_launcher: Starting shard rank={rank}\n"));
            }
            for rank in 0..RANKS {
                out.push_str(&format!("2026-11-30T12:00:31.500000Z  INFO shard-manager: text_generation_launcher: Shard ready in 21.2s rank={rank}\n"));
            }
            out.push_str("2026-11-30T12:00:40.000000Z  INFO text_generation_router::server: router/src/server.rs:2378: Connected\n");
        }
        _ => {
            out.push_str("[2026-11-30 10:00:01] server_args=ServerArgs(model_path='/data/models/Kimi-K2.5', tp_size=8, port=30000, host='0.0.0.0', speculative_algorithm='EAGLE3', speculative_draft_model_path='/data/eagle3', mem_fraction_static=0.9)\n");
            for rank in 0..RANKS {
                out.push_str(&format!("[2026-11-30 10:00:05 TP{rank}] Init torch distributed ends. mem usage=1.12 GB\n"));
                out.push_str(&format!(
                    "[2026-11-30 10:00:08 TP{rank}] Load weight begin. avail mem=93.17 GB\n"
                ));
            }
            out.push_str("Loading safetensors checkpoint shards:  50% Completed | 32/64 [00:17<00:17,  1.84it/s]\rLoading safetensors checkpoint shards: 100% Completed | 64/64 [00:34<00:00,  1.85it/s]\n");
            for rank in 0..RANKS {
                out.push_str(&format!("[2026-11-30 10:00:43 TP{rank}] Load weight end. elapsed=34.2 s, type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=20.1 GB, mem usage=73.0 GB.\n"));
                out.push_str(&format!("[2026-11-30 10:00:46 TP{rank}] KV Cache is allocated. #tokens: 1067894, K size: 6.11 GB, V size: 6.11 GB\n"));
            }
            out.push_str("[2026-11-30 10:00:47 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=7.9 GB\n");
            out.push_str("[2026-11-30 10:01:10 TP0] Capture cuda graph end. Time elapsed: 23.1 s. mem usage=1.2 GB. avail mem=6.7 GB.\n");
            out.push_str("[2026-11-30 10:01:12] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)\n");
            out.push_str("[2026-11-30 10:01:20] The server is fired up and ready to roll!\n");
        }
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(mb)) = (args.get(1), args.get(2).and_then(|m| m.parse::<u64>().ok()))
    else {
        eprintln!("usage: gen-server-log PATH MB [sglang|vllm|tgi]");
        std::process::exit(2);
    };
    let engine = args.get(3).map_or("sglang", String::as_str);
    let target = mb << 20;
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let mut written = 0u64;
    let mut n = 0u64;
    let mut buffer = String::new();
    let mut next_start = 0u64;
    while written < target {
        buffer.clear();
        if written >= next_start {
            startup(engine, &mut buffer);
            next_start += 64 << 20;
        }
        for _ in 0..1000 {
            hindsight_tests::generate::routine_line(engine, n, &mut buffer);
            n += 1;
        }
        out.write_all(buffer.as_bytes())?;
        written += buffer.len() as u64;
    }
    out.flush()
}

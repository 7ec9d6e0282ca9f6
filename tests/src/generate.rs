//! What the benchmark generators share (`gen-claude-session`,
//! `gen-codex-rollout`): a deterministic random source (a fixed linear
//! congruential generator, so figures compare), filler text, and the file
//! layout around the seed scenario.

use std::io::{BufWriter, Write};

/// A linear congruential generator: the same numbers on every run.
pub struct Rng(u64);

impl Rng {
    /// The generator every benchmark file starts from.
    pub fn new() -> Self {
        Rng(42)
    }

    /// The next number, 31 bits.
    pub fn number(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    /// A number under `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.number() % n.max(1)
    }
    /// A UUID-shaped id.
    pub fn id(&mut self) -> String {
        format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            self.number() as u32,
            self.below(0xffff),
            self.below(0xffff),
            self.below(0xffff),
            self.number() << 16 | self.below(0xffff)
        )
    }
}

impl Default for Rng {
    fn default() -> Self {
        Self::new()
    }
}

pub const WORDS: &[&str] = &[
    "the",
    "server",
    "kernel",
    "request",
    "batch",
    "scheduler",
    "token",
    "cache",
    "model",
    "weight",
    "shard",
    "rank",
    "config",
    "return",
    "self",
    "tensor",
    "device",
    "stream",
    "graph",
    "capture",
    "fn",
    "let",
    "match",
    "import",
    "def",
    "async",
    "await",
    "error",
    "value",
    "index",
];

/// `n` words, now and then a line break between them.
pub fn words(rng: &mut Rng, n: usize) -> String {
    let mut out = String::with_capacity(n * 7);
    for i in 0..n {
        if i > 0 {
            out.push(if rng.below(12) == 0 { '\n' } else { ' ' });
        }
        out.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
    }
    out
}

/// `lines` lines of indented words, like source code.
pub fn code_file(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for _ in 0..lines {
        let indent = " ".repeat(4 * rng.below(4) as usize);
        let len = 3 + rng.below(9) as usize;
        out.push_str(&indent);
        out.push_str(&words(rng, len).replace('\n', " "));
        out.push('\n');
    }
    out
}

/// `len` characters of base64.
pub fn base64ish(rng: &mut Rng, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..len)
        .map(|_| ALPHABET[rng.below(64) as usize] as char)
        .collect()
}

/// Writes `out`: the seed's first half (build, kill, launch), then records
/// from `bulk` until the file is about `size_mb` MiB, then the seed's end
/// (the checks and the claim), so findings span the whole file. Returns the
/// bytes written.
pub fn write_around_seed(
    out: &str,
    size_mb: u64,
    seed: &str,
    mut bulk: impl FnMut() -> Vec<serde_json::Value>,
) -> std::io::Result<u64> {
    let target = size_mb * 1024 * 1024;
    let mut file = BufWriter::with_capacity(1 << 20, std::fs::File::create(out)?);
    let mut written = 0u64;
    let lines: Vec<&str> = seed.lines().collect();
    let (first, last) = lines.split_at(lines.len() / 2);
    for line in first {
        writeln!(file, "{line}")?;
        written += line.len() as u64 + 1;
    }
    let tail: u64 = last.iter().map(|l| l.len() as u64 + 1).sum();
    while written + tail < target {
        for record in bulk() {
            let line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
            writeln!(file, "{line}")?;
            written += line.len() as u64 + 1;
        }
    }
    for line in last {
        writeln!(file, "{line}")?;
        written += line.len() as u64 + 1;
    }
    file.flush()?;
    Ok(written)
}

/// The output path and size in MiB from the command line, or exits with the
/// usage line.
#[allow(clippy::print_stderr)]
pub fn arguments(program: &str) -> (String, u64) {
    let args: Vec<String> = std::env::args().collect();
    match (args.get(1), args.get(2).and_then(|s| s.parse::<u64>().ok())) {
        (Some(out), Some(size)) => (out.clone(), size),
        _ => {
            eprintln!("usage: {program} OUT.jsonl SIZE_MB");
            std::process::exit(2);
        }
    }
}

/// One routine line of a busy server's log (`sglang`, `vllm` or `tgi`):
/// batch statistics, metrics and access lines, with its newline; `n` varies
/// the numbers so lines are not all alike. For the generated logs of
/// `gen-server-log` and the log-reading outputs of `gen-claude-session ops`.
pub fn routine_line(engine: &str, n: u64, out: &mut String) {
    let (minute, second) = ((n / 60) % 60, n % 60);
    match (engine, n % 3) {
        ("vllm", 0) => out.push_str(&format!("(APIServer pid=1849) INFO 11-30 14:{minute:02}:{second:02} [loggers.py:123] Engine 000: Avg prompt throughput: {}.1 tokens/s, Avg generation throughput: {}.2 tokens/s, Running: {} reqs, Waiting: 0 reqs, GPU KV cache usage: 0.{}%, Prefix cache hit rate: 0.0%\n", n % 97, n % 89, n % 7, n % 10)),
        ("vllm", _) => out.push_str(&format!("(APIServer pid=1849) INFO:     10.0.3.{}:{} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n", n % 250, 40000 + n % 20000)),
        ("tgi", 0) => out.push_str(&format!("2026-11-30T12:{minute:02}:{second:02}.100000Z  INFO text_generation_router::server: router/src/server.rs:402: Success\n")),
        ("tgi", _) => out.push_str(&format!("2026-11-30T12:{minute:02}:{second:02}.200000Z  INFO generate{{parameters=GenerateParameters {{ max_new_tokens: Some({}) }} total_time=\"1.{}s\" validation_time=\"217µs\" queue_time=\"48µs\" inference_time=\"1.2s\" time_per_token=\"21ms\"}}: text_generation_router::server: router/src/server.rs:422: Success\n", n % 500, n % 9)),
        (_, 0) => out.push_str(&format!("[2026-11-30 10:{minute:02}:{second:02} TP0] Decode batch. #running-req: {}, #token: {}, token usage: 0.0{}, accept len: 2.{}, cuda graph: True, gen throughput (token/s): {}.22, #queue-req: 0, \n", n % 9, n % 5000, n % 10, n % 99, n % 300)),
        (_, 1) => out.push_str(&format!("[2026-11-30 10:{minute:02}:{second:02}] INFO:     10.0.3.{}:{} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n", n % 250, 40000 + n % 20000)),
        (_, _) => out.push_str(&format!("[2026-11-30 10:{minute:02}:{second:02} TP0] Prefill batch. #new-seq: 1, #new-token: {}, #cached-token: {}, token usage: 0.00, #running-req: 0, #queue-req: 0, \n", n % 700, n % 300)),
    }
}

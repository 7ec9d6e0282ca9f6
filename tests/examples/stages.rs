//! Throughput of the condenser on one file (a profiling aid):
//! `cargo run --release -p hindsight-tests --example stages FILE`.

// A command-line tool: printing is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::time::Instant;
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: stages FILE.jsonl");
        return;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("cannot read {path}");
        return;
    };
    let mb = text.len() as f64 / 1e6;
    let t = Instant::now();
    let mut condenser = hindsight_core::condense::Condenser::new();
    let mut out = 0;
    for line in text.lines() {
        out += condenser.line(line).len();
    }
    println!(
        "condense: {:.0} MB/s ({out} of {} bytes kept)",
        mb / t.elapsed().as_secs_f64(),
        text.len()
    );
}

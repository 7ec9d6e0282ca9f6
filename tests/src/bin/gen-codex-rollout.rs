//! Writes a large, realistic Codex CLI rollout for the benchmark
//! (`scripts/bench.sh SIZE_MB codex`): `gen-codex-rollout OUT.jsonl SIZE_MB`.
//!
//! It starts with the seed scenario's rollout (so the analysis has servers
//! and findings to report) and goes on with the mix that makes real rollouts
//! big: a `turn_context` and encrypted reasoning on every turn, shell calls
//! of every generation whose output is stored twice (the
//! `function_call_output` the model saw and the `exec_command_end` event the
//! terminal showed), files read with `sed -n`, `apply_patch` calls that carry
//! whole files, `token_count` events and screenshots as base64. Deterministic
//! (`hindsight_tests::generate`), so figures compare.

#![forbid(unsafe_code)]
// A command-line tool: printing is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use hindsight_tests::generate::{Rng, arguments, base64ish, code_file, words, write_around_seed};
use serde_json::{Value, json};

struct Rollout {
    rng: Rng,
    second: u64,
    call: u64,
}

impl Rollout {
    fn record(&mut self, kind: &str, payload: Value) -> Value {
        self.second += 1;
        let s = self.second;
        json!({
            "timestamp": format!("2026-02-12T{:02}:{:02}:{:02}.000Z", (s / 3600) % 24, (s / 60) % 60, s % 60),
            "type": kind,
            "payload": payload,
        })
    }

    /// A shell call, its output as the model saw it, and the terminal's event.
    fn shell(&mut self, command: &str, output: &str, exit_code: i32) -> Vec<Value> {
        self.call += 1;
        let id = format!("call_{:024}", self.call);
        let (call, seen) = match self.call % 3 {
            0 => (
                json!({"type": "function_call", "name": "shell", "arguments": json!({"command": ["bash", "-lc", command], "workdir": "/home/ops/inference-fleet", "timeout_ms": 120_000}).to_string(), "call_id": id}),
                json!({"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.4}}).to_string(),
            ),
            1 => (
                json!({"type": "function_call", "name": "shell_command", "arguments": json!({"command": command, "workdir": "/home/ops/inference-fleet"}).to_string(), "call_id": id}),
                format!("Exit code: {exit_code}\nWall time: 0.4 seconds\nOutput:\n{output}"),
            ),
            _ => (
                json!({"type": "function_call", "name": "exec_command", "arguments": json!({"cmd": command, "yield_time_ms": 10_000}).to_string(), "call_id": id}),
                format!("Chunk ID: 4f2a\nWall time: 0.4 seconds\nProcess exited with code {exit_code}\nOriginal token count: 900\nOutput:\n{output}"),
            ),
        };
        vec![
            self.record("response_item", call),
            self.record(
                "response_item",
                json!({"type": "function_call_output", "call_id": id, "output": seen}),
            ),
            self.record(
                "event_msg",
                json!({"type": "exec_command_end", "call_id": id, "command": ["bash", "-lc", command], "stdout": output, "stderr": "", "aggregated_output": output, "exit_code": exit_code, "duration": {"secs": 0, "nanos": 400_000_000}, "formatted_output": output}),
            ),
        ]
    }

    fn turn(&mut self) -> Vec<Value> {
        let mut records = vec![
            self.record(
                "turn_context",
                json!({"cwd": "/home/ops/inference-fleet", "approval_policy": "never", "sandbox_policy": {"type": "danger-full-access"}, "model": "gpt-5.2-codex", "effort": "high", "summary": "auto"}),
            ),
            {
                let len = 1_000 + self.rng.below(3_000) as usize;
                let encrypted = format!("gAAAAAB{}", base64ish(&mut self.rng, len));
                self.record(
                    "response_item",
                    json!({"type": "reasoning", "summary": [], "content": null, "encrypted_content": encrypted}),
                )
            },
        ];
        match self.rng.below(100) {
            0..=39 => {
                let commands = [
                    "git status --short",
                    "ls -la /data/models",
                    "rg -n 'max_running_requests' python/sglang | head -40",
                    "git log --oneline -20",
                ];
                let command = commands[self.rng.below(commands.len() as u64) as usize];
                let lines = 5 + self.rng.below(120) as usize;
                let output = code_file(&mut self.rng, lines);
                records.extend(self.shell(command, &output, 0));
            }
            40..=69 => {
                let lines = 100 + self.rng.below(600) as usize;
                let path = format!("src/module_{}.py", self.rng.below(400));
                let output = code_file(&mut self.rng, lines);
                records.extend(self.shell(&format!("sed -n '1,{lines}p' {path}"), &output, 0));
            }
            70..=84 => {
                self.call += 1;
                let id = format!("call_{:024}", self.call);
                let lines = 200 + self.rng.below(1_000) as usize;
                let added: String = code_file(&mut self.rng, lines)
                    .lines()
                    .map(|l| format!("+{l}\n"))
                    .collect();
                let path = format!("scripts/tool_{}.py", self.rng.below(400));
                let patch = format!("*** Begin Patch\n*** Add File: {path}\n{added}*** End Patch");
                records.push(self.record(
                    "response_item",
                    json!({"type": "custom_tool_call", "status": "completed", "call_id": id, "name": "apply_patch", "input": patch}),
                ));
                records.push(self.record(
                    "response_item",
                    json!({"type": "custom_tool_call_output", "call_id": id, "output": json!({"output": format!("Success. Updated the following files:\nA {path}\n"), "metadata": {"exit_code": 0, "duration_seconds": 0.0}}).to_string()}),
                ));
            }
            85..=86 => {
                let len = 150_000 + self.rng.below(250_000) as usize;
                let data = base64ish(&mut self.rng, len);
                records.push(self.record(
                    "response_item",
                    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "This is what Grafana shows."}, {"type": "input_image", "image_url": format!("data:image/png;base64,{data}")}]}),
                ));
            }
            _ => {
                let text = words(&mut self.rng, 60).replace('\n', " ");
                records.push(self.record(
                    "response_item",
                    json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}),
                ));
                records.push(self.record(
                    "event_msg",
                    json!({"type": "agent_message", "message": text}),
                ));
            }
        }
        records.push(self.record(
            "event_msg",
            json!({"type": "token_count", "info": {"total_token_usage": {"input_tokens": 151_203, "cached_input_tokens": 150_000, "output_tokens": 190, "reasoning_output_tokens": 64, "total_tokens": 151_393}, "model_context_window": 272_000}, "rate_limits": {"primary": {"used_percent": 12.0, "window_minutes": 300}}}),
        ));
        records
    }
}

fn main() -> std::io::Result<()> {
    let (out, size) = arguments("gen-codex-rollout");
    let seed = include_str!(
        "../../../examples/seed-codex/rollout-2026-02-11T22-10-00-0199a6c2-5e1b-7c3d-9a8f-1b2c3d4e5f60.jsonl"
    );
    let mut rollout = Rollout {
        rng: Rng::new(),
        second: 0,
        call: 0,
    };
    let written = write_around_seed(&out, size, seed, || rollout.turn())?;
    eprintln!("wrote {out}: {written} bytes, {} tool calls", rollout.call);
    Ok(())
}

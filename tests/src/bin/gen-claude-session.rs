//! Writes a large, realistic Claude Code session for the benchmark
//! (`scripts/bench.sh`): `gen-claude-session OUT.jsonl SIZE_MB [ops]`.
//!
//! With `ops`, every turn is an operator's look at a server (`tail`,
//! `docker logs`, `journalctl`) whose output is server log lines: the
//! session where everything is evidence, the condenser's worst case
//! (`scripts/bench-peers.sh`).
//!
//! It starts with the seed scenario (so the analysis has servers and findings
//! to report) and goes on with the mix that makes real sessions big: Bash
//! calls with build and log output, file reads whose content is stored twice
//! (in the message and in `toolUseResult`), edits that store the whole
//! original file, thinking blocks with signatures, screenshots as base64 and
//! file-history snapshots, every record with Claude Code's metadata fields.
//! Deterministic (`hindsight_tests::generate`), so figures compare.

#![forbid(unsafe_code)]
// A command-line tool: printing is its job.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use hindsight_tests::generate::{Rng, arguments, base64ish, code_file, words, write_around_seed};
use serde_json::{Value, json};

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>6}→{l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

struct Session {
    rng: Rng,
    parent: Value,
    minute: u64,
    tool: u64,
}

impl Session {
    fn record(&mut self, kind: &str, message: Value, extra: Option<(&str, Value)>) -> Value {
        let uuid = self.rng.id();
        self.minute += 1;
        let mut record = json!({
            "parentUuid": self.parent,
            "isSidechain": false,
            "userType": "external",
            "cwd": "/home/ops/inference-fleet",
            "sessionId": "0d3c9a51-7b2e-4f10-9c8d-1e2f3a4b5c6d",
            "version": "2.0.30",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": format!("2026-02-12T{:02}:{:02}:{:02}.000Z", (self.minute / 3600) % 24, (self.minute / 60) % 60, self.minute % 60),
        });
        if kind == "assistant" {
            record["requestId"] = json!(format!("req_{}", base64ish(&mut self.rng, 24)));
        }
        if let Some((key, value)) = extra {
            record[key] = value;
        }
        self.parent = json!(uuid);
        record
    }

    fn assistant(&mut self, content: Vec<Value>) -> Value {
        let id = format!("msg_{}", base64ish(&mut self.rng, 24));
        self.record(
            "assistant",
            json!({
                "id": id, "type": "message", "role": "assistant", "model": "claude-opus-4-5-20251101",
                "content": content, "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 4, "cache_creation_input_tokens": 812, "cache_read_input_tokens": 151203, "output_tokens": 190, "service_tier": "standard"}
            }),
            None,
        )
    }

    fn call(&mut self, name: &str, input: Value, output: &str, structured: Value) -> [Value; 2] {
        self.tool += 1;
        let id = format!("toolu_{:024}", self.tool);
        let thinking = words(&mut self.rng, 120);
        let signature = base64ish(&mut self.rng, 600);
        let call = self.assistant(vec![
            json!({"type": "thinking", "thinking": thinking, "signature": signature}),
            json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        ]);
        let result = self.record(
            "user",
            json!({"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": output, "is_error": false}]}),
            Some(("toolUseResult", structured)),
        );
        [call, result]
    }

    /// A look at a server's log: its last lines, as the agent reads them.
    fn ops_turn(&mut self) -> Vec<Value> {
        let commands = [
            "tail -n 200 /var/log/sglang/server.log",
            "docker logs --tail 300 sglang-kimi 2>&1",
            "journalctl -u vllm --no-pager -n 250",
            "grep -E 'Decode batch|POST' /var/log/sglang/server.log | tail -n 400",
        ];
        let command = commands[self.rng.below(commands.len() as u64) as usize];
        let lines = 50 + self.rng.below(400) as usize;
        let mut output = String::new();
        for _ in 0..lines {
            // SGLang's lines and vLLM's, as a fleet's logs mix them.
            let n = self.rng.below(100_000);
            let engine = if n % 4 == 2 { "vllm" } else { "sglang" };
            hindsight_tests::generate::routine_line(engine, n, &mut output);
        }
        let structured =
            json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
        self.call(
            "Bash",
            json!({"command": command, "description": "Read the server's latest log lines"}),
            &output,
            structured,
        )
        .to_vec()
    }

    fn turn(&mut self) -> Vec<Value> {
        match self.rng.below(100) {
            0..=39 => {
                let commands = [
                    "git status --short",
                    "ls -la /data/models",
                    "rg -n 'max_running_requests' python/sglang | head -40",
                    "python -c 'import torch; print(torch.__version__)'",
                    "wc -l benchmarks/*.py",
                    "git log --oneline -20",
                ];
                let command = commands[self.rng.below(commands.len() as u64) as usize];
                let lines = 5 + self.rng.below(120) as usize;
                let output = code_file(&mut self.rng, lines);
                let structured =
                    json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
                self.call(
                    "Bash",
                    json!({"command": command, "description": "Inspect the tree"}),
                    &output,
                    structured,
                )
                .to_vec()
            }
            40..=64 => {
                let lines = 100 + self.rng.below(900) as usize;
                let content = code_file(&mut self.rng, lines);
                let path = format!(
                    "/home/ops/inference-fleet/src/module_{}.py",
                    self.rng.below(400)
                );
                let structured = json!({"type": "text", "file": {"filePath": path, "content": content, "numLines": lines, "startLine": 1, "totalLines": lines}});
                self.call(
                    "Read",
                    json!({"file_path": path}),
                    &numbered(&content),
                    structured,
                )
                .to_vec()
            }
            65..=79 => {
                let lines = 200 + self.rng.below(1200) as usize;
                let original = code_file(&mut self.rng, lines);
                let old = code_file(&mut self.rng, 8);
                let new = code_file(&mut self.rng, 10);
                let path = format!(
                    "/home/ops/inference-fleet/src/module_{}.py",
                    self.rng.below(400)
                );
                let structured = json!({"filePath": path, "oldString": old, "newString": new, "originalFile": original, "structuredPatch": [{"oldStart": 10, "oldLines": 8, "newStart": 10, "newLines": 10, "lines": new.lines().map(|l| format!("+{l}")).collect::<Vec<_>>()}], "userModified": false, "replaceAll": false});
                let output = format!(
                    "The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{}",
                    numbered(&new)
                );
                self.call(
                    "Edit",
                    json!({"file_path": path, "old_string": old, "new_string": new}),
                    &output,
                    structured,
                )
                .to_vec()
            }
            80..=89 => {
                let lines = 10 + self.rng.below(60) as usize;
                let output = (0..lines)
                    .map(|i| {
                        format!(
                            "src/module_{}.py:{}:    {}",
                            self.rng.below(400),
                            i * 7 + 1,
                            words(&mut self.rng, 6).replace('\n', " ")
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                let structured = json!({"mode": "content", "numFiles": lines, "filenames": [], "content": output, "numLines": lines});
                self.call(
                    "Grep",
                    json!({"pattern": "scheduler", "output_mode": "content", "-n": true}),
                    &output,
                    structured,
                )
                .to_vec()
            }
            90..=94 => {
                let lines = 150 + self.rng.below(400) as usize;
                let content = code_file(&mut self.rng, lines);
                let path = format!(
                    "/home/ops/inference-fleet/scripts/tool_{}.py",
                    self.rng.below(400)
                );
                let structured = json!({"type": "create", "filePath": path, "content": content, "structuredPatch": []});
                self.call(
                    "Write",
                    json!({"file_path": path, "content": content}),
                    &format!("File created successfully at: {path}"),
                    structured,
                )
                .to_vec()
            }
            95 => {
                // A screenshot: Claude Code stores images as base64 blocks.
                self.tool += 1;
                let id = format!("toolu_{:024}", self.tool);
                let call = self.assistant(vec![json!({"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": "/tmp/grafana.png"}})]);
                let len = 150_000 + self.rng.below(250_000) as usize;
                let data = base64ish(&mut self.rng, len);
                let result = self.record(
                    "user",
                    json!({"role": "user", "content": [{"tool_use_id": id, "type": "tool_result", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]}]}),
                    Some(("toolUseResult", json!({"type": "image", "file": {"base64": data, "type": "image/png", "originalSize": 301_234}}))),
                );
                vec![call, result]
            }
            96..=97 => {
                let text = words(&mut self.rng, 80);
                vec![self.assistant(vec![json!({"type": "text", "text": text})])]
            }
            _ => {
                let backups: serde_json::Map<String, Value> = (0..20)
                    .map(|i| (format!("src/module_{i}.py"), json!({"backupFileName": format!("{}@v2", base64ish(&mut self.rng, 16)), "version": 2, "backupTime": "2026-02-12T10:00:00.000Z"})))
                    .collect();
                let message_id = self.rng.id();
                vec![
                    json!({"type": "file-history-snapshot", "messageId": message_id, "snapshot": {"messageId": message_id, "trackedFileBackups": backups, "timestamp": "2026-02-12T10:00:00.000Z"}, "isSnapshotUpdate": false}),
                ]
            }
        }
    }
}

fn main() -> std::io::Result<()> {
    let (out, size) = arguments("gen-claude-session");
    let seed = include_str!("../../../examples/seed-claude-code/session.jsonl");
    let mut session = Session {
        rng: Rng::new(),
        parent: Value::Null,
        minute: 0,
        tool: 0,
    };
    let ops = std::env::args().nth(3).is_some_and(|a| a == "ops");
    let written = write_around_seed(&out, size, seed, || {
        if ops {
            session.ops_turn()
        } else {
            session.turn()
        }
    })?;
    eprintln!("wrote {out}: {written} bytes, {} tool calls", session.tool);
    Ok(())
}

//! Property tests of the invariants every report keeps, on inputs generated
//! from realistic pieces (commands, server log lines, tool outputs, claims,
//! noise) in random order and framing:
//!
//! - every piece of evidence lies inside its source and quotes exactly the
//!   lines it names (after the documented cut of long excerpts);
//! - condensing a session keeps its line count and every record on its
//!   line, so evidence line numbers are the original file's;
//! - redaction is idempotent;
//! - the report round-trips through its JSON.

use hindsight_core::condense::Condenser;
use hindsight_core::parse::logline::strip_ansi;
use hindsight_core::secrets::{redact, scan};
use hindsight_core::{Format, Report, Source, analyze};
use proptest::prelude::*;
use serde_json::Value;

/// Lines people paste: prompts and commands, tool outputs, engine log
/// lines, claims, and the noise terminals add.
const PIECES: &[&str] = &[
    "$ python -m sglang.launch_server --model-path /m --tp 2 --port 30000 > s.log 2>&1 &",
    "$ vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 4 --port 8011",
    "$ curl -s http://127.0.0.1:30000/v1/models",
    "$ ss -ltnp | grep 8011",
    "$ tail -5 s.log",
    "$ nvidia-smi --query-gpu=index,memory.used --format=csv",
    "$ pkill -f sglang",
    "$ make -j8",
    "curl: (7) Failed to connect to 127.0.0.1 port 30000: Connection refused",
    "{\"object\":\"list\",\"data\":[{\"id\":\"/m\"}]}",
    "LISTEN 0 2048 0.0.0.0:8011 0.0.0.0:* users:((\"python\",pid=4242,fd=3))",
    "[2026-01-02 10:00:00 TP0] Load weight end. type=LlamaForCausalLM, avail mem=20.1 GB",
    "[2026-01-02 10:00:01 TP1] Capture cuda graph begin. This can take up to several minutes.",
    "[2026-01-02 10:00:05] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
    "[2026-01-02 10:00:06] The server is fired up and ready to roll!",
    "INFO 01-02 10:00:00 [api_server.py:1] vLLM API server version 0.9.1",
    "(VllmWorker rank=3 pid=77) INFO 01-02 10:00:02 [gpu_model_runner.py:1] Model loading took 15.1 GiB",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "Traceback (most recent call last):",
    "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:09<00:00,  2.31s/it]",
    "[msg 3] assistant",
    "[msg 4] user",
    "The server is up and serving on port 30000.",
    "All 8 GPUs are free now.",
    "⏺ Bash(vllm serve m --port 8000 2>&1)",
    "  ⎿  Running in the background (↓ to manage)",
    "● The API is running.",
    "\u{1b}[32mINFO\u{1b}[0m started",
    "progress 10%\rprogress 50%\rprogress 100%",
    "日本語のログ行 サーバーが起動しました",
    "",
    "   ",
];

fn text_strategy() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0..PIECES.len(), 0..60),
        prop::bool::ANY,
    )
        .prop_map(|(picks, crlf)| {
            let newline = if crlf { "\r\n" } else { "\n" };
            picks
                .into_iter()
                .map(|i| PIECES[i])
                .collect::<Vec<_>>()
                .join(newline)
        })
}

/// Every evidence object anywhere in the report's JSON.
fn evidence_of(value: &Value, found: &mut Vec<(String, u64, u64, String)>) {
    match value {
        Value::Object(map) => {
            if let (
                Some(Value::String(source)),
                Some(start),
                Some(end),
                Some(Value::String(text)),
            ) = (
                map.get("source"),
                map.get("line_start").and_then(Value::as_u64),
                map.get("line_end").and_then(Value::as_u64),
                map.get("text"),
            ) {
                found.push((source.clone(), start, end, text.clone()));
            }
            for v in map.values() {
                evidence_of(v, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| evidence_of(v, found)),
        _ => {}
    }
}

/// Checks each quote against its source's lines.
fn quotes_hold(report: &Report, sources: &[Source]) -> Result<(), TestCaseError> {
    let json = serde_json::to_value(report).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut found = Vec::new();
    evidence_of(&json, &mut found);
    for (name, start, end, text) in found {
        let Some(source) = sources.iter().find(|s| s.name == name) else {
            // A diagnostic or a summary names no source lines.
            prop_assert!(start == 0 || name.is_empty(), "unknown source {name}");
            continue;
        };
        let lines: Vec<&str> = source.text.lines().collect();
        prop_assert!(start >= 1 && start <= end, "lines {start}-{end}");
        prop_assert!(
            (end as usize) <= lines.len().max(1),
            "line {end} past the end of {name} ({} lines)",
            lines.len()
        );
        if text.is_empty() {
            continue;
        }
        // The report shows lines as the terminal did: without ANSI codes.
        let clean: Vec<String> = lines[start as usize - 1..end as usize]
            .iter()
            .map(|l| strip_ansi(l).into_owned())
            .collect();
        let quoted: Vec<&str> = clean.iter().map(String::as_str).collect();
        let got: Vec<&str> = text.split('\n').collect();
        if got
            .iter()
            .any(|l| l.starts_with("… ") && l.ends_with(" more lines …"))
        {
            // Head and tail kept, the middle said.
            let keep = (got.len() - 1) / 2;
            prop_assert_eq!(&got[..keep], &quoted[..keep]);
            prop_assert_eq!(&got[got.len() - keep..], &quoted[quoted.len() - keep..]);
        } else if got.len() == 1 && quoted.len() == 1 && quoted[0].contains('\r') {
            // One `\r` segment of a progress line: the state it quotes.
            prop_assert!(
                got[0] == quoted[0]
                    || quoted[0]
                        .split('\r')
                        .any(|segment| segment.trim_end() == got[0].trim_end()),
                "{:?} is no segment of {:?}",
                got[0],
                quoted[0]
            );
        } else {
            prop_assert_eq!(got, quoted, "evidence of {}:{}-{}", name, start, end);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn evidence_quotes_the_lines_it_names(text in text_strategy()) {
        let sources = [Source::new("paste.txt", text)];
        let report = analyze(&sources);
        quotes_hold(&report, &sources)?;
    }

    #[test]
    fn evidence_holds_across_a_transcript_and_a_log(transcript in text_strategy(), log in text_strategy()) {
        let sources = [
            Source::new("transcript.txt", transcript),
            Source::new("s.log", log).with_format(Format::SglangLog),
        ];
        let report = analyze(&sources);
        quotes_hold(&report, &sources)?;
    }

    #[test]
    fn the_report_round_trips_through_json(text in text_strategy()) {
        let report = analyze(&[Source::new("paste.txt", text)]);
        let json = serde_json::to_string(&report).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: Report = serde_json::from_str(&json).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, report);
    }

    #[test]
    fn redaction_is_idempotent(text in text_strategy(), key in "[A-Za-z0-9]{24,40}") {
        let text = format!("{text}\nexport HF_TOKEN=hf_{key}\nvllm serve m --api-key sk-{key}\n");
        let source = Source::new("t.txt", text.clone());
        let once = redact(&text, &scan(&[&source]));
        let again = redact(&once, &scan(&[&Source::new("t.txt", once.clone())]));
        // Recall is the credential corpus's business (tests/credentials.rs);
        // here: what is redacted once stays as it is.
        prop_assert_eq!(again, once);
    }

    #[test]
    fn condensing_keeps_every_record_on_its_line(
        records in prop::collection::vec((0..5usize, "[a-z ]{0,40}", 0..3000usize), 1..40)
    ) {
        // A Claude Code session: shell calls and their results, file reads
        // whose content the condenser drops, prose, and broken lines.
        let lines: Vec<String> = records
            .iter()
            .enumerate()
            .map(|(i, (kind, words, size))| match kind {
                0 => format!(r#"{{"type":"assistant","uuid":"u{i}","message":{{"content":[{{"type":"tool_use","id":"t{i}","name":"Bash","input":{{"command":"curl -s localhost:8000/health # {words}"}}}}]}}}}"#),
                1 => format!(r#"{{"type":"user","uuid":"u{i}","message":{{"content":[{{"type":"tool_result","tool_use_id":"t{}","content":"ok {words}"}}]}}}}"#, i.saturating_sub(1)),
                2 => format!(r#"{{"type":"user","uuid":"u{i}","toolUseResult":{{"file":{{"content":"{}"}}}},"message":{{"content":[{{"type":"tool_result","tool_use_id":"r{i}","content":"{}"}}]}}}}"#, "x".repeat(*size), "y".repeat(*size)),
                3 => format!(r#"{{"type":"assistant","uuid":"u{i}","message":{{"content":[{{"type":"text","text":"The server is up. {words}"}}]}}}}"#),
                _ => format!("not json {words}"),
            })
            .collect();
        let text = lines.join("\n") + "\n";
        let condensed = Condenser::new().text(&text);
        let out: Vec<&str> = condensed.lines().collect();
        prop_assert_eq!(out.len(), lines.len());
        for (i, (original, kept)) in lines.iter().zip(&out).enumerate() {
            // A record stays a record of the same type on the same line,
            // with the call id that ties a result to its command.
            if let Ok(Value::Object(record)) = serde_json::from_str::<Value>(original) {
                let kept: Value = serde_json::from_str(kept).map_err(|e| TestCaseError::fail(format!("line {}: {e}", i + 1)))?;
                prop_assert_eq!(kept.get("type"), record.get("type"), "line {}", i + 1);
                let id = format!("\"id\":\"t{i}\"");
                if original.contains(&id) {
                    prop_assert!(kept.to_string().contains(&id), "line {}: {} lost", i + 1, id);
                }
            } else {
                prop_assert_eq!(*kept, original.as_str(), "line {}", i + 1);
            }
        }
        // Evidence of the condensed analysis names the original lines.
        let report = analyze(&[Source::new("s.jsonl", text.clone())]);
        let json = serde_json::to_value(&report).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut found = Vec::new();
        evidence_of(&json, &mut found);
        for (_, start, end, _) in found {
            prop_assert!(start >= 1 && (end as usize) <= lines.len(), "lines {}-{} of {}", start, end, lines.len());
        }
    }
}

//! Golden tests over `examples/`: every case's findings, checkpoints and
//! servers are asserted exactly from `expected.json`, and the whole report
//! must equal `report.json` (the same file the wasm browser tests compare with).

use hindsight_core::analyze;
use hindsight_tests::{cases, check_golden, sources};
use serde_json::{Value, json};

/// The facts a case's `expected.json` pins down, extracted from a report.
fn facts(report: &Value) -> Value {
    let mut kinds: Vec<Value> = Vec::new();
    for checkpoint in report["checkpoints"].as_array().into_iter().flatten() {
        let kind = checkpoint["kind"].clone();
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    let servers: Vec<Value> = report["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| {
            json!({
                "engine": s["engine"], "host": s["host"], "port": s["port"], "tp_size": s["tp_size"],
                "draft_model": s["draft_model"], "ready": s["ready"],
                "drafter_loaded": s["drafter_loaded"], "ranks_expected": s["ranks_expected"],
                "ranks_seen": s["ranks_seen"], "log_source": s["log_source"],
            })
        })
        .collect();
    let findings: Vec<Value> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let evidence: Vec<String> = f["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|e| {
                    let (start, end) = (e["line_start"].as_u64(), e["line_end"].as_u64());
                    let source = e["source"].as_str().unwrap_or("");
                    match (start, end) {
                        (Some(s), Some(e)) if s == e => format!("{source}:{s}"),
                        (Some(s), Some(e)) => format!("{source}:{s}-{e}"),
                        _ => source.to_owned(),
                    }
                })
                .collect();
            json!({
                "rule": f["rule"], "severity": f["severity"], "status": f["status"],
                "evidence": evidence,
            })
        })
        .collect();
    json!({ "checkpoint_kinds": kinds, "servers": servers, "findings": findings })
}

#[test]
fn every_case_matches_its_expected_findings_and_golden_report() {
    let cases = cases();
    assert!(cases.len() >= 2, "examples/ has no cases");
    let mut failures = Vec::new();
    for case in &cases {
        let report = analyze(&sources(case));
        let json = report.to_json() + "\n";
        if let Some(difference) = check_golden(&case.join("report.json"), &json) {
            failures.push(difference);
        }
        let value: Value = serde_json::from_str(&json).unwrap_or(Value::Null);
        let mut facts = facts(&value);
        // Hand-written lifecycle labels are kept as written (see `tests/tests/lifecycle.rs`).
        if let Some(labels) = hindsight_tests::lifecycle_labels(case) {
            facts["lifecycle"] = labels;
        }
        let actual = serde_json::to_string_pretty(&facts).unwrap_or_default() + "\n";
        if let Some(difference) = check_golden(&case.join("expected.json"), &actual) {
            failures.push(difference);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn seed_case_yields_the_three_findings_in_order_with_the_right_server() {
    let case = hindsight_tests::root().join("examples/seed-sglang-eagle3");
    let report = analyze(&sources(&case));
    let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, hindsight_tests::SEED_FINDINGS);

    let kinds: Vec<&str> = report.checkpoints.iter().map(|c| c.kind_name()).collect();
    let first = |kind: &str| kinds.iter().position(|k| *k == kind);
    let order = ["build", "kill", "launch", "verify"].map(first);
    assert!(order.iter().all(Option::is_some), "{kinds:?}");
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{kinds:?}");

    let [server] = report.servers.as_slice() else {
        panic!("one server expected, got {:?}", report.servers);
    };
    assert_eq!(server.engine_name(), "sglang");
    assert_eq!(server.tp_size, Some(8));
    assert_eq!(server.port, Some(8000));
    assert_eq!(
        server.draft_model.as_deref(),
        Some("/data/eagle3/aq-medai-k2-drafter")
    );
    assert_eq!(server.host.as_deref(), Some("root@10.1.230.174"));
    assert_eq!(
        server.log_source.as_deref(),
        Some("sglang_eagle3_aqmedai.log")
    );
    assert_eq!(server.load_seconds, Some(34));
    // The log stops after the weights: readiness and the drafter are unknown, not false.
    assert_eq!(server.ready, None);
    assert_eq!(server.drafter_loaded, None);
    assert_eq!((server.ranks_expected, server.ranks_seen), (Some(8), 8));

    // The first three quote the launch line (msg 3131) first; every check
    // runs on the real host.
    for finding in &report.findings[..3] {
        let launch = &finding.evidence[0];
        assert_eq!(launch.source, "transcript.txt");
        assert!(launch.text.contains("--tp-size 8"), "{}", finding.rule);
    }
    for finding in &report.findings {
        assert!(
            finding.suggestion.starts_with("ssh root@10.1.230.174 '"),
            "{}",
            finding.suggestion
        );
    }
    let port = &report.findings[0];
    assert!(port.suggestion.contains(":8000"));
    let drafter = &report.findings[1];
    assert!(
        drafter
            .suggestion
            .contains("/data/eagle3/synth_10k/sglang_eagle3_aqmedai.log")
    );
    assert!(
        drafter
            .evidence
            .iter()
            .any(|e| e.text.contains("64/64 [00:34"))
    );
    let ranks = &report.findings[2];
    assert!(ranks.message.contains("head -3"), "{}", ranks.message);
    assert!(ranks.evidence.iter().any(|e| e.text.contains("46294")));
    // What the agent saw (the 100% bar, the ps line), then its claim (msg 3137).
    let load = &report.findings[3];
    assert_eq!(load.evidence[0].line_start, 85);
    assert!(
        load.evidence[1]
            .text
            .starts_with("SGLang loaded all 64 shards")
    );
    let process = &report.findings[4];
    assert!(process.evidence[0].text.contains("46294"));
    assert_eq!(process.evidence[1].line_start, 92);
}

#[test]
fn diligent_case_has_no_findings_and_a_ready_server() {
    let case = hindsight_tests::root().join("examples/diligent-sglang-verified");
    let report = analyze(&sources(&case));
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let server = &report.servers[0];
    assert_eq!(server.ready, Some(true));
    assert_eq!(server.drafter_loaded, Some(true));
    assert_eq!((server.ranks_expected, server.ranks_seen), (Some(4), 4));
    assert_eq!(server.port, Some(30000));
}

#[test]
fn the_transcript_alone_still_yields_the_three_findings() {
    // Without the log, the server is known only from its launch flags.
    let case = hindsight_tests::root().join("examples/seed-sglang-eagle3");
    let transcript: Vec<_> = sources(&case)
        .into_iter()
        .filter(|s| s.name == "transcript.txt")
        .collect();
    let report = analyze(&transcript);
    let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(rules, hindsight_tests::SEED_FINDINGS);
    assert_eq!(report.servers[0].ranks_seen, 0);
    assert_eq!(report.servers[0].tp_size, Some(8));
}

/// Drops ` (msg N)` and ` (at TIME)`, which name places in a format's own terms.
fn without_places(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(at) = rest.find(" (") {
        let tail = &rest[at + 2..];
        if tail.starts_with("msg ") || tail.starts_with("at ") {
            out.push_str(&rest[..at]);
            rest = tail.split_once(')').map_or("", |(_, after)| after);
        } else {
            out.push_str(&rest[..at + 2]);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// What must not depend on the transcript's format: the actions and the verdicts.
fn format_independent(report: &hindsight_core::Report) -> (Vec<String>, Vec<String>) {
    let checkpoints = report
        .checkpoints
        .iter()
        .map(|c| format!("{} {:?} {}", c.kind_name(), c.host, c.command))
        .collect();
    let findings = report
        .findings
        .iter()
        .map(|f| {
            // `(msg 3131)` / `(at 2026-…)`: where differs by format.
            let message = without_places(&f.message);
            format!(
                "{} {:?} {:?} {message} | {}",
                f.rule, f.severity, f.status, f.suggestion
            )
        })
        .collect();
    (checkpoints, findings)
}

#[test]
fn the_seed_in_claude_code_and_codex_formats_gives_the_same_checkpoints_and_findings() {
    let root = hindsight_tests::root().join("examples");
    let pasted = analyze(&sources(&root.join("seed-sglang-eagle3")));
    let expected = format_independent(&pasted);
    for (case, format) in [
        ("seed-claude-code", "claude-code-jsonl"),
        ("seed-codex", "codex-rollout"),
        ("seed-pi", "pi-session"),
    ] {
        let report = analyze(&sources(&root.join(case)));
        let transcript = report
            .sources
            .iter()
            .find(|s| !s.name.ends_with(".log"))
            .expect("a transcript");
        assert_eq!(transcript.format.name(), format, "{case}");
        assert_eq!(format_independent(&report), expected, "{case}");
        assert_eq!(
            report.servers,
            pasted
                .servers
                .iter()
                .map(|s| {
                    let mut s = s.clone();
                    // Only the launch evidence's place differs.
                    s.launch_checkpoint = report.servers[0].launch_checkpoint;
                    s
                })
                .collect::<Vec<_>>(),
            "{case}"
        );
    }
}

#[test]
fn every_input_format_is_detected_from_its_first_bytes() {
    let root = hindsight_tests::root().join("examples");
    let expected = [
        ("seed-sglang-eagle3/transcript.txt", "pasted-text"),
        ("seed-sglang-eagle3/sglang_eagle3_aqmedai.log", "sglang-log"),
        ("seed-sglang-eagle3/report.json", "json-document"),
        ("seed-claude-code/session.jsonl", "claude-code-jsonl"),
        (
            "claude-code-failed-build-then-launch/session.jsonl",
            "claude-code-jsonl",
        ),
        (
            "seed-codex/rollout-2026-02-11T22-10-00-0199a6c2-5e1b-7c3d-9a8f-1b2c3d4e5f60.jsonl",
            "codex-rollout",
        ),
        ("claude-tui-vllm-port-refused/transcript.txt", "pasted-text"),
        (
            "codex-tui-vllm-launch-claimed-up/session-20260304T091226Z.jsonl",
            "codex-tui-recording",
        ),
        ("diligent-sglang-verified/transcript.txt", "pasted-text"),
        ("chat-sglang-oom-above-tail/transcript.md", "pasted-text"),
        ("chat-sglang-oom-above-tail/dsv2.log", "sglang-log"),
        ("log-vllm-v1-tp2-healthy/vllm.log", "vllm-log"),
        (
            "log-vllm-v0-tp4-oom-while-loading/llama405b.log",
            "vllm-log",
        ),
        (
            "log-vllm-ci-engine-dead-after-serving/job-logs.txt",
            "vllm-log",
        ),
        (
            "log-tgi-docker-tp4-healthy-cloudwatch/tgi-cloudwatch.log",
            "tgi-log",
        ),
        ("log-tgi-mixtral-shard-oom/tgi.log", "tgi-log"),
        ("log-llamacpp-healthy/llama-server.log", "llama-cpp-log"),
        (
            "log-llamacpp-compose-port-in-use/compose.log",
            "llama-cpp-log",
        ),
        ("log-ollama-healthy-lazy-load/ollama.log", "ollama-log"),
        ("log-ollama-port-in-use/ollama-serve.log", "ollama-log"),
        (
            "log-trtllm-pytorch-oom-after-kv/trtllm.log",
            "tensorrt-llm-log",
        ),
        (
            "log-trtllm-tp16-multinode-nccl-error/trtllm-node0.log",
            "tensorrt-llm-log",
        ),
        ("log-sglang-2024-port-in-use/sglang_tp2.log", "sglang-log"),
        ("log-unknown-engine-oom/serve_custom.log", "server-log"),
        (
            "transcript-trtllm-mpirun-tp4-verified/terminal.txt",
            "pasted-text",
        ),
        (
            "two-hosts-gpu-release-unverified/terminal.txt",
            "pasted-text",
        ),
        (
            "aider-vllm-curl-unrecorded/.aider.chat.history.md",
            "aider-history",
        ),
        (
            "openhands-vllm-verified/trajectory.json",
            "openhands-trajectory",
        ),
        (
            "swe-agent-sglang-ps-only/serve-qwen__repo-1.traj",
            "swe-agent-trajectory",
        ),
        (
            "gemini-cli-vllm-ps-only/session-2025-11-14T14-01-4f0c2a91.json",
            "gemini-cli-session",
        ),
        (
            "seed-pi/2026-02-11T22-10-00-000Z_0199a6c2-5e1b-7c3d-9a8f-1b2c3d4e5f61.jsonl",
            "pi-session",
        ),
    ];
    for (file, format) in expected {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        assert_eq!(
            hindsight_core::parse::detect(&text).name(),
            format,
            "{file}"
        );
    }
    // Every format but the inert JSON document has a case above.
    for format in hindsight_core::Format::ALL {
        assert!(
            expected.iter().any(|(_, f)| *f == format.name()),
            "{} has no detection case",
            format.name()
        );
    }
}

#[test]
fn every_rule_fires_in_some_case_and_some_case_has_no_findings() {
    let mut fired = std::collections::BTreeSet::new();
    let mut clean = 0;
    for case in cases() {
        let report = analyze(&sources(&case));
        clean += usize::from(report.findings.is_empty());
        fired.extend(report.findings.into_iter().map(|f| f.rule));
    }
    for rule in hindsight_core::rules::ALL {
        assert!(fired.contains(rule.id), "{} fires in no example", rule.id);
    }
    assert!(clean >= 3, "fewer than three diligent cases");
}

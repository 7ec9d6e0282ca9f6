//! Lifecycle labels over `examples/`: each case's `expected.json` may hold a
//! hand-written `lifecycle` array (one object per server it labels) saying
//! what a reader of the log finds: engine, sizes, port, phases in order, the
//! last phase reached, readiness, drafter, ranks, failure kind and load time.
//! Every key written must match the report; keys left out are not checked.

use hindsight_core::analyze;
use hindsight_tests::{cases, lifecycle_labels, sources};
use serde_json::{Value, json};

/// The report's value for one label key.
fn actual(server: &Value, key: &str) -> Value {
    match key {
        "phases" => Value::Array(
            server["phases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| p["phase"].clone())
                .collect(),
        ),
        "failure" => server["failure"]["kind"].clone(),
        "failure_api_port" => server["failure"]["api_port"].clone(),
        other => server[other].clone(),
    }
}

#[test]
fn every_labelled_case_matches_its_lifecycle_labels() {
    let mut failures = Vec::new();
    let mut labelled = 0;
    let mut engines = std::collections::BTreeSet::new();
    for case in cases() {
        let Some(labels) = lifecycle_labels(&case) else {
            continue;
        };
        labelled += 1;
        let report = serde_json::to_value(analyze(&sources(&case))).unwrap_or(Value::Null);
        let name = case.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        for label in labels.as_array().into_iter().flatten() {
            let index = label["server"].as_u64().unwrap_or(0) as usize;
            let server = &report["servers"][index];
            if server.is_null() {
                failures.push(format!("{name}: no server {index}"));
                continue;
            }
            engines.insert(server["engine"].to_string());
            for (key, expected) in label.as_object().into_iter().flatten() {
                if key == "server" {
                    continue;
                }
                let got = actual(server, key);
                if &got != expected {
                    failures.push(format!("{name}: {key}: expected {expected}, got {got}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(labelled >= 20, "only {labelled} labelled cases");
    for engine in [
        "sglang",
        "vllm",
        "tgi",
        "llama.cpp",
        "ollama",
        "tensorrt-llm",
    ] {
        assert!(
            engines.contains(&json!(engine).to_string()),
            "no labelled case for {engine}"
        );
    }
}

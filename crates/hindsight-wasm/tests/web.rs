//! The wasm API in real browsers (`wasm-pack test --headless --chrome` and
//! `--firefox`): the seed example gives exactly the CLI's golden report, bad
//! input throws, garbage input gives diagnostics, and the rules are listed.
//!
//! Inputs are built the way a JS caller would build them (`JSON.parse` of
//! plain objects) and results are read back through `JSON.stringify`, so the
//! tests see what JS sees.
#![cfg(target_arch = "wasm32")]

use serde_json::{Value, json};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

const TRANSCRIPT: &str = include_str!("../../../examples/seed-sglang-eagle3/transcript.txt");
const LOG: &str = include_str!("../../../examples/seed-sglang-eagle3/sglang_eagle3_aqmedai.log");
/// `hindsight analyze --format json sglang_eagle3_aqmedai.log transcript.txt`.
const GOLDEN: &str = include_str!("../../../examples/seed-sglang-eagle3/report.json");

/// A JSON value as the plain JS object `JSON.parse` would give.
fn to_js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("JSON.parse")
}

/// A JS value as `JSON.stringify` sees it.
fn to_json(value: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(value)
        .expect("JSON.stringify")
        .as_string()
        .expect("a string");
    serde_json::from_str(&text).expect("valid JSON")
}

fn analyze(sources: &Value) -> Result<Value, String> {
    analyze_with(sources, None)
}

fn analyze_with(sources: &Value, config: Option<&Value>) -> Result<Value, String> {
    hindsight_wasm::analyze(to_js(sources), config.map(to_js))
        .map(|report| to_json(&report))
        .map_err(|error| {
            let error = js_sys::Error::from(JsValue::from(error));
            String::from(error.message())
        })
}

/// The seed example's sources in the order the golden report lists them.
fn seed_sources(golden: &Value) -> Value {
    let names = golden["sources"].as_array().expect("sources");
    let sources: Vec<Value> = names
        .iter()
        .map(|source| {
            let name = source["name"].as_str().expect("a name");
            let text = match name {
                "transcript.txt" => TRANSCRIPT,
                "sglang_eagle3_aqmedai.log" => LOG,
                other => panic!("the golden report names an unknown source `{other}`"),
            };
            json!({ "name": name, "text": text })
        })
        .collect();
    assert_eq!(sources.len(), 2, "the seed example has two sources");
    Value::Array(sources)
}

/// Where two JSON values first differ (`None` when equal). Numbers are
/// compared by value: JS has one number type, so `1.0` comes back as `1`.
fn first_difference(path: &str, left: &Value, right: &Value) -> Option<String> {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (Value::Object(a), Value::Object(b)) => {
            let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
            keys.into_iter()
                .find_map(|key| match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => first_difference(&format!("{path}.{key}"), x, y),
                    (x, y) => Some(format!("{path}.{key}: {x:?} vs {y:?}")),
                })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}[{i}]"), x, y)),
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: {a} vs {b}")),
    }
}

#[wasm_bindgen_test]
fn the_comparison_sees_differences_but_not_number_spelling() {
    let report = json!({ "a": [1, { "b": null }], "f": 1.0 });
    assert_eq!(
        first_difference("r", &report, &json!({ "a": [1, { "b": null }], "f": 1 })),
        None
    );
    for other in [
        json!({ "a": [1, { "b": 0 }], "f": 1.0 }),
        json!({ "a": [1], "f": 1.0 }),
        json!({ "a": [1, { "b": null }] }),
        json!({ "a": [1, { "b": null }], "f": 1.0, "g": 2 }),
    ] {
        assert!(first_difference("r", &report, &other).is_some(), "{other}");
    }
}

#[wasm_bindgen_test]
fn seed_example_equals_the_cli_golden_report() {
    let golden: Value = serde_json::from_str(GOLDEN).expect("golden report.json");
    let report = analyze(&seed_sources(&golden)).expect("analyze");
    if let Some(difference) = first_difference("report", &report, &golden) {
        panic!(
            "the wasm report differs from examples/seed-sglang-eagle3/report.json at {difference}"
        );
    }
}

#[wasm_bindgen_test]
fn seed_example_has_the_three_findings() {
    let golden: Value = serde_json::from_str(GOLDEN).expect("golden report.json");
    let report = analyze(&seed_sources(&golden)).expect("analyze");
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|finding| finding["rule"].as_str())
        .collect();
    for rule in ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"] {
        assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
    }
    // Missing values are `null` (as in the CLI's JSON), never left out.
    let server = &report["servers"][0];
    assert!(
        server
            .as_object()
            .expect("a server")
            .contains_key("failure")
    );
    assert_eq!(server["failure"], Value::Null);
}

#[wasm_bindgen_test]
fn format_can_be_forced_or_left_null() {
    let forced = analyze(&json!([
        { "name": "server.log", "text": LOG, "format": "sglang-log" },
        { "name": "notes.txt", "text": "hello\n", "format": null },
        { "name": "other.txt", "text": "hello\n" },
    ]))
    .expect("analyze");
    let detected: Vec<(&str, bool)> = forced["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .map(|s| {
            (
                s["format"].as_str().unwrap_or(""),
                s["format_detected"] == true,
            )
        })
        .collect();
    assert_eq!(
        detected,
        [
            ("sglang-log", false),
            ("pasted-text", true),
            ("pasted-text", true)
        ]
    );
}

#[wasm_bindgen_test]
fn unknown_format_throws_a_clear_error() {
    let message = analyze(&json!([{ "name": "a.log", "text": "x", "format": "vllm-lgo" }]))
        .expect_err("an unknown format must throw");
    assert!(message.contains("unknown format `vllm-lgo`"), "{message}");
    assert!(message.contains("a.log"), "{message}");
    assert!(message.contains("sglang-log"), "{message}");
}

#[wasm_bindgen_test]
fn malformed_sources_throw() {
    for bad in [
        json!("transcript"),
        json!(42),
        json!(null),
        json!([{ "name": "a.txt" }]),
        json!([{ "text": "x" }]),
        json!([{ "name": "a.txt", "text": 7 }]),
        json!([{ "name": "a.txt", "text": "x", "format": 3 }]),
    ] {
        let message = analyze(&bad).expect_err(&format!("{bad} must throw"));
        assert!(message.starts_with("hindsight: "), "{message}");
    }
}

#[wasm_bindgen_test]
fn no_sources_give_an_empty_report() {
    let report = analyze(&json!([])).expect("analyze");
    assert_eq!(report["version"], 1);
    assert_eq!(report["sources"], json!([]));
    assert_eq!(report["findings"], json!([]));
}

#[wasm_bindgen_test]
fn garbage_gives_diagnostics_not_a_panic() {
    let binary: String = (0u8..=255)
        .map(char::from)
        .cycle()
        .take(64 * 1024)
        .collect();
    let huge_line = "x".repeat(3 * 1024 * 1024);
    let replaced = "\u{FFFD}\u{FFFD}[msg 1] $ \u{1b}[31m\r\r\n\t$ ssh\n".repeat(1000);
    let report = analyze(&json!([
        { "name": "binary.bin", "text": binary },
        { "name": "huge.log", "text": huge_line, "format": "sglang-log" },
        { "name": "odd.txt", "text": replaced },
    ]))
    .expect("garbage is still analyzed");
    let diagnostics = report["diagnostics"].as_array().expect("diagnostics");
    let about = |source: &str, needle: &str| {
        diagnostics.iter().any(|d| {
            d["source"] == source && d["message"].as_str().is_some_and(|m| m.contains(needle))
        })
    };
    assert!(about("binary.bin", "NUL"), "{diagnostics:?}");
    assert!(about("huge.log", "bytes long"), "{diagnostics:?}");
    assert_eq!(report["sources"][1]["bytes"], 3 * 1024 * 1024);
    assert_eq!(report["sources"][1]["lines"], 1);
}

#[wasm_bindgen_test]
fn lone_surrogates_from_js_are_replaced_not_fatal() {
    // A lone surrogate is a valid JS string but not Unicode, so no Rust
    // string can hold it: JS builds it, and it arrives as U+FFFD.
    let sources =
        js_sys::JSON::parse(r#"[{ "name": "s.txt", "text": "a\ud800b\n" }]"#).expect("JSON.parse");
    let report = to_json(
        &hindsight_wasm::analyze(sources, None)
            .map_err(JsValue::from)
            .expect("analyze"),
    );
    assert_eq!(report["sources"][0]["name"], "s.txt");
    assert_eq!(report["sources"][0]["lines"], 1);
    assert_eq!(report["sources"][0]["bytes"], "a\u{FFFD}b\n".len());
}

#[wasm_bindgen_test]
fn rules_lists_every_rule_with_its_docs() {
    let rules = to_json(
        &hindsight_wasm::rules()
            .map_err(JsValue::from)
            .expect("rules"),
    );
    let rules = rules.as_array().expect("an array");
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    let core: Vec<&str> = hindsight_core::rules::ALL.iter().map(|r| r.id).collect();
    assert_eq!(ids, core, "every rule of the core, in its order");
    for seed in ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"] {
        assert!(ids.contains(&seed), "{seed} missing from {ids:?}");
    }
    for rule in rules {
        for field in ["title", "why", "example", "check"] {
            let text = rule[field].as_str().unwrap_or_default();
            assert!(!text.is_empty(), "{} has no {field}", rule["id"]);
        }
        let severity = rule["severity"].as_str().unwrap_or_default();
        assert!(["info", "warning", "error"].contains(&severity), "{rule}");
    }
}

#[wasm_bindgen_test]
fn version_is_the_package_version() {
    assert_eq!(hindsight_wasm::version(), env!("CARGO_PKG_VERSION"));
    let golden: Value = serde_json::from_str(GOLDEN).expect("golden report.json");
    assert_eq!(
        golden["generator"],
        format!("hindsight {}", hindsight_wasm::version())
    );
}

#[wasm_bindgen_test]
fn config_selects_rules_and_overrides_severities() {
    let golden: Value = serde_json::from_str(GOLDEN).expect("golden report.json");
    let sources = seed_sources(&golden);
    let report = analyze_with(
        &sources,
        Some(&json!({ "select": ["ranks-uncounted", "port-unchecked"], "severity": { "port-unchecked": "info" } })),
    )
    .expect("analyze");
    let findings: Vec<(String, String)> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or_default().to_owned(),
                f["severity"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(
        findings.contains(&("port-unchecked".into(), "info".into())),
        "{findings:?}"
    );
    assert!(
        findings.iter().any(|(rule, _)| rule == "ranks-uncounted"),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .all(|(rule, _)| rule == "ranks-uncounted" || rule == "port-unchecked"),
        "{findings:?}"
    );
    let message =
        analyze_with(&sources, Some(&json!({ "ignore": ["nope"] }))).expect_err("unknown rule");
    assert!(message.contains("unknown rule `nope`"), "{message}");
    let message = analyze_with(&sources, Some(&json!({ "selct": [] }))).expect_err("unknown field");
    assert!(message.contains("config"), "{message}");
}

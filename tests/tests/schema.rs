//! The report's JSON Schema (`docs/report.schema.json`) and the rule
//! reference (`docs/rules.md`) are generated from the code; these tests fail
//! when the checked-in files drift, and validate every example's report.

use hindsight_core::{Report, analyze};
use hindsight_tests::{cases, check_golden, root, sources};

fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Report)).unwrap_or_default()
}

#[test]
fn checked_in_schema_matches_the_report_type() {
    let text = serde_json::to_string_pretty(&schema()).unwrap_or_default() + "\n";
    let path = root().join("docs/report.schema.json");
    if let Some(difference) = check_golden(&path, &text) {
        panic!("{difference}");
    }
}

#[test]
fn every_example_report_validates_against_the_schema() {
    let validator = jsonschema::validator_for(&schema()).expect("the generated schema is valid");
    for case in cases() {
        let report = serde_json::to_value(analyze(&sources(&case))).unwrap_or_default();
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", case.display());
        assert_eq!(report["version"], 1);
    }
}

#[test]
fn schema_rejects_a_report_missing_required_fields() {
    let validator = jsonschema::validator_for(&schema()).expect("the generated schema is valid");
    let mut report = serde_json::to_value(analyze(&[])).unwrap_or_default();
    assert!(validator.is_valid(&report));
    if let Some(object) = report.as_object_mut() {
        object.remove("findings");
    }
    assert!(!validator.is_valid(&report));
}

#[test]
fn rule_reference_is_generated_from_the_declarations() {
    let path = root().join("docs/rules.md");
    if let Some(difference) = check_golden(&path, &hindsight_core::rules::docs::reference()) {
        panic!("{difference}");
    }
}

/// The record `scan --format jsonl` writes for each session, the hand-off
/// to a query engine: its schema is generated like the report's, and every
/// line a scan of the examples writes validates against it.
#[test]
fn scan_records_match_their_checked_in_schema() {
    let schema = serde_json::to_value(schemars::schema_for!(hindsight_core::report::ScanRecord))
        .unwrap_or_default();
    let text = serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n";
    if let Some(difference) = check_golden(&root().join("docs/scan-record.schema.json"), &text) {
        panic!("{difference}");
    }
    let validator = jsonschema::validator_for(&schema).expect("the generated schema is valid");
    let examples = root().join("examples");
    let ran = hindsight_tests::run_cli(
        ["scan", "--format", "jsonl", &examples.display().to_string()]
            .into_iter()
            .map(std::ffi::OsString::from),
        hindsight_tests::Setting::default(),
    );
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(lines.len() > 40, "{} lines", lines.len());
    for line in lines {
        let record: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        let errors: Vec<String> = validator
            .iter_errors(&record)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", record["session"]);
    }
}

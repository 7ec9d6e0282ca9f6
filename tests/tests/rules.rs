//! Meta-tests of the rule set: one file per rule, named after its id, and
//! every file listed in `ALL`; and each rule tested on its own, as its
//! documentation tells it: `tests/rules/<id>/fires/` is a short session
//! (transcript and any log) of the rule's example that must raise it, and
//! `quiet/` the same session with the check its `check` text names made,
//! which must not.

use hindsight_core::rules::ALL;
use hindsight_tests::{root, sources};

#[test]
fn each_rule_lives_in_the_file_named_after_its_id_and_is_listed() {
    let dir = root().join("crates/hindsight-core/src/rules");
    let mut declared = Vec::new();
    for entry in std::fs::read_dir(&dir)
        .expect("the rules folder")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_owned();
        if matches!(name.as_str(), "mod" | "docs" | "ledger") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let id = name.replace('_', "-");
        assert!(
            text.contains(&format!("id: \"{id}\"")),
            "{} does not declare the rule `{id}`",
            path.display()
        );
        assert!(
            text.starts_with("//!"),
            "{} has no module doc",
            path.display()
        );
        declared.push(id);
    }
    declared.sort();
    let mut listed: Vec<String> = ALL.iter().map(|r| r.id.to_owned()).collect();
    listed.sort();
    assert_eq!(declared, listed, "rule files and `ALL` disagree");
}

/// The rules a fixture's report raises.
fn raised(case: &std::path::Path) -> Vec<String> {
    let report = hindsight_core::analyze(&sources(case));
    report.findings.iter().map(|f| f.rule.clone()).collect()
}

#[test]
fn each_rule_fires_on_its_example_and_not_once_checked() {
    let dir = root().join("tests/rules");
    let mut failures = Vec::new();
    for rule in ALL {
        let fires = dir.join(rule.id).join("fires");
        let quiet = dir.join(rule.id).join("quiet");
        if !fires.is_dir() || !quiet.is_dir() {
            failures.push(format!("{}: no fires/ and quiet/ fixtures", rule.id));
            continue;
        }
        let on_example = raised(&fires);
        if !on_example.iter().any(|r| r == rule.id) {
            failures.push(format!(
                "{}: not raised on fires/ (raised {on_example:?})",
                rule.id
            ));
        }
        let when_checked = raised(&quiet);
        if when_checked.iter().any(|r| r == rule.id) {
            failures.push(format!("{}: raised on quiet/ ({when_checked:?})", rule.id));
        }
    }
    // No fixture for a rule that is gone.
    for entry in std::fs::read_dir(&dir)
        .expect("tests/rules")
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !ALL.iter().any(|r| r.id == name) {
            failures.push(format!("tests/rules/{name}: no such rule"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

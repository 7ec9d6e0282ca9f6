//! Meta-tests of the rule set: one file per rule, named after its id, and
//! every file listed in `ALL`.

use hindsight_core::rules::ALL;
use hindsight_tests::root;

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

//! The example the page opens with: a real-shaped SGLang EAGLE-3 migration
//! (transcript plus server log), embedded at build time so the first load
//! needs no request.

use crate::model::Inputs;

/// The seed transcript's name and text.
pub const TRANSCRIPT: (&str, &str) = (
    "transcript.txt",
    include_str!("../../examples/seed-sglang-eagle3/transcript.txt"),
);

/// The seed server log's name and text.
pub const LOG: (&str, &str) = (
    "sglang_eagle3_aqmedai.log",
    include_str!("../../examples/seed-sglang-eagle3/sglang_eagle3_aqmedai.log"),
);

/// The findings the seed is known for (the brief's three); the core may add
/// more as it learns new rules. The page's tests check them.
pub const RULES: [&str; 3] = ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"];

/// The inputs shown on first load.
pub fn inputs() -> Inputs {
    Inputs::with_sources([TRANSCRIPT, LOG])
}

/// The seed as analysis sources.
pub fn sources() -> Vec<hindsight_core::Source> {
    inputs().to_sources()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hindsight_core::Source;

    #[test]
    fn seed_yields_the_three_documented_findings() {
        let report = hindsight_core::analyze(&sources());
        let rules: Vec<&str> = report.findings.iter().map(|f| f.rule.as_str()).collect();
        for rule in RULES {
            assert!(rules.contains(&rule), "{rule} missing from {rules:?}");
        }
        let names: Vec<&str> = report.sources.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["transcript.txt", "sglang_eagle3_aqmedai.log"]);
    }

    #[test]
    fn seed_matches_what_the_cli_reads_from_disk() {
        let from_disk: Vec<Source> = [TRANSCRIPT.0, LOG.0]
            .iter()
            .map(|name| {
                let path = format!(
                    "{}/../examples/seed-sglang-eagle3/{name}",
                    env!("CARGO_MANIFEST_DIR")
                );
                let bytes = std::fs::read(&path).unwrap_or_default();
                Source::from_bytes(*name, &bytes)
            })
            .collect();
        assert_eq!(sources(), from_disk);
    }
}

//! Which rules run and how severe their findings are.
//!
//! One configuration for every face: the CLI builds it from `--select`,
//! `--ignore`, `--severity` and `hindsight.toml`; the wasm package and the
//! web page pass it as JSON. It deserializes from the `[rules]` table of
//! `hindsight.toml`:
//!
//! ```toml
//! [rules]
//! select = ["port-unchecked", "drafter-unconfirmed"]   # default: every rule
//! ignore = ["secret-exposed"]
//! severity = { ranks-uncounted = "error" }
//! ```
//!
//! Unknown rule ids are errors, not silently ignored: a typo in a CI gate
//! would otherwise switch a check off without anyone noticing.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::rules::{self, Severity};

/// The rule selection and severity overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Only these rules run; `null` (or absent) means every rule.
    pub select: Option<BTreeSet<String>>,
    /// These rules never run, even when selected.
    pub ignore: BTreeSet<String>,
    /// A severity per rule id, replacing the rule's default.
    pub severity: BTreeMap<String, Severity>,
}

impl Config {
    /// Every rule id the configuration names that no rule has.
    pub fn unknown_rules(&self) -> Vec<String> {
        let named = self
            .select
            .iter()
            .flatten()
            .chain(&self.ignore)
            .chain(self.severity.keys());
        let mut unknown: Vec<String> = named
            .filter(|id| rules::find(id).is_none())
            .cloned()
            .collect();
        unknown.sort();
        unknown.dedup();
        unknown
    }

    /// Checks every rule id; the error names the unknown ones and the known.
    pub fn validate(&self) -> Result<(), String> {
        let unknown = self.unknown_rules();
        if unknown.is_empty() {
            return Ok(());
        }
        let known: Vec<&str> = rules::ALL.iter().map(|r| r.id).collect();
        Err(format!(
            "unknown rule{} {}; known rules: {}",
            if unknown.len() == 1 { "" } else { "s" },
            unknown
                .iter()
                .map(|id| format!("`{id}`"))
                .collect::<Vec<_>>()
                .join(", "),
            known.join(", ")
        ))
    }

    /// Whether the rule runs.
    pub fn enabled(&self, id: &str) -> bool {
        !self.ignore.contains(id) && self.select.as_ref().is_none_or(|s| s.contains(id))
    }

    /// The severity of the rule's findings (its declared default unless
    /// overridden; a rule may still grade a failed check up).
    pub fn severity_of(&self, rule: &rules::Rule) -> Severity {
        self.severity.get(rule.id).copied().unwrap_or(rule.severity)
    }

    /// Layers `other` over `self`: `other`'s selection replaces this one when
    /// it has one; ignores add up; `other`'s severities win. The CLI layers
    /// its flags over `hindsight.toml` this way.
    pub fn merged_with(mut self, other: Config) -> Config {
        if other.select.is_some() {
            self.select = other.select;
        }
        self.ignore.extend(other.ignore);
        self.severity.extend(other.severity);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_runs_every_rule_at_its_severity() {
        let config = Config::default();
        for rule in rules::ALL {
            assert!(config.enabled(rule.id));
            assert_eq!(config.severity_of(rule), rule.severity);
        }
        assert!(config.validate().is_ok());
    }

    #[test]
    fn ignore_beats_select() {
        let config = Config {
            select: Some(["port-unchecked".into(), "ranks-uncounted".into()].into()),
            ignore: ["ranks-uncounted".into()].into(),
            ..Config::default()
        };
        assert!(config.enabled("port-unchecked"));
        assert!(!config.enabled("ranks-uncounted"));
        assert!(!config.enabled("drafter-unconfirmed"));
    }

    #[test]
    fn unknown_ids_are_reported() {
        let config = Config {
            ignore: ["port-unchecked".into(), "port-uncheked".into()].into(),
            severity: [("nope".into(), Severity::Info)].into(),
            ..Config::default()
        };
        assert_eq!(config.unknown_rules(), vec!["nope", "port-uncheked"]);
        let message = config.validate().expect_err("unknown ids");
        assert!(message.starts_with("unknown rules `nope`, `port-uncheked`"));
        assert!(message.contains("port-unchecked"));
    }

    #[test]
    fn flags_layer_over_the_file() {
        let file = Config {
            select: Some(["port-unchecked".into()].into()),
            ignore: ["secret-exposed".into()].into(),
            severity: [("port-unchecked".into(), Severity::Info)].into(),
        };
        let flags = Config {
            select: None,
            ignore: ["error-ignored".into()].into(),
            severity: [("port-unchecked".into(), Severity::Error)].into(),
        };
        let merged = file.merged_with(flags);
        assert_eq!(merged.select, Some(["port-unchecked".into()].into()));
        assert_eq!(merged.ignore.len(), 2);
        assert_eq!(merged.severity["port-unchecked"], Severity::Error);
    }

    #[test]
    fn reads_the_json_shape() {
        let config: Config = serde_json::from_str(
            r#"{"ignore":["secret-exposed"],"severity":{"ranks-uncounted":"error"}}"#,
        )
        .expect("valid config");
        assert!(!config.enabled("secret-exposed"));
        assert_eq!(config.severity["ranks-uncounted"], Severity::Error);
        assert!(serde_json::from_str::<Config>(r#"{"selct":[]}"#).is_err());
    }
}

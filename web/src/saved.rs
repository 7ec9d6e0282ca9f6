//! What the page keeps across reloads, as plain data: the sources, the rule
//! configuration and the view settings, as one JSON document in the
//! browser's `localStorage` (written by [`crate::browser::store`]).
//!
//! `localStorage` holds a few megabytes per origin, and a 100 MB log cannot
//! live there; rather than fail the whole save, sources are kept in order
//! until [`BUDGET`] is spent and the rest keep only their name, so the page
//! can say which ones to open again.

use hindsight_core::{Config, Format};
use serde::{Deserialize, Serialize};

use crate::model::Inputs;

/// The storage key; the version in it changes if the shape ever does.
pub const KEY: &str = "hindsight.v1";

/// Characters of source text kept at most. Browsers allow about 5 million
/// UTF-16 units per origin; this leaves room for JSON escaping and the rest.
pub const BUDGET: usize = 3_000_000;

/// The colour scheme: the system's, or one chosen on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    /// The next one, for the toggle button.
    pub fn next(self) -> Self {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// View settings that outlive a reload.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct View {
    pub theme: Theme,
    /// Show credentials in the source viewer instead of their redaction.
    pub show_secrets: bool,
    /// The findings and timeline search text.
    pub search: String,
}

/// One source as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSource {
    pub name: String,
    #[serde(default)]
    pub format: Option<String>,
    /// `None` when the text was over the budget and not kept.
    #[serde(default)]
    pub text: Option<String>,
}

/// The whole stored document.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Saved {
    pub sources: Vec<SavedSource>,
    pub config: Config,
    pub view: View,
}

impl Saved {
    /// The state to store, with texts past the budget left out.
    pub fn of(inputs: &Inputs, config: &Config, view: &View) -> Self {
        let mut budget = BUDGET;
        let sources = inputs
            .drafts()
            .iter()
            .map(|d| {
                let keep = d.text.len() <= budget;
                if keep {
                    budget -= d.text.len();
                }
                SavedSource {
                    name: d.name.clone(),
                    format: d.format.map(|f| f.name().to_owned()),
                    text: keep.then(|| d.text.to_string()),
                }
            })
            .collect();
        Self {
            sources,
            config: config.clone(),
            view: view.clone(),
        }
    }

    /// The names of sources whose text was not kept.
    pub fn dropped(&self) -> Vec<String> {
        self.sources
            .iter()
            .filter(|s| s.text.is_none())
            .map(|s| s.name.clone())
            .collect()
    }

    /// Reads a stored document; anything unreadable counts as nothing stored.
    pub fn parse(json: &str) -> Option<Self> {
        serde_json::from_str(json).ok().map(Saved::checked)
    }

    /// A stored document as this version uses it: rule ids it does not know
    /// are dropped from the configuration rather than kept to fail later.
    pub fn checked(mut self) -> Self {
        let known = |id: &String| hindsight_core::rules::find(id).is_some();
        self.config.ignore.retain(known);
        self.config.severity.retain(|id, _| known(id));
        if let Some(select) = &mut self.config.select {
            select.retain(known);
        }
        self
    }

    /// The inputs to edit: stored texts, and an empty editor for a dropped
    /// one (its name kept so the user knows what to open again).
    pub fn inputs(&self) -> Inputs {
        to_inputs(&self.sources)
    }
}

/// Editor inputs from stored or shared sources; never none at all, so the
/// page always has an editor to type into.
pub fn to_inputs(sources: &[SavedSource]) -> Inputs {
    let mut inputs = Inputs::default();
    for source in sources {
        inputs.add_with_format(
            &source.name,
            source.text.as_deref().unwrap_or_default(),
            source.format.as_deref().and_then(Format::from_name),
        );
    }
    if inputs.drafts().is_empty() {
        inputs.add_empty();
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_config_and_view_round_trip() {
        let mut inputs = crate::seed::inputs();
        inputs.set_format(inputs.ids()[1], "sglang-log");
        let mut config = Config::default();
        crate::model::set_rule_enabled(&mut config, "port-unchecked", false);
        let view = View {
            theme: Theme::Dark,
            show_secrets: true,
            search: "drafter".into(),
        };
        let saved = Saved::of(&inputs, &config, &view);
        let json = serde_json::to_string(&saved).unwrap_or_default();
        let back = Saved::parse(&json).unwrap_or_default();
        assert_eq!(back, saved);
        assert_eq!(back.inputs().to_sources(), inputs.to_sources());
        assert!(back.dropped().is_empty());
    }

    #[test]
    fn texts_past_the_budget_keep_only_their_name() {
        let big = "x".repeat(BUDGET - 10);
        let inputs = Inputs::with_sources([("small", "12345"), ("big", &big), ("more", "123456")]);
        let saved = Saved::of(&inputs, &Config::default(), &View::default());
        assert_eq!(saved.dropped(), ["more"]);
        let restored = saved.inputs();
        assert_eq!(restored.drafts().len(), 3);
        assert_eq!(restored.drafts()[2].text.as_str(), "");
    }

    #[test]
    fn garbage_and_unknown_rules_are_survived() {
        assert_eq!(Saved::parse("not json"), None);
        let saved = Saved::parse(
            r#"{"config":{"ignore":["port-unchecked","gone-rule"],"severity":{"gone":"info"}}}"#,
        )
        .unwrap_or_default();
        assert_eq!(saved.config.ignore.len(), 1);
        assert!(saved.config.severity.is_empty());
        assert_eq!(saved.inputs().drafts().len(), 1, "one empty editor");
        assert_eq!(Theme::System.next().next().next(), Theme::System);
    }
}

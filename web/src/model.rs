//! The page's input state as plain data: the sources being edited, every
//! change the user can make to them, and turning them into [`Snapshot`]s
//! (and [`hindsight_core::Source`]s) for analysis.
//!
//! Nothing here touches the DOM or Leptos, so all of it is tested natively;
//! the components hold one [`Inputs`] in a signal and call these methods.

use std::sync::Arc;

use hindsight_core::{Config, Format, Report, Severity, Source};

use crate::protocol;
use crate::protocol::{Reply, Secret, Snapshot};

/// The value of the format select that means "let the core detect it".
pub const AUTO_DETECT: &str = "auto";

/// One source as the user edits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Draft {
    /// Stable key of the editor (survives renames and removals of others).
    pub id: u32,
    pub name: String,
    /// `None` means auto-detect.
    pub format: Option<Format>,
    /// Shared with the [`Snapshot`]s taken of it, so that pressing Analyze
    /// copies nothing on the main thread however big the text is; an edit
    /// replaces it rather than changing it.
    pub text: Arc<String>,
    /// Byte offset of the first invalid UTF-8 sequence of a loaded file,
    /// forgotten as soon as the user edits the text.
    pub invalid_utf8_at: Option<usize>,
}

/// All sources being edited, plus a revision that changes on every edit so
/// the page can tell when the shown report no longer matches the inputs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inputs {
    drafts: Vec<Draft>,
    next_id: u32,
    revision: u64,
}

impl Inputs {
    /// Inputs holding the given sources, named and detected as given.
    pub fn with_sources<'a>(sources: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut inputs = Self::default();
        for (name, text) in sources {
            inputs.add(name, text);
        }
        inputs
    }

    /// Every source, in order.
    pub fn drafts(&self) -> &[Draft] {
        &self.drafts
    }

    /// Adds a source with a chosen format (`None`: detect it).
    pub fn add_with_format(&mut self, name: &str, text: &str, format: Option<Format>) -> u32 {
        let id = self.add(name, text);
        self.edit(id, |d| d.format = format);
        id
    }

    pub fn draft(&self, id: u32) -> Option<&Draft> {
        self.drafts.iter().find(|d| d.id == id)
    }

    /// The editors' keys, in order.
    pub fn ids(&self) -> Vec<u32> {
        self.drafts.iter().map(|d| d.id).collect()
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Adds a source and returns its key.
    pub fn add(&mut self, name: &str, text: &str) -> u32 {
        self.add_owned(name, text.to_owned())
    }

    /// [`Inputs::add`] for a text already owned: a dropped file's is moved,
    /// not copied.
    fn add_owned(&mut self, name: &str, text: String) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        self.drafts.push(Draft {
            id,
            name: name.to_owned(),
            format: None,
            text: Arc::new(text),
            invalid_utf8_at: None,
        });
        self.touch();
        id
    }

    /// Adds an empty source with a name that is not taken yet.
    pub fn add_empty(&mut self) -> u32 {
        let name = if self.drafts.is_empty() {
            "transcript.txt".to_owned()
        } else {
            self.unused_name("server.log")
        };
        self.add(&name, "")
    }

    /// Adds a file the user picked. Its bytes go through
    /// [`Source::from_bytes`], so invalid UTF-8 is replaced and remembered
    /// (the analysis then reports where). An empty editor left over from
    /// "clear" is reused instead of piling up below.
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> u32 {
        let source = Source::from_bytes(name, bytes);
        let reusable = self
            .drafts
            .iter()
            .position(|d| d.text.is_empty())
            .filter(|_| self.drafts.iter().all(|d| d.text.is_empty()));
        let id = match reusable {
            Some(index) => {
                let draft = &mut self.drafts[index];
                draft.name = source.name;
                draft.text = Arc::new(source.text);
                draft.format = None;
                draft.id
            }
            None => self.add_owned(&source.name, source.text),
        };
        if let Some(draft) = self.drafts.iter_mut().find(|d| d.id == id) {
            draft.invalid_utf8_at = source.invalid_utf8_at;
        }
        self.touch();
        id
    }

    pub fn remove(&mut self, id: u32) {
        let before = self.drafts.len();
        self.drafts.retain(|d| d.id != id);
        if self.drafts.len() != before {
            self.touch();
        }
    }

    /// Removes every source and leaves one empty editor for a transcript.
    pub fn clear(&mut self) {
        self.drafts.clear();
        self.add_empty();
    }

    pub fn set_name(&mut self, id: u32, name: &str) {
        self.edit(id, |d| d.name = name.to_owned());
    }

    pub fn set_text(&mut self, id: u32, text: &str) {
        self.edit(id, |d| {
            d.text = Arc::new(text.to_owned());
            d.invalid_utf8_at = None;
        });
    }

    /// Sets the format from the select's value ([`AUTO_DETECT`] or a format name).
    pub fn set_format(&mut self, id: u32, value: &str) {
        let format = parse_format_choice(value);
        self.edit(id, |d| d.format = format);
    }

    /// The sources to analyze: editors with text, in order, sharing their
    /// texts. A blank name becomes `source-N` (N counting editors from 1) so
    /// evidence can still point somewhere.
    pub fn snapshots(&self) -> Vec<Snapshot> {
        self.drafts
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.text.trim().is_empty())
            .map(|(index, d)| Snapshot {
                name: match d.name.trim() {
                    "" => format!("source-{}", index + 1),
                    name => name.to_owned(),
                },
                format: d.format,
                invalid_utf8_at: d.invalid_utf8_at,
                text: Arc::clone(&d.text),
            })
            .collect()
    }

    /// [`Inputs::snapshots`] as the core's sources (each text copied).
    pub fn to_sources(&self) -> Vec<Source> {
        self.snapshots().iter().map(Snapshot::to_source).collect()
    }

    fn edit(&mut self, id: u32, change: impl FnOnce(&mut Draft)) {
        if let Some(draft) = self.drafts.iter_mut().find(|d| d.id == id) {
            change(draft);
            self.touch();
        }
    }

    fn touch(&mut self) {
        self.revision += 1;
    }

    /// `base`, or `base` with a number before its extension, whichever is free.
    fn unused_name(&self, base: &str) -> String {
        let taken = |name: &str| self.drafts.iter().any(|d| d.name == name);
        if !taken(base) {
            return base.to_owned();
        }
        let (stem, ext) = base.rsplit_once('.').unwrap_or((base, ""));
        (2..)
            .map(|n| {
                if ext.is_empty() {
                    format!("{stem}-{n}")
                } else {
                    format!("{stem}-{n}.{ext}")
                }
            })
            .find(|name| !taken(name))
            .unwrap_or_else(|| base.to_owned())
    }
}

/// A report, what it was computed from, and what the views need beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub report: Report,
    /// The input revision and rule configuration it came from.
    pub revision: u64,
    pub config: Config,
    /// The texts as analyzed (the source viewer shows these, not later edits).
    pub sources: Arc<Vec<Snapshot>>,
    /// Credentials in those texts, for redacting the source viewer.
    pub secrets: Arc<Vec<Secret>>,
    /// Time the analysis itself took, in milliseconds.
    pub millis: f64,
    /// Which run of the page this was (each Analyze counts one).
    pub run: u32,
}

impl Analysis {
    /// Runs the analysis here and now (the page itself always goes through
    /// the worker, or [`protocol::run`] without one).
    pub fn of(inputs: &Inputs, config: &Config) -> Self {
        let sources = inputs.snapshots();
        let reply = protocol::run(0, config, &inputs.to_sources());
        Self::from_reply(reply, inputs.revision(), config.clone(), Arc::new(sources))
    }

    /// The analysis a worker sent back for these inputs.
    pub fn from_reply(
        reply: Reply,
        revision: u64,
        config: Config,
        sources: Arc<Vec<Snapshot>>,
    ) -> Self {
        Self {
            report: reply.report,
            revision,
            config,
            sources,
            secrets: Arc::new(reply.secrets),
            millis: reply.millis,
            run: reply.id,
        }
    }

    /// Whether the inputs or the rule configuration changed since.
    pub fn is_stale(&self, inputs: &Inputs, config: &Config) -> bool {
        self.revision != inputs.revision() || &self.config != config
    }
}

/// Turns a rule on or off.
pub fn set_rule_enabled(config: &mut Config, id: &str, enabled: bool) {
    if enabled {
        config.ignore.remove(id);
        if let Some(select) = &mut config.select {
            select.insert(id.to_owned());
        }
    } else {
        config.ignore.insert(id.to_owned());
    }
}

/// Sets a rule's severity; its default severity removes the override.
pub fn set_rule_severity(config: &mut Config, id: &str, severity: Severity) {
    let default = hindsight_core::rules::find(id).map(|r| r.severity);
    if default == Some(severity) {
        config.severity.remove(id);
    } else {
        config.severity.insert(id.to_owned(), severity);
    }
}

/// A severity from its name (`error`, `warning`, `info`).
pub fn severity_from_name(name: &str) -> Option<Severity> {
    [Severity::Error, Severity::Warning, Severity::Info]
        .into_iter()
        .find(|s| s.name() == name)
}

/// The options of the format select: (value, label), auto-detect first.
pub fn format_options() -> Vec<(&'static str, &'static str)> {
    std::iter::once((AUTO_DETECT, "auto-detect"))
        .chain(Format::ALL.iter().map(|f| (f.name(), f.name())))
        .collect()
}

/// The select's value for a format choice.
pub fn format_choice_value(format: Option<Format>) -> &'static str {
    format.map_or(AUTO_DETECT, Format::name)
}

/// A select value back to a format choice; anything unknown means auto-detect.
pub fn parse_format_choice(value: &str) -> Option<Format> {
    Format::from_name(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(inputs: &Inputs) -> Vec<&str> {
        inputs.drafts.iter().map(|d| d.name.as_str()).collect()
    }

    #[test]
    fn keys_stay_stable_across_removals() {
        let mut inputs = Inputs::with_sources([("a", "1"), ("b", "2"), ("c", "3")]);
        let ids = inputs.ids();
        inputs.remove(ids[1]);
        assert_eq!(inputs.ids(), vec![ids[0], ids[2]]);
        let added = inputs.add_empty();
        assert!(!ids.contains(&added), "a removed key is never reused");
        assert_eq!(names(&inputs), ["a", "c", "server.log"]);
    }

    #[test]
    fn every_edit_bumps_the_revision_and_no_op_edits_do_not() {
        let mut inputs = Inputs::with_sources([("t.txt", "x")]);
        let id = inputs.ids()[0];
        let mut last = inputs.revision();
        let mut bumped = |inputs: &Inputs| {
            assert!(inputs.revision() > last);
            last = inputs.revision();
        };
        inputs.set_text(id, "y");
        bumped(&inputs);
        inputs.set_name(id, "u.txt");
        bumped(&inputs);
        inputs.set_format(id, "sglang-log");
        bumped(&inputs);
        inputs.add_empty();
        bumped(&inputs);
        let before = inputs.revision();
        inputs.remove(9999);
        inputs.set_text(9999, "z");
        assert_eq!(inputs.revision(), before);
    }

    #[test]
    fn empty_editors_get_distinct_default_names() {
        let mut inputs = Inputs::default();
        inputs.add_empty();
        inputs.add_empty();
        inputs.add_empty();
        assert_eq!(
            names(&inputs),
            ["transcript.txt", "server.log", "server-2.log"]
        );
    }

    #[test]
    fn clear_leaves_one_empty_transcript_editor() {
        let mut inputs = Inputs::with_sources([("a", "1"), ("b", "2")]);
        inputs.clear();
        assert_eq!(inputs.drafts.len(), 1);
        assert_eq!(names(&inputs), ["transcript.txt"]);
        assert!(inputs.to_sources().is_empty());
    }

    #[test]
    fn sources_skip_blank_text_default_blank_names_and_keep_formats() {
        let mut inputs =
            Inputs::with_sources([("t.txt", "$ ls\n"), ("empty", "  \n"), ("", "log")]);
        let ids = inputs.ids();
        inputs.set_format(ids[2], "sglang-log");
        let sources = inputs.to_sources();
        assert_eq!(sources.len(), 2);
        assert_eq!(sources[0].name, "t.txt");
        assert_eq!(sources[0].format, None);
        assert_eq!(sources[1].name, "source-3");
        assert_eq!(sources[1].format, Some(Format::SglangLog));
        inputs.set_format(ids[2], AUTO_DETECT);
        assert_eq!(inputs.to_sources()[1].format, None);
    }

    #[test]
    fn files_keep_their_utf8_problem_until_edited() {
        let mut inputs = Inputs::default();
        inputs.clear();
        let id = inputs.add_file("bad.log", b"ok\n\xffx\n");
        assert_eq!(inputs.drafts.len(), 1, "the empty editor is reused");
        assert_eq!(inputs.to_sources()[0].invalid_utf8_at, Some(3));
        let report = hindsight_core::analyze(&inputs.to_sources());
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.message.contains("UTF-8"))
        );
        inputs.set_text(id, "ok\n");
        assert_eq!(inputs.to_sources()[0].invalid_utf8_at, None);
        inputs.add_file("second.log", b"more");
        assert_eq!(names(&inputs), ["bad.log", "second.log"]);
    }

    #[test]
    fn an_analysis_goes_stale_when_the_inputs_or_rules_change() {
        let mut inputs = crate::seed::inputs();
        let mut config = Config::default();
        let analysis = Analysis::of(&inputs, &config);
        assert!(analysis.report.findings.len() >= 3);
        assert!(!analysis.is_stale(&inputs, &config));
        inputs.set_name(inputs.ids()[0], "renamed.txt");
        assert!(analysis.is_stale(&inputs, &config));
        let analysis = Analysis::of(&inputs, &config);
        assert!(!analysis.is_stale(&inputs, &config));
        set_rule_enabled(&mut config, "port-unchecked", false);
        assert!(analysis.is_stale(&inputs, &config));
    }

    #[test]
    fn rules_turn_off_and_change_severity_through_the_config() {
        let inputs = crate::seed::inputs();
        let mut config = Config::default();
        set_rule_enabled(&mut config, "port-unchecked", false);
        set_rule_severity(&mut config, "ranks-uncounted", Severity::Info);
        assert!(config.validate().is_ok());
        let report = Analysis::of(&inputs, &config).report;
        assert!(report.findings.iter().all(|f| f.rule != "port-unchecked"));
        let ranks = report.findings.iter().find(|f| f.rule == "ranks-uncounted");
        assert_eq!(ranks.map(|f| f.severity), Some(Severity::Info));

        set_rule_enabled(&mut config, "port-unchecked", true);
        let default = hindsight_core::rules::find("ranks-uncounted").map(|r| r.severity);
        if let Some(default) = default {
            set_rule_severity(&mut config, "ranks-uncounted", default);
        }
        assert_eq!(
            config,
            Config::default(),
            "back to defaults leaves no overrides"
        );
        assert_eq!(severity_from_name("warning"), Some(Severity::Warning));
        assert_eq!(severity_from_name("loud"), None);
    }

    #[test]
    fn format_select_round_trips() {
        let options = format_options();
        assert_eq!(options[0], (AUTO_DETECT, "auto-detect"));
        assert_eq!(options.len(), Format::ALL.len() + 1);
        for (value, _) in options {
            assert_eq!(format_choice_value(parse_format_choice(value)), value);
        }
        assert_eq!(parse_format_choice("nonsense"), None);
    }
}

//! hindsight as a wasm package: agent transcripts and inference-server logs
//! in, a typed report out.
//!
//! Three functions, all synchronous and pure:
//!
//! - [`analyze`]: `analyze(sources: SourceInput[], config?: Config): Report`.
//!   The report is a plain JS object equal to `JSON.parse` of the CLI's
//!   `--format json` output (missing values are `null`, never `undefined`).
//!   `config` selects rules and overrides severities, as `hindsight.toml`'s
//!   `[rules]` table does.
//! - [`rules`]: `rules(): RuleDoc[]`, the documentation of every rule.
//! - [`version`]: `version(): string`, the package version.
//!
//! The TypeScript declarations of `Report` and its parts come from the core's
//! `tsify` feature; `SourceInput` and `RuleDoc` are declared here. Bad input
//! (not an array of sources, an unknown format name) throws a JS `Error`;
//! anything else, however garbled, becomes a report with diagnostics.

#![forbid(unsafe_code)]

use hindsight_core::{Config, Format, Severity, Source};
use serde::{Deserialize, Serialize};
use tsify::Tsify;
use wasm_bindgen::prelude::*;

/// One input to `analyze`: a transcript or a server log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct SourceInput {
    /// The file name or a label. Evidence quotes it, and a server's log is
    /// linked to its launch command by it (`sglang_eagle3_aqmedai.log`).
    pub name: String,
    /// The whole text.
    pub text: String,
    /// A format name (`pasted-text`, `sglang-log`); missing or `null` means
    /// detect it from the text.
    #[serde(default)]
    #[tsify(optional, type = "string | null")]
    pub format: Option<String>,
}

/// The documentation of one rule, as `hindsight explain` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Tsify)]
pub struct RuleDoc {
    /// Stable kebab-case id (`port-unchecked`).
    pub id: String,
    /// One line, no trailing period.
    pub title: String,
    pub severity: Severity,
    /// Why an operator cares (Markdown).
    pub why: String,
    /// A short scenario that triggers the rule (Markdown).
    pub example: String,
    /// What command would have verified it, in general terms (Markdown).
    pub check: String,
}

/// Analyzes one session: a transcript and the logs of the servers it
/// launched, all together. Returns the report (version 1), the same object as
/// `JSON.parse` of `hindsight analyze --format json` with the sources in the
/// same order.
///
/// `config` (optional) selects rules and overrides severities:
/// `{ select: ["port-unchecked"], ignore: [], severity: { "ranks-uncounted": "error" } }`.
///
/// Throws an `Error` when `sources` is not an array of `SourceInput`, names
/// an unknown format, or `config` is malformed or names an unknown rule.
/// Unreadable text never throws: it becomes diagnostics.
#[wasm_bindgen(unchecked_return_type = "Report")]
pub fn analyze(
    #[wasm_bindgen(unchecked_param_type = "SourceInput[]")] sources: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Config")] config: Option<JsValue>,
) -> Result<JsValue, JsError> {
    let config: Config = match config {
        None => Config::default(),
        // Through JSON rather than `serde_wasm_bindgen`, which reads only the
        // fields it knows: a misspelt key must be an error, not a rule left on.
        Some(config) => js_sys::JSON::stringify(&config)
            .ok()
            .and_then(|text| text.as_string())
            .ok_or_else(|| "not JSON".to_owned())
            .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
            .map_err(|e| {
                JsError::new(&format!(
                    "hindsight: analyze()'s config takes {{ select?: string[] | null, ignore?: string[], severity?: {{ [rule: string]: \"error\" | \"warning\" | \"info\" }} }}: {e}"
                ))
            })?,
    };
    config
        .validate()
        .map_err(|e| JsError::new(&format!("hindsight: {e}")))?;
    let inputs: Vec<SourceInput> = serde_wasm_bindgen::from_value(sources).map_err(|e| {
        JsError::new(&format!(
            "hindsight: analyze() takes an array of {{ name: string, text: string, format?: string | null }}: {e}"
        ))
    })?;
    let sources = inputs
        .into_iter()
        .map(to_source)
        .collect::<Result<Vec<_>, _>>()?;
    to_js(&hindsight_core::analyze_with(&sources, &config))
}

/// Every rule hindsight checks, in documentation order.
#[wasm_bindgen(unchecked_return_type = "RuleDoc[]")]
pub fn rules() -> Result<JsValue, JsError> {
    let docs: Vec<RuleDoc> = hindsight_core::rules::ALL
        .iter()
        .map(|rule| RuleDoc {
            id: rule.id.to_owned(),
            title: rule.title.to_owned(),
            severity: rule.severity,
            why: rule.why.to_owned(),
            example: rule.example.to_owned(),
            check: rule.check.to_owned(),
        })
        .collect();
    to_js(&docs)
}

/// The package version (`0.1.0`); the report's `generator` names it too.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The core's source for one input; an unknown format name is an error.
fn to_source(input: SourceInput) -> Result<Source, JsError> {
    let source = Source::new(input.name, input.text);
    match input.format.as_deref() {
        None => Ok(source),
        Some(name) => match Format::from_name(name) {
            Some(format) => Ok(source.with_format(format)),
            None => {
                let known: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
                Err(JsError::new(&format!(
                    "hindsight: unknown format `{name}` for source `{}`; known: {} (or null to detect it)",
                    source.name,
                    known.join(", ")
                )))
            }
        },
    }
}

/// Converts to a plain JS object exactly as JSON would: `None` is `null`,
/// maps are objects, integers are numbers.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("hindsight: cannot convert the result to JS: {e}")))
}

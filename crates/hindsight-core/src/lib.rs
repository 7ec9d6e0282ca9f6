//! hindsight's analysis core: agent transcripts and inference-server logs in,
//! a report of what the agent verified and what it only assumed out.
//!
//! Pure: no I/O, clock, environment or randomness, so the same code runs in
//! the CLI, in the wasm package and in the web page, and the same input always
//! gives the same report. Data flows one way:
//! text → [`parse::detect`] → one parser per format → events with spans →
//! [`timeline`] → [`rules`] → [`report::Report`] → renderers.

pub mod config;
pub mod diagnostic;
pub mod engine;
pub mod parse;
pub mod report;
pub mod rules;
pub mod source;
pub mod timeline;

pub use config::Config;
pub use engine::Engine;
pub use parse::Format;
pub use report::{REPORT_VERSION, Report};
pub use rules::Severity;
pub use source::{Source, Span};

/// Analyzes one session: all sources together (a transcript and its logs),
/// with every rule at its default severity.
/// Never fails and never panics: bad input becomes diagnostics.
pub fn analyze(sources: &[Source]) -> Report {
    analyze_with(sources, &Config::default())
}

/// [`analyze`] with a rule selection and severity overrides. Rule ids the
/// configuration names but no rule has are ignored here; callers reject them
/// up front with [`Config::validate`].
pub fn analyze_with(sources: &[Source], config: &Config) -> Report {
    let mut diagnostics = Vec::new();
    let parsed: Vec<(Format, bool, parse::Parsed)> = sources
        .iter()
        .enumerate()
        .map(|(id, source)| {
            if let Some(at) = source.invalid_utf8_at {
                let line = source::LineIndex::new(&source.text).line(at);
                diagnostics.push(diagnostic::Diagnostic::warning(
                    id,
                    Some(line),
                    format!("invalid UTF-8 from byte {at} on; bad bytes were replaced with U+FFFD"),
                ));
            }
            diagnostics.extend(diagnostic::scan_text(&source.text, id));
            let (format, detected) = match source.format {
                Some(format) => (format, false),
                None => (parse::detect(&source.text), true),
            };
            let mut result = parse::parse(source, id, format);
            diagnostics.append(&mut result.diagnostics);
            (format, detected, result)
        })
        .collect();
    let timeline = timeline::build(sources, &parsed);
    let findings = rules::run(&timeline, config);
    report::build(sources, &timeline, &findings, &diagnostics)
}

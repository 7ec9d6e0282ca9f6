//! hindsight's analysis core: agent transcripts and inference-server logs in,
//! a report of what the agent verified and what it only assumed out.
//!
//! Pure: no I/O, clock, environment or randomness, so the same code runs in
//! the CLI, in the wasm package and in the web page, and the same input always
//! gives the same report. Data flows one way:
//! text → [`parse::detect`] → one parser per format → events with spans →
//! [`timeline`] → [`rules`] → [`report::Report`] → renderers.

#![forbid(unsafe_code)]

pub mod claims;
pub mod condense;
pub mod config;
mod decimal;
pub mod diagnostic;
pub mod engine;
pub mod facts;
mod literals;
pub mod other_servers;
pub mod parse;
mod re;
pub mod report;
pub mod rules;
pub mod secrets;
pub mod settings;
pub mod shell;
pub mod source;
#[cfg(test)]
mod test_examples;
pub mod timeline;

pub use config::Config;
pub use engine::Engine;
pub use report::{REPORT_VERSION, Report};
pub use rules::Severity;
pub use source::Format;
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
    let mut prepared: Vec<std::borrow::Cow<'_, Source>> = Vec::with_capacity(sources.len());
    let mut formats: Vec<(Format, bool)> = Vec::with_capacity(sources.len());
    for (id, source) in sources.iter().enumerate() {
        let (format, detected) = match source.format {
            Some(format) => (format, false),
            None => (parse::detect(&source.text), true),
        };
        formats.push((format, detected));
        if let Some(condensed) = &source.condensed {
            // Condensed while it was read: its reader saw the original.
            diagnostics.extend(
                condensed
                    .notes
                    .iter()
                    .map(|(line, note)| diagnostic::Diagnostic::warning(id, *line, note.clone())),
            );
            prepared.push(std::borrow::Cow::Borrowed(source));
            continue;
        }
        let mut found = Vec::new();
        if let Some(at) = source.invalid_utf8_at {
            let line = source::LineIndex::new(&source.text).line(at);
            found.push(diagnostic::Diagnostic::warning(
                id,
                Some(line),
                format!("invalid UTF-8 from byte {at} on; bad bytes were replaced with U+FFFD"),
            ));
        }
        if let Some(mut condenser) = condense::Condenser::for_format(format) {
            // Every face analyzes the same condensed records (see `condense`),
            // and is told the same reading problems: the condenser's, as when
            // the CLI streams the file.
            let text = condenser.text(&source.text);
            let notes = condenser.finish().notes;
            found.extend(
                notes
                    .into_iter()
                    .map(|(line, note)| diagnostic::Diagnostic::warning(id, line, note)),
            );
            diagnostic::in_line_order(&mut found);
            diagnostics.append(&mut found);
            prepared.push(std::borrow::Cow::Owned(Source {
                name: source.name.clone(),
                text,
                format: source.format,
                invalid_utf8_at: source.invalid_utf8_at,
                condensed: Some(source::Condensed {
                    original_bytes: u64::try_from(source.text.len()).unwrap_or(u64::MAX),
                    notes: Vec::new(),
                }),
            }));
        } else {
            diagnostics.append(&mut found);
            diagnostics.extend(diagnostic::scan_text(&source.text, id));
            prepared.push(std::borrow::Cow::Borrowed(source));
        }
    }
    let prepared_refs: Vec<&Source> = prepared.iter().map(|s| s.as_ref()).collect();
    let parsed: Vec<(Format, bool, parse::Parsed)> = prepared_refs
        .iter()
        .zip(&formats)
        .enumerate()
        .map(|(id, (source, &(format, detected)))| {
            let mut result = parse::parse(source, id, format);
            diagnostics.append(&mut result.diagnostics);
            (format, detected, result)
        })
        .collect();
    // The timeline takes the events: their outputs move into it.
    let timeline = timeline::build(&prepared_refs, parsed);
    let facts = facts::read(&timeline);
    let findings = rules::run(&timeline, config);
    // A command that holds characters a reader cannot see (a bidi override,
    // a zero-width space) ran as something other than what it shows.
    for checkpoint in &timeline.checkpoints {
        let hidden = report::visible::hidden_in(&checkpoint.command);
        if hidden.is_empty() {
            continue;
        }
        let source = checkpoint.span.source;
        let line = timeline
            .sources
            .get(source)
            .map(|s| s.lines.line(checkpoint.span.start));
        let names: Vec<String> = hidden
            .iter()
            .map(|&c| report::visible::visible(&c.to_string(), false).into_owned())
            .collect();
        diagnostics.push(diagnostic::Diagnostic::warning(
            source,
            line,
            format!(
                "command {} holds characters that do not show ({}): what ran is not what the transcript displays",
                checkpoint.id + 1,
                names.join(", ")
            ),
        ));
    }
    let diagnostics = diagnostic::cap_repeated(diagnostics);
    report::build(&prepared_refs, timeline, facts, &findings, &diagnostics)
}

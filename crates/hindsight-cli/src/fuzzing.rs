//! The bodies of the fuzz targets (`fuzz/`), one function per target, so
//! that `cargo fuzz` and the ordinary test that replays the saved corpora
//! (`tests/tests/fuzz_corpus.rs`) run exactly the same code.
//!
//! Each function takes raw bytes and must return without panicking, whatever
//! they are; some also assert cheap invariants (evidence inside its source,
//! every renderer accepting every report), so the fuzzer reports a broken
//! invariant as a crash. Not part of the CLI's interface.

use std::borrow::Cow;

use hindsight_core::Format;
use hindsight_core::condense::Condenser;
use hindsight_core::parse;
use hindsight_core::report::{markdown, sarif, text};
use hindsight_core::{Config, Report, Source};

use crate::config;
use crate::hook;

/// A target's body: bytes in, a panic on a bug.
pub type Target = fn(&[u8]);

/// The targets by name: what `fuzz/fuzz_targets/<name>.rs` runs and what
/// the replay test runs on `fuzz/corpus/<name>/`.
pub const TARGETS: &[(&str, Target)] = &[
    ("detect_parse", detect_parse),
    ("condense", condense),
    ("shell", shell),
    ("analyze", analyze),
    ("config", config_file),
    ("hook", hook_event),
];

/// Detection, then every parser (each format forced on the same bytes).
pub fn detect_parse(data: &[u8]) {
    let source = Source::from_bytes("fuzz", data);
    let _ = parse::detect(&source.text);
    for &format in Format::ALL {
        let parsed = parse::parse(&source, 0, format);
        for event in &parsed.events {
            assert!(
                event.span.start <= event.span.end && event.span.end <= source.text.len(),
                "{format:?}: event span {:?} outside a source of {} bytes",
                event.span,
                source.text.len()
            );
            assert!(
                source.text.is_char_boundary(event.span.start)
                    && source.text.is_char_boundary(event.span.end),
                "{format:?}: event span {:?} splits a character",
                event.span
            );
        }
    }
}

/// Both condensers, fed line by line (as the CLI reads a file) and whole (as
/// `analyze` does); line numbers must survive.
pub fn condense(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for format in [Format::ClaudeCodeJsonl, Format::CodexRollout] {
        let Some(mut by_line) = Condenser::for_format(format) else {
            continue;
        };
        let mut out = String::new();
        let mut lines = 0usize;
        for line in text.split('\n') {
            out.push_str(&by_line.line(line));
            out.push('\n');
            lines += 1;
        }
        assert_eq!(
            out.matches('\n').count(),
            lines,
            "{format:?}: the condenser changed the line count"
        );
        let _ = by_line.finish();
        if let Some(mut whole) = Condenser::for_format(format) {
            let condensed = whole.text(&text);
            assert_eq!(
                condensed.matches('\n').count(),
                text.matches('\n').count(),
                "{format:?}: condensing the whole text changed the line count"
            );
        }
    }
}

/// The shell lexer on any text.
pub fn shell(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = hindsight_core::shell::parse(&text);
}

/// The whole analysis of one or two sources, then every renderer. The first
/// byte chooses: bit 0 splits the rest into two sources at the position the
/// next two bytes give, bit 1 forces the first source's format to the one
/// the next byte picks (else it is detected).
pub fn analyze(data: &[u8]) {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let (forced, rest) = if control & 2 == 2 {
        match rest.split_first() {
            Some((&pick, rest)) => (
                Format::ALL
                    .get(usize::from(pick) % Format::ALL.len())
                    .copied(),
                rest,
            ),
            None => (None, rest),
        }
    } else {
        (None, rest)
    };
    let sources: Vec<Source> = if control & 1 == 1 && rest.len() >= 2 {
        let at = usize::from(u16::from_le_bytes([rest[0], rest[1]])) % (rest.len() - 1);
        let (first, second) = rest[2..].split_at(at.min(rest.len() - 2));
        vec![
            Source::from_bytes("transcript.jsonl", first),
            Source::from_bytes("server.log", second),
        ]
    } else {
        vec![Source::from_bytes("input.txt", rest)]
    };
    let sources: Vec<Source> = sources
        .into_iter()
        .enumerate()
        .map(|(i, s)| match forced {
            Some(format) if i == 0 => s.with_format(format),
            _ => s,
        })
        .collect();
    let report = hindsight_core::analyze_with(&sources, &Config::default());
    check_report(&report, &sources);
    let _ = markdown::render(&report);
    let _ = sarif::render(&report);
    let _ = text::render(&report, false);
    let _ = text::render(&report, true);
    let json = serde_json::to_string(&report).unwrap_or_default();
    let back: Result<Report, _> = serde_json::from_str(&json);
    assert!(back.is_ok(), "the report does not read back from its JSON");
}

/// Every evidence line range lies inside its source's lines.
fn check_report(report: &Report, sources: &[Source]) {
    let lines_of = |name: &str| {
        sources
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.text.split('\n').count())
    };
    for finding in &report.findings {
        for evidence in &finding.evidence {
            let Some(lines) = lines_of(&evidence.source) else {
                panic!("evidence names an unknown source `{}`", evidence.source);
            };
            assert!(
                evidence.line_start >= 1
                    && evidence.line_start <= evidence.line_end
                    && usize::try_from(evidence.line_end).unwrap_or(usize::MAX) <= lines,
                "evidence lines {}-{} outside a source of {lines} lines",
                evidence.line_start,
                evidence.line_end
            );
        }
    }
}

/// The `hindsight.toml` reader, then the rule-id check it leads to.
pub fn config_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(config) = config::parse_text(&text) {
        let _ = config.validate();
        let _ = config.unknown_rules();
    }
}

/// A hook event as each agent sends it on standard input (the first byte
/// picks the agent), and a saved hook state (the same bytes read as one)
/// whose condenser goes on with the lines after the first NUL byte.
pub fn hook_event(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    hook::fuzz_event(pick, rest);
    let (state, lines) = match rest.iter().position(|&b| b == 0) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let lines: Cow<'_, str> = String::from_utf8_lossy(lines);
    hook::state::fuzz_state(state, &lines);
}

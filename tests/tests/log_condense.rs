//! The log condenser (what the CLI streams a log through) keeps the lines
//! the log reader uses and blanks the rest. These tests hold the report of
//! a condensed log equal to the report of the whole log, on every log among
//! the examples and the corpus, cut into small pieces so that short logs are
//! cut in many places: any line the condenser drops that mattered shows up
//! as a difference.

use std::path::PathBuf;

use hindsight_core::condense::{LogCondenser, Sizes};
use hindsight_core::{Format, Source, analyze};
use hindsight_tests::{cases, corpus, inputs};

/// Every input file of the examples and the corpus that is detected as a log.
fn logs() -> Vec<(PathBuf, Source, Format)> {
    let mut files: Vec<PathBuf> = cases().iter().flat_map(|case| inputs(case)).collect();
    files.extend(corpus::items().iter().flat_map(|item| corpus::inputs(item)));
    files
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let source = Source::from_bytes(path.display().to_string(), &bytes);
            let format = hindsight_core::parse::detect(&source.text);
            format.is_log().then_some((path, source, format))
        })
        .collect()
}

/// The source condensed with `sizes`, its format forced to the one detected
/// on the whole text (a small head changes what detection sees).
fn condensed(source: &Source, format: Format, sizes: Sizes) -> Source {
    let condenser = LogCondenser::with_sizes(format, sizes).expect("a log format");
    let (text, info) = condenser.text(&source.text);
    let mut out = Source::new(source.name.clone(), text).with_format(format);
    out.condensed = Some(info);
    out
}

/// The first lines where two reports differ, for the failure message.
fn difference(whole: &serde_json::Value, got: &serde_json::Value) -> String {
    let (a, b) = (
        serde_json::to_string_pretty(whole).unwrap_or_default(),
        serde_json::to_string_pretty(got).unwrap_or_default(),
    );
    a.lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .take(3)
        .map(|(x, y)| format!("\n  whole:     {x}\n  condensed: {y}"))
        .collect()
}

fn report(source: Source) -> serde_json::Value {
    let mut value: serde_json::Value =
        serde_json::from_str(&analyze(&[source]).to_json()).expect("report JSON");
    // Forced in one, detected in the other: the same format either way.
    value["sources"][0]["format_detected"] = serde_json::Value::Null;
    value
}

#[test]
fn a_condensed_log_gives_the_whole_logs_report() {
    let logs = logs();
    assert!(logs.len() > 60, "only {} logs found", logs.len());
    let mut failures = Vec::new();
    let mut blanked = 0usize;
    let mut total = 0usize;
    for (path, source, format) in &logs {
        let whole = report(source.clone().with_format(*format));
        // A log of several services (compose, pods) is split by the names
        // its first 256 KiB show, which the condenser keeps whole: a
        // smaller head is no test of it.
        let mut services: Vec<&str> = source
            .text
            .lines()
            .filter_map(hindsight_core::parse::logline::service_of)
            .collect();
        services.sort_unstable();
        services.dedup();
        for sizes in [
            Sizes {
                head: 0,
                tail: 0,
                tail_lines: 0,
                piece: 1,
            },
            Sizes {
                head: 512,
                tail: 256,
                tail_lines: 2,
                piece: 2048,
            },
        ] {
            if services.len() > 1 && sizes.head < 256 * 1024 {
                continue;
            }
            let condensed = condensed(source, *format, sizes);
            total += source.text.lines().count();
            blanked += condensed
                .text
                .lines()
                .zip(source.text.lines())
                .filter(|(a, b)| a.is_empty() && !b.trim().is_empty())
                .count();
            assert_eq!(
                condensed.text.lines().count(),
                source.text.lines().count(),
                "{}: lines kept in place",
                path.display()
            );
            let got = report(condensed);
            if got != whole {
                failures.push(format!(
                    "{} with {sizes:?}{}",
                    path.display(),
                    difference(&whole, &got)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} logs differ:\n{}",
        failures.len(),
        logs.len(),
        failures.join("\n")
    );
    // The test means something only if lines were dropped.
    assert!(blanked * 4 > total, "{blanked} of {total} lines blanked");
}

/// A small deterministic generator (no randomness in tests).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(self.0 >> 33).unwrap_or(0) % n.max(1)
    }
}

/// Long logs, as a server that ran for a while writes them: each log's
/// lines with runs of repeats (routine lines a hundred times, a start-up
/// line again after a restart), and lines of all logs of one format mixed.
/// The condenser must drop much of them and the report must not change.
#[test]
fn long_logs_with_repeats_and_mixtures_give_the_same_report() {
    let logs = logs();
    let mut rng = Lcg(7);
    // The head as the CLI keeps it: what detection, the launch command's
    // reader and the split of a compose log into services look at.
    let sizes = Sizes {
        head: 256 * 1024,
        tail: 512,
        tail_lines: 3,
        piece: 4096,
    };
    let mut texts: Vec<(String, Format, String)> = Vec::new();
    for (path, source, format) in &logs {
        let mut text = String::new();
        for line in source.text.split_inclusive('\n') {
            for _ in 0..=rng.below(4) * rng.below(30) {
                text.push_str(line);
            }
        }
        texts.push((path.display().to_string(), *format, text));
    }
    for format in [
        Format::SglangLog,
        Format::VllmLog,
        Format::TgiLog,
        Format::OllamaLog,
    ] {
        let pool: Vec<&str> = logs
            .iter()
            .filter(|(_, _, f)| *f == format)
            .flat_map(|(_, s, _)| s.text.lines())
            .collect();
        for round in 0..3 {
            let text: String = (0..12_000)
                .map(|_| format!("{}\n", pool[rng.below(pool.len())]))
                .collect();
            texts.push((format!("{format:?} mixture {round}"), format, text));
        }
    }
    let (mut blanked, mut total) = (0usize, 0usize);
    let mut failures = Vec::new();
    for (name, format, text) in &texts {
        let source = Source::new(name.clone(), text.clone());
        let whole = report(source.clone().with_format(*format));
        let condensed = condensed(&source, *format, sizes);
        total += text.lines().count();
        blanked += condensed.text.lines().filter(|l| l.is_empty()).count();
        let got = report(condensed);
        if got != whole {
            failures.push(format!("{name}{}", difference(&whole, &got)));
        }
    }
    assert!(failures.is_empty(), "differ:\n{}", failures.join("\n"));
    assert!(blanked * 4 > total, "{blanked} of {total} lines blanked");
}

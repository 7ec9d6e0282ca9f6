//! `hindsight diff A B`: two sessions side by side by their checkpoints,
//! verification ledgers and findings, ending with plain sentences such as
//! "B checked the port, A did not".
//!
//! Servers are paired by engine and port first, then by engine alone, in
//! launch order; a server with no partner is shown alone.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::ValueEnum;
use hindsight_core::facts::ledger::{Check, LedgerStatus};
use hindsight_core::report::ServerReport;
use hindsight_core::report::words::plural_s;
use hindsight_core::{Format, Report, analyze_with, rules};
use serde::Serialize;

use crate::{EXIT_OK, Io, OutputArgs, config, inputs, redact};

#[derive(clap::Args, Debug)]
pub(crate) struct DiffArgs {
    /// The first session: a file, or a folder of its files.
    #[arg(value_name = "A")]
    a: PathBuf,
    /// The second session.
    #[arg(value_name = "B")]
    b: PathBuf,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = crate::parse_format)]
    input_format: Option<Format>,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    rules: config::RuleArgs,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DiffFormat {
    Text,
    Json,
}

/// The comparison, as written by `--format json`.
#[derive(Debug, Serialize)]
struct Diff {
    a: Side,
    b: Side,
    /// Checkpoints counted by kind.
    checkpoints: Vec<Row>,
    servers: Vec<ServerPair>,
    /// Findings counted by rule.
    findings: Vec<Row>,
    /// Plain sentences: what one session checked and the other did not.
    summary: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Side {
    path: String,
    sources: Vec<String>,
    checkpoints: usize,
    servers: usize,
    findings: usize,
}

#[derive(Debug, Serialize)]
struct Row {
    name: String,
    a: usize,
    b: usize,
}

#[derive(Debug, Serialize)]
struct ServerPair {
    a: Option<String>,
    b: Option<String>,
    checks: Vec<CheckRow>,
}

#[derive(Debug, Serialize)]
struct CheckRow {
    check: Check,
    a: Option<LedgerStatus>,
    b: Option<LedgerStatus>,
}

pub(crate) fn run(args: &DiffArgs, io: &mut Io<'_>) -> Result<u8> {
    let config = config::load(&args.rules, &io.current_dir)?;
    let mut reports = Vec::with_capacity(2);
    for path in [&args.a, &args.b] {
        let sources = inputs::read(std::slice::from_ref(path), args.input_format, io.stdin)?;
        let mut report = analyze_with(&sources, &config);
        if args.output.redact {
            report = redact::report(report);
        }
        reports.push(report);
    }
    let (Some(b), Some(a)) = (reports.pop(), reports.pop()) else {
        anyhow::bail!("two sessions are needed");
    };
    let diff = compare(&args.a, &a, &args.b, &b);
    let text = match args.format {
        DiffFormat::Json => {
            let mut text = serde_json::to_string_pretty(&diff)?;
            text.push('\n');
            text
        }
        DiffFormat::Text => render(&diff, args.output.color(io)),
    };
    io.stdout.write_all(text.as_bytes())?;
    // A diff is a comparison, not a gate: it fails only on errors.
    Ok(EXIT_OK)
}

fn side(path: &std::path::Path, report: &Report) -> Side {
    Side {
        path: path.display().to_string(),
        sources: report.sources.iter().map(|s| s.name.clone()).collect(),
        checkpoints: report.checkpoints.len(),
        servers: report.servers.len(),
        findings: report.findings.len(),
    }
}

fn label(server: &ServerReport) -> String {
    server.label()
}

/// How two servers are judged the same, strictest first.
type Same = dyn Fn(&ServerReport, &ServerReport) -> bool;

/// Pairs servers: same engine and port, then same engine, in order.
fn pair<'a>(a: &'a [ServerReport], b: &'a [ServerReport]) -> Vec<(Option<usize>, Option<usize>)> {
    let mut b_used = vec![false; b.len()];
    let mut partner: Vec<Option<usize>> = vec![None; a.len()];
    let passes: [&Same; 2] = [&|x, y| x.engine == y.engine && x.port == y.port, &|x, y| {
        x.engine == y.engine
    }];
    for same in passes {
        for (i, server) in a.iter().enumerate() {
            if partner[i].is_some() {
                continue;
            }
            if let Some(j) = (0..b.len()).find(|&j| !b_used[j] && same(server, &b[j])) {
                b_used[j] = true;
                partner[i] = Some(j);
            }
        }
    }
    let mut pairs: Vec<(Option<usize>, Option<usize>)> = partner
        .iter()
        .enumerate()
        .map(|(i, j)| (Some(i), *j))
        .collect();
    pairs.extend(
        (0..b.len())
            .filter(|&j| !b_used[j])
            .map(|j| (None, Some(j))),
    );
    pairs
}

/// A check was made (whatever it showed) unless it was never made at all.
fn made(status: Option<LedgerStatus>) -> bool {
    matches!(
        status,
        Some(
            LedgerStatus::Passed
                | LedgerStatus::Failed
                | LedgerStatus::Indirect
                | LedgerStatus::Inconclusive
        )
    )
}

/// `a`, `a and b`, `a, b and c`; `None` for no words.
fn join_words(words: &[String]) -> Option<String> {
    match words {
        [] => None,
        [one] => Some(one.clone()),
        [init @ .., last] => Some(format!("{} and {last}", init.join(", "))),
    }
}

fn compare(a_path: &std::path::Path, a: &Report, b_path: &std::path::Path, b: &Report) -> Diff {
    let mut kinds: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for c in &a.checkpoints {
        kinds.entry(c.kind_name()).or_default().0 += 1;
    }
    for c in &b.checkpoints {
        kinds.entry(c.kind_name()).or_default().1 += 1;
    }
    let mut by_rule: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in &a.findings {
        by_rule.entry(&f.rule).or_default().0 += 1;
    }
    for f in &b.findings {
        by_rule.entry(&f.rule).or_default().1 += 1;
    }
    let order = |id: &str| rules::ALL.iter().position(|r| r.id == id);
    let mut findings: Vec<Row> = by_rule
        .into_iter()
        .map(|(name, (x, y))| Row {
            name: name.to_owned(),
            a: x,
            b: y,
        })
        .collect();
    findings.sort_by_key(|r| order(&r.name));

    let mut servers = Vec::new();
    let mut summary = Vec::new();
    for (i, j) in pair(&a.servers, &b.servers) {
        let sa = i.and_then(|i| a.servers.get(i));
        let sb = j.and_then(|j| b.servers.get(j));
        let mut names: Vec<Check> = Vec::new();
        for entry in sa.iter().chain(sb.iter()).flat_map(|s| &s.ledger) {
            if !names.contains(&entry.check) {
                names.push(entry.check);
            }
        }
        let status = |s: Option<&ServerReport>, check: Check| {
            s.and_then(|s| s.ledger.iter().find(|e| e.check == check))
                .map(|e| e.status)
        };
        let checks: Vec<CheckRow> = names
            .iter()
            .map(|&check| CheckRow {
                check,
                a: status(sa, check),
                b: status(sb, check),
            })
            .collect();
        if let (Some(sa), Some(sb)) = (sa, sb) {
            let about = if label(sa) == label(sb) {
                label(sa)
            } else {
                format!("{} / {}", label(sa), label(sb))
            };
            let only = |mine: fn(&CheckRow) -> Option<LedgerStatus>,
                        theirs: fn(&CheckRow) -> Option<LedgerStatus>| {
                let names: Vec<String> = checks
                    .iter()
                    .filter(|row| made(mine(row)) && !made(theirs(row)))
                    .map(|row| row.check.phrase().to_owned())
                    .collect();
                join_words(&names)
            };
            if let Some(words) = only(|r| r.a, |r| r.b) {
                summary.push(format!("A checked {words}; B did not ({about})."));
            }
            if let Some(words) = only(|r| r.b, |r| r.a) {
                summary.push(format!("B checked {words}; A did not ({about})."));
            }
        }
        servers.push(ServerPair {
            a: sa.map(label),
            b: sb.map(label),
            checks,
        });
    }
    let count = |r: &Report| {
        r.servers
            .iter()
            .flat_map(|s| &s.ledger)
            .filter(|e| made(Some(e.status)))
            .count()
    };
    let totals = |r: &Report| r.servers.iter().flat_map(|s| &s.ledger).count();
    summary.push(format!(
        "A made {} of its {} ledger checks, B {} of {}; findings: A {}, B {}.",
        count(a),
        totals(a),
        count(b),
        totals(b),
        a.findings.len(),
        b.findings.len()
    ));
    Diff {
        a: side(a_path, a),
        b: side(b_path, b),
        checkpoints: kinds
            .into_iter()
            .map(|(name, (x, y))| Row {
                name: name.to_owned(),
                a: x,
                b: y,
            })
            .collect(),
        servers,
        findings,
        summary,
    }
}

fn render(diff: &Diff, color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let status_cell = |status: Option<LedgerStatus>| {
        let name = status.map_or("-", LedgerStatus::name);
        let padded = format!("{name:<13}");
        match status {
            Some(LedgerStatus::Passed) => paint("32", &padded),
            Some(LedgerStatus::Failed) => paint("31", &padded),
            Some(LedgerStatus::NotChecked) => paint("33", &padded),
            Some(_) => paint("36", &padded),
            None => padded,
        }
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", paint("1", "hindsight diff"));
    for (tag, side) in [("A", &diff.a), ("B", &diff.b)] {
        let _ = writeln!(
            out,
            "  {tag}  {}  ({} checkpoint{}, {} server{}, {} finding{})",
            side.path,
            side.checkpoints,
            plural_s(side.checkpoints),
            side.servers,
            plural_s(side.servers),
            side.findings,
            plural_s(side.findings)
        );
    }
    let width = diff
        .checkpoints
        .iter()
        .chain(&diff.findings)
        .map(|r| r.name.len())
        .max()
        .unwrap_or(0)
        .max(20);
    let table = |out: &mut String, title: &str, rows: &[Row]| {
        let head = format!("{title:<w$}", w = width + 2);
        let _ = writeln!(out, "\n{}  {:>4}  {:>4}", paint("1", &head), "A", "B");
        for row in rows {
            let mark = if row.a == row.b { "" } else { "  *" };
            let _ = writeln!(
                out,
                "  {:<width$}  {:>4}  {:>4}{mark}",
                row.name, row.a, row.b
            );
        }
    };
    table(&mut out, "Checkpoints", &diff.checkpoints);
    if !diff.servers.is_empty() {
        let _ = writeln!(out, "\n{}", paint("1", "Verification ledgers"));
        for pair in &diff.servers {
            let _ = writeln!(
                out,
                "  A: {}\n  B: {}",
                pair.a.as_deref().unwrap_or("(no such server)"),
                pair.b.as_deref().unwrap_or("(no such server)")
            );
            for row in &pair.checks {
                let mark = if made(row.a) == made(row.b) { "" } else { "*" };
                let _ = writeln!(
                    out,
                    "    {:<18}  {}  {}{mark}",
                    row.check.name(),
                    status_cell(row.a),
                    status_cell(row.b)
                );
            }
        }
    }
    if !diff.findings.is_empty() {
        table(&mut out, "Findings", &diff.findings);
    }
    let _ = writeln!(out, "\n{}", paint("1", "In short"));
    for sentence in &diff.summary {
        let _ = writeln!(out, "  {sentence}");
    }
    out
}

//! `hindsight scan DIR`: every session under a directory, analyzed in
//! parallel, summarized or streamed as JSON lines.
//!
//! Memory stays bounded whatever the number of files: the plan keeps only
//! paths, sessions are analyzed a chunk at a time on a rayon pool, and each
//! chunk's results are written (in plan order, so output is deterministic)
//! and folded into a fixed-size summary before the next chunk starts. No
//! report outlives its chunk.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use hindsight_core::report::ScanRecord;
use hindsight_core::{Config, Format, Severity, analyze_with, rules};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::inputs::{self, file_name};
use crate::{EXIT_FINDINGS, EXIT_OK, Io, OutputArgs, config, redact};

#[derive(clap::Args, Debug)]
pub(crate) struct ScanArgs {
    /// The directory to scan (for example ~/.claude/projects).
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Output format: a summary table, the summary as JSON, or one JSON line
    /// per session (`{"session", "files", "report"}`) with no summary.
    #[arg(long, short, value_enum, default_value_t = ScanFormat::Text)]
    format: ScanFormat,
    /// Worker threads (default: every core).
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// How many of the worst sessions the summary lists.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// Never draw the progress bar (it is drawn only when stderr is a terminal).
    #[arg(long)]
    no_progress: bool,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    rules: config::RuleArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ScanFormat {
    Text,
    Json,
    Jsonl,
}

/// One session to analyze: a transcript and the sub-agent files joined to it.
#[derive(Debug)]
struct Planned {
    /// The transcript's path relative to DIR, with `/` separators.
    name: String,
    files: Vec<PathBuf>,
}

/// What the walk found.
#[derive(Debug, Default)]
struct Plan {
    sessions: Vec<Planned>,
    /// Log files by file name.
    logs: HashMap<String, Vec<PathBuf>>,
    log_count: usize,
    /// Files of no type hindsight reads.
    ignored: usize,
    subagents_joined: usize,
    /// Folders that could not be listed.
    unreadable_dirs: Vec<String>,
}

fn is_log(path: &Path) -> bool {
    matches!(extension(path).as_str(), "log" | "out" | "err")
}

fn is_transcript(path: &Path) -> bool {
    matches!(
        extension(path).as_str(),
        // `.traj`: SWE-agent trajectories, which `analyze` reads too.
        "jsonl" | "json" | "txt" | "md" | "markdown" | "traj"
    )
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// The parent transcript of a Claude Code sub-agent file:
/// `X/<session>/subagents/agent-*.jsonl` → `X/<session>.jsonl`.
fn parent_session(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    if !(name.starts_with("agent-") && name.ends_with(".jsonl")) {
        return None;
    }
    let subagents = path.parent()?;
    if subagents.file_name()? != "subagents" {
        return None;
    }
    let session = subagents.parent()?;
    let mut parent = session.as_os_str().to_owned();
    parent.push(".jsonl");
    Some(PathBuf::from(parent))
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

fn plan(root: &Path) -> Result<Plan> {
    let mut plan = Plan::default();
    let mut files = Vec::new();
    inputs::walk(root, &mut files, &mut |path, error| {
        if path == root {
            return Err(error).with_context(|| format!("cannot read `{}`", path.display()));
        }
        plan.unreadable_dirs
            .push(format!("cannot read `{}`: {error}", path.display()));
        Ok(())
    })?;
    files.sort();
    let transcripts: std::collections::HashSet<&PathBuf> =
        files.iter().filter(|p| is_transcript(p)).collect();
    let mut subagents: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for path in &files {
        if is_log(path) {
            plan.log_count += 1;
            plan.logs
                .entry(file_name(path))
                .or_default()
                .push(path.clone());
        } else if !is_transcript(path) {
            plan.ignored += 1;
        } else if let Some(parent) = parent_session(path).filter(|p| transcripts.contains(p)) {
            plan.subagents_joined += 1;
            subagents.entry(parent).or_default().push(path.clone());
        }
    }
    for path in &files {
        if !is_transcript(path) || parent_session(path).is_some_and(|p| transcripts.contains(&p)) {
            continue;
        }
        let mut session_files = vec![path.clone()];
        session_files.extend(subagents.remove(path).unwrap_or_default());
        plan.sessions.push(Planned {
            name: relative(root, path),
            files: session_files,
        });
    }
    Ok(plan)
}

/// What analyzing one planned session gave.
enum Outcome {
    Done(Box<Done>),
    /// Not a transcript (a JSON document, a server log with a text extension).
    Skipped,
    Failed(String),
}

struct Done {
    name: String,
    warnings: Vec<String>,
    /// The logs joined to it.
    logs: Vec<PathBuf>,
    servers: usize,
    /// (rule id, severity) of every finding.
    findings: Vec<(String, Severity)>,
    /// The report's bottom line.
    verdict: hindsight_core::report::Verdict,
    /// The JSON line, when writing JSON lines.
    line: Option<String>,
}

struct Job<'a> {
    root: &'a Path,
    config: &'a Config,
    logs: &'a HashMap<String, Vec<PathBuf>>,
    jsonl: bool,
    redact: bool,
}

impl Job<'_> {
    fn analyze(&self, planned: &Planned) -> Outcome {
        let mut warnings = Vec::new();
        let mut sources = Vec::with_capacity(planned.files.len());
        for (index, path) in planned.files.iter().enumerate() {
            match inputs::read_file(path, None) {
                Ok(source) => sources.push(source),
                // The transcript itself: the session cannot be analyzed.
                Err(error) if index == 0 => return Outcome::Failed(format!("{error:#}")),
                Err(error) => warnings.push(format!("{error:#}; skipped")),
            }
        }
        let format = sources.first().map_or(Format::JsonDocument, |s| {
            hindsight_core::parse::detect(&s.text)
        });
        if format == Format::JsonDocument || format.is_log() {
            return Outcome::Skipped;
        }
        let mut logs = Vec::new();
        if !self.logs.is_empty() {
            let first = planned.files.first().map(PathBuf::as_path);
            let mut wanted: Vec<&PathBuf> = Vec::new();
            for source in &sources {
                for_each_name(&source.text, |token| {
                    if let Some(nearest) = self
                        .logs
                        .get(token)
                        .and_then(|paths| nearest(paths, first.unwrap_or(self.root)))
                        && !wanted.contains(&nearest)
                    {
                        wanted.push(nearest);
                    }
                });
            }
            for path in wanted {
                match inputs::read_file(path, None) {
                    Ok(source) => {
                        logs.push(path.clone());
                        sources.push(source);
                    }
                    Err(error) => warnings.push(format!("{error:#}; skipped")),
                }
            }
        }
        let mut report = analyze_with(&sources, self.config);
        drop(sources);
        if self.redact {
            report = redact::report(report);
        }
        // The record owns the report while it is written, and gives it back.
        let line = if self.jsonl {
            let files: Vec<String> = planned
                .files
                .iter()
                .map(|p| relative(self.root, p))
                .collect();
            let record = ScanRecord {
                session: planned.name.clone(),
                files,
                report,
            };
            let line =
                serde_json::to_string(&record).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
            report = record.report;
            Some(line)
        } else {
            None
        };
        Outcome::Done(Box::new(Done {
            name: planned.name.clone(),
            warnings,
            logs,
            servers: report.servers.len(),
            findings: report
                .findings
                .iter()
                .map(|f| (f.rule.clone(), f.severity))
                .collect(),
            verdict: report.summary.verdict,
            line,
        }))
    }
}

/// Calls `f` with every token of `text` that could be a file name: runs of
/// letters, digits and `._+-`. JSON escapes (`\n`, `\t`, `\"`) end a token
/// rather than starting one, so `"\nserver.log"` still yields `server.log`.
fn for_each_name(text: &str, mut f: impl FnMut(&str)) {
    let bytes = text.as_bytes();
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let part = b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-') || b >= 0x80;
        if part {
            start.get_or_insert(i);
            i += 1;
            continue;
        }
        if let Some(token) = start.take().and_then(|s| text.get(s..i)) {
            f(token.trim_end_matches('.'));
        }
        // Skip the escaped character too.
        i += if b == b'\\' { 2 } else { 1 };
    }
    if let Some(token) = start.and_then(|s| text.get(s..)) {
        f(token.trim_end_matches('.'));
    }
}

/// The log nearest the transcript: the most path components in common.
fn nearest<'a>(paths: &'a [PathBuf], transcript: &Path) -> Option<&'a PathBuf> {
    let common = |p: &Path| {
        p.components()
            .zip(transcript.components())
            .take_while(|(a, b)| a == b)
            .count()
    };
    // `max_by_key` keeps the last of equals; reverse so the first path wins.
    paths.iter().rev().max_by_key(|p| common(p))
}

/// The running summary: fixed size whatever the number of sessions.
#[derive(Debug, Default, Serialize)]
struct Summary {
    directory: String,
    sessions: usize,
    sessions_with_findings: usize,
    subagent_files_joined: usize,
    logs_found: usize,
    /// Distinct logs joined to at least one session.
    logs_joined: usize,
    not_transcripts: usize,
    ignored_files: usize,
    unreadable: usize,
    servers: usize,
    /// Sessions without findings whose server failed.
    sessions_with_failed_servers: usize,
    /// Sessions without findings with an input nothing was recognised in.
    sessions_not_understood: usize,
    /// Sessions without findings that leave something open: a server not
    /// shown up, a job whose last run failed.
    sessions_unresolved: usize,
    findings: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
    by_rule: Vec<RuleCount>,
    worst_sessions: Vec<SessionCount>,
}

#[derive(Debug, Default, Clone, Serialize)]
struct RuleCount {
    rule: String,
    severity: String,
    findings: usize,
    sessions: usize,
}

#[derive(Debug, Clone, Serialize)]
struct SessionCount {
    session: String,
    errors: usize,
    warnings: usize,
    infos: usize,
}

impl SessionCount {
    /// Worst first: more errors, then warnings, then infos, then by name.
    fn key(&self) -> (std::cmp::Reverse<(usize, usize, usize)>, &str) {
        (
            std::cmp::Reverse((self.errors, self.warnings, self.infos)),
            &self.session,
        )
    }
}

struct Tally {
    summary: Summary,
    by_rule: BTreeMap<String, RuleCount>,
    logs_joined: std::collections::HashSet<PathBuf>,
    top: usize,
    failed: bool,
}

impl Tally {
    fn add(&mut self, done: &Done, fail_on: crate::FailOn) {
        let s = &mut self.summary;
        s.sessions += 1;
        for log in &done.logs {
            // Bounded by the number of logs in the tree, not of sessions.
            if self.logs_joined.insert(log.clone()) {
                s.logs_joined += 1;
            }
        }
        s.servers += done.servers;
        s.findings += done.findings.len();
        match done.verdict {
            hindsight_core::report::Verdict::ServerFailed => s.sessions_with_failed_servers += 1,
            hindsight_core::report::Verdict::NotUnderstood => s.sessions_not_understood += 1,
            hindsight_core::report::Verdict::Unresolved => s.sessions_unresolved += 1,
            _ => {}
        }
        let mut count = SessionCount {
            session: done.name.clone(),
            errors: 0,
            warnings: 0,
            infos: 0,
        };
        let mut rules_here: Vec<&str> = Vec::new();
        for (rule, severity) in &done.findings {
            match severity {
                Severity::Error => count.errors += 1,
                Severity::Warning => count.warnings += 1,
                Severity::Info => count.infos += 1,
            }
            self.failed |= fail_on.fails(*severity);
            let entry = self
                .by_rule
                .entry(rule.clone())
                .or_insert_with(|| RuleCount {
                    rule: rule.clone(),
                    severity: severity.name().to_owned(),
                    ..RuleCount::default()
                });
            entry.findings += 1;
            if !rules_here.contains(&rule.as_str()) {
                rules_here.push(rule);
                entry.sessions += 1;
            }
        }
        s.errors += count.errors;
        s.warnings += count.warnings;
        s.infos += count.infos;
        if !done.findings.is_empty() {
            s.sessions_with_findings += 1;
            s.worst_sessions.push(count);
            s.worst_sessions.sort_by(|a, b| a.key().cmp(&b.key()));
            s.worst_sessions.truncate(self.top);
        }
    }

    fn finish(mut self) -> (Summary, bool) {
        let mut by_rule: Vec<RuleCount> = self.by_rule.into_values().collect();
        // Most findings first; ties in rule documentation order.
        let order = |id: &str| rules::ALL.iter().position(|r| r.id == id);
        by_rule.sort_by(|a, b| {
            b.findings
                .cmp(&a.findings)
                .then_with(|| order(&a.rule).cmp(&order(&b.rule)))
        });
        self.summary.by_rule = by_rule;
        (self.summary, self.failed)
    }
}

pub(crate) fn run(args: &ScanArgs, io: &mut Io<'_>) -> Result<u8> {
    let config = config::load(&args.rules, &io.current_dir)?;
    if !args.dir.is_dir() {
        if args.dir.exists() {
            bail!(
                "`{}` is not a directory (use `hindsight analyze` for files)",
                args.dir.display()
            );
        }
        bail!(
            "cannot read `{}`: No such file or directory",
            args.dir.display()
        );
    }
    let plan = plan(&args.dir)?;
    let threads = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;

    let progress = if io.stderr_is_terminal && !args.no_progress {
        let bar = ProgressBar::with_draw_target(
            Some(plan.sessions.len() as u64),
            ProgressDrawTarget::stderr(),
        );
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} {bar:40.cyan/blue} {pos}/{len} sessions  {per_sec}  eta {eta}",
        ) {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let warn = |io: &mut Io<'_>, message: &str| {
        let line = format!("hindsight: warning: {message}\n");
        match &progress {
            Some(bar) => bar.suspend(|| io.stderr.write_all(line.as_bytes())),
            None => io.stderr.write_all(line.as_bytes()),
        }
    };
    let mut tally = Tally {
        summary: Summary {
            directory: args.dir.display().to_string(),
            subagent_files_joined: plan.subagents_joined,
            logs_found: plan.log_count,
            ignored_files: plan.ignored,
            unreadable: plan.unreadable_dirs.len(),
            ..Summary::default()
        },
        by_rule: BTreeMap::new(),
        logs_joined: std::collections::HashSet::new(),
        top: args.top,
        failed: false,
    };
    for message in &plan.unreadable_dirs {
        warn(io, &format!("{message}; skipped"))?;
    }

    let job = Job {
        root: &args.dir,
        config: &config,
        logs: &plan.logs,
        jsonl: args.format == ScanFormat::Jsonl,
        redact: args.output.redact,
    };
    // Enough sessions per chunk to keep every thread busy, few enough that a
    // chunk's reports stay small.
    let chunk_size = (threads * 16).max(32);
    for chunk in plan.sessions.chunks(chunk_size) {
        let outcomes: Vec<Outcome> = pool.install(|| {
            chunk
                .par_iter()
                .map(|planned| {
                    let outcome = job.analyze(planned);
                    if let Some(bar) = &progress {
                        bar.inc(1);
                    }
                    outcome
                })
                .collect()
        });
        for outcome in outcomes {
            match outcome {
                Outcome::Done(done) => {
                    for message in &done.warnings {
                        warn(io, message)?;
                    }
                    if let Some(line) = &done.line {
                        io.stdout.write_all(line.as_bytes())?;
                        io.stdout.write_all(b"\n")?;
                    }
                    tally.add(&done, args.output.fail_on);
                }
                Outcome::Skipped => tally.summary.not_transcripts += 1,
                Outcome::Failed(message) => {
                    // The message names the file.
                    tally.summary.unreadable += 1;
                    warn(io, &format!("{message}; skipped"))?;
                }
            }
        }
    }
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let (summary, failed) = tally.finish();
    match args.format {
        ScanFormat::Jsonl => {}
        ScanFormat::Json => {
            let mut text = serde_json::to_string_pretty(&summary)?;
            text.push('\n');
            io.stdout.write_all(text.as_bytes())?;
        }
        ScanFormat::Text => {
            let text = render(&summary, args.output.color(io));
            io.stdout.write_all(text.as_bytes())?;
        }
    }
    Ok(if failed { EXIT_FINDINGS } else { EXIT_OK })
}

fn render(s: &Summary, color: bool) -> String {
    use std::fmt::Write as _;
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} session{} under {}, {} with findings",
        paint("1", "hindsight scan:"),
        s.sessions,
        plural(s.sessions),
        s.directory,
        s.sessions_with_findings
    );
    let _ = writeln!(
        out,
        "  {} server{}, {} finding{} ({} error, {} warning, {} info)",
        s.servers,
        plural(s.servers),
        s.findings,
        plural(s.findings),
        s.errors,
        s.warnings,
        s.infos
    );
    let _ = writeln!(
        out,
        "  {} sub-agent file{} joined to their sessions; {} of {} log file{} joined to the sessions naming them",
        s.subagent_files_joined,
        plural(s.subagent_files_joined),
        s.logs_joined,
        s.logs_found,
        plural(s.logs_found)
    );
    let _ = writeln!(
        out,
        "  skipped: {} not a transcript, {} of other types, {} unreadable",
        s.not_transcripts, s.ignored_files, s.unreadable
    );
    if !s.by_rule.is_empty() {
        let _ = writeln!(out, "\n{}", paint("1", "Findings by rule"));
        let width = s
            .by_rule
            .iter()
            .map(|r| r.rule.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            out,
            "  {:<width$}  {:<8}  {:>8}  {:>8}",
            "rule", "severity", "findings", "sessions"
        );
        for r in &s.by_rule {
            let severity = match r.severity.as_str() {
                "error" => paint("31", &format!("{:<8}", r.severity)),
                "warning" => paint("33", &format!("{:<8}", r.severity)),
                _ => paint("36", &format!("{:<8}", r.severity)),
            };
            let _ = writeln!(
                out,
                "  {:<width$}  {severity}  {:>8}  {:>8}",
                r.rule, r.findings, r.sessions
            );
        }
    }
    if !s.worst_sessions.is_empty() {
        let _ = writeln!(out, "\n{}", paint("1", "Worst sessions"));
        let _ = writeln!(
            out,
            "  {:>6}  {:>8}  {:>5}  session",
            "errors", "warnings", "infos"
        );
        for w in &s.worst_sessions {
            let _ = writeln!(
                out,
                "  {:>6}  {:>8}  {:>5}  {}",
                w.errors, w.warnings, w.infos, w.session
            );
        }
    }
    // The same bottom line as one report's: no findings is an all-clear
    // only when no server failed and every session was read.
    if s.sessions_with_failed_servers > 0
        || s.sessions_not_understood > 0
        || s.sessions_unresolved > 0
    {
        let _ = writeln!(
            out,
            "\nNot an all-clear: {} session{} without findings had a failed server, {} had an \
             input nothing was recognised in, {} left a server not shown up or a last run \
             failed.",
            s.sessions_with_failed_servers,
            if s.sessions_with_failed_servers == 1 {
                ""
            } else {
                "s"
            },
            s.sessions_not_understood,
            s.sessions_unresolved
        );
    } else if s.findings == 0 {
        let _ = writeln!(out, "\nNo unverified assumptions found.");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_agents_name_their_parent() {
        assert_eq!(
            parent_session(Path::new("p/abc/subagents/agent-1.jsonl")),
            Some(PathBuf::from("p/abc.jsonl"))
        );
        assert_eq!(parent_session(Path::new("p/abc/agent-1.jsonl")), None);
        assert_eq!(parent_session(Path::new("p/abc/subagents/x.jsonl")), None);
    }

    #[test]
    fn names_are_found_in_commands_and_json() {
        let mut names = Vec::new();
        for_each_name(
            r#"{"command":"tail -5 /data/run/sglang.log\nnohup x > srv.out."}"#,
            |t| names.push(t.to_owned()),
        );
        assert!(names.contains(&"sglang.log".to_owned()));
        assert!(names.contains(&"srv.out".to_owned()));
    }

    #[test]
    fn the_nearest_log_wins() {
        let logs = vec![PathBuf::from("a/x/s.log"), PathBuf::from("b/s.log")];
        assert_eq!(
            nearest(&logs, Path::new("b/t.jsonl")),
            Some(&PathBuf::from("b/s.log"))
        );
        assert_eq!(
            nearest(&logs, Path::new("c/t.jsonl")),
            Some(&PathBuf::from("a/x/s.log"))
        );
    }
}

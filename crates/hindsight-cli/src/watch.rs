//! `hindsight watch`: a live view of a running session. It follows the
//! transcript (the newest Claude Code session under `~/.claude/projects`
//! unless paths are given) and the server logs named with `--log`, and
//! after every change analyzes them again and shows the timeline as it grows
//! and what is still unverified, each with its command.
//!
//! Files are followed by a file watcher (`notify`: inotify, FSEvents…) and
//! a periodic tick, because watchers miss events on some file systems
//! (network mounts, some container overlays). Only complete lines are read:
//! a last line still being written is held back until its newline comes. A
//! file that shrinks or is replaced (another inode) is read again from the
//! start. Session formats that grow to gigabytes are condensed as they are
//! read ([`hindsight_core::condense`]), so the view keeps what an `analyze`
//! keeps; whole-document transcripts (a Gemini CLI session, rewritten in
//! place) are read whole when they change.
//!
//! On a terminal the screen is redrawn; otherwise (a pipe, a file) each
//! change is told once as plain lines: new checkpoints, findings that
//! appeared and findings that went away.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use hindsight_core::condense::Condenser;
use hindsight_core::{Format, Report, Source};

use crate::config::{self, RuleArgs};
use crate::{EXIT_OK, Io};

#[derive(clap::Args, Debug)]
pub(crate) struct WatchArgs {
    /// Transcripts to follow (default: the newest Claude Code session under
    /// ~/.claude/projects).
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// A server log to follow with them (repeatable).
    #[arg(long = "log", value_name = "FILE")]
    logs: Vec<PathBuf>,
    /// The tick, in milliseconds, that catches what the file watcher misses.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    interval: u64,
    /// Read what is there, show it once and exit.
    #[arg(long)]
    once: bool,
    #[command(flatten)]
    rules: RuleArgs,
}

/// One followed file: how far it is read and what its complete lines hold.
pub(crate) struct Follow {
    path: PathBuf,
    /// Whether it is a transcript (else a server log, kept verbatim).
    transcript: bool,
    identity: (u64, u64),
    /// Bytes read so far, and the last line's start when it had no newline.
    offset: u64,
    pending: Vec<u8>,
    /// The complete lines so far (condensed for session formats).
    text: String,
    format: Option<Format>,
    condenser: Option<Condenser>,
    /// Whole-document transcripts: the size and time last read.
    stamp: Option<(u64, Option<std::time::SystemTime>)>,
    /// Set when the file was truncated or replaced since the last look.
    restarted: bool,
}

impl Follow {
    pub(crate) fn new(path: PathBuf, transcript: bool) -> Self {
        Self {
            path,
            transcript,
            identity: (0, 0),
            offset: 0,
            pending: Vec::new(),
            text: String::new(),
            format: None,
            condenser: None,
            stamp: None,
            restarted: false,
        }
    }

    /// The file name, which the core links logs by.
    fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Reads what was added since the last poll; whether anything changed.
    /// A file that is missing for now is not an error (it may be created).
    pub(crate) fn poll(&mut self) -> Result<bool> {
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(error) => {
                return Err(error)
                    .with_context(|| format!("cannot read `{}`", self.path.display()));
            }
        };
        let meta = file.metadata()?;
        let identity = identity(&meta);
        let mut changed = false;
        // A whole-document transcript is rewritten or replaced at every
        // message (Gemini CLI): it is read whole anyway, not started again.
        let whole_document = self.transcript && self.format.is_some() && self.condenser.is_none();
        if !whole_document && (identity != self.identity || meta.len() < self.offset) {
            // Replaced or truncated: start again (a first read is neither).
            let first = self.identity == (0, 0);
            let path = std::mem::take(&mut self.path);
            *self = Self::new(path, self.transcript);
            self.identity = identity;
            self.restarted = !first;
            changed = true;
        }
        if self.transcript && self.format.is_none() && meta.len() > 0 {
            let mut head = Vec::new();
            (&mut file).take(64 * 1024).read_to_end(&mut head)?;
            let format = hindsight_core::parse::detect(&String::from_utf8_lossy(&head));
            self.format = Some(format);
            self.condenser = Condenser::for_format(format);
        }
        if self.transcript && self.condenser.is_none() && self.format.is_some() {
            // A whole document: read again when its size or time changes.
            let stamp = (meta.len(), meta.modified().ok());
            if self.stamp == Some(stamp) {
                return Ok(changed);
            }
            let mut bytes = Vec::new();
            file.seek(SeekFrom::Start(0))?;
            file.read_to_end(&mut bytes)?;
            self.text = String::from_utf8_lossy(&bytes).into_owned();
            self.stamp = Some(stamp);
            return Ok(true);
        }
        if meta.len() == self.offset {
            return Ok(changed);
        }
        file.seek(SeekFrom::Start(self.offset))?;
        let mut added = Vec::new();
        file.read_to_end(&mut added)?;
        self.offset += added.len() as u64;
        self.pending.extend_from_slice(&added);
        let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') else {
            // Only part of a line so far.
            return Ok(changed);
        };
        let complete: Vec<u8> = self.pending.drain(..=end).collect();
        let lines = complete.strip_suffix(b"\n").unwrap_or(&complete);
        for line in lines.split(|&b| b == b'\n') {
            let line = String::from_utf8_lossy(line);
            match &mut self.condenser {
                Some(condenser) => self.text.push_str(&condenser.line(&line)),
                None => self.text.push_str(&line),
            }
            self.text.push('\n');
        }
        Ok(true)
    }

    /// What the core analyzes.
    fn source(&self) -> Source {
        let mut source = Source::new(self.name(), self.text.clone());
        if self.transcript {
            source.format = self.format;
            if self.condenser.is_some() {
                source.condensed = Some(hindsight_core::source::Condensed {
                    original_bytes: self.offset - self.pending.len() as u64,
                    notes: Vec::new(),
                });
            }
        }
        source
    }

    /// The complete lines read so far.
    #[cfg(test)]
    fn text(&self) -> &str {
        &self.text
    }
}

fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 1)
    }
}

/// The newest Claude Code session under `projects` (sub-agents' files left
/// out: they join their parent).
fn newest_session(projects: &Path) -> Option<PathBuf> {
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut folders = vec![projects.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else {
                continue;
            };
            if meta.is_dir() {
                if path.file_name().is_some_and(|n| n != "subagents") {
                    folders.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "jsonl")
                && let Ok(modified) = meta.modified()
                && best.as_ref().is_none_or(|(time, _)| modified > *time)
            {
                best = Some((modified, path));
            }
        }
    }
    best.map(|(_, path)| path)
}

pub(crate) fn run(args: &WatchArgs, io: &mut Io<'_>) -> Result<u8> {
    let config = config::load(&args.rules, &io.current_dir)?;
    let mut paths = args.paths.clone();
    if paths.is_empty() {
        let projects = io
            .env
            .home
            .as_ref()
            .map(|home| home.join(".claude/projects"))
            .context("no PATH given and HOME is not set")?;
        match newest_session(&projects) {
            Some(path) => paths.push(path),
            None => bail!(
                "no PATH given and no Claude Code session under `{}`",
                projects.display()
            ),
        }
    }
    let mut follows: Vec<Follow> = paths
        .into_iter()
        .map(|p| Follow::new(p, true))
        .chain(args.logs.iter().cloned().map(|p| Follow::new(p, false)))
        .collect();
    let live = io.stdout_is_terminal;
    let mut view = View::default();
    // The watcher only wakes the loop; the tick polls every file anyway.
    let (wake, woken) = mpsc::channel::<()>();
    let _watcher = if args.once {
        None
    } else {
        watcher(&follows, wake)
    };
    loop {
        let mut changed = false;
        for follow in &mut follows {
            changed |= follow.poll()?;
            if std::mem::take(&mut follow.restarted) {
                view.restart();
                if !live {
                    io.stdout.write_all(
                        format!(
                            "read again: {} was truncated or replaced\n",
                            follow.path.display()
                        )
                        .as_bytes(),
                    )?;
                }
            }
        }
        if changed || view.first {
            let sources: Vec<Source> = follows.iter().map(Follow::source).collect();
            let report = hindsight_core::analyze_with(&sources, &config);
            let names: Vec<String> = follows
                .iter()
                .map(|f| f.path.display().to_string())
                .collect();
            let text = if live {
                view.screen(&report, &names)
            } else {
                view.lines(&report)
            };
            io.stdout.write_all(text.as_bytes())?;
            io.stdout.flush()?;
        }
        if args.once {
            return Ok(EXIT_OK);
        }
        // Whichever comes first: a file event or the tick. Events that came
        // while polling are drained with it.
        let _ = woken.recv_timeout(Duration::from_millis(args.interval.max(50)));
        while woken.try_recv().is_ok() {}
    }
}

/// A file watcher on the followed files' folders (a replaced file is a
/// new inode in the same folder), or none when the platform has none.
fn watcher(follows: &[Follow], wake: mpsc::Sender<()>) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let mut watcher = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
        let _ = wake.send(());
    })
    .ok()?;
    let folders: BTreeSet<PathBuf> = follows
        .iter()
        .filter_map(|f| f.path.parent().map(Path::to_path_buf))
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p
            }
        })
        .collect();
    for folder in folders {
        // A folder that cannot be watched is still polled.
        let _ = watcher.watch(&folder, notify::RecursiveMode::NonRecursive);
    }
    Some(watcher)
}

/// What was shown, so plain mode tells only what changed.
struct View {
    first: bool,
    checkpoints: usize,
    findings: BTreeSet<String>,
}

impl Default for View {
    fn default() -> Self {
        Self {
            first: true,
            checkpoints: 0,
            findings: BTreeSet::new(),
        }
    }
}

/// A command cut to one line of at most `width` characters.
fn short(command: &str, width: usize) -> String {
    let line = command.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= width {
        return line;
    }
    let mut cut: String = line.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn finding_key(finding: &hindsight_core::report::FindingReport) -> String {
    let at = finding
        .evidence
        .first()
        .map(|e| format!("{}:{}", e.source, e.line_start))
        .unwrap_or_default();
    format!("{} {at}", finding.rule)
}

impl View {
    /// A followed file started again: its checkpoints are told anew.
    fn restart(&mut self) {
        self.checkpoints = 0;
    }

    /// The whole screen, redrawn.
    fn screen(&mut self, report: &Report, names: &[String]) -> String {
        self.first = false;
        let mut out = String::from("\x1b[H\x1b[2J");
        out.push_str(&format!("hindsight watch: {}\n", names.join(", ")));
        out.push_str(&format!("{}\n\n", report.summary.headline));
        out.push_str("Timeline\n");
        let skip = report.checkpoints.len().saturating_sub(15);
        if skip > 0 {
            out.push_str(&format!("  … {skip} earlier\n"));
        }
        for checkpoint in &report.checkpoints[skip..] {
            out.push_str(&format!(
                "  {:>4}  {:<7} {}\n",
                checkpoint.id,
                checkpoint.kind_name(),
                short(&checkpoint.command, 100)
            ));
        }
        if !report.servers.is_empty() {
            out.push_str("\nServers\n");
            for server in &report.servers {
                out.push_str(&format!(
                    "  {} on {} port {}: {}\n",
                    server.engine_name(),
                    server.host.as_deref().unwrap_or("localhost"),
                    server.port_text(),
                    server.last_phase.map_or("no log", |p| p.name())
                ));
            }
        }
        out.push_str(&format!("\nUnverified ({})\n", report.findings.len()));
        for finding in &report.findings {
            out.push_str(&format!("  {}: {}\n", finding.rule, finding.message));
            if !finding.suggestion.is_empty() {
                out.push_str(&format!("      check: {}\n", finding.suggestion));
            }
        }
        self.checkpoints = report.checkpoints.len();
        self.findings = report.findings.iter().map(finding_key).collect();
        out
    }

    /// Plain lines: only what is new since the last call.
    fn lines(&mut self, report: &Report) -> String {
        self.first = false;
        let mut out = String::new();
        for checkpoint in report.checkpoints.iter().skip(self.checkpoints) {
            out.push_str(&format!(
                "checkpoint {} {}: {}\n",
                checkpoint.id,
                checkpoint.kind_name(),
                short(&checkpoint.command, 160)
            ));
        }
        self.checkpoints = self.checkpoints.max(report.checkpoints.len());
        let now: BTreeSet<String> = report.findings.iter().map(finding_key).collect();
        for finding in &report.findings {
            if !self.findings.contains(&finding_key(finding)) {
                out.push_str(&format!(
                    "unverified {}: {}\n",
                    finding.rule, finding.message
                ));
                if !finding.suggestion.is_empty() {
                    out.push_str(&format!("  check: {}\n", finding.suggestion));
                }
            }
        }
        for gone in self.findings.difference(&now) {
            out.push_str(&format!("verified or gone: {gone}\n"));
        }
        self.findings = now;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hindsight-watch-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("folder");
        dir
    }

    #[test]
    fn partial_lines_wait_and_shrunk_or_replaced_files_start_again() {
        let dir = scratch("follow");
        let log = dir.join("server.log");
        std::fs::write(&log, "one\ntw").expect("write");
        let mut follow = Follow::new(log.clone(), false);
        assert!(follow.poll().expect("poll"));
        assert_eq!(follow.text(), "one\n");
        assert!(!follow.poll().expect("nothing new"));
        std::fs::write(&log, "one\ntwo\nthree\n").expect("write");
        assert!(follow.poll().expect("poll"));
        assert_eq!(follow.text(), "one\ntwo\nthree\n");
        // Truncated in place.
        std::fs::write(&log, "new\n").expect("write");
        assert!(follow.poll().expect("poll"));
        assert_eq!(follow.text(), "new\n");
        // Replaced by another file (rename), even a longer one.
        let other = dir.join("other.log");
        std::fs::write(&other, "replaced one\nreplaced two\n").expect("write");
        std::fs::rename(&other, &log).expect("rename");
        assert!(follow.poll().expect("poll"));
        assert_eq!(follow.text(), "replaced one\nreplaced two\n");
        // Gone for now: not an error.
        std::fs::remove_file(&log).expect("remove");
        assert!(!follow.poll().expect("missing"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_whole_document_rewritten_by_rename_is_not_started_again() {
        let dir = scratch("gemini");
        let name = "session-2025-11-14T14-01-4f0c2a91.json";
        let session = include_str!(
            "../../../examples/gemini-cli-vllm-ps-only/session-2025-11-14T14-01-4f0c2a91.json"
        );
        let path = dir.join(name);
        std::fs::write(&path, session).expect("write");
        let mut follow = Follow::new(path.clone(), true);
        assert!(follow.poll().expect("poll"));
        let copy = dir.join("copy.json");
        std::fs::write(&copy, format!("{session}\n")).expect("write");
        std::fs::rename(&copy, &path).expect("rename");
        assert!(follow.poll().expect("poll"));
        assert!(!follow.restarted);
        assert_eq!(follow.text(), format!("{session}\n"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_transcript_followed_line_by_line_reads_as_the_whole_file() {
        let dir = scratch("transcript");
        let seed = include_str!("../../../examples/seed-claude-code/session.jsonl");
        let path = dir.join("session.jsonl");
        let mut follow = Follow::new(path.clone(), true);
        let mut grown = String::new();
        for line in seed.lines() {
            grown.push_str(line);
            grown.push('\n');
            std::fs::write(&path, &grown).expect("write");
            follow.poll().expect("poll");
        }
        let followed = hindsight_core::analyze(&[follow.source()]);
        let whole = hindsight_core::analyze(&[Source::new("session.jsonl", seed)]);
        assert_eq!(followed.findings.len(), whole.findings.len());
        assert_eq!(
            followed
                .findings
                .iter()
                .map(finding_key)
                .collect::<Vec<_>>(),
            whole.findings.iter().map(finding_key).collect::<Vec<_>>()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn plain_lines_tell_each_change_once() {
        let seed = include_str!("../../../examples/seed-claude-code/session.jsonl");
        let head: String = seed.lines().take(23).map(|l| format!("{l}\n")).collect();
        let mut view = View::default();
        let first = view.lines(&hindsight_core::analyze(&[Source::new("s.jsonl", head)]));
        assert!(first.contains("checkpoint 6 launch:"), "{first}");
        assert!(first.contains("unverified port-unchecked:"), "{first}");
        let all = view.lines(&hindsight_core::analyze(&[Source::new("s.jsonl", seed)]));
        assert!(!all.contains("checkpoint 6 "), "{all}");
        assert!(all.contains("checkpoint 11 verify:"), "{all}");
        assert!(!all.contains("unverified port-unchecked:"), "{all}");
        assert!(all.contains("unverified claim-without-evidence:"), "{all}");
    }
}

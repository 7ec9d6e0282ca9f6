//! The report: version 1 of hindsight's output, the one contract shared by
//! the CLI, the wasm package and the web page.
//!
//! Every type here is plain data with public fields. The JSON form is
//! documented by these types and by `docs/report.schema.json`, which a test
//! regenerates from them; renderers ([`text`], [`markdown`], [`sarif`]) see
//! only this.

pub mod markdown;
pub mod sarif;
pub mod text;
pub mod visible;
pub mod words;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{Diagnostic, DiagnosticLevel};
use crate::engine::Engine;
use crate::facts::ledger::{Check, LedgerStatus};
pub use crate::parse::FailureKind;
use crate::rules::{CheckStatus, Finding, Severity};
use crate::source::Format;
use crate::source::{Source, Span};
use crate::timeline::{CheckpointKind, PhaseKind, Provenance, Quote, Timeline};

/// The report format's version; bumped on any incompatible change.
pub const REPORT_VERSION: u32 = 1;

/// One line of `hindsight scan --format jsonl`: a session, the files it was
/// read from, and its report. The hand-off to a query engine (DuckDB,
/// Spark): one record per session, `docs/scan-record.schema.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ScanRecord {
    /// The session's transcript, relative to the folder scanned.
    pub session: String,
    /// Every file analyzed with it, relative to that folder: the
    /// transcript first, then its sub-agents' files and the logs it names.
    pub files: Vec<String>,
    pub report: Report,
}

/// The whole analysis of one session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct Report {
    /// Always 1 for this format.
    pub version: u32,
    /// The program that wrote it (`hindsight 0.1.0`).
    pub generator: String,
    pub sources: Vec<SourceReport>,
    /// The agent's actions in order.
    pub checkpoints: Vec<CheckpointReport>,
    pub servers: Vec<ServerReport>,
    /// Unverified assumptions, sorted by where their first evidence is.
    pub findings: Vec<FindingReport>,
    /// Problems reading the input; never fatal.
    pub diagnostics: Vec<DiagnosticReport>,
    /// What the report comes to, in one verdict and one sentence.
    pub summary: Summary,
}

/// The report's bottom line. Only `all-clear` may be read as "nothing to
/// worry about": a failed server or an input nothing was recognised in is
/// never summed up as one, even without findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct Summary {
    pub verdict: Verdict,
    /// One sentence for the top of any rendering.
    pub headline: String,
    /// Inputs nothing was recognised in (by name): the report cannot vouch
    /// for what they show.
    pub not_understood: Vec<String>,
}

/// The kinds of bottom line, most pressing first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// There are findings: unverified or failed checks.
    Findings,
    /// No finding, but a server's log (or what the agent saw) shows it failed.
    ServerFailed,
    /// No finding, but an input was not understood at all.
    NotUnderstood,
    /// No finding, but a job of the agent's (a test suite, a script, a
    /// built binary) failed the last time it ran, and the agent's last word
    /// does not own the failure.
    Unresolved,
    /// Every input was read, no server failed and nothing was left unverified.
    AllClear,
}

/// One input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct SourceReport {
    pub name: String,
    pub format: Format,
    /// False when the user chose the format.
    pub format_detected: bool,
    /// Whether anything in it was recognised (a command or message of a
    /// transcript, a lifecycle line or rank tag of a log). When false the
    /// report says nothing about it, and says so.
    pub understood: bool,
    pub lines: u64,
    pub bytes: u64,
}

/// Exact lines of a source that support a statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct Evidence {
    /// The source's name.
    pub source: String,
    /// First line, 1-based.
    pub line_start: u32,
    /// Last line, inclusive.
    pub line_end: u32,
    /// The lines themselves (long excerpts are cut in the middle and say so).
    pub text: String,
}

/// An action: one tool call of the agent (or a human).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct CheckpointReport {
    /// Its place in `checkpoints`. A call that kills or builds and then
    /// launches is one entry per step, in the order the call runs them,
    /// with the same command and evidence.
    pub id: usize,
    pub kind: CheckpointKind,
    pub command: String,
    /// Where it ran (`root@10.1.2.3`), when the transcript tells.
    pub host: Option<String>,
    /// When it ran, when the transcript tells.
    pub time: Option<String>,
    /// The message number (`[msg 3131]`).
    pub message: Option<u64>,
    pub actor: RanBy,
    /// The command's lines.
    pub evidence: Evidence,
    /// The output lines the agent saw, if any.
    pub output: Option<Evidence>,
    /// For a build from source: `build-succeeded` and `product-checked`;
    /// for a kill: `gpus-freed`. Empty for other checkpoints.
    pub ledger: Vec<LedgerReport>,
}

/// A server and what its log shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct ServerReport {
    pub id: usize,
    pub engine: Engine,
    /// For a server that is not an inference engine (engine `unknown`):
    /// the program that started it (`uvicorn`, `npm run dev`).
    pub program: Option<String>,
    pub host: Option<String>,
    pub model: Option<String>,
    /// The port it serves on; null when nothing tells (a log that never
    /// names its port, with no launch command known).
    pub port: Option<u16>,
    /// Where `port` comes from: `flag` (the launch command, in the
    /// transcript or pasted above the log), `log` (the engine's settings
    /// dump or bind line), `engine-default` (the launch is known and sets
    /// none). Null when the port is unknown.
    pub port_source: Option<Provenance>,
    pub tp_size: Option<u32>,
    pub pp_size: Option<u32>,
    pub dp_size: Option<u32>,
    pub ep_size: Option<u32>,
    pub speculative_algorithm: Option<String>,
    pub draft_model: Option<String>,
    pub mem_fraction: Option<f64>,
    /// Where its output was redirected.
    pub log_path: Option<String>,
    /// The name of the log source linked to it.
    pub log_source: Option<String>,
    /// The checkpoint that launched it.
    pub launch_checkpoint: Option<usize>,
    /// True only when the log shows readiness; false when it shows a failure
    /// first; null when it cannot tell.
    pub ready: Option<bool>,
    /// Same three values; null for non-speculative servers.
    pub drafter_loaded: Option<bool>,
    /// The ranks (processes) its launch brings up on the host this log is
    /// from: tensor × pipeline × data parallel (shared with DP attention),
    /// divided over `--nnodes`, or the world size the engine reported.
    /// Never fewer than the rank tags seen show. Null when nothing tells.
    pub ranks_expected: Option<u32>,
    /// Where `ranks_expected` comes from: `flag`, `log`, `engine-default`
    /// (a known launch that states no size: one), or `seen` (no size is
    /// stated, or fewer than the tags seen: at least this many).
    pub ranks_expected_source: Option<Provenance>,
    /// Distinct rank tags the log (or, without a log, the agent) showed.
    pub ranks_seen: u32,
    pub rank_tags: Vec<String>,
    /// Weight loading time read from the progress bar, else from the
    /// engine's own `took N s` line.
    pub load_seconds: Option<u32>,
    /// The latest weight-shard progress (`3` of `8`), when a bar was shown.
    pub shards_loaded: Option<u32>,
    pub shards_total: Option<u32>,
    pub phases: Vec<PhaseReport>,
    /// Where it stopped: the phase of the last line that showed one,
    /// `failed` when the run ended in a failure.
    pub last_phase: Option<PhaseKind>,
    pub failure: Option<FailureReport>,
    /// Runs before the last one in the same log: the server was restarted
    /// into the file it wrote before (a start line after a failure or after
    /// readiness). Everything else here describes the last run, except rank
    /// tags, which are counted over the whole log.
    pub restarts: u32,
    /// How the earlier runs that showed a failure failed, in log order.
    pub earlier_failures: Vec<FailureReport>,
    /// The checkpoint whose kill stopped it after its launch (then `ready`
    /// is false and, unless it failed before, `failure` is that kill).
    pub stopped_by: Option<usize>,
    /// The last line of its log: where it stopped.
    pub last_line: Option<Evidence>,
    /// The checks a careful operator makes after a launch, and what the
    /// agent's view shows of each (empty for servers not launched in the
    /// transcript).
    pub ledger: Vec<LedgerReport>,
}

/// One check of a verification ledger (a server's, a build's or a kill's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct LedgerReport {
    pub check: Check,
    pub status: LedgerStatus,
    /// What the check looks for, with figures (`3 of 8 ranks seen`).
    pub detail: String,
    pub evidence: Vec<Evidence>,
}

/// The first line showing a lifecycle phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct PhaseReport {
    pub phase: PhaseKind,
    pub time: Option<String>,
    pub evidence: Evidence,
}

/// Who ran a checkpoint's command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum RanBy {
    Agent,
    /// One the agent started, such as Claude Code's Task tool: its records
    /// are a sidechain.
    SubAgent,
    /// The user, typing into the session (Claude Code's `!` commands).
    Human,
}

impl RanBy {
    /// The name the report writes (`sub-agent`), the same as its JSON.
    pub fn name(self) -> &'static str {
        match self {
            RanBy::Agent => "agent",
            RanBy::SubAgent => "sub-agent",
            RanBy::Human => "human",
        }
    }
}

/// How a server failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct FailureReport {
    pub kind: FailureKind,
    /// The failure line's message, without the engine's prefix.
    pub message: String,
    /// For `address-in-use`: the port named, when the line names one.
    pub port: Option<u16>,
    /// For `address-in-use`: whether that port is the server's API port
    /// (false: an internal one such as NCCL, ZMQ or torch's rendezvous).
    pub api_port: Option<bool>,
    pub evidence: Evidence,
}

/// One unverified assumption.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct FindingReport {
    /// The rule id (`port-unchecked`).
    pub rule: String,
    pub title: String,
    pub severity: Severity,
    /// `not-checked` (never verified) or `failed` (verified, and it failed).
    pub status: CheckStatus,
    pub message: String,
    pub evidence: Vec<Evidence>,
    /// The command that would have verified it, with the real host, port and path.
    pub suggestion: String,
    /// The server it is about.
    pub server: Option<usize>,
}

/// A problem reading the input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
pub struct DiagnosticReport {
    pub level: DiagnosticLevel,
    pub source: String,
    pub line: Option<u32>,
    pub message: String,
}

/// Excerpts longer than this many lines keep their head and tail only.
const MAX_EVIDENCE_LINES: u32 = 40;

struct Builder<'a> {
    sources: &'a [&'a Source],
    timeline: &'a Timeline,
}

impl Builder<'_> {
    /// The lines a quote covers, with its decoded text when it has one.
    fn quote(&self, quote: &Quote) -> Evidence {
        self.quoted(quote.span, quote.text.as_deref())
    }

    /// The lines a span covers, quoting `text` instead of the source's own
    /// lines when given (the decoded text of an escaped source).
    fn quoted(&self, span: Span, text: Option<&str>) -> Evidence {
        match text {
            // The source's own lines would be replaced: they are not read.
            Some(text) => {
                let mut evidence = self.lines(span);
                evidence.text = self.redact_capped(&cap_lines(text));
                evidence
            }
            None => self.evidence(span),
        }
    }

    /// Credentials found anywhere are never repeated in the report.
    fn redact(&self, text: &str) -> String {
        self.redact_owned(text.to_owned())
    }

    /// [`Builder::redact`] of a text already made for the report.
    fn redact_owned(&self, text: String) -> String {
        crate::secrets::redact_owned(text, &self.timeline.secrets)
    }

    /// Lines redacted, then cut to a readable length: cut first, a
    /// credential across the cut would keep its head.
    fn redact_capped(&self, lines: &str) -> String {
        if self.timeline.secrets.is_empty() {
            cap_line_length(lines)
        } else {
            cap_line_length(&self.redact(lines))
        }
    }

    /// A ledger as the report shows it.
    fn ledger(&self, entries: Vec<crate::facts::ledger::LedgerEntry>) -> Vec<LedgerReport> {
        entries
            .into_iter()
            .map(|entry| LedgerReport {
                check: entry.check,
                status: entry.status,
                detail: entry.detail,
                evidence: entry.evidence.iter().map(|q| self.quote(q)).collect(),
            })
            .collect()
    }

    /// A source and what the timeline knows of it (name, line index).
    fn source(&self, id: usize) -> Option<(&Source, &crate::timeline::SourceInfo)> {
        Some((self.sources.get(id)?, self.timeline.sources.get(id)?))
    }

    /// Where a span is (source name and lines), without its text.
    fn lines(&self, span: Span) -> Evidence {
        let Some((_, info)) = self.source(span.source) else {
            return Evidence {
                source: String::new(),
                line_start: 0,
                line_end: 0,
                text: String::new(),
            };
        };
        let (line_start, line_end) = info.lines.lines(span.start, span.end);
        Evidence {
            source: info.name.clone(),
            line_start,
            line_end,
            text: String::new(),
        }
    }

    /// Whole lines covering a span.
    fn evidence(&self, span: Span) -> Evidence {
        let mut evidence = self.lines(span);
        let Some((source, info)) = self.source(span.source) else {
            return evidence;
        };
        let (line_start, line_end) = (evidence.line_start, evidence.line_end);
        let text = &source.text;
        let start = info
            .lines
            .line_start(line_start)
            .unwrap_or(0)
            .min(text.len());
        let end = info
            .lines
            .line_start(line_end + 1)
            .unwrap_or(text.len())
            .min(text.len());
        let start = crate::source::floor_char_boundary(text, start);
        let end = crate::source::floor_char_boundary(text, end.max(start));
        let lines = text[start..end].trim_end_matches(['\n', '\r']);
        // As the terminal showed them: colour and title codes are not text
        // (and must not reach a terminal that prints the report).
        let lines = crate::parse::logline::strip_ansi(lines);
        evidence.text = self.redact_capped(&cap_lines(&lines));
        evidence
    }
}

/// Keeps the head and tail of long excerpts and says how much was cut.
fn cap_lines(text: &str) -> std::borrow::Cow<'_, str> {
    let all: Vec<&str> = text.lines().collect();
    let keep = (MAX_EVIDENCE_LINES / 2) as usize;
    if all.len() <= MAX_EVIDENCE_LINES as usize {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut cut: Vec<&str> = all[..keep].to_vec();
    let note = format!("… {} more lines …", all.len() - 2 * keep);
    cut.push(&note);
    cut.extend(&all[all.len() - keep..]);
    std::borrow::Cow::Owned(cut.join("\n"))
}

/// Lines as `wc -l` would count them, plus an unterminated last line.
fn line_count(text: &str) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let unterminated = usize::from(!text.is_empty() && !text.ends_with('\n'));
    u64::try_from(newlines + unterminated).unwrap_or(u64::MAX)
}

/// Keeps evidence readable when a line is megabytes long. Lines are joined
/// with `\n` (a `\r\n` ending loses its `\r`, a last newline goes).
fn cap_line_length(text: &str) -> String {
    const MAX: usize = 2000;
    let mut capped = String::with_capacity(text.len());
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            capped.push('\n');
        }
        if line.len() > MAX {
            let cut = crate::source::floor_char_boundary(line, MAX);
            capped.push_str(&line[..cut]);
            capped.push_str(&format!("… [{} more bytes]", line.len() - cut));
        } else {
            capped.push_str(line);
        }
    }
    capped
}

/// Assembles the report from the timeline, the findings and the diagnostics.
/// It takes the timeline: each checkpoint goes as soon as its entry is made,
/// so that a big session's outputs are not held twice at once (by the
/// timeline and, capped, by the report).
pub fn build(
    sources: &[&Source],
    mut timeline: Timeline,
    facts: crate::facts::Facts,
    findings: &[Finding],
    diagnostics: &[Diagnostic],
) -> Report {
    let b = Builder {
        sources,
        timeline: &timeline,
    };
    let timeline_ref = &timeline;
    // The ledgers were read before the rules ran, once.
    let crate::facts::Facts {
        checkpoints: checkpoint_facts,
        servers: mut server_facts,
        open_failures,
    } = facts;
    let ledgers: Vec<Vec<LedgerReport>> = checkpoint_facts
        .into_iter()
        .map(|entries| b.ledger(entries))
        .collect();
    let mut report = Report {
        version: REPORT_VERSION,
        generator: format!("hindsight {}", env!("CARGO_PKG_VERSION")),
        sources: timeline
            .sources
            .iter()
            .zip(sources)
            .map(|(info, source)| SourceReport {
                name: info.name.clone(),
                format: info.format,
                format_detected: info.detected,
                understood: info.understood,
                lines: line_count(&source.text),
                // The original's size, also when the text was condensed.
                bytes: source.condensed.as_ref().map_or_else(
                    || u64::try_from(source.text.len()).unwrap_or(u64::MAX),
                    |c| c.original_bytes,
                ),
            })
            .collect(),
        checkpoints: Vec::new(),
        servers: timeline
            .servers
            .iter()
            .map(|s| {
                // How one run failed, as the report shows it.
                let failure = |kind: FailureKind, span: Span, port: Option<u16>| FailureReport {
                    kind,
                    message: b.redact(&crate::parse::logline::message_of(
                        timeline_ref.text(sources, span),
                    )),
                    port,
                    api_port: port.map(|p| Some(p) == s.port()),
                    evidence: b.evidence(span),
                };
                ServerReport {
                    id: s.id,
                    engine: s.engine,
                    program: s.program.clone(),
                    host: s.host.clone(),
                    model: s.settings.model.clone(),
                    port: s.port(),
                    port_source: s.port_with_source().map(|(_, source)| source),
                    tp_size: s.settings.tp_size,
                    pp_size: s.settings.pp_size,
                    dp_size: s.settings.dp_size,
                    ep_size: s.settings.ep_size,
                    speculative_algorithm: s.settings.speculative_algorithm.clone(),
                    draft_model: s.settings.draft_model.clone(),
                    mem_fraction: s.settings.mem_fraction,
                    log_path: s.log_path.clone(),
                    log_source: s
                        .log_source
                        .and_then(|id| timeline.sources.get(id))
                        .map(|info| info.name.clone()),
                    launch_checkpoint: s.launch.or(s.pasted_launch),
                    ready: s.ready(),
                    drafter_loaded: s.drafter_loaded(),
                    ranks_expected: s.ranks_expected().map(|(ranks, _)| ranks),
                    ranks_expected_source: s.ranks_expected().map(|(_, source)| source),
                    ranks_seen: u32::try_from(s.lifecycle.ranks.len()).unwrap_or(u32::MAX),
                    rank_tags: s.lifecycle.ranks.iter().cloned().collect(),
                    load_seconds: s.lifecycle.load_seconds,
                    shards_loaded: s.lifecycle.shards.map(|(done, _)| done),
                    shards_total: s.lifecycle.shards.map(|(_, total)| total),
                    phases: s
                        .lifecycle
                        .phases
                        .iter()
                        .map(|p| PhaseReport {
                            phase: p.kind,
                            time: p.time.clone(),
                            evidence: b.evidence(p.span),
                        })
                        .collect(),
                    last_phase: s.lifecycle.last_phase(),
                    failure: s
                        .lifecycle
                        .failure
                        .map(|(kind, span)| failure(kind, span, s.lifecycle.failure_port))
                        .or_else(|| {
                            // Stopped by the agent: killed, by its own hand.
                            let kill = timeline_ref.checkpoints.get(s.stopped_by?)?;
                            Some(FailureReport {
                                kind: FailureKind::Killed,
                                message: b
                                    .redact(&format!("stopped by the agent: {}", kill.command)),
                                port: None,
                                api_port: None,
                                evidence: b.quoted(
                                    kill.span,
                                    kill.decoded.then_some(kill.command.as_str()),
                                ),
                            })
                        })
                        .or_else(|| {
                            // Stopped by a signal that no line of its own
                            // shows: a background shell Claude Code reported
                            // stopped (143), a foreground run cut at its
                            // timeout, Ctrl-C (130), SIGKILL (137), a
                            // `timeout N` wrapper's kill (124).
                            let code = s.exited.filter(|c| matches!(c, 124 | 130 | 137 | 143))?;
                            let launch = timeline_ref.checkpoints.get(s.launch?)?;
                            // The line that told: a poll's status, or else
                            // the launch's output.
                            let told = launch
                                .seen
                                .iter()
                                .rev()
                                .find(|l| l.text.trim().starts_with("<status>"))
                                .map(|l| l.span);
                            Some(FailureReport {
                                kind: FailureKind::Killed,
                                message: format!("{STOPPED_BY_SIGNAL} (status {code})"),
                                port: None,
                                api_port: None,
                                evidence: b.evidence(told.or(launch.output).unwrap_or(launch.span)),
                            })
                        }),
                    stopped_by: s.stopped_by,
                    restarts: u32::try_from(s.lifecycle.earlier_runs.len()).unwrap_or(u32::MAX),
                    earlier_failures: s
                        .lifecycle
                        .earlier_runs
                        .iter()
                        .flatten()
                        .map(|f| failure(f.kind, f.span, f.port))
                        .collect(),
                    last_line: s.lifecycle.last_line.map(|span| b.evidence(span)),
                    ledger: b.ledger(
                        server_facts
                            .get_mut(s.id)
                            .map(std::mem::take)
                            .unwrap_or_default(),
                    ),
                }
            })
            .collect(),
        findings: findings
            .iter()
            .map(|f| FindingReport {
                rule: f.rule.to_owned(),
                title: crate::rules::find(f.rule)
                    .map(|r| r.title.to_owned())
                    .unwrap_or_default(),
                severity: f.severity,
                status: f.status,
                message: b.redact(&f.message),
                evidence: f.evidence.iter().map(|q| b.quote(q)).collect(),
                suggestion: b.redact(&f.suggestion),
                server: f.server,
            })
            .collect(),
        diagnostics: diagnostics
            .iter()
            .map(|d| DiagnosticReport {
                level: d.level,
                source: timeline
                    .sources
                    .get(d.source)
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
                line: d.line,
                message: d.message.clone(),
            })
            .collect(),
        summary: Summary {
            verdict: Verdict::AllClear,
            headline: String::new(),
            not_understood: Vec::new(),
        },
    };
    // Say loudly what was not read: no finding over it is an all-clear.
    for info in timeline.sources.iter().filter(|info| !info.understood) {
        report.diagnostics.push(DiagnosticReport {
            level: DiagnosticLevel::Warning,
            source: info.name.clone(),
            line: None,
            message: not_understood_message(info.format),
        });
    }
    let checkpoints = std::mem::take(&mut timeline.checkpoints);
    let b = Builder {
        sources,
        timeline: &timeline,
    };
    // A launch whose call first kills or builds (`pkill -f vllm; sleep 2;
    // vllm serve …`, `make && ./server`) is two steps of the timeline, one
    // entry each, in the order the call runs them; the ids are the
    // entries' places, and what pointed at the call points at its step.
    let mut entries: Vec<CheckpointReport> = Vec::with_capacity(checkpoints.len());
    let mut primary: Vec<usize> = Vec::with_capacity(checkpoints.len());
    let mut killed_at: Vec<Option<usize>> = Vec::with_capacity(checkpoints.len());
    for (c, ledger) in checkpoints.into_iter().zip(ledgers) {
        let entry = CheckpointReport {
            id: 0,
            kind: c.kind,
            command: b.redact(&c.command),
            host: c.host.clone(),
            time: c.time.clone(),
            message: c.message,
            actor: if c.by_human {
                RanBy::Human
            } else if c.by_subagent {
                RanBy::SubAgent
            } else {
                RanBy::Agent
            },
            evidence: b.quoted(c.span, c.decoded.then_some(c.command.as_str())),
            output: c.output.map(|span| b.quoted(span, c.seen.output())),
            ledger: Vec::new(),
        };
        let (mut own, mut rest): (Vec<LedgerReport>, Vec<LedgerReport>) = (Vec::new(), ledger);
        let mut kill = None;
        for kind in steps_before_launch(&c) {
            let (mine, others): (Vec<LedgerReport>, Vec<LedgerReport>) =
                rest.into_iter().partition(|l| match kind {
                    CheckpointKind::Kill => l.check == Check::GpusFreed,
                    _ => matches!(l.check, Check::BuildSucceeded | Check::ProductChecked),
                });
            rest = others;
            if kind == CheckpointKind::Kill {
                kill = Some(entries.len());
            }
            entries.push(CheckpointReport {
                id: entries.len(),
                kind,
                ledger: mine,
                ..entry.clone()
            });
        }
        own.append(&mut rest);
        primary.push(entries.len());
        killed_at.push(kill);
        entries.push(CheckpointReport {
            id: entries.len(),
            ledger: own,
            ..entry
        });
    }
    for server in &mut report.servers {
        server.launch_checkpoint = server
            .launch_checkpoint
            .and_then(|id| primary.get(id).copied());
        server.stopped_by = server.stopped_by.and_then(|id| {
            killed_at
                .get(id)
                .copied()
                .flatten()
                .or_else(|| primary.get(id).copied())
        });
    }
    report.checkpoints = entries;
    // What the session leaves failed, in words: "the last run of `npm
    // test` failed at session.jsonl:25 (`1 failing`)".
    let open: Vec<String> = open_failures
        .iter()
        .map(|open| {
            let quote = b.quote(&open.failure);
            let line = quote
                .text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| words::shorten(l, 80))
                .unwrap_or_default();
            format!(
                "the last run of `{}` failed at {}:{} (`{line}`)",
                b.redact(&open.job),
                quote.source,
                quote.line_start
            )
        })
        .collect();
    report.summary = summarize(&report, &open);
    report
}

/// The kills and builds a launch's call runs before its launch, in order,
/// each once: steps of their own in the report. Nothing for a checkpoint
/// that is not a launch.
fn steps_before_launch(checkpoint: &crate::timeline::Checkpoint) -> Vec<CheckpointKind> {
    if checkpoint.kind != CheckpointKind::Launch {
        return Vec::new();
    }
    let Some(launch) = checkpoint.launching_command() else {
        return Vec::new();
    };
    let mut steps = Vec::new();
    for kind in checkpoint.commands[..launch]
        .iter()
        .map(crate::timeline::classify::kind_of)
    {
        if matches!(kind, CheckpointKind::Kill | CheckpointKind::Build) && !steps.contains(&kind) {
            steps.push(kind);
        }
    }
    steps
}

/// Why a source with nothing recognised in it is not vouched for.
fn not_understood_message(format: Format) -> String {
    if format == Format::JsonDocument {
        "nothing in this input was understood: it is JSON of no transcript or log shape \
         hindsight knows, so this report says nothing about it"
            .to_owned()
    } else if format.is_log() {
        format!(
            "nothing in this input was recognised as a {}: no lifecycle line, rank tag or \
             launch command, so this report says nothing about the server it comes from \
             (choose the format if it was detected wrongly)",
            format.name()
        )
    } else {
        format!(
            "nothing in this input was recognised as a {}: no command and no message, so \
             this report says nothing about what happened in it (choose the format if it \
             was detected wrongly)",
            format.name()
        )
    }
}

/// How a failure opens when a signal stopped a server that showed no
/// failure of its own (a background shell stopped, a timeout).
const STOPPED_BY_SIGNAL: &str = "stopped by a signal";

/// The verdict and headline of a report otherwise complete; `open` tells
/// the jobs whose last run failed and the agent did not say so.
fn summarize(report: &Report, open: &[String]) -> Summary {
    let not_understood: Vec<String> = report
        .sources
        .iter()
        .filter(|s| !s.understood)
        .map(|s| s.name.clone())
        .collect();
    // A server the agent stopped on purpose did not fail.
    // An Ollama API that answers while its runner died (the model it was
    // asked for never served) failed too.
    let failed_servers = report
        .servers
        .iter()
        .filter(|s| {
            s.ready == Some(false)
                || s.engine == Engine::Ollama && s.stopped_by.is_none() && s.failure.is_some()
        })
        .filter(|s| {
            s.stopped_by.is_none()
                || s.failure
                    .as_ref()
                    .is_some_and(|f| !f.message.starts_with("stopped by the agent"))
        });
    // A failed server that a later one of the same program, host and port
    // replaced, and that later one is up: the failure was met and fixed (the
    // bind failed, the old process was killed, the relaunch serves). It is
    // still a failure the headline names, with what replaced it.
    let replacement = |s: &ServerReport| {
        report.servers.iter().find(|t| {
            t.id > s.id
                && t.ready == Some(true)
                && t.host == s.host
                && t.engine == s.engine
                && t.program == s.program
                && t.port == s.port
                && s.launch_checkpoint.is_some()
                && t.launch_checkpoint.is_some()
        })
    };
    let how = |s: &ServerReport| {
        s.failure.as_ref().map_or_else(String::new, |f| {
            format!(
                " ({} at {}:{})",
                f.kind, f.evidence.source, f.evidence.line_start
            )
        })
    };
    // One line per replacement: "servers 1, 2 and 3 (uvicorn port 8081)
    // failed and server 4 replaced them, up".
    let mut failed: Vec<String> = Vec::new();
    // The servers those lines name, so none is told twice below.
    let mut told: Vec<usize> = Vec::new();
    let mut by_replacement: Vec<(usize, Vec<&ServerReport>)> = Vec::new();
    for server in failed_servers {
        told.push(server.id);
        match replacement(server) {
            Some(by) => match by_replacement.iter_mut().find(|(id, _)| *id == by.id) {
                Some((_, group)) => group.push(server),
                None => by_replacement.push((by.id, vec![server])),
            },
            None => failed.push(format!(
                "server {} ({}) {}{}",
                server.id + 1,
                server.label(),
                if server.ready == Some(true) {
                    "answers, but its model runner failed"
                } else if server
                    .failure
                    .as_ref()
                    .is_some_and(|f| f.message.starts_with(STOPPED_BY_SIGNAL))
                {
                    // Down at the end, but no failure of its own showed.
                    "was stopped"
                } else {
                    "failed"
                },
                how(server)
            )),
        }
    }
    for (by, group) in &by_replacement {
        let line = match group.as_slice() {
            [one] => format!(
                "server {} ({}) failed{} and server {} replaced it, up",
                one.id + 1,
                one.label(),
                how(one),
                by + 1
            ),
            _ => {
                let ids: Vec<String> = group.iter().map(|s| (s.id + 1).to_string()).collect();
                format!(
                    "servers {} ({}) failed and server {} replaced them, up",
                    crate::rules::and_list(&ids),
                    group[0].label(),
                    by + 1
                )
            }
        };
        failed.push(line);
    }
    // A server the agent checked and found not answering, and never saw
    // answer since: its own log may say it is up (an engine bound to
    // another interface, a container's port not published), but the check
    // that counts failed. Servers already told above are not told twice.
    for server in report.servers.iter().filter(|s| !told.contains(&s.id)) {
        let status = |check: Check| {
            server
                .ledger
                .iter()
                .find(|e| e.check == check)
                .map(|e| (e.status, e.evidence.first()))
        };
        let (listing, request) = (status(Check::PortListening), status(Check::RequestAnswered));
        let answered = [listing, request]
            .iter()
            .flatten()
            .any(|(s, _)| matches!(s, LedgerStatus::Passed | LedgerStatus::Indirect));
        let refused = [request, listing]
            .into_iter()
            .flatten()
            .find(|(s, _)| *s == LedgerStatus::Failed);
        if let (false, Some((_, evidence))) = (answered, refused) {
            let at = evidence.map_or_else(String::new, |e| {
                format!(" at {}:{}", e.source, e.line_start)
            });
            failed.push(format!(
                "server {} ({}) did not answer the agent's check of its port{at}, and nothing since shows it answering",
                server.id + 1,
                server.label()
            ));
        }
    }
    let unread = (!not_understood.is_empty()).then(|| {
        format!(
            "nothing was recognised in {}, so it is not covered",
            not_understood.join(", ")
        )
    });
    let (verdict, mut headline) = if !report.findings.is_empty() {
        let (errors, warnings, infos) = report.counts();
        let mut parts = Vec::new();
        for (count, word) in [(errors, "error"), (warnings, "warning"), (infos, "info")] {
            if count > 0 {
                parts.push(format!(
                    "{count} {word}{}",
                    if count == 1 { "" } else { "s" }
                ));
            }
        }
        let total = report.findings.len();
        (
            Verdict::Findings,
            format!(
                "{total} unverified assumption{} ({})",
                if total == 1 { "" } else { "s" },
                parts.join(", ")
            ),
        )
    } else if !failed.is_empty() {
        let agent = report.checkpoints.is_empty();
        (
            Verdict::ServerFailed,
            if agent {
                format!("Not an all-clear: {}", failed.join("; "))
            } else {
                format!(
                    "No unverified assumption in the agent's actions, but not an all-clear: {}",
                    failed.join("; ")
                )
            },
        )
    } else if let Some(unread) = &unread {
        (
            Verdict::NotUnderstood,
            format!("Not an all-clear: {unread}"),
        )
    } else if !open.is_empty() {
        (
            Verdict::Unresolved,
            format!("Not an all-clear: {}", open.join("; ")),
        )
    } else {
        // Nothing unverified, but say what is still open: a server whose
        // log stops before it shows it up. A log cut there is a window of a
        // start, no failure.
        let mut headline = "No unverified assumptions found".to_owned();
        for s in report
            .servers
            .iter()
            .filter(|s| s.ready.is_none() && s.log_source.is_some())
        {
            let phase = s
                .last_phase
                .map(|p| format!(" (its log stops at {})", p.name()))
                .unwrap_or_default();
            headline.push_str(&format!(
                "; server {} ({}) is not shown up yet{phase}",
                s.id + 1,
                s.label()
            ));
        }
        (Verdict::AllClear, headline)
    };
    let extras: Vec<&String> = match verdict {
        Verdict::Findings => failed.iter().chain(&unread).chain(open).collect(),
        Verdict::ServerFailed | Verdict::NotUnderstood => open.iter().collect(),
        Verdict::Unresolved | Verdict::AllClear => Vec::new(),
    };
    for extra in extras {
        headline.push_str("; ");
        headline.push_str(extra);
    }
    headline.push('.');
    Summary {
        verdict,
        headline,
        not_understood,
    }
}

impl Report {
    /// The report as pretty JSON (the CLI's `--format json`).
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// Findings counted by severity: (errors, warnings, infos).
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |s: Severity| self.findings.iter().filter(|f| f.severity == s).count();
        (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        )
    }
}

impl ServerReport {
    /// `sglang on root@10.1.2.3 port 8000`, for messages.
    pub fn label(&self) -> String {
        let mut label = self
            .program
            .clone()
            .unwrap_or_else(|| self.engine_name().to_owned());
        if let Some(host) = &self.host {
            label.push_str(" on ");
            label.push_str(host);
        }
        if let Some(port) = self.port {
            label.push_str(&format!(" port {port}"));
            if self.port_source == Some(Provenance::EngineDefault) {
                label.push_str(" (default)");
            }
        }
        label
    }

    /// The rank count against what is expected, for renderers: `8 of 8`,
    /// `3 of at least 8`, `2 (expected unknown)`.
    pub fn ranks_text(&self) -> String {
        match (self.ranks_expected, self.ranks_expected_source) {
            (Some(expected), Some(Provenance::Seen)) => {
                format!("{} of at least {expected}", self.ranks_seen)
            }
            (Some(expected), _) => format!("{} of {expected}", self.ranks_seen),
            (None, _) => format!("{} (expected unknown)", self.ranks_seen),
        }
    }

    /// The port for renderers: `8000`, `8000 (default)`, or `unknown`.
    pub fn port_text(&self) -> String {
        match (self.port, self.port_source) {
            (Some(port), Some(Provenance::EngineDefault)) => format!("{port} (default)"),
            (Some(port), _) => port.to_string(),
            (None, _) => "unknown".to_owned(),
        }
    }
}

impl CheckpointReport {
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }
}

impl ServerReport {
    pub fn engine_name(&self) -> &'static str {
        self.engine.name()
    }

    /// Whether it loads a drafter, so "drafter loaded" applies to it (the
    /// same test the rules use: n-gram speculation loads none).
    pub fn loads_drafter(&self) -> bool {
        crate::settings::loads_drafter(
            self.draft_model.as_deref(),
            self.speculative_algorithm.as_deref(),
        )
    }

    /// "drafter loaded" as every face writes it: `yes`, `no`, `unknown`, or
    /// `n/a` for a server that loads no drafter.
    pub fn drafter_loaded_text(&self) -> &'static str {
        match self.drafter_loaded {
            Some(true) => "yes",
            Some(false) => "no",
            None if self.loads_drafter() => "unknown",
            None => "n/a",
        }
    }

    /// How often it restarted in its log, for renderers: `once`, `3 times`.
    pub fn restart_count(&self) -> String {
        match self.restarts {
            1 => "once".to_owned(),
            n => format!("{n} times"),
        }
    }

    /// How the earlier runs failed, for renderers: `; earlier runs failed:
    /// cuda-oom at vllm.log:16`, or nothing when none showed a failure.
    pub fn earlier_failures_note(&self) -> String {
        if self.earlier_failures.is_empty() {
            return String::new();
        }
        let failures: Vec<String> = self
            .earlier_failures
            .iter()
            .map(|f| {
                format!(
                    "{} at {}:{}",
                    f.kind, f.evidence.source, f.evidence.line_start
                )
            })
            .collect();
        format!("; earlier runs failed: {}", failures.join(", "))
    }
}

impl PhaseReport {
    pub fn phase_name(&self) -> &'static str {
        self.phase.name()
    }
}

#[cfg(test)]
mod tests {
    use super::Verdict;
    use crate::source::Source;

    const LOG: &str = "INFO 04-26 11:42:41 [api_server.py:1034] vLLM API server version 0.8.4\n\
INFO:     Started server process [7]\n\
INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n\
INFO:     Application startup complete.\n";

    #[test]
    fn a_call_that_kills_then_launches_is_two_steps() {
        let text = "[msg 1] assistant\n$ nvidia-smi\n[msg 2] assistant\n$ pkill -f vllm; sleep 2; nohup vllm serve m --port 8000 > v.log 2>&1 &\n[msg 3] assistant\n$ curl -s localhost:8000/v1/models\n";
        let report = crate::analyze(&[Source::new("t.txt", text)]);
        let steps: Vec<(usize, &str, u32)> = report
            .checkpoints
            .iter()
            .map(|c| (c.id, c.kind_name(), c.evidence.line_start))
            .collect();
        assert_eq!(
            steps,
            [
                (0, "verify", 2),
                (1, "kill", 4),
                (2, "launch", 4),
                (3, "verify", 6)
            ]
        );
        assert_eq!(report.servers[0].launch_checkpoint, Some(2));
        // A launch alone stays one step.
        let text = "[msg 1] assistant\n$ nohup vllm serve m --port 8000 > v.log 2>&1 &\n";
        let report = crate::analyze(&[Source::new("t.txt", text)]);
        assert_eq!(report.checkpoints.len(), 1);
    }

    /// A KoboldCpp launch without `--port` serves llama.cpp on KoboldCpp's
    /// 5001, said to be a default; its `--port` is a flag.
    #[test]
    fn koboldcpp_serves_on_its_own_default_port() {
        let port = |command: &str| {
            let text = format!("[msg 1] assistant\n$ {command}\n");
            let report = crate::analyze(&[Source::new("t.txt", &text)]);
            let server = &report.servers[0];
            (server.engine, server.port, server.port_source)
        };
        let (engine, found, source) =
            port("nohup ./koboldcpp-linux-x64 --model m.gguf --usecuda > k.log 2>&1 &");
        assert_eq!(engine.name(), "llama.cpp");
        assert_eq!(
            (found, source),
            (Some(5001), Some(crate::timeline::Provenance::EngineDefault))
        );
        let (_, found, source) =
            port("nohup ./koboldcpp-linux-x64 --model m.gguf --port 5000 > k.log 2>&1 &");
        assert_eq!(
            (found, source),
            (Some(5000), Some(crate::timeline::Provenance::Flag))
        );
    }

    fn summary(session: &str) -> super::Summary {
        let sources = [
            Source::new("session.txt", session),
            Source::new("server.log", LOG),
        ];
        crate::analyze(&sources).summary
    }

    /// A request to this machine's own address reaches the server launched
    /// here on every interface: it is that server's check, no new server.
    #[test]
    fn a_request_to_the_machines_address_reaches_a_server_on_every_interface() {
        let session = "OLLAMA_HOST=0.0.0.0:1234 ollama serve\n\
curl -X POST http://192.168.1.20:1234/api/generate -d '{\"model\": \"m\", \"prompt\": \"hi\"}'\n\
{\"model\":\"m\",\"response\":\"Hello\",\"done\":true}\n";
        let report = crate::analyze(&[Source::new("session.txt", session)]);
        let ports: Vec<Option<u16>> = report.servers.iter().map(|s| s.port).collect();
        assert_eq!(ports, [Some(1234)]);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
    }

    /// The server's own log says it is up, but the agent's request was
    /// refused and nothing since answered: no all-clear (checked and failed
    /// is not checked and passed).
    #[test]
    fn a_refused_check_of_a_server_known_from_its_log_is_no_all_clear() {
        let refused = "$ curl -v localhost:8000/v1/models\n\
* connect to 127.0.0.1 port 8000 failed: Connection refused\n\
curl: (7) Failed to connect to localhost port 8000 after 0 ms: Couldn't connect to server\n";
        let s = summary(refused);
        assert_eq!(s.verdict, Verdict::ServerFailed, "{}", s.headline);
        assert!(
            s.headline
                .contains("did not answer the agent's check of its port at session.txt:"),
            "{}",
            s.headline
        );

        let answered_later = format!(
            "{refused}$ curl -s localhost:8000/v1/models\n{{\"object\":\"list\",\"data\":[{{\"id\":\"m\",\"object\":\"model\"}}]}}\n"
        );
        let s = summary(&answered_later);
        assert_eq!(s.verdict, Verdict::AllClear, "{}", s.headline);
    }
}

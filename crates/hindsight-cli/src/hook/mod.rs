//! `hindsight hook AGENT`: the live guard, run by the agent itself at its
//! hook points, reading the event JSON on stdin.
//!
//! - After a tool ran (Claude Code's and Codex's `PostToolUse`, Claude
//!   Code's `PostToolBatch`, Gemini CLI's `AfterTool`), what is new in the
//!   transcript is condensed and the session analyzed again; when a launch,
//!   kill or build appeared, the agent is told, without being stopped, what
//!   is not yet verified for it and the command that would verify it.
//! - When the agent is about to stop (`Stop`, `SubagentStop`, Gemini CLI's
//!   `AfterAgent`) and its last message claims success (the core's
//!   [`hindsight_core::claims`]) while findings remain, the stop is refused
//!   with a reason listing each unverified check and its command, filled in
//!   with the real host, port and log path.
//!
//! Loops are guarded: a finding is named once in a refused stop, a prompt's
//! stop is refused at most `max_blocks` times (default 2), a stop the agent
//! makes while already continuing because of a stop hook is refused only
//! for findings not listed before, and once the guard lets the agent stop
//! with findings left it tells the user what is still unverified. Modes:
//! `warn` tells only the user, `nudge` also tells the agent after tools but
//! never refuses a stop, `block` (the default) does both.
//!
//! The guard fails open: a malformed event, a transcript it cannot read or
//! any other error exits 0 with nothing on stdout, and the reason goes to
//! `hook.log` in its state folder ([`state`]). Each agent's input and output
//! shapes are in its own module: [`claude_code`], [`codex`], [`gemini`].

mod claude_code;
mod codex;
mod gemini;
pub(crate) mod state;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ValueEnum;
use hindsight_core::claims::{Claim, claims};
use hindsight_core::report::{CheckpointReport, FindingReport};
use hindsight_core::{Report, Source};
use serde_json::Value;

use crate::config::{self, Mode, RuleArgs};
use crate::{EXIT_OK, Io};

/// How many times one prompt's stop is refused, unless configured.
pub(crate) const DEFAULT_MAX_BLOCKS: u32 = 2;

/// Rules whose findings are no check the agent left undone, so the guard
/// neither names them after a tool nor refuses a stop over them: an exposed
/// credential is for the user to rotate (`hindsight analyze` reports it).
const NOT_CHECKS: &[&str] = &["secret-exposed"];

/// The agents whose hooks the guard speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Agent {
    /// Claude Code (`~/.claude/settings.json` hooks, or the plugin).
    ClaudeCode,
    /// OpenAI Codex CLI (`~/.codex/hooks.json`).
    Codex,
    /// Gemini CLI (`~/.gemini/settings.json` hooks).
    Gemini,
}

impl Agent {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
        }
    }
}

#[derive(clap::Args, Debug)]
pub(crate) struct HookArgs {
    /// The agent whose hook event is on stdin.
    #[arg(value_enum)]
    agent: Agent,
    /// How to answer (over `[hook] mode` of hindsight.toml; default block).
    #[arg(long, value_enum)]
    mode: Option<Mode>,
    /// How many times one prompt's stop may be refused (over `[hook]
    /// max_blocks`; default 2).
    #[arg(long, value_name = "N")]
    max_blocks: Option<u32>,
    #[command(flatten)]
    rules: RuleArgs,
}

/// One agent event, whatever the agent.
#[derive(Debug)]
pub(crate) struct Input {
    /// The event's name as the agent gave it (answers repeat it).
    pub(crate) event: String,
    pub(crate) session: String,
    pub(crate) transcript: Option<PathBuf>,
    /// The agent's working folder: where `hindsight.toml` is looked for.
    pub(crate) cwd: Option<PathBuf>,
    pub(crate) kind: Kind,
}

#[derive(Debug)]
pub(crate) enum Kind {
    /// A tool ran.
    AfterTool,
    /// The agent is about to stop.
    Stop {
        /// What it last wrote, when the event carries it (the transcript
        /// file may not hold it yet).
        message: Option<String>,
        /// Whether it is already continuing because a stop hook refused.
        continuing: bool,
        /// The prompt (turn) this stop ends, when the agent names it.
        prompt: Option<String>,
    },
    /// An event the guard has nothing to say on.
    Other,
}

/// What the guard answers; each agent module writes it in its own shape.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Context for the agent, which goes on.
    Context(String),
    /// The stop refused, with the reason the agent is given.
    Block(String),
    /// A message for the user only.
    Tell(String),
}

/// Runs the hook: always exit 0, an answer on stdout or nothing.
pub(crate) fn run(args: &HookArgs, io: &mut Io<'_>) -> Result<u8> {
    let dir = state::dir(&io.env);
    let mut raw = Vec::new();
    let outcome = match (&dir, io.stdin.read_to_end(&mut raw)) {
        (Err(error), _) => Err(anyhow::anyhow!("{error:#}")),
        (_, Err(error)) => Err(anyhow::Error::from(error).context("cannot read the event")),
        (Ok(dir), Ok(_)) => {
            let current = io.current_dir.clone();
            // A panic in the analysis must not turn into an exit status the
            // agent reads as a refusal (Claude Code: 2 blocks).
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                guard(args, &raw, &current, dir)
            }))
            .unwrap_or_else(|_| Err(anyhow::anyhow!("internal error (panic)")))
        }
    };
    match outcome {
        Ok(Some(answer)) => {
            let mut text = answer.to_string();
            text.push('\n');
            // A closed pipe is the agent's business; the exit stays 0.
            let _ = io.stdout.write_all(text.as_bytes());
        }
        Ok(None) => {}
        Err(error) => {
            if let Ok(dir) = &dir {
                state::log(dir, &format!("{}: {error:#}", args.agent.name()));
            }
        }
    }
    Ok(EXIT_OK)
}

/// The fuzz target's way in: one event read as `pick` chooses the agent,
/// and the answers a stop would give, without the session's files.
pub(crate) fn fuzz_event(pick: u8, raw: &[u8]) {
    let Ok(value) = serde_json::from_slice::<Value>(raw) else {
        return;
    };
    let read = match pick % 3 {
        0 => claude_code::read(&value),
        1 => codex::read(&value),
        _ => gemini::read(&value),
    };
    if let Ok(input) = read {
        let _ = answer(&Answer::Block(input.event.clone()), &input, "");
        let _ = answer(&Answer::Tell(input.session.clone()), &input, "");
    }
}

/// Reads the event, brings the session up to date and decides.
fn guard(args: &HookArgs, raw: &[u8], current_dir: &Path, dir: &Path) -> Result<Option<Value>> {
    let value: Value = serde_json::from_slice(raw).context("the event is not JSON")?;
    let input = match args.agent {
        Agent::ClaudeCode => claude_code::read(&value),
        Agent::Codex => codex::read(&value),
        Agent::Gemini => gemini::read(&value),
    }?;
    if matches!(input.kind, Kind::Other) {
        return Ok(None);
    }
    let transcript = input
        .transcript
        .clone()
        .with_context(|| format!("{} names no transcript", input.event))?;
    let config_dir = input
        .cwd
        .clone()
        .unwrap_or_else(|| current_dir.to_path_buf());
    let (config, settings) = config::load_with_hook(&args.rules, &config_dir)?;
    let mode = args.mode.or(settings.mode).unwrap_or(Mode::Block);
    let max_blocks = args
        .max_blocks
        .or(settings.max_blocks)
        .unwrap_or(DEFAULT_MAX_BLOCKS);
    let key = session_key(args.agent, &input.session, &transcript);
    let session = state::Session::lock(dir, &key)?;
    let mut saved = session.load();
    if saved.version == 0 {
        // A session not seen before (or a state of another version).
        state::prune(dir, state::KEEP);
    }
    let read = session.refresh(&mut saved, &transcript)?;
    let name = transcript
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "transcript".to_owned());
    let lines = u32::try_from(read.text.lines().count()).unwrap_or(u32::MAX);
    if matches!(input.kind, Kind::AfterTool) && lines <= saved.analyzed_lines {
        // No line since the last look (another call of a parallel batch
        // already read it): no new launch, kill or build to speak of.
        session.save(&mut saved)?;
        return Ok(None);
    }
    let last_message = match &input.kind {
        Kind::Stop { message: None, .. } => match args.agent {
            Agent::ClaudeCode => claude_code::last_message(&read.text),
            Agent::Codex => codex::last_message(&read.text),
            Agent::Gemini => None,
        },
        _ => None,
    };
    let mut source = Source::new(name.clone(), read.text);
    source.format = Some(read.format);
    if read.condensed {
        source.condensed = Some(hindsight_core::source::Condensed {
            original_bytes: read.original_bytes,
            notes: Vec::new(),
        });
    }
    let mut report = hindsight_core::analyze_with(&[source], &config);
    report
        .findings
        .retain(|f| !NOT_CHECKS.contains(&f.rule.as_str()));
    let answer = decide(
        &mut saved,
        &report,
        &Seen {
            name: &name,
            lines,
            last_message,
        },
        &input.kind,
        mode,
        max_blocks,
    );
    session.save(&mut saved)?;
    Ok(answer.map(|answer| match args.agent {
        Agent::ClaudeCode => claude_code::write(&answer, &input),
        Agent::Codex => codex::write(&answer, &input),
        Agent::Gemini => gemini::write(&answer, &input),
    }))
}

/// The state file's name: the agent, the session id made safe for a file
/// name, and a hash of the transcript's path (a sub-agent's transcript is
/// a session of its own).
fn session_key(agent: Agent, session: &str, transcript: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let safe: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(64)
        .collect();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    transcript.hash(&mut hasher);
    format!("{}-{safe}-{:016x}", agent.name(), hasher.finish())
}

/// What the decision reads of the transcript besides the report.
struct Seen<'a> {
    /// The transcript's source name in the report.
    name: &'a str,
    /// Its line count now.
    lines: u32,
    /// Its last assistant message, when the event carried none.
    last_message: Option<String>,
}

/// A finding's identity across calls: its rule and where its evidence
/// starts (the launch, kill or build it is about), which later lines of a
/// growing transcript do not move.
fn finding_key(finding: &FindingReport) -> String {
    match finding.evidence.first() {
        Some(at) => format!("{}@{}:{}", finding.rule, at.source, at.line_start),
        None => format!("{}@{}", finding.rule, finding.message),
    }
}

/// The guard's decision for one event, updating what it remembers.
fn decide(
    saved: &mut state::State,
    report: &Report,
    seen: &Seen<'_>,
    kind: &Kind,
    mode: Mode,
    max_blocks: u32,
) -> Option<Answer> {
    let before = saved.analyzed_lines;
    saved.analyzed_lines = seen.lines;
    match kind {
        Kind::Other => None,
        Kind::AfterTool => {
            let new: Vec<&CheckpointReport> = report
                .checkpoints
                .iter()
                .filter(|c| c.evidence.source == seen.name && c.evidence.line_start > before)
                .filter(|c| matches!(c.kind_name(), "launch" | "kill" | "build"))
                .collect();
            if new.is_empty() {
                return None;
            }
            let lines: BTreeSet<u32> = new.iter().map(|c| c.evidence.line_start).collect();
            let ids: BTreeSet<usize> = new.iter().map(|c| c.id).collect();
            let about: Vec<&FindingReport> = report
                .findings
                .iter()
                .filter(|f| {
                    f.evidence
                        .iter()
                        .any(|e| e.source == seen.name && lines.contains(&e.line_start))
                        || f.server
                            .and_then(|s| report.servers.get(s))
                            .and_then(|s| s.launch_checkpoint)
                            .is_some_and(|id| ids.contains(&id))
                })
                .filter(|f| !saved.told.contains(&finding_key(f)))
                .collect();
            if about.is_empty() {
                return None;
            }
            saved.told.extend(about.iter().map(|f| finding_key(f)));
            let text = after_tool_text(&new, &about);
            Some(match mode {
                Mode::Warn => Answer::Tell(text),
                Mode::Nudge | Mode::Block => Answer::Context(text),
            })
        }
        Kind::Stop {
            message,
            continuing,
            prompt,
        } => {
            let message = message.clone().or_else(|| seen.last_message.clone());
            let claimed = message.as_deref().map(claims).unwrap_or_default();
            // A stop made while continuing because of a refusal is never a
            // new prompt, whatever the agent calls its turn: the count goes
            // on, so a refusal cannot restart its own budget.
            let new_prompt = !continuing
                && match prompt {
                    Some(prompt) => saved.prompt.as_ref() != Some(prompt),
                    None => true,
                };
            if new_prompt {
                saved.blocks = 0;
            }
            if prompt.is_some() {
                saved.prompt = prompt.clone();
            }
            if claimed.is_empty() || report.findings.is_empty() {
                return None;
            }
            let fresh: Vec<&FindingReport> = report
                .findings
                .iter()
                .filter(|f| !saved.blocked_on.contains(&finding_key(f)))
                .collect();
            if mode == Mode::Block && saved.blocks < max_blocks && !fresh.is_empty() {
                saved.blocks += 1;
                saved
                    .blocked_on
                    .extend(fresh.iter().map(|f| finding_key(f)));
                let earlier = report.findings.len() - fresh.len();
                return Some(Answer::Block(block_text(&claimed, &fresh, earlier)));
            }
            let untold: Vec<&FindingReport> = report
                .findings
                .iter()
                .filter(|f| !saved.told_user.contains(&finding_key(f)))
                .collect();
            if untold.is_empty() {
                return None;
            }
            saved
                .told_user
                .extend(untold.iter().map(|f| finding_key(f)));
            let why = if mode == Mode::Block && saved.blocks >= max_blocks {
                format!(
                    " (hindsight refused the stop {} time{} and lets it stop now)",
                    saved.blocks,
                    if saved.blocks == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            };
            Some(Answer::Tell(user_text(&claimed, &untold, &why)))
        }
    }
}

/// "the server is up and port 8000 is listening".
fn claimed_text(claimed: &[Claim]) -> String {
    let parts: Vec<String> = claimed.iter().map(|c| c.stated()).collect();
    match parts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// One finding as a numbered item: its rule and message, then the command.
fn item(number: usize, finding: &FindingReport) -> String {
    let mut text = format!("{number}. {}: {}", finding.rule, finding.message);
    if !finding.suggestion.is_empty() {
        text.push_str(&format!("\n   check: {}", finding.suggestion));
    }
    text
}

fn items(findings: &[&FindingReport]) -> String {
    findings
        .iter()
        .enumerate()
        .map(|(i, f)| item(i + 1, f))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a refused stop tells the agent.
pub(crate) fn block_text(claimed: &[Claim], fresh: &[&FindingReport], earlier: usize) -> String {
    let mut text = format!(
        "hindsight: you wrote that {}, but these checks are not done:\n{}",
        claimed_text(claimed),
        items(fresh)
    );
    if earlier > 0 {
        text.push_str(&format!(
            "\n({earlier} more, listed before, {} still unverified.)",
            if earlier == 1 { "is" } else { "are" }
        ));
    }
    text.push_str(
        "\nRun these checks and report what they show before you finish; \
         if one cannot be run, say plainly that it is not verified.",
    );
    text
}

/// What the user is told when the agent stops with findings left.
fn user_text(claimed: &[Claim], findings: &[&FindingReport], why: &str) -> String {
    format!(
        "hindsight: the agent says {}, but this is not verified{why}:\n{}",
        claimed_text(claimed),
        items(findings)
    )
}

/// What the agent is told after a tool call that launched, killed or built.
fn after_tool_text(new: &[&CheckpointReport], findings: &[&FindingReport]) -> String {
    let what: BTreeSet<&str> = new.iter().map(|c| c.kind_name()).collect();
    let what: Vec<&str> = what.into_iter().collect();
    format!(
        "hindsight: not yet verified after this {}:\n{}\nVerify these before you rely on them or report success.",
        what.join("/"),
        items(findings)
    )
}

/// A string field of an event, if it is one.
pub(crate) fn text_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The event's name; an event without one is malformed.
pub(crate) fn event_name(value: &Value) -> Result<String> {
    text_field(value, "hook_event_name").context("the event has no hook_event_name")
}

/// A stop event: the stopping message from the agent's own field for it,
/// and `stop_hook_active`, which all three agents name alike.
pub(crate) fn stop_kind(value: &Value, message_field: &str, prompt: Option<String>) -> Kind {
    Kind::Stop {
        message: text_field(value, message_field),
        continuing: value
            .get("stop_hook_active")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        prompt,
    }
}

/// The envelope every agent sends (`session_id`, `cwd`), around the event
/// and the transcript it is about (an empty path is none).
pub(crate) fn input(value: &Value, event: String, kind: Kind, transcript: Option<String>) -> Input {
    Input {
        session: text_field(value, "session_id").unwrap_or_default(),
        transcript: transcript.filter(|t| !t.is_empty()).map(Into::into),
        cwd: text_field(value, "cwd").map(Into::into),
        event,
        kind,
    }
}

/// One answer in the shape the three agents share: context for the model
/// under `hookSpecificOutput`, a refusal as `decision` (`refuse` is the
/// agent's word for it) with a reason, a note to the user as
/// `systemMessage`.
pub(crate) fn answer(answer: &Answer, input: &Input, refuse: &str) -> Value {
    match answer {
        Answer::Context(text) => serde_json::json!({
            "hookSpecificOutput": {
                "hookEventName": input.event,
                "additionalContext": text,
            }
        }),
        Answer::Block(reason) => serde_json::json!({"decision": refuse, "reason": reason}),
        Answer::Tell(text) => serde_json::json!({"systemMessage": text}),
    }
}

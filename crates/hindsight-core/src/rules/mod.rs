//! The rules: each flags an assumption the agent acted on without verifying.
//!
//! One file per rule, each declaring one [`Rule`] whose fields are the only
//! source of its documentation (the CLI's `rules` and `explain`, the web page
//! and `docs/rules.md` are all generated from them). Rules see only the
//! [`Timeline`]; they never read raw text.

mod build_unverified;
mod claim_without_evidence;
pub mod docs;
mod drafter_unconfirmed;
mod error_ignored;
mod filter_hid_output;
mod gpu_release_unverified;
mod load_taken_as_ready;
mod log_window_only;
mod other_model_answered;
mod port_unchecked;
mod process_taken_as_serving;
mod ranks_uncounted;
mod secret_exposed;

use serde::Serialize;

use crate::engine::Engine;
use crate::facts::observers;
use crate::parse::Role;
use crate::parse::Signal;
use crate::timeline::{Checkpoint, Outcome, Quote, Server, Timeline};

/// How much a finding matters.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl CheckStatus {
    pub fn name(self) -> &'static str {
        match self {
            CheckStatus::NotChecked => "not-checked",
            CheckStatus::Failed => "failed",
            CheckStatus::Inconclusive => "inconclusive",
        }
    }
}

impl Severity {
    /// Worst first: errors, then warnings, then infos.
    pub const WORST_FIRST: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Whether the check a finding is about was never made, made and failed, or
/// made with a result the transcript does not hold. ("Checked and passed"
/// produces no finding.)
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum CheckStatus {
    NotChecked,
    Failed,
    /// Checked, but the transcript lacks the result (aider keeps no output).
    Inconclusive,
}

/// A rule's declaration: identity, documentation and the check itself.
pub struct Rule {
    /// Stable kebab-case id; never renamed or reused.
    pub id: &'static str,
    /// One line, no trailing period.
    pub title: &'static str,
    pub severity: Severity,
    /// Why an operator cares (Markdown).
    pub why: &'static str,
    /// A short scenario that triggers the rule (Markdown).
    pub example: &'static str,
    /// What command would have verified it, in general terms (Markdown).
    pub check: &'static str,
    pub run: fn(&Timeline) -> Vec<Finding>,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("id", &self.id).finish()
    }
}

/// Every rule, in documentation order.
pub const ALL: &[&Rule] = &[
    &port_unchecked::RULE,
    &drafter_unconfirmed::RULE,
    &ranks_uncounted::RULE,
    &load_taken_as_ready::RULE,
    &process_taken_as_serving::RULE,
    &gpu_release_unverified::RULE,
    &log_window_only::RULE,
    &secret_exposed::RULE,
    &error_ignored::RULE,
    &filter_hid_output::RULE,
    &build_unverified::RULE,
    &claim_without_evidence::RULE,
    &other_model_answered::RULE,
];

/// Finds a rule by id.
pub fn find(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|rule| rule.id == id)
}

/// One unverified assumption, with the lines that show it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub status: CheckStatus,
    pub message: String,
    /// The lines that show it, most telling first.
    pub evidence: Vec<Quote>,
    /// The command that would have verified it.
    pub suggestion: String,
    pub server: Option<usize>,
}

/// Runs the rules the configuration enables, at its severities, and returns
/// their findings in a stable order.
pub fn run(timeline: &Timeline, config: &crate::Config) -> Vec<Finding> {
    let mut findings: Vec<Finding> = ALL
        .iter()
        .filter(|rule| config.enabled(rule.id))
        .flat_map(|rule| {
            // A rule may grade its own findings (a failed check is worse
            // than an unmade one); a configured severity replaces both.
            let severity = config.severity.get(rule.id).copied();
            (rule.run)(timeline).into_iter().map(move |mut finding| {
                finding.severity = severity.unwrap_or(finding.severity);
                finding
            })
        })
        .collect();
    findings.sort_by_key(|f| {
        (
            f.evidence.first().map(|q| (q.span.source, q.span.start)),
            ALL.iter().position(|r| r.id == f.rule),
        )
    });
    findings
}

// Helpers shared by rules.

/// Runs a per-server check over every server launched in the transcript.
fn each_launched_server(
    timeline: &Timeline,
    check: fn(&Timeline, &Server) -> Option<Finding>,
) -> Vec<Finding> {
    timeline
        .servers
        .iter()
        .filter(|s| s.launch.is_some())
        .filter_map(|server| check(timeline, server))
        .collect()
}

/// ` (msg 3136)` for messages, when the checkpoint has a message number.
fn at_message(checkpoint: &Checkpoint) -> String {
    checkpoint
        .message
        .map(|m| format!(" (msg {m})"))
        .unwrap_or_default()
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// ` (msg 3137)` for prose, when it has a message number.
fn at_prose(prose: &crate::timeline::Prose) -> String {
    prose
        .message
        .map(|m| format!(" (msg {m})"))
        .unwrap_or_default()
}

/// Whether the agent ever saw the server ready: the engine's readiness or
/// bind line, an answered request in its log, or a port check that passed.
fn readiness_seen(timeline: &Timeline, server: &Server) -> bool {
    let port = server.port();
    observers(timeline, server).any(|checkpoint| {
        checkpoint.seen.iter().any(|line| {
            matches!(
                line.log.signal,
                Some(
                    Signal::Ready { .. }
                        | Signal::Bound { .. }
                        | Signal::Request {
                            status: Some(200..=299)
                        }
                )
            )
        }) || checkpoint
            .port_checks
            .iter()
            .any(|check| check.outcome == Outcome::Passed && check.port == port)
    })
}

/// What the agent did after it stopped looking at a server: the first
/// assistant prose or unrelated action after its last look since `since`.
fn moved_on(timeline: &Timeline, server: &Server, since: &Checkpoint) -> Option<Quote> {
    let last = observers(timeline, server)
        .filter(|c| c.id >= since.id)
        .last()
        .unwrap_or(since);
    let source = last.span.source;
    let after = last.end();
    let prose = timeline
        .prose
        .iter()
        .filter(|p| p.span.source == source && p.span.start >= after)
        .find(|p| p.role == Role::Assistant)
        .map(|p| (p.span.start, p.quote()));
    let action = timeline
        .checkpoints
        .iter()
        .filter(|c| c.id > last.id && !server.observed_by.contains(&c.id))
        .find(|c| c.span.source == source)
        .map(|c| (c.span.start, c.command_quote()));
    match (prose, action) {
        (Some(p), Some(a)) => Some(if p.0 <= a.0 { p.1 } else { a.1 }),
        (p, a) => p.or(a).map(|(_, quote)| quote),
    }
}

/// The engine's readiness line, as a pattern for `grep -E`.
fn readiness_pattern(engine: Engine) -> &'static str {
    match engine {
        Engine::Sglang => "fired up and ready|Uvicorn running",
        Engine::Vllm => "Starting vLLM (API )?server|Application startup complete",
        Engine::Tgi => "Connected|Invalid hostname",
        Engine::LlamaCpp => "server is listening",
        Engine::Ollama => "Listening on",
        Engine::TensorrtLlm | Engine::Unknown => "Application startup complete|Uvicorn running",
    }
}

/// What the log given says about readiness, for messages.
fn log_on_readiness(server: &Server) -> String {
    match (server.ready(), server.log_source) {
        (Some(true), _) => {
            " The log given does show it ready later, but the agent never saw that.".to_owned()
        }
        (Some(false), _) => {
            let kind = server
                .lifecycle
                .failure
                .map_or("a failure", |(kind, _)| kind.name());
            format!(" The log given shows it failed ({kind}) instead.")
        }
        (None, Some(_)) => {
            let last = server
                .lifecycle
                .phases
                .last()
                .map_or("nothing", |p| p.kind.name());
            format!(" The log given stops after `{last}` with no readiness line.")
        }
        (None, None) => String::new(),
    }
}

/// The launch command as evidence, when the server was launched in the transcript.
fn launch_quote(timeline: &Timeline, server: &Server) -> Option<Quote> {
    server
        .launch
        .and_then(|id| timeline.checkpoints.get(id))
        .map(Checkpoint::command_quote)
}

/// A short name for a server in messages: `sglang on root@10.1.2.3:8000`.
fn describe(server: &Server) -> String {
    let mut text = match &server.program {
        Some(program) => format!("`{program}`"),
        None => server.engine.name().to_owned(),
    };
    text.push_str(" server");
    if let Some(host) = &server.host {
        text.push_str(" on ");
        text.push_str(host);
    }
    if let Some(port) = server.port() {
        text.push_str(&format!(" (port {port})"));
    }
    text
}

/// Where the launch happened, for messages: ` (msg 3131)` or ` (at 22:14:05)`.
fn launch_ref(timeline: &Timeline, server: &Server) -> String {
    let Some(launch) = server.launch.and_then(|id| timeline.checkpoints.get(id)) else {
        return String::new();
    };
    match (launch.message, &launch.time) {
        (Some(message), _) => format!(" (msg {message})"),
        (None, Some(time)) => format!(" (at {time})"),
        (None, None) => String::new(),
    }
}

/// Wraps a command to run on the server's host: `ssh HOST 'cmd'`.
fn on_host(host: Option<&str>, command: &str) -> String {
    match host {
        Some(host) => format!("ssh {host} {}", single_quote(command)),
        None => command.to_owned(),
    }
}

/// One request that shows whether a server answers: an inference engine's
/// model list, any other server's root page. Without a port (neither the
/// server's nor one the agent named), the listening ports come first and
/// the request says `PORT`, never a guessed number.
fn request_check(server: Option<&Server>, port: Option<u16>) -> String {
    let path = match server {
        Some(s) if s.engine == Engine::Unknown => "/",
        _ => "/v1/models",
    };
    match server.and_then(Server::port).or(port) {
        Some(port) => format!("curl -sS -m 5 http://127.0.0.1:{port}{path}"),
        None => format!("ss -ltnp; curl -sS -m 5 http://127.0.0.1:PORT{path}"),
    }
}

/// Quotes a string for a POSIX shell.
fn single_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The log path for suggestions, or a placeholder the user can recognise.
fn log_path_or_hint(server: &Server) -> String {
    server
        .log_path
        .clone()
        .unwrap_or_else(|| "<server log>".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_match_files() {
        let mut seen = std::collections::BTreeSet::new();
        for rule in ALL {
            assert!(seen.insert(rule.id), "duplicate id {}", rule.id);
            assert!(
                rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{} is not kebab-case",
                rule.id
            );
        }
        // That each id names its file is checked in `tests/tests/rules.rs`.
    }

    #[test]
    fn docs_are_complete() {
        for rule in ALL {
            assert!(
                !rule.title.is_empty() && rule.title.len() <= 80,
                "{}",
                rule.id
            );
            assert!(
                !rule.title.ends_with('.'),
                "{}: title ends with a period",
                rule.id
            );
            assert!(!rule.title.contains('\n'), "{}", rule.id);
            assert!(rule.why.len() > 40, "{}: why is too short", rule.id);
            assert!(rule.example.len() > 40, "{}: example is too short", rule.id);
            assert!(rule.check.len() > 10, "{}: check is too short", rule.id);
        }
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(
            on_host(Some("root@h"), "grep 'a' x"),
            r"ssh root@h 'grep '\''a'\'' x'"
        );
    }
}

//! `process-taken-as-serving`: a running process in a process list was taken
//! as a working server.

use super::{
    CheckStatus, Finding, Rule, Severity, describe, log_on_readiness, moved_on, observers, on_host,
    readiness_seen,
};
use crate::timeline::{Observation, Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "process-taken-as-serving",
    title: "A running process was taken as a working server",
    severity: Severity::Warning,
    why: "`ps` shows that a process exists, not that it serves. An inference \
server's process is alive while it loads weights, while it waits forever for a \
rank that died, while it is stuck in NCCL initialisation and after its HTTP \
server failed to bind. Only a listening port and an answered request show a \
working server.",
    example: "The agent runs `ps aux | grep sglang | grep -v grep | head -3`, sees \
one `python -m sglang.launch_server` line in state `Sl`, and reports the server \
as running.",
    check: "Send a real request to the port: \
`curl -sS -m 5 http://127.0.0.1:PORT/v1/models`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    super::each_launched_server(timeline, check)
}

/// Words that name the server's engine in a process list or its filter.
fn engine_words(server: &Server) -> &'static [&'static str] {
    match server.engine {
        crate::Engine::Sglang => &["sglang", "launch_server"],
        crate::Engine::Vllm => &["vllm"],
        crate::Engine::Tgi => &["text-generation"],
        crate::Engine::LlamaCpp => &["llama-server"],
        crate::Engine::Ollama => &["ollama"],
        crate::Engine::TensorrtLlm => &["trtllm", "mpirun"],
        crate::Engine::Unknown => &[],
    }
}

/// Whether an output line is a process row of the server: a `ps` row (its
/// second field a PID) that names the engine or model, or any row when the
/// agent's own `grep` already selected the engine's processes. `ps` cuts
/// long command lines, so the name itself may be gone.
fn is_server_row(line: &str, server: &Server, filtered_by_engine: bool) -> bool {
    let lower = line.to_ascii_lowercase();
    let mut fields = lower.split_whitespace();
    let pid = fields
        .nth(1)
        .is_some_and(|p| p.chars().all(|c| c.is_ascii_digit()));
    let grep_itself = lower.contains(" grep ") || lower.ends_with(" grep");
    let named = engine_words(server).iter().any(|w| lower.contains(w))
        || server
            .settings
            .model
            .as_deref()
            .is_some_and(|m| line.contains(m));
    pid && !grep_itself && (named || filtered_by_engine)
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    if readiness_seen(timeline, server) {
        return None;
    }
    let (checkpoint, process) = observers(timeline, server)
        .filter(|c| {
            c.observations
                .iter()
                .any(|o| matches!(o, Observation::Processes { .. }))
                || c.background && server.launch == Some(c.id)
        })
        .find_map(|checkpoint| {
            // A background shell polled by the agent's tool: its status
            // says the process runs (`<status>running</status>`).
            if checkpoint.background {
                return checkpoint
                    .seen
                    .iter()
                    .find(|line| line.text.trim() == "<status>running</status>")
                    .map(|line| (checkpoint, line));
            }
            let words = engine_words(server);
            let filtered_by_engine = checkpoint.commands.iter().any(|c| {
                matches!(c.program(), "grep" | "egrep" | "pgrep")
                    && c.argv[1..].iter().any(|a| {
                        !a.starts_with('-')
                            && words.iter().any(|w| a.to_ascii_lowercase().contains(w))
                    })
            });
            checkpoint
                .seen
                .iter()
                .find(|line| is_server_row(line.text, server, filtered_by_engine))
                .map(|line| (checkpoint, line))
        })?;
    let next = moved_on(timeline, server, checkpoint)?;
    let port = server.port().unwrap_or(0);
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::NotChecked,
        message: format!(
            "The agent saw the process of the {} alive{} and moved on without a port listening or a \
             request answered; a live process may still be loading, hung or unable to bind.{}",
            describe(server),
            super::at_message(checkpoint),
            log_on_readiness(server),
        ),
        evidence: vec![process.quote(), next],
        suggestion: on_host(
            server.host.as_deref(),
            &format!("curl -sS -m 5 http://127.0.0.1:{port}/v1/models"),
        ),
        server: Some(server.id),
    })
}

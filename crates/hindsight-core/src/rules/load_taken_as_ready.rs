//! `load-taken-as-ready`: the agent saw the weights finish loading and moved
//! on as if the server were ready, with no readiness line, bound port or
//! answered request in anything it saw.

use super::{
    CheckStatus, Finding, Rule, Severity, describe, log_on_readiness, log_path_or_hint, moved_on,
    observers, on_host, readiness_pattern, readiness_seen,
};
use crate::parse::Signal;
use crate::timeline::{Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "load-taken-as-ready",
    title: "Weights loaded was taken as server ready",
    severity: Severity::Warning,
    why: "`Loading safetensors checkpoint shards: 100%` is the middle of a start, \
not its end. After the weights an engine loads the draft model, allocates the KV \
cache, captures CUDA graphs, binds the HTTP port and runs a warm-up request; any \
of these can run out of memory, hang or crash. A server is ready when its engine \
says so (SGLang: `The server is fired up and ready to roll!`; vLLM: `Application \
startup complete.`) or when it answers a request.",
    example: "The agent tails the log, sees `100% Completed | 64/64 [00:34<00:00]`, \
and writes \"SGLang loaded all 64 shards in 34 seconds. The server is up\" before \
any readiness line appears.",
    check: "Look for the engine's readiness line and send one request: \
`grep -nE 'fired up and ready|Uvicorn running|Traceback' LOG | tail -5` and \
`curl -sS -m 5 http://127.0.0.1:PORT/health`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    super::each_launched_server(timeline, check)
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    if readiness_seen(timeline, server) {
        return None;
    }
    let (checkpoint, loaded) = observers(timeline, server).find_map(|checkpoint| {
        checkpoint
            .seen
            .iter()
            .find(|line| {
                matches!(
                    line.log.signal,
                    Some(
                        Signal::ShardProgress { percent: 100, .. }
                            | Signal::WeightsEnd { draft: false, .. }
                    )
                )
            })
            .map(|line| (checkpoint, line))
    })?;
    let next = moved_on(timeline, server, checkpoint)?;
    let port = server.port().unwrap_or(0);
    let log = log_path_or_hint(server);
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::NotChecked,
        message: format!(
            "The agent saw the weights of the {} finish loading{} and moved on without seeing it \
             ready: no readiness line, bound port or answered request.{}",
            describe(server),
            super::at_message(checkpoint),
            log_on_readiness(server),
        ),
        evidence: vec![loaded.quote(), next],
        suggestion: on_host(
            server.host.as_deref(),
            &format!(
                "grep -nE \"{}|Traceback|Error\" {log} | tail -5; curl -sS -m 5 http://127.0.0.1:{port}/health",
                readiness_pattern(server.engine)
            ),
        ),
        server: Some(server.id),
    })
}

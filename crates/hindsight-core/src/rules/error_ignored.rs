//! `error-ignored`: the agent saw a step fail and went on as if it had
//! worked. Three shapes, each judged from what the agent itself saw:
//! - a build or install failed, and the next step on that host stops or
//!   launches a server instead of fixing the build;
//! - a kill failed, and the next step launches a server (the old one may
//!   still hold the port and the GPUs);
//! - a server's failure (an out-of-memory error, a traceback, an engine's
//!   death, a refused connection, a health probe answered with an HTTP
//!   error) was in the agent's view, and what it
//!   wrote next says the server is up, loaded or progressing;
//! - a run of its own (a script, a test, a tool) died in an exception, and
//!   its next message celebrates ("Excellent, it's all in place");
//! - a job of its own (a test suite, a built binary) failed the last time
//!   it ran (a segfault, `5 TEST(S) FAILED`, `1 failing`), and its last word
//!   calls the work a success without owning the failure.
//!
//! Its documented example and fixtures are the first and third shapes.

use super::{CheckStatus, Finding, Rule, Severity, on_host};
use crate::facts::build::{build_line, build_verdict};
use crate::parse::{FailureKind, Role, Signal};
use crate::timeline::{Checkpoint, CheckpointKind, Outcome, Timeline, same_host};

pub(super) const RULE: Rule = Rule {
    id: "error-ignored",
    title: "An error the agent saw was followed by acting as if the step had worked",
    severity: Severity::Error,
    why: "A non-zero exit, `error:` or `Traceback` at the end of a build means the \
new kernel, wheel or binary was not installed, and the server launched next \
runs whatever was there before, or fails in a way that points away from the \
build. A kill that failed leaves the old server holding its port and GPUs. An \
out-of-memory error or a refused connection in the agent's own view means the \
server is down, whatever it writes next. Moving on from a failed step as if it \
had worked is how a day of debugging starts.",
    example: "`pip install -e . --no-build-isolation` ends with `error: command \
'/usr/local/cuda/bin/nvcc' failed with exit code 1` (exit code 1), and the \
agent's next command launches the server. Or its `tail` of the server log shows \
`torch.OutOfMemoryError: CUDA out of memory` and it writes \"weights loaded, \
still warming up\".",
    check: "Read the step's own result before moving on: its exit status (with \
`set -o pipefail` when piped through `tail`), the first error in its output, and \
for a server the whole log: `grep -nE 'Error|Traceback|out of memory' LOG | head`.",
    run,
};

/// Words of a kill that did not happen.
const KILL_FAILURES: &[&str] = &[
    "No such process",
    "no process found",
    "Operation not permitted",
    "not found",
    "Invalid argument",
    "cannot be killed",
    "is not running",
    "ERROR:",
    "Access is denied",
    // The shell rejected the command: nothing was killed (cmd.exe syntax in
    // Git Bash, a typo in a loop).
    "syntax error",
    "command not found",
    "is not recognized as",
];

/// What the agent writes when it takes a server to be progressing.
const PROGRESS_WORDS: &[&str] = &[
    "still loading",
    "still warming",
    "warming up",
    "still starting",
    "still initializing",
    "still initialising",
    "making progress",
    "progressing",
    "no errors",
    "looks good",
    "looks healthy",
    "loading fine",
    "going well",
    "on track",
];

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    for checkpoint in &timeline.checkpoints {
        if let Some(finding) = failed_build(timeline, checkpoint)
            .or_else(|| failed_kill(timeline, checkpoint))
            .or_else(|| failure_then_claim(timeline, checkpoint))
            .or_else(|| failed_run_then_success(timeline, checkpoint))
        {
            findings.push(finding);
        }
    }
    // The jobs left failed that one last word calls a success: one finding
    // per word, naming every such job.
    let open: Vec<_> = crate::facts::runs::open_failures(timeline)
        .into_iter()
        .filter(|o| o.celebrated)
        .filter(|o| {
            // A shape above may have told this run already.
            let span = timeline.checkpoints.get(o.checkpoint).map(|c| c.span);
            !findings
                .iter()
                .any(|f| f.evidence.first().map(|q| q.span) == span)
        })
        .collect();
    let mut words: Vec<usize> = open.iter().filter_map(|o| o.last_word).collect();
    words.sort_unstable();
    words.dedup();
    for word in words {
        let jobs: Vec<&crate::facts::runs::OpenFailure> =
            open.iter().filter(|o| o.last_word == Some(word)).collect();
        if let Some(finding) = failed_jobs_then_success(timeline, &jobs, word) {
            findings.push(finding);
        }
    }
    findings
}

/// Jobs of the agent's own failed the last time they ran, and its last word
/// calls the work a success without owning the failures ("The requested
/// working checkpoint is reached!" after a segfault and five failed tests).
fn failed_jobs_then_success(
    timeline: &Timeline,
    jobs: &[&crate::facts::runs::OpenFailure],
    word: usize,
) -> Option<Finding> {
    let prose = timeline.prose.get(word)?;
    let first = jobs.first()?;
    let step = timeline.checkpoints.get(first.checkpoint)?;
    let names: Vec<String> = jobs.iter().map(|j| format!("`{}`", j.job)).collect();
    let mut evidence = Vec::new();
    for job in jobs {
        if let Some(run) = timeline.checkpoints.get(job.checkpoint) {
            evidence.push(run.command_quote());
            evidence.push(job.failure.clone());
        }
    }
    evidence.push(prose.quote());
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::Failed,
        message: format!(
            "The last run of {}{} failed, and the agent's last word calls the work a \
             success.",
            super::and_list(&names),
            if jobs.len() == 1 {
                at(step)
            } else {
                String::new()
            },
        ),
        evidence,
        suggestion: on_host(
            step.host.as_deref(),
            "read the run's failures, fix them and run it again until it passes, or say \
             plainly that it still fails",
        ),
        server: None,
    })
}

/// The next action on the same host, in the same source.
fn next_action<'t>(timeline: &'t Timeline, step: &Checkpoint) -> Option<&'t Checkpoint> {
    timeline.checkpoints.iter().find(|c| {
        c.id > step.id
            && c.span.source == step.span.source
            && same_host(c.host.as_deref(), step.host.as_deref())
    })
}

fn at(c: &Checkpoint) -> String {
    c.message.map(|m| format!(" (msg {m})")).unwrap_or_default()
}

fn failed_build(timeline: &Timeline, build: &Checkpoint) -> Option<Finding> {
    if build.kind != CheckpointKind::Build {
        return None;
    }
    let error = failure(build)?;
    // A retry or fix is a build or a look; stopping or launching servers
    // means the failure was passed over.
    let next = next_action(timeline, build)?;
    if !matches!(next.kind, CheckpointKind::Kill | CheckpointKind::Launch) {
        return None;
    }
    let mut evidence = vec![build.command_quote()];
    evidence.extend(error);
    evidence.push(next.command_quote());
    let how = match build.exit_code {
        Some(code) if code != 0 => format!("exited with code {code}"),
        _ => "printed an error".to_owned(),
    };
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::Failed,
        message: format!(
            "A build{} {how}, and the agent's next step{} was to {} a server instead of \
             fixing or re-checking the build.",
            at(build),
            at(next),
            if next.kind == CheckpointKind::Kill {
                "stop"
            } else {
                "launch"
            },
        ),
        evidence,
        // Re-run it so the pipeline's status is the build's, not `tail`'s.
        suggestion: on_host(
            build.host.as_deref(),
            &format!("set -o pipefail; {}; echo \"exit code: $?\"", build.command),
        ),
        server: None,
    })
}

/// The evidence that a build failed: its exit code, or the build tool's
/// error line when that is the last word of its output (an error line
/// followed by pip's success line was no failure).
fn failure(build: &Checkpoint) -> Option<Option<crate::timeline::Quote>> {
    let line = build
        .seen
        .iter()
        .rev()
        .find(|l| build_line(l) == Some(false))
        .map(crate::timeline::SeenLine::quote);
    let error_last = matches!(build_verdict(build), Some((_, false)));
    (build.exited_badly() || error_last).then_some(line)
}

fn failed_kill(timeline: &Timeline, kill: &Checkpoint) -> Option<Finding> {
    if kill.kind != CheckpointKind::Kill {
        return None;
    }
    // `pkill` finding nothing exits 1 and is routine before a launch; a
    // kill that says it could not act is not.
    let line = kill
        .seen
        .iter()
        .find(|l| KILL_FAILURES.iter().any(|m| l.text.contains(m)))?;
    // Steps that neither look nor act on a server (clearing a cache, `cd`,
    // `sleep`) come between a failed kill and the launch it was for.
    let next = timeline.checkpoints.iter().find(|c| {
        c.id > kill.id
            && c.span.source == kill.span.source
            && same_host(c.host.as_deref(), kill.host.as_deref())
            && !matches!(c.kind, CheckpointKind::Other | CheckpointKind::Wait)
    })?;
    if next.kind != CheckpointKind::Launch {
        return None;
    }
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::Failed,
        message: format!(
            "A kill{} did not go through (its output says so), and the agent's next step{} \
             launched a server: the old process may still hold the port and the GPUs.",
            at(kill),
            at(next),
        ),
        evidence: vec![kill.command_quote(), line.quote(), next.command_quote()],
        suggestion: on_host(
            kill.host.as_deref(),
            "ps aux | grep -v grep | grep -E 'vllm|sglang|python|node|uvicorn'; ss -ltnp",
        ),
        server: None,
    })
}

/// A failure in the agent's view, then prose that takes the server to be
/// fine: up, loaded or progressing.
fn failure_then_claim(timeline: &Timeline, step: &Checkpoint) -> Option<Finding> {
    let failure = failure_seen(step, |kind| {
        matches!(
            kind,
            FailureKind::OutOfMemory
                | FailureKind::Nccl
                | FailureKind::AddressInUse
                | FailureKind::EngineDied
                | FailureKind::Killed
                | FailureKind::Exception
        )
    })
    .or_else(|| {
        // A request refused or timed out: the server does not answer.
        step.port_checks
            .iter()
            .find(|c| c.request && c.outcome == Outcome::Failed)
            .and_then(|c| c.line.clone())
    })
    .or_else(|| {
        // A health or readiness probe answered with an HTTP error (`curl
        // -s /health` printing `{"detail":"Not Found"}`): the server
        // listens, but the check it was asked failed, and an
        // orchestrator's health check asking the same fails too.
        step.port_checks
            .iter()
            .find(|c| c.request && c.error_status.is_some() && health_probe(step))
            .and_then(|c| c.line.clone())
    })
    .or_else(|| {
        // Stopping a background shell found it already ended in failure
        // (`Shell d5cc44 is not running, so cannot be killed (status:
        // failed)`): the server run in it had died.
        step.seen
            .iter()
            .find(|l| crate::timeline::ended_shell_status(l.text) == Some("failed"))
            .map(crate::timeline::SeenLine::quote)
    })
    .or_else(|| {
        // A launch that failed on its own (`docker compose up` exits 1:
        // the daemon is gone): the server never started.
        (step.kind == CheckpointKind::Launch && !step.background && step.exited_badly())
            .then(|| step.output_quote())
            .flatten()
    })?;
    // Only a step about a server: a launch, a look at one, a request.
    let server = server_of(timeline, step)?;
    let source = step.span.source;
    let after = step.end();
    // The agent's next words, before its next action.
    let next_action_start = timeline
        .checkpoints
        .iter()
        .find(|c| c.id > step.id && c.span.source == source)
        .map_or(usize::MAX, |c| c.span.start);
    // What the agent wrote before its next action, in order: a message that
    // names the failure read it, but a later one may still take the server
    // to be fine ("the daemon looks disconnected; I will tidy up and sum
    // up" … "All set! The backend now runs"); a message that hedges or
    // investigates ends the search.
    let mut prose = None;
    for p in timeline.prose.iter().filter(|p| {
        p.role == Role::Assistant
            && p.span.source == source
            && p.span.start >= after
            && p.span.start < next_action_start
    }) {
        match reading(&p.said) {
            Reading::NamesFailure => continue,
            Reading::Hedges => break,
            Reading::Fine => {
                prose = Some(p);
                break;
            }
        }
    }
    let prose = prose?;
    let check = match (server.log_path.as_deref(), server.port()) {
        (Some(log), _) => format!("grep -nE 'Error|Traceback|out of memory' {log} | head -20"),
        (None, Some(port)) => super::request_check(Some(server), Some(port)),
        (None, None) => "read the failing step's whole output before going on".to_owned(),
    };
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::Failed,
        message: format!(
            "What the agent saw{} shows the server failing, and what it wrote next takes the \
             server to be fine.",
            at(step),
        ),
        evidence: vec![step.command_quote(), failure, prose.quote()],
        suggestion: on_host(step.host.as_deref(), &check),
        server: Some(server.id),
    })
}

/// The server a step launched or looked at, if any.
fn server_of<'t>(timeline: &'t Timeline, step: &Checkpoint) -> Option<&'t crate::timeline::Server> {
    timeline
        .servers
        .iter()
        .find(|s| s.observed_by.contains(&step.id) || s.launch == Some(step.id))
}

/// The first line of the step's output whose failure is of a kind `wanted`.
fn failure_seen(
    step: &Checkpoint,
    wanted: impl Fn(FailureKind) -> bool,
) -> Option<crate::timeline::Quote> {
    step.seen
        .iter()
        .find(|l| matches!(l.log.signal, Some(Signal::Failure { kind, .. }) if wanted(kind)))
        .map(crate::timeline::SeenLine::quote)
}

/// A run of the agent's own (a script, a test, a tool: no server) died in
/// a Python exception with a non-zero exit, and the agent's next message,
/// with at most a couple of looks in between and no second run, celebrates
/// ("Excellent, it's all in place", "ALL DONE!") without a word of the
/// failure.
fn failed_run_then_success(timeline: &Timeline, step: &Checkpoint) -> Option<Finding> {
    if !matches!(step.kind, CheckpointKind::Verify | CheckpointKind::Other)
        || step.background
        || !step.exited_badly()
        || server_of(timeline, step).is_some()
    {
        return None;
    }
    let failure = failure_seen(step, |kind| {
        matches!(kind, FailureKind::Exception | FailureKind::OutOfMemory)
    })?;
    let source = step.span.source;
    // The program and its first argument (`python3 run.py`).
    fn program(c: &Checkpoint) -> Option<&[String]> {
        c.commands.last().map(|c| &c.argv[..c.argv.len().min(2)])
    }
    let ran = program(step);
    // Up to two looks may come between; a second run of the same program,
    // or any other kind of step, ends the search.
    let until = timeline
        .checkpoints
        .iter()
        .filter(|c| c.id > step.id && c.span.source == source)
        .take(3)
        .enumerate()
        .find(|(i, c)| *i == 2 || c.kind != CheckpointKind::Verify || program(c) == ran)
        .map_or(usize::MAX, |(_, c)| c.span.start);
    let after = step.end();
    let prose = timeline.prose.iter().find(|p| {
        p.role == Role::Assistant
            && p.span.source == source
            && p.span.start >= after
            && p.span.start < until
    })?;
    let lower = prose.said.to_lowercase();
    let head: String = lower.chars().take(60).collect();
    if !crate::facts::runs::celebrates(&head)
        || matches!(reading(&prose.said), Reading::NamesFailure)
    {
        return None;
    }
    let doubts = [
        "?", "but", "however", "except", "although", "missing", "not ",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if doubts {
        return None;
    }
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::Failed,
        message: format!(
            "A run the agent made{} ended in an exception, and what it wrote next says the work \
             succeeded.",
            at(step),
        ),
        evidence: vec![step.command_quote(), failure, prose.quote()],
        suggestion: on_host(
            step.host.as_deref(),
            "read the run's last lines and exit status, fix the failure, and run it again \
             before calling it done",
        ),
        server: None,
    })
}

/// Whether the step asks a server whether it is healthy or ready (its URL's
/// path names health, readiness or liveness), rather than for a route of the
/// app that may well not exist yet.
fn health_probe(step: &Checkpoint) -> bool {
    step.observations.iter().any(|o| match o {
        crate::timeline::Observation::Http { url, .. } => {
            let path = crate::engine::url_path(url).to_ascii_lowercase();
            ["health", "ready", "readiness", "live", "ping"]
                .iter()
                .any(|w| path.contains(w))
        }
        _ => false,
    })
}

/// What a message after a failure makes of the server.
enum Reading {
    /// It names the failure: read, not ignored.
    NamesFailure,
    /// It hedges, investigates, or claims nothing.
    Hedges,
    /// It takes the server to be fine: up, loaded or progressing.
    Fine,
}

fn reading(said: &str) -> Reading {
    let lower = said.to_ascii_lowercase();
    // Naming the failure is reading it, not ignoring it.
    let names_failure = [
        "error",
        "fail",
        "oom",
        "out of memory",
        "refused",
        "crash",
        "traceback",
        "died",
        "dead",
        "not running",
        "isn't running",
        "not up",
        "disconnected",
        "cannot connect",
        "can't connect",
        "could not connect",
        "unreachable",
        "is down",
        "went down",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if names_failure {
        return Reading::NamesFailure;
    }
    // "Maybe it is still starting; checking" investigates, it does not
    // take the server to be fine.
    let doubts = [
        "maybe",
        "might",
        "perhaps",
        "probably",
        "check",
        "look",
        "let me",
        "?",
        "seems",
        "not sure",
        "investigat",
        "why",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let claims_fine = !crate::claims::claims(said).is_empty()
        || !doubts && PROGRESS_WORDS.iter().any(|w| lower.contains(w));
    if claims_fine {
        Reading::Fine
    } else {
        Reading::Hedges
    }
}

#[cfg(test)]
mod tests {
    use crate::{Source, analyze};

    fn fired(text: &str) -> bool {
        analyze(&[Source::new("t.txt", text)])
            .findings
            .iter()
            .any(|f| f.rule == "error-ignored")
    }

    /// A Claude Code session: the script the agent changed dies on import,
    /// it reads the script's argument parser, then says all is in place.
    #[test]
    fn a_run_that_died_then_a_celebration() {
        let run = "● Bash(python3 src/scripts/run_eval.py --help)\n  ⎿  Error: Exit code 1\n     Traceback (most recent call last):\n       File \"src/scripts/run_eval.py\", line 30, in <module>\n         import torch\n     ModuleNotFoundError: No module named 'torch'\n\n● Bash(grep -A 20 \"parser = argparse.ArgumentParser\" src/scripts/run_eval.py)\n  ⎿      parser = argparse.ArgumentParser(\n\n";
        assert!(fired(&format!(
            "{run}● Excellent, it's all in place. The evaluation scripts are ready.\n"
        )));
        // Naming the failure, or running it again, is reading it.
        assert!(!fired(&format!(
            "{run}● Excellent: the parser is fine, but torch is missing in this env, so the script fails on import.\n"
        )));
        assert!(!fired(&format!(
            "{run}● Bash(python3 src/scripts/run_eval.py --help)\n  ⎿  usage: run_eval.py [-h]\n\n● Perfect, it runs now.\n"
        )));
    }

    /// A test suite's last run failed (a segfault in one binary, five
    /// failed tests in the other) and the agent's summary declares the
    /// checkpoint reached; owning the failures, or a passing rerun, is not
    /// ignoring them.
    #[test]
    fn a_failed_job_then_a_summary_of_success() {
        let runs = "● Bash(./tests/backend_tests)\n  ⎿  Error: /bin/bash: line 1: 47003 Segmentation fault      (core dumped) ./tests/backend_tests\n\n● Bash(./tests/unified_tests)\n  ⎿  Error: Running unified tests...\n     5 TEST(S) FAILED\n\n● Some of them fail; I'll look at the addition test.\n\n● Read(src/cpu.c)\n  ⎿  Read 80 lines\n\n";
        let celebrated = format!(
            "{runs}● ## Summary\n\n  The working checkpoint is reached! \u{2705} Both test suites execute successfully.\n"
        );
        assert!(fired(&celebrated));
        // One last word ignoring two failed jobs is one finding naming both.
        let found: Vec<_> = analyze(&[Source::new("t.txt", &celebrated)])
            .findings
            .into_iter()
            .filter(|f| f.rule == "error-ignored")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].message.contains("backend_tests")
                && found[0].message.contains("unified_tests"),
            "{}",
            found[0].message
        );
        assert!(!fired(&format!(
            "{runs}● ## Summary\n\n  The library builds, but backend_tests still crashes and 5 unified tests fail; this is not a working checkpoint yet.\n"
        )));
        assert!(!fired(&format!(
            "{runs}● Bash(./tests/backend_tests)\n  ⎿  All 12 tests passed\n\n● Bash(./tests/unified_tests)\n  ⎿  0 TEST(S) FAILED\n\n● Perfect, everything works now.\n"
        )));
    }
}

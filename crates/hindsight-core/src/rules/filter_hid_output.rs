//! `filter-hid-output`: the agent's own `grep -v` emptied an output and the
//! agent took the empty output as a result.

use super::{CheckStatus, Finding, Rule, Severity, on_host};
use crate::parse::Role;
use crate::timeline::{Checkpoint, Observation, Quote, Timeline, Window};

pub(super) const RULE: Rule = Rule {
    id: "filter-hid-output",
    title: "The agent's own filter emptied an output it then relied on",
    severity: Severity::Warning,
    why: "`tail -5 server.log | grep -v 'Loading safetensors'` printing nothing \
does not mean nothing happened: it means every line in the window matched the \
filter. Read as \"no news\" or \"no errors\", the empty output hides exactly \
what the window showed (here: loading still in progress).",
    example: "The agent runs `tail -5 x.log | grep -v \"Loading safetensors\"`, \
gets no output, and writes \"the log is quiet, the server should be up\".",
    check: "Look at the same window without the filter: `tail -n 20 LOG`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    for checkpoint in &timeline.checkpoints {
        if !checkpoint.seen.is_empty() {
            continue;
        }
        let Some((path, window)) = filtered_read(checkpoint) else {
            continue;
        };
        // Reading the same file again next (unfiltered or otherwise) is
        // looking closer, not relying on the emptiness.
        let next_action = timeline
            .checkpoints
            .iter()
            .find(|c| c.id > checkpoint.id && c.span.source == checkpoint.span.source);
        if next_action.is_some_and(|c| c.reads(&path).is_some()) {
            continue;
        }
        let Some(next) = next_step(timeline, checkpoint) else {
            continue;
        };
        let lines = match window {
            Window::Tail(n) | Window::Head(n) => n.max(20),
            _ => 20,
        };
        findings.push(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            status: CheckStatus::NotChecked,
            message: format!(
                "The agent's own `grep -v` left the read of {path}{} empty, and it moved on \
                 without looking at the window unfiltered; empty here means every line matched \
                 the filter.",
                super::at_message(checkpoint),
            ),
            evidence: vec![checkpoint.command_quote(), next.quote()],
            suggestion: on_host(
                checkpoint.host.as_deref(),
                &format!("tail -n {lines} {path}"),
            ),
            server: None,
        });
    }
    findings
}

/// A file read whose output went through an inverted `grep`.
fn filtered_read(checkpoint: &Checkpoint) -> Option<(String, Window)> {
    let inverted = checkpoint.commands.iter().any(|c| {
        c.piped_from_previous
            && matches!(c.program(), "grep" | "egrep")
            && c.argv[1..]
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('v'))
    });
    if !inverted {
        return None;
    }
    checkpoint.observations.iter().find_map(|o| match o {
        Observation::FileRead { path, window } if !matches!(window, Window::Grep { .. }) => {
            Some((path.clone(), window.clone()))
        }
        _ => None,
    })
}

enum Next<'t> {
    Action(&'t Checkpoint),
    Prose(Quote),
}

impl Next<'_> {
    fn quote(&self) -> Quote {
        match self {
            Next::Action(c) => c.command_quote(),
            Next::Prose(q) => q.clone(),
        }
    }
}

/// The agent's next prose or action after a checkpoint, in the same source.
fn next_step<'t>(timeline: &'t Timeline, checkpoint: &Checkpoint) -> Option<Next<'t>> {
    let source = checkpoint.span.source;
    let after = checkpoint.span.end;
    let prose = timeline
        .prose
        .iter()
        .find(|p| p.span.source == source && p.span.start >= after && p.role == Role::Assistant);
    let action = timeline
        .checkpoints
        .iter()
        .find(|c| c.id > checkpoint.id && c.span.source == source);
    match (prose, action) {
        (Some(p), Some(a)) if p.span.start < a.span.start => Some(Next::Prose(p.quote())),
        (_, Some(a)) => Some(Next::Action(a)),
        (Some(p), None) => Some(Next::Prose(p.quote())),
        (None, None) => None,
    }
}

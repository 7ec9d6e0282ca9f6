//! `error-ignored`: a build or install failed in output the agent saw, and
//! the agent went straight on to stopping or launching servers.

use super::build_unverified::{build_line, build_verdict};
use super::{CheckStatus, Finding, Rule, Severity, on_host};
use crate::timeline::{Checkpoint, CheckpointKind, Timeline, same_host};

pub(super) const RULE: Rule = Rule {
    id: "error-ignored",
    title: "A failed build was followed by a launch, not a fix",
    severity: Severity::Error,
    why: "A non-zero exit, `error:` or `Traceback` at the end of a build means the \
new kernel, wheel or binary was not installed, and the server launched next \
runs whatever was there before, or fails in a way that points away from the \
build. Moving on from a failed step as if it had worked is how a day of \
debugging starts.",
    example: "`pip install -e . --no-build-isolation` ends with `error: command \
'/usr/local/cuda/bin/nvcc' failed with exit code 1` (exit code 1), and the \
agent's next command launches the server.",
    check: "Read the build's own result before moving on: its exit status (with \
`set -o pipefail` when piped through `tail`), the first error in its output, and \
whether the artifact exists: `pip show PACKAGE && python -c 'import PACKAGE'`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    for build in timeline
        .checkpoints
        .iter()
        .filter(|c| c.kind == CheckpointKind::Build)
    {
        let Some(error) = failure(build) else {
            continue;
        };
        // The next action on the same host: a retry or fix is a build or a
        // look; stopping or launching servers means the failure was passed over.
        let Some(next) = timeline.checkpoints.iter().find(|c| {
            c.id > build.id
                && c.span.source == build.span.source
                && same_host(c.host.as_deref(), build.host.as_deref())
        }) else {
            continue;
        };
        if !matches!(next.kind, CheckpointKind::Kill | CheckpointKind::Launch) {
            continue;
        }
        let mut evidence = vec![build.command_quote()];
        evidence.extend(error);
        evidence.push(next.command_quote());
        let at = |c: &Checkpoint| c.message.map(|m| format!(" (msg {m})")).unwrap_or_default();
        let how = match build.exit_code {
            Some(code) if code != 0 => format!("exited with code {code}"),
            _ => "printed an error".to_owned(),
        };
        findings.push(Finding {
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
        });
    }
    findings
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
    let exited_badly = build.exit_code.is_some_and(|c| c != 0) || build.is_error;
    let error_last = matches!(build_verdict(build), Some((_, false)));
    (exited_badly || error_last).then_some(line)
}

//! `build-unverified`: a build or install whose product was never checked
//! before the agent moved on to the servers that use it.

use super::{CheckStatus, Finding, Rule, Severity, on_host};
use crate::facts::build::builds_from_source;
use crate::facts::ledger::{self, LedgerStatus};
use crate::timeline::{Checkpoint, CheckpointKind, Timeline, same_host};

pub(super) const RULE: Rule = Rule {
    id: "build-unverified",
    title: "A build's product was never checked before it was used",
    severity: Severity::Warning,
    why: "A build that printed no error has not necessarily produced what the \
next step loads: editable installs that compile nothing, a wheel built for the \
wrong CUDA architecture, an extension that fails to import until torch is \
loaded first. Importing the module, listing the built `.so` or printing the \
version takes seconds; discovering it from a server crash takes much longer.",
    example: "`pip install -e . --no-build-isolation` in `sgl-kernel` ends with \
`Successfully installed sgl-kernel`, but no `.so` was built; the agent launches \
the server next without `python -c 'import sgl_kernel'`.",
    check: "Import what was built, or list it: `python -c 'import PACKAGE; \
print(PACKAGE.__file__)'`, `find BUILD_DIR -name '*.so'`, `TOOL --version`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    for build in &timeline.checkpoints {
        let Some(at) = build.commands.iter().position(builds_from_source) else {
            continue;
        };
        // Everything up to the next launch (or the end) that ran on the host.
        let later: Vec<&Checkpoint> = timeline
            .checkpoints
            .iter()
            .filter(|c| c.id > build.id && c.span.source == build.span.source)
            .filter(|c| same_host(c.host.as_deref(), build.host.as_deref()))
            .take_while(|c| c.kind != CheckpointKind::Launch)
            .collect();
        // A later build replaces this one: its own checks are what count.
        if later
            .iter()
            .any(|c| c.commands.iter().any(builds_from_source))
        {
            continue;
        }
        // A failed build is `error-ignored`'s business, not this rule's.
        if build.exited_badly() {
            continue;
        }
        // Checked (passing or not) is the ledger's business; this rule is
        // about a product nobody looked at.
        if ledger::product_checked(timeline, build, at).status != LedgerStatus::NotChecked {
            continue;
        }
        // Only a build that something then used: a launch after it.
        let Some(launch) = timeline.checkpoints.iter().find(|c| {
            c.id > build.id
                && c.kind == CheckpointKind::Launch
                && c.span.source == build.span.source
                && same_host(c.host.as_deref(), build.host.as_deref())
        }) else {
            continue;
        };
        let at_msg = |c: &Checkpoint| super::at_message(c);
        findings.push(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            status: CheckStatus::NotChecked,
            message: format!(
                "A build from source{} was followed by a launch{} with nothing in between that \
                 imports, lists or runs what it built.",
                at_msg(build),
                at_msg(launch),
            ),
            evidence: vec![build.command_quote(), launch.command_quote()],
            suggestion: on_host(build.host.as_deref(), &suggestion(build, at)),
            server: None,
        });
    }
    findings
}

/// An import of what was built, named after the directory the build ran in
/// (`cd sgl-kernel && pip install .` → `sgl_kernel`), when the command says.
fn suggestion(build: &Checkpoint, at: usize) -> String {
    let package = build.commands[..at]
        .iter()
        .rev()
        .find(|c| c.program() == "cd")
        .and_then(|c| c.argv.get(1))
        .and_then(|dir| dir.trim_end_matches('/').rsplit('/').next())
        .filter(|name| !name.is_empty() && *name != "~" && *name != ".")
        .map(|name| name.replace('-', "_"));
    match package {
        Some(package) => format!(
            "python -c 'import {package}; print({package}.__file__)' && pip show {}",
            package.replace('_', "-")
        ),
        None => {
            "python -c 'import PACKAGE; print(PACKAGE.__file__)' && pip show PACKAGE".to_owned()
        }
    }
}

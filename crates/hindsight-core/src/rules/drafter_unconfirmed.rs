//! `drafter-unconfirmed`: a speculative draft model was configured, and
//! nothing the agent saw shows it loaded.

use super::{
    CheckStatus, Finding, Rule, Severity, describe, launch_quote, launch_ref, log_path_or_hint,
    observers, on_host,
};
use crate::parse::Signal;
use crate::timeline::{Quote, SeenLine, Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "drafter-unconfirmed",
    title: "Speculative draft model configured, but never seen loaded",
    severity: Severity::Warning,
    why: "With speculative decoding the engine loads a second, small model (EAGLE, \
EAGLE-3, MTP) after the target weights. The target loading to 100% says nothing \
about the drafter: a wrong path, an architecture the engine does not know, or a \
draft model that silently falls back leaves the server slower than without \
speculation. SGLang confirms the drafter with a second `Load weight end` whose \
type is a draft architecture and with `Capture draft cuda graph end`; at run \
time `accept len` above 1 shows it working.",
    example: "The launch passes `--speculative-algorithm EAGLE3 \
--speculative-draft-model-path /data/drafter`; the agent's last look at the log \
shows `Loading safetensors checkpoint shards: 100% Completed | 64/64` for the \
target and it declares the migration done.",
    check: "Search the whole log for the drafter's load and graph lines: \
`grep -nE 'Load weight end.*type=\\w*(Eagle|MTP|NextN)|Capture draft cuda graph end|accept len' LOG`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    timeline
        .servers
        .iter()
        .filter(|s| s.launch.is_some() && s.settings.is_speculative())
        .filter_map(|server| check(timeline, server))
        .collect()
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    let launch = launch_quote(timeline, server)?;
    let mut last_seen = None;
    for checkpoint in observers(timeline, server) {
        for line in &checkpoint.seen {
            let confirms = matches!(
                line.log.signal,
                Some(
                    Signal::WeightsEnd { draft: true, .. }
                        | Signal::CudaGraphEnd { draft: true }
                        | Signal::DraftAccepting
                )
            );
            if confirms {
                return None;
            }
        }
        // The last log line the agent saw: what it based its belief on.
        last_seen = checkpoint
            .seen
            .iter()
            .rev()
            .find(|l| l.log.signal.is_some() || l.log.time.is_some())
            .map(SeenLine::quote)
            .or_else(|| Some(checkpoint.command_quote()));
    }

    let what = match (
        &server.settings.speculative_algorithm,
        &server.settings.draft_model,
    ) {
        (Some(algorithm), Some(model)) => format!("{algorithm} drafter {model}"),
        (None, Some(model)) => format!("draft model {model}"),
        (Some(algorithm), None) => format!("{algorithm} speculative head"),
        (None, None) => "draft model".to_owned(),
    };
    let mut evidence = vec![launch];
    evidence.extend(last_seen);
    // A server that failed with no drafter line never had a working
    // drafter, whether or not it got as far as loading one (the report's
    // `drafter_loaded` says false only when it did).
    let failed_first = server.drafter_loaded() != Some(true) && server.lifecycle.failure.is_some();
    let log_says = match server.drafter_loaded() {
        Some(true) => {
            if let Some(phase) = server
                .lifecycle
                .phases
                .iter()
                .find(|p| p.kind == crate::timeline::PhaseKind::DrafterLoaded)
            {
                evidence.push(phase.span.into());
            }
            " The log does show it loaded, but the agent never looked."
        }
        _ if failed_first => " The log shows the server failing before the drafter loaded.",
        None if server.log_source.is_some() => {
            evidence.extend(server.lifecycle.last_line.map(Quote::from));
            " The log given ends with no drafter line either."
        }
        _ => "",
    };
    let status = if failed_first {
        CheckStatus::Failed
    } else {
        CheckStatus::NotChecked
    };
    let log = log_path_or_hint(server);
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status,
        message: format!(
            "The {} was launched{} with the {what}, and nothing the agent saw shows the drafter \
             loaded (no draft `Load weight end`, draft CUDA graph or `accept len` line).{log_says}",
            describe(server),
            launch_ref(timeline, server),
        ),
        evidence,
        suggestion: on_host(
            server.host.as_deref(),
            &format!(
                "grep -nE \"Load weight end.*type=\\w*(Eagle|MTP|NextN)|Capture draft cuda graph end|accept len\" {log} | tail -5"
            ),
        ),
        server: Some(server.id),
    })
}

//! `ranks-uncounted`: a launch needs N ranks, and nothing the agent saw shows
//! all N.

use std::collections::BTreeSet;

use super::{
    CheckStatus, Finding, Rule, Severity, describe, launch_quote, launch_ref, log_path_or_hint,
    observers, on_host,
};
use crate::timeline::{Observation, RAY_DRIVER, Server, Timeline, implies_ray_driver};

pub(super) const RULE: Rule = Rule {
    id: "ranks-uncounted",
    title: "Multi-GPU launch, but its ranks were never counted",
    severity: Severity::Warning,
    why: "A tensor-parallel server is N processes, one per GPU. One rank that \
failed to start, hangs in NCCL init or died after loading leaves the others \
waiting forever, while `ps | head -3` and a progress bar printed by a single \
rank look exactly like a healthy start. Only seeing every rank (its log tag, \
its process, its GPU memory) shows that all N came up.",
    example: "The launch asks for `--tp-size 8`; the agent checks with \
`ps aux | grep sglang | grep -v grep | head -3`, which shows one line, and the \
shard progress bar, which only rank 0 prints.",
    check: "Count the distinct rank tags in the log and the GPU processes: \
`grep -oE '( (DP|PP|TP|EP)[0-9]+)+\\]' LOG | sort -u | wc -l` and \
`nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    timeline
        .servers
        .iter()
        .filter(|s| s.launch.is_some() && s.ranks_wanted() > 1)
        .filter_map(|server| check(timeline, server))
        .collect()
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    let expected = server.ranks_wanted();
    let launch = launch_quote(timeline, server)?;
    let mut seen = BTreeSet::new();
    let mut process_lists = Vec::new();
    // The engines report ready, and log answered requests, only once every
    // rank is up: such a line of the server's own log counts them all (Ray's
    // `[repeated 7x across cluster]` hides most rank tags of a healthy
    // multi-node server). A request answered on the port does not: an old
    // server may hold it.
    let mut readiness_seen = false;
    for checkpoint in observers(timeline, server) {
        readiness_seen |= checkpoint.seen.iter().any(|line| {
            line.log
                .signal
                .as_ref()
                .is_some_and(|s| s.shows_serving(server.engine))
        });
        for line in &checkpoint.seen {
            if let Some(rank) = line.rank.or(line.log.rank.as_deref()) {
                seen.insert(rank.to_owned());
            }
        }
        let limit = checkpoint.observations.iter().find_map(|o| match o {
            Observation::Processes { limit } => Some(*limit),
            _ => None,
        });
        if let Some(limit) = limit {
            process_lists.push((checkpoint, limit));
        }
    }
    // Counted as the server's own rank count counts it, so the finding
    // never says fewer.
    if implies_ray_driver(seen.iter().map(String::as_str)) {
        seen.insert(RAY_DRIVER.to_owned());
    }
    if seen.len() >= expected as usize || readiness_seen {
        return None;
    }

    let mut evidence = vec![launch];
    let mut detail = String::new();
    if let Some((checkpoint, limit)) = process_lists.last() {
        evidence.push(
            checkpoint
                .output_quote()
                .unwrap_or_else(|| checkpoint.command_quote()),
        );
        if let Some(limit) = limit {
            detail = format!(" Its process list was cut to {limit} line(s) by `head -{limit}`.");
        }
    }
    let in_log = server.lifecycle.ranks.len();
    if server.log_source.is_some() {
        detail.push_str(&format!(
            " The log given shows {in_log} of {expected} rank tag(s)."
        ));
    }
    let tp = server.settings.tp_size.unwrap_or(1);
    let sizes = match (server.settings.pp_size, server.settings.dp_size) {
        (Some(pp), _) if pp > 1 => format!("tp {tp} × pp {pp}"),
        (_, Some(dp)) if dp > 1 && !server.settings.enable_dp_attention => {
            format!("tp {tp} × dp {dp}")
        }
        _ => format!("tp {tp}"),
    };
    let log = log_path_or_hint(server);
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::NotChecked,
        message: format!(
            "The {} was launched{} with {sizes}, so {expected} ranks must come up; the agent saw {} \
             of them.{detail}",
            describe(server),
            launch_ref(timeline, server),
            seen.len(),
        ),
        evidence,
        suggestion: on_host(
            server.host.as_deref(),
            &format!(
                "grep -oE \"( (DP|PP|TP|EP)[0-9]+)+\\]\" {log} | sort -u | wc -l; nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader"
            ),
        ),
        server: Some(server.id),
    })
}

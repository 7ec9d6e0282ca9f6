//! `gpu-release-unverified`: a server was stopped or killed and another
//! launched on the same host without checking that the GPUs were freed.

use super::{CheckStatus, Finding, Rule, Severity, on_host};
use crate::facts::gpus::{
    Outcome, gpu_check_after_kill, gpu_outcome, gpus_free_before_kill, is_kill, killed_nothing,
    launches_gpu_server, may_hold_gpus,
};
use crate::timeline::{Checkpoint, CheckpointKind, Observation, Timeline, same_host};

pub(super) const RULE: Rule = Rule {
    id: "gpu-release-unverified",
    title: "GPU server stopped, next one launched without checking the GPUs were freed",
    severity: Severity::Warning,
    why: "`kill`, `pkill` and `systemctl stop` only send signals. Worker processes \
that ignore SIGTERM, zombie ranks and a CUDA context still tearing down keep \
gigabytes of GPU memory for seconds or forever; a server launched on top of them \
fails with CUDA out of memory during loading or, worse, starts with a fraction of \
the KV cache it was sized for.",
    example: "The agent runs `pkill -f 'vllm serve'` and, in the same breath, \
`vllm serve ... --gpu-memory-utilization 0.92`.",
    check: "After the kill, list GPU memory and processes before launching: \
`nvidia-smi --query-gpu=index,memory.used --format=csv,noheader` and \
`nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    // One finding per launch: two kills before it (a `pkill`, then a
    // `kill -9` of the stragglers) leave one unchecked release, not two.
    let mut reported: Vec<usize> = Vec::new();
    for kill in timeline.checkpoints.iter() {
        let Some(kill_at) = kill.commands.iter().position(|c| {
            is_kill(c) && may_hold_gpus(timeline, kill, c) && !killed_nothing(timeline, kill, c)
        }) else {
            continue;
        };
        if gpus_free_before_kill(timeline, kill) {
            continue;
        }
        // `pkill … && vllm serve …` launches in the same tool call; an
        // `nvidia-smi` between the two is then the check.
        let launch_at = kill.commands[kill_at..]
            .iter()
            .position(|c| crate::engine::launch_from_argv(&c.argv).is_some());
        let launch_here = launch_at.is_some();
        if let Some(launch_at) = launch_at {
            let checked_between = kill.commands[kill_at..kill_at + launch_at]
                .iter()
                .any(|c| c.program() == "nvidia-smi");
            if checked_between && gpu_outcome(kill) == Outcome::Free {
                continue;
            }
        }
        let launch = if launch_here {
            kill
        } else {
            // The next launch on that host, if it starts a GPU server: a
            // web app started after stopping a model server needs no GPU.
            let Some(launch) = timeline.checkpoints.iter().find(|c| {
                c.id > kill.id
                    && c.kind == CheckpointKind::Launch
                    && c.span.source == kill.span.source
                    && same_host(c.host.as_deref(), kill.host.as_deref())
            }) else {
                continue;
            };
            if !launches_gpu_server(launch) {
                continue;
            }
            // A later kill before that launch (`kill` of a trainer, then
            // `pkill vllm; vllm serve …`) is the one the launch follows:
            // that kill reports it.
            let later_kill = timeline.checkpoints[kill.id + 1..=launch.id]
                .iter()
                .any(|c| {
                    c.commands
                        .iter()
                        .any(|k| is_kill(k) && may_hold_gpus(timeline, c, k))
                });
            if later_kill {
                continue;
            }
            launch
        };
        if reported.contains(&launch.id) {
            continue;
        }
        reported.push(launch.id);
        // GPU checks from the kill itself (after its kill command) up to the launch.
        let checks: Vec<(&Checkpoint, Outcome)> = if launch_here {
            Vec::new()
        } else {
            timeline.checkpoints[kill.id..launch.id]
                .iter()
                .filter(|c| same_host(c.host.as_deref(), kill.host.as_deref()))
                .filter(|c| c.id != kill.id || gpu_check_after_kill(c))
                .filter(|c| c.observations.contains(&Observation::Gpus))
                .map(|c| (c, gpu_outcome(c)))
                .collect()
        };
        if checks.iter().any(|(_, outcome)| *outcome == Outcome::Free) {
            continue;
        }
        let host = kill.host.as_deref();
        let mut evidence = vec![kill.command_quote()];
        let busy: Vec<&Checkpoint> = checks
            .iter()
            .filter(|(_, o)| *o == Outcome::Busy)
            .map(|(c, _)| *c)
            .collect();
        let (status, severity, detail) = if launch_here {
            (
                CheckStatus::NotChecked,
                RULE.severity,
                "in the same command, with no look at the GPUs in between",
            )
        } else if busy.is_empty() {
            (
                CheckStatus::NotChecked,
                RULE.severity,
                "nothing between them shows the GPUs' memory",
            )
        } else {
            evidence.extend(busy.iter().filter_map(|c| c.output_quote()));
            (
                CheckStatus::Failed,
                Severity::Error,
                "the GPU check in between still showed memory in use",
            )
        };
        if !launch_here {
            evidence.push(launch.command_quote());
        }
        let at = |c: &Checkpoint| c.message.map(|m| format!(" (msg {m})")).unwrap_or_default();
        findings.push(Finding {
            rule: RULE.id,
            severity,
            status,
            message: format!(
                "A server was stopped{} and another launched{} on {}; {detail}.",
                at(kill),
                if launch_here { String::new() } else { at(launch) },
                host.unwrap_or("the same host"),
            ),
            evidence,
            suggestion: on_host(
                host,
                "nvidia-smi --query-gpu=index,memory.used --format=csv,noheader; nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader",
            ),
            server: timeline
                .servers
                .iter()
                .find(|s| s.launch == Some(launch.id))
                .map(|s| s.id),
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each finding's first evidence line (the kill it reports).
    fn kills(transcript: &str) -> Vec<u32> {
        crate::analyze(&[crate::Source::new("t.txt", transcript)])
            .findings
            .into_iter()
            .filter(|f| f.rule == RULE.id)
            .filter_map(|f| f.evidence.first().map(|e| e.line_start))
            .collect()
    }

    const LAUNCH: &str =
        "[msg 1] assistant\n$ nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &\n";

    /// A pi session of these (command, output) calls: outputs are explicit
    /// there, so an empty listing is seen as empty.
    fn pi_session(calls: &[(&str, &str)]) -> String {
        let mut text =
            String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/r\"}\n");
        for (i, (command, output)) in calls.iter().enumerate() {
            let call = serde_json::json!({"type": "message", "id": format!("c{i}"), "message": {"role": "assistant", "content": [{"type": "toolCall", "id": format!("t{i}"), "name": "bash", "arguments": {"command": command}}]}});
            let result = serde_json::json!({"type": "message", "id": format!("r{i}"), "message": {"role": "toolResult", "toolCallId": format!("t{i}"), "toolName": "bash", "content": [{"type": "text", "text": output}], "isError": false}});
            text.push_str(&format!("{call}\n{result}\n"));
        }
        text
    }

    #[test]
    fn a_kill_after_an_empty_process_listing_stopped_nothing() {
        // The launch vanished, the listing shows it, the relaunch's kill
        // had nothing to free.
        let launch = "nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &";
        let relaunch =
            "pkill -f 'vllm serve'; sleep 2; nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &";
        let listing = "ps aux | grep vllm | grep -v grep";
        let text = pi_session(&[
            (launch, "(no output)"),
            (listing, "(no output)"),
            (relaunch, ""),
        ]);
        assert_eq!(kills(&text), Vec::<u32>::new());
        // A listing that shows the process: that kill may free memory.
        let text = pi_session(&[
            (launch, "(no output)"),
            (listing, "root 4242 99.0 python3 /usr/bin/vllm serve /m"),
            (relaunch, ""),
        ]);
        assert_eq!(kills(&text), [6]);
    }

    #[test]
    fn the_kill_nearest_the_launch_reports_it() {
        let text = format!(
            "{LAUNCH}[msg 2] assistant\n$ kill 11329; uv pip install -e .\n[msg 3] assistant\n$ pkill -f vllm; sleep 5; nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &\n"
        );
        assert_eq!(kills(&text), [6]);
    }

    /// GPUs seen free (a CSV query whose first MiB column is the total),
    /// then a defensive kill before the session's first launch: nothing
    /// held them. After a launch, the same kill does need a check.
    #[test]
    fn a_defensive_kill_after_gpus_were_seen_free() {
        let query =
            "nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv,noheader";
        let free = "0, NVIDIA A10G, 23028 MiB, 0 MiB\n1, NVIDIA A10G, 23028 MiB, 0 MiB\n";
        let relaunch =
            "pkill -f 'vllm serve'; sleep 2; nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &";
        assert_eq!(
            kills(&pi_session(&[(query, free), (relaunch, "")])),
            Vec::<u32>::new()
        );
        let busy = "0, NVIDIA A10G, 23028 MiB, 21000 MiB\n";
        assert_eq!(kills(&pi_session(&[(query, busy), (relaunch, "")])), [4]);
        let launch = "nohup vllm serve /m --port 8000 > /tmp/v.log 2>&1 &";
        assert_eq!(
            kills(&pi_session(&[(query, free), (launch, ""), (relaunch, "")])),
            [6]
        );
    }
}

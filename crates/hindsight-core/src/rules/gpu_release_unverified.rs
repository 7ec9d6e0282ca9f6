//! `gpu-release-unverified`: a server was stopped or killed and another
//! launched on the same host without checking that the GPUs were freed.

use super::{CheckStatus, Finding, Rule, Severity, on_host};
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

/// Below this much used memory (MiB) a GPU counts as free (driver overhead).
const FREE_MIB: u64 = 1024;

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    // One finding per launch: two kills before it (a `pkill`, then a
    // `kill -9` of the stragglers) leave one unchecked release, not two.
    let mut reported: Vec<usize> = Vec::new();
    for kill in timeline.checkpoints.iter() {
        let Some(kill_at) = kill
            .commands
            .iter()
            .position(|c| is_kill(c) && may_hold_gpus(timeline, kill, c))
        else {
            continue;
        };
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

pub(super) fn is_kill(command: &crate::parse::shell::SimpleCommand) -> bool {
    crate::timeline::classify::kind_of(command) == CheckpointKind::Kill
}

/// Whether a checkpoint starts an inference server (which needs the GPUs).
fn launches_gpu_server(checkpoint: &Checkpoint) -> bool {
    checkpoint
        .commands
        .iter()
        .any(|c| crate::engine::launch_from_command(&c.argv, &c.env).is_some())
}

/// Whether a kill may have stopped something holding GPU memory: it names
/// an inference engine, Python or the GPU devices, or it names only process
/// ids or jobs after a GPU server was launched on that host. A kill that
/// names other programs only (`pkill node`, `taskkill /IM node.exe`,
/// `systemctl stop nginx`) freed no GPU.
pub(super) fn may_hold_gpus(
    timeline: &Timeline,
    checkpoint: &Checkpoint,
    command: &crate::parse::shell::SimpleCommand,
) -> bool {
    let targets: Vec<String> = command.argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-') || a.starts_with("-9") && a.len() > 2)
        .map(|a| a.to_ascii_lowercase())
        .collect();
    if targets
        .iter()
        .any(|t| GPU_WORDS.iter().any(|w| t.contains(w)))
    {
        return true;
    }
    // Only ids, jobs, `$(pgrep …)` substitutions or what `xargs` is fed:
    // what the rest of the tool call looked for tells, else a GPU server
    // launched earlier on this host may be among them.
    let anonymous = command.wrappers.iter().any(|w| w == "xargs")
        || targets.iter().all(|t| {
            t.chars().all(|c| c.is_ascii_digit())
                || t.starts_with('%')
                || t.starts_with('$')
                || t.starts_with('`')
        });
    if !anonymous {
        return false;
    }
    let whole = checkpoint.command.to_ascii_lowercase();
    GPU_WORDS.iter().any(|w| whole.contains(w))
        || timeline.checkpoints[..checkpoint.id].iter().any(|c| {
            same_host(c.host.as_deref(), checkpoint.host.as_deref()) && launches_gpu_server(c)
        })
}

/// Words in a kill's targets that point at a GPU process.
const GPU_WORDS: &[&str] = &[
    "vllm",
    "sglang",
    "python",
    "text-generation",
    "tgi",
    "llama",
    "ollama",
    "trtllm",
    "tensorrt",
    "triton",
    "torchrun",
    "ray",
    "nvidia",
    "cuda",
    "gpu",
    "lmdeploy",
    "serve",
    "model",
    "inference",
    "engine",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    Free,
    Busy,
    Unknown,
}

/// In the kill's own tool call, `nvidia-smi` must come after the kill command.
pub(super) fn gpu_check_after_kill(checkpoint: &Checkpoint) -> bool {
    let kill = checkpoint.commands.iter().position(is_kill);
    let gpu = checkpoint
        .commands
        .iter()
        .rposition(|c| c.program() == "nvidia-smi");
    matches!((kill, gpu), (Some(k), Some(g)) if g > k)
}

/// Reads `nvidia-smi` output: CSV memory figures, the table's usage column,
/// or "No running processes found".
pub(super) fn gpu_outcome(checkpoint: &Checkpoint) -> Outcome {
    let mut figures = Vec::new();
    for line in &checkpoint.seen {
        let text = line.text;
        if text.contains("No running processes found") {
            return Outcome::Free;
        }
        // `0, 75000 MiB` (CSV) or `|  75000MiB / 81559MiB |` (table).
        let used = text
            .split(['|', ','])
            .filter_map(|cell| cell.trim().split('/').next())
            .filter_map(|cell| cell.trim().strip_suffix("MiB"))
            .filter_map(|n| n.trim().parse::<u64>().ok())
            .next();
        figures.extend(used);
    }
    match figures.as_slice() {
        [] => Outcome::Unknown,
        all if all.iter().all(|&mib| mib < FREE_MIB) => Outcome::Free,
        _ => Outcome::Busy,
    }
}

//! What a kill and an `nvidia-smi` showed: whether a kill may have stopped
//! something holding GPU memory, and whether the GPUs read free, busy or
//! unknown after it. The GPU rule and the ledger both read these.

use crate::timeline::{Checkpoint, CheckpointKind, Timeline, same_host};

/// Below this much used memory (MiB) a GPU counts as free (driver overhead).
const FREE_MIB: u64 = 1024;

pub fn is_kill(command: &crate::shell::SimpleCommand) -> bool {
    crate::timeline::classify::kind_of(command) == CheckpointKind::Kill
}

/// Whether a checkpoint starts an inference server (which needs the GPUs).
pub fn launches_gpu_server(checkpoint: &Checkpoint) -> bool {
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
pub fn may_hold_gpus(
    timeline: &Timeline,
    checkpoint: &Checkpoint,
    command: &crate::shell::SimpleCommand,
) -> bool {
    let targets = kill_targets(command);
    if gpu_word(&targets).is_some() {
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

/// Whether a process listing on the kill's host, after the last GPU server
/// launched there and before the kill, showed no process of the program the
/// kill names (`ps aux | grep vllm | grep -v grep` printing nothing, then
/// `pkill -f "vllm serve"`): that kill stopped nothing, and freed nothing.
pub fn killed_nothing(
    timeline: &Timeline,
    checkpoint: &Checkpoint,
    command: &crate::shell::SimpleCommand,
) -> bool {
    // The engine word the kill names (`vllm` in `pkill -f "vllm serve"`).
    let Some(word) = gpu_word(&kill_targets(command)) else {
        return false;
    };
    let before = &timeline.checkpoints[..checkpoint.id];
    let since = before
        .iter()
        .rposition(|c| {
            same_host(c.host.as_deref(), checkpoint.host.as_deref()) && launches_gpu_server(c)
        })
        .map_or(0, |at| at + 1);
    let Some(look) = before[since..].iter().rev().find(|c| {
        same_host(c.host.as_deref(), checkpoint.host.as_deref())
            && c.observations
                .iter()
                .any(|o| matches!(o, crate::timeline::Observation::Processes { .. }))
    }) else {
        return false;
    };
    // The listing looked for that program, and showed nothing at all.
    look.command.to_ascii_lowercase().contains(word)
        && look.output.is_some()
        && look.seen.iter().all(|l| l.text.trim().is_empty())
}

/// What a kill names, lowercased: its words but options (a `-9` glued to
/// a name counts).
fn kill_targets(command: &crate::shell::SimpleCommand) -> Vec<String> {
    command.argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-') || a.starts_with("-9") && a.len() > 2)
        .map(|a| a.to_ascii_lowercase())
        .collect()
}

/// The first of [`GPU_WORDS`] the targets name.
fn gpu_word(targets: &[String]) -> Option<&'static str> {
    GPU_WORDS
        .iter()
        .copied()
        .find(|w| targets.iter().any(|t| t.contains(w)))
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
pub enum Outcome {
    Free,
    Busy,
    Unknown,
}

/// Where `field` sits in an `nvidia-smi --query-gpu=…` list of the
/// command, if the command queries it.
fn query_column(command: &str, field: &str) -> Option<usize> {
    let at = command.find("--query-gpu")? + "--query-gpu".len();
    let list = command[at..].trim_start_matches(['=', ' ']);
    let list = list.trim_start_matches(['"', '\'']);
    let list = list.split([' ', '"', '\'', '\n']).next()?;
    list.split(',').position(|f| f.trim() == field)
}

/// Whether the kill's host last showed its GPUs free with no GPU server
/// launched there since (`nvidia-smi` at 0 MiB at the start of the
/// session, then a defensive `pkill -f "vllm serve"` before the first
/// launch): that kill had nothing on the GPUs to release.
pub fn gpus_free_before_kill(timeline: &Timeline, checkpoint: &Checkpoint) -> bool {
    let before = &timeline.checkpoints[..checkpoint.id];
    for c in before.iter().rev() {
        if !same_host(c.host.as_deref(), checkpoint.host.as_deref()) {
            continue;
        }
        if launches_gpu_server(c) {
            return false;
        }
        if c.commands.iter().any(|c| c.program() == "nvidia-smi") {
            match gpu_outcome(c) {
                Outcome::Free => return true,
                Outcome::Busy => return false,
                Outcome::Unknown => {}
            }
        }
    }
    false
}

/// In the kill's own tool call, `nvidia-smi` must come after the kill command.
pub fn gpu_check_after_kill(checkpoint: &Checkpoint) -> bool {
    let kill = checkpoint.commands.iter().position(is_kill);
    let gpu = checkpoint
        .commands
        .iter()
        .rposition(|c| c.program() == "nvidia-smi");
    matches!((kill, gpu), (Some(k), Some(g)) if g > k)
}

/// Reads `nvidia-smi` output: CSV memory figures, the table's usage column,
/// or "No running processes found".
pub fn gpu_outcome(checkpoint: &Checkpoint) -> Outcome {
    let mut figures = Vec::new();
    // `--query-gpu=index,name,memory.total,memory.used`: the used figure
    // is the column the query names, not the first one in MiB (the total).
    let used_column = query_column(&checkpoint.command, "memory.used");
    for line in &checkpoint.seen {
        let text = line.text;
        if text.contains("No running processes found") {
            return Outcome::Free;
        }
        // `0, 75000 MiB` (CSV) or `|  75000MiB / 81559MiB |` (table).
        let mib = |cell: &str| {
            cell.trim()
                .split('/')
                .next()
                .and_then(|c| c.trim().strip_suffix("MiB"))
                .and_then(|n| n.trim().parse::<u64>().ok())
        };
        let used = match used_column {
            Some(column) if text.contains(',') && !text.contains('|') => {
                text.split(',').nth(column).and_then(mib)
            }
            _ => text.split(['|', ',']).find_map(mib),
        };
        figures.extend(used);
    }
    match figures.as_slice() {
        [] => Outcome::Unknown,
        all if all.iter().all(|&mib| mib < FREE_MIB) => Outcome::Free,
        _ => Outcome::Busy,
    }
}

//! A launch command pasted above a log.
//!
//! People paste a server's log together with the command that started it:
//! GitHub issues (the command, often wrapped with `\` or indented flags, then
//! the log), `set -x` wrappers (`+ python -m …`), a shell prompt line, a
//! systemd unit's `ExecStart=`, a docker-compose or Kubernetes `command:` /
//! `args:` block, an `echo "$CMD"` preamble. The command says what the log
//! often does not: the port, the parallel sizes, the model and served name,
//! the drafter. This module finds such a command near the top of a log and
//! reads its flags exactly as a launch in a transcript is read
//! ([`crate::engine::launch_from_command`]).
//!
//! Only the head is looked at (the first [`HEAD_LINES`] lines): a command
//! pasted above a log comes first, and a log's own lines never start a
//! launch. The one exception is a shell's job report near the end (`line
//! 11: 7 Aborted (core dumped) lmdeploy serve …`), which names the command
//! that just ended.

use crate::engine::{Engine, launch_from_command};
use crate::parse::logline::{strip_ansi, strip_envelope};
use crate::parse::pasted;
use crate::settings::{self, ServerSettings};
use crate::shell;
use crate::source::{floor_char_boundary, lines_with_offsets};

/// How many lines from the top may hold the command.
const HEAD_LINES: usize = 120;
/// How many lines one command may span (wrapped flags, a YAML list).
const COMMAND_LINES: usize = 80;

/// The command found: the byte range of its lines, the engine it launches
/// and the settings its flags give.
#[derive(Debug, Clone, PartialEq)]
pub struct HeadLaunch {
    pub start: usize,
    pub end: usize,
    pub engine: Engine,
    pub settings: ServerSettings,
    /// The command as one line: continuation lines joined, without the
    /// prompt, `set -x` mark or label that wrapped it.
    pub command: String,
}

/// The launch command at the head of a log of `engine` (`Unknown` for a log
/// whose engine is not known: then only a whole launch command counts, not
/// a bare list of flags).
pub fn find(text: &str, engine: Engine) -> Option<HeadLaunch> {
    let head = &text[..floor_char_boundary(text, 256 * 1024)];
    let lines: Vec<(usize, &str)> = lines_with_offsets(head).take(HEAD_LINES).collect();
    let mut index = 0;
    while index < lines.len() {
        let (offset, line) = lines[index];
        let clean = strip_ansi(strip_envelope(line)).into_owned();
        let trimmed = clean.trim();
        // A YAML key whose value is the command, inline or in the lines below.
        if let Some(found) = yaml_command(&lines, index, trimmed, engine) {
            return Some(found);
        }
        let Some(command) = command_start(trimmed) else {
            index += 1;
            continue;
        };
        // The command, with its continuation lines.
        let mut joined = command.to_owned();
        let mut last = index;
        while last + 1 < lines.len() && last - index < COMMAND_LINES {
            let next = strip_ansi(strip_envelope(lines[last + 1].1)).into_owned();
            let next = next.trim();
            let continued = joined.trim_end().ends_with('\\');
            // Indented or not, a line of flags goes on with the command
            // (issue pastes wrap long commands without backslashes).
            let flags = next.starts_with('-') && !next.starts_with("---");
            if !(continued || flags) || next.is_empty() {
                break;
            }
            if continued {
                // The `\` and the spaces before it.
                let kept = joined.trim_end().len() - 1;
                joined.truncate(joined[..kept].trim_end().len());
            }
            joined.push(' ');
            joined.push_str(next.strip_prefix("+ ").unwrap_or(next));
            last += 1;
        }
        if let Some((engine, settings)) = launch_in_log(&joined, engine) {
            let (end_offset, end_line) = lines[last];
            return Some(HeadLaunch {
                start: offset,
                end: end_offset + end_line.len(),
                engine,
                settings,
                command: joined,
            });
        }
        index += 1;
    }
    job_report(text, engine)
}

/// How many lines from the end may hold a shell's job report.
const TAIL_LINES: usize = 40;

/// The command a shell's job report names at the end of a log: bash tells
/// how a job ended with its whole command line (`start.sh: line 11:  7
/// Aborted (core dumped) lmdeploy serve api_server … --tp 4`, `[1]+
/// Killed python -m vllm…`), the only place some logs show it.
fn job_report(text: &str, engine: Engine) -> Option<HeadLaunch> {
    let from = floor_char_boundary(text, text.len().saturating_sub(64 * 1024));
    let tail: Vec<(usize, &str)> = lines_with_offsets(&text[from..]).collect();
    for &(offset, line) in tail.iter().rev().take(TAIL_LINES) {
        let Some(command) = job_command(line) else {
            continue;
        };
        if let Some((engine, settings)) = launch_in_log(command, engine) {
            return Some(HeadLaunch {
                start: from + offset,
                end: from + offset + line.len(),
                engine,
                settings,
                command: command.to_owned(),
            });
        }
    }
    None
}

/// The command of a shell's job report line, after its status word.
fn job_command(line: &str) -> Option<&str> {
    super::logline::shell_job(line).map(|(_, command)| command)
}

/// Where a command starts on a line, after what wraps it: a shell prompt,
/// `set -x`'s `+ `, systemd's `ExecStart=`, a `Command:` label. `None` for a
/// line that cannot start a launch (most log lines fail the first test).
fn command_start(line: &str) -> Option<&str> {
    let mut rest = line;
    if let Some((_, start)) = pasted::prompt(rest) {
        rest = &rest[start..];
    }
    rest = rest.trim_start_matches('+').trim_start();
    // A prompt's `$` glued to the command (`$python3 -m sglang…`, a
    // two-line prompt whose second line is only `$`).
    if let Some(after) = rest.strip_prefix('$')
        && LAUNCH_WORDS.iter().any(|w| after.starts_with(w))
    {
        rest = after;
    }
    for label in ["ExecStart=-", "ExecStart=", "CMD ", "RUN "] {
        if let Some(after) = rest.strip_prefix(label) {
            rest = after.trim_start();
        }
    }
    // `Command: python -m …`, `Running: vllm serve …`, `cmd = "…"`.
    if let Some((label, after)) = rest.split_once([':', '='])
        && label.len() <= 24
        && label
            .chars()
            .all(|c| c.is_ascii_alphabetic() || c == ' ' || c == '_')
    {
        let after = after.trim_start().trim_matches(['"', '\'']);
        if LAUNCH_WORDS.iter().any(|w| after.starts_with(w)) {
            return Some(after);
        }
    }
    // `export CUDA_VISIBLE_DEVICES=4,5 && python -m sglang.launch_server …`,
    // `cd /srv; vllm serve …`: the launch is the part after the set-up.
    for separator in [" && ", "; "] {
        if let Some((before, after)) = rest.split_once(separator) {
            let setup = before.split_whitespace().next().unwrap_or("");
            if crate::shell::is_setup(setup)
                && let Some(found) = command_start(after)
            {
                return Some(found);
            }
        }
    }
    // A wrapper of no known name that ends its own options with ` -- `
    // (`chg run --gpus 2 -- vllm serve …`, `uv run -- vllm …`): the
    // launch is what follows, when it is an engine's.
    if let Some((_, after)) = rest.split_once(" -- ")
        && LAUNCH_WORDS
            .iter()
            .any(|w| after.trim_start().starts_with(w))
    {
        return command_start(after.trim_start());
    }
    let first = rest.split_whitespace().next()?;
    let program = first.rsplit('/').next().unwrap_or(first);
    // `VAR=value … \` goes on to the engine's command on a later line.
    let assignments = program.contains('=')
        && (rest.split_whitespace().any(is_launch_word) || rest.trim_end().ends_with('\\'));
    (LAUNCH_WORDS.iter().any(|w| program.starts_with(w))
        || assignments
        || first.starts_with("./")
        || program.ends_with(".py")
        || program.ends_with(".sh"))
    .then_some(rest)
}

/// First words of a launch: an engine's program, or what wraps one.
const LAUNCH_WORDS: &[&str] = &[
    "python",
    "vllm",
    "sglang",
    "text-generation-launcher",
    "llama-server",
    "ollama",
    "trtllm-serve",
    // Serving programs of no engine here, or one bundling an engine.
    "lmdeploy",
    "koboldcpp",
    "tritonserver",
    "docker",
    "podman",
    "mpirun",
    "mpiexec",
    "srun",
    "nohup",
    "sudo",
    "env",
    "CUDA_VISIBLE_DEVICES=",
    "numactl",
    "uv",
    "exec",
    "/",
    "./",
];

fn is_launch_word(word: &str) -> bool {
    let program = word.rsplit('/').next().unwrap_or(word);
    matches!(
        program,
        "vllm" | "sglang" | "text-generation-launcher" | "llama-server" | "ollama" | "trtllm-serve"
    ) || program.starts_with("python")
}

/// The launch a command line holds, read as a transcript's launch is; in
/// a log of a known engine also a launch through a script of its own
/// (`python3 api_server.py --port 10195 …`, `./run-with-libs.sh python3 -m
/// sglang.launch_server …`).
fn launch_in_log(command: &str, engine: Engine) -> Option<(Engine, ServerSettings)> {
    if let Some(found) = launch_in(command) {
        return Some(found);
    }
    let commands = shell::parse(command.trim().trim_start_matches("exec "));
    for simple in &commands {
        let argv = &simple.argv;
        // A wrapper script in front of the engine's own command.
        for start in 1..argv.len() {
            if let Some(found) = launch_from_command(&argv[start..], &simple.env) {
                return Some(found);
            }
        }
        if engine == Engine::Unknown {
            // A serving program of no known engine (`lmdeploy serve
            // api_server … --server-port 8000 --tp 4`, `tritonserver`):
            // its port, and the parallel sizes its flags spell as the
            // engines do.
            if let Some(other) = crate::other_servers::launch(simple) {
                let mut settings = settings::from_args(&argv[1..], false);
                settings.port = other.port.filter(|_| !other.default_port).or(settings.port);
                return Some((Engine::Unknown, settings));
            }
            continue;
        }
        // `python3 api_server.py --port …`, `./server -m … --port …`: the
        // log says which engine.
        let Some(script) = argv.iter().position(|w| {
            w.ends_with(".py") || w.ends_with(".sh") || w.starts_with("./") || w.starts_with('/')
        }) else {
            continue;
        };
        let settings = settings::from_args(&argv[script + 1..], engine.takes_model_first());
        if settings.port.is_some() || settings.tp_size.is_some() || settings.model.is_some() {
            return Some((engine, settings));
        }
    }
    None
}

/// The launch a command line holds, read as a transcript's launch is.
fn launch_in(command: &str) -> Option<(Engine, ServerSettings)> {
    // `exec` and `[ "a", "b" ]` (a Dockerfile's JSON form) are not words the
    // shell lexer unwraps.
    let command = command.trim().trim_start_matches("exec ");
    let words: String;
    let command = if command.starts_with('[') {
        words = json_words(command)?;
        &words
    } else {
        command
    };
    shell::parse(command)
        .iter()
        .find_map(|c| launch_from_command(&c.argv, &c.env))
}

/// `["python", "-m", "x"]` → `'python' '-m' 'x'`.
fn json_words(text: &str) -> Option<String> {
    let words: Vec<String> = serde_json::from_str(text.trim()).ok()?;
    Some(
        words
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// A docker-compose or Kubernetes `command:` / `args:` value: inline
/// (`command: --model m --port 8001`, `command: ["--model", "m"]`), a block
/// scalar (`command: >` then indented lines) or a list (`- --port`,
/// `- "8001"`). Flags alone count only when the log's engine is known: the
/// image runs the engine, and the key gives it its arguments.
fn yaml_command(
    lines: &[(usize, &str)],
    index: usize,
    line: &str,
    engine: Engine,
) -> Option<HeadLaunch> {
    let key = ["command:", "args:", "entrypoint:"]
        .into_iter()
        .find(|k| line.trim_start_matches("- ").starts_with(k))?;
    let inline = line.trim_start_matches("- ")[key.len()..].trim();
    let (offset, _) = lines[index];
    let mut last = index;
    let mut words: Vec<String> = Vec::new();
    if inline.is_empty() || inline == ">" || inline == "|" || inline == ">-" || inline == "|-" {
        let indent = |l: &str| l.len() - l.trim_start().len();
        let key_indent = indent(lines[index].1);
        let mut scan = index;
        while scan + 1 < lines.len() && scan - index < COMMAND_LINES {
            let next = lines[scan + 1].1;
            let item = next.trim();
            // Blank lines and comments inside the block are skipped.
            if item.is_empty() || item.starts_with('#') {
                scan += 1;
                continue;
            }
            if indent(next) <= key_indent && !item.starts_with('-') {
                break;
            }
            // A trailing `# comment` is no argument.
            let item = match item.find(" #") {
                Some(at) => item[..at].trim_end(),
                None => item,
            };
            match item.strip_prefix("- ") {
                Some(value) => words.push(unquote(value)),
                None => words.extend(shell_words(item)),
            }
            scan += 1;
            last = scan;
        }
    } else if inline.starts_with('[') {
        let json = json_words(inline)?;
        words.extend(shell_words(&json));
    } else {
        words.extend(shell_words(inline.trim_matches(['"', '\''])));
    }
    if words.is_empty() {
        return None;
    }
    let found = launch_from_command(&words, &[]).or_else(|| {
        (engine != Engine::Unknown && words.iter().any(|w| w.starts_with("--"))).then(|| {
            (
                engine,
                settings::from_args(&words, engine.takes_model_first()),
            )
        })
    })?;
    let (end_offset, end_line) = lines[last];
    // The words as a command line, each quoted that needs it.
    let command = words
        .iter()
        .map(|w| {
            if w.is_empty() || w.contains(|c: char| c.is_whitespace() || c == '\'') {
                format!("'{}'", w.replace('\'', r"'\''"))
            } else {
                w.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(HeadLaunch {
        start: offset,
        end: end_offset + end_line.len(),
        engine: found.0,
        settings: found.1,
        command,
    })
}

fn unquote(value: &str) -> String {
    value.trim().trim_matches(['"', '\'']).to_owned()
}

fn shell_words(text: &str) -> Vec<String> {
    shell::parse(text)
        .into_iter()
        .flat_map(|c| {
            c.env
                .into_iter()
                .map(|(k, v)| format!("{k}={v}"))
                .chain(c.argv)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str, engine: Engine) -> Option<(Engine, ServerSettings)> {
        find(text, engine).map(|h| (h.engine, h.settings))
    }

    #[test]
    fn a_wrapped_command_above_a_log() {
        let text = "python3 -m sglang.launch_server --model-path /models/Qwen3 \\\n    --tp 8 \\\n    --port 9107 --speculative-algorithm EAGLE3\n[2026-01-02 10:00:00] server_args=ServerArgs(tp_size=8)\n";
        let (engine, s) = settings(text, Engine::Sglang).expect("found");
        assert_eq!(engine, Engine::Sglang);
        assert_eq!(s.port, Some(9107));
        assert_eq!(s.tp_size, Some(8));
        assert_eq!(s.speculative_algorithm.as_deref(), Some("EAGLE3"));
        let head = find(text, Engine::Sglang).expect("found");
        assert_eq!(&text[head.start..head.end].lines().count(), &3);
    }

    #[test]
    fn a_launch_after_its_set_up_on_the_same_line() {
        let text = "export CUDA_VISIBLE_DEVICES=4,5 && python -m sglang.launch_server \\\n    --model-path /data/Qwen3 \\\n    --tp-size 2 \\\n    --port 30000\n[2026-01-02 10:00:00 TP0] Load weight begin.\n";
        let (engine, s) = settings(text, Engine::Sglang).expect("found");
        assert_eq!(engine, Engine::Sglang);
        assert_eq!((s.port, s.tp_size), (Some(30000), Some(2)));
        assert!(settings("cd /srv; vllm serve m --port 8123\n", Engine::Vllm).is_some());
        // A set-up alone launches nothing.
        assert!(settings("export A=1 && echo done\n", Engine::Sglang).is_none());
        // A wrapper of no known name, its options ended by `--`.
        let text = "launch:\n    chg run --gpus 2 -- vllm serve \\\n    {{MODEL}} \\\n    --port 8000 \\\n    --data-parallel-size 2\n(APIServer pid=1) INFO 05-20 10:42:11 [api_server.py:1] x\n";
        let (engine, s) = settings(text, Engine::Vllm).expect("found");
        assert_eq!(
            (engine, s.port, s.dp_size),
            (Engine::Vllm, Some(8000), Some(2))
        );
        assert!(settings("make run -- --verbose\n", Engine::Vllm).is_none());
    }

    #[test]
    fn a_shell_job_report_at_the_end_names_the_command() {
        let text = "[TM][FATAL][0914.14:00:37.807188][cast.cu:264] CUDA error: no kernel image is available for execution on the device\n  [ 0] TM_CUDA_CHECK @ cast.cu:264\n/root/start.sh: line 11:     7 Aborted                 (core dumped) lmdeploy serve api_server /m --server-port 8000 --backend turbomind --tp 4\n";
        let (_, s) = settings(text, Engine::Unknown).expect("found");
        assert_eq!((s.port, s.tp_size), (Some(8000), Some(4)));
        let killed = "INFO 01-02 10:00:00 worker.py:1] loading\n[1]+  Killed                  vllm serve m --port 8011 --tensor-parallel-size 2\n";
        let (_, s) = settings(killed, Engine::Vllm).expect("found");
        assert_eq!((s.port, s.tp_size), (Some(8011), Some(2)));
        // A log line that only says a word of the list is no job report.
        assert!(
            settings(
                "INFO 01-02 10:00:00 Done loading shards\nKilled by user\n",
                Engine::Vllm
            )
            .is_none()
        );
    }

    #[test]
    fn flags_on_indented_lines_without_backslashes() {
        let text = "vllm serve meta-llama/Llama-3.1-70B\n  --tensor-parallel-size 4\n  --port 8011\nINFO 01-02 10:00:00 api_server.py:1] vLLM API server version 0.6.4\n";
        let (_, s) = settings(text, Engine::Vllm).expect("found");
        assert_eq!((s.tp_size, s.port), (Some(4), Some(8011)));
    }

    #[test]
    fn prompts_set_x_and_systemd() {
        for text in [
            "$ CUDA_VISIBLE_DEVICES=0,1 vllm serve m --tp 2 --port 9000\nINFO x\n",
            "+ python -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2 --port 9000\n",
            "ExecStart=/opt/venv/bin/vllm serve m --tensor-parallel-size 2 --port 9000\n",
            "root@gpu-1:~# docker run --gpus all -p 9000:8000 vllm/vllm-openai --model m --tensor-parallel-size 2\n",
            "Command: vllm serve m -tp 2 --port 9000\n",
        ] {
            let (engine, s) = settings(text, Engine::Unknown).expect(text);
            assert_eq!(engine, Engine::Vllm, "{text}");
            assert_eq!((s.tp_size, s.port), (Some(2), Some(9000)), "{text}");
        }
    }

    #[test]
    fn compose_and_kubernetes_argument_blocks() {
        let compose = "services:\n  vllm:\n    image: vllm/vllm-openai:v0.8.5\n    command: >\n      --model /models/m\n      --tensor-parallel-size 2\n      --port 8001\n    ports:\n      - 8001:8001\n";
        let (_, s) = settings(compose, Engine::Vllm).expect("compose");
        assert_eq!((s.tp_size, s.port), (Some(2), Some(8001)));
        let k8s = "        args:\n        - --model-path\n        - /models/m\n        - --tp\n        - \"8\"\n        - --port\n        - \"30001\"\n";
        let (_, s) = settings(k8s, Engine::Sglang).expect("k8s");
        assert_eq!((s.tp_size, s.port), (Some(8), Some(30001)));
        assert_eq!(
            settings(k8s, Engine::Unknown),
            None,
            "flags alone need the engine"
        );
        let commented = "    command:\n      # 1. the model\n      - \"m\"\n\n      - \"--port\"\n      - \"8003\" # the API\n    ports:\n";
        assert_eq!(
            settings(commented, Engine::Vllm).expect("commented").1.port,
            Some(8003)
        );
        let inline = "    command: [\"--model\", \"m\", \"--port\", \"8002\"]\n";
        assert_eq!(
            settings(inline, Engine::Vllm).expect("inline").1.port,
            Some(8002)
        );
    }

    #[test]
    fn scripts_and_wrappers_in_front_of_the_engine() {
        let text = "python3 api_server.py --port 10195 --model /data/m --tensor-parallel-size 8\n(VllmWorkerProcess pid=232) ERROR 08-23 08:25:25 x.py:226] boom\n";
        let (engine, s) = settings(text, Engine::Vllm).expect("script");
        assert_eq!(
            (engine, s.port, s.tp_size),
            (Engine::Vllm, Some(10195), Some(8))
        );
        let text = "bashLD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH \\\nNCCL_IB_DISABLE=0 \\\n/opt/libs/run-with-new-libstdc.sh python3 -m sglang.launch_server \\\n  --model-path /m --tp-size 16 --port 30001\n";
        let (engine, s) = settings(text, Engine::Sglang).expect("wrapper");
        assert_eq!(
            (engine, s.port, s.tp_size),
            (Engine::Sglang, Some(30001), Some(16))
        );
        assert_eq!(
            settings("python3 train.py --epochs 3\n", Engine::Unknown),
            None
        );
    }

    #[test]
    fn log_lines_are_not_commands() {
        let text = "INFO 01-02 10:00:00 api_server.py:1] args: Namespace(port=8000)\n[2026-01-02 10:00:00 TP0] Load weight begin.\npython: can't open file\n";
        assert_eq!(settings(text, Engine::Vllm), None);
    }
}

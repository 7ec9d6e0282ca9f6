//! Signatures of inference-server log lines: what one line says about a server.
//!
//! Used twice: by the server-log parsers on whole logs, and on the tool output
//! the agent saw (a `tail -5` of a log shows log lines too). The templates come
//! from `SIGNATURES.md` and were checked against the engines' source; match on
//! the stable words, never on file:line numbers that drift between versions.

use std::sync::LazyLock;

use regex::Regex;

use crate::engine::ServerSettings;

/// A classified log line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogLine {
    /// The timestamp as written (`2026-02-11 22:35:07`).
    pub time: Option<String>,
    /// The rank tag (`TP3`, `DP1 TP1`), if the line carries one.
    pub rank: Option<String>,
    /// What the line means for the server's lifecycle.
    pub signal: Option<Signal>,
}

/// What one line says about a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// The engine's dump of its effective settings (`server_args=ServerArgs(…)`).
    Settings(Box<ServerSettings>),
    WeightsBegin,
    /// A weight-loading progress bar update.
    ShardProgress {
        percent: u32,
        done: u32,
        total: u32,
        elapsed_seconds: Option<u32>,
    },
    /// `Load weight end. type=Arch`: `draft` when the architecture is a drafter.
    WeightsEnd {
        arch: Option<String>,
        draft: bool,
    },
    KvCacheAllocated,
    CudaGraphBegin {
        draft: bool,
    },
    CudaGraphEnd {
        draft: bool,
    },
    /// The HTTP socket is bound (`Uvicorn running on http://H:P`).
    Bound {
        host: String,
        port: Option<u16>,
    },
    /// The engine says it serves (`The server is fired up and ready to roll!`).
    Ready,
    /// A served request in the access log.
    Request {
        status: Option<u16>,
    },
    /// Speculative decoding at work (`accept len: 2.31`).
    DraftAccepting,
    Failure {
        kind: FailureKind,
    },
}

/// The kinds of failure a log can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureKind {
    OutOfMemory,
    Nccl,
    AddressInUse,
    Exception,
    ChildFailed,
    Killed,
}

impl FailureKind {
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::OutOfMemory => "cuda-oom",
            FailureKind::Nccl => "nccl-error",
            FailureKind::AddressInUse => "address-in-use",
            FailureKind::Exception => "exception",
            FailureKind::ChildFailed => "child-failed",
            FailureKind::Killed => "killed",
        }
    }
}

macro_rules! regex {
    ($name:ident, $pattern:literal) => {
        static $name: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new($pattern).ok());
    };
}

regex!(
    SGLANG_PREFIX,
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|\d\d-\d\d \d\d:\d\d:\d\d|\d\d:\d\d:\d\d)((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)\] ?"
);
regex!(
    SHARDS,
    r"Loading (?:safetensors|pt) checkpoint shards:\s+(\d+)% Completed \| (\d+)/(\d+) \[(?:(\d+):)?(\d+):(\d+)"
);
regex!(WEIGHTS_END, r"(?i)load weight end\.(?:.*?\btype=(\w+))?");
regex!(
    UVICORN,
    r"Uvicorn running on (?:https?://)?([^\s:/]+|\[[^\]]+\]):(\d+)"
);
regex!(
    ACCESS,
    r#""(?:GET|POST|PUT|DELETE|HEAD) [^"]*HTTP/[\d.]+" (\d{3})"#
);
regex!(SERVER_ARGS_FIELD, r"(\w+)=('(?:[^'\\]|\\.)*'|[^,()]+)");
regex!(ACCEPT_LEN, r"accept len: (\d+(?:\.\d+)?)");
regex!(
    VLLM_START,
    r"Starting vLLM (?:API )?server(?: \d+)? on (?:https?://)?([^\s:/]+|\[[^\]]+\]):(\d+)"
);
regex!(
    ANSI,
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|#033\[[0-9;]*m"
);

/// Removes ANSI colour and cursor sequences, including the `#033[` residue
/// that syslog-style collectors leave behind.
pub fn strip_ansi(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains('\x1b') && !line.contains("#033[") {
        return std::borrow::Cow::Borrowed(line);
    }
    match ANSI.as_ref() {
        Some(re) => re.replace_all(line, ""),
        None => std::borrow::Cow::Borrowed(line),
    }
}

/// Classifies one log line (one `\r`-separated segment of it, ANSI stripped).
pub fn classify(line: &str) -> LogLine {
    let mut result = LogLine::default();
    let mut message = line.trim_start_matches("> ").trim_start();
    if message.starts_with('[')
        && let Some(captures) = SGLANG_PREFIX.as_ref().and_then(|re| re.captures(message))
    {
        result.time = captures.get(1).map(|m| m.as_str().to_owned());
        result.rank = captures
            .get(2)
            .map(|m| m.as_str().trim())
            .filter(|tag| !tag.is_empty())
            .map(str::to_owned);
        let end = captures.get(0).map_or(0, |m| m.end());
        message = &message[end..];
    }
    result.signal = signal(message);
    result
}

fn capture<'t>(re: &LazyLock<Option<Regex>>, text: &'t str) -> Option<regex::Captures<'t>> {
    re.as_ref().and_then(|re| re.captures(text))
}

fn signal(message: &str) -> Option<Signal> {
    // Cheap substring tests first: most lines of a big log match nothing.
    if message.contains("server_args=ServerArgs(") {
        return Some(Signal::Settings(Box::new(server_args(message))));
    }
    if message.contains("checkpoint shards:") {
        let c = capture(&SHARDS, message)?;
        let number = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
        let elapsed = match (number(4), number(5), number(6)) {
            (hours, Some(minutes), Some(seconds)) => {
                Some(hours.unwrap_or(0) * 3600 + minutes * 60 + seconds)
            }
            _ => None,
        };
        return Some(Signal::ShardProgress {
            percent: number(1)?,
            done: number(2)?,
            total: number(3)?,
            elapsed_seconds: elapsed,
        });
    }
    let lower_has = |needle: &str| message.contains(needle);
    if lower_has("Load weight begin") {
        return Some(Signal::WeightsBegin);
    }
    if message.contains("oad weight end") {
        let arch = capture(&WEIGHTS_END, message)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_owned());
        let draft = arch.as_deref().is_some_and(is_draft_architecture);
        return Some(Signal::WeightsEnd { arch, draft });
    }
    if lower_has("KV Cache is allocated") || lower_has("GPU KV cache size") {
        return Some(Signal::KvCacheAllocated);
    }
    if lower_has("Capture ") && lower_has("cuda graph") || lower_has("CUDA graph begin") {
        let draft = lower_has("draft");
        if lower_has(" begin") {
            return Some(Signal::CudaGraphBegin { draft });
        }
        if lower_has(" end") && !lower_has("failed") {
            return Some(Signal::CudaGraphEnd { draft });
        }
    }
    if lower_has("Uvicorn running on") {
        let c = capture(&UVICORN, message)?;
        return Some(Signal::Bound {
            host: c.get(1).map(|m| m.as_str().to_owned()).unwrap_or_default(),
            port: c.get(2).and_then(|m| m.as_str().parse().ok()),
        });
    }
    if let Some(c) = capture(&VLLM_START, message) {
        return Some(Signal::Bound {
            host: c.get(1).map(|m| m.as_str().to_owned()).unwrap_or_default(),
            port: c.get(2).and_then(|m| m.as_str().parse().ok()),
        });
    }
    if lower_has("The server is fired up and ready to roll") {
        return Some(Signal::Ready);
    }
    if let Some(failure) = failure(message) {
        return Some(Signal::Failure { kind: failure });
    }
    if lower_has("accept len:") {
        let accepting = capture(&ACCEPT_LEN, message)
            .and_then(|c| c.get(1))
            .and_then(|m| m.as_str().parse::<f32>().ok())
            .is_some_and(|len| len > 1.0);
        if accepting {
            return Some(Signal::DraftAccepting);
        }
    }
    if message.contains("HTTP/1")
        && let Some(c) = capture(&ACCESS, message)
    {
        return Some(Signal::Request {
            status: c.get(1).and_then(|m| m.as_str().parse().ok()),
        });
    }
    None
}

fn failure(message: &str) -> Option<FailureKind> {
    let has = |needle: &str| message.contains(needle);
    if has("CUDA out of memory") || has("OutOfMemoryError") || has("Not enough memory") {
        return Some(FailureKind::OutOfMemory);
    }
    if has("NCCL error") || has("Watchdog caught collective operation timeout") {
        return Some(FailureKind::Nccl);
    }
    if has("Address already in use") || has("EADDRINUSE") || has("[Errno 98]") {
        return Some(FailureKind::AddressInUse);
    }
    if has("Scheduler hit an exception")
        || has("Traceback (most recent call last)")
        || has("EngineCore failed to start")
        || has("Initialization failed")
    {
        return Some(FailureKind::Exception);
    }
    if has("Received sigquit from a child process") || has("Child process unexpectedly failed") {
        return Some(FailureKind::ChildFailed);
    }
    if message.trim() == "Killed" {
        return Some(FailureKind::Killed);
    }
    None
}

/// Drafter architectures: EAGLE, EAGLE-3, MTP and NextN heads.
fn is_draft_architecture(arch: &str) -> bool {
    let lower = arch.to_ascii_lowercase();
    ["eagle", "mtp", "nextn", "draft", "medusa"]
        .iter()
        .any(|needle| lower.contains(needle))
}

/// Reads the fields hindsight needs from SGLang's `server_args=ServerArgs(...)`.
fn server_args(message: &str) -> ServerSettings {
    let mut settings = ServerSettings::default();
    let Some(re) = SERVER_ARGS_FIELD.as_ref() else {
        return settings;
    };
    for c in re.captures_iter(message) {
        let (Some(key), Some(raw)) = (c.get(1), c.get(2)) else {
            continue;
        };
        let raw = raw.as_str().trim();
        let text = raw.trim_matches('\'');
        let is_none = raw == "None";
        let string = || (!is_none).then(|| text.to_owned());
        let number = || text.parse::<u32>().ok();
        match key.as_str() {
            "model_path" => settings.model = string(),
            "host" => settings.bind_host = string(),
            "port" => settings.port = text.parse().ok(),
            "tp_size" => settings.tp_size = number(),
            "pp_size" => settings.pp_size = number(),
            "dp_size" => settings.dp_size = number(),
            "ep_size" => settings.ep_size = number(),
            "nnodes" => settings.nnodes = number(),
            "enable_dp_attention" => settings.enable_dp_attention = text == "True",
            "speculative_algorithm" => settings.speculative_algorithm = string(),
            "speculative_draft_model_path" => settings.draft_model = string(),
            "mem_fraction_static" => settings.mem_fraction = text.parse().ok(),
            _ => {}
        }
    }
    settings
}

/// A rank tag found anywhere in a line of tool output: a log prefix
/// (`[… TP3]`), a process title (`sglang::scheduler_TP3`), or `Worker_TP3`.
pub fn rank_in_text(line: &str) -> Option<String> {
    regex!(
        ANY_RANK,
        r"(?:\[[^\]]*?((?:(?:DP|PP|TP|EP)\d+ ?)+)\]|scheduler((?:_(?:DP|PP|TP|EP)\d+)+)|Worker((?:_(?:DP|PP|TP|EP)\d+)+))"
    );
    let c = capture(&ANY_RANK, line)?;
    let tag = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3))?.as_str();
    let normalized = tag.replace('_', " ");
    let normalized = normalized.trim();
    (!normalized.is_empty()).then(|| normalized.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_patterns_compile() {
        // Patterns are built lazily and a bad one would silently match nothing.
        for pattern in [
            &SGLANG_PREFIX,
            &SHARDS,
            &WEIGHTS_END,
            &UVICORN,
            &ACCESS,
            &SERVER_ARGS_FIELD,
            &ACCEPT_LEN,
            &VLLM_START,
            &ANSI,
        ] {
            assert!(pattern.is_some());
        }
        assert!(rank_in_text("[2026-01-01 00:00:00 TP1] x").is_some());
    }

    #[test]
    fn sglang_prefix_time_and_rank() {
        let line = classify("[2026-02-11 22:35:07 TP3] Load weight begin. avail mem=93.17 GB");
        assert_eq!(line.time.as_deref(), Some("2026-02-11 22:35:07"));
        assert_eq!(line.rank.as_deref(), Some("TP3"));
        assert_eq!(line.signal, Some(Signal::WeightsBegin));
        let line = classify("[2026-01-15 13:31:50 DP1 TP1] KV Cache is allocated. #tokens: 1");
        assert_eq!(line.rank.as_deref(), Some("DP1 TP1"));
        assert_eq!(line.signal, Some(Signal::KvCacheAllocated));
    }

    #[test]
    fn shard_progress_reads_counts_and_elapsed() {
        let line = classify(
            "Loading safetensors checkpoint shards: 100% Completed | 64/64 [00:34<00:00,  1.69it/s]",
        );
        assert_eq!(
            line.signal,
            Some(Signal::ShardProgress {
                percent: 100,
                done: 64,
                total: 64,
                elapsed_seconds: Some(34)
            })
        );
    }

    #[test]
    fn drafter_weights_end_is_recognised() {
        let line = classify(
            "[2026-02-11 22:36:02 TP0] Load weight end. type=LlamaForCausalLMEagle3, dtype=torch.bfloat16, avail mem=20.1 GB, mem usage=1.2 GB.",
        );
        assert_eq!(
            line.signal,
            Some(Signal::WeightsEnd {
                arch: Some("LlamaForCausalLMEagle3".into()),
                draft: true
            })
        );
    }

    #[test]
    fn readiness_and_bind() {
        assert_eq!(
            classify("[2026-02-11 22:37:00] The server is fired up and ready to roll!").signal,
            Some(Signal::Ready)
        );
        assert_eq!(
            classify("[2026-02-11 22:36:50] INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)").signal,
            Some(Signal::Bound { host: "0.0.0.0".into(), port: Some(8000) })
        );
    }

    #[test]
    fn server_args_dump() {
        let line = classify(
            "[2026-02-11 22:34:51] server_args=ServerArgs(model_path='/data/m', tokenizer_path='/data/m', host='0.0.0.0', port=8000, mem_fraction_static=0.9, tp_size=8, pp_size=1, dp_size=1, speculative_algorithm='EAGLE3', speculative_draft_model_path='/data/d', speculative_num_steps=3)",
        );
        let Some(Signal::Settings(s)) = line.signal else {
            panic!("settings expected")
        };
        assert_eq!(s.tp_size, Some(8));
        assert_eq!(s.port, Some(8000));
        assert_eq!(s.draft_model.as_deref(), Some("/data/d"));
        assert_eq!(s.model.as_deref(), Some("/data/m"));
    }

    #[test]
    fn ansi_and_residue_are_stripped() {
        assert_eq!(strip_ansi("\x1b[32mINFO\x1b[0m ok"), "INFO ok");
        assert_eq!(strip_ansi("#033[0;36mx#033[0m"), "x");
    }

    #[test]
    fn ranks_in_process_titles_and_prefixes() {
        assert_eq!(
            rank_in_text("root 1 sglang::scheduler_TP5 x").as_deref(),
            Some("TP5")
        );
        assert_eq!(
            rank_in_text("[2026-01-01 00:00:00 DP0 TP1] x").as_deref(),
            Some("DP0 TP1")
        );
        assert_eq!(
            rank_in_text("(Worker_TP2 pid=3) INFO").as_deref(),
            Some("TP2")
        );
        assert_eq!(rank_in_text("no rank here [ok]"), None);
    }

    #[test]
    fn failures() {
        assert_eq!(
            classify("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB.")
                .signal,
            Some(Signal::Failure {
                kind: FailureKind::OutOfMemory
            })
        );
        assert_eq!(
            classify("[2026-02-11 22:35:07 TP0] Scheduler hit an exception: Traceback").signal,
            Some(Signal::Failure {
                kind: FailureKind::Exception
            })
        );
    }
}

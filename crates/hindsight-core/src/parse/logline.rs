//! Signatures of inference-server log lines: what one line says about a server.
//!
//! Used twice: by the server-log parsers on whole logs, and on the tool output
//! the agent saw (a `tail -5` of a log shows log lines too), so one line is
//! classified without knowing which engine wrote it. A line is read in three
//! steps: the collector's envelope is removed (markdown `> `, CI timestamps,
//! `[pod/x]`, docker-compose `svc-1  | `, journald), then the engine's own
//! prefix (time and rank; each engine's grammar lives in its parser file),
//! then the message is matched against the engines' templates. The templates
//! come from `SIGNATURES.md` and were checked against the engines' source;
//! they match stable words, never file:line numbers that drift.

use std::sync::LazyLock;

use super::dialect::{Dialect, Prefix};
use crate::re::{Captures, capture, regex};

use super::{Event, EventKind, Parsed};
use crate::diagnostic::LONG_LINE;
use crate::engine::Engine;
use crate::literals::LiteralSet;
use crate::settings::ServerSettings;
use crate::source::{Span, floor_char_boundary, lines_with_offsets};

/// A classified log line.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LogLine {
    /// The timestamp as written (`2026-02-11 22:35:07`).
    pub time: Option<String>,
    /// The rank tag (`TP3`, `DP1 TP1`, `rank 3`, `pid 4242`), if the line
    /// carries one.
    pub rank: Option<String>,
    /// A weaker rank hint (a torch `[rank3]:` prefix, an NCCL INFO line, a
    /// vLLM engine-core process): counted only when no line has a real tag.
    pub aux_rank: Option<String>,
    /// What the line means for the server's lifecycle.
    pub signal: Option<Signal>,
}

/// A launch command pasted above a log: the engine it starts, what its
/// flags set, and the command as one line.
#[derive(Debug, Clone, PartialEq)]
pub struct PastedLaunch {
    pub engine: Engine,
    pub settings: ServerSettings,
    pub command: String,
}

/// What one line says about a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Signal {
    /// The command that started the server, pasted above its log (see
    /// [`super::launch_head`]): what it was asked to do.
    Launch(Box<PastedLaunch>),
    /// The engine's dump of its effective settings (`server_args=ServerArgs(…)`,
    /// vLLM's `non-default args: {…}`, TGI's `Args { … }`).
    Settings(Box<ServerSettings>),
    /// The engine's start banner (`vLLM API server version …`, `build: …`).
    ProcessStart,
    /// Distributed (NCCL / MPI) initialisation: `done` once it finished,
    /// with the world size when the line gives it.
    DistInit {
        done: bool,
        world_size: Option<u32>,
    },
    WeightsBegin,
    /// A weight-loading progress bar update.
    ShardProgress {
        percent: u32,
        done: u32,
        total: u32,
        elapsed_seconds: Option<u32>,
    },
    /// Weights are in: `Load weight end. type=Arch`, `Loading weights took
    /// N seconds`, `Shard ready in Ns`… `draft` when it is a drafter's.
    WeightsEnd {
        arch: Option<String>,
        draft: bool,
        seconds: Option<f64>,
    },
    /// vLLM's `Loading drafter model...`: only a start marker.
    DrafterBegin,
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
    /// uvicorn's `Application startup complete.`: readiness for engines that
    /// load before it (vLLM, TensorRT-LLM), not for SGLang, which warms up after.
    AppStartupComplete,
    /// The engine says it serves (`The server is fired up and ready to roll!`),
    /// with the port when the line names it: llama.cpp's `main: server is
    /// listening on http://H:P`, which 2026 builds print without any
    /// earlier bind line.
    Ready {
        port: Option<u16>,
    },
    /// A served request in the access log.
    Request {
        status: Option<u16>,
    },
    /// Speculative decoding at work (`accept len: 2.31`).
    DraftAccepting,
    Failure {
        kind: FailureKind,
        /// The port an address-in-use failure names.
        port: Option<u16>,
    },
}

impl Signal {
    /// Whether the line shows `engine`'s server whole and serving: its
    /// readiness line, a request it logs as answered, or uvicorn's startup
    /// except for SGLang, which warms up after it. No engine gets there
    /// with a rank missing.
    pub fn shows_serving(&self, engine: Engine) -> bool {
        matches!(
            self,
            Signal::Ready { .. }
                | Signal::Request {
                    status: Some(200..=299)
                }
        ) || engine != Engine::Sglang && matches!(self, Signal::AppStartupComplete)
    }
}

/// The kinds of failure a log can show, most specific first: when a log
/// shows several, the most specific one names the failure.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    #[serde(rename = "cuda-oom")]
    OutOfMemory,
    #[serde(rename = "nccl-error")]
    Nccl,
    AddressInUse,
    /// The scheduler / engine core / shard / runner died.
    EngineDied,
    Exception,
    ChildFailed,
    /// Killed by a signal (the OOM killer, SIGKILL, a shard's SIGILL); last,
    /// since a launcher also kills itself after any of the above.
    Killed,
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FailureKind {
    /// The name the report writes (`cuda-oom`), the same as its JSON.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::OutOfMemory => "cuda-oom",
            FailureKind::Nccl => "nccl-error",
            FailureKind::AddressInUse => "address-in-use",
            FailureKind::EngineDied => "engine-died",
            FailureKind::Exception => "exception",
            FailureKind::ChildFailed => "child-failed",
            FailureKind::Killed => "killed",
        }
    }
}

regex!(
    SHARDS,
    r"(?-u:(?:checkpoint shards|loading shards|Loading weights(?: concurrently)?):\s+(\d+)%)(?: Completed \||\|[^|]*\|)(?-u: (\d+)/(\d+) \[(?:(\d+):)?(\d+):(\d+))"
);
regex!(
    WEIGHTS_END,
    r"(?i-u:load weight end\.)(?:.*?(?i-u:\btype=(\w+)))?"
);
regex!(ELAPSED, r"(?-u)elapsed=(\d+(?:\.\d+)?) ?s");
regex!(TOOK_SECONDS, r"(?-u)(\d+(?:\.\d+)?) ?s(?:ec(?:ond)?s?)?\b");
regex!(
    HOST_PORT,
    r"(?:https?://)?([A-Za-z0-9_.-]+|\[[^\]]+\]):(?-u:(\d{1,5})\b)"
);
regex!(
    ACCESS,
    r#""(?:GET|POST|PUT|DELETE|HEAD|PATCH|OPTIONS) [^"]*HTTP/(?-u:[\d.]+" (\d{3}))"#
);
// The status column, also when its colour codes were pasted in caret
// notation (`| ^[[97;42m 200 ^[[0m|`).
regex!(
    GIN,
    r"\[GIN\][^|]*(?-u:\|\s*(?:\^\[\[[0-9;]*m\s*)?(\d{3})\s*(?:\^\[\[[0-9;]*m\s*)?\|)"
);
regex!(
    LLAMA_REQUEST,
    r"request: (?:GET|POST|PUT|DELETE|HEAD|OPTIONS) [^\t\n\x0B\x0C\r ]+ [^\t\n\x0B\x0C\r ]+ (?-u:(\d{3}))"
);
// Speculative decoding at work: SGLang's `accept len: 2.31`, vLLM's
// `SpecDecoding metrics: Mean acceptance length: 3.03` and (older) `Draft
// acceptance rate: 71.3%` / `Avg Draft acceptance rate: 65.2%`; SGLang's
// responses (its warmup's too) carry `'spec_accept_length': 2.0`.
regex!(
    ACCEPT_LEN,
    r"(?-u)(?:accept len|accept_length'?|[Mm]ean acceptance length|[Aa]cceptance length|(?:Avg )?Draft acceptance rate): (\d+(?:\.\d+)?)(%?)"
);
regex!(
    PY_EXCEPTION,
    r"(?-u)^(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception)(?::|$)"
);
regex!(
    ANSI,
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|#033\[[0-9;]*m"
);
regex!(
    ENVELOPE,
    r"^(?:\[(?:pod|deployment|job|statefulset)/[^\]\t\n\x0B\x0C\r ]+\] |(?-u:[A-Za-z0-9][\w.-]*\s+\| )|(?-u:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d )[^\t\n\x0B\x0C\r ]+(?-u: [\w.@/-]+(?:\[\d+\])?: )|(?-u:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \| )|(?-u:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)? ))"
);
// A date and time (`2026-01-02 10:00:00`, `[2026-01-02T10:00:00.123]`,
// `docker logs -t`'s `2024-12-17T20:43:27.485381977Z`), or
// zerolog's console time and level (`11:18PM INF`: LocalAI and other Go
// servers).
regex!(
    GENERIC_TIME,
    r"(?-u)^(?:\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\]?(?: - | )|(\d{1,2}:\d\d[AP]M) (?:TRC|DBG|INF|WRN|ERR|FTL|PNC) )"
);
regex!(TORCH_RANK, r"(?-u)^\[rank(\d+)\]:");
regex!(OLD_RANK, r"(?-u)^Rank (\d+): ");
regex!(NCCL_RANK, r"NCCL INFO .*?(?-u:\brank (\d+) nranks (\d+))");
// `MPI size: 4, rank: 2`, and since TensorRT-LLM 1.x `MPI size: 4, MPI
// local size: 4, rank: 2`.
regex!(
    MPI_RANK,
    r"(?-u)MPI size: (\d+), (?:MPI local size: \d+, )?rank: (\d+)"
);
regex!(RANK_GPU, r"(?-u)\bRank (\d+) is using GPU");
regex!(
    WORLD,
    r"(?-u)(?:world_size=(\d+) rank=(\d+)|rank (\d+) in world size (\d+) is assigned)"
);
regex!(
    WORLD_SIZE,
    r"(?-u)(?:MPI size: |nranks |world size |world_size=)(\d+)"
);
// An address-in-use line's port: `('0.0.0.0', 8000)`, `:8000`, `port: 8080`.
regex!(
    PORT_IN,
    r"(?:'[^']*', (?-u:(\d{1,5}))\)|(?-u::(\d{1,5})\b|port:? (\d{1,5})\b))"
);
// A rank tag anywhere in a line of tool output (see `rank_in_text`).
regex!(
    ANY_RANK,
    r"(?:\[[^\]]*?(?-u:((?:(?:DP|PP|TP|EP)\d+ ?)+))\]|(?-u:scheduler((?:_(?:DP|PP|TP|EP)\d+)+)|Worker((?:_(?:DP|PP|TP|EP)\d+)+)))"
);

const LEVELS: &[&str] = &[
    "INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE", "CRITICAL",
];

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

/// Removes what a collector put before the engine's own line: markdown
/// quoting, a CI or collector timestamp, `[pod/name] `, `service-1  | `,
/// a journald header, a log viewer's `2026-05-17 10:44:25.392 | ` (Docker
/// Desktop). A timestamp followed by a level word is the engine's
/// own (TGI writes `2026-…Z  INFO`), so it stays.
pub fn strip_envelope(line: &str) -> &str {
    let mut rest = line;
    for _ in 0..4 {
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if let Some(quoted) = trimmed.strip_prefix('>') {
            rest = quoted.strip_prefix(' ').unwrap_or(quoted);
            continue;
        }
        // Docker Desktop's export: its own time before a compose prefix
        // (`2025-07-16 04:09:13 hub-ollama-1   | …`).
        if let Some(after) = docker_desktop_time(rest).or_else(|| discover_time(rest)) {
            rest = after;
            continue;
        }
        if !may_open_envelope(rest) {
            break;
        }
        let Some(m) = ENVELOPE.as_ref().and_then(|re| re.find(rest)) else {
            break;
        };
        let after = &rest[m.end()..];
        let first_word = after.split_whitespace().next().unwrap_or("");
        if rest.as_bytes().first().is_some_and(u8::is_ascii_digit)
            && (LEVELS.contains(&first_word) || after.starts_with(' '))
        {
            break;
        }
        rest = after;
    }
    rest
}

/// What follows Docker Desktop's `YYYY-MM-DD HH:MM:SS ` when a compose
/// service's prefix comes next.
fn docker_desktop_time(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let shaped = bytes.len() > 22
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b' '
        && bytes[13] == b':'
        && bytes[16] == b':'
        && bytes[19] == b' '
        && bytes[..4].iter().all(u8::is_ascii_digit);
    if !shaped {
        return None;
    }
    let after = line.get(20..)?;
    let name_end = after.find(' ')?;
    let name = &after[..name_end];
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    (valid && after[name_end..].trim_start().starts_with("| ")).then_some(after)
}

/// What follows the time a Kibana or OpenSearch Discover export puts
/// before each message (`May 16, 2026 @ 20:44:54.728    [2026-05-16 …`).
fn discover_time(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    if bytes.len() < 24 || !bytes[0].is_ascii_uppercase() || bytes[3] != b' ' {
        return None;
    }
    let (date, _) = line.get(..24)?.split_once(" @ ")?;
    let (month_day, year) = date.split_once(", ")?;
    let (month, day) = month_day.split_once(' ')?;
    let shaped = month.len() == 3
        && month.bytes().all(|b| b.is_ascii_alphabetic())
        && (1..=2).contains(&day.len())
        && day.bytes().all(|b| b.is_ascii_digit())
        && year.len() == 4
        && year.bytes().all(|b| b.is_ascii_digit());
    if !shaped {
        return None;
    }
    let at = date.len() + 3;
    let time_len = line[at..]
        .bytes()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b':' | b'.'))
        .count();
    let after = &line[at + time_len..];
    (time_len >= 8 && after.starts_with([' ', '\t'])).then(|| after.trim_start())
}

/// The compose service or pod a collector's prefix names (`vllm-1  | …`,
/// `[pod/sglang-0] …`), for a log of several.
pub fn service_of(line: &str) -> Option<&str> {
    let mut line = line.trim_start_matches(['>', ' ']);
    // Docker Desktop's export puts its own time first.
    if let Some(after) = docker_desktop_time(line) {
        line = after;
    }
    // Compose's own word on a container: `vllm-1 exited with code 1`.
    if let Some((name, rest)) = line.split_once(' ')
        && rest.starts_with("exited with code ")
        && !name.contains('|')
    {
        return Some(name);
    }
    if let Some(rest) = line.strip_prefix('[') {
        let (inside, _) = rest.split_once("] ")?;
        let (kind, name) = inside.split_once('/')?;
        return matches!(kind, "pod" | "deployment" | "job" | "statefulset").then_some(name);
    }
    let (name, _) = line.split_once(" | ").or_else(|| line.split_once("\t| "))?;
    let name = name.trim_end();
    (!name.is_empty()
        && !LEVELS.contains(&name)
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    .then_some(name)
}

/// Whether a line can start with one of [`ENVELOPE`]'s forms, judged from
/// the bytes each form needs: `[pod/…] ` opens with `[`, an ISO time with a
/// digit, `service-1  | ` with a letter or digit and holds a `|`, a journald
/// header with `Mmm dd hh:` (a space at 3 and a colon at 9). Rejecting the
/// rest first spares most lines the pattern.
fn may_open_envelope(line: &str) -> bool {
    let bytes = line.as_bytes();
    match bytes.first() {
        Some(b'[' | b'0'..=b'9') => true,
        Some(first) if first.is_ascii_alphabetic() => {
            memchr::memchr(b'|', bytes).is_some()
                || (first.is_ascii_uppercase()
                    && bytes.get(3) == Some(&b' ')
                    && bytes.get(9) == Some(&b':'))
        }
        _ => false,
    }
}

/// Every engine's dialect, in the order their prefixes are tried: SGLang's
/// `[time TPn]` before the generic forms the others share.
const DIALECTS: &[Dialect] = &[
    super::sglang_log::DIALECT,
    super::vllm_log::DIALECT,
    super::tgi_log::DIALECT,
    super::ollama_log::DIALECT,
    super::trtllm_log::DIALECT,
    super::llamacpp_log::DIALECT,
];

/// Reads a line's engine prefix: each engine's grammar, in turn.
pub fn prefix(line: &str) -> Prefix {
    let found = DIALECTS.iter().find_map(|dialect| (dialect.prefix)(line));
    if let Some(mut prefix) = found {
        // After an engine's own prefix the tag comes first (`] [rank3]:`);
        // checked by its first bytes, as this runs on every line read.
        let message = line.get(prefix.message..).unwrap_or("").trim_start();
        if prefix.rank.is_none() && prefix.aux_rank.is_none() && message.starts_with("[rank") {
            prefix.aux_rank = torch_rank(message);
        }
        return prefix;
    }
    let mut result = Prefix::default();
    // Each pattern is anchored at a fixed opening: lines without it (most
    // of what an agent reads) are rejected without running the pattern.
    let bytes = line.as_bytes();
    let time_opening = bytes.first().is_some_and(u8::is_ascii_digit)
        || (bytes.first() == Some(&b'[') && bytes.get(1).is_some_and(u8::is_ascii_digit));
    if time_opening && let Some(c) = capture(&GENERIC_TIME, line) {
        result.time = c.get(1).or_else(|| c.get(2)).map(|m| m.as_str().to_owned());
        result.message = c.get(0).map_or(0, |m| m.end());
    }
    let message = &line[result.message..];
    if let Some(rank) = torch_rank(message) {
        result.aux_rank = Some(rank);
    } else if message.starts_with("Rank ")
        && let Some(c) = capture(&OLD_RANK, message)
    {
        result.rank = c.get(1).map(|m| format!("rank {}", m.as_str()));
        result.message += c.get(0).map_or(0, |m| m.end());
    }
    result
}

/// torch's `[rankN]:` tag, as `rank N`. It comes first in the message, or
/// after what a logger put before it (`] [rank3]:`, `10:00:01 [rank3]:`,
/// `- INFO - [rank3]:`), so it is looked for near the start only, where no
/// message text is yet.
fn torch_rank(message: &str) -> Option<String> {
    let head = &message[..floor_char_boundary(message, 48)];
    let at = memchr::memchr_iter(b'[', head.as_bytes())
        .find(|&at| head.as_bytes()[at..].starts_with(b"[rank"))?;
    let c = capture(&TORCH_RANK, &message[at..])?;
    c.get(1).map(|m| format!("rank {}", m.as_str()))
}

/// Classifies one log line (one `\r`-separated segment of it, ANSI stripped).
pub fn classify(line: &str) -> LogLine {
    classify_with(line, true)
}

/// [`classify`] for a line known to hold none of the trigger literals (see
/// [`trigger_starts`]): no template can match it, so it has no signal and
/// the per-line literal search is skipped.
pub fn classify_untriggered(line: &str) -> LogLine {
    classify_with(line, false)
}

/// Where the trigger literals start in a text, in order, found in one pass
/// over the whole text instead of one per line. A line holds a trigger
/// literal exactly when one of these starts in it: the literals hold no
/// line break, so no match runs from one line into the next, and a line's
/// first occurrence is where the scan, entering the line, stops next.
/// `None` when the scanner could not be built; ANSI codes must be gone
/// (removing one can join a literal).
pub fn trigger_starts(text: &str) -> Option<Vec<usize>> {
    let scan = TRIGGER_SCAN.as_ref()?;
    #[cfg(not(target_family = "wasm"))]
    let starts = scan.find_iter(text).map(|found| found.start()).collect();
    #[cfg(target_family = "wasm")]
    let starts = scan.starts(text.as_bytes());
    Some(starts)
}

fn classify_with(line: &str, may_signal: bool) -> LogLine {
    let line = strip_envelope(line);
    // A JSON log object: read the plain line it stands for.
    if line.starts_with('{')
        && let Some(plain) = super::json_log::text_of(line)
        && !plain.starts_with('{')
    {
        return classify_with(&plain, may_signal);
    }
    let found = prefix(line);
    let message = line.get(found.message..).unwrap_or("").trim_start();
    let mut result = LogLine {
        time: found.time,
        rank: found.rank,
        aux_rank: found.aux_rank,
        signal: None,
    };
    body_ranks(message, &mut result);
    if may_signal {
        result.signal = signal(message, line);
    }
    result
}

/// A line's message without collector envelope, ANSI codes or engine
/// prefix, trimmed and capped, for reports.
pub fn message_of(line: &str) -> String {
    let first = line.lines().next().unwrap_or("");
    let clean = strip_ansi(first);
    let line = strip_envelope(&clean);
    if line.starts_with('{')
        && let Some(plain) = super::json_log::text_of(line)
        && !plain.starts_with('{')
    {
        return message_of(&plain);
    }
    let found = prefix(line);
    let message = line.get(found.message..).unwrap_or(line).trim();
    let cut = floor_char_boundary(message, 500);
    message[..cut].to_owned()
}

/// Rank tags written in the message itself (NCCL, MPI, `world_size=… rank=…`,
/// vLLM's worker names `VllmWorker-3`).
fn body_ranks(message: &str, result: &mut LogLine) {
    if result.rank.is_none()
        && let Some(at) = message.find("VllmWorker-")
    {
        let digits: String = message[at + "VllmWorker-".len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if !digits.is_empty() {
            result.rank = Some(format!("rank {digits}"));
        }
    }
    if !message.contains("ank") {
        return;
    }
    if let Some(c) = capture(&MPI_RANK, message).or_else(|| capture(&RANK_GPU, message)) {
        let rank = c.get(c.len() - 1).map(|m| m.as_str());
        if result.rank.is_none() {
            result.rank = rank.map(|r| format!("rank {r}"));
        }
    } else if let Some(c) = capture(&NCCL_RANK, message).or_else(|| capture(&WORLD, message)) {
        let rank = if message.contains("NCCL INFO") {
            c.get(1)
        } else {
            c.get(2).or_else(|| c.get(3))
        };
        if result.aux_rank.is_none() {
            result.aux_rank = rank.map(|r| format!("rank {}", r.as_str()));
        }
    }
}

/// The first `host:port` in a text.
fn host_port(text: &str) -> Option<(String, Option<u16>)> {
    let c = capture(&HOST_PORT, text)?;
    Some((
        c.get(1).map(|m| m.as_str().to_owned()).unwrap_or_default(),
        c.get(2).and_then(|m| m.as_str().parse().ok()),
    ))
}

/// `took 33.9 seconds`, `in 218.62s`, `in 5.65 seconds`: the first duration.
fn seconds_in(text: &str) -> Option<f64> {
    capture(&TOOK_SECONDS, text)
        .and_then(|c| c.get(1))
        .and_then(|m| crate::decimal::parse(m.as_str()))
}

// Groups of templates, so one scan of a line decides which to try.
const SETTINGS: u16 = 1;
const FAILURE: u16 = 1 << 1;
const SHARDS_BAR: u16 = 1 << 2;
const START: u16 = 1 << 3;
const WEIGHTS: u16 = 1 << 4;
const KV: u16 = 1 << 5;
const GRAPH: u16 = 1 << 6;
const BIND: u16 = 1 << 7;
const ACCEPT: u16 = 1 << 8;
const REQUEST: u16 = 1 << 9;

/// Every literal a group's templates need at least one of. Most lines of a
/// big log match one group or none, and one Aho-Corasick scan finds out,
/// instead of a hundred substring searches per line.
const TRIGGERS: &[(&str, u16)] = &[
    ("server_args=", SETTINGS),
    ("non-default args", SETTINGS),
    ("Namespace(", SETTINGS),
    ("with config: ", SETTINGS),
    ("Args {", SETTINGS),
    ("server config", SETTINGS),
    ("starting llama server", SETTINGS | WEIGHTS),
    ("starting runner", SETTINGS | WEIGHTS),
    ("loading model '", SETTINGS),
    (".gguf", SETTINGS),
    ("llama_model_loader", SETTINGS),
    ("CUDA out of memory", FAILURE),
    ("OutOfMemoryError", FAILURE),
    ("Not enough memory", FAILURE),
    ("cudaErrorMemoryAllocation", FAILURE),
    ("rror: out of memory", FAILURE),
    ("No available memory", FAILURE),
    ("available KV cache memory", FAILURE),
    ("desired GPU memory utilization", FAILURE),
    ("cudaMalloc failed", FAILURE),
    ("failed to allocate CUDA", FAILURE),
    ("PU out of memory", FAILURE),
    ("insufficient GPU memory", FAILURE),
    ("CUDA error", FAILURE),
    ("NCCL error", FAILURE),
    ("nccl", FAILURE | START),
    ("NCCL", FAILURE | START),
    ("Watchdog caught", FAILURE),
    ("watchdog", FAILURE),
    ("ddress already in use", FAILURE),
    ("EADDRINUSE", FAILURE),
    ("Errno 98", FAILURE),
    ("Only one usage of each socket address", FAILURE),
    ("couldn't bind", FAILURE),
    ("failed: port is already allocated", FAILURE),
    (" is not available", FAILURE),
    ("Killed", FAILURE),
    ("killed", FAILURE),
    ("SIGKILL", FAILURE),
    ("code 137", FAILURE),
    ("exitcode=137", FAILURE),
    ("signal 9", FAILURE),
    ("EngineDead", FAILURE),
    ("encountered a fatal error", FAILURE),
    ("initialization failed", FAILURE),
    ("Initialization failed", FAILURE),
    ("failed to start", FAILURE),
    ("died unexpectedly", FAILURE),
    ("scheduler is dead", FAILURE),
    ("error loading llama server", FAILURE),
    ("timed out waiting for llama runner", FAILURE),
    ("hit an exception", FAILURE),
    ("Shard", FAILURE | WEIGHTS),
    ("Webserver", FAILURE),
    ("has terminated", FAILURE),
    ("llama runner terminated", FAILURE),
    ("ROCm error", FAILURE),
    ("Memory access fault", FAILURE),
    ("HIP error", FAILURE),
    ("uncaught exception", FAILURE),
    ("CUDA driver error", FAILURE),
    ("CUDA_ERROR_", FAILURE),
    ("Failed to initialize executor", FAILURE),
    ("egmentation fault", FAILURE),
    ("Aborted", FAILURE),
    ("Fatal error", FAILURE),
    ("GGML_ASSERT", FAILURE),
    ("alloc(): ", FAILURE),
    ("free(): ", FAILURE),
    ("double free or corruption", FAILURE),
    ("corrupted size", FAILURE),
    ("stack smash", FAILURE),
    ("abort", FAILURE),
    ("bus error", FAILURE),
    ("Bus error", FAILURE),
    ("Illegal instruction", FAILURE),
    ("illegal hardware instruction", FAILURE),
    ("oint exception", FAILURE),
    ("Terminated", FAILURE),
    ("terminated", FAILURE),
    ("terminate called after throwing", FAILURE),
    ("model loading error", FAILURE),
    ("failed to load model", FAILURE),
    ("Traceback", FAILURE),
    ("File \"", FAILURE),
    ("Error", FAILURE),
    ("Exception", FAILURE),
    ("sigquit", FAILURE),
    ("Child process", FAILURE),
    ("checkpoint shards:", SHARDS_BAR),
    ("loading shards:", SHARDS_BAR),
    // TensorRT-LLM's PyTorch backend: `Loading weights concurrently: 63%|…|
    // 703/1113 [01:02<…]`, one step per module.
    ("Loading weights:", SHARDS_BAR),
    ("Loading weights concurrently:", SHARDS_BAR),
    ("vLLM API server version", START),
    ("build: ", START),
    ("TensorRT-LLM version", START),
    ("TensorRT LLM version", START),
    ("Starting TensorRT-LLM", START),
    ("Init torch distributed", START),
    ("world_size=", START),
    ("in world size", START),
    ("MPI size: ", START),
    ("Load weight begin", WEIGHTS),
    ("Starting shard", WEIGHTS),
    ("Waiting for shard", WEIGHTS),
    ("Starting to load model", WEIGHTS),
    ("main: loading model", WEIGHTS),
    ("loading model tensors", WEIGHTS),
    ("layers to GPU", WEIGHTS),
    ("llm server loading model", WEIGHTS),
    ("oad weight end", WEIGHTS),
    ("Loading drafter model", WEIGHTS),
    ("drafter.load_model(", WEIGHTS),
    ("draft_worker = ", WEIGHTS),
    (" on port ", WEIGHTS),
    ("draft runner ready", WEIGHTS),
    ("drafter._propose(", WEIGHTS),
    ("propose_draft_token_ids(", WEIGHTS),
    ("speculative implementation 'draft", WEIGHTS),
    ("Detected ", WEIGHTS),
    ("weights took", WEIGHTS),
    ("Model loading took", WEIGHTS),
    ("runner started in", WEIGHTS),
    ("main: model loaded", WEIGHTS),
    ("Loaded engine size", WEIGHTS),
    ("KV Cache is allocated", KV),
    ("KV cache size", KV),
    ("# GPU blocks:", KV),
    ("Available KV cache memory", KV),
    ("KV-cache blocks:", KV),
    ("llama_kv_cache", KV),
    ("paged KV cache", KV),
    ("kv cache\" device=", KV),
    // Every graph template says capture or capturing; `cuda graph: True`
    // in each SGLang batch line does not.
    ("aptur", GRAPH),
    ("APTUR", GRAPH),
    ("Uvicorn running on", BIND),
    ("Starting vLLM", BIND),
    ("Started HTTPService at", BIND),
    ("HTTP server is listening", BIND),
    ("HTTP server listening", BIND),
    ("server is listening on", BIND),
    ("starting the main loop", BIND),
    ("Listening on ", BIND),
    ("Application startup complete", BIND),
    ("fired up and ready to roll", BIND),
    ("Connected", BIND),
    // Servers that are not inference engines, as the agent sees them in
    // a launch's output: Python's http.server, Flask/Werkzeug, Vite, Next
    // 12 and 13+, Node/Express/Go (`Listening on port 3000`, `Server
    // listening on http://…`, `listening on :8080`).
    ("Serving HTTP on", BIND),
    ("Running on http", BIND),
    ("running on http", BIND),
    ("running at http", BIND),
    ("running \u{2192} http", BIND),
    ("running -> http", BIND),
    ("Running on all addresses", BIND),
    ("bound on host", BIND),
    ("Local:", BIND),
    ("Local URL: ", BIND),
    ("started server on", BIND),
    ("\u{2713} Ready in", BIND),
    ("Application started", BIND),
    ("istening on", BIND),
    ("istening at http", BIND),
    ("serving on port ", BIND),
    ("running on port ", BIND),
    ("started on port ", BIND),
    ("accept len:", ACCEPT),
    ("accept_length'", ACCEPT),
    ("acceptance length:", ACCEPT),
    ("acceptance rate:", ACCEPT),
    ("draft acceptance = ", ACCEPT),
    ("draft acceptance rate = ", ACCEPT),
    ("draft_n_accepted", ACCEPT),
    ("HTTP/1", REQUEST),
    ("HTTP/2", REQUEST),
    ("[GIN]", REQUEST),
    ("request: ", REQUEST),
    ("Success", REQUEST),
    ("Prefill batch", REQUEST),
    ("Decode batch", REQUEST),
    ("launch_slot_", REQUEST),
    ("Avg prompt throughput:", REQUEST),
];

/// The trigger literals as one search. Natively aho-corasick's DFA, the
/// fastest kind there: this scan walks every byte of every output an agent
/// read (over a hundred literals leave no SIMD prefilter), and the DFA walks
/// about twice as fast as the contiguous NFA the builder would choose. In
/// wasm a [`LiteralSet`], as fast there and far smaller (see its module);
/// a test holds the two to the same occurrences on every example.
#[cfg(not(target_family = "wasm"))]
static TRIGGER_SCAN: LazyLock<Option<aho_corasick::AhoCorasick>> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(TRIGGERS.iter().map(|(needle, _)| needle))
        .ok()
});

#[cfg(target_family = "wasm")]
static TRIGGER_SCAN: LazyLock<Option<LiteralSet>> =
    LazyLock::new(|| Some(LiteralSet::new(TRIGGERS.iter().map(|(needle, _)| needle))));

/// The index in [`TRIGGERS`] of every occurrence of a trigger in `text`,
/// overlapping ones too; `None` when the scanner could not be built.
fn each_trigger(text: &str, mut each: impl FnMut(usize)) -> Option<()> {
    let scan = TRIGGER_SCAN.as_ref()?;
    #[cfg(not(target_family = "wasm"))]
    for found in scan.find_overlapping_iter(text) {
        each(found.pattern().as_usize());
    }
    #[cfg(target_family = "wasm")]
    scan.each_overlapping(text.as_bytes(), |_, _, index| each(index));
    Some(())
}

/// The groups whose templates may match this message.
fn groups(message: &str) -> u16 {
    let mut groups = 0;
    let scanned = each_trigger(message, |index| {
        groups |= TRIGGERS.get(index).map_or(0, |t| t.1);
    });
    // Without the scanner every group is tried: slower, same answers.
    scanned.map_or(u16::MAX, |()| groups)
}

fn signal(message: &str, line: &str) -> Option<Signal> {
    let groups = groups(message);
    if groups == 0 {
        return None;
    }
    let has = |needle: &str| message.contains(needle);
    // Settings dumps first: they quote arbitrary paths and flags.
    if groups & SETTINGS != 0
        && let Some(settings) = settings_dump(message)
    {
        return Some(Signal::Settings(Box::new(settings)));
    }
    if groups & FAILURE != 0
        && let Some(kind) = failure(message).or_else(|| logged_frame(message, line))
    {
        let port = (kind == FailureKind::AddressInUse)
            .then(|| failed_port(message))
            .flatten();
        return Some(Signal::Failure { kind, port });
    }
    if groups & SHARDS_BAR != 0
        && (has("checkpoint shards:")
            || has("loading shards:")
            || has("Loading weights:")
            || has("Loading weights concurrently:"))
    {
        let c = capture(&SHARDS, message)?;
        let number = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
        let elapsed = match (number(4), number(5), number(6)) {
            (hours, Some(minutes), Some(seconds)) => Some(
                hours
                    .unwrap_or(0)
                    .saturating_mul(3600)
                    .saturating_add(minutes.saturating_mul(60))
                    .saturating_add(seconds),
            ),
            _ => None,
        };
        return Some(Signal::ShardProgress {
            percent: number(1)?,
            done: number(2)?,
            total: number(3)?,
            elapsed_seconds: elapsed,
        });
    }
    if groups & START != 0
        && let Some(signal) = start_and_dist(message)
    {
        return Some(signal);
    }
    if groups & WEIGHTS != 0
        && let Some(signal) = weights(message, line)
    {
        return Some(signal);
    }
    if groups & KV != 0
        && (has("KV Cache is allocated")
            || has("GPU KV cache size")
            || has("# GPU blocks:")
            || has("Available KV cache memory")
            || has("KV-cache blocks:")
            || has("llama_kv_cache")
            || has("paged KV cache")
            // Ollama's own engine: `msg="kv cache" device=CUDA0 size="936.0 MiB"`.
            || has("kv cache\" device="))
    {
        return Some(Signal::KvCacheAllocated);
    }
    if groups & GRAPH != 0
        && let Some(signal) = cuda_graph(message)
    {
        return Some(signal);
    }
    if groups & BIND != 0
        && let Some(signal) = bind_and_ready(message, line)
    {
        return Some(signal);
    }
    if groups & ACCEPT != 0 {
        // A mean length above one token, or any share of drafts accepted.
        let accepting = capture(&ACCEPT_LEN, message).is_some_and(|c| {
            let value = c.get(1).and_then(|m| crate::decimal::parse(m.as_str()));
            let rate = c.get(2).is_some_and(|m| m.as_str() == "%");
            value.is_some_and(|v| if rate { v > 0.0 } else { v > 1.0 })
        });
        // llama.cpp's slot timing: `draft acceptance = 0.65000 (   65
        // accepted /   100 generated)`, a share of one.
        let share = message
            .split_once("draft acceptance = ")
            .or_else(|| message.split_once("draft acceptance rate = "))
            .is_some_and(|(_, rest)| {
                rest.split_whitespace()
                    .next()
                    .and_then(crate::decimal::parse)
                    .is_some_and(|v| v > 0.0)
            });
        // llama.cpp's `timings` in a response or stream chunk (also as a
        // log quotes it, escaped): `"draft_n":1093,"draft_n_accepted":810`.
        let counted = message
            .split_once("draft_n_accepted")
            .is_some_and(|(_, rest)| {
                let rest = rest.trim_start_matches(['\\', '"', ':', '=', ' ']);
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                rest[..digits].parse::<u64>().is_ok_and(|n| n > 0)
            });
        if accepting || share || counted {
            return Some(Signal::DraftAccepting);
        }
    }
    if groups & REQUEST != 0 {
        return requests(message, line);
    }
    None
}

/// Start banners and distributed init.
fn start_and_dist(message: &str) -> Option<Signal> {
    let has = |needle: &str| message.contains(needle);
    if has("vLLM API server version")
        || message.starts_with("build: ")
        || has("TensorRT-LLM version:")
        // 1.2 and later: `[TensorRT-LLM] TensorRT LLM version: 1.2.0rc2`.
        || has("TensorRT LLM version:")
        || has("Starting TensorRT-LLM")
    {
        return Some(Signal::ProcessStart);
    }
    if has("Init torch distributed begin") {
        return Some(Signal::DistInit {
            done: false,
            world_size: None,
        });
    }
    if has("Init torch distributed ends")
        || (has("NCCL INFO") && has("Init COMPLETE"))
        || has("vLLM is using nccl==")
        || (has("world_size=") && has("backend=nccl"))
        || (has(" in world size ") && has("is assigned as"))
        || has("MPI size: ")
    {
        let world_size = capture(&WORLD_SIZE, message)
            .and_then(|c| c.get(1))
            .and_then(|m| m.as_str().parse().ok());
        return Some(Signal::DistInit {
            done: true,
            world_size,
        });
    }
    None
}

/// Weight loading, drafter loading.
fn weights(message: &str, line: &str) -> Option<Signal> {
    let has = |needle: &str| message.contains(needle);
    let llama_main = super::llamacpp_log::without_module(message);
    if has("Load weight begin")
        || has("Starting to load model")
        || message.starts_with("Starting shard")
        // Repeated every ten seconds while a shard loads: a log cut after
        // `Starting shard` still shows the weights loading.
        || message.starts_with("Waiting for shard to be ready")
        || llama_main.starts_with("main: loading model")
        // llama.cpp's own loader, also under Ollama's runner, which has no
        // `main:` line.
        || message.starts_with("load_tensors: loading model tensors")
        // Offload placement, printed as the weights go to the devices, by
        // llama.cpp (`load_tensors: offloaded 41/41 layers to GPU`) and by
        // Ollama's own engine (`msg="offloaded 41/41 layers to GPU"`).
        || (has("layers to GPU") && (has("offloaded ") || has("offloading ")))
        || has("starting llama server")
        || has("starting runner")
        || has("llm server loading model")
    {
        return Some(Signal::WeightsBegin);
    }
    if has("oad weight end") {
        let arch = capture(&WEIGHTS_END, message)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_owned());
        let draft = arch.as_deref().is_some_and(is_draft_architecture);
        let seconds = capture(&ELAPSED, message)
            .and_then(|c| c.get(1))
            .and_then(|m| crate::decimal::parse(m.as_str()));
        return Some(Signal::WeightsEnd {
            arch,
            draft,
            seconds,
        });
    }
    // vLLM's start marker, and the frames of a traceback through the
    // drafter's construction or loading (vLLM's `self.drafter.load_model(`,
    // SGLang's `self.draft_worker = EAGLEWorker(`): it was on its way in.
    if has("Loading drafter model") || has("drafter.load_model(") || has("draft_worker = ") {
        return Some(Signal::DrafterBegin);
    }
    // A wrapper starting its engine: `(vLLM) Starting vllm-server on port
    // 8001...` (Lemonade), `Starting llama-server on port 8080`: the port
    // it was told to serve on.
    if let Some(at) = message.find("Starting ")
        && let Some(port) = message[at..]
            .split_once(" on port ")
            .and_then(|(_, rest)| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|digits| digits.parse::<u16>().ok())
    {
        return Some(Signal::Settings(Box::new(ServerSettings {
            port: Some(port),
            ..ServerSettings::default()
        })));
    }
    // SGLang's DFLASH drafter: `DFLASH draft runner ready. mask_token=…`
    // once its draft model is in and wired to the target.
    // llama.cpp (2026) once its draft model or MTP head is wired in:
    // `common_speculative_init: adding speculative implementation
    // 'draft-mtp'`.
    if let Some((_, rest)) = message.split_once("adding speculative implementation '")
        && rest.starts_with("draft")
    {
        return Some(Signal::WeightsEnd {
            arch: rest.split('\'').next().map(str::to_owned),
            draft: true,
            seconds: None,
        });
    }
    if has("draft runner ready") {
        return Some(Signal::WeightsEnd {
            arch: None,
            draft: true,
            seconds: None,
        });
    }
    // A frame of the drafter proposing tokens, in the traceback of a crash
    // while serving (`self.drafter._propose(`, vLLM's
    // `propose_draft_token_ids(`): the drafter was in and at work.
    if has("drafter._propose(") || has("propose_draft_token_ids(") {
        return Some(Signal::WeightsEnd {
            arch: None,
            draft: true,
            seconds: None,
        });
    }
    if let Some(rest) = message.strip_prefix("Detected ")
        && (rest.starts_with("EAGLE") || rest.starts_with("MTP"))
    {
        let arch = rest.split([' ', '.']).next().map(str::to_owned);
        return Some(Signal::WeightsEnd {
            arch,
            draft: true,
            seconds: None,
        });
    }
    let took = |marker: &str| {
        message.find(marker).map(|at| Signal::WeightsEnd {
            arch: None,
            draft: false,
            seconds: seconds_in(&message[at + marker.len()..]),
        })
    };
    if has("Loading weights took") {
        return took("took");
    }
    if has("Model loading took") {
        // `Model loading took 15.27 GiB memory and 34.2 seconds`.
        return took(" and ");
    }
    if message.starts_with("Shard ready in") {
        return took("ready in");
    }
    if has("llama runner started in") {
        return took("started in");
    }
    if llama_main.starts_with("main: model loaded")
        || has("Loaded engine size")
        || (has("Loading model weights took") && line.contains("GB"))
    {
        return Some(Signal::WeightsEnd {
            arch: None,
            draft: false,
            seconds: None,
        });
    }
    None
}

fn cuda_graph(message: &str) -> Option<Signal> {
    let lower = message.to_ascii_lowercase();
    let has = |needle: &str| lower.contains(needle);
    let draft = has("draft");
    if has("graph capturing finished") {
        return Some(Signal::CudaGraphEnd { draft });
    }
    if has("capturing cuda graphs")
        || has("capturing cudagraphs")
        || has("capturing the model for cuda graphs")
    {
        return Some(Signal::CudaGraphBegin { draft });
    }
    if has("capture") && has("cuda graph") {
        if has(" begin") {
            return Some(Signal::CudaGraphBegin { draft });
        }
        if has(" end") && !has("failed") {
            return Some(Signal::CudaGraphEnd { draft });
        }
    }
    None
}

fn bind_and_ready(message: &str, line: &str) -> Option<Signal> {
    let has = |needle: &str| message.contains(needle);
    let bound = |text: &str| host_port(text).map(|(host, port)| Signal::Bound { host, port });
    if let Some(at) = message.find("Uvicorn running on") {
        return bound(&message[at..]);
    }
    if let Some(at) = message
        .find("Starting vLLM API server")
        .or_else(|| message.find("Starting vLLM server"))
    {
        return bound(&message[at..]);
    }
    if let Some(at) = message.find("Started HTTPService at") {
        return bound(&message[at..]);
    }
    // llama.cpp's server of early 2024 (JSON records): it listens once the
    // model is loaded, so listening is readiness.
    if message.contains("HTTP server listening")
        && let Some(at) = message.find("port=")
    {
        let port = message[at + 5..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|p| p.parse().ok());
        return Some(Signal::Ready { port });
    }
    if let Some(at) = message.find("HTTP server is listening, hostname: ") {
        // llama.cpp binds before it loads: `hostname: H, port: P, …`.
        let rest = &message[at + "HTTP server is listening, hostname: ".len()..];
        let host = rest.split(',').next().unwrap_or("").trim().to_owned();
        let port = rest
            .split("port: ")
            .nth(1)
            .and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok());
        return Some(Signal::Bound { host, port });
    }
    if let Some(at) = message.find("server is listening on") {
        let port = host_port(&message[at..]).and_then(|(_, port)| port);
        return Some(Signal::Ready { port });
    }
    if has("starting the main loop") {
        return Some(Signal::Ready { port: None });
    }
    if let Some(rest) = message.strip_prefix("Listening on ")
        && rest.contains("(version")
    {
        return bound(rest);
    }
    if has("Application startup complete") {
        return Some(Signal::AppStartupComplete);
    }
    if has("The server is fired up and ready to roll") {
        return Some(Signal::Ready { port: None });
    }
    if message.trim_end() == "Connected" && line.contains("text_generation_router") {
        return Some(Signal::Ready { port: None });
    }
    other_server_bind(message, line)
}

/// The bind and readiness lines of servers that are not inference
/// engines: `Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/)`
/// (http.server), ` * Running on http://127.0.0.1:5000` (Flask), `➜
/// Local:   http://localhost:5173/` (Vite; Next's `- Local:` banner comes
/// before it is ready, so only its `✓ Ready in 1.2s` counts), `ready -
/// started server on 0.0.0.0:3000` (Next 12), `Listening on port 3000`,
/// `Server listening on http://localhost:8080`, `listening on :8080`.
/// Ollama's runner says `Server listening on` of its internal port in
/// logfmt (`msg="…"`): not the API's, so not here.
fn other_server_bind(message: &str, line: &str) -> Option<Signal> {
    // A writer's sentence that nothing binds ("So nothing is listening on
    // port 8000.", "the app is not running on port 3000") is no bind.
    if NOT_BOUND.iter().any(|w| message.contains(w)) {
        return None;
    }
    let bound = |text: &str| host_port(text).map(|(host, port)| Signal::Bound { host, port });
    if let Some(at) = message.find("Serving HTTP on ") {
        let rest = &message[at + "Serving HTTP on ".len()..];
        if let Some(signal) = bound(rest) {
            return Some(signal);
        }
        // `Serving HTTP on 0.0.0.0 port 8000 ...` without the URL.
        let host = rest.split_whitespace().next().unwrap_or("").to_owned();
        let port = rest
            .split(" port ")
            .nth(1)
            .and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok());
        return port.map(|port| Signal::Bound {
            host,
            port: Some(port),
        });
    }
    if let Some(at) = message.find("Running on http") {
        return bound(&message[at..]);
    }
    // An app's own banner: `Boxes is running → http://localhost:3000`,
    // `Server running at http://127.0.0.1:8080/`, `app running on http://…`.
    for lead in [
        "running on http",
        "running at http",
        "running \u{2192} http",
        "running -> http",
    ] {
        if let Some(at) = message.find(lead) {
            return bound(&message[at..]);
        }
    }
    // Express templates' `[express] serving on port 5000`, `Server running
    // on port 3000`, `Server started on port 8080`, `Example app listening
    // at http://localhost:3000`.
    for lead in ["serving on port ", "running on port ", "started on port "] {
        if let Some(at) = message.find(lead) {
            return bound_to(&message[at + lead.len()..]);
        }
    }
    if let Some(at) = message.find("istening at http") {
        return bound(&message[at + "istening at ".len()..]);
    }
    // Go Fiber's start-up box: `│ (bound on host 0.0.0.0 and port 8080) │`.
    if let Some(at) = message.find("bound on host ") {
        let rest = &message[at + "bound on host ".len()..];
        let mut words = rest.split_whitespace();
        let host = words.next().unwrap_or("").to_owned();
        let port = rest
            .split_once("and port ")
            .and_then(|(_, p)| p.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok());
        return port.map(|port| Signal::Bound {
            host,
            port: Some(port),
        });
    }
    // Werkzeug's ` * Running on all addresses (0.0.0.0)`, above the URL
    // lines (which a terminal rendering often collapses).
    if message.contains("Running on all addresses") {
        return Some(Signal::Bound {
            host: "0.0.0.0".to_owned(),
            port: None,
        });
    }
    // Streamlit's `  Local URL: http://localhost:8502` (its `Network URL:`
    // names another interface of the same bind).
    if let Some(rest) = message.trim_start().strip_prefix("Local URL: ") {
        return bound(rest);
    }
    if let Some(at) = message.find("Local:") {
        let before = message[..at].trim_end();
        return (before.ends_with('\u{279c}') || before.ends_with('>'))
            .then(|| bound(&message[at..]))
            .flatten();
    }
    if let Some(at) = message.find("started server on ") {
        return bound(&message[at..]);
    }
    if message.contains("\u{2713} Ready in") {
        return Some(Signal::Ready { port: None });
    }
    // python-telegram-bot's `Application started` (a bot serves by polling
    // out, on no port) and ASP.NET Core's `Application started. Press
    // Ctrl+C to shut down.`: the app's own word that it is up.
    if message.trim_start().starts_with("Application started") {
        return Some(Signal::Ready { port: None });
    }
    let at = message.find("istening on ")?;
    if line.contains("msg=") && line.contains("level=") {
        return None;
    }
    let rest = message[at + "istening on ".len()..].trim_start();
    if let Some(port) = rest
        .strip_prefix("port ")
        .or_else(|| rest.strip_prefix(':'))
    {
        return bound_to(port);
    }
    bound(rest)
}

/// Words that deny a bind in the sentence that names it.
const NOT_BOUND: &[&str] = &[
    "othing is listening",
    "othing listening",
    "not listening",
    "n't listening",
    "not running on",
    "n't running on",
    "no longer",
];

/// A bind to the port number `text` starts with (`3000!`, `8080.`), on no
/// host the line names.
fn bound_to(text: &str) -> Option<Signal> {
    let port = text
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|p| p.parse().ok());
    port.map(|port| Signal::Bound {
        host: String::new(),
        port: Some(port),
    })
}

fn requests(message: &str, line: &str) -> Option<Signal> {
    let has = |needle: &str| message.contains(needle);
    let status = |c: Captures<'_>| c.get(1).and_then(|m| m.as_str().parse().ok());
    if (has("HTTP/1") || has("HTTP/2"))
        && let Some(c) = capture(&ACCESS, message)
    {
        return Some(Signal::Request { status: status(c) });
    }
    if has("[GIN]")
        && let Some(c) = capture(&GIN, message)
    {
        return Some(Signal::Request { status: status(c) });
    }
    if has("request: ")
        && let Some(c) = capture(&LLAMA_REQUEST, message)
    {
        return Some(Signal::Request { status: status(c) });
    }
    if message.trim_end() == "Success" && line.contains("text_generation_router") {
        return Some(Signal::Request { status: Some(200) });
    }
    if has("Prefill batch") || has("Decode batch") || has("launch_slot_") {
        return Some(Signal::Request { status: None });
    }
    if has("Avg prompt throughput:") && !has("Running: 0 reqs") {
        return Some(Signal::Request { status: None });
    }
    None
}

/// A Python traceback frame, `  File "/x/y.py", line 12, in f`, whatever
/// prefix a collector put before it.
fn is_frame(piece: &str) -> bool {
    piece
        .find("File \"")
        .is_some_and(|at| piece[at..].contains("\", line "))
}

/// A Python traceback frame logged at ERROR level line by line, as vLLM's
/// worker and engine-core processes log the exception that kills them
/// (`(Worker_TP3 pid=993) ERROR … [multiproc_executor.py:941]   File "…",
/// line 5445, in load_model`): an exception even when the excerpt is cut
/// above its `Traceback` line and below its last frame. A frame printed bare
/// (a handled request's traceback, a warning's) says nothing of the level.
fn logged_frame(message: &str, line: &str) -> Option<FailureKind> {
    let prefix = line.get(..line.len().checked_sub(message.len())?)?;
    (message.starts_with("File \"") && is_frame(message) && prefix.contains("ERROR"))
        .then_some(FailureKind::Exception)
}

fn failure(message: &str) -> Option<FailureKind> {
    let has = |needle: &str| message.contains(needle);
    if has("CUDA out of memory")
        || has("OutOfMemoryError")
        || has("Not enough memory")
        || has("cudaErrorMemoryAllocation")
        // The CUDA runtime's and driver's own words (a kernel or allocator
        // outside PyTorch's caching allocator): `CUDA error: out of memory`.
        || has("CUDA error: out of memory")
        || has("CUDA driver error: out of memory")
        || has("No available memory for the cache blocks")
        || has("larger than the available KV cache memory")
        || has("is less than desired GPU memory utilization")
        || (has("cudaMalloc failed") && has("out of memory"))
        || has("failed to allocate CUDA")
        // Other accelerators' allocators (`NPU out of memory`, Ascend;
        // `XPU out of memory`, Intel) and TensorRT-LLM's executor
        // (`Executor creation failed due to insufficient GPU memory`).
        || has("PU out of memory")
        || has("insufficient GPU memory")
    {
        return Some(FailureKind::OutOfMemory);
    }
    if has("NCCL error")
        || has("ncclSystemError")
        || has("ncclInternalError")
        || has("ncclUnhandledCudaError")
        || has("ncclRemoteError")
        || has("Watchdog caught collective operation timeout")
        // PyTorch's ProcessGroupNCCL watchdog in its other words, by version:
        // `Exception (either an error or timeout) detected by watchdog`,
        // `failure detected by watchdog at work sequence id`, then `Some
        // NCCL operations have failed or timed out` and the watchdog thread's
        // death.
        || has("detected by watchdog")
        || has("Some NCCL operations have failed or timed out")
        || has("watchdog thread terminated with exception")
        || (has("NCCL WARN") && has("failed"))
    {
        return Some(FailureKind::Nccl);
    }
    if has("ddress already in use")
        || has("EADDRINUSE")
        || has("[Errno 98]")
        || has("Only one usage of each socket address")
        || has("couldn't bind HTTP server socket")
        // Docker's own: `Bind for 0.0.0.0:3001 failed: port is already
        // allocated`.
        || has("port is already allocated")
        // Streamlit's: `Port 8765 is not available`.
        || port_not_available(message)
    {
        return Some(FailureKind::AddressInUse);
    }
    if message.trim_end() == "Killed"
        || killed_by_shell(message)
        || has("signal: killed")
        || has("SIGKILL")
        || has("exit code 137")
        || has("exited with code 137")
        || has("exitcode=137")
        || has("with signal 9")
        // mpirun: `process rank 6 with PID 0 on node x exited on signal 9
        // (Killed).`
        || has("exited on signal 9")
        // TGI's launcher when a shard dies of a signal (`Shard process was
        // signaled to shutdown with signal 4`; found by the `Shard` trigger).
        || has("signaled to shutdown with signal")
    {
        return Some(FailureKind::Killed);
    }
    if has("EngineDeadError")
        // vLLM V1's engine core dying while it serves, above its traceback.
        || has("EngineCore encountered a fatal error")
        || has("Engine core initialization failed")
        || has("EngineCore failed to start")
        || has("WorkerProc failed to start")
        || (has("Engine core proc") && has("died unexpectedly"))
        // vLLM's executor losing a worker: `Worker proc VllmWorker-0 died
        // unexpectedly, shutting down executor.`
        || (has("Worker proc") && has("died unexpectedly"))
        || has("Engine process failed to start")
        || has("Scheduler hit an exception")
        || has("TpModelWorkerClient hit an exception")
        || has("DataParallelController hit an exception")
        // SGLang's launcher when a scheduler dies before it reports ready
        // (killed, or crashed without a traceback of its own).
        || has("scheduler is dead")
        // Ollama's scheduler giving up on a runner: its own words when the
        // runner never answered (`timed out waiting for llama runner to
        // start - progress 0.00`), or wrapping the runner's death.
        || has("error loading llama server")
        || has("timed out waiting for llama runner to start")
        || (message.starts_with("Shard ") && (has("failed to start") || has(" crashed")))
        || has("ShardCannotStart")
        || has("Webserver Crashed")
        || has("WebserverFailed")
        || has("llama runner process has terminated")
        // Newer Ollama: `msg="llama runner terminated" error="exit status
        // 0xc0000409"`.
        || has("llama runner terminated")
        || has("exiting due to model loading error")
        || has("failed to load model")
        // ROCm's runtime aborting the process on a GPU page fault (`Memory
        // access fault by GPU node-1 (Agent handle: …) on address …`): no
        // traceback follows, the engine is gone.
        || has("Memory access fault by GPU")
        // A C/C++ engine's own abort (llama.cpp, KoboldCpp, Ollama's runner):
        // ggml's assertions and fatal errors, the GPU runtime's errors other
        // than out of memory (told above), an uncaught C++ exception, the
        // shell's report of the SIGABRT. No Python exception is behind
        // them: the engine process died.
        || has("GGML_ASSERT(")
        || (message.trim_end().ends_with(": Fatal error") && message.contains(".c"))
        || matches!(message.trim(), "Aborted (core dumped)" | "Aborted")
        // glibc's own aborts on a corrupt heap or stack (`malloc(): invalid
        // size (unsorted)`, `free(): invalid pointer`, `double free or
        // corruption (out)`): the SIGABRT follows, the process is gone.
        || glibc_abort(message)
        || has("ROCm error")
        || has("HIP error")
    {
        return Some(FailureKind::EngineDied);
    }
    if has("Traceback (most recent call last)")
        || has("Initialization failed")
        // The CUDA runtime's other errors (`CUDA error (…): no kernel image
        // is available for execution on the device`); out of memory is
        // told above.
        || has("CUDA error")
        // A C++ server's death (llama.cpp, llamafile, TensorRT-LLM's
        // executor): libc++'s `terminating due to uncaught exception of
        // type std::length_error`, libstdc++'s `terminate called after
        // throwing an instance of 'std::runtime_error'`.
        || has("uncaught exception")
        // The CUDA driver API's errors (`CUDA driver error in
        // cuModuleLoadData: CUDA_ERROR_ILLEGAL_ADDRESS`) and TensorRT-LLM's
        // `Failed to initialize executor on rank 6: …`.
        || has("CUDA driver error")
        || has("CUDA_ERROR_")
        || has("Failed to initialize executor")
        || has("terminate called after throwing")
        || (message.starts_with(|c: char| c.is_ascii_uppercase())
            && (has("Error") || has("Exception"))
            && PY_EXCEPTION.as_ref().is_some_and(|re| re.is_match(message)))
    {
        return Some(FailureKind::Exception);
    }
    if has("Received sigquit from a child process") || has("Child process unexpectedly failed") {
        return Some(FailureKind::ChildFailed);
    }
    None
}

/// Streamlit's `Port 8765 is not available`: the port number right
/// between the two, not any line naming a port and something unavailable.
fn port_not_available(message: &str) -> bool {
    message.match_indices("Port ").any(|(at, _)| {
        let rest = &message[at + "Port ".len()..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0 && rest[digits..].starts_with(" is not available")
    })
}

/// The shell's report of a job killed by a signal: bash's `bash: line 1:
/// 4242 Killed   python …`, `[1]+  Killed …`, `start.sh: line 11:  7
/// Aborted (core dumped) …`, zsh's `[1]    474256 segmentation fault
/// ./server …`, `zsh: killed  python …`.
fn killed_by_shell(message: &str) -> bool {
    shell_job(message)
        .is_some_and(|(status, _)| !matches!(status, "Done" | "Exit" | "done" | "exit"))
}

/// glibc's messages just before it aborts the process.
fn glibc_abort(message: &str) -> bool {
    let message = message.trim();
    ["malloc(): ", "free(): ", "realloc(): ", "calloc(): "]
        .iter()
        .any(|p| message.starts_with(p))
        || message.starts_with("double free or corruption")
        || message.starts_with("corrupted size vs. prev_size")
        || message.starts_with("*** stack smashing detected ***")
}

/// A shell's job report: its status word (`Killed`, `Segmentation fault`,
/// `Done`, `Exit`) and the command after it, which may be empty. bash
/// capitalises the status and zsh does not.
pub(crate) fn shell_job(line: &str) -> Option<(&str, &str)> {
    const STATUSES: &[&str] = &[
        "Aborted",
        "Killed",
        "Segmentation fault",
        "Terminated",
        "Bus error",
        "Illegal instruction",
        "Floating point exception",
        "Quit",
        "Hangup",
        "Done",
        "Exit",
        "abort",
        "killed",
        "segmentation fault",
        "terminated",
        "bus error",
        "illegal hardware instruction",
        "floating point exception",
        "quit",
        "hangup",
        "done",
        "exit",
    ];
    let line = line.trim_start();
    // The earliest status word that stands as a word of its own.
    let (at, status) = STATUSES
        .iter()
        .filter_map(|status| {
            let at = line.find(status)?;
            let after = line[at + status.len()..].chars().next();
            let before = line[..at].chars().next_back();
            (after.is_none_or(|c| c == ' ' || c == '\t')
                && before.is_none_or(|c| c == ' ' || c == '\t'))
            .then_some((at, *status))
        })
        .min_by_key(|(at, _)| *at)?;
    let before = line[..at].trim_end();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    let words: Vec<&str> = before.split_whitespace().collect();
    let shaped = match words.as_slice() {
        // `[1]+`, `[1]-`, `[1]`, zsh's `[1]  + 474256`.
        [job] if job.starts_with('[') => job.trim_end_matches(['+', '-']).ends_with(']'),
        [job, pid] if job.starts_with('[') && job.ends_with(']') => digits(pid),
        [job, sign, pid] if job.starts_with('[') && job.ends_with(']') => {
            matches!(*sign, "+" | "-") && digits(pid)
        }
        // zsh's `zsh: killed`.
        [shell] => *shell == "zsh:",
        // bash's `script: line 11: 7`.
        _ => before.contains(": line ") && words.last().is_some_and(|w| digits(w)),
    };
    if !shaped {
        return None;
    }
    let mut rest = line[at + status.len()..].trim_start();
    // An exit code (`Exit 1`), then `(core dumped)`.
    if matches!(status, "Exit" | "exit") {
        rest = rest
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start();
    }
    rest = rest
        .strip_prefix("(core dumped)")
        .unwrap_or(rest)
        .trim_start();
    Some((status, rest))
}

/// The port an address-in-use line names (`('0.0.0.0', 8000)`,
/// `tcp://127.0.0.1:29236`, `127.0.0.1:11434`, `port: 8080`).
fn failed_port(message: &str) -> Option<u16> {
    let c = capture(&PORT_IN, message)?;
    c.iter()
        .skip(1)
        .flatten()
        .next()
        .and_then(|m| m.as_str().parse().ok())
}

/// Drafter architectures: EAGLE, EAGLE-3, MTP and NextN heads.
fn is_draft_architecture(arch: &str) -> bool {
    let lower = arch.to_ascii_lowercase();
    ["eagle", "mtp", "nextn", "draft", "medusa"]
        .iter()
        .any(|needle| lower.contains(needle))
}

/// The engines' settings dumps.
fn settings_dump(message: &str) -> Option<ServerSettings> {
    DIALECTS
        .iter()
        .find_map(|dialect| (dialect.settings)(message))
}

/// A rank tag found anywhere in a line of tool output: a log prefix
/// (`[… TP3]`), a process title (`sglang::scheduler_TP3`), or `Worker_TP3`.
pub fn rank_in_text(line: &str) -> Option<String> {
    // Every form holds `DP`, `PP`, `TP` or `EP` and a digit: lines without
    // one are rejected by a byte search instead of the pattern.
    let bytes = line.as_bytes();
    let shaped = memchr::memchr_iter(b'P', bytes).any(|at| {
        at > 0
            && matches!(bytes[at - 1], b'D' | b'P' | b'T' | b'E')
            && bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
    });
    if !shaped {
        return None;
    }
    // A line that is only a tag (or `uniq -c`'s count and a tag): what
    // `grep -oE '(TP|DP|PP|EP)[0-9]+' LOG | sort -u` prints when the agent
    // counts the ranks.
    let bare = line.trim();
    let bare = bare
        .split_once(' ')
        .filter(|(count, _)| count.bytes().all(|b| b.is_ascii_digit()))
        .map_or(bare, |(_, tag)| tag.trim());
    if bare.len() <= 8
        && ["TP", "DP", "PP", "EP"].iter().any(|p| {
            bare.strip_prefix(p)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    {
        return Some(bare.to_owned());
    }
    let c = capture(&ANY_RANK, line)?;
    let tag = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3))?.as_str();
    let normalized = tag.replace('_', " ");
    let normalized = normalized.trim();
    (!normalized.is_empty()).then(|| normalized.to_owned())
}

/// Parses a whole server log. Each line (or `\r`-separated progress update
/// within a line) is read; hard-wrapped continuation lines and TGI's
/// multi-line `Args {…}` are joined to the line they continue, so a wrapped
/// signal is still read, and the event then spans every piece.
///
/// Events are kept only for lines that tell the lifecycle something: a
/// signal, a rank tag not seen before, the first served request and the
/// first speculative accept rate after each other signal (later ones repeat
/// what they said), and the last line (where
/// the log stops). A long log is mostly batch, access and metrics lines that
/// say none of this, so memory follows what the log says, not its length,
/// and most lines are never classified in full: one scan of the whole text
/// finds the lines holding a template's literal, and the others only have
/// their rank tag read, by hand. [`Lifecycle`](crate::timeline::Lifecycle)
/// built from these events equals one built from every line (a test holds
/// this on every example log).
pub fn parse_log(text: &str, source: usize) -> Parsed {
    read_log(Sink::new(text, source, false))
}

/// [`parse_log`] of a log region a transcript quotes (an agent's `tail`, a
/// pasted block): its end is where the quote stops, so a traceback it ends
/// in is not read as the log's last words (see `Sink::finish`).
pub fn parse_log_excerpt(text: &str, source: usize) -> Parsed {
    let mut sink = Sink::new(text, source, false);
    sink.excerpt = true;
    read_log(sink)
}

/// [`parse_log`] for a log of no known engine, which may also be another
/// kind of server's (a web app's `Serving HTTP on`, `Local:`).
pub fn parse_other_log(text: &str, source: usize) -> Parsed {
    let mut sink = Sink::new(text, source, false);
    sink.other = Some(NextHit::new());
    read_log(sink)
}

/// [`parse_log`] with an event for every line: the plain reading the fast
/// one is held equal to (the lifecycle from both must agree).
#[doc(hidden)]
pub fn parse_log_every_line(text: &str, source: usize) -> Parsed {
    read_log(Sink::new(text, source, true))
}

fn read_log(mut sink: Sink<'_>) -> Parsed {
    let text = sink.text;
    let mut block: Option<Block> = None;
    for (offset, line) in lines_with_offsets(text) {
        let examined = &line[..floor_char_boundary(line, LONG_LINE)];
        let end = offset + examined.len();
        let has_cr = sink.carriage_return.hit(offset, end, |from| {
            memchr::memchr(b'\r', &text.as_bytes()[from..]).map(|at| from + at)
        });
        if let Some(open) = block.as_mut()
            && open.takes(examined, has_cr)
        {
            open.push(offset, examined);
            continue;
        }
        if let Some(done) = block.take() {
            done.emit(&mut sink);
        }
        let ansi = sink.has_ansi(offset, end);
        if !has_cr {
            // Blank lines say nothing; an ASCII first byte that is not a
            // space settles it without trimming the line.
            let plain_start = examined
                .as_bytes()
                .first()
                .is_some_and(|b| b.is_ascii() && !b.is_ascii_whitespace());
            if plain_start || !examined.trim().is_empty() {
                block = Some(Block::new(offset, examined, ansi));
            }
            continue;
        }
        // tqdm redraws a bar with `\r`: each redraw is one update.
        let mut segment_start = 0;
        let segments = examined.split('\r').count();
        for (index, segment) in examined.split('\r').enumerate() {
            let start = offset + segment_start;
            segment_start += segment.len() + 1;
            if segment.trim().is_empty() {
                continue;
            }
            if index + 1 == segments {
                // The last segment may continue on the next lines.
                block = Some(Block::new(start, segment, ansi));
            } else {
                sink.piece(start, segment, ansi);
            }
        }
    }
    if let Some(done) = block.take() {
        done.emit(&mut sink);
    }
    sink.finish()
}

/// Where the next occurrence of something is, searched lazily and only
/// forward: lines are visited in order, so each byte of the text is
/// scanned once per searcher, however many lines ask.
struct NextHit {
    /// No occurrence in `from..at`; `at` is one (or `usize::MAX`: none left).
    from: usize,
    at: usize,
}

impl NextHit {
    fn new() -> NextHit {
        NextHit {
            from: usize::MAX,
            at: 0,
        }
    }

    /// Whether an occurrence starts in `start..end`.
    fn hit(
        &mut self,
        start: usize,
        end: usize,
        search: impl FnOnce(usize) -> Option<usize>,
    ) -> bool {
        if !(self.from <= start && self.at >= start) {
            self.at = search(start).unwrap_or(usize::MAX);
            self.from = start;
        }
        self.at < end
    }
}

/// Lifecycle templates split by how often their lines come: routine ones
/// (served requests, speculative accept rates) fill a serving log, so they
/// are looked for only while the lifecycle still wants one.
#[cfg(test)]
fn is_routine(group: u16) -> bool {
    group & (REQUEST | ACCEPT) == group
}

/// Literals searched over a whole log to find the lines that may hold a
/// rare (not routine) template: every rare trigger in [`TRIGGERS`] holds at
/// least one of them (a test checks), so a line without any holds no
/// trigger. Fewer and shorter than the triggers themselves, because a SIMD
/// search (Teddy) slows with each literal; none is common in routine lines
/// (`KV cache` is not one: vLLM's metrics line says `GPU KV cache usage`).
/// Teddy fingerprints a literal by its first four bytes (fewer if any
/// literal of its group is shorter), and every place those bytes occur must
/// be verified, so each literal starts where routine lines do not: `e 137`,
/// not `code 137` (`Decode batch`), `PService`, not `HTTPService` (every
/// access line), `eDead`, not `EngineDead` (vLLM's `Engine 000:`), and none
/// is shorter than four bytes. `rank` and `Rank` find the rank tags written
/// in a message (NCCL, MPI, `rank=`, `Rank n is using GPU`).
///
/// The order matters for speed only. Teddy puts a literal in a bucket by
/// its place in its group (fat Teddy has 16 buckets: the 1st, 17th, 33rd
/// and 49th share one; slim Teddy 8) and a text position is a candidate to
/// verify when each of its first four bytes matches, nibble by nibble, some
/// literal of a bucket. This order was found by `scripts/teddy-order.py`
/// (swapping literals, counting candidates on the routine lines of the six
/// engines' benchmark logs), which left no candidate at all in those lines
/// for the one fat group and few for two slim ones; a new literal goes
/// last, and then (or if a log's routine lines slow down) the search is
/// worth running again. `#033[`
/// (escape-code residue) is no template's: a line holding it is read in
/// full anyway, and finding it here spares a search of its own.
const RARE_LITERALS: &[&str] = &[
    "ddress",
    " on port ",
    "not available",
    "_ERROR_",
    "fault",
    "bort",
    "nstruction",
    "erminate",
    "s dead",
    "Cache is",
    "ailed",
    "KILL",
    "oaded",
    "e=137",
    "tarting",
    "eDead",
    "llama",
    "LLM version",
    "Errno",
    "artup",
    "e 137",
    ".gguf",
    "Child",
    "hard",
    "e size",
    "torch distributed",
    "vLLM",
    "kv cache",
    "ready to roll",
    "draft",
    "rted in",
    "minated",
    "signal 9",
    "world",
    "Args",
    "oad weight",
    "Webserver",
    "took",
    "PService",
    "Connected",
    "atchdog",
    "sigquit",
    "APTUR",
    "NCCL",
    "#033[",
    "blocks:",
    "Rank",
    "config",
    "nccl",
    "aptur",
    "args",
    "Namespace",
    "died",
    "paged KV",
    "Traceback",
    "emory",
    "rank",
    "rror",
    "istening",
    "load model",
    "MPI size",
    "Uvicorn",
    "INUSE",
    "layers to",
    "build: ",
    "shards:",
    "Detected",
    "oading",
    "bind",
    "illed",
    "xception",
    "atal error",
    "_ASSERT",
    "File \"",
    "alloc(): ",
    "free(): ",
    "double free",
    "corrupted size",
    "stack smash",
    "Local URL: ",
];

/// The rare literals of servers that are not inference engines (see
/// `other_server_bind`), searched only in logs of no known engine: in an
/// engine's log they never occur, and fat Teddy takes at most 64 literals.
pub const OTHER_SERVER_LITERALS: [&str; 10] = [
    "rving HTTP",
    "ound on host",
    "g on http",
    "g at http",
    "g \u{2192} http",
    "g -> http",
    "Local:",
    "rted server",
    "\u{2713} Ready",
    "ation started",
];

static OTHER_SERVER_SCAN: LazyLock<Literals> =
    LazyLock::new(|| Literals::new(&OTHER_SERVER_LITERALS));

/// A set of literals searched over a whole text: Teddy (SIMD) where the
/// platform has it, else a [`LiteralSet`] (wasm32 has no Teddy).
enum Literals {
    #[cfg(not(target_family = "wasm"))]
    Teddy(aho_corasick::packed::Searcher),
    Set(LiteralSet),
}

impl Literals {
    fn new(needles: &[&str]) -> Literals {
        #[cfg(not(target_family = "wasm"))]
        if let Some(teddy) = aho_corasick::packed::Config::new()
            .builder()
            .extend(needles)
            .build()
        {
            return Literals::Teddy(teddy);
        }
        Literals::Set(LiteralSet::new(needles))
    }

    /// The first occurrence at or after `from` (leftmost-first), as
    /// (start, end).
    fn find(&self, text: &str, from: usize) -> Option<(usize, usize)> {
        match self {
            #[cfg(not(target_family = "wasm"))]
            Literals::Teddy(teddy) => teddy
                .find_in(text, aho_corasick::Span::from(from..text.len()))
                .map(|m| (m.start(), m.end())),
            Literals::Set(set) => set
                .find(text.as_bytes(), from)
                .map(|(start, end, _)| (start, end)),
        }
    }
}

/// [`RARE_LITERALS`] in one pass of fat Teddy (16 buckets, AVX2), which
/// costs fewer instructions than two slim passes and reads the text once, as
/// long as its buckets raise no false candidates (see [`RARE_LITERALS`] for
/// the order that keeps them quiet).
/// Without fat Teddy (no AVX2, AArch64), two passes of slim Teddy (8
/// buckets) of 32 each; one Aho-Corasick automaton where there is no Teddy.
static RARE_SCANS: LazyLock<Vec<Literals>> = LazyLock::new(|| {
    // Fat Teddy is x86-64's (AVX2); asked for it elsewhere, aho-corasick
    // builds one slim searcher of all the literals instead.
    #[cfg(target_arch = "x86_64")]
    if let Some(fat) = aho_corasick::packed::Config::new()
        .only_teddy_fat(Some(true))
        .builder()
        .extend(RARE_LITERALS)
        .build()
    {
        return vec![Literals::Teddy(fat)];
    }
    let groups: Vec<Literals> = RARE_LITERALS.chunks(32).map(Literals::new).collect();
    if groups
        .iter()
        .all(|group| !matches!(group, Literals::Set(_)))
    {
        groups
    } else {
        vec![Literals::new(RARE_LITERALS)]
    }
});

/// The request templates' literals.
fn request_needles() -> Vec<&'static str> {
    TRIGGERS
        .iter()
        .filter(|(_, group)| *group == REQUEST)
        .map(|(needle, _)| *needle)
        .collect()
}

static REQUEST_SCAN: LazyLock<Literals> = LazyLock::new(|| Literals::new(&request_needles()));

/// What a rank tag is written with: `TPn`, `DPn`, `PPn`, `EPn`, `ATTN_CPn`,
/// `pid=` (vLLM's process tags), `RANK`, `rank`, TGI's `Shard n` and vLLM's
/// `VllmWorker-n`.
const RANK_LITERALS: [&str; 10] = [
    "TP", "DP", "PP", "EP", "CP", "pid=", "ANK", "ank", "hard ", "Worker-",
];

static RANK_SCAN: LazyLock<Literals> = LazyLock::new(|| Literals::new(&RANK_LITERALS));

/// The first rank-like literal at or after `from`: the two-letter ones
/// count only before a digit (`TP3`, not `HTTP/1.1`).
fn find_rank_literal(text: &str, mut from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    while let Some((start, end)) = RANK_SCAN.find(text, from) {
        let before_digit = bytes
            .get(end)
            .is_some_and(|b| b.is_ascii_digit() || !b.is_ascii());
        if end - start > 2 || before_digit {
            return Some(start);
        }
        from = start + 1;
    }
    None
}

/// Collects a log's events under the keeping policy of [`parse_log`].
struct Sink<'t> {
    text: &'t str,
    source: usize,
    events: Vec<Event>,
    carriage_return: NextHit,
    escape: NextHit,
    /// One per group of [`RARE_SCANS`].
    rare: Vec<NextHit>,
    request: NextHit,
    accept: NextHit,
    /// No served request was kept since the latest other signal.
    want_request: bool,
    /// No speculative accept rate (nor served request) was kept since the
    /// latest other signal.
    want_accept: bool,
    rank_literal: NextHit,
    ranks: std::collections::HashSet<String>,
    aux_ranks: std::collections::HashSet<String>,
    /// Tag keys whose ranks are known to be seen, and the latest such key
    /// (consecutive lines mostly share it).
    known: std::collections::HashSet<TagKey<'t>>,
    last_known: Option<TagKey<'t>>,
    /// The latest piece not kept (a single line or segment): kept at the
    /// end if it is the log's last.
    unkept: Option<(usize, usize)>,
    /// Classify and keep every line (the reference reading).
    every_line: bool,
    /// Also find [`OTHER_SERVER_LITERALS`] (a log of no known engine).
    other: Option<NextHit>,
    /// The Python traceback frames (`  File "…", line N, in f`) since the
    /// latest signal: the first two (where each starts and ends).
    frames: Option<(std::ops::Range<usize>, Option<std::ops::Range<usize>>)>,
    /// A quoted region, not a whole log: see [`parse_log_excerpt`].
    excerpt: bool,
}

impl<'t> Sink<'t> {
    fn new(text: &'t str, source: usize, every_line: bool) -> Sink<'t> {
        Sink {
            text,
            source,
            events: Vec::new(),
            carriage_return: NextHit::new(),
            escape: NextHit::new(),
            rare: RARE_SCANS.iter().map(|_| NextHit::new()).collect(),
            request: NextHit::new(),
            accept: NextHit::new(),
            rank_literal: NextHit::new(),
            known: std::collections::HashSet::new(),
            last_known: None,
            want_request: true,
            want_accept: true,
            ranks: std::collections::HashSet::new(),
            aux_ranks: std::collections::HashSet::new(),
            unkept: None,
            every_line,
            other: None,
            frames: None,
            excerpt: false,
        }
    }

    /// Whether `start..end` holds ANSI codes or their `#033[` residue.
    fn has_ansi(&mut self, start: usize, end: usize) -> bool {
        let bytes = self.text.as_bytes();
        self.escape.hit(start, end, |from| {
            memchr::memchr(0x1b, &bytes[from..]).map(|at| from + at)
        }) || (self.rare_hit(start, end) && {
            // `#033[` is a rare literal, so only a line the rare scans hit
            // may hold it: no search of its own over the whole text.
            let window = &bytes[start..bytes.len().min(end + 4)];
            memchr::memmem::find(window, b"#033[").is_some_and(|at| start + at < end)
        })
    }

    /// Whether one of [`RARE_LITERALS`] starts in `start..end`.
    fn rare_hit(&mut self, start: usize, end: usize) -> bool {
        let text = self.text;
        self.rare
            .iter_mut()
            .zip(RARE_SCANS.iter())
            .any(|(next, scan)| next.hit(start, end, |from| scan.find(text, from).map(|m| m.0)))
            || self.other.as_mut().is_some_and(|next| {
                next.hit(start, end, |from| {
                    OTHER_SERVER_SCAN.find(text, from).map(|m| m.0)
                })
            })
    }

    /// One line or segment, `piece` at `start` in the text.
    fn piece(&mut self, start: usize, piece: &'t str, ansi: bool) {
        let end = start + piece.len();
        if ansi || self.every_line {
            let log = classify(&strip_ansi(piece));
            self.offer(start, end, log, self.every_line);
            return;
        }
        let text = self.text;
        let candidate = self.rare_hit(start, end)
            || (self.want_request
                && self.request.hit(start, end, |from| {
                    REQUEST_SCAN.find(text, from).map(|m| m.0)
                }))
            || (self.want_accept
                && self.accept.hit(start, end, |from| {
                    // `accept len:` and `acceptance length|rate:` alike.
                    memchr::memmem::find(&text.as_bytes()[from..], b"ccept").map(|at| from + at)
                }));
        if !candidate && self.nothing_new(start, end, piece) {
            self.unkept = Some((start, end));
            return;
        }
        self.offer(start, end, classify(piece), false);
    }

    /// Whether a line without a template literal shows only rank tags
    /// already seen (then it says nothing new).
    fn nothing_new(&mut self, start: usize, end: usize, piece: &'t str) -> bool {
        // vLLM writes one process's tags on run after run of lines: a line
        // that repeats the latest known tags byte for byte has their key,
        // without reading them again (see [`repeats_process_tags`]).
        if let Some(TagKey::Vllm(tags)) = self.last_known
            && repeats_process_tags(piece, tags)
        {
            return true;
        }
        let text = self.text;
        let rank_literal = &mut self.rank_literal;
        let Some(key) = TagKey::read(piece, || {
            rank_literal.hit(start, end, |from| find_rank_literal(text, from))
        }) else {
            return false;
        };
        if self.last_known == Some(key) || self.known.contains(&key) {
            self.last_known = Some(key);
            return true;
        }
        let (rank, aux) = key.ranks();
        let seen = rank.as_deref().is_none_or(|r| self.ranks.contains(r))
            && aux.as_deref().is_none_or(|r| self.aux_ranks.contains(r));
        if seen {
            self.known.insert(key);
            self.last_known = Some(key);
        }
        seen
    }

    /// A classified piece: kept if it tells the lifecycle something.
    fn offer(&mut self, start: usize, end: usize, log: LogLine, always: bool) {
        if log.signal.is_some() {
            self.frames = None;
        } else if log.time.is_none() && is_frame(self.text.get(start..end).unwrap_or("")) {
            match &mut self.frames {
                None => self.frames = Some((start..end, None)),
                Some((_, second @ None)) => *second = Some(start..end),
                Some(_) => {}
            }
        }
        let signal = match &log.signal {
            None => false,
            // A failed request (5xx) says nothing of serving: the next good
            // one is still wanted.
            Some(Signal::Request {
                status: Some(500..=599),
            }) => self.want_request,
            Some(Signal::Request { .. }) => std::mem::take(&mut self.want_request),
            Some(Signal::DraftAccepting) => {
                let wanted = self.want_request || self.want_accept;
                self.want_request = false;
                self.want_accept = false;
                wanted
            }
            Some(_) => {
                // A start line may begin a new run, which forgets the
                // drafter: its first accept rate must be kept again.
                self.want_request = true;
                self.want_accept = true;
                true
            }
        };
        let mut new_rank = false;
        if let Some(rank) = &log.rank
            && !self.ranks.contains(rank)
        {
            self.ranks.insert(rank.clone());
            new_rank = true;
        }
        if let Some(rank) = &log.aux_rank
            && !self.aux_ranks.contains(rank)
        {
            self.aux_ranks.insert(rank.clone());
            new_rank = true;
        }
        if always || signal || new_rank {
            self.unkept = None;
            self.events.push(Event {
                span: Span::new(self.source, start, end),
                kind: EventKind::Log(log),
            });
        } else {
            self.unkept = Some((start, end));
        }
    }

    /// An event for the line at `range`, inserted at `at` (in text order).
    fn keep_at(&mut self, at: usize, range: std::ops::Range<usize>, signal: Option<Signal>) {
        self.events.insert(
            at,
            Event {
                span: Span::new(self.source, range.start, range.end),
                kind: EventKind::Log(LogLine {
                    signal,
                    ..LogLine::default()
                }),
            },
        );
    }

    fn finish(mut self) -> Parsed {
        if let Some((start, end)) = self.unkept.take() {
            let piece = self.text.get(start..end).unwrap_or("");
            self.events.push(Event {
                span: Span::new(self.source, start, end),
                kind: EventKind::Log(classify(&strip_ansi(piece))),
            });
        }
        // A log that stops inside a Python traceback (frames since its last
        // signal, and a last line that is no log line of its own: a frame,
        // its code, the exception) was cut from a crash: the excerpt people
        // paste starts below the `Traceback` line and often ends above the
        // exception. Two frames at least: one `File "…"` line is often a
        // warning's.
        let ends_untimed = self.events.last().is_some_and(
            |e| matches!(&e.kind, EventKind::Log(l) if l.time.is_none() && l.signal.is_none()),
        );
        // Both frames are kept as events, so a condensed log (which keeps
        // the lines its pieces' readers used) still holds two of them.
        if let Some((first, Some(second))) = self.frames.take()
            && ends_untimed
            && !self.excerpt
        {
            let at = self.events.partition_point(|e| e.span.start < second.start);
            if self
                .events
                .get(at)
                .is_none_or(|e| e.span.start != second.start)
            {
                self.keep_at(at, second, None);
            }
            let at = self.events.partition_point(|e| e.span.start < first.start);
            let failure = Signal::Failure {
                kind: FailureKind::Exception,
                port: None,
            };
            self.keep_at(at, first, Some(failure));
        }
        Parsed {
            events: self.events,
            ..Parsed::default()
        }
    }
}

/// Where a line's rank tags are written, read by hand without classifying
/// the line: the same key means the same tags, so a log's routine lines
/// cost one comparison once their key is known. For a line holding no
/// template literal (so no `ank`, which rules out the tags written in a
/// message).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TagKey<'t> {
    /// No rank tag.
    None,
    /// SGLang's tags (`TP3`, `DP1 TP1`).
    Sglang(&'t str),
    /// vLLM's process tags, as written (`(Worker_TP1 pid=3101) `).
    Vllm(&'t str),
    /// The digits of TensorRT-LLM's `[RANK n]` (empty: no rank).
    Trt(&'t str),
}

impl<'t> TagKey<'t> {
    /// Reads the key of the shapes that fill long logs: SGLang's `[time
    /// TPn]`, vLLM's process tags, TensorRT-LLM's `[RANK n]`, Ollama's
    /// `[GIN]`, and (asking `rank_literal`) any line without a rank-like
    /// literal. `None` for anything else: the caller classifies the line.
    pub fn read(line: &'t str, rank_literal: impl FnOnce() -> bool) -> Option<TagKey<'t>> {
        match line.as_bytes().first() {
            Some(b'[') => {
                if let Some((_, tags, _)) = super::sglang_log::read_tags(line) {
                    return Some(if tags.is_empty() {
                        TagKey::None
                    } else {
                        TagKey::Sglang(tags)
                    });
                }
                if line.starts_with("[GIN]") {
                    return Some(TagKey::None);
                }
                super::trtllm_log::fast_rank(line).map(TagKey::Trt)
            }
            Some(b'(') => {
                let end = super::vllm_log::read_process_tags(line, |_, _, _, _| {})?;
                if line[end..].starts_with('[') {
                    // A Ray actor's tag before an SGLang line: SGLang's tags
                    // decide (see `vllm_log::prefix`); else classify it.
                    let (_, tags, _) = super::sglang_log::read_tags(&line[end..])?;
                    return Some(if tags.is_empty() {
                        TagKey::None
                    } else {
                        TagKey::Sglang(tags)
                    });
                }
                Some(TagKey::Vllm(&line[..end]))
            }
            _ => (!rank_literal()).then_some(TagKey::None),
        }
    }

    /// The (rank, aux rank) [`classify`] gives a line with this key.
    pub fn ranks(self) -> (Option<std::borrow::Cow<'t, str>>, Option<String>) {
        use std::borrow::Cow;
        match self {
            TagKey::None => (None, None),
            TagKey::Sglang(tags) => (Some(Cow::Borrowed(tags)), None),
            TagKey::Vllm(tags) => {
                let (rank, aux) = super::vllm_log::process_ranks(tags);
                (rank.map(Cow::Owned), aux)
            }
            TagKey::Trt("") => (None, None),
            TagKey::Trt(digits) => (Some(Cow::Owned(format!("rank {digits}"))), None),
        }
    }
}

/// Whether `line` opens with vLLM process tags `tags` (as read by
/// `vllm_log::read_process_tags` from an earlier line, trailing whitespace
/// included, not empty) and they end there: the next byte neither continues them (`(`
/// opens another tag, whitespace would belong to them) nor is outside ASCII,
/// where the pattern's Unicode classes might read on. Those tags then read
/// the same in both lines, whatever else the line holds.
fn repeats_process_tags(line: &str, tags: &str) -> bool {
    // Empty tags (a line that opens with no tag) would match any line.
    !tags.is_empty()
        && tags.len() < 512
        && line.as_bytes().starts_with(tags.as_bytes())
        && line
            .as_bytes()
            .get(tags.len())
            .is_some_and(|b| b.is_ascii_graphic() && *b != b'(')
}

/// A line's rank tags as [`classify`] gives them, read by hand (see
/// [`TagKey`]); `None` where the line must be classified.
pub fn fast_ranks(line: &str) -> Option<(Option<std::borrow::Cow<'_, str>>, Option<String>)> {
    TagKey::read(line, || find_rank_literal(line, 0).is_some()).map(TagKey::ranks)
}

/// Terminal and pager widths at which pasted logs are hard-wrapped.
const WRAP_WIDTHS: &[usize] = &[80, 100, 120, 132, 150, 160, 180, 200, 220, 240, 250, 256];

/// A line being read, with the lines that continue it. The joined text is
/// built only when a second piece comes, so a plain line costs no copy.
struct Block<'t> {
    start: usize,
    end: usize,
    first: &'t str,
    joined: Option<String>,
    /// Width of the first piece, in chars: hard-wrapped pieces share it.
    /// Counted when first needed: most lines are ruled out before.
    width: Option<usize>,
    /// Width of the latest piece, once there are two.
    last_width: Option<usize>,
    /// A TGI `Args {` dump, closed by a line `}`.
    args: bool,
    closed: bool,
    pieces: usize,
    /// The first piece may hold escape codes.
    ansi: bool,
}

impl<'t> Block<'t> {
    /// `ansi`: the segment may hold escape codes (most lines do not, and
    /// then need no stripping).
    fn new(start: usize, segment: &'t str, ansi: bool) -> Block<'t> {
        let args = if ansi {
            strip_ansi(segment).trim_end().ends_with("Args {")
        } else {
            match segment.as_bytes().last() {
                // Most lines end in a visible ASCII byte: nothing to trim.
                Some(last) if last.is_ascii_graphic() => {
                    *last == b'{' && segment.ends_with("Args {")
                }
                _ => segment.trim_end().ends_with("Args {"),
            }
        };
        Block {
            start,
            end: start + segment.len(),
            first: segment,
            joined: None,
            width: None,
            last_width: None,
            args,
            closed: false,
            pieces: 1,
            ansi,
        }
    }

    /// The width a terminal showed the first piece at: escape codes take no
    /// columns. Only widths in [`WRAP_WIDTHS`] matter, and a text under 80
    /// bytes or over 1024 (at most 4 bytes a char) has none of them, so
    /// those are not counted.
    fn width(&mut self) -> usize {
        let (first, ansi) = (self.first, self.ansi);
        *self.width.get_or_insert_with(|| {
            let clean = if ansi {
                strip_ansi(first)
            } else {
                std::borrow::Cow::Borrowed(first)
            };
            if (80..=1024).contains(&clean.len()) {
                clean.chars().count()
            } else {
                clean.len()
            }
        })
    }

    /// Whether `line` continues this block (`has_cr`: it holds a `\r`).
    fn takes(&mut self, line: &str, has_cr: bool) -> bool {
        if self.closed || self.pieces >= 200 || has_cr {
            return false;
        }
        if self.args {
            // A dump cut short (no closing `}`) ends where the next log
            // line starts, or at an empty line: TGI's dump has none, and
            // the log condenser leaves one for each line it drops.
            if line.trim().is_empty() {
                return false;
            }
            let clean = strip_ansi(line);
            let inner = strip_envelope(&clean);
            return !(inner.starts_with(|c: char| c.is_ascii_digit())
                && prefix(inner).time.is_some());
        }
        // A line that opens as the first piece did (`2026-`, `[2026`,
        // `(APIS`) starts a new line of the same log; most lines of a long
        // log are ruled out here, before their width is counted or their
        // prefix read with a pattern.
        if line.starts_with(|c: char| c.is_ascii_digit() || c == '[' || c == '(')
            && line.as_bytes().get(..5) == self.first.as_bytes().get(..5)
        {
            return false;
        }
        // A hard wrap at a terminal's width: every piece but the last is
        // exactly that wide, and the continuation is nothing on its own (no
        // collector envelope, engine prefix or signal). Only usual widths
        // count, so a long line followed by untagged output is left alone.
        let width = self.width();
        if !WRAP_WIDTHS.contains(&width) || self.last_width.is_some_and(|last| last != width) {
            return false;
        }
        let clean = strip_ansi(line);
        let head_prefixed = || {
            let first = strip_ansi(self.first);
            let head = prefix(strip_envelope(&first));
            head.time.is_some() || head.rank.is_some()
        };
        !clean.is_empty()
            && !clean.starts_with([' ', '\t'])
            && strip_envelope(&clean).len() == clean.len()
            && prefix(&clean) == Prefix::default()
            && head_prefixed()
            && classify(&clean).signal.is_none()
    }

    fn push(&mut self, offset: usize, line: &str) {
        let clean = strip_ansi(line);
        let first = self.first;
        let joined = self
            .joined
            .get_or_insert_with(|| strip_ansi(first).into_owned());
        if self.args {
            // The dump's lines carry the envelope the first did (`> `
            // when quoted in an issue).
            let inner = strip_envelope(clean.trim_start()).trim();
            joined.push(' ');
            joined.push_str(inner);
            self.closed = inner == "}";
        } else {
            joined.push_str(&clean);
        }
        self.last_width = Some(clean.chars().count());
        self.end = offset + line.len();
        self.pieces += 1;
    }

    fn emit(self, sink: &mut Sink<'t>) {
        match &self.joined {
            // Joined pieces are rare (wrapped lines, TGI's `Args {…}`): kept.
            Some(text) => sink.offer(self.start, self.end, classify(text), true),
            None => sink.piece(self.start, self.first, self.ansi),
        }
    }
}

/// Which engine wrote a line, from its shape and words, for format
/// detection. `classified` is the line's [`classify`], which every caller
/// has already made: it is not made twice.
pub fn engine_hint(line: &str, classified: &LogLine) -> Option<Engine> {
    let line = strip_envelope(line);
    if line.starts_with('{') {
        if let Some(engine) = super::json_log::engine_of(line) {
            return Some(engine);
        }
        if let Some(plain) = super::json_log::text_of(line)
            && !plain.starts_with('{')
        {
            // `classify` reads a JSON record as the plain line it holds.
            return engine_hint(&plain, classified);
        }
    }
    let found = prefix(line);
    if found.engine == Some(Engine::Sglang) && python_logging_message(&line[found.message..]) {
        // `[2024-05-05 02:50:13] INFO auto_device.py:79: …`: SGLang's time
        // shape, but SGLang writes no level or file name there; other
        // Python servers (MLC, LMDeploy) do.
        return None;
    }
    let has = |needle: &str| line.contains(needle);
    // SGLang's bare `[date time] ` is also how wrapper scripts stamp their
    // lines: one that holds another engine's own line (`[2026-01-26
    // 16:56:13] INFO 01-26 16:56:12 [utils.py:253] …`) or names vLLM and
    // not SGLang is that engine's.
    if found.engine == Some(Engine::Sglang) && found.rank.is_none() {
        let message = line.get(found.message..).unwrap_or("").trim_start();
        if super::vllm_log::prefix(message).is_some()
            || (has("vLLM") || has("vllm")) && !has("sglang") && !has("SGLang")
        {
            return Some(Engine::Vllm);
        }
        // A stamp alone (`[…] Configuration:`) says nothing of the engine;
        // SGLang's own lines without a rank tag name what they do.
        if !has("sglang") && !has("SGLang") && classified.signal.is_none() {
            return None;
        }
    }
    if found.engine.is_some() {
        return found.engine;
    }
    if has("server_args=ServerArgs") || has("sglang") || has("fired up and ready to roll") {
        Some(Engine::Sglang)
    } else if has("vLLM") || has("vllm") {
        Some(Engine::Vllm)
    } else if has("text_generation_") {
        Some(Engine::Tgi)
    } else if has("[GIN]") || has("ollama") {
        Some(Engine::Ollama)
    } else if has("TRT-LLM") || has("TensorRT-LLM") || has("tensorrt_llm") {
        Some(Engine::TensorrtLlm)
    } else if has("llama_model_loader")
        || has("load_tensors:")
        || has("llama-server")
        // ggml's own aborts and CUDA errors, which KoboldCpp and other
        // llama.cpp builds print (`ggml-cuda.cu:88: CUDA error`).
        || has("GGML_ASSERT")
        || has("ggml-cuda.cu")
        || has("ggml/src/")
        || has("KoboldCpp")
    {
        Some(Engine::LlamaCpp)
    } else {
        None
    }
}

/// `INFO name.py:79: …`: Python's logging with a level and a file name.
fn python_logging_message(message: &str) -> bool {
    let Some((level, rest)) = message.split_once(' ') else {
        return false;
    };
    matches!(level, "INFO" | "WARNING" | "ERROR" | "DEBUG" | "CRITICAL")
        && rest
            .split_whitespace()
            .next()
            .is_some_and(|word| word.contains(".py:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_draft_acceptance_is_the_drafter_at_work() {
        let line = "3.39.996.573 I slot print_timing: id  9 | task 0 | draft acceptance = 0.65000 (   65 accepted /   100 generated)";
        assert_eq!(classify(line).signal, Some(Signal::DraftAccepting));
        let none = "3.39.996.573 I slot print_timing: id  9 | task 0 | draft acceptance = 0.00000 (   0 accepted /   100 generated)";
        assert_ne!(classify(none).signal, Some(Signal::DraftAccepting));
        let rate = "draft acceptance rate = 0.78788 (   26 accepted /    33 generated)";
        assert_eq!(classify(rate).signal, Some(Signal::DraftAccepting));
        // SGLang's response metadata, its warmup's included.
        let meta = "[2025-11-05 16:35:02] End of prefill disaggregation mode warmup with status 200, resp: [{'meta_info': {'spec_accept_rate': 0.33, 'spec_accept_length': 2.0, 'spec_verify_ct': 4}}]";
        assert_eq!(classify(meta).signal, Some(Signal::DraftAccepting));
        // llama.cpp's timings in a response or a stream chunk a log quotes.
        let timings = r#"per_second\":7.81,\"draft_n\":1093,\"draft_n_accepted\":810}}\n\n""#;
        assert_eq!(classify(timings).signal, Some(Signal::DraftAccepting));
        let body = r#"{"timings":{"draft_n":12,"draft_n_accepted":0}}"#;
        assert_ne!(classify(body).signal, Some(Signal::DraftAccepting));
        let mtp =
            "0.21.139.426 I common_speculative_init: adding speculative implementation 'draft-mtp'";
        assert!(matches!(
            classify(mtp).signal,
            Some(Signal::WeightsEnd { draft: true, .. })
        ));
    }

    #[test]
    fn byte_guards_reject_only_lines_their_patterns_reject() {
        // Each guard must be a necessary condition of its pattern: run both
        // on every line of every example and on lines made to sit at the
        // guards' edges.
        let mut lines: Vec<String> = [
            "[pod/sglang-0] [2026-02-11 22:37:00 TP0] ready",
            "sglang-1  | INFO 02-11 22:37:00 [api_server.py:1] x",
            "Feb 11 22:37:00 gpu-node-3 python[4242]: [2026-02-11 22:37:00] up",
            "2026-02-11T22:37:00.123Z INFO x",
            "[2026-02-11 22:37:00] x",
            "[rank3]: Traceback",
            "Rank 0: x",
            "scheduler_DP1_TP3 died",
            "Worker_TP0 pid=1",
            "[x DP1 TP1] y",
            "P1 TP",
            "",
        ]
        .iter()
        .map(|l| (*l).to_owned())
        .collect();
        for (_, text) in crate::test_examples::texts() {
            lines.extend(text.lines().map(str::to_owned));
        }
        let matches = |re: &LazyLock<Option<crate::re::Regex>>, line: &str| {
            re.as_ref().is_some_and(|re| re.is_match(line))
        };
        let mut seen = [0usize; 3];
        for line in &lines {
            let line = strip_ansi(line);
            if matches(&ENVELOPE, &line) {
                seen[0] += 1;
                assert!(may_open_envelope(&line), "{line:?}");
            }
            if matches(&GENERIC_TIME, &line) {
                seen[1] += 1;
                let b = line.as_bytes();
                assert!(b[0].is_ascii_digit() || (b[0] == b'[' && b[1].is_ascii_digit()));
            }
            if rank_in_text(&line).is_some() {
                seen[2] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n > 3), "{seen:?}");
        // The rank guard is inside `rank_in_text`: compare with the pattern.
        for line in &lines {
            if matches(&ANY_RANK, line) {
                assert!(rank_in_text(line).is_some(), "{line:?}");
            }
        }
    }

    #[test]
    fn every_rare_trigger_holds_a_whole_text_literal() {
        for (needle, group) in TRIGGERS {
            if is_routine(*group) {
                assert!(*group == REQUEST || needle.contains("ccept"), "{needle}");
                continue;
            }
            assert!(
                RARE_LITERALS
                    .iter()
                    .chain(&OTHER_SERVER_LITERALS)
                    .any(|literal| needle.contains(literal)),
                "{needle} holds none of RARE_LITERALS"
            );
        }
        assert!(!RARE_SCANS.is_empty());
        let found: Vec<_> = RARE_SCANS
            .iter()
            .filter_map(|scan| scan.find("x Traceback y", 0))
            .collect();
        assert_eq!(found, [(2, 11)]);
        assert_eq!(find_rank_literal("GET / HTTP/1.1 [TP3]", 0), Some(16));
        assert_eq!(find_rank_literal("GET / HTTP/1.1", 0), None);
    }

    /// The wasm searches ([`LiteralSet`]) find what the native ones
    /// (aho-corasick) find, on every line of every example and on the
    /// examples whole: the same trigger occurrences, the same lines hit by
    /// the trigger starts, the same first literal after each line start.
    #[test]
    #[cfg(not(target_family = "wasm"))]
    fn wasm_literal_searches_find_what_native_ones_find() {
        let triggers = LiteralSet::new(TRIGGERS.iter().map(|(needle, _)| needle));
        let native = TRIGGER_SCAN.as_ref().expect("the trigger scanner builds");
        let rare = LiteralSet::new(RARE_LITERALS);
        let others = [
            (LiteralSet::new(request_needles()), &*REQUEST_SCAN),
            (LiteralSet::new(RANK_LITERALS), &*RANK_SCAN),
            (LiteralSet::new(OTHER_SERVER_LITERALS), &*OTHER_SERVER_SCAN),
        ];
        let mut compared = 0;
        for (name, text) in crate::test_examples::texts() {
            let mut ours = Vec::new();
            triggers.each_overlapping(text.as_bytes(), |s, e, i| ours.push((s, e, i)));
            let mut theirs: Vec<_> = native
                .find_overlapping_iter(&text)
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, theirs, "{name}: trigger occurrences");
            let line_starts: Vec<usize> = lines_with_offsets(&text).map(|(at, _)| at).collect();
            let line_hits = |starts: &[usize]| -> Vec<usize> {
                let mut hit: Vec<usize> = starts
                    .iter()
                    .map(|&at| line_starts.partition_point(|&start| start <= at))
                    .collect();
                hit.dedup();
                hit
            };
            let native_starts: Vec<usize> = native.find_iter(&text).map(|m| m.start()).collect();
            assert_eq!(
                line_hits(&triggers.starts(text.as_bytes())),
                line_hits(&native_starts),
                "{name}: lines with a trigger"
            );
            for &offset in &line_starts {
                let rare_native = RARE_SCANS
                    .iter()
                    .filter_map(|scan| scan.find(&text, offset))
                    .map(|(start, _)| start)
                    .min();
                let rare_ours = rare.find(text.as_bytes(), offset).map(|m| m.0);
                assert_eq!(rare_ours, rare_native, "{name} at {offset}: rare literal");
                for (set, native) in &others {
                    let ours = set.find(text.as_bytes(), offset).map(|m| (m.0, m.1));
                    assert_eq!(ours, native.find(&text, offset), "{name} at {offset}");
                }
                compared += 1;
            }
        }
        assert!(compared > 10_000, "only {compared} lines compared");
    }

    /// torch's `[rankN]:` is read after any logger prefix, and only near
    /// the start of the message.
    #[test]
    fn torch_rank_tags_behind_a_time_or_level() {
        for line in [
            "[rank3]: torch.OutOfMemoryError: CUDA out of memory.",
            "2026-11-30 10:00:01 [rank3]: Traceback (most recent call last):",
            "[2026-11-30 10:00:01] [rank3]: Traceback (most recent call last):",
            "2026-11-30T10:00:01.123Z [rank3]: Traceback (most recent call last):",
            "10:00:01 [rank3]: torch.OutOfMemoryError: CUDA out of memory.",
            "2026-11-30 10:00:01,123 - INFO - [rank3]: x",
            "[2026-11-30 10:00:01,123] [INFO] [rank3]: x",
        ] {
            assert_eq!(classify(line).aux_rank.as_deref(), Some("rank 3"), "{line}");
        }
        for line in [
            "the benchmark printed its summary for every worker, then [rank3]: done",
            "[rank3] no colon",
        ] {
            assert_eq!(classify(line).aux_rank, None, "{line}");
        }
    }

    #[test]
    fn trigger_scanner_builds() {
        assert!(TRIGGER_SCAN.is_some());
        assert_eq!(groups("nothing to see"), 0);
        assert_eq!(groups("Decode batch. cuda graph: True"), REQUEST);
        assert_eq!(groups("Capture cuda graph begin."), GRAPH);
    }

    #[test]
    fn all_patterns_compile() {
        // Patterns are built lazily and a bad one would silently match nothing.
        for pattern in [
            &SHARDS,
            &WEIGHTS_END,
            &ELAPSED,
            &TOOK_SECONDS,
            &HOST_PORT,
            &ACCESS,
            &GIN,
            &LLAMA_REQUEST,
            &ACCEPT_LEN,
            &PY_EXCEPTION,
            &ANSI,
            &ENVELOPE,
            &GENERIC_TIME,
            &TORCH_RANK,
            &OLD_RANK,
            &NCCL_RANK,
            &MPI_RANK,
            &RANK_GPU,
            &WORLD,
        ] {
            assert!(pattern.is_some());
        }
        assert!(rank_in_text("[2026-01-01 00:00:00 TP1] x").is_some());
    }

    #[test]
    fn ollama_runner_deaths_and_rocm_errors() {
        let died = classify(
            "time=2025-07-24T18:30:30.079+09:00 level=ERROR source=server.go:464 msg=\"llama runner terminated\" error=\"exit status 0xc0000409\"",
        );
        assert!(
            matches!(
                died.signal,
                Some(Signal::Failure {
                    kind: FailureKind::EngineDied,
                    ..
                })
            ),
            "{died:?}"
        );
        // The GPU runtime aborting the engine: it died (no Python exception).
        let rocm = classify("ROCm error: invalid device function");
        assert!(
            matches!(
                rocm.signal,
                Some(Signal::Failure {
                    kind: FailureKind::EngineDied,
                    ..
                })
            ),
            "{rocm:?}"
        );
    }

    fn hint(line: &str) -> Option<Engine> {
        engine_hint(line, &classify(line))
    }

    #[test]
    fn a_wrapper_scripts_stamp_is_no_sglang_vote() {
        assert_eq!(hint("[2026-01-26 15:58:16] Configuration:"), None);
        assert_eq!(
            hint(
                "[2026-01-26 16:56:13]      INFO 01-26 16:56:12 [utils.py:253] non-default args: {'model_tag': 'm'}"
            ),
            Some(Engine::Vllm)
        );
        assert_eq!(
            hint("[2026-01-02 10:00:00] The server is fired up and ready to roll!"),
            Some(Engine::Sglang)
        );
        assert_eq!(
            hint("[2026-01-02 10:00:00 TP1] Load weight begin. avail mem=70.00 GB"),
            Some(Engine::Sglang)
        );
    }

    #[test]
    fn zerolog_console_time() {
        let line = classify("11:18PM INF LocalAI version: v1.40.0 (6ef7ea2635ae)");
        assert_eq!(line.time.as_deref(), Some("11:18PM"));
        assert!(classify("11:18 on the clock").time.is_none());
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
        // A pasted line whose time was cut (sgl-project/sglang#23603).
        let line = classify("[TP0] Scheduler hit an exception:");
        assert_eq!(line.rank.as_deref(), Some("TP0"));
        assert!(matches!(line.signal, Some(Signal::Failure { .. })));
        assert_eq!(
            classify("[DP1 TP3] KV Cache is allocated.").rank.as_deref(),
            Some("DP1 TP3")
        );
        assert_eq!(classify("[TPU] ok").rank, None);
        assert_eq!(classify("[] ok").rank, None);
        // The 2026 logger (sgl-project/sglang#21723), and Python's common
        // format of the same shape without a tag, which is no engine's.
        let line = classify(
            "2026-03-18 11:22:06.731 ERROR 120984 [ TP0 scheduler.py:3190] Scheduler hit an exception: Traceback (most recent call last):",
        );
        assert_eq!(line.rank.as_deref(), Some("TP0"));
        assert_eq!(line.time.as_deref(), Some("2026-03-18 11:22:06.731"));
        assert!(matches!(line.signal, Some(Signal::Failure { .. })));
        assert_eq!(
            prefix("2026-03-18 11:22:05.874 INFO 120984 [ DP0 TP1 scheduler_metrics_mixin.py:415] Decode batch").rank.as_deref(),
            Some("DP0 TP1")
        );
        let plain = prefix("2026-03-18 11:22:05,874 INFO 4242 [app.py:15] - started");
        assert_eq!(plain.engine, None);
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
        let plain_tqdm = classify(
            "Loading safetensors checkpoint shards:  50%|█████     | 2/4 [01:02<01:02, 31.0s/it]",
        );
        assert!(matches!(
            plain_tqdm.signal,
            Some(Signal::ShardProgress {
                done: 2,
                total: 4,
                elapsed_seconds: Some(62),
                ..
            })
        ));
    }

    #[test]
    fn drafter_weights_end_is_recognised() {
        let line = classify(
            "[2026-02-11 22:36:02 TP0] Load weight end. elapsed=3.5 s, type=LlamaForCausalLMEagle3, dtype=torch.bfloat16, avail mem=20.1 GB, mem usage=1.2 GB.",
        );
        assert_eq!(
            line.signal,
            Some(Signal::WeightsEnd {
                arch: Some("LlamaForCausalLMEagle3".into()),
                draft: true,
                seconds: Some(3.5),
            })
        );
    }

    #[test]
    fn servers_that_are_not_engines_say_they_are_bound() {
        let bound = |host: &str, port: u16| {
            Some(Signal::Bound {
                host: host.into(),
                port: Some(port),
            })
        };
        let cases = [
            (
                "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...",
                bound("0.0.0.0", 8000),
            ),
            ("Serving HTTP on :: port 8080 ...", bound("::", 8080)),
            (
                "INFO:     Uvicorn running on http://127.0.0.1:8085 (Press CTRL+C to quit)",
                bound("127.0.0.1", 8085),
            ),
            (
                " * Running on http://127.0.0.1:5000",
                bound("127.0.0.1", 5000),
            ),
            (
                " \u{2502}       (bound on host 0.0.0.0 and port 8080)       \u{2502} ",
                bound("0.0.0.0", 8080),
            ),
            (
                "  \u{279c}  Local:   http://localhost:5173/",
                bound("localhost", 5173),
            ),
            (
                "ready - started server on 0.0.0.0:3000, url: http://localhost:3000",
                bound("0.0.0.0", 3000),
            ),
            (
                " \u{2713} Ready in 2.3s",
                Some(Signal::Ready { port: None }),
            ),
            ("Listening on port 3000", bound("", 3000)),
            ("Example app listening on port 3000!", bound("", 3000)),
            ("So nothing is listening on port 8000.", None),
            (
                "  Local URL: http://localhost:8502",
                bound("localhost", 8502),
            ),
            ("The app is not running on port 3000 any more", None),
            (
                "claude-code-bot  | Application started",
                Some(Signal::Ready { port: None }),
            ),
            (
                "      Application started. Press Ctrl+C to shut down.",
                Some(Signal::Ready { port: None }),
            ),
            (
                "Server listening on http://localhost:8080",
                bound("localhost", 8080),
            ),
            ("2026/01/02 10:00:00 listening on :8080", bound("", 8080)),
            ("7:55:48 PM [express] serving on port 3000", bound("", 3000)),
            ("Server running on port 5001", bound("", 5001)),
            ("Server started on port 8080.", bound("", 8080)),
            (
                "Example app listening at http://localhost:3000",
                bound("localhost", 3000),
            ),
            // Next's banner comes before it is ready; Ollama's runner
            // names its internal port; neither is a server's bind line.
            ("   - Local:        http://localhost:3000", None),
            (
                "time=2025-07-16T08:18:26.530Z level=INFO source=runner.go:874 msg=\"Server listening on 127.0.0.1:42357\"",
                None,
            ),
            ("a process listening on four ephemeral ports", None),
        ];
        for (line, signal) in cases {
            assert_eq!(classify(line).signal, signal, "{line}");
        }
    }

    #[test]
    fn readiness_and_bind() {
        assert_eq!(
            classify("[2026-02-11 22:37:00] The server is fired up and ready to roll!").signal,
            Some(Signal::Ready { port: None })
        );
        assert_eq!(
            classify("[2026-02-11 22:36:50] INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)").signal,
            Some(Signal::Bound { host: "0.0.0.0".into(), port: Some(8000) })
        );
        assert_eq!(
            classify("INFO:     Application startup complete.").signal,
            Some(Signal::AppStartupComplete)
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
        assert_eq!(s.mem_fraction, Some(0.9));
    }

    #[test]
    fn ansi_and_residue_are_stripped() {
        assert_eq!(strip_ansi("\x1b[32mINFO\x1b[0m ok"), "INFO ok");
        assert_eq!(strip_ansi("#033[0;36mx#033[0m"), "x");
    }

    #[test]
    fn envelopes_are_removed_but_engine_timestamps_kept() {
        assert_eq!(
            strip_envelope("2026-11-30T10:00:00.1234567Z [2026-11-30 10:00:00 TP0] x"),
            "[2026-11-30 10:00:00 TP0] x"
        );
        assert_eq!(strip_envelope("> > INFO 11-30 x"), "INFO 11-30 x");
        assert_eq!(strip_envelope("[pod/vllm-0] INFO x"), "INFO x");
        assert_eq!(strip_envelope("vllm-1  | INFO x"), "INFO x");
        let tgi =
            "2026-11-30T10:00:00.123456Z  INFO text_generation_launcher: Starting shard rank=0";
        assert_eq!(strip_envelope(tgi), tgi);
        assert_eq!(
            strip_envelope("Nov 30 10:00:00 gpu1 vllm[311]: INFO 11-30 x"),
            "INFO 11-30 x"
        );
        // A Kibana or OpenSearch Discover export's own time.
        assert_eq!(
            strip_envelope(
                "May 16, 2026 @ 20:44:55.560    [2026-05-16 12:44:55 DP2 TP2] Decode batch"
            ),
            "[2026-05-16 12:44:55 DP2 TP2] Decode batch"
        );
        assert_eq!(strip_envelope("May 16, 2026 @ noon"), "May 16, 2026 @ noon");
    }

    #[test]
    fn rank_tags_alone_on_a_line_as_a_count_prints_them() {
        // `grep -oE '(TP|DP|PP|EP)[0-9]+' LOG | sort | uniq -c`.
        assert_eq!(rank_in_text("TP3").as_deref(), Some("TP3"));
        assert_eq!(rank_in_text("     12 DP1").as_deref(), Some("DP1"));
        assert_eq!(rank_in_text("TPU"), None);
        assert_eq!(rank_in_text("TP3 is slow"), None);
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
        assert_eq!(
            classify("Rank 1: load weight end.").rank.as_deref(),
            Some("rank 1")
        );
        assert_eq!(
            classify("[rank3]:[E304 12:54:52.1 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout").aux_rank.as_deref(),
            Some("rank 3")
        );
    }

    #[test]
    fn failures() {
        let kind = |line: &str| match classify(line).signal {
            Some(Signal::Failure { kind, .. }) => Some(kind),
            _ => None,
        };
        assert_eq!(
            kind("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB."),
            Some(FailureKind::OutOfMemory)
        );
        assert_eq!(
            kind("[2026-02-11 22:35:07 TP0] Scheduler hit an exception: Traceback"),
            Some(FailureKind::EngineDied)
        );
        assert_eq!(
            kind("RuntimeError: NCCL error: unhandled system error"),
            Some(FailureKind::Nccl)
        );
        assert_eq!(
            kind("vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue."),
            Some(FailureKind::EngineDied)
        );
        assert_eq!(
            kind(
                "(EngineCore_DP3 pid=40) ERROR 12-26 16:50:20 [core.py:868] EngineCore encountered a fatal error."
            ),
            Some(FailureKind::EngineDied)
        );
        assert_eq!(kind("ValueError: bad value"), Some(FailureKind::Exception));
        // A C/C++ engine's own abort: the engine died.
        assert_eq!(kind("Aborted (core dumped)"), Some(FailureKind::EngineDied));
        for abort in [
            "malloc(): invalid size (unsorted)",
            "free(): invalid pointer",
            "double free or corruption (out)",
            "*** stack smashing detected ***: terminated",
        ] {
            assert_eq!(kind(abort), Some(FailureKind::EngineDied), "{abort}");
        }
        // A word in a sentence is no abort.
        assert_eq!(kind("the free(): call is cheap here"), None);
        assert_eq!(
            kind("/src/ggml/src/iqk/iqk_mul_mat.cpp:700: Fatal error"),
            Some(FailureKind::EngineDied)
        );
        assert_eq!(
            kind("/llama.cpp/ggml/src/ggml.c:1812: GGML_ASSERT(view_src == NULL) failed"),
            Some(FailureKind::EngineDied)
        );
        // The CUDA runtime's other errors stay exceptions (PyTorch raises
        // them: `RuntimeError: CUDA error: …`).
        assert_eq!(
            kind("CUDA error: no kernel image is available for execution on the device"),
            Some(FailureKind::Exception)
        );
        assert_eq!(kind("Aborted by AbortReq."), None);
        assert_eq!(kind("Killed"), Some(FailureKind::Killed));
        assert!(matches!(
            classify("2026-07-25 14:36:08.360 [Info] (vLLM) Starting vllm-server on port 8001...").signal,
            Some(Signal::Settings(s)) if s.port == Some(8001)
        ));
        assert_eq!(
            kind("2026-04-26 15:30:09.459 Port 8765 is not available"),
            Some(FailureKind::AddressInUse)
        );
        assert_ne!(
            kind("Port 8000 is open; model llama3 is not available"),
            Some(FailureKind::AddressInUse)
        );
        // Shell job reports, bash's and zsh's.
        for line in [
            "[1]    474256 segmentation fault  ./server -m llama-2-13b.gguf --port 8080",
            "[1]  + 9911 killed     python -m vllm.entrypoints.openai.api_server",
            "zsh: illegal hardware instruction  ./llama-server -m m.gguf",
            "start.sh: line 11:  7 Aborted (core dumped) lmdeploy serve api_server m",
            "[2]-  Segmentation fault      ./server -m m.gguf",
        ] {
            assert_eq!(kind(line), Some(FailureKind::Killed), "{line}");
        }
        for line in [
            "[1]+  Done                    sleep 5",
            "the job was killed by the user",
            "WARNING: process killed earlier",
        ] {
            assert_ne!(kind(line), Some(FailureKind::Killed), "{line}");
        }
        assert_eq!(
            shell_job("[1]    474256 segmentation fault  ./server -m m.gguf --port 8080"),
            Some(("segmentation fault", "./server -m m.gguf --port 8080"))
        );
        assert_eq!(
            shell_job("x.sh: line 3: 77 Exit 1   vllm serve m"),
            Some(("Exit", "vllm serve m"))
        );
        // A C++ server's death by an uncaught exception.
        assert_eq!(
            kind(
                "libc++abi: terminating due to uncaught exception of type std::length_error: vector"
            ),
            Some(FailureKind::Exception)
        );
        assert_eq!(
            kind("terminate called after throwing an instance of 'std::runtime_error'"),
            Some(FailureKind::Exception)
        );
        // A frame of the drafter proposing, in a crash while serving.
        assert!(matches!(
            classify("(Worker_TP6_EP6 pid=2675) ERROR 02-03 19:11:07 [multiproc_executor.py:822]     draft_token_ids = self.drafter._propose(").signal,
            Some(Signal::WeightsEnd { draft: true, .. })
        ));
        assert_eq!(
            kind(
                "Memory access fault by GPU node-1 (Agent handle: 0x43578c10) on address 0x7f58f8001000. Reason: Page not present or supervisor privilege."
            ),
            Some(FailureKind::EngineDied)
        );
        // A frame logged at ERROR level is the exception that kills a vLLM
        // worker, even cut above its `Traceback` line; a bare frame is not.
        assert_eq!(
            kind(
                "(Worker_TP3 pid=993) ERROR 08-31 08:16:01 [multiproc_executor.py:941]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 5445, in load_model"
            ),
            Some(FailureKind::Exception)
        );
        assert_eq!(
            kind(
                "  File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py\", line 5445, in load_model"
            ),
            None
        );
        // Frames of the drafter being built or loaded, in a start-up crash:
        // it was on its way in, not in.
        for frame in [
            "(Worker_TP3 pid=993) ERROR 08-31 08:16:01 [multiproc_executor.py:941]     self.drafter.load_model(self.model)",
            "    self.draft_worker = EAGLEWorker(",
        ] {
            assert!(
                matches!(classify(frame).signal, Some(Signal::DrafterBegin)),
                "{frame}"
            );
        }
        assert_eq!(
            kind(
                "[TRT-LLM] [E] Failed to initialize executor on rank 6: [TensorRT-LLM][ERROR] CUDA driver error in cuDriver->cuModuleLoadData(&cuModule, kernelInfo.data): CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered."
            ),
            Some(FailureKind::Exception)
        );
        assert_eq!(
            kind("bash: line 1: 4242 Killed python3 -m vllm.entrypoints.openai.api_server"),
            Some(FailureKind::Killed)
        );
        assert_eq!(kind("UserWarning: something"), None);
        assert_eq!(
            classify("zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:29236')")
                .signal,
            Some(Signal::Failure {
                kind: FailureKind::AddressInUse,
                port: Some(29236)
            })
        );
        assert_eq!(
            classify("ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use").signal,
            Some(Signal::Failure { kind: FailureKind::AddressInUse, port: Some(8000) })
        );
    }

    #[test]
    fn hard_wrapped_lines_are_joined() {
        // Wrapped at 80 columns in the middle of the drafter's architecture.
        let head =
            "[2026-02-11 22:36:02 TP0] Load weight end. elapsed=3 s, mem usage=1 GB, type=Lla";
        assert_eq!(head.chars().count(), 80);
        let text = format!(
            "{head}\nmaForCausalLMEagle3, dtype=torch.bfloat16\n[2026-02-11 22:36:03 TP0] next\n"
        );
        let parsed = parse_log(&text, 0);
        assert_eq!(parsed.events.len(), 2);
        let EventKind::Log(line) = &parsed.events[0].kind else {
            panic!("log event expected")
        };
        assert!(matches!(
            line.signal,
            Some(Signal::WeightsEnd { draft: true, .. })
        ));
    }

    /// A log cut inside a traceback (below its `Traceback` line, above its
    /// exception) ends in a failure; frames followed by more log, one
    /// frame alone, or a quoted excerpt do not.
    #[test]
    fn a_log_ending_inside_a_traceback_failed() {
        let failures = |parsed: &Parsed| {
            parsed
                .events
                .iter()
                .filter(|e| {
                    matches!(&e.kind, EventKind::Log(l) if matches!(l.signal, Some(Signal::Failure { .. })))
                })
                .count()
        };
        let head = "[06/05/2026-22:06:59] [TRT-LLM] [I] [_torch] Validating KV Cache config\n";
        let frames = "  File \"/x/model_engine.py\", line 1015, in _run_cuda_graph_warmup\n    self._capture()\n  File \"/x/model_engine.py\", line 1083, in _capture\n    self.forward(batch,\n";
        let cut = format!("{head}{frames}");
        for parsed in [parse_log(&cut, 0), parse_log_every_line(&cut, 0)] {
            assert_eq!(failures(&parsed), 1, "{:?}", parsed.events);
        }
        let went_on = format!("{cut}[06/05/2026-22:07:01] [TRT-LLM] [I] [_torch] Memory used\n");
        assert_eq!(failures(&parse_log(&went_on, 0)), 0);
        let one = format!("{head}  File \"/x/warn.py\", line 3, in f\n    warn()\n");
        assert_eq!(failures(&parse_log(&one, 0)), 0);
        assert_eq!(failures(&parse_log_excerpt(&cut, 0)), 0);
    }
}

//! From events to a timeline: checkpoints (build, kill, launch, verify, wait),
//! servers with their lifecycle, and what the agent saw of each server.
//!
//! The timeline is all that rules see. It separates two views of a server:
//! what its log shows happened ([`Server::lifecycle`]) and what the agent saw
//! in its own tool output ([`Checkpoint::seen`]), because a finding is about
//! the gap between them.

pub mod classify;
mod seen;

use std::collections::BTreeSet;

use crate::engine::{Engine, launch_from_command};
use crate::parse::logline::{LogLine, PastedLaunch, Signal, strip_ansi};
use crate::parse::{EventKind, Parsed, Role};
use crate::secrets;
use crate::settings::ServerSettings;
use crate::shell::{self, SimpleCommand};
use crate::source::{Format, LineIndex, Source, SourceId, Span};

pub use classify::{CheckpointKind, Observation, Window};
pub use seen::{Seen, SeenIter, SeenLine};

/// One input as the timeline knows it.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    pub name: String,
    pub format: Format,
    pub detected: bool,
    pub lines: LineIndex,
    /// Whether anything in it was recognised: a command or a message of a
    /// transcript, a lifecycle line or rank tag of a log.
    pub understood: bool,
}

/// Lines cited as evidence: a span, plus the decoded text when the source
/// holds it escaped (a JSON transcript stores output inside strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quote {
    pub span: Span,
    pub text: Option<String>,
}

impl From<Span> for Quote {
    fn from(span: Span) -> Self {
        Quote { span, text: None }
    }
}

/// An action of the agent (or a human) in the transcript: one tool call.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    pub id: usize,
    pub kind: CheckpointKind,
    /// The command as written.
    pub command: String,
    /// Where it ran: the `ssh` destination, or the host of the prompt.
    pub host: Option<String>,
    pub time: Option<String>,
    /// The message it belongs to (`[msg 3136]`).
    pub message: Option<u64>,
    pub span: Span,
    pub output: Option<Span>,
    pub commands: Vec<SimpleCommand>,
    pub observations: Vec<Observation>,
    /// Output lines the agent saw, classified as log lines; also holds the
    /// decoded output, for sources that escape it.
    pub seen: Seen,
    /// Port listings and requests, with what their output showed.
    pub port_checks: Vec<PortCheck>,
    /// Where `tail`/`head` reads of a linked log fell in that log.
    pub log_windows: Vec<LogWindow>,
    pub by_human: bool,
    /// Run by a sub-agent the agent started (a sidechain's command).
    pub by_subagent: bool,
    pub background: bool,
    /// The exit status, when the transcript records one.
    pub exit_code: Option<i32>,
    /// The tool reported an error.
    pub is_error: bool,
    /// Whether the source escapes text (JSON): then quotes carry decoded text.
    pub decoded: bool,
}

/// Where a windowed read of a server's log (`tail -5 x.log`) fell in the
/// full log given, and the failures the window left out.
#[derive(Debug, Clone)]
pub struct LogWindow {
    pub server: usize,
    /// `tail -5` → 5.
    pub lines: u32,
    /// A `tail` (the last lines), rather than a numbered range (`sed -n`).
    pub from_end: bool,
    /// The first and last log lines the window showed.
    pub first: Span,
    pub last: Span,
    /// Failure lines of the log before the window that the window hid.
    pub missed: Vec<(crate::parse::FailureKind, Span)>,
}

/// The result of a check, kept three-way: passing, failing and unknown are
/// different facts and must never be merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    Unknown,
}

/// A port listing or request and its outcome, read from the output.
#[derive(Debug, Clone)]
pub struct PortCheck {
    pub port: Option<u16>,
    /// The host a request went to (`127.0.0.1`), for requests.
    pub target: Option<String>,
    pub request: bool,
    pub outcome: Outcome,
    /// The output line that decided the outcome, if one did.
    pub line: Option<Quote>,
    /// A request that failed by timing out: the server may be busy rather
    /// than down.
    pub timed_out: bool,
    /// A listing row in the output of a command that was no listing (pasted
    /// below a launch): it confirms a server known on that port, but shows
    /// no server of its own.
    pub unasked: bool,
    /// The HTTP error status a request was answered with (`HTTP/1.1 404`,
    /// FastAPI's `{"detail":"Not Found"}`): the server is up, but the thing
    /// asked for failed. 502 and 503 are not here: they fail the request.
    pub error_status: Option<u16>,
}

impl Checkpoint {
    /// A command run in the foreground by the agent, as written at `span`,
    /// with what its programs look at; kind `Other`, nothing seen yet. The
    /// readers set the rest.
    fn of(id: usize, command: String, span: Span, commands: Vec<SimpleCommand>) -> Checkpoint {
        Checkpoint {
            id,
            kind: CheckpointKind::Other,
            command,
            host: None,
            time: None,
            message: None,
            span,
            output: None,
            observations: classify::observations(&commands),
            commands,
            seen: Seen::default(),
            port_checks: Vec::new(),
            log_windows: Vec::new(),
            by_human: false,
            by_subagent: false,
            background: false,
            exit_code: None,
            is_error: false,
            decoded: false,
        }
    }

    /// Where in the call the launch is: the index of its first command
    /// that launches (`pkill -f vllm; sleep 2; vllm serve …` → 2). What runs
    /// before it (kills, builds, a port freed) sees nothing of the server.
    pub fn launching_command(&self) -> Option<usize> {
        self.commands
            .iter()
            .position(|c| classify::kind_of(c) == CheckpointKind::Launch)
    }

    /// Whether the command exited non-zero or its tool reported an error.
    pub fn exited_badly(&self) -> bool {
        self.exit_code.is_some_and(|c| c != 0) || self.is_error
    }

    /// Where the command and what it printed end: what the agent wrote
    /// after it starts there.
    pub fn end(&self) -> usize {
        self.output
            .map_or(self.span.end, |o| o.end.max(self.span.end))
    }

    /// The command's lines as evidence.
    pub fn command_quote(&self) -> Quote {
        Quote {
            span: self.span,
            text: self.decoded.then(|| self.command.clone()),
        }
    }

    /// The output's lines as evidence, if there was output.
    pub fn output_quote(&self) -> Option<Quote> {
        self.output.map(|span| Quote {
            span,
            text: self.seen.output().map(str::to_owned),
        })
    }

    /// Whether this checkpoint reads the file at `path` (compared by file name
    /// when one side is relative).
    pub fn reads(&self, path: &str) -> Option<&Window> {
        self.observations.iter().find_map(|o| match o {
            Observation::FileRead { path: p, window } if same_path(p, path) => Some(window),
            _ => None,
        })
    }
}

/// Prose the agent wrote (a candidate claim; never evidence).
#[derive(Debug, Clone)]
pub struct Prose {
    pub span: Span,
    pub role: Role,
    /// What it says: decoded for sources that escape text, else as written.
    pub said: String,
    /// Whether `said` was decoded (then evidence quotes it, not the raw lines).
    pub decoded: bool,
    pub message: Option<u64>,
}

impl Prose {
    /// This prose as evidence.
    pub fn quote(&self) -> Quote {
        Quote {
            span: self.span,
            text: self.decoded.then(|| self.said.clone()),
        }
    }
}

/// A file the agent wrote (an editor tool, or `cat > x.py <<EOF`), kept
/// for what later checks need of it: the Python modules it imports, so a
/// later `python x.py` is known to load them.
#[derive(Debug, Clone)]
pub struct Written {
    pub span: Span,
    pub path: String,
    /// The first checkpoint that can see it (a write inside a call counts
    /// for that call's later commands).
    pub from: usize,
    /// Top-level modules it imports (`from a.b import c` → `a`).
    pub imports: Vec<String>,
    /// The inference server it starts, for a script written to start one
    /// (`cat > /tmp/launch_vllm.sh <<EOF … exec python -m vllm… EOF`): run
    /// later, it is that launch.
    pub launch: Option<Box<(Engine, ServerSettings)>>,
}

/// The inference server a shell script written at `path` starts, if it
/// starts one. Only a shell script is read as commands (`.sh`, a `#!` line,
/// a name without extension): the Python, JSON or YAML an agent writes is
/// not, and can be large.
fn script_launch(path: &str, body: &str) -> Option<Box<(Engine, ServerSettings)>> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let shell_script = body.starts_with("#!")
        || !name.contains('.')
        || [".sh", ".bash", ".zsh"].iter().any(|e| name.ends_with(e));
    if !shell_script {
        return None;
    }
    // Launch scripts name their settings once (`SERVER_PORT=30000`, `export
    // TP=4`) and use them in the launch (`--port $SERVER_PORT`).
    let mut vars: Vec<(String, String)> = Vec::new();
    for command in shell::parse(body) {
        if command.argv.is_empty() {
            vars.extend(command.env);
            continue;
        }
        if command.argv[0] == "export" {
            vars.extend(
                command.argv[1..]
                    .iter()
                    .filter_map(|a| a.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned())),
            );
            continue;
        }
        let argv: Vec<String> = command.argv.iter().map(|a| substitute(a, &vars)).collect();
        if let Some(launch) = launch_from_command(&argv, &command.env) {
            return Some(Box::new(launch));
        }
    }
    None
}

/// A word with the script's variables put in (`$PORT`, `${PORT}`); one
/// the script never set stays as written.
fn substitute(word: &str, vars: &[(String, String)]) -> String {
    if !word.contains('$') {
        return word.to_owned();
    }
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, used) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], end + 2),
                None => ("", 0),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], end)
            }
        };
        match vars
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .filter(|_| !name.is_empty())
        {
            Some((_, value)) => {
                out.push_str(value);
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A phase of a server's life, as its log (or the agent's view of it) shows.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum PhaseKind {
    /// The engine's start banner or settings dump.
    Started,
    Configured,
    /// Distributed (NCCL / MPI) initialisation finished.
    NcclInit,
    WeightsLoading,
    WeightsLoaded,
    /// A drafter load began (vLLM's `Loading drafter model...`): not proof.
    DrafterLoading,
    DrafterLoaded,
    KvCache,
    CudaGraphs,
    DraftCudaGraphs,
    PortBound,
    Ready,
    Serving,
    Failed,
}

impl PhaseKind {
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::Started => "started",
            PhaseKind::Configured => "configured",
            PhaseKind::NcclInit => "nccl-init",
            PhaseKind::WeightsLoading => "weights-loading",
            PhaseKind::WeightsLoaded => "weights-loaded",
            PhaseKind::DrafterLoading => "drafter-loading",
            PhaseKind::DrafterLoaded => "drafter-loaded",
            PhaseKind::KvCache => "kv-cache",
            PhaseKind::CudaGraphs => "cuda-graphs",
            PhaseKind::DraftCudaGraphs => "draft-cuda-graphs",
            PhaseKind::PortBound => "port-bound",
            PhaseKind::Ready => "ready",
            PhaseKind::Serving => "serving",
            PhaseKind::Failed => "failed",
        }
    }
}

/// The first line showing a phase.
#[derive(Debug, Clone)]
pub struct Phase {
    pub kind: PhaseKind,
    pub span: Span,
    pub time: Option<String>,
}

/// What a server's log shows happened to it.
#[derive(Debug, Clone, Default)]
pub struct Lifecycle {
    /// The engine, which decides what some shared lines mean (uvicorn's
    /// `Application startup complete.` is readiness for vLLM, not SGLang).
    pub engine: Engine,
    pub phases: Vec<Phase>,
    pub ranks: BTreeSet<String>,
    /// Weaker rank hints, used only when no line carries a real rank tag.
    pub aux_ranks: BTreeSet<String>,
    pub ready: bool,
    /// Readiness came from uvicorn's startup line, which an old vLLM prints
    /// before failing to bind; a bind failure then takes it back.
    ready_from_startup: bool,
    pub drafter_loaded: bool,
    /// The most specific failure shown (see [`crate::parse::FailureKind`]).
    pub failure: Option<(crate::parse::FailureKind, Span)>,
    /// The port an address-in-use failure named.
    pub failure_port: Option<u16>,
    /// Weight loading time: the first completed progress bar, else the
    /// engine's own `took N s` line.
    pub load_seconds: Option<u32>,
    /// The latest shard progress (done, total).
    pub shards: Option<(u32, u32)>,
    /// The last line of the log: where it stopped.
    pub last_line: Option<Span>,
    pub settings: ServerSettings,
    /// The command pasted above the log, and what it asked for.
    pub launch: Option<(Engine, ServerSettings)>,
    pub bound_port: Option<u16>,
    /// The phase of the latest line that showed one (failures aside).
    pub latest_phase: Option<PhaseKind>,
    /// The latest line that showed a phase was a failure: the run ended
    /// in it (nothing after it shows the server working).
    pub ended_in_failure: bool,
    /// Runs before the last one in the same log (a server restarted into
    /// the file it wrote before), each with its failure if it showed one.
    /// Everything else here describes the last run.
    pub earlier_runs: Vec<Option<EarlierFailure>>,
}

/// How an earlier run failed: the kind, the line, the port it named.
#[derive(Debug, Clone, Copy)]
pub struct EarlierFailure {
    pub kind: crate::parse::FailureKind,
    pub span: Span,
    pub port: Option<u16>,
}

/// The rank a V0/Ray log's driver (rank 0) prints without a tag.
pub const RAY_DRIVER: &str = "driver";

/// Whether rank tags hold V0/Ray workers (told apart by pid, `worker pid
/// N`), whose driver is then a rank too, though it prints untagged.
pub fn implies_ray_driver<'a>(ranks: impl IntoIterator<Item = &'a str>) -> bool {
    ranks.into_iter().any(|r| r.starts_with("worker pid "))
}

impl Lifecycle {
    pub fn new(engine: Engine) -> Lifecycle {
        Lifecycle {
            engine,
            ..Lifecycle::default()
        }
    }

    /// What a parsed server log shows.
    pub fn from_log(engine: Engine, log: &Parsed) -> Lifecycle {
        let mut lifecycle = Lifecycle::new(engine);
        for event in &log.events {
            if let EventKind::Log(line) = &event.kind {
                lifecycle.absorb(event.span, line, None, true);
            }
        }
        lifecycle.finish();
        lifecycle
    }

    /// Takes in one line; `from_log` is false for lines the agent saw in
    /// tool output, which say nothing about where the log stops.
    fn absorb(&mut self, span: Span, log: &LogLine, rank: Option<&str>, from_log: bool) {
        // Only a log read in order tells runs apart: what the agent saw comes
        // in views that repeat and reorder lines (a `head` after a `grep`).
        if from_log
            && matches!(log.signal, Some(Signal::Settings(_) | Signal::ProcessStart))
            && self.run_over()
        {
            self.restart();
        }
        if let Some(rank) = rank.or(log.rank.as_deref()) {
            self.ranks.insert(rank.to_owned());
        }
        if let Some(rank) = log.aux_rank.as_deref() {
            self.aux_ranks.insert(rank.to_owned());
        }
        if from_log {
            self.last_line = Some(span);
        }
        let Some(signal) = &log.signal else {
            return;
        };
        let phase = match signal {
            Signal::Launch(launch) => {
                if self.launch.is_none() {
                    self.launch = Some((launch.engine, launch.settings.clone()));
                }
                None
            }
            Signal::Settings(settings) => {
                self.settings.merge_missing(settings);
                self.push(PhaseKind::Started, span, log);
                Some(PhaseKind::Configured)
            }
            Signal::ProcessStart => Some(PhaseKind::Started),
            Signal::DistInit { done, world_size } => {
                if self.settings.world_size.is_none() {
                    self.settings.world_size = *world_size;
                }
                done.then_some(PhaseKind::NcclInit)
            }
            Signal::WeightsBegin => Some(PhaseKind::WeightsLoading),
            Signal::ShardProgress {
                done,
                total,
                elapsed_seconds,
                ..
            } => {
                // The first bar to finish is the target model's; a drafter's
                // small bar comes later and must not overwrite it.
                if done == total && self.load_seconds.is_none() {
                    self.load_seconds = *elapsed_seconds;
                }
                self.shards = Some((*done, *total));
                Some(if done == total {
                    PhaseKind::WeightsLoaded
                } else {
                    PhaseKind::WeightsLoading
                })
            }
            Signal::WeightsEnd { draft: true, .. } => {
                self.drafter_loaded = true;
                Some(PhaseKind::DrafterLoaded)
            }
            Signal::WeightsEnd {
                draft: false,
                seconds,
                ..
            } => {
                if self.load_seconds.is_none() {
                    self.load_seconds = seconds.and_then(whole_seconds);
                }
                Some(PhaseKind::WeightsLoaded)
            }
            Signal::DrafterBegin => Some(PhaseKind::DrafterLoading),
            Signal::KvCacheAllocated => Some(PhaseKind::KvCache),
            Signal::CudaGraphBegin { .. } => None,
            Signal::CudaGraphEnd { draft: true } => {
                self.drafter_loaded = true;
                Some(PhaseKind::DraftCudaGraphs)
            }
            Signal::CudaGraphEnd { draft: false } => Some(PhaseKind::CudaGraphs),
            Signal::Bound { port, .. } => {
                self.bound_port = self.bound_port.or(*port);
                if matches!(self.engine, Engine::Ollama | Engine::Unknown) {
                    // Ollama serves as soon as it listens; models load on
                    // demand. A server of no known engine tells no later
                    // readiness: its bound HTTP port is the best sign.
                    self.push(PhaseKind::PortBound, span, log);
                    self.ready = true;
                    Some(PhaseKind::Ready)
                } else {
                    Some(PhaseKind::PortBound)
                }
            }
            Signal::AppStartupComplete => {
                if matches!(
                    self.engine,
                    Engine::Vllm | Engine::TensorrtLlm | Engine::Unknown
                ) {
                    self.ready = true;
                    self.ready_from_startup = true;
                    Some(PhaseKind::Ready)
                } else {
                    None
                }
            }
            Signal::Ready { port } => {
                if port.is_some() {
                    // Listening is binding: llama.cpp's 2026 builds print
                    // no other line with the port.
                    self.bound_port = self.bound_port.or(*port);
                    self.push(PhaseKind::PortBound, span, log);
                }
                self.ready = true;
                self.ready_from_startup = false;
                Some(PhaseKind::Ready)
            }
            // A 5xx answer is the server failing a request (Ollama answers
            // 500 when the model it loads on demand fails): up, not serving.
            Signal::Request {
                status: Some(500..=599),
            } => {
                // Ollama's API answering 500 for a model its runner could not
                // load is still the API up (the failure is the runner's).
                if self.engine == Engine::Ollama {
                    self.ready = true;
                }
                None
            }
            // A served request shows a working server, readiness line or not.
            Signal::Request { .. } => {
                self.ready = true;
                Some(PhaseKind::Serving)
            }
            Signal::DraftAccepting => {
                self.drafter_loaded = true;
                self.ready = true;
                Some(PhaseKind::Serving)
            }
            Signal::Failure { kind, port } => {
                // The most specific failure names it: the OOM inside a
                // traceback, not the traceback's first line.
                if self.failure.is_none_or(|(current, _)| *kind < current) {
                    self.failure = Some((*kind, span));
                    self.failure_port = *port;
                    // The failed phase quotes the line that names the
                    // failure (the `RuntimeError: CUDA driver error: out of
                    // memory`), not the first frame of its traceback.
                    if let Some(last) = self.phases.last_mut()
                        && last.kind == PhaseKind::Failed
                    {
                        last.span = span;
                        last.time.clone_from(&log.time);
                    }
                }
                if *kind == crate::parse::FailureKind::AddressInUse && self.ready_from_startup {
                    self.ready = false;
                }
                Some(PhaseKind::Failed)
            }
        };
        if let Some(kind) = phase {
            self.push(kind, span, log);
            self.ended_in_failure = kind == PhaseKind::Failed;
            if kind != PhaseKind::Failed {
                self.latest_phase = Some(kind);
            }
        }
    }

    /// Whether a start line now begins a new run: this one failed or came
    /// up, and the engine prints its start lines once per run. An Ollama
    /// server starts a runner per model load while it serves, and
    /// TensorRT-LLM's ranks each print the version banner, so for them a
    /// start line says nothing of a restart and a log is one run.
    fn run_over(&self) -> bool {
        matches!(
            self.engine,
            Engine::Vllm | Engine::Sglang | Engine::Tgi | Engine::LlamaCpp
        ) && (self.failure.is_some() || self.ready)
    }

    /// Files the current run away and starts the next one afresh. The
    /// engine, the last line and the rank tags stay: the log parser keeps
    /// one line per rank tag for the whole log (see
    /// [`crate::parse::logline::parse_log`]), so tags are counted over all
    /// runs.
    fn restart(&mut self) {
        let failure = self.failure.map(|(kind, span)| EarlierFailure {
            kind,
            span,
            port: self.failure_port,
        });
        let mut earlier_runs = std::mem::take(&mut self.earlier_runs);
        earlier_runs.push(failure);
        *self = Lifecycle {
            engine: self.engine,
            last_line: self.last_line,
            ranks: std::mem::take(&mut self.ranks),
            aux_ranks: std::mem::take(&mut self.aux_ranks),
            launch: self.launch.take(),
            earlier_runs,
            ..Lifecycle::default()
        };
    }

    fn push(&mut self, kind: PhaseKind, span: Span, log: &LogLine) {
        if !self.phases.iter().any(|p| p.kind == kind) {
            self.phases.push(Phase {
                kind,
                span,
                time: log.time.clone(),
            });
        }
    }

    /// Settles what needs the whole log: without real rank tags the weak
    /// hints count; V0/Ray workers are told apart by pid and their driver
    /// (rank 0) prints without a tag.
    fn finish(&mut self) {
        if self.ranks.is_empty() {
            self.ranks = std::mem::take(&mut self.aux_ranks);
        } else {
            // A weak hint whose index no real tag has is one more process
            // (torch's `[rank3]:` beside SGLang's `TP5`): counted, while one
            // that repeats a real tag's index is the same process twice.
            let indices: BTreeSet<u32> = self
                .ranks
                .iter()
                .flat_map(|tag| rank_indices(tag))
                .collect();
            for tag in std::mem::take(&mut self.aux_ranks) {
                let new_index = {
                    let mut mine = rank_indices(&tag);
                    matches!((mine.next(), mine.next()),
                        (Some(index), None) if !indices.contains(&index))
                };
                if tag.starts_with("rank ") && new_index {
                    self.ranks.insert(tag);
                }
            }
        }
        // A process name without an index (vLLM's single `EngineCore`) is
        // not one more rank beside the indexed ones it runs (`rank 0` from
        // its `world_size=1 rank=0`).
        if self
            .ranks
            .iter()
            .any(|r| r.chars().any(|c| c.is_ascii_digit()))
        {
            self.ranks.retain(|r| r.chars().any(|c| c.is_ascii_digit()));
        }
        if implies_ray_driver(self.ranks.iter().map(String::as_str)) {
            self.ranks.insert(RAY_DRIVER.to_owned());
        }
    }

    /// The phase of the last line that showed one: where the server
    /// stopped; `Failed` when the run ended in a failure (what it was doing
    /// then is [`Lifecycle::latest_phase`]).
    pub fn last_phase(&self) -> Option<PhaseKind> {
        if self.ended_in_failure {
            Some(PhaseKind::Failed)
        } else {
            self.latest_phase
        }
    }

    /// Whether the failure that ended the run ended the server: not for
    /// Ollama, whose API server outlives a model runner that died.
    fn failure_ends_server(&self) -> bool {
        self.ended_in_failure && self.engine != Engine::Ollama
    }

    /// A lower bound on the ranks the lines show: the number of distinct
    /// indexed tags, and for each axis (`TP`, `DP`, `PP`, `EP`, `rank`) its
    /// highest index plus one, when `by_index` (a log of one node holds
    /// only its own ranks' indices, so across nodes only the count holds).
    pub fn ranks_at_least(&self, by_index: bool) -> u32 {
        let mut bound = u32::try_from(self.ranks.len()).unwrap_or(u32::MAX);
        if by_index {
            for tag in &self.ranks {
                for index in rank_indices(tag) {
                    bound = bound.max(index.saturating_add(1));
                }
            }
        }
        bound
    }
}

/// The indices a rank tag holds: `DP1 TP3` → 1, 3; `rank 7` → 7.
fn rank_indices(tag: &str) -> impl Iterator<Item = u32> + '_ {
    let words: Vec<&str> = tag.split([' ', '=', '_']).collect();
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let digits = ["TP", "DP", "PP", "EP", "CP", "rank", "Rank", "RANK"]
            .iter()
            .find_map(|axis| word.strip_prefix(axis))
            .filter(|d| !d.is_empty())
            .or_else(|| {
                matches!(*word, "rank" | "Rank" | "RANK" | "shard")
                    .then(|| words.get(i + 1).copied())
                    .flatten()
            });
        if let Some(index) = digits.and_then(|d| d.parse::<u32>().ok()) {
            found.push(index);
        }
    }
    found.into_iter()
}

/// Where a server fact comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Provenance {
    /// A flag of the launch command (in the transcript, or pasted above
    /// the log).
    Flag,
    /// The engine's own log (its settings dump, bind line, world size).
    Log,
    /// Not given: the engine's default, applied because the launch is known.
    EngineDefault,
    /// A lower bound from the rank tags seen (`at least 8`).
    Seen,
}

/// Whole seconds of a duration, for reports.
fn whole_seconds(seconds: f64) -> Option<u32> {
    let rounded = seconds.round();
    (rounded.is_finite() && (0.0..=f64::from(u32::MAX)).contains(&rounded)).then(|| {
        // In range and whole, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = rounded as u32;
        whole
    })
}

/// A server the session launched, or whose log it was given.
#[derive(Debug, Clone)]
pub struct Server {
    pub id: usize,
    pub engine: Engine,
    /// Where it runs (the launch's `ssh` destination or prompt host).
    pub host: Option<String>,
    /// Launch flags, completed by the engine's own settings dump in its log.
    pub settings: ServerSettings,
    /// What the launch command's flags alone say (the transcript's launch,
    /// or the command pasted above the log).
    pub flags: ServerSettings,
    pub log_path: Option<String>,
    /// The launch checkpoint, when the transcript has one.
    pub launch: Option<usize>,
    /// The launch pasted above its log file: someone ran it outside the
    /// session, so no check of the agent's is owed for it, and the rules,
    /// which judge what the agent launched, never see it as `launch`.
    pub pasted_launch: Option<usize>,
    /// The log source linked to this server, when one was given.
    pub log_source: Option<SourceId>,
    /// What the log (or, without a log, the agent's view) shows.
    pub lifecycle: Lifecycle,
    /// Checkpoints that looked at this server: the launch itself when its
    /// output shows anything, then those after it.
    pub observed_by: Vec<usize>,
    /// For a server that is not an inference engine: the program that
    /// started it (`uvicorn`, `npm run dev`).
    pub program: Option<String>,
    /// That program's default port, when its launch gave none.
    pub program_default_port: Option<u16>,
    /// The outcome of the last request or port listing that reached it,
    /// and where that probe's command is.
    pub last_probe: Option<(Outcome, Span)>,
    /// The agent's kill that stopped it after its launch, if one did.
    pub stopped_by: Option<usize>,
    /// The non-zero status its launch command returned in the foreground,
    /// or the end a poll of its background shell reported (any status,
    /// even 0): the process is gone (`docker compose up -d` that could not
    /// reach the daemon, a server that crashed or that a timeout stopped).
    pub exited: Option<i32>,
}

impl Server {
    /// A server known without a launch: from a log, a probe, a look at a
    /// shell or a unit. Everything else about it is learned later.
    fn found(id: usize, engine: Engine, host: Option<String>) -> Self {
        Server {
            id,
            engine,
            host,
            flags: ServerSettings::default(),
            settings: ServerSettings::default(),
            log_path: None,
            launch: None,
            pasted_launch: None,
            log_source: None,
            lifecycle: Lifecycle::new(engine),
            observed_by: Vec::new(),
            program: None,
            program_default_port: None,
            last_probe: None,
            stopped_by: None,
            exited: None,
        }
    }

    /// Records that a checkpoint looked at it (once), the list in order.
    fn observe(&mut self, checkpoint: usize) {
        if !self.observed_by.contains(&checkpoint) {
            self.observed_by.push(checkpoint);
            self.observed_by.sort_unstable();
        }
    }

    /// Whether the command that started it is known (a launch in the
    /// transcript, or one pasted above its log): only then does an
    /// engine's default apply to what the command left out.
    pub fn launch_known(&self) -> bool {
        self.launch.is_some() || self.lifecycle.launch.is_some()
    }

    /// The port it serves on and where that comes from: a flag, the log,
    /// or the engine's default for a known launch. Unknown otherwise: a log
    /// that never names its port does not tell it.
    pub fn port_with_source(&self) -> Option<(u16, Provenance)> {
        if let Some(port) = self.flags.port {
            Some((port, Provenance::Flag))
        } else if let Some(port) = self.settings.port.or(self.lifecycle.bound_port) {
            Some((port, Provenance::Log))
        } else if let Some(port) = self.failed_default_bind() {
            // It tried to bind its default port and could not: the log
            // names the port it was to serve on.
            Some((port, Provenance::Log))
        } else if self.launch_known() && !self.settings.offline && !self.flags.elided {
            self.flags
                .default_port
                .or(self.engine.default_port())
                .or(self.program_default_port)
                .map(|port| (port, Provenance::EngineDefault))
        } else {
            None
        }
    }

    /// The engine's default port, when an address-in-use failure names it;
    /// for a server of no known engine, the port any such failure names
    /// (`listen tcp 0.0.0.0:11434: bind: Only one usage of each socket
    /// address`): with no engine there are no side ports (NCCL, ZMQ,
    /// metrics) to mistake for it.
    fn failed_default_bind(&self) -> Option<u16> {
        let default = match self.engine {
            Engine::Unknown => {
                let failed = |kind: crate::parse::FailureKind, port: Option<u16>| {
                    (kind == crate::parse::FailureKind::AddressInUse)
                        .then_some(port)
                        .flatten()
                };
                return self
                    .lifecycle
                    .failure
                    .and_then(|(kind, _)| failed(kind, self.lifecycle.failure_port))
                    .or_else(|| {
                        self.lifecycle
                            .earlier_runs
                            .iter()
                            .flatten()
                            .find_map(|f| failed(f.kind, f.port))
                    });
            }
            engine => engine.default_port()?,
        };
        let failed = |kind: crate::parse::FailureKind, port: Option<u16>| {
            kind == crate::parse::FailureKind::AddressInUse && port == Some(default)
        };
        let now = self
            .lifecycle
            .failure
            .is_some_and(|(kind, _)| failed(kind, self.lifecycle.failure_port));
        let before = self
            .lifecycle
            .earlier_runs
            .iter()
            .flatten()
            .any(|f| failed(f.kind, f.port));
        (now || before).then_some(default)
    }

    /// The checkpoint where the session first met it: its launch, else the
    /// first look at it (a server found running or only probed).
    pub fn first_seen(&self) -> Option<usize> {
        self.launch.or_else(|| self.observed_by.first().copied())
    }

    /// The port it serves on: see [`Server::port_with_source`].
    pub fn port(&self) -> Option<u16> {
        self.port_with_source().map(|(port, _)| port)
    }

    /// The ranks (processes) this server's launch brings up, and where the
    /// figure comes from: the sizes stated (flags, else the log's dump or
    /// world size), one for a known launch that states none, and never
    /// fewer than the rank tags seen show (then `Seen`: at least that).
    /// Unknown when nothing tells.
    pub fn ranks_expected(&self) -> Option<(u32, Provenance)> {
        let stated = self.settings.stated_ranks();
        let provenance = if self.flags.stated_ranks().is_some() {
            Provenance::Flag
        } else {
            Provenance::Log
        };
        let across_nodes = self.settings.nnodes.is_some_and(|n| n > 1);
        let seen = self.lifecycle.ranks_at_least(!across_nodes);
        match stated {
            Some(stated) if seen > stated => Some((seen, Provenance::Seen)),
            Some(stated) => Some((stated, provenance)),
            None if seen > 0 => Some((seen, Provenance::Seen)),
            // llama.cpp and Ollama serve from one process, however many GPUs.
            None if self.launch_known() && !self.flags.elided
                || matches!(self.engine, Engine::LlamaCpp | Engine::Ollama) =>
            {
                Some((1, Provenance::EngineDefault))
            }
            // A log that shows its engine at work with no rank tag and no
            // size shows one process at least.
            None if self.log_source.is_some() && !self.lifecycle.phases.is_empty() => {
                Some((1, Provenance::Seen))
            }
            None => None,
        }
    }

    /// The ranks a check on this server's host can ask for: its share of
    /// [`Server::ranks_expected`] across nodes (a node's log and processes
    /// show its own ranks), 1 when unknown.
    pub fn ranks_wanted(&self) -> u32 {
        self.ranks_expected()
            .map_or(1, |(ranks, source)| match source {
                Provenance::Seen => ranks,
                _ => self.settings.per_node(ranks),
            })
    }

    /// Up at the end of what is shown: `true` when the log shows it ready
    /// (or serving) and no failure ended it since, `false` when a failure
    /// came first or ended it, `None` when neither shows.
    pub fn ready(&self) -> Option<bool> {
        // Without a log, a request refused (or a port found closed) after
        // every line the agent saw of the server says it is down now,
        // whatever those lines said: the server it found running has died.
        let refused_since = self.log_source.is_none()
            && self.last_probe.is_some_and(|(outcome, at)| {
                outcome == Outcome::Failed
                    && self
                        .lifecycle
                        .last_line
                        .is_none_or(|l| l.source == at.source && l.start < at.start)
            });
        // Stopped by the agent's own kill: down at the end, however it
        // ran before.
        if refused_since || self.stopped_by.is_some() || self.exited.is_some() {
            Some(false)
        } else if self.lifecycle.ready && !self.lifecycle.failure_ends_server() {
            Some(true)
        } else if self.lifecycle.failure.is_some() {
            Some(false)
        } else if self.log_source.is_none() {
            // Without a log, the last request or listing that reached it
            // tells (an answer: up; refused or not listening: down).
            match self.last_probe.map(|(outcome, _)| outcome) {
                Some(Outcome::Passed) => Some(true),
                Some(Outcome::Failed) => Some(false),
                _ => None,
            }
        } else {
            None
        }
    }

    pub fn drafter_loaded(&self) -> Option<bool> {
        // A log that shows a drafter loaded or drafts accepted is of a
        // speculative server, whatever its launch said (or when no launch
        // is shown).
        if !self.settings.is_speculative() && !self.lifecycle.drafter_loaded {
            None
        } else if self.lifecycle.drafter_loaded {
            // Only a line of the drafter says it is in (its weights, its
            // graphs, drafts accepted, a frame of it proposing): a server
            // that serves says nothing of a drafter the engine may have
            // dropped or never been asked for.
            Some(true)
        } else if self.lifecycle.failure.is_some()
            && self
                .lifecycle
                .phases
                .iter()
                .any(|p| p.kind == PhaseKind::DrafterLoading)
        {
            // It failed with the drafter on its way in (`Loading drafter
            // model...`, or a traceback through the drafter's loading):
            // the drafter never made it. A failure elsewhere (the target's
            // weights, a draft graph capture after the drafter's weights)
            // says nothing either way.
            Some(false)
        } else {
            None
        }
    }
}

/// Everything rules may look at.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    pub sources: Vec<SourceInfo>,
    pub checkpoints: Vec<Checkpoint>,
    pub servers: Vec<Server>,
    pub prose: Vec<Prose>,
    /// Files the agent wrote, in order.
    pub writes: Vec<Written>,
    /// Credentials found in any source.
    pub secrets: Vec<secrets::Secret>,
}

impl Timeline {
    /// The text a span covers (empty when the span is out of range).
    pub fn text<'a>(&self, sources: &[&'a Source], span: Span) -> &'a str {
        sources
            .get(span.source)
            .and_then(|s| s.text.get(span.start..span.end))
            .unwrap_or("")
    }
}

/// Builds the timeline from parsed sources. It takes the events: a
/// transcript's are used up as its checkpoints are made (outputs move into
/// them rather than being copied), so they are never held twice.
pub fn build(sources: &[&Source], mut parsed: Vec<(Format, bool, Parsed)>) -> Timeline {
    let mut timeline = Timeline {
        sources: sources
            .iter()
            .zip(&parsed)
            .map(|(source, (format, detected, _))| SourceInfo {
                name: source.name.clone(),
                format: *format,
                detected: *detected,
                lines: LineIndex::new(&source.text),
                understood: false,
            })
            .collect(),
        ..Timeline::default()
    };

    // Logs pasted inside transcripts, read with their engine's parser.
    let mut pasted: Vec<(SourceId, Format, Parsed)> = Vec::new();
    for (source_id, (format, _, parsed)) in parsed.iter_mut().enumerate() {
        if format.is_log() {
            continue;
        }
        let events = std::mem::take(&mut parsed.events);
        for event in &events {
            if let EventKind::PastedLog { format } = event.kind {
                let log =
                    crate::parse::parse_region(sources[source_id], source_id, event.span, format);
                pasted.push((source_id, format, log));
            }
        }
        collect_checkpoints(&mut timeline, sources[source_id], *format, events);
    }
    // Logs' events are still read (linking, windows).
    let parsed = &parsed[..];
    create_servers(&mut timeline);
    // A compose or pod-prefixed log of several services: one log each.
    let services: Vec<(SourceId, Vec<ServiceLog>)> = parsed
        .iter()
        .enumerate()
        .filter(|(_, (format, _, _))| format.is_log())
        .filter_map(|(source, (format, _, log))| {
            split_services(&sources[source].text, *format, log).map(|split| (source, split))
        })
        .collect();
    let mut logs: Vec<LogInput> = Vec::new();
    for (source, (format, _, log)) in parsed.iter().enumerate() {
        if !format.is_log() {
            continue;
        }
        match services.iter().find(|(id, _)| *id == source) {
            Some((_, split)) => logs.extend(split.iter().map(|(service, format, log)| LogInput {
                source,
                format: *format,
                parsed: log,
                name: Some(sources[source].name.as_str()),
                service: Some(service.as_str()),
            })),
            None => logs.push(LogInput {
                source,
                format: *format,
                parsed: log,
                name: Some(sources[source].name.as_str()),
                service: None,
            }),
        }
    }
    logs.extend(pasted.iter().map(|(source, format, log)| LogInput {
        source: *source,
        format: *format,
        parsed: log,
        name: None,
        service: None,
    }));
    link_logs(&mut timeline, &logs);
    attribute_observations(&mut timeline);
    read_log_servers(&mut timeline);
    probed_servers(&mut timeline);
    unit_servers(&mut timeline);
    mark_stopped(&mut timeline);
    order_servers(&mut timeline);
    locate_windows(&mut timeline, sources, parsed);
    timeline.secrets = secrets::scan(sources);
    mark_understood(&mut timeline);
    timeline
}

/// Settles which sources anything was recognised in.
fn mark_understood(timeline: &mut Timeline) {
    let mut understood = vec![false; timeline.sources.len()];
    let mut mark = |source: SourceId| {
        if let Some(flag) = understood.get_mut(source) {
            *flag = true;
        }
    };
    for checkpoint in &timeline.checkpoints {
        mark(checkpoint.span.source);
    }
    // Prose counts when it was read as someone's turn: text with no turn,
    // command or log line in it (a note, an article) says nothing about
    // what an agent did, and its report must not read as an all-clear.
    for prose in timeline
        .prose
        .iter()
        .filter(|p| p.role != crate::parse::Role::Unknown)
    {
        mark(prose.span.source);
    }
    for server in &timeline.servers {
        let lifecycle = &server.lifecycle;
        if let Some(log) = server.log_source
            && (!lifecycle.phases.is_empty()
                || !lifecycle.ranks.is_empty()
                || lifecycle.launch.is_some())
        {
            mark(log);
        }
    }
    for (info, understood) in timeline.sources.iter_mut().zip(understood) {
        info.understood = understood && info.format != Format::JsonDocument;
    }
}

/// Finds where each `tail -N` read of a linked log fell in the full log, by
/// matching the lines the agent saw against the log's lines, and records the
/// failures above the window that the read could not show.
fn locate_windows(timeline: &mut Timeline, sources: &[&Source], parsed: &[(Format, bool, Parsed)]) {
    for server_id in 0..timeline.servers.len() {
        let server = &timeline.servers[server_id];
        let (Some(log), Some(path)) = (server.log_source, server.log_path.clone()) else {
            continue;
        };
        // A log pasted in a transcript is not the file the agent read.
        if !timeline.sources[log].format.is_log() {
            continue;
        }
        let reads_window = server.observed_by.iter().any(|&id| {
            matches!(
                timeline.checkpoints[id].reads(&path),
                Some(Window::Tail(_) | Window::Lines { .. })
            )
        });
        if !reads_window {
            continue;
        }
        let lines = log_lines(&sources[log].text, log, &parsed[log].2);
        for &checkpoint_id in &server.observed_by.clone() {
            let checkpoint = &timeline.checkpoints[checkpoint_id];
            let (start, end, count, from_end) = match checkpoint.reads(&path).cloned() {
                // A tail is found by matching what the agent saw.
                Some(Window::Tail(count)) => {
                    let seen: Vec<&str> =
                        checkpoint.seen.iter().map(|l| l.text.trim_end()).collect();
                    let Some(end) = best_match(&lines, &seen) else {
                        continue;
                    };
                    (
                        end.saturating_sub(count.saturating_sub(1) as usize),
                        end,
                        count,
                        true,
                    )
                }
                // `sed -n 'A,Bp'` names its lines.
                Some(Window::Lines { first, last }) => {
                    let index = &timeline.sources[log].lines;
                    let within = |span: &Span| {
                        let line = index.line(span.start);
                        line >= first && last.is_none_or(|last| line <= last)
                    };
                    let (Some(start), Some(end)) = (
                        lines.iter().position(|(span, _, _)| within(span)),
                        lines.iter().rposition(|(span, _, _)| within(span)),
                    ) else {
                        continue;
                    };
                    let count = last
                        .map_or(u32::try_from(end - start + 1).unwrap_or(u32::MAX), |last| {
                            last.saturating_sub(first) + 1
                        });
                    (start, end, count, false)
                }
                _ => continue,
            };
            // Failures above the window: they were in the log when it was
            // read. (Below a window may be lines written later.)
            let missed = lines[..start]
                .iter()
                .filter_map(|(span, _, failure)| failure.map(|kind| (kind, *span)))
                .collect();
            let window = LogWindow {
                server: server_id,
                lines: count,
                from_end,
                first: lines[start].0,
                last: lines[end].0,
                missed,
            };
            timeline.checkpoints[checkpoint_id].log_windows.push(window);
        }
    }
}

/// A log's lines as an agent's `tail` shows them (ANSI codes removed,
/// trailing blanks trimmed), one per `\r`-separated update, each with the
/// failure the parser found there. Read from the text, not the events: the
/// parser keeps events only for lines that say something.
fn log_lines<'t>(
    text: &'t str,
    source: SourceId,
    parsed: &Parsed,
) -> Vec<(
    Span,
    std::borrow::Cow<'t, str>,
    Option<crate::parse::FailureKind>,
)> {
    let failures: std::collections::HashMap<usize, crate::parse::FailureKind> = parsed
        .events
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Log(line) => match line.signal {
                Some(Signal::Failure { kind, .. }) => Some((event.span.start, kind)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // Most logs hold no escape code at all: then no line needs stripping.
    let ansi = memchr::memchr(0x1b, text.as_bytes()).is_some()
        || memchr::memmem::find(text.as_bytes(), b"#033[").is_some();
    let mut lines = Vec::new();
    for (offset, line) in crate::source::lines_with_offsets(text) {
        let examined =
            &line[..crate::source::floor_char_boundary(line, crate::diagnostic::LONG_LINE)];
        let mut start = offset;
        for segment in examined.split('\r') {
            let here = start;
            start += segment.len() + 1;
            if segment.trim().is_empty() {
                continue;
            }
            let clean = if ansi {
                match strip_ansi(segment) {
                    std::borrow::Cow::Borrowed(clean) => {
                        std::borrow::Cow::Borrowed(clean.trim_end())
                    }
                    std::borrow::Cow::Owned(clean) => {
                        std::borrow::Cow::Owned(clean.trim_end().to_owned())
                    }
                }
            } else {
                std::borrow::Cow::Borrowed(segment.trim_end())
            };
            lines.push((
                Span::new(source, here, here + segment.len()),
                clean,
                failures.get(&here).copied(),
            ));
        }
    }
    lines
}

/// The log line where the agent's view ended: the position whose preceding
/// lines agree with the most seen lines (earliest on ties, as the log grew).
fn best_match(
    lines: &[(
        Span,
        std::borrow::Cow<'_, str>,
        Option<crate::parse::FailureKind>,
    )],
    seen: &[&str],
) -> Option<usize> {
    let last_seen = seen
        .iter()
        .rposition(|s| !s.is_empty() && lines.iter().any(|(_, l, _)| l == s))?;
    let mut best: Option<(usize, usize)> = None;
    for (index, (_, line, _)) in lines.iter().enumerate() {
        if line != seen[last_seen] {
            continue;
        }
        let agreeing = seen[..last_seen]
            .iter()
            .rev()
            .zip(lines[..index].iter().rev())
            .take_while(|(s, (_, l, _))| s == &l)
            .count();
        if best.is_none_or(|(_, score)| agreeing > score) {
            best = Some((index, agreeing));
        }
    }
    best.map(|(index, _)| index)
}

fn collect_checkpoints(
    timeline: &mut Timeline,
    source: &Source,
    format: Format,
    events: Vec<crate::parse::Event>,
) {
    let decoded = format.is_json();
    let mut message = None;
    let first = timeline.checkpoints.len();
    // Event index → checkpoint id, to attach outputs to their commands.
    let mut by_event = std::collections::BTreeMap::new();
    // Exactly as many as there are commands: a long session's checkpoints
    // are megabytes, and doubling would leave up to half of that unused.
    let commands = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Command { .. }))
        .count();
    timeline.checkpoints.reserve_exact(commands);
    for (index, event) in events.into_iter().enumerate() {
        match event.kind {
            EventKind::Message { index, .. } => message = index,
            EventKind::Prose { role, text } => timeline.prose.push(Prose {
                span: event.span,
                role,
                decoded: text.is_some(),
                said: text.unwrap_or_else(|| {
                    source
                        .text
                        .get(event.span.start..event.span.end)
                        .unwrap_or_default()
                        .to_owned()
                }),
                message,
            }),
            EventKind::Command {
                text,
                actor,
                prompt_host,
                time,
                background,
            } => {
                let mut commands = shell::parse(&text);
                // Run in the background by the agent's tool (Claude Code's
                // `run_in_background`): the call's last command is what keeps
                // running, as if it ended in `&`.
                if background && let Some(last) = commands.last_mut() {
                    last.background = true;
                }
                let kind = commands
                    .iter()
                    .map(classify::kind_of)
                    .min()
                    .unwrap_or(CheckpointKind::Other);
                let host = commands.iter().find_map(|c| c.host.clone()).or(prompt_host);
                let id = timeline.checkpoints.len();
                // `cat > x.py <<'EOF' … EOF`: a file written by the call.
                for command in &commands {
                    let body = command.redirects.iter().find_map(|r| {
                        (r.op.starts_with("<<") && r.op != "<<<")
                            .then_some(r.body.as_deref())
                            .flatten()
                    });
                    if let (Some(path), Some(body)) = (command.stdout_path(), body) {
                        timeline.writes.push(Written {
                            span: event.span,
                            path: path.to_owned(),
                            from: id,
                            imports: classify::python_imports(body),
                            launch: script_launch(path, body),
                        });
                    }
                }
                by_event.insert(index, id);
                timeline.checkpoints.push(Checkpoint {
                    kind,
                    host,
                    time,
                    message,
                    by_human: actor == crate::parse::Actor::Human,
                    by_subagent: actor == crate::parse::Actor::SubAgent,
                    background,
                    decoded,
                    ..Checkpoint::of(id, text, event.span, commands)
                });
            }
            EventKind::Output {
                command,
                text,
                exit_code,
                is_error,
            } => {
                let Some(checkpoint) = by_event
                    .get(&command)
                    .and_then(|&id| timeline.checkpoints.get_mut(id))
                else {
                    continue;
                };
                // An output no check reads keeps only its telling lines.
                let prune =
                    checkpoint.kind == CheckpointKind::Other && checkpoint.observations.is_empty();
                checkpoint.seen.add(event.span, text, &source.text, prune);
                // A background command's output may come in several polls.
                checkpoint.output = Some(match checkpoint.output {
                    Some(previous) if previous.source == event.span.source => {
                        previous.cover(event.span)
                    }
                    _ => event.span,
                });
                checkpoint.exit_code = exit_code.or(checkpoint.exit_code);
                checkpoint.is_error |= is_error;
            }
            EventKind::FileWrite { path, text } => timeline.writes.push(Written {
                span: event.span,
                from: timeline.checkpoints.len(),
                imports: classify::python_imports(&text),
                launch: script_launch(&path, &text),
                path,
            }),
            EventKind::Log(_) | EventKind::Unrecognized | EventKind::PastedLog { .. } => {}
        }
    }
    for checkpoint in &mut timeline.checkpoints[first..] {
        checkpoint.port_checks = port_checks(checkpoint);
        // Growth by doubling leaves up to half of each list unused; across
        // thousands of outputs that is a large share of the memory.
        checkpoint.seen.shrink_to_fit();
    }
    timeline.checkpoints.shrink_to_fit();
}

/// Reads the outcome of each port listing and request from the output.
fn port_checks(checkpoint: &Checkpoint) -> Vec<PortCheck> {
    // A rendering's note that the command printed nothing (`└ (no
    // output)`, `(No content)`) is no line of its output.
    let lines: Vec<(Span, &str)> = checkpoint
        .seen
        .iter()
        .map(|l| (l.span, l.text))
        .filter(|(_, text)| !says_no_output(text))
        .collect();
    let mut checks = Vec::new();
    // A client that is not installed asked nothing (`redis-cli: command
    // not found`, exit 127); nor did one the agent's sandbox stopped
    // (Codex: `failed in sandbox: Operation not permitted`).
    // Asked only of a lone probe: every checkpoint comes here, and most
    // outputs (log tails, builds) need no second read.
    let probes = checkpoint.observations.iter().any(|o| {
        matches!(
            o,
            Observation::Http { .. } | Observation::PortListing { .. }
        )
    });
    let not_run = || {
        checkpoint.exit_code == Some(127)
            || lines.iter().any(|(_, line)| {
                line.contains("command not found")
                    || line.contains("is not recognized as")
                    || line.contains("failed in sandbox")
            })
    };
    if probes && checkpoint.commands.len() == 1 && not_run() {
        return checks;
    }
    for observation in &checkpoint.observations {
        match observation {
            Observation::PortListing { port } => {
                let listening = lines.iter().enumerate().find_map(|(i, (span, line))| {
                    let on_port = port.is_none_or(|p| mentions_port(line, p));
                    let next = lines.get(i + 1).map(|(_, next)| *next);
                    (on_port && (holds(line, next, "LISTEN") || line.contains("*:*")))
                        .then_some((*span, *line))
                });
                let listening = listening.as_ref();
                checks.push(PortCheck {
                    port: *port,
                    target: None,
                    request: false,
                    outcome: if listening.is_some() {
                        Outcome::Passed
                    } else if checkpoint.output.is_none() {
                        // No output recorded at all (a pasted command with
                        // nothing after it): what it showed is not known.
                        Outcome::Unknown
                    } else {
                        // An empty `ss | grep PORT` is the answer "not listening".
                        Outcome::Failed
                    },
                    line: listening.map(|(span, text)| quote(*span, text)),
                    timed_out: false,
                    unasked: false,
                    error_status: None,
                });
            }
            Observation::Http { host, port, .. } => {
                let failure = lines.iter().find(|(_, line)| is_request_failure(line));
                // `curl -s` prints nothing when it fails; its exit code says it.
                let exited_badly = checkpoint.exit_code.is_some_and(|code| code != 0);
                // Someone's words under a pasted command (`Is there a way to
                // debug this?`) are no answer from the server.
                let answered = lines.iter().any(|(_, line)| !is_narration(line));
                let outcome = match (failure, answered) {
                    (Some(_), _) => Outcome::Failed,
                    (None, _) if exited_badly => Outcome::Failed,
                    (None, false) => Outcome::Unknown,
                    (None, true) => Outcome::Passed,
                };
                // An answer, but an HTTP error: the line that says so.
                let error = if failure.is_none() {
                    lines
                        .iter()
                        .find_map(|l| http_error_status(l.1).map(|status| (status, l)))
                } else {
                    None
                };
                let timed_out = failure.is_some_and(|(_, line)| {
                    line.contains("timed out")
                        || line.contains("Timeout")
                        || line.contains("TIMED_OUT")
                        || line.contains("curl: (28)")
                });
                checks.push(PortCheck {
                    port: *port,
                    target: Some(host.clone()),
                    request: true,
                    outcome,
                    line: failure
                        .or(error.map(|(_, line)| line))
                        .or(lines.first())
                        .map(|(span, text)| quote(*span, text)),
                    timed_out,
                    unasked: false,
                    error_status: error.map(|(status, _)| status),
                });
            }
            _ => {}
        }
    }
    // A socket listing the agent saw without running it here (pasted below
    // a launch, `grep -n` of a saved `lsof`), or one run for no port in
    // particular (`ss -tlnp | grep python`): each port it shows listening was
    // seen listening, by whichever server holds it. Only those outputs are
    // searched: every other output (build logs, log tails) would be read
    // once more for nothing.
    let asked_port = checkpoint
        .observations
        .iter()
        .any(|o| matches!(o, Observation::PortListing { port: Some(_) }));
    let listing = checkpoint
        .observations
        .iter()
        .any(|o| matches!(o, Observation::PortListing { port: None }));
    if !asked_port && (listing || checkpoint.kind == CheckpointKind::Launch) {
        for (span, line) in &lines {
            if let Some(port) = listening_port(line)
                && !checks.iter().any(|c| c.port == Some(port) && !c.request)
            {
                checks.push(PortCheck {
                    port: Some(port),
                    target: None,
                    request: false,
                    outcome: Outcome::Passed,
                    line: Some(quote(*span, line)),
                    timed_out: false,
                    unasked: true,
                    error_status: None,
                });
            }
        }
    }
    checks
}

/// Whether a line under a pasted command is the paster's narration rather
/// than what the command printed: a sentence of four words or more that
/// starts in lower case (`and then it hangs.`) or asks a question, with
/// none of the brackets, quotes and separators of a response.
fn is_narration(line: &str) -> bool {
    let text = line.trim();
    let words = text.split_whitespace().count();
    let sentence_end = text.ends_with(['.', '?', '!']);
    let first = text.chars().next();
    let structured = text.contains(['{', '}', '<', '>', '"', '=', '|', '[', ']', '\t']);
    words >= 4
        && sentence_end
        && !structured
        && (first.is_some_and(char::is_lowercase) || text.ends_with('?'))
}

/// Whether an output line is a rendering's note that there was no output.
fn says_no_output(line: &str) -> bool {
    let line = line.trim().trim_start_matches(['└', '⎿']).trim();
    ["(no output)", "(no content)", "<no output>", "(empty)"]
        .iter()
        .any(|note| line.eq_ignore_ascii_case(note))
}

/// The local port of a socket-listing row in the listening state: `lsof`'s
/// `TCP *:8080 (LISTEN)`, `ss`'s `LISTEN 0 4096 0.0.0.0:8001 0.0.0.0:*`,
/// `netstat`'s `tcp 0 0 0.0.0.0:8000 0.0.0.0:* LISTEN`. The local address
/// comes first in each.
fn listening_port(line: &str) -> Option<u16> {
    if !line.contains("LISTEN") {
        return None;
    }
    line.split_whitespace()
        // `61:python3`: a `grep -n` prefix is no address.
        .skip(1)
        .find_map(|word| {
            let (_, port) = word.rsplit_once(':')?;
            port.parse::<u16>().ok().filter(|p| *p > 0)
        })
}

/// Whether `line` holds `needle`, or would but for a terminal rendering
/// that wrapped the row into `next`, even inside a word (`TCP
/// localhost:3444 (L` / `ISTEN)`, `users:(("py` / `thon",pid=…))`).
fn holds(line: &str, next: Option<&str>, needle: &str) -> bool {
    line.contains(needle)
        || next.is_some_and(|next| {
            let next = next.trim_start();
            (1..needle.len()).any(|cut| {
                needle.is_char_boundary(cut)
                    && line.ends_with(&needle[..cut])
                    && next.starts_with(&needle[cut..])
            })
        })
}

fn quote(span: Span, text: &str) -> Quote {
    Quote {
        span,
        text: Some(text.to_owned()),
    }
}

fn mentions_port(line: &str, port: u16) -> bool {
    let needle = format!(":{port}");
    line.match_indices(&needle).any(|(at, _)| {
        !line[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// The HTTP error status an answer shows: a status line (`HTTP/1.1 404 Not
/// Found`, curl -v's `< HTTP/2 500`), `-w '%{http_code}'` output, or the body
/// a framework sends with one when only the body is printed (`curl -s`):
/// FastAPI's and vLLM's `{"detail":"Not Found"}`, Go's `404 page not found`,
/// Express's `Cannot GET /health`. 502 and 503 fail the request instead
/// (see [`is_request_failure`]).
fn http_error_status(line: &str) -> Option<u16> {
    let text = line.trim().trim_start_matches(['<', ' ']);
    let code = |digits: &str| -> Option<u16> {
        let digits: String = digits.chars().take_while(char::is_ascii_digit).collect();
        digits
            .parse::<u16>()
            .ok()
            .filter(|c| (400..600).contains(c) && !matches!(c, 502 | 503))
    };
    if let Some(rest) = text.strip_prefix("HTTP/")
        && let Some((_, status)) = rest.split_once(' ')
    {
        return code(status.trim_start());
    }
    for key in ["http_code=", "status=", "HTTP "] {
        if let Some((_, rest)) = text.split_once(key)
            && let Some(status) = code(rest)
        {
            return Some(status);
        }
    }
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.contains(r#""detail":"NotFound""#)
        || text.starts_with("404 page not found")
        || text.starts_with("Cannot GET /")
        || text.contains("404 Not Found")
    {
        return Some(404);
    }
    if compact.contains(r#""detail":"MethodNotAllowed""#) {
        return Some(405);
    }
    text.contains("500 Internal Server Error").then_some(500)
}

fn is_request_failure(line: &str) -> bool {
    const FAILURES: &[&str] = &[
        "Connection refused",
        "Failed to connect",
        "Could not connect",
        // The Ollama CLI (`Error: could not connect to ollama app, is it
        // running?`) and Go clients (`connect: connection refused`).
        "could not connect to ollama",
        "could not connect to a running Ollama",
        "connect: connection refused",
        // Told in words under a pasted command (`and the connection is
        // refused.`), or in a client's own lower case.
        "connection refused",
        "connection is refused",
        "connection was refused",
        "Couldn't connect",
        "curl: (",
        "Empty reply from server",
        "Connection reset",
        "timed out",
        "503 Service Unavailable",
        "502 Bad Gateway",
        "No route to host",
        "Could not resolve host",
        // curl's `-w '%{http_code}'` when nothing answered.
        "status=000",
        "http_code=000",
        "HTTP 000",
        // A browser tool's load (`net::ERR_CONNECTION_REFUSED`).
        "ERR_CONNECTION_REFUSED",
        "ERR_CONNECTION_RESET",
        "ERR_EMPTY_RESPONSE",
        "ERR_CONNECTION_TIMED_OUT",
        // PowerShell's Invoke-WebRequest.
        "Unable to connect to the remote server",
        "No connection could be made",
    ];
    FAILURES.iter().any(|f| line.contains(f))
}

/// How a run in the tool's background ended, when a poll (or Claude Code's
/// notice) said so: `<status>failed</status>` with its code, `killed`, or
/// `completed` (a server that returns has stopped serving too).
fn polled_end(checkpoint: &Checkpoint) -> Option<i32> {
    if !checkpoint.background {
        return None;
    }
    let status = checkpoint.seen.iter().rev().find_map(|l| {
        l.text
            .trim()
            .strip_prefix("<status>")?
            .strip_suffix("</status>")
    })?;
    shell_end_code(status, checkpoint.exit_code)
}

/// The exit code a background shell's end status stands for, when the
/// status gives none: `killed` by a signal (143), `failed` (1),
/// `completed` (0).
fn shell_end_code(status: &str, exit_code: Option<i32>) -> Option<i32> {
    let default = match status {
        "killed" => 143,
        "failed" => 1,
        "completed" => 0,
        _ => return None,
    };
    Some(exit_code.unwrap_or(default))
}

/// The status Claude Code gives a background shell that had already ended
/// when the agent stopped it: `Shell d5cc44 is not running, so cannot be
/// killed (status: failed)` → `failed`.
pub(crate) fn ended_shell_status(line: &str) -> Option<&str> {
    let at = line.find("is not running")?;
    let status = line[at..].split_once("(status: ")?.1;
    status.split_once(')').map(|(status, _)| status.trim())
}

/// The latest server run in a background shell of `host` before
/// checkpoint `before` and not stopped since: what a background shell's
/// kill or end is about.
fn latest_background_server(
    timeline: &Timeline,
    before: usize,
    host: Option<&str>,
) -> Option<usize> {
    timeline
        .servers
        .iter()
        .filter(|s| {
            s.stopped_by.is_none()
                && same_host(s.host.as_deref(), host)
                && s.launch
                    .is_some_and(|l| l < before && timeline.checkpoints[l].background)
        })
        .max_by_key(|s| s.launch)
        .map(|s| s.id)
}

fn create_servers(timeline: &mut Timeline) {
    let mut became_launches = Vec::new();
    // Most sessions write no script that starts a server: then no command
    // is looked up among the writes.
    let scripts = timeline.writes.iter().any(|w| w.launch.is_some());
    for checkpoint in &timeline.checkpoints {
        // A program the agent ran in the background that then bound a
        // port (or is named as a server) is a launch of a server, whatever
        // the program.
        if !matches!(
            checkpoint.kind,
            CheckpointKind::Launch | CheckpointKind::Kill | CheckpointKind::Build
        ) && let Some((port, program)) = background_server(checkpoint)
            .or_else(|| listening_later(&timeline.checkpoints, checkpoint))
        {
            let id = timeline.servers.len();
            timeline.servers.push(Server {
                id,
                engine: Engine::Unknown,
                host: checkpoint.host.clone(),
                flags: ServerSettings::default(),
                settings: ServerSettings {
                    port,
                    ..ServerSettings::default()
                },
                log_path: checkpoint
                    .commands
                    .iter()
                    .find_map(|c| c.stdout_path())
                    .map(str::to_owned),
                launch: Some(checkpoint.id),
                pasted_launch: None,
                log_source: None,
                lifecycle: Lifecycle::new(Engine::Unknown),
                observed_by: Vec::new(),
                program: Some(program),
                program_default_port: None,
                last_probe: None,
                stopped_by: None,
                exited: polled_end(checkpoint),
            });
            became_launches.push(checkpoint.id);
            continue;
        }
        for (index, command) in checkpoint.commands.iter().enumerate() {
            // An inference engine (or a script written to start one), else
            // another long-running server.
            let launched = launch_from_command(&command.argv, &command.env).or_else(|| {
                let found =
                    scripts.then(|| written_script(&timeline.writes, checkpoint, command))??;
                became_launches.push(checkpoint.id);
                Some(found)
            });
            let (engine, settings, program) = match launched {
                Some((engine, settings)) => (engine, settings, None),
                None => match crate::other_servers::launch(command) {
                    Some(other) => {
                        // A container's port inside, which its own log
                        // speaks of and a request on the host misses.
                        let container_port = crate::engine::docker_run_parts(&command.argv)
                            .and_then(|run| {
                                run.published
                                    .iter()
                                    .find(|(host, _)| Some(*host) == other.port)
                                    .map(|&(_, inside)| inside)
                            });
                        let settings = ServerSettings {
                            port: other.port.filter(|_| !other.default_port),
                            container_port,
                            ..ServerSettings::default()
                        };
                        (Engine::Unknown, settings, Some(other))
                    }
                    None => continue,
                },
            };
            // `… 2>&1 | tee x.log` logs through the next command.
            let teed = checkpoint
                .commands
                .get(index + 1)
                .filter(|next| next.piped_from_previous && next.program() == "tee")
                .and_then(|tee| tee.argv.iter().skip(1).find(|a| !a.starts_with('-')))
                .map(String::as_str);
            let mut flags = settings.clone();
            let mut settings = settings;
            // A dev server's banner names its address before it is ready
            // (`- Local: http://localhost:3000`), and npm echoes the script
            // it runs (`> PORT=4100 tsx src/worker.ts`, which overrides a
            // `PORT=4101` given to npm): the port it serves on, read from its
            // output, over what the command line asked for.
            if program.is_some()
                && let Some(port) = announced_port(checkpoint)
            {
                if flags.port != Some(port) {
                    flags.port = None;
                }
                settings.port = Some(port);
            }
            // The status the checkpoint returned is this launch's when it is
            // the last command run, in the foreground, at most piped into a
            // filter (`2>&1 | tail -20`).
            let last = checkpoint.commands[index + 1..]
                .iter()
                .all(|c| c.piped_from_previous);
            // Claude Code stops a foreground command at its timeout (`Error:
            // Command timed out after 10s`): the server is gone too. A run in
            // the tool's background is judged by what its polls show, not by
            // a status.
            let timed_out = checkpoint.seen.iter().next().is_some_and(|l| {
                l.text
                    .trim_start()
                    .trim_start_matches("Error: ")
                    .starts_with("Command timed out after")
            });
            let exited = checkpoint
                .exit_code
                .filter(|&code| code != 0)
                .or(timed_out.then_some(143))
                .filter(|_| last && !command.background && !checkpoint.background)
                .or_else(|| polled_end(checkpoint))
                .or_else(|| docker_unreachable(checkpoint, command).then_some(1));
            let id = timeline.servers.len();
            timeline.servers.push(Server {
                id,
                engine,
                host: command.host.clone().or_else(|| checkpoint.host.clone()),
                flags,
                settings,
                log_path: command.stdout_path().or(teed).map(str::to_owned),
                launch: Some(checkpoint.id),
                pasted_launch: None,
                log_source: None,
                lifecycle: Lifecycle::new(engine),
                observed_by: Vec::new(),
                program: program.as_ref().map(|p| p.program.clone()),
                program_default_port: program.and_then(|p| p.port.filter(|_| p.default_port)),
                last_probe: None,
                stopped_by: None,
                exited,
            });
        }
    }
    // The same command run earlier in the foreground, before the agent ran
    // it as a server (`python main.py` crashed, fixed, then run in the
    // background): that first run was a start of the same server.
    // Other commands by text, looked up once per server (a long session
    // has many of each).
    let mut others: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for checkpoint in &timeline.checkpoints {
        if checkpoint.kind == CheckpointKind::Other {
            others
                .entry(checkpoint.command.trim())
                .or_default()
                .push(checkpoint.id);
        }
    }
    let mut earlier: Vec<Server> = Vec::new();
    for server in &timeline.servers {
        let Some(launch) = server.launch.map(|l| &timeline.checkpoints[l]) else {
            continue;
        };
        let Some(same) = others.get(launch.command.trim()) else {
            continue;
        };
        for before in same.iter().map(|&id| &timeline.checkpoints[id]) {
            if before.id < launch.id
                && same_host(before.host.as_deref(), launch.host.as_deref())
                && !earlier.iter().any(|s| s.launch == Some(before.id))
                && !became_launches.contains(&before.id)
            {
                let mut copy = server.clone();
                copy.launch = Some(before.id);
                copy.exited = before.exit_code.filter(|&code| code != 0);
                copy.lifecycle = Lifecycle::new(server.engine);
                copy.observed_by = Vec::new();
                copy.last_probe = None;
                copy.stopped_by = None;
                earlier.push(copy);
            }
        }
    }
    for mut server in earlier {
        server.id = timeline.servers.len();
        if let Some(id) = server.launch {
            became_launches.push(id);
        }
        timeline.servers.push(server);
    }
    for id in became_launches {
        timeline.checkpoints[id].kind = CheckpointKind::Launch;
    }
}

/// A container launch whose docker client could not reach the daemon
/// (`Cannot connect to the Docker daemon at unix:///…`, Windows' `error
/// during connect`): nothing was started, whatever ran after it in the
/// call.
fn docker_unreachable(checkpoint: &Checkpoint, command: &SimpleCommand) -> bool {
    let program = command.program();
    (matches!(program, "docker" | "podman" | "docker-compose"))
        && checkpoint.seen.iter().any(|line| {
            line.text.contains("Cannot connect to the Docker daemon")
                || line.text.contains("error during connect:")
                || line.text.contains("Is the docker daemon running?")
        })
}

/// The server a command starts by running a script the session wrote to
/// start one (`nohup /tmp/launch_vllm.sh > v.log 2>&1 &`, `bash run.sh`).
fn written_script(
    writes: &[Written],
    checkpoint: &Checkpoint,
    command: &SimpleCommand,
) -> Option<(Engine, ServerSettings)> {
    let program = command.argv.first()?;
    let script = if matches!(program.rsplit('/').next(), Some("bash" | "sh" | "zsh")) {
        command.argv[1..].iter().find(|a| !a.starts_with('-'))?
    } else {
        program
    };
    if !script.contains('/') && !script.ends_with(".sh") {
        return None;
    }
    // The latest write of that file before the command ran; else a script
    // the same source shows after the run (an issue pastes the run, then
    // "Reproduction (`run.sh`):" and the script).
    let written = writes
        .iter()
        .rev()
        .find(|w| w.from <= checkpoint.id && same_path(&w.path, script))
        .or_else(|| {
            writes
                .iter()
                .find(|w| w.span.source == checkpoint.span.source && same_path(&w.path, script))
        })?;
    written.launch.as_deref().cloned()
}

/// The port in a dev server's `Local:` banner line (Next, Vite, Nuxt) in a
/// launch's output, or in the script npm echoes before running it.
fn announced_port(checkpoint: &Checkpoint) -> Option<u16> {
    checkpoint.seen.iter().find_map(|line| {
        if let Some(port) = crate::other_servers::script_echo_port(line.text) {
            return Some(port);
        }
        if let Some(port) = moved_port(line.text) {
            return Some(port);
        }
        let at = line.text.find("Local:")?;
        url_port(&line.text[at..])
    })
}

/// The port a dev server took when its own was busy: Next.js's `Port 3000
/// is in use by an unknown process, using available port 3001 instead.`
/// (older: `Port 3000 is in use, trying 3001 instead.`).
fn moved_port(line: &str) -> Option<u16> {
    if !line.contains("is in use") {
        return None;
    }
    let (_, after) = line
        .split_once("using available port ")
        .or_else(|| line.split_once(", trying "))?;
    let (number, rest) = after.split_once(' ')?;
    rest.starts_with("instead")
        .then(|| number.parse().ok())
        .flatten()
}

/// The port of the first URL in a line that names one
/// (`http://localhost:3000/`).
fn url_port(text: &str) -> Option<u16> {
    text.split_whitespace()
        .filter(|w| w.contains("://"))
        .find_map(|url| classify::port_in(url.trim_end_matches('/')))
}

/// A program the agent ran in the background that a later socket listing
/// shows listening (`LISTEN … users:(("python",pid=…))`): a server, on the
/// port listed when it is the only one.
fn listening_later(
    checkpoints: &[Checkpoint],
    launch: &Checkpoint,
) -> Option<(Option<u16>, String)> {
    let background = launch.background || launch.commands.iter().any(|c| c.background);
    if !background {
        return None;
    }
    let command = launch
        .commands
        .iter()
        .rev()
        .find(|c| !c.argv.is_empty() && c.program() != "cd")?;
    let program = command.program();
    let name = if program.starts_with("python") {
        "python"
    } else {
        program
    };
    if name.len() < 2 {
        return None;
    }
    let needle = format!("((\"{name}");
    let mut ports: Vec<u16> = Vec::new();
    let mut seen = false;
    for later in checkpoints.iter().filter(|c| {
        c.id > launch.id
            && same_host(c.host.as_deref(), launch.host.as_deref())
            && c.observations
                .iter()
                .any(|o| matches!(o, Observation::PortListing { .. }))
    }) {
        let lines: Vec<&str> = later.seen.iter().map(|l| l.text).collect();
        for (i, line) in lines.iter().enumerate() {
            if holds(line, lines.get(i + 1).copied(), &needle) {
                seen |= line.contains("LISTEN");
                if let Some(port) = listening_port(line)
                    && !ports.contains(&port)
                {
                    ports.push(port);
                }
            }
        }
    }
    seen.then(|| {
        (
            match ports.as_slice() {
                [only] => Some(*only),
                _ => None,
            },
            command.argv[..command.argv.len().min(2)].join(" "),
        )
    })
}

/// A command run in the background that serves: its output shows it bound
/// a port (or said it is ready), or its program is named as a server
/// (`start_server.py`, `api`, `serve`). The port, when shown, and the
/// program's name.
fn background_server(checkpoint: &Checkpoint) -> Option<(Option<u16>, String)> {
    let background = checkpoint.background || checkpoint.commands.iter().any(|c| c.background);
    // A program run in the foreground whose own output is a server's bind
    // (`python -m miniclaw2 --port 8000` printing `Uvicorn running on
    // http://127.0.0.1:8000`) started one too; only a command of no known
    // kind, as a look at a log (`tail server.log`) shows the same lines.
    if !background && checkpoint.kind != CheckpointKind::Other {
        return None;
    }
    let command = checkpoint
        .commands
        .iter()
        .rev()
        .find(|c| !c.argv.is_empty() && c.program() != "cd")?;
    let program = command.argv[..command.argv.len().min(2)].join(" ");
    let bound = checkpoint
        .seen
        .iter()
        .find_map(|line| match &line.log.signal {
            Some(Signal::Bound { port, .. }) => Some(*port),
            Some(Signal::Ready { port }) => Some(*port),
            _ => None,
        });
    if let Some(port) = bound {
        return Some((port, program));
    }
    if !background {
        return None;
    }
    // What web frameworks print once they serve, beyond the bind lines the
    // log reader already tells (`Uvicorn running on`, `Listening on port`,
    // `* Running on http://…`): uvicorn's startup, Flask's
    // development-server warning and its address-less `Running on all
    // addresses`, a Node dev server's `Local:` banner.
    const SERVING: &[&str] = &[
        "This is a development server",
        "Running on all addresses",
        "Started server process",
        "Local:   http",
        "Local: http",
        "Server running at",
        "server running at",
    ];
    let mut serving = checkpoint.seen.iter().filter(|line| {
        matches!(line.log.signal, Some(Signal::AppStartupComplete))
            || SERVING.iter().any(|s| line.text.contains(s))
    });
    if let Some(first) = serving.next() {
        let port = std::iter::once(first)
            .chain(serving)
            .find_map(|line| url_port(line.text));
        return Some((port, program));
    }
    const SERVER_WORDS: &[&str] = &[
        "serve",
        "server",
        "api",
        "app.py",
        "web",
        "dashboard",
        "gateway",
        "backend",
        "frontend",
        // The usual entry points of web apps, run in the background.
        "main.py",
        "run.py",
        "wsgi.py",
        "asgi.py",
        "app.js",
        "app.ts",
        "index.js",
        "index.ts",
    ];
    let named = command.argv.iter().take(3).any(|word| {
        let name = word
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(word)
            .to_ascii_lowercase();
        SERVER_WORDS.iter().any(|w| name.contains(w))
    });
    named.then_some((None, program))
}

/// A log to link to a server: a log source, or a log pasted in a
/// transcript (no name of its own then).
struct LogInput<'p> {
    source: SourceId,
    format: Format,
    parsed: &'p Parsed,
    name: Option<&'p str>,
    /// The compose service or pod whose lines these are, in a log of
    /// several.
    service: Option<&'p str>,
}

/// One service's part of a log: its name, its format (engine) and events.
type ServiceLog = (String, Format, Parsed);

/// Splits a log whose lines carry a compose service's or a pod's name
/// (`ollama-1  | …`, `[pod/vllm-0] …`) into one log per service, when it
/// holds several: each is its own server, with its own engine (by its
/// lines' votes). Lines without a name (a wrapped or bare line) belong to
/// the service before them. `None` for a log of one service or none.
fn split_services(
    text: &str,
    format: Format,
    log: &Parsed,
) -> Option<Vec<(String, Format, Parsed)>> {
    // The services, in order of first appearance, from the head.
    let head = &text[..crate::source::floor_char_boundary(text, 256 * 1024)];
    let mut names: Vec<&str> = Vec::new();
    for line in head.lines() {
        if let Some(name) = crate::parse::logline::service_of(line)
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    if names.len() < 2 {
        return None;
    }
    let mut groups: Vec<Parsed> = names.iter().map(|_| Parsed::default()).collect();
    let mut current: Option<usize> = None;
    // Lines before any service's (a compose file, a command above the log).
    let mut before: Vec<&crate::parse::Event> = Vec::new();
    for event in &log.events {
        let line = text
            .get(event.span.start..event.span.end)
            .and_then(|t| t.lines().next())
            .unwrap_or("");
        if let Some(name) = crate::parse::logline::service_of(line) {
            current = names.iter().position(|n| *n == name).or(current);
        }
        match current.and_then(|i| groups.get_mut(i)) {
            Some(group) => group.events.push(event.clone()),
            None => before.push(event),
        }
    }
    let engines: Vec<Format> = names
        .iter()
        .map(|name| {
            let lines = head
                .lines()
                .filter(|l| crate::parse::logline::service_of(l) == Some(name))
                .take(400);
            let mut votes = [0usize; 7];
            for line in lines {
                let classified = crate::parse::logline::classify(line);
                if let Some(engine) = crate::parse::logline::engine_hint(line, &classified) {
                    votes[engine as usize] += 1;
                }
            }
            match crate::parse::log_engine_of(&votes) {
                Engine::Unknown if format == Format::ServerLog => Format::ServerLog,
                Engine::Unknown => Format::ServerLog,
                engine => Format::of_engine(engine),
            }
        })
        .collect();
    // A launch command above the log goes to the service of its engine.
    for event in before {
        let target = match &event.kind {
            EventKind::Log(LogLine {
                signal: Some(Signal::Launch(launch)),
                ..
            }) => engines
                .iter()
                .position(|f| f.log_engine() == Some(launch.engine))
                .unwrap_or(0),
            _ => 0,
        };
        if let Some(group) = groups.get_mut(target) {
            group.events.insert(0, event.clone());
        }
    }
    Some(
        names
            .into_iter()
            .zip(engines)
            .zip(groups)
            .filter(|(_, group)| !group.events.is_empty())
            .map(|((name, format), group)| (name.to_owned(), format, group))
            .collect(),
    )
}

/// Links each log to its server: by the redirected path's file name (a
/// pasted log named like the redirect target counts), else by content (the
/// only unlinked server of that engine, or the one whose port or model the
/// log names); a log nobody launched in the transcript becomes a server of
/// its own.
fn link_logs(timeline: &mut Timeline, logs: &[LogInput<'_>]) {
    // First every log whose name matches a launch's redirect, so that the
    // order of the inputs never lets a fallback take another log's server.
    let mut links: Vec<(&LogInput<'_>, Option<usize>)> = Vec::new();
    for log in logs {
        let by_path = log.name.and_then(|name| {
            timeline.servers.iter().position(|s| {
                !links.iter().any(|(_, server)| *server == Some(s.id))
                    && s.log_path.as_deref().is_some_and(|p| same_path(p, name))
            })
        });
        links.push((log, by_path));
    }
    let mut linked: Vec<usize> = links.iter().filter_map(|(_, s)| *s).collect();
    for (log, link) in links {
        let source_id = log.source;
        let log_engine = log.format.log_engine().unwrap_or(Engine::Unknown);
        // A pasted stretch of log-like lines that tells nothing of a
        // server's life (no phase, rank or launch) is no server's log.
        if log.name.is_none() {
            let told = Lifecycle::from_log(log_engine, log.parsed);
            if told.phases.is_empty() && told.ranks.is_empty() && told.launch.is_none() {
                continue;
            }
        }
        let server_id = match link {
            Some(id) => id,
            None => {
                let unlinked: Vec<usize> = timeline
                    .servers
                    .iter()
                    .filter(|s| {
                        !linked.contains(&s.id)
                            && s.launch.is_some()
                            && (s.engine == log_engine || log_engine == Engine::Unknown)
                    })
                    .map(|s| s.id)
                    .collect();
                let chosen = match unlinked.as_slice() {
                    [only] => Some(*only),
                    [] => None,
                    _ => by_content(timeline, &unlinked, log.parsed).or_else(|| {
                        // Log lines pasted into the transcript (the user
                        // pasting what the server printed) are of the
                        // latest such server launched before them.
                        let at = log.parsed.events.first()?.span;
                        log.name.is_none().then_some(())?;
                        unlinked.iter().rev().copied().find(|&id| {
                            timeline.servers[id]
                                .launch
                                .map(|l| timeline.checkpoints[l].span)
                                .is_some_and(|l| l.source == at.source && l.start < at.start)
                        })
                    }),
                };
                match chosen {
                    Some(id) => id,
                    None => {
                        // A log nobody launched in the transcript: a server of its own.
                        let id = timeline.servers.len();
                        timeline.servers.push(Server {
                            log_path: log.name.map(str::to_owned),
                            ..Server::found(id, log_engine, None)
                        });
                        // The command pasted above a log file is its launch,
                        // run by whoever pasted it. (In a transcript's pasted
                        // stretch the transcript's reader already made it a
                        // checkpoint, when it is one.)
                        if log.name.is_some()
                            && let Some((span, launch)) = head_launch_event(log.parsed)
                        {
                            timeline.servers[id].pasted_launch =
                                Some(pasted_launch(timeline, span, launch.command.clone()));
                        }
                        id
                    }
                }
            }
        };
        linked.push(server_id);
        let server = &mut timeline.servers[server_id];
        let head = head_launch(log.parsed);
        if server.engine == Engine::Unknown {
            server.engine = match head {
                Some(launch) if log_engine == Engine::Unknown => launch.engine,
                _ => log_engine,
            };
        }
        server.log_source = Some(source_id);
        if server.engine == Engine::Unknown && server.program.is_none() {
            server.program = log.service.map(str::to_owned);
        }
        server.lifecycle = Lifecycle::from_log(server.engine, log.parsed);
        // What the command pasted above the log asked for counts as flags;
        // the engine's own dump fills in the rest.
        if let Some((_, flags)) = &server.lifecycle.launch {
            let mut flags = flags.clone();
            // A log alone speaks of the server inside its container: the
            // port it binds there is the one its lines name, and no request
            // of the session's needs the host's mapping to find it.
            if server.launch.is_none()
                && let Some(inside) = flags.container_port
            {
                flags.port = Some(inside);
            }
            server.flags.merge_missing(&flags);
            server.settings.merge_missing(&flags);
        }
        let from_log = server.lifecycle.settings.clone();
        server.settings.merge_missing(&from_log);
    }
}

/// A launch checkpoint for the command pasted above a log file (at
/// `span`): typed by a person (no agent ran it), its output the log below
/// it.
fn pasted_launch(timeline: &mut Timeline, span: Span, command: String) -> usize {
    let commands = shell::parse(&command);
    let id = timeline.checkpoints.len();
    timeline.checkpoints.push(Checkpoint {
        kind: CheckpointKind::Launch,
        host: commands.iter().find_map(|c| c.host.clone()),
        by_human: true,
        ..Checkpoint::of(id, command, span, commands)
    });
    id
}

/// The command pasted above a log, if its parser found one.
fn head_launch(log: &Parsed) -> Option<&PastedLaunch> {
    head_launch_event(log).map(|(_, launch)| launch)
}

/// [`head_launch`] and where its lines are.
fn head_launch_event(log: &Parsed) -> Option<(Span, &PastedLaunch)> {
    log.events.iter().find_map(|event| match &event.kind {
        EventKind::Log(LogLine {
            signal: Some(Signal::Launch(launch)),
            ..
        }) => Some((event.span, &**launch)),
        _ => None,
    })
}

/// Among several launches, the one whose port or model the log names.
fn by_content(timeline: &Timeline, candidates: &[usize], log: &Parsed) -> Option<usize> {
    let mut named = ServerSettings::default();
    let mut bound = None;
    for event in &log.events {
        if let EventKind::Log(line) = &event.kind {
            match &line.signal {
                Some(Signal::Launch(launch)) => named.merge_missing(&launch.settings),
                Some(Signal::Settings(settings)) => named.merge_missing(settings),
                Some(Signal::Bound { port, .. }) => bound = bound.or(*port),
                _ => {}
            }
        }
    }
    let port = named.port.or(bound);
    let matching: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&id| {
            let server = &timeline.servers[id];
            let same_port = port.is_some() && port == server.port();
            let same_model = named.model.is_some() && named.model == server.settings.model;
            same_port || same_model
        })
        .collect();
    match matching.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// Decides which server each checkpoint after a launch looked at, and for
/// servers without a log, builds their lifecycle from what the agent saw.
/// A launch's own output is the first thing the agent saw of its server
/// (a foreground server prints its bind line there; a background one's
/// polled output is attached to it).
fn attribute_observations(timeline: &mut Timeline) {
    for checkpoint in &timeline.checkpoints {
        if checkpoint.seen.iter().next().is_some() {
            for server in &mut timeline.servers {
                if server.launch == Some(checkpoint.id) {
                    server.observed_by.push(checkpoint.id);
                }
            }
        }
        let candidates: Vec<usize> = timeline
            .servers
            .iter()
            // The launch itself too: a server run in the foreground, or
            // polled in the background, prints its start in the launch's
            // own output.
            .filter(|s| s.launch.is_some_and(|l| l <= checkpoint.id))
            .map(|s| s.id)
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let names_server = |server: &Server| {
            let here = same_host(server.host.as_deref(), checkpoint.host.as_deref());
            here && server
                .log_path
                .as_deref()
                .is_some_and(|p| checkpoint.reads(p).is_some())
                || checkpoint.observations.iter().any(|o| match o {
                    Observation::PortListing { port } => {
                        here && port.is_some() && *port == server.port()
                    }
                    Observation::Http { port, host, .. } => {
                        // A request reaches the server from its own host, or
                        // from anywhere through the server's address.
                        let to_server = here
                            || server
                                .host
                                .as_deref()
                                .is_some_and(|h| same_host(Some(h), Some(host)));
                        to_server && port.is_some() && *port == server.port()
                    }
                    _ => false,
                })
        };
        let reached: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&id| names_server(&timeline.servers[id]))
            .collect();
        // A port reached after a newer launch on it is the newer server's:
        // the one it replaced (failed, killed) is not looked at again.
        let servers = &timeline.servers;
        let newest_on = |port: Option<u16>| {
            reached
                .iter()
                .copied()
                .filter(|&id| servers[id].port() == port)
                .max_by_key(|&id| servers[id].launch)
        };
        let named: Vec<usize> = reached
            .iter()
            .copied()
            .filter(|&id| {
                let port = servers[id].port();
                port.is_none()
                    || servers[id]
                        .log_path
                        .as_deref()
                        .is_some_and(|p| checkpoint.reads(p).is_some())
                    || newest_on(port) == Some(id)
            })
            .collect();
        let launches = timeline
            .servers
            .iter()
            .any(|s| s.launch == Some(checkpoint.id));
        // A kill or a build looks at no server unless it names one.
        let acts = matches!(
            checkpoint.kind,
            CheckpointKind::Kill | CheckpointKind::Build
        );
        let chosen = if named.is_empty() && (launches || acts) {
            // A launch's output is its own server's, not an earlier one's.
            Vec::new()
        } else if named.is_empty() {
            // Otherwise: the latest server launched on the same host.
            candidates
                .iter()
                .copied()
                .filter(|&id| {
                    same_host(
                        timeline.servers[id].host.as_deref(),
                        checkpoint.host.as_deref(),
                    )
                })
                .max()
                .into_iter()
                .collect()
        } else {
            named
        };
        for id in chosen {
            timeline.servers[id].observed_by.push(checkpoint.id);
        }
    }
    for server in &mut timeline.servers {
        if server.log_source.is_some() {
            continue;
        }
        for &id in &server.observed_by {
            let checkpoint = &timeline.checkpoints[id];
            // A request shows the client's side (`curl: (7)`, a browser's
            // `TimeoutError`), not the server's log: its outcome is a probe's.
            // Not so in the call that launched the server: `server & sleep
            // 3; curl …` prints the server's own lines too.
            if is_client_view(checkpoint) && server.launch != Some(id) {
                continue;
            }
            for line in &checkpoint.seen {
                server
                    .lifecycle
                    .absorb(line.span, line.log, line.rank, false);
            }
        }
        server.lifecycle.finish();
        let from_log = server.lifecycle.settings.clone();
        server.settings.merge_missing(&from_log);
    }
}

/// Servers known only from their logs the agent read: a `cat`, `tail` or
/// `grep` of a file, `docker logs`, `journalctl` or `kubectl logs` that no
/// launched server claims, whose output shows an engine's lines at work
/// (its prefix or words, and a phase or a rank tag). One server per file
/// (or container, unit, pod) read; its lifecycle is what the agent saw.
fn read_log_servers(timeline: &mut Timeline) {
    for id in 0..timeline.checkpoints.len() {
        let checkpoint = &timeline.checkpoints[id];
        if timeline.servers.iter().any(|s| s.observed_by.contains(&id)) {
            continue;
        }
        let Some(key) = log_read_key(checkpoint) else {
            continue;
        };
        let mut votes = [0usize; 7];
        let mut telling = false;
        for line in checkpoint.seen.iter() {
            if let Some(engine) = crate::parse::logline::engine_hint(line.text, line.log) {
                votes[engine as usize] += 1;
            }
            telling |= line.log.signal.is_some() || line.rank.is_some() || line.log.rank.is_some();
        }
        // The lines' engine, else the one the log's name says
        // (`~/.ollama/logs/server.log`, `docker logs vllm-qwen`).
        let engine = match crate::parse::log_engine_of(&votes) {
            Engine::Unknown => crate::engine::engine_named_in(&key),
            engine => engine,
        };
        // A log of no engine shows a server when it shows one serving
        // (`Uvicorn running on http://127.0.0.1:8000`, Flask's `Running
        // on`): the dev server a session found running.
        let serving = || {
            checkpoint.seen.iter().any(|l| {
                matches!(
                    l.log.signal,
                    Some(Signal::Bound { .. } | Signal::Ready { .. } | Signal::AppStartupComplete)
                )
            })
        };
        if !telling || engine == Engine::Unknown && !serving() {
            continue;
        }
        let host = checkpoint.host.clone();
        let existing = timeline.servers.iter().position(|s| {
            s.launch.is_none()
                && s.log_source.is_none()
                && s.log_path.as_deref() == Some(key.as_str())
                && same_host(s.host.as_deref(), host.as_deref())
        });
        let server_id = match existing {
            Some(found) => found,
            None => {
                let new = timeline.servers.len();
                timeline.servers.push(Server {
                    log_path: Some(key),
                    ..Server::found(new, engine, host)
                });
                new
            }
        };
        let server = &mut timeline.servers[server_id];
        server.observed_by.push(id);
        for line in &timeline.checkpoints[id].seen {
            server
                .lifecycle
                .absorb(line.span, line.log, line.rank, false);
        }
        server.lifecycle.finish();
        let from_log = server.lifecycle.settings.clone();
        server.settings.merge_missing(&from_log);
    }
}

/// What a checkpoint reads a log of: the file (`cat`, `tail`, `grep`), or
/// `docker logs NAME`, `journalctl -u UNIT`, `kubectl logs POD`.
fn log_read_key(checkpoint: &Checkpoint) -> Option<String> {
    if let Some(path) = checkpoint.observations.iter().find_map(|o| match o {
        Observation::FileRead { path, .. } => Some(path.clone()),
        _ => None,
    }) {
        return Some(path);
    }
    checkpoint.commands.iter().find_map(|c| {
        let argv = &c.argv;
        let word = |i: usize| argv.get(i).map(String::as_str).unwrap_or("");
        match c.program() {
            "docker" | "podman" if word(1) == "logs" => argv[2..]
                .iter()
                .find(|a| !a.starts_with('-') && a.parse::<u32>().is_err())
                .map(|name| format!("docker logs {name}")),
            "docker" | "podman" if word(1) == "compose" && argv.iter().any(|a| a == "logs") => {
                Some("docker compose logs".to_owned())
            }
            "journalctl" => Some(
                argv.iter()
                    .position(|a| a == "-u")
                    .and_then(|at| argv.get(at + 1))
                    .map_or_else(
                        || "journalctl".to_owned(),
                        |unit| format!("journalctl -u {unit}"),
                    ),
            ),
            // OpenShift's `oc logs` is kubectl's.
            "kubectl" | "oc" if word(1) == "logs" => argv[2..]
                .iter()
                .find(|a| !a.starts_with('-'))
                .map(|pod| format!("kubectl logs {pod}")),
            crate::parse::claude_code::SHELL_OUTPUT => Some(c.argv.join(" ")),
            _ => None,
        }
    })
}

/// Servers the session only probed, and what probes say of all servers: a
/// request or a port listing on an explicit port of a local or private
/// host that no launched or logged server answers to is a server of its
/// own (`curl localhost:8000/v1/models` shows a server the transcript
/// never started); every server keeps the outcome of the last probe that
/// reached it.
fn probed_servers(timeline: &mut Timeline) {
    for checkpoint_id in 0..timeline.checkpoints.len() {
        let checkpoint = &timeline.checkpoints[checkpoint_id];
        let mut found: Vec<(Option<String>, u16, Outcome, Engine, bool, bool)> = Vec::new();
        for check in &checkpoint.port_checks {
            let Some(port) = check.port else {
                continue;
            };
            let host = match &check.target {
                Some(target) if !check.request || is_local(target) => {
                    if is_loopback(target) {
                        checkpoint.host.clone()
                    } else {
                        Some(target.clone())
                    }
                }
                Some(_) => continue,
                None => checkpoint.host.clone(),
            };
            if check.request && (port == 443 || port == 80 && check.target.is_none()) {
                continue;
            }
            // A timeout says the server is slow, not whether it is up.
            let outcome = if check.timed_out {
                Outcome::Unknown
            } else {
                check.outcome
            };
            // A request the rendering says printed nothing (`└ (no
            // output)`: `curl -s` of a refused port does too) found nothing.
            let silent = check.request
                && check.outcome == Outcome::Unknown
                && checkpoint.seen.iter().next().is_some()
                && checkpoint.seen.iter().all(|l| says_no_output(l.text));
            found.push((
                host,
                port,
                outcome,
                probed_engine(checkpoint, port),
                check.unasked,
                silent,
            ));
        }
        for (host, port, outcome, engine, unasked, silent) in found {
            let here = |server: &Server| {
                same_host(server.host.as_deref(), host.as_deref())
                    && server.launch.is_none_or(|l| l <= checkpoint_id)
            };
            // The one server launched by this very command with no port of
            // its own, found listening by a listing in the same command
            // (`systemctl restart x && sleep 2 && lsof -i :3444`): that is
            // its port, whatever else was seen on it before.
            if !unasked
                && outcome == Outcome::Passed
                && !is_request(&timeline.checkpoints[checkpoint_id], port)
            {
                let mut launched_here = timeline.servers.iter().filter(|s| {
                    s.launch == Some(checkpoint_id)
                        && s.port().is_none()
                        && same_host(s.host.as_deref(), host.as_deref())
                });
                if let (Some(only), None) = (launched_here.next(), launched_here.next()) {
                    let only = only.id;
                    timeline.servers[only].settings.port = Some(port);
                }
            }
            // The latest to appear there: a server launched after one found
            // on its port (the old one) is what later probes reach.
            let known = timeline
                .servers
                .iter()
                .filter(|s| here(s) && s.port() == Some(port))
                .max_by_key(|s| s.first_seen())
                .map(|s| s.id);
            // A request to this machine's own address (`curl
            // http://192.168.1.20:1234/…`, or a pasted `ipaddress`) reaches
            // a server launched here that binds every interface on that
            // port, when no server is known at that address.
            let known = known.or_else(|| {
                let target_elsewhere =
                    host.is_some() && host != timeline.checkpoints[checkpoint_id].host;
                if !target_elsewhere || !is_request(&timeline.checkpoints[checkpoint_id], port) {
                    return None;
                }
                let mut wildcard = timeline.servers.iter().filter(|s| {
                    s.launch.is_some_and(|l| l <= checkpoint_id)
                        && s.port() == Some(port)
                        && same_host(
                            s.host.as_deref(),
                            timeline.checkpoints[checkpoint_id].host.as_deref(),
                        )
                        && s.settings.binds_every_interface()
                });
                match (wildcard.next(), wildcard.next()) {
                    (Some(only), None) => Some(only.id),
                    _ => None,
                }
            });
            // A check before the launch on that port that found it free is
            // not a server of its own; nor is a listing that found nothing.
            let launched_later = timeline.servers.iter().any(|s| {
                s.launch.is_some_and(|l| l > checkpoint_id)
                    && same_host(s.host.as_deref(), host.as_deref())
                    && s.port() == Some(port)
            });
            // A request to a port no server is known on reaches the one
            // server launched on that host whose port is unknown (`npm run
            // start`, a script): the probe says where it serves.
            let known = known.or_else(|| {
                let unknown: Vec<usize> = timeline
                    .servers
                    .iter()
                    .filter(|s| {
                        here(s)
                            // Launched here, or known from its log and asked
                            // on its engine's default port.
                            && (s.launch.is_some() || s.engine.default_port() == Some(port))
                            && s.port().is_none()
                            && s.stopped_by.is_none()
                            && s.exited.is_none()
                    })
                    .map(|s| s.id)
                    .collect();
                match unknown.as_slice() {
                    [only] if is_request(&timeline.checkpoints[checkpoint_id], port) => {
                        timeline.servers[*only].settings.port = Some(port);
                        Some(*only)
                    }
                    _ => None,
                }
            });
            // A request on the host to the port a container listens on
            // inside, which it publishes as another: nothing is there, and
            // that is no server of its own (the container's is elsewhere).
            let inside_only = outcome != Outcome::Passed
                && timeline.servers.iter().any(|s| {
                    here(s)
                        && s.launch.is_some()
                        && s.settings.container_port == Some(port)
                        && s.port() != Some(port)
                });
            let id = match known {
                Some(id) => id,
                None if inside_only => continue,
                // Something already listening before a launch on that port
                // is another server (the one the launch will collide with).
                None if launched_later && outcome != Outcome::Passed
                    || silent
                    || unasked
                    || !is_request(&timeline.checkpoints[checkpoint_id], port)
                        && outcome != Outcome::Passed =>
                {
                    continue;
                }
                None => {
                    let id = timeline.servers.len();
                    // A stack brought up on this host (`docker compose up`)
                    // runs a server per service: a request that reaches a
                    // new port there reaches another service of it, which
                    // that command launched.
                    let stack = timeline
                        .servers
                        .iter()
                        .filter(|s| {
                            here(s)
                                && s.launch.is_some()
                                && s.stopped_by.is_none()
                                && s.exited.is_none()
                                && s.program.as_deref().is_some_and(|p| p.contains("compose"))
                        })
                        .max_by_key(|s| s.launch)
                        .map(|s| (s.launch, s.program.clone()));
                    let (launch, program) = stack.unwrap_or((None, None));
                    timeline.servers.push(Server {
                        settings: ServerSettings {
                            port: Some(port),
                            ..ServerSettings::default()
                        },
                        observed_by: launch.into_iter().chain([checkpoint_id]).collect(),
                        launch,
                        program,
                        ..Server::found(id, engine, host.clone())
                    });
                    id
                }
            };
            let server = &mut timeline.servers[id];
            // A bound port says the server listens, not that it serves: a
            // listing nobody asked for tells no readiness.
            if outcome != Outcome::Unknown && !unasked {
                server.last_probe = Some((outcome, timeline.checkpoints[checkpoint_id].span));
            }
            // The probe looked at it (a port learned only now, too).
            server.observe(checkpoint_id);
        }
    }
}

/// `systemctl status UNIT` (or `service UNIT status`) of an engine's unit:
/// a server the session found running (`Active: active (running)`) or
/// found down (`inactive (dead)`, `failed`). Running is not serving: it
/// makes the server known, not ready. A server of that engine already
/// known on the host is the same one, looked at again.
fn unit_servers(timeline: &mut Timeline) {
    for checkpoint_id in 0..timeline.checkpoints.len() {
        let checkpoint = &timeline.checkpoints[checkpoint_id];
        let units: Vec<Engine> = checkpoint
            .commands
            .iter()
            .filter_map(|c| {
                let unit = match (c.program(), c.argv.get(1).map(String::as_str)) {
                    ("systemctl", Some("status")) => {
                        c.argv[2..].iter().find(|a| !a.starts_with('-'))
                    }
                    ("service", Some(_)) if c.argv.get(2).is_some_and(|a| a == "status") => {
                        c.argv.get(1)
                    }
                    _ => None,
                }?;
                // The unit's name tells the engine, as a container's does.
                let engine = crate::engine::engine_named_in(unit);
                (engine != Engine::Unknown).then_some(engine)
            })
            .collect();
        if units.is_empty() {
            continue;
        }
        let down = checkpoint.seen.iter().any(|l| {
            let t = l.text.trim_start();
            t.starts_with("Active: inactive") || t.starts_with("Active: failed")
        });
        let up = checkpoint
            .seen
            .iter()
            .any(|l| l.text.trim_start().starts_with("Active: active (running)"));
        if !up && !down {
            continue;
        }
        let host = checkpoint.host.clone();
        let span = checkpoint.span;
        for engine in units {
            let known = timeline.servers.iter().position(|s| {
                s.engine == engine
                    && same_host(s.host.as_deref(), host.as_deref())
                    && s.launch.is_none_or(|l| l <= checkpoint_id)
            });
            let id = match known {
                Some(id) => id,
                None => {
                    let id = timeline.servers.len();
                    timeline
                        .servers
                        .push(Server::found(id, engine, host.clone()));
                    id
                }
            };
            let server = &mut timeline.servers[id];
            // The latest look decides: a request that answered later wins.
            if down
                && server
                    .last_probe
                    .is_none_or(|(_, at)| at.source != span.source || at.start < span.start)
            {
                server.last_probe = Some((Outcome::Failed, span));
            }
            server.observe(checkpoint_id);
        }
    }
}

/// Puts the servers in the order the session met them: a server found
/// running or only probed is created after the launched ones, but comes
/// where it was first seen. Servers seen only in a log keep their place
/// after those. Runs before anything refers to a server by its index.
fn order_servers(timeline: &mut Timeline) {
    timeline
        .servers
        .sort_by_key(|s| s.first_seen().unwrap_or(usize::MAX));
    for (id, server) in timeline.servers.iter_mut().enumerate() {
        server.id = id;
    }
}

/// Marks the servers the agent's own kills stopped: a kill after a launch
/// that names the server (its program or a pattern of its command, its
/// port, its shell job or pid, its container), or that stops a background
/// shell (the latest server run in one), and whose output does not say it
/// failed.
fn mark_stopped(timeline: &mut Timeline) {
    ended_shells(timeline);
    timed_out_runs(timeline);
    const FAILED: &[&str] = &[
        "No such process",
        "no process found",
        "Operation not permitted",
        "Invalid argument",
        "cannot be killed",
        "is not running",
        "Access is denied",
        "not found",
    ];
    for kill in &timeline.checkpoints {
        // A restart in one command (`docker compose down && docker compose
        // up -d`, `pkill -f app.py; nohup python app.py &`) is a launch that
        // also stops what ran before.
        let kills = kill.kind == CheckpointKind::Kill
            || kill.kind == CheckpointKind::Launch
                && kill
                    .commands
                    .iter()
                    .any(|c| crate::timeline::classify::kind_of(c) == CheckpointKind::Kill);
        if !kills
            || kill
                .seen
                .iter()
                .any(|l| FAILED.iter().any(|f| l.text.contains(f)))
        {
            continue;
        }
        // Servers launched before the kill, and those the session found
        // running (seen in an output before it, launched nowhere).
        let running: Vec<usize> = timeline
            .servers
            .iter()
            .filter(|s| {
                s.first_seen().is_some_and(|l| l < kill.id)
                    && s.stopped_by.is_none()
                    && same_host(s.host.as_deref(), kill.host.as_deref())
            })
            .map(|s| s.id)
            .collect();
        // A server found running is known by the command that starts it
        // again after the kill (kill the old one, start the new one): the
        // next launch on its host and port.
        let relaunch = |server: &Server| {
            timeline.checkpoints[kill.id + 1..].iter().find(|c| {
                c.kind == CheckpointKind::Launch
                    && same_host(c.host.as_deref(), server.host.as_deref())
                    && timeline.servers.iter().any(|s| {
                        s.launch == Some(c.id)
                            && (s.port().is_none()
                                || server.port().is_none()
                                || s.port() == server.port())
                    })
            })
        };
        let latest_launched = running
            .iter()
            .copied()
            .filter(|&r| timeline.servers[r].launch.is_some())
            .max_by_key(|&r| timeline.servers[r].launch);
        let mut stopped: Vec<usize> = Vec::new();
        for command in kill
            .commands
            .iter()
            .filter(|c| crate::timeline::classify::kind_of(c) == CheckpointKind::Kill)
        {
            let program = command.program();
            let targets: Vec<&str> = command.argv[1..]
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .collect();
            if program == crate::parse::claude_code::KILL_SHELL {
                stopped.extend(latest_background_server(
                    timeline,
                    kill.id,
                    kill.host.as_deref(),
                ));
                continue;
            }
            for &id in &running {
                let server = &timeline.servers[id];
                let found_running = server.launch.is_none();
                let Some(launch) = server
                    .launch
                    .map(|l| &timeline.checkpoints[l])
                    .or_else(|| relaunch(server))
                else {
                    continue;
                };
                let port = server.port();
                let hit = targets.iter().any(|t| {
                    let t = t.trim_matches(['"', '\'']);
                    // `pkill -f "vllm serve"`, `pkill uvicorn`, `docker stop
                    // NAME`, wmic's `commandline like '%uvicorn%'`.
                    let pattern = |p: &str| p.len() >= 3 && launch.command.contains(p);
                    pattern(t)
                        || t.contains('%') && t.split('%').skip(1).step_by(2).any(pattern)
                        // `fuser -k 8000/tcp`, `:8000`.
                        || port.is_some_and(|p| {
                            let p = p.to_string();
                            t.trim_start_matches(':').split('/').next() == Some(p.as_str())
                        })
                        // `kill 4242`, `kill %1`: a pid the launch printed.
                        || !found_running
                            && t.chars().all(|c| c.is_ascii_digit() || c == '%')
                            && launch
                                .seen
                                .output()
                                .is_some_and(|o| o.split_whitespace().any(|w| w == t.trim_start_matches('%')))
                });
                // `kill $(lsof -t -i:8000)`: the port inside the substitution.
                let by_port = port.is_some_and(|p| {
                    kill.command.contains(&format!(":{p}")) && kill.command.contains("lsof")
                        || kill.command.contains(&format!("fuser -k {p}"))
                });
                // `kill "$(cat tmp/pids/server.pid)"`: the pid a server wrote
                // to its file (Rails, `echo $! > app.pid`), of the latest
                // launched there (an earlier one on its port has been
                // replaced by it).
                let by_pid_file = latest_launched == Some(id)
                    && targets
                        .iter()
                        .any(|t| t.contains("$(") && t.contains(".pid"));
                if hit || by_port || by_pid_file {
                    stopped.push(id);
                }
            }
        }
        for id in stopped {
            if timeline.servers[id].stopped_by.is_none() {
                timeline.servers[id].stopped_by = Some(kill.id);
            }
        }
    }
}

/// Claude Code's answer to stopping a background shell that had already
/// ended (`Shell d5cc44 is not running, so cannot be killed (status:
/// failed)`): the server run in it (the latest run in one) ended before,
/// failed, killed or returned. A shell that completed because its command
/// put the server in the background itself (`… &`) says nothing of it.
fn ended_shells(timeline: &mut Timeline) {
    for kill_id in 0..timeline.checkpoints.len() {
        let kill = &timeline.checkpoints[kill_id];
        if kill.kind != CheckpointKind::Kill
            || !kill
                .commands
                .iter()
                .any(|c| c.program() == crate::parse::claude_code::KILL_SHELL)
        {
            continue;
        }
        let Some(status) = kill.seen.iter().find_map(|l| ended_shell_status(l.text)) else {
            continue;
        };
        let Some(id) = latest_background_server(timeline, kill_id, kill.host.as_deref()) else {
            continue;
        };
        let launch = timeline.servers[id]
            .launch
            .map(|l| &timeline.checkpoints[l]);
        let detached = launch.is_some_and(|l| l.command.trim_end().ends_with('&'));
        if status == "completed" && detached {
            continue;
        }
        let Some(code) = shell_end_code(status, None) else {
            continue;
        };
        let server = &mut timeline.servers[id];
        if server.exited.is_none() && server.stopped_by.is_none() {
            server.exited = Some(code);
        }
        server.observe(kill_id);
    }
}

/// A server run in the foreground under `timeout N` whose command came
/// back (its output is there, or the agent went on): `timeout` killed it
/// when the time ran out (status 124), unless its own lines show another
/// end. The run was a test of it, and it is not running afterwards.
fn timed_out_runs(timeline: &mut Timeline) {
    let last = timeline.checkpoints.len().saturating_sub(1);
    for server in &mut timeline.servers {
        let Some(launch) = server.launch.map(|l| &timeline.checkpoints[l]) else {
            continue;
        };
        let under_timeout = launch.commands.iter().any(|c| {
            c.wrappers.iter().any(|w| w == "timeout")
                && crate::timeline::classify::kind_of(c) == CheckpointKind::Launch
                && c.after.as_deref() != Some("&")
        });
        let came_back = launch.output.is_some() || launch.id < last;
        if under_timeout
            && came_back
            && !launch.background
            && !launch.command.trim_end().ends_with('&')
            && server.exited.is_none()
            && server.stopped_by.is_none()
            && server.lifecycle.failure.is_none()
        {
            server.exited = Some(124);
        }
    }
}

/// Whether a checkpoint sent a request to `port` (not only listed sockets).
fn is_request(checkpoint: &Checkpoint, port: u16) -> bool {
    checkpoint
        .port_checks
        .iter()
        .any(|c| c.request && c.port == Some(port))
}

/// The engine a probed port's answer or address tells: Ollama's port or
/// API, vLLM's or SGLang's name in the answer.
fn probed_engine(checkpoint: &Checkpoint, port: u16) -> Engine {
    // A request to an engine's own endpoint (`/api/tags`, `/is_sleeping`).
    let asked = checkpoint.observations.iter().find_map(|o| match o {
        Observation::Http { url, .. } => crate::engine::engine_of_endpoint(url),
        _ => None,
    });
    if let Some(engine) = asked {
        return engine;
    }
    if port == 11434 {
        return Engine::Ollama;
    }
    let answer = checkpoint.seen.output().unwrap_or("");
    if answer.contains("\"owned_by\":\"vllm\"") || answer.contains("\"owned_by\": \"vllm\"") {
        Engine::Vllm
    } else if answer.contains("\"owned_by\":\"sglang\"")
        || answer.contains("\"owned_by\": \"sglang\"")
    {
        Engine::Sglang
    } else {
        Engine::Unknown
    }
}

/// `localhost`, `127.0.0.1`, `::1`, `0.0.0.0`.
fn is_loopback(host: &str) -> bool {
    let host = host.trim_matches(['[', ']']);
    host == "localhost" || host.starts_with("127.") || host == "::1" || host == "0.0.0.0"
}

/// A host of the operator's own network: loopback, a private address, a
/// bare host name or a `.local`/`.internal` one.
pub(crate) fn is_local(host: &str) -> bool {
    let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
    let private_v4 = {
        let parts: Vec<u8> = host.split('.').filter_map(|p| p.parse().ok()).collect();
        parts.len() == 4
            && (parts[0] == 10
                || parts[0] == 192 && parts[1] == 168
                || parts[0] == 172 && (16..=31).contains(&parts[1])
                || parts[0] == 100 && (64..=127).contains(&parts[1]))
    };
    is_loopback(&host)
        || private_v4
        || !host.contains('.') && !host.contains(':')
        || host.ends_with(".local")
        || host.ends_with(".internal")
        || host.ends_with(".lan")
        || host.ends_with(".svc")
        || host.ends_with(".cluster.local")
}

/// Whether a checkpoint only sends requests (and reads no file): what it
/// shows is the client's side.
fn is_client_view(checkpoint: &Checkpoint) -> bool {
    checkpoint
        .observations
        .iter()
        .any(|o| matches!(o, Observation::Http { .. }))
        && !checkpoint
            .observations
            .iter()
            .any(|o| matches!(o, Observation::FileRead { .. }))
}

/// Compares hosts without the `user@` part; two unknown hosts are the same
/// (both the local machine, as far as the transcript tells).
pub fn same_host(a: Option<&str>, b: Option<&str>) -> bool {
    let strip = |h: &str| h.rsplit('@').next().unwrap_or(h).to_ascii_lowercase();
    match (a, b) {
        (Some(a), Some(b)) => strip(a) == strip(b),
        (None, None) => true,
        _ => false,
    }
}

/// Compares two paths; when either is a bare file name, by file name only.
pub fn same_path(a: &str, b: &str) -> bool {
    let file = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_owned();
    if a == b {
        return true;
    }
    let bare = !a.contains('/') || !b.contains('/');
    bare && file(a) == file(b) && !file(a).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::logline::classify;

    const RUN: [&str; 4] = [
        "(APIServer pid=1) INFO 11-30 13:52:10 [api_server.py:1805] vLLM API server version 0.10.1.1",
        "(EngineCore_DP0 pid=2) ERROR 11-30 13:53:12 [core.py:718] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.",
        "(APIServer pid=3) INFO 11-30 14:00:01 [api_server.py:1805] vLLM API server version 0.10.1.1",
        "(APIServer pid=3) INFO:     Application startup complete.",
    ];

    #[test]
    fn a_container_launch_that_could_not_reach_docker_started_nothing() {
        let text = "\u{23fa} Bash(docker compose up -d api && sleep 3 && docker compose logs api 2>&1)\n  \u{23bf}  Error: Exit code 1\n     unable to get image 'api': Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n\n\u{23fa} All set.\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
        assert_eq!(report.servers.len(), 1);
        assert_eq!(report.servers[0].ready, Some(false));
        // The same call that reached the daemon says nothing of the sort.
        let fine = text.replace("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", "Container api Started");
        let report = crate::analyze(&[crate::Source::new("t.txt", fine.as_str())]);
        assert_ne!(report.servers[0].ready, Some(false));
    }

    #[test]
    fn only_a_shell_script_is_read_for_the_server_it_starts() {
        assert!(script_launch("/tmp/start", "vllm serve m --port 8001").is_some());
        assert!(script_launch("run.sh", "vllm serve m").is_some());
        assert!(script_launch("/x/launch", "#!/bin/bash\nexec vllm serve m").is_some());
        assert!(script_launch("/tmp/notes.py", "vllm serve m").is_none());
        assert!(script_launch("config.yaml", "vllm serve m").is_none());
        // A launch script's variables, set once and used in the launch.
        let script = "#!/bin/bash\n\nGPU_NUM=4\nSERVER_PORT=30000\nexport MODEL_PATH=\"/m/GLM\"\n# run\npython -m sglang.launch_server --model-path $MODEL_PATH --tp-size ${GPU_NUM} --host 0.0.0.0 --port \"$SERVER_PORT\" --mem $UNSET\n";
        let launch = script_launch("sglang_run.sh", script).expect("a launch");
        assert_eq!(launch.0, Engine::Sglang);
        assert_eq!(
            (launch.1.port, launch.1.tp_size),
            (Some(30000), Some(4)),
            "{launch:?}"
        );
        assert_eq!(launch.1.model.as_deref(), Some("/m/GLM"));
        assert_eq!(substitute("$UNSET-x", &[]), "$UNSET-x");
    }

    /// An issue pastes the run of its script at a prompt, then the script
    /// under "Reproduction (`sglang_run.sh`):": the run is the launch the
    /// script holds.
    #[test]
    fn a_script_the_paste_shows_after_its_run_is_its_launch() {
        let text = "Run log:\n```\nuser@host:~/sglang$ ./sglang_run.sh\n[2025-07-29 15:06:51] Received sigquit from a child process. It usually means the child failed.\n```\n\nReproduction (`sglang_run.sh`):\n```batch\n#!/bin/bash\nGPU_NUM=4\nSERVER_PORT=30000\npython -m sglang.launch_server --model-path /m --tp-size $GPU_NUM --port $SERVER_PORT\n```\n";
        let report = crate::analyze(&[crate::Source::new("issue.md", text)]);
        let server = report.servers.first().expect("the script's server");
        assert_eq!(server.engine, Engine::Sglang);
        assert_eq!((server.port, server.tp_size), (Some(30000), Some(4)));
        assert_eq!(server.launch_checkpoint, Some(0));
    }

    #[test]
    fn running_a_script_written_to_start_a_server_is_its_launch() {
        // A pi session: the heredoc is inside the tool call's command.
        let call = |id: &str, command: &str| {
            let call = serde_json::json!({"type": "message", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "bash", "arguments": {"command": command}}]}});
            let result = serde_json::json!({"type": "message", "message": {"role": "toolResult", "toolCallId": id, "toolName": "bash", "content": [{"type": "text", "text": "(no output)"}], "isError": false}});
            format!("{call}\n{result}\n")
        };
        let text = [
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/r\"}\n".to_owned(),
            call("t1", "cat << 'SCRIPT' > /tmp/launch_vllm.sh\n#!/bin/bash\nexport NCCL_P2P_DISABLE=1\nexec /venv/bin/python -m vllm.entrypoints.openai.api_server \\\n    --model Qwen/Qwen3-4B --port 8001 --tensor-parallel-size 2\nSCRIPT\nchmod +x /tmp/launch_vllm.sh"),
            call("t2", "nohup /tmp/launch_vllm.sh > /tmp/v.log 2>&1 &"),
            // A script the session never wrote tells nothing.
            call("t3", "bash /tmp/other.sh"),
        ]
        .concat();
        let text = text.as_str();
        let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
        let launches: Vec<&str> = report
            .checkpoints
            .iter()
            .filter(|c| c.kind == CheckpointKind::Launch)
            .map(|c| c.command.as_str())
            .collect();
        assert_eq!(launches, ["nohup /tmp/launch_vllm.sh > /tmp/v.log 2>&1 &"]);
        assert_eq!(report.servers.len(), 1);
        let server = &report.servers[0];
        assert_eq!(
            (server.engine, server.port, server.tp_size),
            (Engine::Vllm, Some(8001), Some(2))
        );
    }

    fn absorb_all(from_log: bool) -> Lifecycle {
        let mut lifecycle = Lifecycle::new(Engine::Vllm);
        for (i, line) in RUN.iter().enumerate() {
            lifecycle.absorb(Span::new(0, i, i + 1), &classify(line), None, from_log);
        }
        lifecycle
    }

    #[test]
    fn a_start_line_after_a_failure_begins_a_new_run_in_a_log() {
        let lifecycle = absorb_all(true);
        assert!(lifecycle.failure.is_none());
        assert!(lifecycle.ready);
        assert_eq!(lifecycle.earlier_runs.len(), 1);
        assert!(matches!(
            lifecycle.earlier_runs[0],
            Some(EarlierFailure {
                kind: crate::parse::FailureKind::OutOfMemory,
                ..
            })
        ));
    }

    /// How a session's server ends without a log of its own: a foreground
    /// run under `timeout N` that came back was killed by it; `kill
    /// "$(cat tmp/pids/server.pid)"` stops the latest server launched.
    #[test]
    fn servers_ended_by_a_timeout_or_a_pid_file() {
        let failure = |text: &str| {
            let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
            report
                .servers
                .iter()
                .map(|s| (s.ready, s.failure.as_ref().map(|f| f.kind)))
                .collect::<Vec<_>>()
        };
        let timed = "$ timeout 90 python tools/stream_server.py --port 10097 2>&1 | tail -40\n[srv] model loaded on cuda:0\n[srv] listening on ws://127.0.0.1:10097\n$ ls\nREADME.md\n";
        assert_eq!(
            failure(timed),
            [(Some(false), Some(crate::parse::FailureKind::Killed))]
        );
        let background = "$ timeout 90 python tools/stream_server.py --port 10097 &\n[1] 4242\n";
        assert_eq!(failure(background)[0].1, None);
        let pid_file = "$ bin/rails server -p 3001 -d\n=> Booting Puma\n$ curl -s -o /dev/null -w '%{http_code}' http://localhost:3001/\n200\n$ kill \"$(cat tmp/pids/server.pid)\"\n";
        assert_eq!(
            failure(pid_file),
            [(Some(false), Some(crate::parse::FailureKind::Killed))]
        );
    }

    #[test]
    fn a_foreground_program_that_printed_its_bind_is_a_launch() {
        let servers = |text: &str| {
            let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
            let kinds: Vec<&str> = report.checkpoints.iter().map(|c| c.kind.name()).collect();
            (
                kinds.join(" "),
                report.servers.iter().map(|s| s.port).collect::<Vec<_>>(),
            )
        };
        let run = "$ python -m miniclaw2 --host 127.0.0.1 --port 8000\nINFO:     Started server process [65362]\nINFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n";
        assert_eq!(servers(run), ("launch".to_owned(), vec![Some(8000)]));
        // Reading a log that holds the same line starts nothing.
        let read = "$ tail -5 /tmp/app.log\nINFO:     Uvicorn running on http://127.0.0.1:8000 (Press CTRL+C to quit)\n";
        assert_eq!(servers(read).0, "verify");
    }

    #[test]
    fn a_dev_server_that_moved_off_a_busy_port_names_the_new_one() {
        assert_eq!(
            moved_port(
                "[stderr] \u{26a0} Port 3000 is in use by an unknown process, using available port 3001 instead."
            ),
            Some(3001)
        );
        assert_eq!(
            moved_port("Port 3000 is in use, trying 3001 instead."),
            Some(3001)
        );
        assert_eq!(
            moved_port("Port 5173 is in use, trying another one..."),
            None
        );
    }

    /// What a log alone tells of its server's port: the container's port
    /// under a pasted `docker run -p`, the port a failed bind names for a
    /// server of no engine, and no default under a command shown with
    /// arguments left out.
    #[test]
    fn ports_a_log_alone_tells() {
        let port = |name: &str, text: &str| {
            let report = crate::analyze(&[crate::Source::new(name, text)]);
            report.servers.first().map(|s| (s.port, s.port_source))
        };
        let tgi = "docker run --gpus all -p 3000:80 ghcr.io/huggingface/text-generation-inference:1.4 --model-id m --num-shard 2\n2024-03-12T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=0\n2024-03-12T10:00:00.000000Z  INFO text_generation_launcher: Starting shard rank=1\n";
        assert_eq!(port("tgi.log", tgi).and_then(|p| p.0), Some(80));
        let bind = "Error: listen tcp 0.0.0.0:11500: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted.\n";
        assert_eq!(port("server.log", bind).and_then(|p| p.0), Some(11500));
        let elided = "python -m sglang.launch_server ** --speculative-algo NEXTN --speculative-num-steps 3\n[2026-03-18 11:22:05 TP0] Load weight begin. avail mem=77.10 GB\n";
        assert_eq!(port("server.log", elided).and_then(|p| p.0), None);
        let whole = "python -m sglang.launch_server --model-path m --speculative-algo NEXTN\n[2026-03-18 11:22:05 TP0] Load weight begin. avail mem=77.10 GB\n";
        assert_eq!(port("server.log", whole).and_then(|p| p.0), Some(30000));
    }

    #[test]
    fn a_foreground_run_of_a_command_later_served_was_a_start_of_it() {
        let text = "\u{25cf} Bash(python main.py 2>&1)\n  \u{23bf}  Error: Exit code 1\n     Traceback (most recent call last):\n     ModuleNotFoundError: No module named 'hvplot'\n\n\u{25cf} Fixed the import.\n\n\u{25cf} Bash(python main.py 2>&1)\n  \u{23bf}  Running in the background (\u{2193} to manage)\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
        let kinds: Vec<&str> = report.checkpoints.iter().map(|c| c.kind.name()).collect();
        assert_eq!(kinds, ["launch", "launch"], "{report:?}");
        assert_eq!(report.servers.len(), 2);
        assert_eq!(report.servers[0].ready, Some(false));
        assert_eq!(
            report.servers[0].failure.as_ref().map(|f| f.kind.name()),
            Some("exception")
        );
    }

    /// Claude Code answers a KillShell of a shell that had already ended
    /// with its status: the server in it had died, and "Perfect!" after
    /// that ignores it.
    #[test]
    fn a_background_shell_found_ended_in_failure_is_a_dead_server() {
        let lines = [
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"python3 -m http.server 8001","run_in_background":true}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","content":"Command running in background with ID: d5cc44"}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"k","name":"KillShell","input":{"shell_id":"d5cc44"}}]}}"#,
            r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"k","content":"Shell d5cc44 is not running, so cannot be killed (status: failed)","is_error":true}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Perfect! The page is served and everything works."}]}}"#,
        ];
        let report = crate::analyze(&[crate::Source::new("s.jsonl", lines.join("\n"))]);
        assert_eq!(report.servers.len(), 1, "{report:?}");
        assert_eq!(report.servers[0].ready, Some(false));
        assert!(
            report.findings.iter().any(|f| f.rule == "error-ignored"),
            "{:?}",
            report.findings
        );
        // A shell that completed because its command detached the server
        // (`… &`) says nothing of the server.
        let detached = lines
            .join("\n")
            .replace("8001\"", "8001 > /dev/null 2>&1 &\"")
            .replace("status: failed", "status: completed");
        let report = crate::analyze(&[crate::Source::new("s.jsonl", detached)]);
        assert_ne!(report.servers[0].ready, Some(false), "{report:?}");
    }

    #[test]
    fn a_port_found_taken_before_a_launch_on_it_is_another_server() {
        let text = "root@box ~ # lsof -i tcp:11434\nCOMMAND    PID   USER   FD   TYPE  DEVICE SIZE/OFF NODE NAME\nollama  103938 ollama    3u  IPv4 2082206      0t0  TCP localhost.localdomain:11434 (LISTEN)\nroot@box ~ # ollama serve\nError: listen tcp 127.0.0.1:11434: bind: address already in use\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
        assert_eq!(report.servers.len(), 2, "{report:?}");
        assert!(report.servers[0].launch_checkpoint.is_none());
        assert_eq!(report.servers[0].port, Some(11434));
        assert_eq!(
            report.servers[1].failure.as_ref().map(|f| f.kind.name()),
            Some("address-in-use")
        );
        // Found free, it is no server.
        let free = "root@box ~ # lsof -i tcp:11434\nroot@box ~ # ollama serve\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", free)]);
        assert_eq!(report.servers.len(), 1, "{report:?}");
    }

    #[test]
    fn a_units_status_is_a_server_found_running_or_down() {
        let up = "$ systemctl status ollama\n\u{25cf} ollama.service - Ollama Service\n     Active: active (running) since Wed 2024-08-14 19:56:09 PDT; 35min ago\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", up)]);
        assert_eq!(report.servers.len(), 1, "{report:?}");
        assert_eq!(report.servers[0].engine, Engine::Ollama);
        // Running is not serving.
        assert_eq!(report.servers[0].ready, None);
        let down = "$ sudo systemctl status vllm-qwen\n\u{25cb} vllm-qwen.service\n     Active: failed (Result: exit-code) since Tue 2026-01-06\n";
        let report = crate::analyze(&[crate::Source::new("t.txt", down)]);
        assert_eq!(report.servers.len(), 1);
        assert_eq!(report.servers[0].engine, Engine::Vllm);
        assert_eq!(report.servers[0].ready, Some(false));
        // A unit of no engine makes no server.
        let other = "$ systemctl status nginx\n     Active: active (running)\n";
        assert!(
            crate::analyze(&[crate::Source::new("t.txt", other)])
                .servers
                .is_empty()
        );
    }

    #[test]
    fn lines_the_agent_saw_never_make_a_restart() {
        let lifecycle = absorb_all(false);
        assert!(lifecycle.failure.is_some());
        assert!(lifecycle.earlier_runs.is_empty());
    }

    #[test]
    fn http_error_answers_are_read_from_status_lines_and_bodies() {
        for (line, status) in [
            ("HTTP/1.1 404 Not Found", Some(404)),
            ("< HTTP/2 500 ", Some(500)),
            ("http_code=422", Some(422)),
            (r#"{"detail":"Not Found"}"#, Some(404)),
            (r#"{ "detail": "Not Found" }"#, Some(404)),
            ("404 page not found", Some(404)),
            ("Cannot GET /health", Some(404)),
            // Answers that are no error, and the two statuses that fail the
            // request outright (read by `is_request_failure`).
            ("HTTP/1.1 200 OK", None),
            (r#"{"status":"ok"}"#, None),
            ("HTTP/1.1 503 Service Unavailable", None),
            ("status=200", None),
            ("the page says Not Found somewhere", None),
        ] {
            assert_eq!(http_error_status(line), status, "{line}");
        }
    }

    fn ranks(log: &str) -> Vec<String> {
        let parsed = crate::parse::logline::parse_log(log, 0);
        Lifecycle::from_log(Engine::Sglang, &parsed)
            .ranks
            .into_iter()
            .collect()
    }

    /// torch's `[rankN]:` hints count beside real tags when their index is
    /// new (three processes here), and not when a real tag has it.
    #[test]
    fn a_weak_rank_hint_with_a_new_index_is_one_more_process() {
        let log = "[rank3]:[W208 00:55:32.444 socket.cpp:487] [c10d] waitForInput: timed out after 1800000ms\n\
                   [rank4]:[W208 00:55:32.444 socket.cpp:487] [c10d] waitForInput: timed out after 1800000ms\n\
                   [2025-02-08 00:55:32 TP5] Scheduler hit an exception: Traceback (most recent call last):\n";
        assert_eq!(ranks(log).len(), 3, "{:?}", ranks(log));
        let same = "[rank5]:[W208 00:55:32.444 socket.cpp:487] [c10d] waitForInput: timed out after 1800000ms\n\
                    [2025-02-08 00:55:32 TP5] Scheduler hit an exception: Traceback (most recent call last):\n";
        assert_eq!(ranks(same).len(), 1, "{:?}", ranks(same));
    }
}

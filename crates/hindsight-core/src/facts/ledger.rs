//! The verification ledger: for every server, the checks a careful operator
//! makes after a launch, each `passed`, `failed`, `not-checked`, `indirect`
//! (shown by something other than the check itself, such as the engine's own
//! bind line) or `inconclusive` (made, but the transcript lacks the result),
//! with the lines that show it. Rules read it; the report shows it.

use serde::{Deserialize, Serialize};

use super::build::{
    Use, build_verdict, builds_product, product_missing, product_names, uses_product,
};
use super::gpus::{Outcome as Gpu, gpu_check_after_kill, gpu_outcome, is_kill, may_hold_gpus};
use super::observers;
use crate::parse::Signal;
use crate::timeline::{
    Checkpoint, CheckpointKind, Observation, Outcome, Quote, RAY_DRIVER, SeenLine, Server,
    Timeline, Window, Written, implies_ray_driver, same_host,
};

/// What a check came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum LedgerStatus {
    Passed,
    Failed,
    NotChecked,
    Indirect,
    Inconclusive,
}

impl LedgerStatus {
    pub fn name(self) -> &'static str {
        match self {
            LedgerStatus::Passed => "passed",
            LedgerStatus::Failed => "failed",
            LedgerStatus::NotChecked => "not-checked",
            LedgerStatus::Indirect => "indirect",
            LedgerStatus::Inconclusive => "inconclusive",
        }
    }
}

/// A check a careful operator makes: after a launch (of the server), after
/// a build (of its result and product) and after a kill (of the GPUs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    PortListening,
    RequestAnswered,
    ReadinessLine,
    DrafterLoaded,
    AllRanksUp,
    ErrorsScanned,
    BuildSucceeded,
    ProductChecked,
    GpusFreed,
    RunSucceeded,
}

impl Check {
    /// The name the report writes (`port-listening`).
    pub fn name(self) -> &'static str {
        match self {
            Check::PortListening => "port-listening",
            Check::RequestAnswered => "request-answered",
            Check::ReadinessLine => "readiness-line",
            Check::DrafterLoaded => "drafter-loaded",
            Check::AllRanksUp => "all-ranks-up",
            Check::ErrorsScanned => "errors-scanned",
            Check::BuildSucceeded => "build-succeeded",
            Check::ProductChecked => "product-checked",
            Check::GpusFreed => "gpus-freed",
            Check::RunSucceeded => "run-succeeded",
        }
    }

    /// What it checks, in words for sentences ("A checked the port").
    pub fn phrase(self) -> &'static str {
        match self {
            Check::PortListening => "the port",
            Check::RequestAnswered => "a real request",
            Check::ReadinessLine => "the readiness line",
            Check::DrafterLoaded => "the drafter",
            Check::AllRanksUp => "the ranks",
            Check::ErrorsScanned => "the whole log for errors",
            Check::BuildSucceeded => "the build's result",
            Check::ProductChecked => "the built product",
            Check::GpusFreed => "that the GPUs were freed",
            Check::RunSucceeded => "the run's result",
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One check of the ledger.
#[derive(Debug, Clone)]
pub struct LedgerEntry {
    pub check: Check,
    pub status: LedgerStatus,
    pub detail: String,
    pub evidence: Vec<Quote>,
}

/// The port checks that reached one server, sorted by outcome.
#[derive(Debug, Default)]
pub struct PortView {
    pub listing: Outcomes,
    pub request: Outcomes,
    /// The engine's bind or readiness line, seen by the agent.
    pub bound: Option<Quote>,
    /// How many checkpoints looked at the server at all.
    pub looks: usize,
}

#[derive(Debug, Default)]
pub struct Outcomes {
    pub passed: Vec<Quote>,
    pub failed: Vec<Quote>,
    pub unknown: Vec<Quote>,
}

impl Outcomes {
    /// No check of this kind reached the server.
    pub fn is_empty(&self) -> bool {
        self.passed.is_empty() && self.failed.is_empty() && self.unknown.is_empty()
    }

    fn status(&self) -> LedgerStatus {
        if !self.passed.is_empty() {
            LedgerStatus::Passed
        } else if !self.failed.is_empty() {
            LedgerStatus::Failed
        } else if !self.unknown.is_empty() {
            LedgerStatus::Inconclusive
        } else {
            LedgerStatus::NotChecked
        }
    }

    fn evidence(&self) -> Vec<Quote> {
        self.passed
            .iter()
            .chain(&self.failed)
            .chain(&self.unknown)
            .take(3)
            .cloned()
            .collect()
    }
}

/// Every port listing and request that reached the server's port on its host.
pub fn port_view(timeline: &Timeline, server: &Server) -> PortView {
    let mut view = PortView::default();
    let Some(port) = server.port() else {
        return view;
    };
    for checkpoint in observers(timeline, server) {
        // Later looks; the launch's own output is not one.
        view.looks += usize::from(server.launch != Some(checkpoint.id));
        for check in &checkpoint.port_checks {
            if check.port.is_none() && !check.request {
                // A listing of every port (`netstat -ntlp`, `ss -ltn`, not
                // piped through a filter) that shows other ports listening
                // and not this one: the port was checked, and it was not
                // listening.
                let whole = !checkpoint.commands.iter().any(|c| c.piped_from_previous);
                let shown = checkpoint
                    .port_checks
                    .iter()
                    .any(|c| c.port == Some(port) && !c.request);
                if check.outcome == Outcome::Passed
                    && whole
                    && !shown
                    && same_host(checkpoint.host.as_deref(), server.host.as_deref())
                    && server.launch.is_some_and(|l| l < checkpoint.id)
                {
                    // The listing itself is the evidence: the port is not
                    // in it.
                    view.listing.failed.push(checkpoint.command_quote());
                }
                continue;
            }
            if check.port != Some(port) {
                continue;
            }
            // A request must go to the server's host: from the same machine,
            // or to the server's address from elsewhere.
            let here = same_host(checkpoint.host.as_deref(), server.host.as_deref());
            if check.request {
                let target = check.target.as_deref().unwrap_or("");
                let local = matches!(target, "localhost" | "127.0.0.1" | "0.0.0.0" | "[::1]");
                let remote = server
                    .host
                    .as_deref()
                    .is_some_and(|h| same_host(Some(h), Some(target)));
                // A server binding every interface answers at this
                // machine's own address too (the timeline linked the
                // request to it only when no other server is there).
                let wildcard = here && server.settings.binds_every_interface();
                if !(local && here || remote || wildcard) {
                    continue;
                }
            } else if !here {
                continue;
            }
            let quote = check
                .line
                .clone()
                .unwrap_or_else(|| checkpoint.command_quote());
            let outcomes = if check.request {
                &mut view.request
            } else {
                &mut view.listing
            };
            match check.outcome {
                Outcome::Passed => outcomes.passed.push(quote),
                Outcome::Failed => outcomes.failed.push(quote),
                Outcome::Unknown => outcomes.unknown.push(quote),
            }
        }
        if view.bound.is_none() {
            // The line naming the port first (Flask's `Running on
            // http://127.0.0.1:5055` over its `Running on all addresses`).
            let names = |line: &SeenLine<'_>, named: bool| match &line.log.signal {
                Some(Signal::Bound { port: p, .. } | Signal::Ready { port: p }) => {
                    if named {
                        *p == Some(port)
                    } else {
                        p.is_none()
                    }
                }
                _ => false,
            };
            view.bound = [true, false]
                .into_iter()
                .find_map(|named| checkpoint.seen.iter().find(|l| names(l, named)))
                .map(SeenLine::quote);
        }
    }
    view
}

/// The lines the agent saw from this server's checkpoints, with a signal.
fn seen<'t>(timeline: &'t Timeline, server: &Server) -> impl Iterator<Item = SeenLine<'t>> {
    observers(timeline, server).flat_map(|c| c.seen.iter())
}

/// The ledger of a build or a kill: for a build from source, whether it
/// succeeded and whether its product was then checked (imported, listed,
/// version printed); for a kill, whether the GPUs were then seen free. Other
/// checkpoints have none.
pub fn for_checkpoint(timeline: &Timeline, checkpoint: &Checkpoint) -> Vec<LedgerEntry> {
    let mut ledger = Vec::new();
    if let Some(at) = checkpoint.commands.iter().position(builds_product) {
        ledger.push(build_result(checkpoint));
        ledger.push(product_checked(timeline, checkpoint, at));
    }
    // Only a kill of something that may hold GPU memory asks whether the
    // GPUs were freed.
    if checkpoint
        .commands
        .iter()
        .any(|c| is_kill(c) && may_hold_gpus(timeline, checkpoint, c))
    {
        ledger.push(gpus_freed(timeline, checkpoint));
    }
    // A run of the agent's own job (a test suite, a script) that is no
    // build: whether it passed.
    if ledger.is_empty() && super::runs::job_of(timeline, checkpoint).is_some() {
        ledger.push(run_result(checkpoint));
    }
    ledger
}

/// How a run of the agent's own job went, from its exit status and what it
/// printed.
fn run_result(run: &Checkpoint) -> LedgerEntry {
    let (status, detail, evidence) = match super::runs::outcome(run) {
        super::runs::RunOutcome::Failed(line) => (
            LedgerStatus::Failed,
            match run.exit_code {
                Some(code) => format!("exited with status {code}; its output shows the failure"),
                None => "its output ends in a failure".to_owned(),
            },
            vec![line],
        ),
        super::runs::RunOutcome::Passed => (
            LedgerStatus::Passed,
            if run.exit_code == Some(0) {
                "exited with status 0".to_owned()
            } else {
                "no failure in the output the agent saw".to_owned()
            },
            run.output_quote().into_iter().collect(),
        ),
        super::runs::RunOutcome::Unknown => (
            LedgerStatus::Inconclusive,
            if run.exited_badly() {
                "stopped without a result in the transcript".to_owned()
            } else {
                "no output or exit status in the transcript".to_owned()
            },
            vec![run.command_quote()],
        ),
    };
    LedgerEntry {
        check: Check::RunSucceeded,
        status,
        detail,
        evidence,
    }
}

/// The build's own result: exit status, tool error, or the build tool's
/// own success or error line in what the agent saw of its output (the last
/// one of either: a conflict notice before pip's success line is no
/// failure).
fn build_result(build: &Checkpoint) -> LedgerEntry {
    let verdict = build_verdict(build);
    let (status, detail, evidence) = match (build.exit_code, build.is_error, verdict) {
        (Some(code), _, _) if code != 0 => (
            LedgerStatus::Failed,
            format!("exited with status {code}"),
            build.output_quote().into_iter().collect(),
        ),
        (_, true, _) => (
            LedgerStatus::Failed,
            "the tool reported an error".to_owned(),
            build.output_quote().into_iter().collect(),
        ),
        (_, _, Some((line, false))) => (
            LedgerStatus::Failed,
            "its output shows an error".to_owned(),
            vec![line.quote()],
        ),
        (_, _, Some((line, true))) => (
            LedgerStatus::Passed,
            "the build tool's own success line".to_owned(),
            vec![line.quote()],
        ),
        (Some(0), _, None) => (
            LedgerStatus::Passed,
            "exited with status 0".to_owned(),
            vec![build.command_quote()],
        ),
        (_, _, None) if build.output.is_some() => (
            LedgerStatus::Indirect,
            "no error in the output the agent saw; no exit status recorded".to_owned(),
            build.output_quote().into_iter().collect(),
        ),
        _ => (
            LedgerStatus::Inconclusive,
            "no output or exit status in the transcript".to_owned(),
            vec![build.command_quote()],
        ),
    };
    LedgerEntry {
        check: Check::BuildSucceeded,
        status,
        detail,
        evidence,
    }
}

/// A use of what was built, in the build's own call after the build or in
/// a later call on that host before the next launch: an import, listing or
/// version query of it (a check), or a run that loads it (a script that
/// imports it, its console script, a test run, a built binary). Passed,
/// failed (the check failed, or the run could not find or import it), or
/// inconclusive when the transcript has no result of it.
pub fn product_checked(timeline: &Timeline, build: &Checkpoint, at: usize) -> LedgerEntry {
    let names = product_names(build, at);
    let writes_before = |id: usize| -> Vec<&Written> {
        timeline
            .writes
            .iter()
            .filter(|w| w.from <= id && w.span.source == build.span.source)
            .collect()
    };
    let use_in = |c: &Checkpoint, commands: &[crate::shell::SimpleCommand]| {
        let writes = writes_before(c.id);
        commands
            .iter()
            .filter_map(|command| uses_product(command, &names, &writes))
            .min_by_key(|u| *u != Use::Check)
    };
    let here = use_in(build, &build.commands[at + 1..]).map(|u| (build, u));
    let check = here.or_else(|| {
        timeline
            .checkpoints
            .iter()
            .filter(|c| c.id > build.id && c.span.source == build.span.source)
            .filter(|c| same_host(c.host.as_deref(), build.host.as_deref()))
            .take_while(|c| c.kind != CheckpointKind::Launch)
            .find_map(|c| use_in(c, &c.commands).map(|u| (c, u)))
    });
    let Some((check, how)) = check else {
        return LedgerEntry {
            check: Check::ProductChecked,
            status: LedgerStatus::NotChecked,
            detail: "nothing imports, lists or runs what was built".to_owned(),
            evidence: vec![build.command_quote()],
        };
    };
    let failed = product_missing(check) || how == Use::Check && check.exited_badly();
    let unknown = check.output.is_none() && check.exit_code.is_none() && !check.is_error;
    let (status, detail) = if failed {
        (
            LedgerStatus::Failed,
            "the check of what was built failed".to_owned(),
        )
    } else if unknown {
        (
            LedgerStatus::Inconclusive,
            "what was built was used, but the transcript has no result of it".to_owned(),
        )
    } else if how == Use::Run {
        (
            LedgerStatus::Passed,
            "a later run loaded what was built".to_owned(),
        )
    } else {
        (
            LedgerStatus::Passed,
            "what was built was imported, listed or queried".to_owned(),
        )
    };
    LedgerEntry {
        check: Check::ProductChecked,
        status,
        detail,
        evidence: vec![check.command_quote()],
    }
}

/// `nvidia-smi` after the kill, in the same call or later on that host
/// before the next launch.
fn gpus_freed(timeline: &Timeline, kill: &Checkpoint) -> LedgerEntry {
    let mut checks: Vec<&Checkpoint> = Vec::new();
    if gpu_check_after_kill(kill) {
        checks.push(kill);
    }
    checks.extend(
        timeline
            .checkpoints
            .iter()
            .filter(|c| c.id > kill.id && c.span.source == kill.span.source)
            .filter(|c| same_host(c.host.as_deref(), kill.host.as_deref()))
            .take_while(|c| c.kind != CheckpointKind::Launch)
            .filter(|c| c.observations.contains(&Observation::Gpus)),
    );
    let outcomes: Vec<(&Checkpoint, Gpu)> = checks.iter().map(|c| (*c, gpu_outcome(c))).collect();
    let (status, detail, evidence) =
        if let Some((c, _)) = outcomes.iter().find(|(_, o)| *o == Gpu::Free) {
            (
                LedgerStatus::Passed,
                "`nvidia-smi` showed the GPUs free".to_owned(),
                vec![c.output_quote().unwrap_or_else(|| c.command_quote())],
            )
        } else if let Some((c, _)) = outcomes.iter().find(|(_, o)| *o == Gpu::Busy) {
            (
                LedgerStatus::Failed,
                "`nvidia-smi` still showed GPU memory in use".to_owned(),
                vec![c.output_quote().unwrap_or_else(|| c.command_quote())],
            )
        } else if let Some((c, _)) = outcomes.first() {
            (
                LedgerStatus::Inconclusive,
                "`nvidia-smi` ran but its output is not in the transcript".to_owned(),
                vec![c.command_quote()],
            )
        } else {
            (
                LedgerStatus::NotChecked,
                "no `nvidia-smi` after the kill".to_owned(),
                vec![kill.command_quote()],
            )
        };
    LedgerEntry {
        check: Check::GpusFreed,
        status,
        detail,
        evidence,
    }
}

/// The ledger of one server launched in the transcript.
pub fn for_server(timeline: &Timeline, server: &Server) -> Vec<LedgerEntry> {
    let view = port_view(timeline, server);
    // A server known only from its log has no launch to follow up: its
    // ledger holds only the port checks the agent made of it, when it made
    // any (a request refused by a server its log shows up is worth showing).
    let log_only = server.launch.is_none();
    if log_only && [&view.listing, &view.request].iter().all(|o| o.is_empty()) {
        return Vec::new();
    }
    let mut ledger = Vec::new();
    let port = server
        .port()
        .map_or_else(|| "?".to_owned(), |p| p.to_string());

    let (status, evidence) = match (view.listing.status(), &view.bound) {
        (LedgerStatus::NotChecked, Some(bound)) => (LedgerStatus::Indirect, vec![bound.clone()]),
        (status, _) => (status, view.listing.evidence()),
    };
    ledger.push(LedgerEntry {
        check: Check::PortListening,
        status,
        detail: format!("port {port} in a socket listing (`ss`, `netstat`, `lsof`)"),
        evidence,
    });

    let answered = seen(timeline, server).find(|l| {
        matches!(
            l.log.signal,
            Some(Signal::Request {
                status: Some(200..=299)
            })
        )
    });
    let (status, evidence) = match (view.request.status(), answered) {
        (LedgerStatus::NotChecked, Some(line)) => (LedgerStatus::Indirect, vec![line.quote()]),
        (status, _) => (status, view.request.evidence()),
    };
    ledger.push(LedgerEntry {
        check: Check::RequestAnswered,
        status,
        detail: format!("a real request to port {port} answered"),
        evidence,
    });
    if log_only {
        return ledger;
    }

    let failure =
        seen(timeline, server).find(|l| matches!(l.log.signal, Some(Signal::Failure { .. })));
    let ready = seen(timeline, server).find(|l| matches!(l.log.signal, Some(Signal::Ready { .. })));
    let (status, evidence) = match (ready, failure) {
        (Some(line), _) => (LedgerStatus::Passed, vec![line.quote()]),
        (None, Some(line)) => (LedgerStatus::Failed, vec![line.quote()]),
        (None, None) => match &view.bound {
            Some(bound) => (LedgerStatus::Indirect, vec![bound.clone()]),
            None => (LedgerStatus::NotChecked, Vec::new()),
        },
    };
    ledger.push(LedgerEntry {
        check: Check::ReadinessLine,
        status,
        detail: "the engine's own readiness line".to_owned(),
        evidence,
    });

    if server.settings.is_speculative() {
        let line = seen(timeline, server).find(|l| {
            matches!(
                l.log.signal,
                Some(
                    Signal::WeightsEnd { draft: true, .. }
                        | Signal::CudaGraphEnd { draft: true }
                        | Signal::DraftAccepting
                )
            )
        });
        ledger.push(LedgerEntry {
            check: Check::DrafterLoaded,
            status: if line.is_some() {
                LedgerStatus::Passed
            } else {
                LedgerStatus::NotChecked
            },
            detail: "the draft model's load, graph or acceptance line".to_owned(),
            evidence: line.map(SeenLine::quote).into_iter().collect(),
        });
    }

    let expected = server.ranks_wanted();
    if expected > 1 {
        let mut ranks: Vec<&str> = seen(timeline, server)
            .filter_map(|l| l.rank.or(l.log.rank.as_deref()))
            .collect();
        if implies_ray_driver(ranks.iter().copied()) {
            // The untagged driver, as the rank count counts it.
            ranks.push(RAY_DRIVER);
        }
        ranks.sort_unstable();
        ranks.dedup();
        // Short of a count, the engine's readiness line or a request its log
        // shows answered says every rank is up (no engine serves with a rank
        // missing); a request to the port could have reached another server.
        let whole = ready
            .or(answered)
            .or_else(|| {
                seen(timeline, server).find(|l| {
                    l.log
                        .signal
                        .as_ref()
                        .is_some_and(|s| s.shows_serving(server.engine))
                })
            })
            .map(|line| vec![line.quote()]);
        let (status, evidence) = if ranks.len() >= expected as usize {
            (LedgerStatus::Passed, Vec::new())
        } else if let Some(evidence) = whole {
            (LedgerStatus::Indirect, evidence)
        } else {
            (LedgerStatus::NotChecked, Vec::new())
        };
        ledger.push(LedgerEntry {
            check: Check::AllRanksUp,
            status,
            detail: format!("{} of {expected} ranks seen", ranks.len()),
            evidence,
        });
    }

    if let Some(path) = &server.log_path {
        let scanned = observers(timeline, server).find(|c| {
            matches!(
                c.reads(path),
                Some(Window::All)
                    | Some(Window::Grep {
                        inverted: false,
                        ..
                    })
            ) && c.reads(path).is_some_and(scans_for_errors)
        });
        let status = match (failure, scanned) {
            (Some(_), _) => LedgerStatus::Failed,
            (None, Some(_)) => LedgerStatus::Passed,
            (None, None) => LedgerStatus::NotChecked,
        };
        let evidence = failure
            .map(SeenLine::quote)
            .or_else(|| scanned.map(|c| c.command_quote()))
            .into_iter()
            .collect();
        ledger.push(LedgerEntry {
            check: Check::ErrorsScanned,
            status,
            detail: format!("the whole of {path} searched for errors"),
            evidence,
        });
    }
    ledger
}

/// Whether a read covers the whole file for errors: `cat`, or a `grep` for
/// error words.
fn scans_for_errors(window: &Window) -> bool {
    match window {
        Window::All => true,
        Window::Grep {
            pattern,
            inverted: false,
        } => {
            let lower = pattern.to_ascii_lowercase();
            ["error", "traceback", "exception", "fail", "killed"]
                .iter()
                .any(|w| lower.contains(w))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    /// The timeline of one pasted source.
    fn timeline_of(text: &str) -> Timeline {
        let source = Source::new("t.txt", text);
        let format = crate::parse::detect(text);
        let parsed = vec![(format, true, crate::parse::parse(&source, 0, format))];
        crate::timeline::build(&[&source], parsed)
    }

    fn ledger(text: &str) -> Vec<(Check, LedgerStatus)> {
        let timeline = timeline_of(text);
        for_server(&timeline, &timeline.servers[0])
            .into_iter()
            .map(|e| (e.check, e.status))
            .collect()
    }

    fn build_ledger(text: &str) -> Vec<Vec<(Check, LedgerStatus)>> {
        let timeline = timeline_of(text);
        timeline
            .checkpoints
            .iter()
            .map(|c| {
                // Runs have a test of their own.
                for_checkpoint(&timeline, c)
                    .into_iter()
                    .filter(|e| e.check != Check::RunSucceeded)
                    .map(|e| (e.check, e.status))
                    .collect::<Vec<_>>()
            })
            .filter(|l| !l.is_empty())
            .collect()
    }

    /// The run checks of a pasted session, one per checkpoint that has one.
    fn run_ledger(text: &str) -> Vec<LedgerStatus> {
        let timeline = timeline_of(text);
        timeline
            .checkpoints
            .iter()
            .flat_map(|c| for_checkpoint(&timeline, c))
            .filter(|e| e.check == Check::RunSucceeded)
            .map(|e| e.status)
            .collect()
    }

    /// A listing of every port in the container, with others listening and
    /// not the server's: the port was checked, and it failed. Piped through
    /// a filter, the listing says nothing of the ports it left out.
    #[test]
    fn a_whole_listing_without_the_port_is_a_failed_check() {
        let status = |text: &str| {
            let timeline = timeline_of(text);
            let server = timeline.servers.first().expect("the server");
            for_server(&timeline, server)
                .into_iter()
                .find(|e| e.check == Check::PortListening)
                .map(|e| e.status)
        };
        let launch = "$ docker run -d -p 8000:8000 --name vllm-openai vllm/vllm-openai --model m --port 8000\n5d6972460ce0\n";
        let listing = "$ docker exec -it vllm-openai netstat -ntlp\nActive Internet connections (only servers)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name\ntcp        0      0 172.17.0.2:37769        0.0.0.0:*               LISTEN      1/python3\n";
        assert_eq!(
            status(&format!("{launch}{listing}")),
            Some(LedgerStatus::Failed)
        );
        let filtered = "$ netstat -ntlp | grep python3\ntcp        0      0 172.17.0.2:37769        0.0.0.0:*               LISTEN      1/python3\n";
        assert_eq!(
            status(&format!("{launch}{filtered}")),
            Some(LedgerStatus::NotChecked)
        );
    }

    #[test]
    fn runs_of_the_agents_jobs_pass_or_fail_by_what_they_printed() {
        use LedgerStatus::*;
        // A test binary aborting at the end of a pipe (no exit status), a
        // mocha summary with a failure, a built binary never found, then a
        // clean pytest run. Lookups (`grep`, `python -c`) are no runs.
        let text = "$ ./tests/vsla_tests | head -20\n\
                    Running test_gpu_tensor_memory...\n\
                    malloc(): invalid size (unsorted)\n\
                    $ npm test\n\
                    \x20 12 passing (5s)\n\
                    \x20 1 failing\n\
                    $ ./build/bin/app\n\
                    bash: ./build/bin/app: No such file or directory\n\
                    $ grep -n error build.log\n\
                    $ python -c 'import torch'\n\
                    ModuleNotFoundError: No module named 'torch'\n\
                    $ pytest -q\n\
                    ........ [100%]\n\
                    8 passed in 0.41s\n";
        assert_eq!(run_ledger(text), [Failed, Failed, Failed, Passed]);
        // A traceback the run got past (a retried download) is no failure
        // when the run goes on and ends well.
        let text = "$ python train.py\n\
                    Traceback (most recent call last):\n\
                    \x20 File \"dl.py\", line 3, in <module>\n\
                    ConnectionError: retrying\n\
                    epoch 1 loss 0.9\n\
                    epoch 2 loss 0.7\n\
                    epoch 3 loss 0.5\n\
                    epoch 4 loss 0.4\n\
                    epoch 5 loss 0.3\n\
                    saved checkpoint to out/\n";
        assert_eq!(run_ledger(text), [Passed]);
    }

    #[test]
    fn builds_read_their_tools_success_and_error_lines_and_later_uses() {
        use LedgerStatus::*;
        // pip's conflict notice comes before its success line; the console
        // script of what it installed is a use of it.
        let text = "$ pip install -e .\n\
                    ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n\
                    Successfully built mytool\n\
                    Successfully installed mytool-0.1.0 requests-2.0.0\n\
                    $ mytool --help\n\
                    usage: mytool [-h]\n";
        assert_eq!(
            build_ledger(text),
            [[
                (Check::BuildSucceeded, Passed),
                (Check::ProductChecked, Passed)
            ]]
        );
        // make stops on an error after building some targets; the built
        // binary is then not found.
        let text = "$ make -j8\n\
                    [ 50%] Built target util\n\
                    make: *** [Makefile:12: all] Error 2\n\
                    $ ./build/bin/app\n\
                    bash: ./build/bin/app: No such file or directory\n";
        assert_eq!(
            build_ledger(text),
            [[
                (Check::BuildSucceeded, Failed),
                (Check::ProductChecked, Failed)
            ]]
        );
        // A script run is no use of a package unless the transcript shows
        // the script importing it.
        let text = "$ cargo build --release\n\
                    Finished `release` profile [optimized] target(s) in 1m 02s\n\
                    $ python plot.py\n\
                    done\n";
        assert_eq!(
            build_ledger(text),
            [[
                (Check::BuildSucceeded, Passed),
                (Check::ProductChecked, NotChecked)
            ]]
        );
    }

    #[test]
    fn three_outcomes_stay_apart() {
        let text = "$ python -m sglang.launch_server --model-path /m --tp 2 --port 30000 > s.log 2>&1 &\n\
                    $ ss -ltnp | grep :30000\n\
                    LISTEN 0 4096 127.0.0.1:30000 0.0.0.0:*\n\
                    $ curl -s localhost:30000/health\n\
                    curl: (7) Failed to connect to localhost port 30000\n\
                    $ grep -n Traceback s.log\n";
        assert_eq!(
            ledger(text),
            [
                (Check::PortListening, LedgerStatus::Passed),
                (Check::RequestAnswered, LedgerStatus::Failed),
                (Check::ReadinessLine, LedgerStatus::NotChecked),
                (Check::AllRanksUp, LedgerStatus::NotChecked),
                (Check::ErrorsScanned, LedgerStatus::Passed),
            ]
        );
    }
}

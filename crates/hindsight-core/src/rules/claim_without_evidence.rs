//! `claim-without-evidence`: the agent's prose asserts a server or GPU state
//! (ready, loaded, all ranks up, drafter active, port listening, GPUs free)
//! that nothing it saw before writing it supports.
//!
//! Wording alone is never the finding: a claim counts only after the action
//! it is about (a launch for server states, a kill for free GPUs), and only
//! when no observation between that action and the claim shows the state. A
//! claim the observations contradict (a traceback seen, a port refused, GPUs
//! still busy) is reported as failed, not as unchecked. Which sentences
//! claim what, in which words and languages, and which hedges (`not`, `if`,
//! `once`, `should … in a minute`, questions) void a claim is read by
//! [`crate::claims`].

use super::{CheckStatus, Finding, Rule, Severity, and_list, at_prose, log_path_or_hint, on_host};
use crate::claims::{Claim, claims};
use crate::facts::gpus::{Outcome as Gpu, gpu_outcome};
use crate::parse::{Role, Signal};
use crate::timeline::{Checkpoint, CheckpointKind, Observation, Outcome, Prose, Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "claim-without-evidence",
    title: "A stated server or GPU state that no observation supports",
    severity: Severity::Warning,
    why: "An agent's summary is what the next person (or agent) acts on. \"The \
server is up with the drafter, all 8 ranks loaded, GPUs freed\" reads like a \
result, but if no readiness line, request, rank count, drafter line or \
`nvidia-smi` was seen before it was written, it is a guess. Claims made after \
an action and before any check of it are exactly where failed launches hide.",
    example: "After launching SGLang and seeing the weights reach 100%, the agent \
writes \"The server is up with the EAGLE-3 drafter\". It never saw a readiness \
line, never sent a request and never saw a drafter line.",
    check: "Make the observation the claim rests on, then write the claim: \
`curl -sS -m 5 http://127.0.0.1:PORT/v1/models` for ready, `grep -c` of the rank \
tags for ranks, the engine's drafter lines for the drafter, `ss -ltnp` for a port, \
`nvidia-smi --query-gpu=index,memory.used --format=csv` for free GPUs.",
    run,
};

impl Claim {
    fn describe(self) -> String {
        self.stated()
    }

    fn missing(self) -> &'static str {
        match self {
            Claim::Ready => "no readiness line, answered request or listening port",
            Claim::Loaded => "no weights-loaded or later startup line and no answered request",
            Claim::Drafter => "no drafter load, draft CUDA graph or acceptance line",
            Claim::Ranks => "no count of the rank tags and no readiness line",
            Claim::Port(_) => "no socket listing or request on that port",
            Claim::GpusFree => "no `nvidia-smi` after the kill",
        }
    }
}

fn run(timeline: &Timeline) -> Vec<Finding> {
    // A state claimed again later is the same unchecked claim: reported once,
    // at its first statement after the action, with each later statement
    // of it cited too (a summary repeating "the server runs fine"). Once the
    // user has spoken in between (often to say it does not work), saying it
    // again is a new claim and a finding of its own.
    let mut reported: Vec<(Key, usize)> = Vec::new();
    let mut findings = Vec::new();
    // The user turns of each source so far (prose comes in the order of its
    // source's lines).
    let mut user_turns: Vec<usize> = Vec::new();
    for prose in &timeline.prose {
        let source = prose.span.source;
        if user_turns.len() <= source {
            user_turns.resize(source + 1, 0);
        }
        match prose.role {
            Role::User => user_turns[source] += 1,
            Role::Assistant => {
                let turns = user_turns[source];
                if let Some(finding) = check(timeline, prose, turns, &mut reported, &mut findings) {
                    findings.push(finding);
                }
            }
            Role::Unknown => {}
        }
    }
    findings
}

/// Whether the message says it is about to check ("The container is
/// started. Checking that it runs and reading its logs:") and the agent's
/// next step is that look: a step on the way, not a conclusion.
fn checks_next(timeline: &Timeline, prose: &Prose) -> bool {
    let said = prose.said.to_ascii_lowercase();
    let announces = [
        "checking",
        "let me check",
        "let me verify",
        "verifying",
        "i'll check",
        "i will check",
        "i'll verify",
        "i will verify",
        "to confirm",
    ]
    .iter()
    .any(|w| said.contains(w));
    announces
        && timeline
            .checkpoints
            .iter()
            .find(|c| c.span.source == prose.span.source && c.span.start >= prose.span.end)
            .is_some_and(|c| c.kind == CheckpointKind::Verify)
}

/// Whether the user's last words before the message, with no launch or
/// kill since, say it works ("perfect, works now"): the human looked, and
/// the agent's "the app now runs" repeats what they saw.
fn confirmed_by_user(timeline: &Timeline, prose: &Prose) -> bool {
    let source = prose.span.source;
    let Some(user) = timeline.prose.iter().rev().find(|p| {
        p.role == Role::User && p.span.source == source && p.span.end <= prose.span.start
    }) else {
        return false;
    };
    let acted_since = timeline.checkpoints.iter().any(|c| {
        c.span.source == source
            && c.span.start > user.span.start
            && c.span.start < prose.span.start
            && matches!(c.kind, CheckpointKind::Launch | CheckpointKind::Kill)
    });
    if acted_since {
        return false;
    }
    let said = user.said.to_lowercase();
    let confirms = [
        "works",
        "worked",
        "working",
        "it's up",
        "it is up",
        "loads now",
    ]
    .iter()
    .any(|w| said.contains(w));
    let denies = [
        "not ",
        "n't",
        "no longer",
        "still fail",
        "error",
        "broken",
        "fails",
        "failed",
    ]
    .iter()
    .any(|w| said.contains(w));
    // Only a short answer is a confirmation; a long message that says
    // "works" is about more than this.
    confirms && !denies && said.split_whitespace().count() <= 12
}

/// What makes two statements one claim: the action the claim is about, the
/// state claimed, and how many user turns of its source came before it.
type Key = (usize, Claim, usize);

/// What the checks the agent made before the claim say about it.
#[derive(Debug, PartialEq, Eq)]
enum Support {
    Shown,
    Contradicted,
    /// A check was made but the transcript lacks its result.
    Unknown,
    Missing,
    /// Nothing since the agent itself stopped the server.
    StoppedSince,
}

fn check(
    timeline: &Timeline,
    prose: &Prose,
    user_turns: usize,
    reported: &mut Vec<(Key, usize)>,
    findings: &mut [Finding],
) -> Option<Finding> {
    let claims = claims(&prose.said);
    if claims.is_empty() || checks_next(timeline, prose) || confirmed_by_user(timeline, prose) {
        return None;
    }
    let before =
        |c: &&Checkpoint| c.span.source == prose.span.source && c.span.start < prose.span.start;
    let checkpoints: Vec<&Checkpoint> = timeline.checkpoints.iter().filter(before).collect();
    let launch = checkpoints
        .iter()
        .rev()
        .find(|c| c.kind == CheckpointKind::Launch)
        .copied();
    let kill = checkpoints
        .iter()
        .rev()
        .find(|c| c.kind == CheckpointKind::Kill)
        .copied();
    let server = launch.and_then(|l| timeline.servers.iter().find(|s| s.launch == Some(l.id)));
    // "Up on :8000" of a server launched on 8000 is one claim, judged as
    // ready; a port other than the server's stays a claim of its own.
    let own_port = server.and_then(Server::port);
    let ready = claims.contains(&Claim::Ready);
    // A server whose port nothing told is said to be up at the one port
    // named with it ("running on http://localhost:5173/"): one claim too.
    // Several ports name several services, each a claim of its own.
    let ports = claims
        .iter()
        .filter(|c| matches!(c, Claim::Port(_)))
        .count();
    let claims = claims.into_iter().filter(|claim| {
        !(ready
            && matches!(claim, Claim::Port(p)
                if own_port.map_or(ports == 1, |own| own == *p)))
    });
    let mut unsupported: Vec<(Claim, Support)> = Vec::new();
    for claim in claims {
        // A claim is judged against the observations made after the action
        // it is about; with no such action in the transcript it is prose about
        // something else, not a claim about this session's work.
        let action = match claim {
            Claim::GpusFree => kill,
            // A port is about the server launched on it, when one was:
            // "the coordination server listens on 3444 and vLLM is up".
            Claim::Port(port) => checkpoints
                .iter()
                .rev()
                .find(|c| {
                    c.kind == CheckpointKind::Launch
                        && timeline
                            .servers
                            .iter()
                            .any(|s| s.launch == Some(c.id) && s.port() == Some(port))
                })
                .copied()
                .or(launch),
            _ => launch,
        };
        let Some(action) = action else {
            continue;
        };
        // A server the agent itself stopped since is no longer shown by
        // what it saw before the stop: "run.sh brings the server up", written
        // after `pkill uvicorn`, rests on nothing.
        let stopped = match claim {
            Claim::GpusFree => None,
            _ => server
                .and_then(|s| s.stopped_by)
                .filter(|&k| k >= action.id && checkpoints.iter().any(|c| c.id == k)),
        };
        let since: Vec<&Checkpoint> = checkpoints
            .iter()
            .filter(|c| c.id >= action.id && stopped.is_none_or(|k| c.id > k))
            .copied()
            .collect();
        let support = match support(claim, &since, server) {
            Support::Missing if stopped.is_some() => Support::StoppedSince,
            other => other,
        };
        if support == Support::Shown {
            continue;
        }
        let key = (action.id, claim, user_turns);
        match reported.iter().find(|(k, _)| *k == key) {
            Some(&(_, index)) => {
                // Said again: one more line of the same finding.
                if let Some(finding) = findings.get_mut(index) {
                    let quote = prose.quote();
                    if !finding.evidence.iter().any(|q| q.span == quote.span) {
                        finding.evidence.push(quote);
                    }
                }
            }
            None => {
                reported.push((key, findings.len()));
                unsupported.push((claim, support));
            }
        }
    }
    if unsupported.is_empty() {
        return None;
    }
    let failed = unsupported.iter().any(|(_, s)| *s == Support::Contradicted);
    let unknown = unsupported.iter().all(|(_, s)| *s == Support::Unknown);
    let stated: Vec<String> = unsupported.iter().map(|(c, _)| c.describe()).collect();
    let missing: Vec<String> = unsupported
        .iter()
        .map(|(claim, support)| match support {
            Support::Contradicted => format!("{}: what it saw says otherwise", claim.describe()),
            Support::Unknown => format!(
                "{}: a check was made but its result is not in the transcript",
                claim.describe()
            ),
            Support::StoppedSince => format!(
                "{}: the agent stopped that server after its last look, and saw nothing of \
                 it since",
                claim.describe()
            ),
            _ => format!("{}: {}", claim.describe(), claim.missing()),
        })
        .collect();
    let mut evidence = vec![prose.quote()];
    let action = if unsupported.iter().all(|(c, _)| *c == Claim::GpusFree) {
        kill
    } else {
        launch
    };
    if let Some(action) = action {
        evidence.push(action.command_quote());
    }
    let host = action.and_then(|a| a.host.as_deref());
    Some(Finding {
        rule: RULE.id,
        severity: if failed {
            Severity::Error
        } else {
            RULE.severity
        },
        status: if failed {
            CheckStatus::Failed
        } else if unknown {
            CheckStatus::Inconclusive
        } else {
            CheckStatus::NotChecked
        },
        message: format!(
            "The agent wrote that {}{}, but nothing it saw before supports it ({}).",
            and_list(&stated),
            at_prose(prose),
            missing.join("; ")
        ),
        evidence,
        suggestion: on_host(host, &suggestion(&unsupported, server)),
        server: server.map(|s| s.id),
    })
}

/// Whether the checkpoints since the action show, contradict or miss a claim.
fn support(claim: Claim, since: &[&Checkpoint], server: Option<&Server>) -> Support {
    let signals = || {
        since
            .iter()
            .flat_map(|c| c.seen.iter())
            .filter_map(|l| l.log.signal.as_ref())
    };
    let port_ok = |port: Option<u16>| {
        since.iter().flat_map(|c| &c.port_checks).any(|check| {
            check.outcome == Outcome::Passed
                && (port.is_none() || check.port == port || check.port.is_none())
        })
    };
    // An answered request: later than the weights, for every engine (a
    // listening port is not: llama.cpp binds before it loads).
    let answered = |port: Option<u16>| {
        since.iter().flat_map(|c| &c.port_checks).any(|check| {
            check.request
                && check.outcome == Outcome::Passed
                && (port.is_none() || check.port == port || check.port.is_none())
        })
    };
    let port_failed = |port: Option<u16>| {
        since
            .iter()
            .flat_map(|c| &c.port_checks)
            .any(|check| check.outcome == Outcome::Failed && (port.is_none() || check.port == port))
    };
    let failure_seen = || signals().any(|s| matches!(s, Signal::Failure { .. }));
    // The engine's own signs of serving (see `Signal::shows_serving`), or a
    // bound port.
    let engine = server.map_or(crate::Engine::Unknown, |s| s.engine);
    let ready_seen =
        || signals().any(|s| s.shows_serving(engine) || matches!(s, Signal::Bound { .. }));
    let port = server.and_then(Server::port);
    let (shown, contradicted) = match claim {
        Claim::Ready => (
            ready_seen() || port_ok(port),
            failure_seen() || port_failed(port),
        ),
        Claim::Loaded => (
            ready_seen()
                || answered(port)
                || signals().any(|s| {
                    matches!(
                        s,
                        Signal::ShardProgress { percent: 100, .. }
                            | Signal::WeightsEnd { draft: false, .. }
                            | Signal::KvCacheAllocated
                            | Signal::CudaGraphEnd { .. }
                    )
                }),
            failure_seen(),
        ),
        Claim::Drafter => (
            signals().any(|s| {
                matches!(
                    s,
                    Signal::WeightsEnd { draft: true, .. }
                        | Signal::CudaGraphEnd { draft: true }
                        | Signal::DraftAccepting
                )
            }),
            failure_seen(),
        ),
        Claim::Ranks => {
            let expected = server.map_or(2, |s| s.ranks_wanted().max(1));
            // Inserted one by one (`extend`), not collected: collecting
            // sorts first, and that sort's code would be one more copy in
            // the web page for a handful of ranks.
            let mut ranks = std::collections::BTreeSet::<&str>::new();
            ranks.extend(
                since
                    .iter()
                    .flat_map(|c| c.seen.iter())
                    .filter_map(|l| l.rank.or(l.log.rank.as_deref())),
            );
            (
                ready_seen() || ranks.len() >= expected as usize,
                failure_seen(),
            )
        }
        Claim::Port(claimed) => (
            port_ok(Some(claimed))
                || signals()
                    .any(|s| matches!(s, Signal::Bound { port: Some(p), .. } if *p == claimed)),
            port_failed(Some(claimed)),
        ),
        Claim::GpusFree => {
            let gpu: Vec<Gpu> = since
                .iter()
                .filter(|c| c.observations.contains(&Observation::Gpus))
                .map(|c| gpu_outcome(c))
                .collect();
            (gpu.contains(&Gpu::Free), gpu.last() == Some(&Gpu::Busy))
        }
    };
    let unknown = matches!(claim, Claim::Ready | Claim::Port(_))
        && since
            .iter()
            .flat_map(|c| &c.port_checks)
            .any(|check| check.outcome == Outcome::Unknown);
    if shown {
        Support::Shown
    } else if contradicted {
        Support::Contradicted
    } else if unknown {
        Support::Unknown
    } else {
        Support::Missing
    }
}

/// The commands that would have backed each claim.
fn suggestion(claims: &[(Claim, Support)], server: Option<&Server>) -> String {
    // The port the agent named, when the server's is not known.
    let claimed = claims.iter().find_map(|(claim, _)| match claim {
        Claim::Port(p) => Some(*p),
        _ => None,
    });
    let log = server.map_or_else(|| "<server log>".to_owned(), log_path_or_hint);
    let mut commands: Vec<String> = Vec::new();
    for (claim, _) in claims {
        let command = match claim {
            Claim::Ready => super::request_check(server, claimed),
            Claim::Loaded => format!(
                "grep -nE 'checkpoint shards: 100%|Loading weights took|Load weight end' {log} | tail -3"
            ),
            Claim::Drafter => format!("grep -niE 'draft|eagle|accept len' {log} | tail -5"),
            Claim::Ranks => format!("grep -oE '\\b(TP|DP|PP|EP)[0-9]+\\b' {log} | sort -u"),
            Claim::Port(p) => format!("ss -ltnp | grep ':{p} '"),
            Claim::GpusFree => "nvidia-smi --query-gpu=index,memory.used --format=csv".to_owned(),
        };
        if !commands.contains(&command) {
            commands.push(command);
        }
    }
    commands.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(transcript: &str) -> Vec<(String, crate::rules::CheckStatus)> {
        crate::analyze(&[crate::Source::new("t.txt", transcript)])
            .findings
            .into_iter()
            .filter(|f| f.rule == RULE.id)
            .map(|f| (f.message, f.status))
            .collect()
    }

    const LAUNCH: &str = "[msg 1] assistant\n$ nohup python3 -m sglang.launch_server --model-path /m --tp 2 --port 30000 > /tmp/s.log 2>&1 &\n";

    #[test]
    fn a_claim_after_a_passed_check_is_fine() {
        let text = format!(
            "{LAUNCH}[msg 2] assistant\n$ curl -s http://127.0.0.1:30000/v1/models\n{{\"object\":\"list\",\"data\":[{{\"id\":\"/m\"}}]}}\n[msg 3] assistant\nThe server is up and serving on port 30000.\n"
        );
        assert_eq!(findings(&text), []);
    }

    /// "perfect, works now" from the user is a look the agent did not take:
    /// the agent repeating it claims nothing unseen. A longer message, or
    /// one that says it still fails, is no such look.
    #[test]
    fn a_users_short_confirmation_backs_the_claim_after_it() {
        for (user, flagged) in [
            ("perfect, works now", false),
            ("it still fails with the same error", true),
            ("works now but the page is not loading", true),
        ] {
            let text = format!(
                "{LAUNCH}[msg 2] user\n{user}\n[msg 3] assistant\nGreat. The server is up and running.\n"
            );
            assert_eq!(!findings(&text).is_empty(), flagged, "{user}");
        }
    }

    #[test]
    fn a_claim_with_nothing_seen_is_not_checked_and_reported_once() {
        let text = format!(
            "{LAUNCH}[msg 2] assistant\nThe server is up.\n[msg 3] assistant\nSince the server is up, benchmarking.\n"
        );
        let found = findings(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].0.contains("(msg 2)"), "{found:?}");
        assert_eq!(found[0].1, crate::rules::CheckStatus::NotChecked);
    }

    #[test]
    fn a_claim_against_a_seen_traceback_failed() {
        let text = format!(
            "{LAUNCH}[msg 2] assistant\n$ tail -3 /tmp/s.log\nTraceback (most recent call last):\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n[msg 3] assistant\nThe server is running.\n"
        );
        let found = findings(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, crate::rules::CheckStatus::Failed);
    }

    #[test]
    fn free_gpus_need_nvidia_smi_after_the_kill() {
        let kill = "[msg 1] assistant\n$ pkill -f vllm\n";
        let claim = "[msg 3] assistant\nThe GPUs are free now.\n";
        let unchecked = format!("{kill}{claim}");
        assert_eq!(findings(&unchecked).len(), 1);
        let checked = format!(
            "{kill}[msg 2] assistant\n$ nvidia-smi --query-gpu=index,memory.used --format=csv\nindex, memory.used [MiB]\n0, 3 MiB\n1, 3 MiB\n{claim}"
        );
        assert_eq!(findings(&checked), []);
    }

    #[test]
    fn claims_in_other_words_and_languages_count_and_hedges_do_not() {
        for claim in [
            "Server came up fine, should be good to go.",
            "It's up on :30000 and serving.",
            "✅ Server running",
            "服务已启动，正在运行。",
            "サーバーが起動しました。",
            "서버가 실행 중입니다.",
            "Der Server läuft.",
            "Le serveur est prêt.",
            "El servidor está funcionando.",
            "O servidor está rodando.",
            "Сервер запущен и работает.",
        ] {
            let text = format!("{LAUNCH}[msg 2] assistant\n{claim}\n");
            assert_eq!(findings(&text).len(), 1, "{claim}");
        }
        for hedge in [
            "It should be ready in a few minutes.",
            "Once it's up I'll run the benchmark.",
            "服务还没启动成功。",
            "サーバーはまだ稼働中ではありません。",
            "Der Server läuft noch nicht.",
            "Le serveur n'est pas encore prêt.",
            "El servidor todavía no está listo.",
            "Сервер ещё не запущен.",
        ] {
            let text = format!("{LAUNCH}[msg 2] assistant\n{hedge}\n");
            assert_eq!(findings(&text), [], "{hedge}");
        }
    }

    #[test]
    fn a_port_other_than_the_servers_is_a_claim_of_its_own() {
        let checked = format!(
            "{LAUNCH}[msg 2] assistant\n$ curl -s http://127.0.0.1:30000/v1/models\n{{\"object\":\"list\",\"data\":[{{\"id\":\"/m\"}}]}}\n"
        );
        let same = format!("{checked}[msg 3] assistant\nIt is up on :30000.\n");
        assert_eq!(findings(&same), []);
        let other = format!("{checked}[msg 3] assistant\nIt is up on :8085.\n");
        let found = findings(&other);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].0.contains("port 8085 is listening"), "{found:?}");
    }

    #[test]
    fn a_server_of_unknown_port_said_up_at_one_url_is_one_claim() {
        let launch = "[msg 1] assistant\n$ yarn dev\nError: Command timed out after 10s\n";
        let one = format!(
            "{launch}[msg 2] assistant\nThe dev server is running at http://localhost:5173/.\n"
        );
        let found = findings(&one);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(!found[0].0.contains("port 5173"), "{found:?}");
        let two = format!(
            "{launch}[msg 2] assistant\nThe API is up and listening on :8000, and the UI is listening on :5321.\n"
        );
        let found = findings(&two);
        assert!(
            found
                .iter()
                .any(|f| f.0.contains("port 8000") && f.0.contains("port 5321")),
            "{found:?}"
        );
    }

    #[test]
    fn prose_without_an_action_is_not_a_claim() {
        assert_eq!(findings("[msg 1] assistant\nThe server is up.\n"), []);
    }
}

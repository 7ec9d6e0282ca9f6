//! `port-unchecked`: a server was launched on a port, and nothing the agent
//! saw shows the port listening or answering.

use super::{
    CheckStatus, Finding, Rule, Severity, describe, launch_quote, launch_ref, observers, on_host,
};
use crate::timeline::{Server, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "port-unchecked",
    title: "Server launched, but its port was never seen listening or answering",
    severity: Severity::Warning,
    why: "A launch command returning, a live process or a log that stops at \
\"100% Completed\" do not show that a server accepts connections. Engines do \
minutes of work after loading weights (KV cache, CUDA graphs, warm-up) and can \
hang or die before they bind the port. Until a socket listing shows the port \
listening, a request gets an answer, or the log shows the HTTP server bound, \
\"the server is up\" is an assumption.",
    example: "The agent starts `python -m sglang.launch_server ... --port 8000 > \
server.log 2>&1 &`, then runs `tail -5 server.log` and `ps aux | grep sglang` a \
few times and moves on. No `ss`, `curl` or `Uvicorn running on` line ever \
appears in its output.",
    check: "List the listening sockets on the server's host and send one real \
request: `ss -ltnp | grep :PORT` and `curl -sS -m 5 http://127.0.0.1:PORT/v1/models`.",
    run,
};

/// A server launched on a port nothing names (`python app.py`, a script
/// of the agent's own): not checked when no port listing and no request
/// of any kind came after its launch on its host, and nothing shows it
/// serving. Any such check may have been of this server, so then nothing
/// is said.
fn unknown_port(timeline: &Timeline, server: &Server) -> Option<Finding> {
    let launch_id = server.launch?;
    // Serving, failed, or ended by its own error (`docker compose up -d`
    // that could not reach the daemon): no port to check. One stopped by
    // a signal later (Ctrl-C, a kill, the session's end) did run.
    let failed_start = server.exited.is_some_and(|c| !matches!(c, 130 | 137 | 143))
        || timeline.checkpoints[launch_id]
            .exit_code
            .is_some_and(|c| c != 0 && !timeline.checkpoints[launch_id].background);
    if server.ready() == Some(true) || server.lifecycle.failure.is_some() || failed_start {
        return None;
    }
    use crate::timeline::classify::Observation;
    let same_host = |c: &&crate::timeline::Checkpoint| {
        crate::timeline::same_host(c.host.as_deref(), server.host.as_deref())
    };
    let probe = |o: &Observation| {
        matches!(
            o,
            Observation::PortListing { .. } | Observation::Http { .. }
        )
    };
    // In the launch's own call only what runs after the launch looks at it:
    // `lsof -i :3001 -t | xargs kill -9; nohup bun run server.ts &` frees
    // the port first, and sees nothing of the new server.
    let launch = &timeline.checkpoints[launch_id];
    let after_launch = launch
        .launching_command()
        .map_or(&launch.commands[..], |at| &launch.commands[at + 1..]);
    let probed = crate::timeline::classify::observations(after_launch)
        .iter()
        .any(probe)
        || timeline.checkpoints[launch_id + 1..]
            .iter()
            .filter(same_host)
            .any(|c| c.observations.iter().any(probe))
        // A container listing, before or after (a stack relaunched is the
        // same stack), shows which ports a stack publishes: none, for a
        // bot that only polls out.
        || timeline
            .checkpoints
            .iter()
            .filter(same_host)
            .any(|c| c.observations.contains(&Observation::Containers));
    if probed {
        return None;
    }
    let launch = launch_quote(timeline, server)?;
    Some(Finding {
        rule: RULE.id,
        severity: RULE.severity,
        status: CheckStatus::NotChecked,
        message: format!(
            "The {} was launched{} on a port its command does not name, and the agent never \
             listed the listening ports or sent it a request: which port it serves on, and \
             whether it serves at all, was never seen.",
            describe(server),
            launch_ref(timeline, server),
        ),
        evidence: vec![launch],
        suggestion: on_host(
            server.host.as_deref(),
            "ss -ltnp  # find the port the process listens on, then: curl -sS -m 5 http://127.0.0.1:PORT/",
        ),
        server: Some(server.id),
    })
}

fn run(timeline: &Timeline) -> Vec<Finding> {
    super::each_launched_server(timeline, check)
}

fn check(timeline: &Timeline, server: &Server) -> Option<Finding> {
    let Some(port) = server.port() else {
        return unknown_port(timeline, server);
    };
    // A start test (`timeout 5 uvicorn …`, in the foreground): the server
    // is meant to stop when the timeout ends, so whether it started is the
    // question (its readiness line), not whether its port serves later.
    let start_test = server
        .launch
        .and_then(|l| timeline.checkpoints.get(l))
        .is_some_and(|c| {
            c.commands.iter().any(|command| {
                !command.background
                    && command.wrappers.iter().any(|w| w == "timeout")
                    && (crate::engine::launch_from_argv(&command.argv).is_some()
                        || crate::other_servers::launch(command).is_some())
            })
        });
    // Launched again on the same host and port later: whether that port
    // serves is the later server's question, asked once (a failed start
    // the agent replaced is not a second unchecked port).
    let relaunched = timeline.servers.iter().any(|later| {
        later.launch > server.launch
            && later.port() == Some(port)
            && crate::timeline::same_host(later.host.as_deref(), server.host.as_deref())
    });
    if start_test || relaunched {
        return None;
    }
    let launch = launch_quote(timeline, server)?;
    let view = crate::facts::ledger::port_view(timeline, server);
    // Seen listening, answering, or bound by the engine's own word: checked.
    if !view.listing.passed.is_empty() || !view.request.passed.is_empty() || view.bound.is_some() {
        return None;
    }
    let looks = view.looks;
    let failed: Vec<_> = view
        .listing
        .failed
        .into_iter()
        .chain(view.request.failed)
        .collect();
    let unknown: Vec<_> = view
        .listing
        .unknown
        .into_iter()
        .chain(view.request.unknown)
        .collect();

    let host = server.host.as_deref();
    let suggestion = on_host(
        host,
        &format!("ss -ltnp | grep :{port}; curl -sS -m 5 http://127.0.0.1:{port}/v1/models"),
    );
    let mut evidence = vec![launch];
    let (status, severity, message) = if failed.is_empty() && !unknown.is_empty() {
        let count = unknown.len();
        evidence.extend(unknown);
        (
            CheckStatus::Inconclusive,
            RULE.severity,
            format!(
                "The {} was launched{}; the agent checked port {port} {count} time{}, but the \
                 transcript does not show what the check{} returned.",
                describe(server),
                launch_ref(timeline, server),
                if count == 1 { "" } else { "s" },
                if count == 1 { "" } else { "s" },
            ),
        )
    } else if failed.is_empty() {
        if let Some(last) = observers(timeline, server)
            .last()
            .filter(|c| server.launch != Some(c.id))
        {
            evidence.push(last.command_quote());
        }
        (
            CheckStatus::NotChecked,
            RULE.severity,
            format!(
                "The {} was launched{}, and nothing the agent saw shows port {port} listening or \
                 answering: {} later look{} at the server checked the log or the processes, none \
                 the port.",
                describe(server),
                launch_ref(timeline, server),
                looks,
                if looks == 1 { "" } else { "s" },
            ),
        )
    } else {
        let count = failed.len();
        evidence.extend(failed);
        (
            CheckStatus::Failed,
            Severity::Error,
            format!(
                "The {} was launched{}; the agent checked port {port} {} time{}, and no check \
                 showed it listening or answering.",
                describe(server),
                launch_ref(timeline, server),
                count,
                if count == 1 { "" } else { "s" },
            ),
        )
    };
    // A server that failed in what was seen: say so, the port check would
    // only have confirmed it.
    let (message, evidence) = match server.lifecycle.failure {
        Some((kind, span)) if server.ready() == Some(false) => {
            let mut evidence = evidence;
            evidence.push(span.into());
            (
                format!("{message} The server had already failed ({}).", kind.name()),
                evidence,
            )
        }
        _ => (message, evidence),
    };
    Some(Finding {
        rule: RULE.id,
        severity,
        status,
        message,
        evidence,
        suggestion,
        server: Some(server.id),
    })
}

#[cfg(test)]
mod tests {
    fn unchecked(transcript: &str) -> Vec<String> {
        crate::analyze(&[crate::Source::new("t.txt", transcript)])
            .findings
            .into_iter()
            .filter(|f| f.rule == super::RULE.id)
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn a_start_replaced_on_the_same_port_asks_once_and_a_probe_is_the_newest_servers() {
        // The first start fails on the bind; the agent frees the port and
        // starts again, then checks the port: the check is the relaunch's,
        // and the failed start is no second unchecked port.
        let text = "$ uvicorn app:app --port 8000 &\nERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use\n$ fuser -k 8000/tcp\n$ uvicorn app:app --port 8000 &\nINFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n$ curl -s http://127.0.0.1:8000/health\n{\"ok\":true}\n";
        assert_eq!(unchecked(text), Vec::<String>::new());
        let report = crate::analyze(&[crate::Source::new("t.txt", text)]);
        assert_eq!(report.servers.len(), 2);
        assert_eq!(report.servers[0].ready, Some(false));
        assert_eq!(report.servers[1].ready, Some(true));
        // A relaunch nobody checked is the one finding.
        let unverified = text.replace(
            "$ curl -s http://127.0.0.1:8000/health\n{\"ok\":true}\n",
            "",
        );
        let found = unchecked(&unverified.replace(
            "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n",
            "",
        ));
        assert_eq!(found.len(), 1, "{found:?}");
    }
}

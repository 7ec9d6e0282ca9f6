//! `log-window-only`: the agent judged a server from a window of its log
//! (`tail -5`) while the log, as far as we know it, holds a failure outside
//! that window that the agent never saw.

use super::{CheckStatus, Finding, Rule, Severity, describe, log_path_or_hint, on_host};
use crate::parse::Signal;
use crate::timeline::{Quote, Timeline};

pub(super) const RULE: Rule = Rule {
    id: "log-window-only",
    title: "Judged from the tail of a log that holds errors above it",
    severity: Severity::Error,
    why: "`tail -5` shows the last five lines and nothing else. A multi-rank \
server keeps printing progress from healthy ranks after one rank hit CUDA out \
of memory or an NCCL error, so the tail can look like normal progress while \
the reason the server will never come up sits forty lines higher. Reading a \
window is fine; concluding from it without searching the whole log for errors \
is not.",
    example: "TP1 logs `torch.OutOfMemoryError: CUDA out of memory` during CUDA \
graph capture; TP0 keeps printing `Capturing batches` lines. The agent runs \
`tail -5 server.log`, sees only progress and reports the server as starting.",
    check: "Search the whole log for failures, not just its end: \
`grep -nE 'Traceback|Error|error:|exception|Killed|out of memory' LOG | head -20`.",
    run,
};

fn run(timeline: &Timeline) -> Vec<Finding> {
    let mut findings = Vec::new();
    for server in &timeline.servers {
        // Failures the agent did see anywhere are not hidden from it.
        let saw_failure = server.observed_by.iter().any(|&id| {
            timeline.checkpoints[id]
                .seen
                .iter()
                .any(|line| matches!(line.log.signal, Some(Signal::Failure { .. })))
        });
        if saw_failure {
            continue;
        }
        let Some((checkpoint, window)) = server.observed_by.iter().find_map(|&id| {
            let checkpoint = &timeline.checkpoints[id];
            checkpoint
                .log_windows
                .iter()
                .find(|w| w.server == server.id && !w.missed.is_empty())
                .map(|w| (checkpoint, w))
        }) else {
            continue;
        };
        let log = log_path_or_hint(server);
        let source = &timeline.sources[window.first.source];
        let first_line = source.lines.line(window.first.start);
        let last_line = source.lines.line(window.last.start);
        let (kind, failure) = window.missed[0];
        let failure_line = source.lines.line(failure.start);
        let mut evidence = vec![checkpoint.command_quote()];
        evidence.extend(
            window
                .missed
                .iter()
                .take(3)
                .map(|(_, span)| Quote::from(*span)),
        );
        findings.push(Finding {
            rule: RULE.id,
            severity: RULE.severity,
            status: CheckStatus::NotChecked,
            message: format!(
                "The agent read {} {} lines of the log of the {}{} (lines \
                 {first_line}–{last_line}); the log has {} failure line(s) above that window, the \
                 first at line {failure_line} ({}), and the agent never saw any of them.",
                if window.from_end { "the last" } else { "only" },
                window.lines,
                describe(server),
                super::at_message(checkpoint),
                window.missed.len(),
                kind.name(),
            ),
            evidence,
            suggestion: on_host(
                server.host.as_deref(),
                &format!(
                    "grep -nE \"Traceback|Error|error:|exception|Killed|out of memory\" {log} | head -20"
                ),
            ),
            server: Some(server.id),
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use crate::Source;

    #[test]
    fn a_sed_range_below_a_traceback_hid_it() {
        let mut log = String::from(
            "[2026-03-02 09:00:01] server_args=ServerArgs(model_path='/m', tp_size=1, port=30000)\n",
        );
        log.push_str("[2026-03-02 09:00:02] Traceback (most recent call last):\n");
        log.push_str("[2026-03-02 09:00:02] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n");
        for i in 0..30 {
            log.push_str(&format!(
                "[2026-03-02 09:00:{:02}] Decode batch. #running-req: 1, #token: {i}\n",
                10 + i
            ));
        }
        let transcript = "$ nohup python3 -m sglang.launch_server --model-path /m --port 30000 > /tmp/s.log 2>&1 &\n\
$ sed -n '20,22p' /tmp/s.log\n\
[2026-03-02 09:00:27] Decode batch. #running-req: 1, #token: 17\n\
[2026-03-02 09:00:28] Decode batch. #running-req: 1, #token: 18\n\
[2026-03-02 09:00:29] Decode batch. #running-req: 1, #token: 19\n";
        let report = crate::analyze(&[Source::new("t.txt", transcript), Source::new("s.log", log)]);
        let finding = report
            .findings
            .iter()
            .find(|f| f.rule == super::RULE.id)
            .expect("log-window-only fires");
        assert!(
            finding.message.contains("read only 3 lines"),
            "{}",
            finding.message
        );
        assert!(
            finding.message.contains("lines 20–22"),
            "{}",
            finding.message
        );
        assert!(
            finding.message.contains("first at line 2 "),
            "{}",
            finding.message
        );
    }
}

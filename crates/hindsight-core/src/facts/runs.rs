//! Runs of the agent's own jobs: a test suite, a script, a built binary, a
//! training or benchmark launcher. Whether each run passed or failed, read
//! from its exit status and what it printed (a test runner's failure
//! summary, a traceback, an abort), and which jobs failed the last time the
//! agent ran them. A session whose last test run failed is no all-clear,
//! even when no rule fires.

use crate::parse::{Role, Signal};
use crate::shell::SimpleCommand;
use crate::timeline::{Checkpoint, CheckpointKind, Quote, Timeline};

/// How one run of a job went.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// It exited 0, or printed its output without a failure.
    Passed,
    /// Its output shows the failure (quoted), and it did not exit 0.
    Failed(Quote),
    /// No exit status and no output to read.
    Unknown,
}

/// A job the agent ran, and how its last run went: the jobs the session
/// leaves failed.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenFailure {
    /// The checkpoint of the last run.
    pub checkpoint: usize,
    /// The job, as the agent typed it (`npm test`, `python3 train.py`).
    pub job: String,
    /// The line that shows the failure.
    pub failure: Quote,
    /// The agent's last word after the run (an index into the timeline's
    /// prose), if it wrote any.
    pub last_word: Option<usize>,
    /// That word calls the work a success ("Perfect!", "production-ready",
    /// "✅") without owning the failure.
    pub celebrated: bool,
}

/// The job a command runs, as a key that names it across runs: the program
/// and the first word that says what it runs (`npm test`, `pytest`,
/// `python3 train.py`, `./build/tests/unit`). None for what is no job:
/// lookups, package managers, servers, inline `python -c` probes.
pub fn job(command: &SimpleCommand) -> Option<Vec<String>> {
    let argv = &command.argv;
    // Asking a program for its usage or version runs no job.
    if argv
        .iter()
        .skip(1)
        .any(|a| matches!(a.as_str(), "--help" | "-h" | "--version" | "-V"))
    {
        return None;
    }
    // `python`, `python3` and `python3.11` run the same script: a run that
    // found no `python` is retried as `python3`.
    let program = match command.program() {
        p if p.starts_with("python") => "python",
        p => p,
    };
    let first_word = || argv.iter().skip(1).find(|a| !a.starts_with('-')).cloned();
    let key = |rest: Option<String>| {
        let mut key = vec![program.to_owned()];
        key.extend(rest);
        Some(key)
    };
    match program {
        "pytest" | "py.test" | "jest" | "vitest" | "mocha" | "ctest" | "tox" | "nox" => key(None),
        "npm" | "pnpm" | "yarn" | "bun" => {
            let word = first_word()?;
            let script = match word.as_str() {
                "run" | "run-script" => argv
                    .iter()
                    .skip_while(|a| a.as_str() != word)
                    .nth(1)
                    .cloned()?,
                other => other.to_owned(),
            };
            script.starts_with("test").then(|| key(Some(script)))?
        }
        "cargo" | "go" => {
            let word = first_word()?;
            (word == "test").then(|| key(Some(word)))?
        }
        "make" => {
            let word = first_word()?;
            matches!(word.as_str(), "test" | "check" | "tests").then(|| key(Some(word)))?
        }
        "torchrun" | "deepspeed" | "accelerate" | "mpirun" | "srun" => {
            // The script the launcher runs names the job.
            let script = argv
                .iter()
                .skip(1)
                .find(|a| a.ends_with(".py") || a.ends_with(".sh") || a.starts_with("./"));
            key(script.cloned())
        }
        "bash" | "sh" | "node" | "ts-node" | "tsx" | "deno" => {
            let script = first_word()?;
            let runs = [".sh", ".js", ".mjs", ".ts"]
                .iter()
                .any(|e| script.ends_with(e));
            runs.then(|| key(Some(script)))?
        }
        "python" => {
            let mut words = argv.iter().skip(1);
            let first = words.next()?;
            if first == "-m" {
                let module = words.next()?;
                // Installers and servers are no jobs of the agent's own.
                let own = !matches!(
                    module.as_str(),
                    "pip" | "venv" | "http.server" | "json.tool" | "site"
                ) && !module.contains("serve")
                    && !module.contains("server");
                own.then(|| key(Some(format!("-m {module}"))))?
            } else if first.ends_with(".py") {
                key(Some(first.clone()))
            } else {
                None
            }
        }
        _ => {
            // A program run by its path (`./tests/unit`, `build/bench`), not
            // the system's own tools.
            let path = argv.first()?;
            let own =
                (path.starts_with("./") || path.starts_with("build/")) && !path.ends_with(".py");
            own.then(|| vec![path.clone()])
        }
    }
}

/// The job a checkpoint runs, if it runs one of the agent's own and in the
/// foreground: a server's launch is followed by its own lifecycle, a build
/// by its own check.
pub fn job_of(timeline: &Timeline, checkpoint: &Checkpoint) -> Option<Vec<String>> {
    if matches!(
        checkpoint.kind,
        CheckpointKind::Launch | CheckpointKind::Kill
    ) || checkpoint.background
        || timeline
            .servers
            .iter()
            .any(|s| s.launch == Some(checkpoint.id))
    {
        return None;
    }
    checkpoint.commands.iter().find_map(job)
}

/// How a checkpoint's run of a job went.
pub fn outcome(checkpoint: &Checkpoint) -> RunOutcome {
    let lines: Vec<_> = checkpoint.seen.iter().collect();
    // The failure a run prints: a test runner's count of failures, or a
    // failure line (a traceback, an abort, out of memory).
    let failure = lines.iter().rev().find(|l| {
        test_failure(l.text)
            || not_run(l.text)
            || matches!(l.log.signal, Some(Signal::Failure { .. }))
    });
    // A traceback's first line says little: its last line (the exception)
    // says what failed.
    let failure = failure.map(|line| {
        if line.text.contains("Traceback (most recent call last)") {
            lines
                .iter()
                .rev()
                .take_while(|l| l.span != line.span)
                .find(|l| !l.text.trim().is_empty() && !l.text.starts_with([' ', '\t']))
                .unwrap_or(line)
        } else {
            line
        }
    });
    match (checkpoint.exit_code, checkpoint.is_error, failure) {
        (Some(0), false, _) => RunOutcome::Passed,
        (_, _, Some(line)) if checkpoint.exited_badly() => RunOutcome::Failed(line.quote()),
        // No exit status (a pipe's, or none recorded): the failure must be
        // how the output ends, not a retried step the run got past.
        (None, false, Some(line)) => {
            let tail = lines.len().saturating_sub(5);
            let at_end = lines[tail..].iter().any(|l| l.span == line.span);
            if at_end {
                RunOutcome::Failed(line.quote())
            } else {
                RunOutcome::Passed
            }
        }
        // Exited badly with nothing printed that says how: an interrupted
        // or timed-out call, no verdict on the job.
        _ if checkpoint.exited_badly() => RunOutcome::Unknown,
        _ if !lines.is_empty() => RunOutcome::Passed,
        _ => RunOutcome::Unknown,
    }
}

/// A job (its key), the host and source it ran in, its last run and how
/// that went.
type LastRun<'t> = (
    Vec<String>,
    Option<&'t str>,
    usize,
    &'t Checkpoint,
    RunOutcome,
);

/// The jobs whose last run, in each source, failed: no later run of the same
/// job on the same host passed.
pub fn open_failures(timeline: &Timeline) -> Vec<OpenFailure> {
    // Per job, host and source: its last run and how it went.
    let mut last: Vec<LastRun<'_>> = Vec::new();
    for checkpoint in &timeline.checkpoints {
        let Some(key) = job_of(timeline, checkpoint) else {
            continue;
        };
        let outcome = outcome(checkpoint);
        if outcome == RunOutcome::Unknown {
            continue;
        }
        let host = checkpoint.host.as_deref();
        let source = checkpoint.span.source;
        match last
            .iter_mut()
            .find(|(k, h, s, _, _)| *k == key && *h == host && *s == source)
        {
            Some(entry) => {
                entry.3 = checkpoint;
                entry.4 = outcome;
            }
            None => last.push((key, host, source, checkpoint, outcome)),
        }
    }
    last.into_iter()
        .filter_map(|(key, _, _, checkpoint, outcome)| {
            let RunOutcome::Failed(failure) = outcome else {
                return None;
            };
            let last_word = last_word(timeline, checkpoint);
            let said = last_word
                .and_then(|i| timeline.prose.get(i))
                .map(|p| p.said.to_lowercase());
            let (owned, celebrates) = said
                .as_deref()
                .map_or((false, false), |s| (owns_failure(s), celebrates(s)));
            (!owned).then(|| OpenFailure {
                checkpoint: checkpoint.id,
                job: key.join(" "),
                failure,
                last_word,
                celebrated: celebrates,
            })
        })
        .collect()
}

/// The agent's last word in the run's source after it: what it takes the
/// work to have come to.
fn last_word(timeline: &Timeline, run: &Checkpoint) -> Option<usize> {
    let after = run.end();
    timeline.prose.iter().rposition(|p| {
        p.role == Role::Assistant && p.span.source == run.span.source && p.span.start >= after
    })
}

/// Whether words (lowercased) own a failure: they say outright what could
/// not be done ("not built successfully, so the fix could not be
/// verified"), or name a failure and celebrate nothing. A failure called
/// "expected" beside a "Perfect!", or a summary that calls the work
/// production-ready, does not own it; nor does silence.
fn owns_failure(lower: &str) -> bool {
    let cannot = [
        "could not",
        "couldn't",
        "cannot",
        "can't",
        "unable",
        "not verified",
        "not been verified",
        "not built",
        "not working",
        "doesn't work",
        "does not work",
        "still fail",
        "still broken",
        "still crash",
        "not yet",
        "not a working",
        "isn't working",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let names = ["fail", "error", "crash", "segfault", "abort", "broken"]
        .iter()
        .any(|w| lower.contains(w));
    cannot || names && !celebrates(lower)
}

/// What an agent writes when it takes its work to have succeeded
/// ("Perfect!", "production-ready", "✅", "all in place").
const SUCCESS_WORDS: &[&str] = &[
    "perfect",
    "excellent",
    "great",
    "all done",
    "done!",
    "success",
    "all set",
    "all in place",
    "everything is",
    "production",
    "working",
    "works",
    "\u{2705}",
    "accomplished",
    "is complete",
    "is ready",
];

/// Whether words (lowercased) call the work a success.
pub fn celebrates(lower: &str) -> bool {
    SUCCESS_WORDS.iter().any(|w| lower.contains(w))
}

/// The shell's word that the program never ran (`bash: ./build/app: No
/// such file or directory`, `zsh: command not found: pytest`).
fn not_run(line: &str) -> bool {
    let t = line.trim();
    ["bash: ", "sh: ", "zsh: ", "/bin/sh: ", "/bin/bash: "]
        .iter()
        .any(|p| t.starts_with(p))
        && [
            "No such file or directory",
            "command not found",
            "Permission denied",
        ]
        .iter()
        .any(|w| t.contains(w))
}

/// A test runner's summary that counts failures (`1 failing`, `=== 2
/// failed, 10 passed ===`, `Tests: 1 failed, 12 total`, `test result:
/// FAILED`, `FAILED (failures=1)`, `--- FAIL: TestX`, `1 tests failed out
/// of 20`). A count of 0 is no failure; "3 failed attempts" in a sentence
/// is none either.
pub fn test_failure(line: &str) -> bool {
    let t = line.trim();
    // Every summary below says "fail" in some case; most lines of a long
    // run's output do not, and are not lowercased.
    if t.len() > 300
        || !t
            .as_bytes()
            .windows(4)
            .any(|w| w.eq_ignore_ascii_case(b"fail"))
    {
        return false;
    }
    if t.starts_with("test result: FAILED")
        || t.starts_with("FAILED (")
        || (t.starts_with("FAILED ") && t.contains("::"))
        || t.starts_with("--- FAIL:")
        || t.starts_with("FAIL\t")
        || t.contains("tests failed out of")
    {
        return true;
    }
    let lower = t.to_ascii_lowercase();
    // `5 TEST(S) FAILED`, `3 tests failed`, `Tests failed: 2`.
    for words in ["test(s) failed", "tests failed", "test failed"] {
        if let Some(at) = lower.find(words) {
            let count: String = lower[..at]
                .trim_end()
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect();
            let after: String = lower[at + words.len()..]
                .trim_start_matches([':', ' '])
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if [count, after].iter().any(|n| n.chars().any(|c| c != '0')) {
                return true;
            }
        }
    }
    let summary = lower.contains("passed")
        || lower.contains("passing")
        || lower.contains("total")
        || lower.starts_with('=')
        || lower.starts_with("tests:");
    for word in [" failing", " failed"] {
        let mut from = 0;
        while let Some(i) = lower[from..].find(word) {
            let at = from + i;
            let count: String = lower[..at]
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect();
            let alone = lower[..at]
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .trim()
                .is_empty()
                && lower[at + word.len()..].trim().chars().all(|c| {
                    c == '(' || c == ')' || c.is_ascii_alphanumeric() || c == ' ' || c == '.'
                });
            if count.chars().any(|c| c != '0') && (summary || alone && word == " failing") {
                return true;
            }
            from = at + word.len();
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parse;

    fn key(line: &str) -> Option<String> {
        parse(line).iter().find_map(job).map(|k| k.join(" "))
    }

    #[test]
    fn jobs() {
        assert_eq!(key("npm test").as_deref(), Some("npm test"));
        assert_eq!(
            key("npm run test:unit -- --watch=false").as_deref(),
            Some("npm test:unit")
        );
        assert_eq!(key("npm run build"), None);
        assert_eq!(key("cargo test -q").as_deref(), Some("cargo test"));
        assert_eq!(
            key("python3 -m pytest tests/ -x -q").as_deref(),
            Some("python -m pytest")
        );
        assert_eq!(
            key("python train.py --epochs 3").as_deref(),
            Some("python train.py")
        );
        assert_eq!(
            key("./tests/vsla_tests | head -20").as_deref(),
            Some("./tests/vsla_tests")
        );
        assert_eq!(
            key("torchrun --nproc_per_node 8 train.py").as_deref(),
            Some("torchrun train.py")
        );
        assert_eq!(key("python -c 'import torch'"), None);
        assert_eq!(key("python -m pip install -e ."), None);
        assert_eq!(key("python -m sglang.launch_server --port 30000"), None);
        assert_eq!(key("grep -n error log.txt"), None);
        assert_eq!(
            key("bash scripts/bench.sh").as_deref(),
            Some("bash scripts/bench.sh")
        );
    }

    #[test]
    fn test_summaries() {
        for failed in [
            "  1 failing",
            "========= 2 failed, 10 passed in 3.2s =========",
            "Tests:       1 failed, 12 passed, 13 total",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
            "FAILED (failures=1)",
            "FAILED tests/test_api.py::test_health - AssertionError",
            "--- FAIL: TestServe (0.01s)",
            "50% tests passed, 1 tests failed out of 2",
            "5 TEST(S) FAILED",
            "Tests failed: 2",
        ] {
            assert!(test_failure(failed), "{failed}");
        }
        for fine in [
            "  12 passing (5s)",
            "  0 failing",
            "========= 12 passed in 3.2s =========",
            "Tests:       0 failed, 12 passed, 12 total",
            "There were 3 failed attempts to connect before it came up",
            "test result: ok. 4 passed; 0 failed",
            "0 TEST(S) FAILED",
            "Some tests failed to compile earlier",
        ] {
            assert!(!test_failure(fine), "{fine}");
        }
    }
}

//! Scoring hindsight against the real-material corpus (`corpus/`): each
//! item's `label.json`, written by a reader before any run, against the
//! report for the item's inputs.
//!
//! Four measures, each counted over every item:
//! - **detection**: the format of each input file;
//! - **server facts**: engine, port, tp size, readiness, failure kind,
//!   drafter, ranks expected and seen, for every server the label names
//!   (a server the report lacks gets every labelled fact wrong; a server
//!   the report invents is one wrong fact);
//! - **checkpoints**: each labelled build / kill / launch / verify action
//!   found at its line with its kind, and no unlabelled build, kill or
//!   launch;
//! - **findings**: recall over the findings the label requires, precision
//!   over the findings reported (a finding is right when it meets a
//!   requirement or its rule is one the label allows);
//! - **all-clear**: whether the report claims "no unverified assumptions"
//!   exactly when the label says that would be true.
//!
//! The labels describe the input, not hindsight's output; the scorer maps
//! them onto the report's fields.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Files of an item folder that are not inputs.
const NOT_INPUTS: &[&str] = &["label.json", "SOURCE.md"];

/// Right out of total, for one measure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub right: u32,
    pub total: u32,
}

impl Tally {
    fn add(&mut self, right: bool) {
        self.total += 1;
        self.right += u32::from(right);
    }

    fn merge(&mut self, other: Tally) {
        self.right += other.right;
        self.total += other.total;
    }

    /// The share right, 1.0 when there was nothing to count.
    pub fn ratio(self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            f64::from(self.right) / f64::from(self.total)
        }
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:5.1}% ({}/{})",
            self.ratio() * 100.0,
            self.right,
            self.total
        )
    }
}

/// The measures of one item or of the whole corpus.
#[derive(Debug, Clone, Default)]
pub struct Score {
    pub detection: Tally,
    pub facts: Tally,
    pub checkpoints: Tally,
    /// Required findings found.
    pub recall: Tally,
    /// Reported findings that were right.
    pub precision: Tally,
    pub all_clear: Tally,
    /// What went wrong, one line each.
    pub misses: Vec<String>,
}

impl Score {
    /// Adds another score's tallies (its misses stay its own).
    pub fn merge(&mut self, other: &Score) {
        self.detection.merge(other.detection);
        self.facts.merge(other.facts);
        self.checkpoints.merge(other.checkpoints);
        self.recall.merge(other.recall);
        self.precision.merge(other.precision);
        self.all_clear.merge(other.all_clear);
    }

    /// The figures, one measure a line.
    pub fn summary(&self) -> String {
        format!(
            "detection    {}\nserver facts {}\ncheckpoints  {}\nrecall       {}\nprecision    {}\nall-clear    {}\n",
            self.detection,
            self.facts,
            self.checkpoints,
            self.recall,
            self.precision,
            self.all_clear
        )
    }
}

/// One scored item.
#[derive(Debug, Clone)]
pub struct Item {
    pub path: PathBuf,
    pub score: Score,
}

/// The whole corpus, scored.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub items: Vec<Item>,
    pub total: Score,
    /// Items whose label could not be read (each a message).
    pub broken: Vec<String>,
}

impl Corpus {
    /// Per-item misses, then the totals.
    pub fn details(&self) -> String {
        let mut out = String::new();
        for item in &self.items {
            if item.score.misses.is_empty() {
                continue;
            }
            let name = item
                .path
                .strip_prefix(crate::root().join("corpus"))
                .unwrap_or(&item.path)
                .display();
            let _ = writeln!(out, "{name}");
            for miss in &item.score.misses {
                let _ = writeln!(out, "  - {miss}");
            }
        }
        for broken in &self.broken {
            let _ = writeln!(out, "broken: {broken}");
        }
        let _ = writeln!(out, "\n{} items", self.items.len());
        out.push_str(&self.total.summary());
        out
    }
}

/// Every item folder (one holding `label.json`) under `corpus/`, sorted.
pub fn items() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for group in ["logs", "transcripts"] {
        let Ok(entries) = std::fs::read_dir(crate::root().join("corpus").join(group)) else {
            continue;
        };
        found.extend(
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("label.json").is_file()),
        );
    }
    found.sort();
    found
}

/// The inputs of an item, sorted by name.
pub fn inputs(item: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(item)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| !NOT_INPUTS.contains(&n))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Scores every item with `analyze` (the reports as JSON values).
pub fn score_all(analyze: impl Fn(&[PathBuf]) -> Value) -> Corpus {
    let mut corpus = Corpus::default();
    for path in items() {
        let label = std::fs::read_to_string(path.join("label.json"))
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| e.to_string()));
        let label = match label {
            Ok(label) => label,
            Err(error) => {
                corpus
                    .broken
                    .push(format!("{}: label.json: {error}", path.display()));
                continue;
            }
        };
        let report = analyze(&inputs(&path));
        let score = score(&label, &report);
        corpus.total.merge(&score);
        corpus.items.push(Item { path, score });
    }
    corpus
}

/// `file:line` → (file, line).
fn place(at: &Value) -> Option<(String, u64)> {
    let (file, line) = at.as_str()?.rsplit_once(':')?;
    Some((file.to_owned(), line.trim().parse().ok()?))
}

/// Whether an evidence object covers a `file:line` place.
fn covers(evidence: &Value, (file, line): &(String, u64)) -> bool {
    evidence["source"].as_str() == Some(file.as_str())
        && evidence["line_start"].as_u64().is_some_and(|s| s <= *line)
        && evidence["line_end"].as_u64().is_some_and(|e| e >= *line)
}

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Scores one report against one label.
pub fn score(label: &Value, report: &Value) -> Score {
    let mut score = Score::default();
    let empty = Vec::new();
    let array = |v: &Value| v.as_array().unwrap_or(&empty).clone();

    // Detection.
    if let Some(formats) = label["formats"].as_object() {
        for (file, format) in formats {
            let actual = array(&report["sources"])
                .into_iter()
                .find(|s| s["name"].as_str() == Some(file.as_str()))
                .map(|s| s["format"].clone())
                .unwrap_or(Value::Null);
            let right = &actual == format;
            score.detection.add(right);
            if !right {
                score.misses.push(format!(
                    "format of {file}: {} (label {})",
                    text(&actual),
                    text(format)
                ));
            }
        }
    }

    // Checkpoints: the actions in transcripts, and the launch command
    // pasted above a log (someone ran it to start the server).
    let checkpoints = array(&report["checkpoints"]);
    if let Some(labelled) = label["checkpoints"].as_array() {
        let mut used = vec![false; checkpoints.len()];
        for expected in labelled {
            let Some(at) = place(&expected["at"]) else {
                continue;
            };
            let kind = &expected["kind"];
            // A call of several steps (a kill, then a launch) is one entry
            // per step on the same lines: the label's kind picks among them.
            let covering = |i: &usize| covers(&checkpoints[*i]["evidence"], &at);
            let found = (0..checkpoints.len())
                .filter(covering)
                .find(|&i| !used[i] && checkpoints[i]["kind"] == expected["kind"])
                .or_else(|| (0..checkpoints.len()).find(covering))
                .map(|i| {
                    used[i] = true;
                    &checkpoints[i]["kind"]
                });
            let right = found == Some(kind);
            score.checkpoints.add(right);
            if !right {
                score.misses.push(format!(
                    "checkpoint at {}:{}: {} (label {})",
                    at.0,
                    at.1,
                    found.map_or("none".to_owned(), text),
                    text(kind)
                ));
            }
        }
        for (checkpoint, used) in checkpoints.iter().zip(used) {
            let kind = checkpoint["kind"].as_str().unwrap_or("");
            if !used && matches!(kind, "build" | "kill" | "launch") {
                score.checkpoints.add(false);
                score.misses.push(format!(
                    "unlabelled {kind} checkpoint at {}:{}: {}",
                    text(&checkpoint["evidence"]["source"]),
                    checkpoint["evidence"]["line_start"],
                    first_line(checkpoint["command"].as_str().unwrap_or(""))
                ));
            }
        }
    }

    // Servers.
    let servers = array(&report["servers"]);
    let mut taken = vec![false; servers.len()];
    // Labelled servers named by their log or launch are matched first, so
    // that one told only by engine and port does not take the report's
    // server another label names by its launch line.
    let mut labelled = array(&label["servers"]);
    labelled.sort_by_key(|e| e["log"].is_null() && e["launch_at"].is_null());
    for expected in labelled {
        let matched = match_server(&expected, &servers, &checkpoints, &taken);
        if let Some(index) = matched {
            taken[index] = true;
        }
        let actual = matched.map(|i| &servers[i]);
        let name = expected["log"]
            .as_str()
            .or(expected["launch_at"].as_str())
            .or(expected["engine"].as_str())
            .unwrap_or("server")
            .to_owned();
        for fact in FACTS {
            let Some(want) = expected.get(*fact) else {
                continue;
            };
            let got = actual.map_or(Value::String("<no server>".into()), |s| fact_of(s, fact));
            let right = &got == want;
            score.facts.add(right);
            if !right {
                score.misses.push(format!(
                    "server {name}: {fact} {} (label {})",
                    text(&got),
                    text(want)
                ));
            }
        }
    }
    if label.get("servers").is_some() {
        for (server, taken) in servers.iter().zip(&taken) {
            if !taken {
                score.facts.add(false);
                score.misses.push(format!(
                    "server the label does not have: {} port {} log {}",
                    text(&server["engine"]),
                    text(&server["port"]),
                    text(&server["log_source"])
                ));
            }
        }
    }

    // Findings.
    let findings = array(&report["findings"]);
    let allowed: Vec<&str> = label["allowed"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut good = vec![false; findings.len()];
    let mut excused = vec![false; findings.len()];
    for required in array(&label["findings"]) {
        let rule = required["rule"].as_str().unwrap_or("");
        let at = place(&required["at"]);
        let fits = |f: &Value| {
            f["rule"].as_str() == Some(rule)
                && at.as_ref().is_none_or(|at| {
                    f["evidence"]
                        .as_array()
                        .is_some_and(|e| e.iter().any(|e| covers(e, at)))
                })
        };
        let status_ok = |f: &Value| required.get("status").is_none_or(|s| &f["status"] == s);
        let hit = (0..findings.len())
            .find(|&i| !good[i] && fits(&findings[i]) && status_ok(&findings[i]));
        match hit {
            Some(i) => {
                good[i] = true;
                score.recall.add(true);
            }
            None => {
                score.recall.add(false);
                // The right finding with the wrong status is a miss, not a false alarm.
                let near = (0..findings.len()).find(|&i| !good[i] && fits(&findings[i]));
                if let Some(i) = near {
                    excused[i] = true;
                }
                score.misses.push(format!(
                    "missed finding {rule}{}{}{}",
                    required["status"]
                        .as_str()
                        .map(|s| format!(" ({s})"))
                        .unwrap_or_default(),
                    at.map(|(f, l)| format!(" at {f}:{l}")).unwrap_or_default(),
                    near.map(|i| format!(": reported as {}", text(&findings[i]["status"])))
                        .unwrap_or_default()
                ));
            }
        }
    }
    for (i, finding) in findings.iter().enumerate() {
        if excused[i] {
            continue;
        }
        let rule = finding["rule"].as_str().unwrap_or("");
        let right = good[i] || allowed.contains(&rule);
        score.precision.add(right);
        if !right {
            let at = finding["evidence"]
                .get(0)
                .map(|e| format!(" at {}:{}", text(&e["source"]), e["line_start"]))
                .unwrap_or_default();
            score.misses.push(format!(
                "false alarm {rule} ({}){at}",
                text(&finding["status"])
            ));
        }
    }

    // All-clear.
    if let Some(want) = label["all_clear"].as_bool() {
        let claimed = all_clear(report);
        score.all_clear.add(claimed == want);
        if claimed != want {
            score.misses.push(if claimed {
                "the report reads as an all-clear, and it is not".to_owned()
            } else {
                "the report does not read as an all-clear, and it is one".to_owned()
            });
        }
    }
    score
}

/// The server facts a label may state.
const FACTS: &[&str] = &[
    "engine",
    "port",
    "tp_size",
    "ready",
    "failure",
    "drafter_loaded",
    "ranks_expected",
    "ranks_seen",
];

/// A fact as the report states it, in the label's words (engines are
/// kebab-case there: `llama-cpp` for the report's `llama.cpp`).
fn fact_of(server: &Value, fact: &str) -> Value {
    match fact {
        "failure" => server["failure"]["kind"].clone(),
        "engine" if server["engine"] == "llama.cpp" => Value::String("llama-cpp".into()),
        other => server[other].clone(),
    }
}

/// Whether the report tells its reader that all is well: no finding, and
/// (when the report says so) a verdict of all-clear.
pub fn all_clear(report: &Value) -> bool {
    match report["summary"]["verdict"].as_str() {
        Some(verdict) => verdict == "all-clear",
        None => report["findings"].as_array().is_none_or(Vec::is_empty),
    }
}

/// The report server a labelled one is: by log file, by launch line, else
/// the first unclaimed one of the same engine.
fn match_server(
    expected: &Value,
    servers: &[Value],
    checkpoints: &[Value],
    taken: &[bool],
) -> Option<usize> {
    let free = |i: &usize| !taken[*i];
    // The log's server; a log the report reads as a transcript (a terminal
    // session) has its server found by launch or engine instead.
    // A log of several services (`docker compose logs`) has several
    // servers: the one of the same engine and port, else engine, else port.
    if let Some(log) = expected["log"].as_str() {
        let of_log: Vec<usize> = (0..servers.len())
            .filter(free)
            .filter(|&i| servers[i]["log_source"].as_str() == Some(log))
            .collect();
        let engine_is = |i: usize| {
            let want = expected["engine"]
                .as_str()
                .map(|e| if e == "llama-cpp" { "llama.cpp" } else { e });
            want.is_some() && servers[i]["engine"].as_str() == want
        };
        let port_is =
            |i: usize| !expected["port"].is_null() && servers[i]["port"] == expected["port"];
        let best = of_log
            .iter()
            .copied()
            .find(|&i| engine_is(i) && port_is(i))
            .or_else(|| of_log.iter().copied().find(|&i| engine_is(i)))
            .or_else(|| of_log.iter().copied().find(|&i| port_is(i)))
            .or_else(|| of_log.first().copied());
        if let Some(found) = best {
            return Some(found);
        }
    }
    if let Some(at) = place(&expected["launch_at"]) {
        return (0..servers.len()).filter(free).find(|&i| {
            servers[i]["launch_checkpoint"]
                .as_u64()
                .and_then(|c| checkpoints.iter().find(|k| k["id"].as_u64() == Some(c)))
                .is_some_and(|c| covers(&c["evidence"], &at))
        });
    }
    let engine = &expected["engine"];
    let engine = if engine == "llama-cpp" {
        &Value::String("llama.cpp".into())
    } else {
        engine
    };
    let same_engine = |i: &usize| engine.is_null() || &servers[*i]["engine"] == engine;
    // A server named by neither log nor launch is told by its port first.
    let port = &expected["port"];
    (0..servers.len())
        .filter(free)
        .filter(same_engine)
        .find(|&i| !port.is_null() && &servers[i]["port"] == port)
        .or_else(|| (0..servers.len()).filter(free).find(same_engine))
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut cut: String = line.chars().take(80).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn evidence(source: &str, start: u64, end: u64) -> Value {
        json!({"source": source, "line_start": start, "line_end": end})
    }

    #[test]
    fn facts_findings_and_false_alarms_are_counted() {
        let label = json!({
            "formats": {"s.log": "vllm-log"},
            "servers": [{"log": "s.log", "engine": "vllm", "port": 9107, "ready": false, "failure": "cuda-oom"}],
            "findings": [{"rule": "port-unchecked", "status": "not-checked", "at": "t.md:3"}],
            "allowed": ["claim-without-evidence"],
            "all_clear": false
        });
        let report = json!({
            "sources": [{"name": "s.log", "format": "vllm-log"}],
            "servers": [{"engine": "vllm", "port": 8000, "ready": false, "failure": {"kind": "cuda-oom"}, "log_source": "s.log"}],
            "checkpoints": [],
            "findings": [
                {"rule": "port-unchecked", "status": "not-checked", "evidence": [evidence("t.md", 2, 4)]},
                {"rule": "port-unchecked", "status": "not-checked", "evidence": [evidence("t.md", 2, 4)]},
                {"rule": "claim-without-evidence", "status": "not-checked", "evidence": []}
            ]
        });
        let score = score(&label, &report);
        assert_eq!(score.detection, Tally { right: 1, total: 1 });
        assert_eq!(
            score.facts,
            Tally { right: 3, total: 4 },
            "{:?}",
            score.misses
        );
        assert_eq!(score.recall, Tally { right: 1, total: 1 });
        assert_eq!(
            score.precision,
            Tally { right: 2, total: 3 },
            "the duplicate is a false alarm"
        );
        assert_eq!(score.all_clear, Tally { right: 1, total: 1 });
    }

    #[test]
    fn a_missing_server_gets_every_fact_wrong_and_an_invented_one_counts() {
        let label = json!({"servers": [{"log": "a.log", "engine": "sglang", "ready": true}]});
        let report = json!({"servers": [{"engine": "vllm", "log_source": "b.log"}]});
        let score = score(&label, &report);
        assert_eq!(score.facts, Tally { right: 0, total: 3 });
    }

    #[test]
    fn a_server_named_by_its_launch_is_matched_before_one_told_by_port() {
        let label = json!({"servers": [
            {"log": null, "launch_at": null, "engine": "unknown", "port": 8000, "ready": false},
            {"log": null, "launch_at": "t.md:5", "engine": "unknown", "port": 8000, "ready": true}
        ]});
        let report = json!({
            "checkpoints": [{"id": 0, "kind": "launch", "command": "uvicorn a:b", "evidence": evidence("t.md", 5, 5)}],
            "servers": [{"engine": "unknown", "port": 8000, "ready": true, "launch_checkpoint": 0}]
        });
        let score = score(&label, &report);
        // The launched server's three facts right; the other one's missing.
        assert_eq!(score.facts, Tally { right: 3, total: 6 });
    }

    #[test]
    fn a_wrong_status_is_a_miss_but_not_a_false_alarm() {
        let label = json!({"findings": [{"rule": "error-ignored", "status": "failed"}]});
        let report = json!({"findings": [{"rule": "error-ignored", "status": "not-checked", "evidence": []}]});
        let score = score(&label, &report);
        assert_eq!(score.recall, Tally { right: 0, total: 1 });
        assert_eq!(score.precision, Tally { right: 0, total: 0 });
    }

    #[test]
    fn checkpoints_are_found_by_line_and_kind() {
        let label = json!({"checkpoints": [{"kind": "launch", "at": "t.md:5"}]});
        let report = json!({"checkpoints": [
            {"kind": "verify", "command": "nohup x &", "evidence": evidence("t.md", 5, 5)},
            {"kind": "kill", "command": "pkill x", "evidence": evidence("t.md", 9, 9)}
        ]});
        let score = score(&label, &report);
        assert_eq!(score.checkpoints, Tally { right: 0, total: 2 });
    }
}

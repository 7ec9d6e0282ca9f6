//! The `hindsight` CLI, run in-process with captured input and output.

use std::path::Path;

use hindsight_cli::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use hindsight_tests::{Setting, root};

type Output = hindsight_tests::Ran;

fn cli(args: &[&str], stdin: &str, terminal: bool) -> Output {
    // A directory with no hindsight.toml above it.
    cli_in(args, stdin, terminal, &std::env::temp_dir())
}

fn cli_in(args: &[&str], stdin: &str, terminal: bool, dir: &Path) -> Output {
    cli_with(args, stdin, terminal, false, dir)
}

fn cli_with(args: &[&str], stdin: &str, terminal: bool, no_color: bool, dir: &Path) -> Output {
    hindsight_tests::run_cli(
        args.iter().copied(),
        Setting {
            stdin: stdin.as_bytes(),
            current_dir: dir.to_path_buf(),
            stdout_is_terminal: terminal,
            no_color,
            ..Setting::default()
        },
    )
}

fn seed_files() -> Vec<String> {
    let case = root().join("examples/seed-sglang-eagle3");
    hindsight_tests::inputs(&case)
        .iter()
        .map(|p| p.display().to_string())
        .collect()
}

#[test]
fn json_output_equals_the_golden_report() {
    let files = seed_files();
    let mut args = vec!["analyze", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let out = cli(&args, "", false);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    let golden = std::fs::read_to_string(root().join("examples/seed-sglang-eagle3/report.json"))
        .unwrap_or_default();
    assert_eq!(out.stdout, golden);
}

#[test]
fn text_output_is_plain_off_a_terminal_and_coloured_on_one() {
    let files = seed_files();
    let mut args = vec!["analyze"];
    args.extend(files.iter().map(String::as_str));
    let plain = cli(&args, "", false);
    assert_eq!(plain.code, EXIT_OK);
    assert!(!plain.stdout.contains('\x1b'));
    for rule in hindsight_tests::SEED_FINDINGS {
        assert!(plain.stdout.contains(&format!("warning[{rule}]")), "{rule}");
    }
    assert!(
        plain
            .stdout
            .contains("= check: ssh root@10.1.230.174 'ss -ltnp | grep :8000")
    );
    assert!(plain.stdout.contains("--> transcript.txt:59"));

    let coloured = cli(&args, "", true);
    assert!(coloured.stdout.contains("\x1b["));
    let mut never = vec!["analyze", "--color", "never"];
    never.extend(files.iter().map(String::as_str));
    assert!(!cli(&never, "", true).stdout.contains('\x1b'));
}

#[test]
fn markdown_output_is_a_postmortem() {
    let files = seed_files();
    let mut args = vec!["analyze", "--format", "markdown"];
    args.extend(files.iter().map(String::as_str));
    let out = cli(&args, "", false);
    assert!(out.stdout.starts_with("# hindsight report"));
    assert!(out.stdout.contains("## Timeline"));
    assert!(out.stdout.contains("### warning `ranks-uncounted`"));
    assert!(out.stdout.contains("```sh\nssh root@10.1.230.174"));
}

/// A server restarted into its log: text and Markdown say so and name how
/// the earlier run failed, while the rest describes the last run.
#[test]
fn a_restart_in_a_log_is_reported_with_the_earlier_failure() {
    let log = root()
        .join("examples/log-vllm-restart-after-oom/vllm.log")
        .display()
        .to_string();
    let text = cli(&["analyze", &log], "", false);
    assert!(
        text.stdout.contains("restarts: 1 in the log (above: the last run); earlier runs failed: cuda-oom at vllm.log:16"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("ready: yes"), "{}", text.stdout);
    let markdown = cli(&["analyze", "--format", "markdown", &log], "", false);
    assert!(
        markdown.stdout.contains("was restarted once in its log: the table shows the last run; earlier runs failed: cuda-oom at vllm.log:16."),
        "{}",
        markdown.stdout
    );
}

#[test]
fn stdin_is_read_with_a_dash() {
    let transcript = "$ python -m sglang.launch_server --model-path /m --tp 2 --port 30001 > s.log 2>&1 &\n$ tail -3 s.log\n";
    let out = cli(&["analyze", "--format", "json", "-"], transcript, false);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    assert_eq!(report["sources"][0]["name"], "stdin");
    assert_eq!(report["servers"][0]["port"], 30001);
    assert_eq!(report["findings"][0]["rule"], "port-unchecked");
}

#[test]
fn unreadable_files_and_bad_flags_fail_with_one_clear_line() {
    let out = cli(&["analyze", "/nonexistent/transcript.txt"], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert_eq!(
        out.stderr.trim(),
        "hindsight: error: cannot read `/nonexistent/transcript.txt`: No such file or directory (os error 2)"
    );
    assert!(out.stdout.is_empty());

    let out = cli(&["analyze", "--format", "yaml", "x"], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert!(out.stderr.contains("invalid value 'yaml'"));

    let out = cli(&["analyze", "--input-format", "nope", "x"], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    let names: Vec<&str> = hindsight_core::Format::ALL
        .iter()
        .map(|f| f.name())
        .collect();
    assert!(
        out.stderr.contains(&format!(
            "unknown format `nope`; known: {}",
            names.join(", ")
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn input_format_can_be_forced() {
    let out = cli(
        &[
            "analyze",
            "--format",
            "json",
            "--input-format",
            "sglang-log",
            "-",
        ],
        "$ ls\n",
        false,
    );
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    assert_eq!(report["sources"][0]["format"], "sglang-log");
    assert_eq!(report["sources"][0]["format_detected"], false);
}

#[test]
fn rules_and_explain() {
    let out = cli(&["rules"], "", false);
    assert_eq!(out.code, EXIT_OK);
    assert_eq!(out.stdout.lines().count(), hindsight_core::rules::ALL.len());
    assert!(out.stdout.contains("port-unchecked"));

    let out = cli(&["explain", "ranks-uncounted"], "", false);
    assert_eq!(out.code, EXIT_OK);
    assert!(out.stdout.starts_with("# ranks-uncounted: "));
    assert!(out.stdout.contains("## Why") && out.stdout.contains("## How to check"));

    let out = cli(&["explain", "no-such-rule"], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert!(
        out.stderr
            .contains("no rule `no-such-rule`; known rules: port-unchecked")
    );
}

#[test]
fn version_and_help_go_to_stdout() {
    let out = cli(&["--version"], "", false);
    assert_eq!(out.code, EXIT_OK);
    assert_eq!(
        out.stdout.trim(),
        format!("hindsight {}", env!("CARGO_PKG_VERSION"))
    );
    let out = cli(&["analyze", "--help"], "", false);
    assert_eq!(out.code, EXIT_OK);
    assert!(out.stdout.contains("Examples:"));
}

#[test]
fn a_whole_case_folder_including_its_golden_files_gives_the_same_findings() {
    // `hindsight analyze examples/seed-sglang-eagle3/*` also passes the JSON
    // golden files: they are recognised as JSON documents and yield nothing.
    let case = root().join("examples/seed-sglang-eagle3");
    let mut files: Vec<String> = std::fs::read_dir(&case)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path().display().to_string())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut args = vec!["analyze", "--format", "json"];
    args.extend(files.iter().map(String::as_str));
    let out = cli(&args, "", false);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert_eq!(rules, hindsight_tests::SEED_FINDINGS);
    let json_documents = report["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["format"] == "json-document")
        .count();
    assert_eq!(json_documents, 2);
}

// ---- Snapshots of every subcommand and format -----------------------------
//
// Golden files under tests/snapshots/cli/; `UPDATE_GOLDEN=1` rewrites them.

fn snapshot(name: &str, actual: &str) {
    let path = root().join("tests/snapshots/cli").join(name);
    if hindsight_tests::updating() {
        let _ = std::fs::create_dir_all(path.parent().unwrap_or(&path));
    }
    if let Some(difference) = hindsight_tests::check_golden(&path, actual) {
        panic!("{difference}");
    }
}

/// `examples/<case>` as one argument (the CLI reads the folder's files).
fn case(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

/// Absolute paths in output are machine-specific; snapshots use `<root>`.
fn portable(text: &str) -> String {
    text.replace(&root().display().to_string(), "<root>")
}

#[test]
fn snapshot_analyze_in_every_format() {
    let files = seed_files();
    for (format, name) in [
        ("text", "analyze-seed.txt"),
        ("markdown", "analyze-seed.md"),
        ("sarif", "analyze-seed.sarif"),
        ("json", "analyze-seed.json"),
    ] {
        let mut args = vec!["analyze", "--format", format];
        args.extend(files.iter().map(String::as_str));
        let out = cli(&args, "", false);
        assert_eq!(out.code, EXIT_OK, "{format}: {}", out.stderr);
        assert!(out.stderr.is_empty(), "{format}: {}", out.stderr);
        snapshot(name, &out.stdout);
    }
}

#[test]
fn snapshot_rules_explain_and_diff() {
    snapshot("rules.txt", &cli(&["rules"], "", false).stdout);
    let json = cli(&["rules", "--format", "json"], "", false);
    assert_eq!(json.code, EXIT_OK);
    let list: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(hindsight_core::rules::ALL.len())
    );
    assert_eq!(list[0]["id"], "port-unchecked");
    assert!(list[0]["why"].as_str().is_some_and(|w| !w.is_empty()));
    snapshot("rules.json", &json.stdout);
    snapshot(
        "explain-port-unchecked.md",
        &cli(&["explain", "port-unchecked"], "", false).stdout,
    );

    let (a, b) = (case("seed-sglang-eagle3"), case("diligent-sglang-verified"));
    let text = cli(&["diff", &a, &b], "", false);
    assert_eq!(text.code, EXIT_OK, "{}", text.stderr);
    assert!(
        text.stdout.contains("B checked the port, a real request"),
        "{}",
        text.stdout
    );
    snapshot("diff-seed-diligent.txt", &portable(&text.stdout));
    let json = cli(&["diff", "--format", "json", &a, &b], "", false);
    assert_eq!(json.code, EXIT_OK, "{}", json.stderr);
    let diff: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
    assert_eq!(diff["servers"][0]["checks"][0]["check"], "port-listening");
    assert_eq!(diff["servers"][0]["checks"][0]["a"], "not-checked");
    assert_eq!(diff["servers"][0]["checks"][0]["b"], "passed");
    snapshot("diff-seed-diligent.json", &portable(&json.stdout));

    // The other way round, the sentence turns round too.
    let back = cli(&["diff", &b, &a], "", false);
    assert!(
        back.stdout.contains("A checked the port"),
        "{}",
        back.stdout
    );
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = cli(&["completions", shell], "", false);
        assert_eq!(out.code, EXIT_OK, "{shell}: {}", out.stderr);
        for word in ["analyze", "scan", "diff", "explain", "fail-on"] {
            assert!(out.stdout.contains(word), "{shell} lacks {word}");
        }
    }
    let out = cli(&["completions", "tcsh"], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn help_has_examples_and_exit_codes() {
    let out = cli(&["--help"], "", false);
    assert_eq!(out.code, EXIT_OK);
    for word in [
        "analyze",
        "scan",
        "diff",
        "rules",
        "explain",
        "completions",
        "Examples:",
        "Exit status:",
        "hindsight.toml",
    ] {
        assert!(out.stdout.contains(word), "--help lacks {word}");
    }
    for command in ["analyze", "scan", "diff"] {
        let out = cli(&[command, "--help"], "", false);
        assert_eq!(out.code, EXIT_OK);
        assert!(out.stdout.contains("Examples:"), "{command}");
    }
    let out = cli(&["analyze", "--help"], "", false);
    for flag in [
        "--fail-on",
        "--select",
        "--ignore",
        "--severity",
        "--config",
        "--no-config",
        "--redact",
        "--color",
        "sarif",
    ] {
        assert!(out.stdout.contains(flag), "analyze --help lacks {flag}");
    }
}

// ---- Exit codes, rule selection and configuration --------------------------

/// Rule ids of a JSON report.
fn rules_of(json: &str) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["rule"].as_str().map(str::to_owned))
        .collect()
}

fn severities_of(json: &str) -> Vec<String> {
    let report: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["severity"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn fail_on_sets_the_exit_status() {
    let seed = case("seed-sglang-eagle3");
    // The seed has warnings only.
    for (threshold, code) in [
        ("never", EXIT_OK),
        ("error", EXIT_OK),
        ("warning", EXIT_FINDINGS),
        ("info", EXIT_FINDINGS),
    ] {
        let out = cli(&["analyze", "--fail-on", threshold, &seed], "", false);
        assert_eq!(out.code, code, "--fail-on {threshold}");
        assert!(!out.stdout.is_empty());
    }
    // Raised to an error, one rule trips an error gate.
    let out = cli(
        &[
            "analyze",
            "--fail-on",
            "error",
            "--severity",
            "ranks-uncounted=error",
            &seed,
        ],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_FINDINGS);
    // A diligent session passes the strictest gate.
    let out = cli(
        &[
            "analyze",
            "--fail-on",
            "info",
            &case("diligent-sglang-verified"),
        ],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_OK, "{}", out.stdout);
    // SARIF and JSON gate the same way.
    let out = cli(
        &[
            "analyze",
            "--format",
            "sarif",
            "--fail-on",
            "warning",
            &seed,
        ],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_FINDINGS);
}

#[test]
fn select_ignore_and_severity_flags() {
    let seed = case("seed-sglang-eagle3");
    let out = cli(
        &[
            "analyze",
            "--format",
            "json",
            "--select",
            "port-unchecked,ranks-uncounted",
            "--select",
            "drafter-unconfirmed",
            "--ignore",
            "ranks-uncounted",
            &seed,
        ],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    assert_eq!(
        rules_of(&out.stdout),
        ["port-unchecked", "drafter-unconfirmed"]
    );
    let out = cli(
        &[
            "analyze",
            "--format",
            "json",
            "--select",
            "port-unchecked",
            "--severity",
            "port-unchecked=info",
            &seed,
        ],
        "",
        false,
    );
    assert_eq!(severities_of(&out.stdout), ["info"]);
}

#[test]
fn unknown_rules_and_bad_severities_are_one_line_errors() {
    let seed = case("seed-sglang-eagle3");
    for args in [
        vec!["analyze", "--select", "port-uncheked", &seed],
        vec!["analyze", "--ignore", "nope", &seed],
        vec!["analyze", "--severity", "nope=error", &seed],
        vec!["scan", "--ignore", "nope", &seed],
        vec!["diff", "--select", "nope", &seed, &seed],
    ] {
        let out = cli(&args, "", false);
        assert_eq!(out.code, EXIT_ERROR, "{args:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("hindsight: error: unknown rule `"));
        assert!(out.stderr.contains("known rules: port-unchecked"));
        assert!(out.stdout.is_empty());
    }
    let out = cli(
        &["analyze", "--severity", "port-unchecked=fatal", &seed],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_ERROR);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown severity `fatal`"),
        "{}",
        out.stderr
    );
    let out = cli(
        &["analyze", "--severity", "port-unchecked", &seed],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_ERROR);
    assert!(out.stderr.contains("is not RULE=LEVEL"), "{}", out.stderr);
}

/// A fresh scratch directory under the system's temporary folder.
fn scratch(name: &str) -> std::path::PathBuf {
    hindsight_tests::scratch_dir("cli", name)
}

#[test]
fn hindsight_toml_is_found_above_the_current_directory() {
    let dir = scratch("toml");
    let nested = dir.join("a/b");
    let _ = std::fs::create_dir_all(&nested);
    let _ = std::fs::write(
        dir.join("hindsight.toml"),
        "[rules]\nignore = [\"port-unchecked\"]\nseverity = { ranks-uncounted = \"error\" }\n",
    );
    let seed = case("seed-sglang-eagle3");
    let out = cli_in(&["analyze", "--format", "json", &seed], "", false, &nested);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    let rules = rules_of(&out.stdout);
    assert!(!rules.contains(&"port-unchecked".to_owned()));
    assert_eq!(
        severities_of(&out.stdout)[rules
            .iter()
            .position(|r| r == "ranks-uncounted")
            .unwrap_or(0)],
        "error"
    );
    // Flags layer over the file.
    let out = cli_in(
        &[
            "analyze",
            "--format",
            "json",
            "--severity",
            "ranks-uncounted=info",
            &seed,
        ],
        "",
        false,
        &nested,
    );
    assert!(severities_of(&out.stdout).contains(&"info".to_owned()));
    assert!(!rules_of(&out.stdout).contains(&"port-unchecked".to_owned()));
    // --no-config ignores it; --config names another.
    let out = cli_in(
        &["analyze", "--format", "json", "--no-config", &seed],
        "",
        false,
        &nested,
    );
    assert_eq!(rules_of(&out.stdout), hindsight_tests::SEED_FINDINGS);
    let other = dir.join("other.toml");
    let _ = std::fs::write(&other, "[rules]\nselect = [\"drafter-unconfirmed\"]\n");
    let other_arg = other.display().to_string();
    let out = cli_in(
        &["analyze", "--format", "json", "--config", &other_arg, &seed],
        "",
        false,
        &nested,
    );
    assert_eq!(rules_of(&out.stdout), ["drafter-unconfirmed"]);

    // Bad files: one line naming the file, line and column.
    let _ = std::fs::write(&other, "[rules]\nselct = [\"x\"]\n");
    let out = cli_in(
        &["analyze", "--config", &other_arg, &seed],
        "",
        false,
        &nested,
    );
    assert_eq!(out.code, EXIT_ERROR);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("invalid configuration `{}:2:1`", other.display())),
        "{}",
        out.stderr
    );
    let _ = std::fs::write(&other, "[rules]\nignore = [\"port-uncheked\"]\n");
    let out = cli_in(
        &["analyze", "--config", &other_arg, &seed],
        "",
        false,
        &nested,
    );
    assert_eq!(out.code, EXIT_ERROR);
    assert!(
        out.stderr.contains("unknown rule `port-uncheked`"),
        "{}",
        out.stderr
    );
    let out = cli_in(
        &["analyze", "--config", "/nonexistent.toml", &seed],
        "",
        false,
        &nested,
    );
    assert_eq!(out.code, EXIT_ERROR);
    assert!(out.stderr.contains("cannot read `/nonexistent.toml`"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn colour_follows_the_terminal_no_color_and_the_flag() {
    let seed = case("seed-sglang-eagle3");
    let tmp = std::env::temp_dir();
    assert!(
        cli_with(&["analyze", &seed], "", true, false, &tmp)
            .stdout
            .contains('\x1b')
    );
    assert!(
        !cli_with(&["analyze", &seed], "", true, true, &tmp)
            .stdout
            .contains('\x1b')
    );
    assert!(
        !cli_with(&["analyze", &seed], "", false, false, &tmp)
            .stdout
            .contains('\x1b')
    );
    let always = ["analyze", "--color", "always", seed.as_str()];
    assert!(
        cli_with(&always, "", false, true, &tmp)
            .stdout
            .contains('\x1b')
    );
    // Machine formats never carry colour.
    let sarif = [
        "analyze",
        "--color",
        "always",
        "--format",
        "sarif",
        seed.as_str(),
    ];
    assert!(!cli(&sarif, "", true).stdout.contains('\x1b'));
}

#[test]
fn redact_masks_hosts_and_users_consistently() {
    let seed = case("seed-sglang-eagle3");
    let plain = cli(&["analyze", &seed], "", false);
    assert!(plain.stdout.contains("10.1.230.174"));
    for format in ["text", "json", "markdown", "sarif"] {
        let out = cli(
            &["analyze", "--redact", "--format", format, &seed],
            "",
            false,
        );
        assert_eq!(out.code, EXIT_OK, "{format}");
        assert!(!out.stdout.contains("10.1.230.174"), "{format}");
        assert!(out.stdout.contains("<user-1>@<ip-1>"), "{format}");
    }
    // The findings are the same: only values are masked.
    let json = cli(
        &["analyze", "--redact", "--format", "json", &seed],
        "",
        false,
    );
    assert_eq!(rules_of(&json.stdout), hindsight_tests::SEED_FINDINGS);
}

#[test]
fn bad_inputs_and_flags_give_one_line_each() {
    for (args, needle) in [
        (
            vec!["analyze", "--bogus", "x"],
            "unexpected argument '--bogus'",
        ),
        (vec!["analyze"], "required arguments were not provided"),
        (
            vec!["analyze", "--format", "yaml", "x"],
            "invalid value 'yaml'",
        ),
        (
            vec!["analyze", "--fail-on", "fatal", "x"],
            "invalid value 'fatal'",
        ),
        (
            vec!["analyze", "--input-format", "nope", "x"],
            "unknown format `nope`",
        ),
        (vec!["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (
            vec!["analyze", "/nonexistent/t.txt"],
            "cannot read `/nonexistent/t.txt`",
        ),
        (
            vec!["scan", "/nonexistent/dir"],
            "cannot read `/nonexistent/dir`",
        ),
        (
            vec!["diff", "/nonexistent/a", "/nonexistent/b"],
            "cannot read `/nonexistent/a`",
        ),
        (
            vec!["scan", "--format", "sarif", "."],
            "invalid value 'sarif'",
        ),
    ] {
        let out = cli(&args, "", false);
        assert_eq!(out.code, EXIT_ERROR, "{args:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("hindsight: "), "{}", out.stderr);
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    let file = root().join("examples/seed-sglang-eagle3/transcript.txt");
    let out = cli(&["scan", &file.display().to_string()], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert!(out.stderr.contains("is not a directory"), "{}", out.stderr);
}

#[test]
fn a_folder_is_one_session() {
    let out = cli(
        &["analyze", "--format", "json", &case("seed-sglang-eagle3")],
        "",
        false,
    );
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    assert_eq!(rules_of(&out.stdout), hindsight_tests::SEED_FINDINGS);
    let dir = scratch("empty");
    let out = cli(&["analyze", &dir.display().to_string()], "", false);
    assert_eq!(out.code, EXIT_ERROR);
    assert!(out.stderr.contains("no files under"), "{}", out.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- SARIF against the official schema -------------------------------------

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let text = std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json"))
        .unwrap_or_default();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    // The schema is strict enough to catch a wrong shape.
    assert!(!validator.is_valid(&serde_json::json!({"version": "2.1.0", "runs": [{}]})));
    let mut results = 0;
    for case_dir in hindsight_tests::cases() {
        let out = cli(
            &[
                "analyze",
                "--format",
                "sarif",
                &case_dir.display().to_string(),
            ],
            "",
            false,
        );
        assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
        let log: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", case_dir.display());
        let run = &log["runs"][0];
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(hindsight_core::rules::ALL.len())
        );
        for result in run["results"].as_array().into_iter().flatten() {
            results += 1;
            let rule = result["ruleId"].as_str().unwrap_or_default();
            let index = result["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
            assert_eq!(run["tool"]["driver"]["rules"][index]["id"], rule);
            let region = &result["locations"][0]["physicalLocation"]["region"];
            assert!(region["startLine"].as_u64().is_some_and(|l| l >= 1));
            assert!(region["endLine"].as_u64() >= region["startLine"].as_u64());
            assert!(["error", "warning", "note"].contains(&result["level"].as_str().unwrap_or("")));
        }
    }
    assert!(results >= 20, "only {results} results over the examples");
    // Rule descriptors carry the docs.
    let out = cli(&["analyze", "--format", "sarif", "-"], "", false);
    let log: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    let rule = &log["runs"][0]["tool"]["driver"]["rules"][0];
    assert_eq!(rule["id"], "port-unchecked");
    assert_eq!(
        rule["shortDescription"]["text"],
        hindsight_core::rules::ALL[0].title
    );
    assert_eq!(
        rule["fullDescription"]["text"],
        hindsight_core::rules::ALL[0].why
    );
    assert!(validator.is_valid(&log));
}

// ---- scan -------------------------------------------------------------------

/// A projects folder laid out the way Claude Code keeps it, plus the odd
/// files a real tree has.
fn projects_tree(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let ex = root().join("examples");
    let copy = |from: &str, to: &str| {
        let to = dir.join(to);
        let _ = std::fs::create_dir_all(to.parent().unwrap_or(&dir));
        let _ = std::fs::copy(ex.join(from), to);
    };
    copy("seed-claude-code/session.jsonl", "proj/abc.jsonl");
    copy(
        "diligent-claude-code-vllm-tp2/session.jsonl",
        "proj/abc/subagents/agent-1.jsonl",
    );
    copy(
        "seed-claude-code/sglang_eagle3_aqmedai.log",
        "proj/sglang_eagle3_aqmedai.log",
    );
    copy("seed-sglang-eagle3/transcript.txt", "other/run.txt");
    copy(
        "seed-sglang-eagle3/sglang_eagle3_aqmedai.log",
        "other/sglang_eagle3_aqmedai.log",
    );
    copy("seed-sglang-eagle3/report.json", "other/report.json");
    let _ = std::fs::write(dir.join("other/screenshot.png"), [0x89, b'P', b'N', b'G']);
    let _ = std::fs::write(dir.join("bad-utf8.txt"), b"$ ls\n\xff\xfe\n");
    let _ = std::fs::create_dir_all(dir.join(".hidden"));
    let _ = std::fs::write(dir.join(".hidden/x.jsonl"), "{}");
    #[cfg(unix)]
    let _ = std::os::unix::fs::symlink(dir.join("gone.jsonl"), dir.join("broken.jsonl"));
    dir
}

#[test]
fn scan_summarizes_a_projects_tree() {
    let dir = projects_tree("scan-summary");
    let arg = dir.display().to_string();
    let out = cli(&["scan", &arg], "", false);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    // The dangling link is reported and skipped; nothing else warns.
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("broken.jsonl"), "{}", out.stderr);
    assert!(out.stderr.starts_with("hindsight: warning: cannot read"));
    let text = out.stdout.replace(&arg, "<dir>");
    snapshot("scan-tree.txt", &text);
    assert!(text.contains("3 sessions under <dir>"), "{text}");
    assert!(text.contains("1 sub-agent file joined"), "{text}");
    assert!(text.contains("2 of 2 log files joined"), "{text}");
    assert!(
        text.contains("1 not a transcript, 1 of other types, 1 unreadable"),
        "{text}"
    );

    let json = cli(&["scan", "--format", "json", &arg], "", false);
    let summary: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
    assert_eq!(summary["sessions"], 3);
    assert_eq!(summary["subagent_files_joined"], 1);
    assert_eq!(summary["by_rule"][0]["rule"], "port-unchecked");
    assert_eq!(summary["by_rule"][0]["sessions"], 2);
    snapshot("scan-tree.json", &json.stdout.replace(&arg, "<dir>"));

    // --fail-on counts across every session.
    assert_eq!(
        cli(&["scan", "--fail-on", "warning", &arg], "", false).code,
        EXIT_FINDINGS
    );
    assert_eq!(
        cli(&["scan", "--fail-on", "error", &arg], "", false).code,
        EXIT_OK
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_jsonl_streams_one_report_per_session_in_a_stable_order() {
    let dir = projects_tree("scan-jsonl");
    let arg = dir.display().to_string();
    let one = cli(
        &["scan", "--format", "jsonl", "--jobs", "1", &arg],
        "",
        false,
    );
    let four = cli(
        &["scan", "--format", "jsonl", "--jobs", "4", &arg],
        "",
        false,
    );
    assert_eq!(one.code, EXIT_OK, "{}", one.stderr);
    assert_eq!(one.stdout, four.stdout);
    let lines: Vec<serde_json::Value> = one
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_default())
        .collect();
    let sessions: Vec<&str> = lines.iter().filter_map(|l| l["session"].as_str()).collect();
    assert_eq!(
        sessions,
        ["bad-utf8.txt", "other/run.txt", "proj/abc.jsonl"]
    );
    // The sub-agent file and the log its commands name joined the parent.
    let abc = &lines[2];
    assert_eq!(
        abc["files"],
        serde_json::json!(["proj/abc.jsonl", "proj/abc/subagents/agent-1.jsonl"])
    );
    let sources: Vec<&str> = abc["report"]["sources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(
        sources,
        ["abc.jsonl", "agent-1.jsonl", "sglang_eagle3_aqmedai.log"]
    );
    assert_eq!(
        abc["report"]["servers"][0]["log_source"],
        "sglang_eagle3_aqmedai.log"
    );
    assert_eq!(
        rules_of(&abc["report"].to_string()),
        hindsight_tests::SEED_FINDINGS
    );
    // The pasted transcript got the log beside it, not the one in proj/.
    let run = &lines[1];
    assert_eq!(run["report"]["sources"][1]["lines"], 254);
    // Bad bytes are a diagnostic, not a failure.
    assert!(
        lines[0]["report"]["diagnostics"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("invalid UTF-8"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_of_the_examples() {
    let examples = root().join("examples");
    let out = cli(&["scan", &examples.display().to_string()], "", false);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    snapshot("scan-examples.txt", &portable(&out.stdout));
}

/// Files `scan` must get past without hanging or dying: a FIFO nobody
/// writes (opened, it would block the scan for ever), a link to one, a link
/// to the folder itself, and two links that point at each other.
#[cfg(unix)]
#[test]
fn scan_gets_past_fifos_and_link_loops() {
    let dir = hindsight_tests::scratch_dir("scan", "faults");
    let _ = std::fs::copy(
        root().join("examples/seed-claude-code/session.jsonl"),
        dir.join("ok.jsonl"),
    );
    let fifo = dir.join("pipe.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    assert!(made, "mkfifo");
    let _ = std::os::unix::fs::symlink(&fifo, dir.join("to-pipe.jsonl"));
    let _ = std::os::unix::fs::symlink(&dir, dir.join("itself"));
    let _ = std::os::unix::fs::symlink(dir.join("b.jsonl"), dir.join("a.jsonl"));
    let _ = std::os::unix::fs::symlink(dir.join("a.jsonl"), dir.join("b.jsonl"));
    let arg = dir.display().to_string();
    let out = cli(&["scan", &arg], "", false);
    assert_eq!(out.code, EXIT_OK, "{}", out.stderr);
    assert!(out.stdout.contains("1 session under"), "{}", out.stdout);
    // Each looping link is reported, once, and counted unreadable.
    assert_eq!(out.stderr.lines().count(), 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("a.jsonl") && out.stderr.contains("b.jsonl"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("2 unreadable"), "{}", out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

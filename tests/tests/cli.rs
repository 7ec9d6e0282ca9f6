//! The `hindsight` CLI, run in-process with captured input and output.

use hindsight_cli::{EXIT_ERROR, EXIT_OK, Io, run};
use hindsight_tests::root;

struct Output {
    code: u8,
    stdout: String,
    stderr: String,
}

fn cli(args: &[&str], stdin: &str, terminal: bool) -> Output {
    let mut stdin = stdin.as_bytes();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut io = Io {
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal: terminal,
        no_color: false,
    };
    let code = run(
        std::iter::once("hindsight").chain(args.iter().copied()),
        &mut io,
    );
    Output {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
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

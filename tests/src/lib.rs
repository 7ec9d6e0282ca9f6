//! Helpers for the workspace tests: the cases under `examples/` and golden files.
//!
//! A case is a folder holding input files (a transcript and any logs) plus
//! `expected.json` (what must be found, asserted exactly) and `report.json`
//! (the full report, a golden file). Set `UPDATE_GOLDEN=1` to rewrite golden
//! files after an intended change, then review the diff.

#![forbid(unsafe_code)]

pub mod corpus;
pub mod generate;

use std::path::{Path, PathBuf};

use hindsight_core::Source;

/// The findings the seed session must yield, in report order.
pub const SEED_FINDINGS: [&str; 6] = [
    "port-unchecked",
    "drafter-unconfirmed",
    "ranks-uncounted",
    "load-taken-as-ready",
    "process-taken-as-serving",
    "claim-without-evidence",
];

/// Files in a case folder that are not inputs.
const NOT_INPUTS: &[&str] = &["expected.json", "report.json", "notes.md", "README.md"];

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every case folder under `examples/`, sorted.
pub fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("expected.json").is_file())
                .collect()
        })
        .unwrap_or_default();
    cases.sort();
    cases
}

/// The input files of a case, sorted by name (the order the CLI is given them).
pub fn inputs(case: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(case)
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

/// The sources of a case, read as the CLI reads them.
pub fn sources(case: &Path) -> Vec<Source> {
    inputs(case)
        .iter()
        .map(|path| {
            let bytes = std::fs::read(path).unwrap_or_default();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Source::from_bytes(name, &bytes)
        })
        .collect()
}

/// The hand-written lifecycle labels of a case (`expected.json`'s
/// `lifecycle` array), if it has any. Unlike the rest of `expected.json`
/// they are never regenerated: they are what a reader of the log says the
/// server did, checked against the report by `tests/tests/lifecycle.rs`.
pub fn lifecycle_labels(case: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(case.join("expected.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("lifecycle").cloned()
}

/// Whether golden files should be rewritten instead of compared.
pub fn updating() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty())
}

/// Compares `actual` with the golden file at `path`, or rewrites it when updating.
/// Returns a message describing the difference, if any.
pub fn check_golden(path: &Path, actual: &str) -> Option<String> {
    if updating() {
        return std::fs::write(path, actual)
            .err()
            .map(|e| format!("cannot write {}: {e}", path.display()));
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected == actual {
        return None;
    }
    let first_difference = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    Some(format!(
        "{} differs from the output (first at line {}):\n  golden: {:?}\n  actual: {:?}\n\
         Rerun with UPDATE_GOLDEN=1 if the change is intended, and review the diff.",
        path.display(),
        first_difference + 1,
        expected.lines().nth(first_difference).unwrap_or("<end>"),
        actual.lines().nth(first_difference).unwrap_or("<end>"),
    ))
}

/// What one in-process run of the CLI printed, and its exit status.
#[derive(Debug)]
pub struct Ran {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// Where and how an in-process run happens: standard input, the working
/// folder, the environment the CLI reads, and whether stdout is a terminal
/// and colour is off. The default: no input, the system's temporary folder
/// (no hindsight.toml above it), an empty environment, no terminal, colour
/// off.
pub struct Setting<'a> {
    pub stdin: &'a [u8],
    pub current_dir: PathBuf,
    pub env: hindsight_cli::Env,
    pub stdout_is_terminal: bool,
    pub no_color: bool,
}

impl Default for Setting<'_> {
    fn default() -> Self {
        Self {
            stdin: &[],
            current_dir: std::env::temp_dir(),
            env: hindsight_cli::Env::default(),
            stdout_is_terminal: false,
            no_color: true,
        }
    }
}

/// Runs `hindsight ARGS…` in process, as the binary does, with captured
/// input and output.
pub fn run_cli<A: Into<std::ffi::OsString>>(
    args: impl IntoIterator<Item = A>,
    setting: Setting<'_>,
) -> Ran {
    let mut stdin = setting.stdin;
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut io = hindsight_cli::Io {
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal: setting.stdout_is_terminal,
        stderr_is_terminal: false,
        no_color: setting.no_color,
        current_dir: setting.current_dir,
        env: setting.env,
    };
    let args: Vec<std::ffi::OsString> = std::iter::once("hindsight".into())
        .chain(args.into_iter().map(Into::into))
        .collect();
    let code = hindsight_cli::run(args, &mut io);
    Ran {
        code,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

/// A fresh, empty folder of a test's own under the system's temporary
/// folder: `hindsight-KIND-PID-NAME`, emptied first if a run left it.
pub fn scratch_dir(kind: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hindsight-{kind}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The report `hindsight analyze --format json FILES…` prints, run in
/// process as a user runs it (sessions streamed through the condenser).
pub fn cli_report(files: &[PathBuf]) -> serde_json::Value {
    let args = ["analyze", "--format", "json"]
        .into_iter()
        .map(std::ffi::OsString::from)
        .chain(files.iter().map(|f| f.as_os_str().to_owned()));
    let ran = run_cli(args, Setting::default());
    serde_json::from_str(&ran.stdout).unwrap_or(serde_json::Value::Null)
}

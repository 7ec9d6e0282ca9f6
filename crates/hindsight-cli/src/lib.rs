//! The command-line face of hindsight-core, as a library so tests can run it
//! in-process with their own input, output and working directory.
//!
//! Reads files (or stdin), hands them to the core, and prints the report. All
//! analysis lives in the core; this crate only does I/O, argument parsing,
//! configuration files, parallel scans and exit codes.
//!
//! Exit codes, the same for every subcommand: [`EXIT_OK`] (0) when the command
//! ran and no finding reached `--fail-on`; [`EXIT_FINDINGS`] (1) when one did;
//! [`EXIT_ERROR`] (2) for usage errors, unreadable inputs and bad configuration.

#![forbid(unsafe_code)]

mod config;
mod diff;
#[doc(hidden)]
pub mod fuzzing;
mod hook;
mod inputs;
mod install;
pub mod read;
mod redact;
mod scan;
mod watch;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use hindsight_core::{Format, Report, Severity, analyze_with, rules};

/// Exit status when the command ran and no finding reached `--fail-on`.
pub const EXIT_OK: u8 = 0;
/// Exit status when a finding is at or above the `--fail-on` severity.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status for bad arguments, unreadable files, bad configuration and
/// other usage errors.
pub const EXIT_ERROR: u8 = 2;

const MAIN_HELP: &str = "\
Examples:
  hindsight analyze transcript.txt sglang.log     one session: a transcript and its logs
  hindsight analyze --fail-on warning session.jsonl   gate a CI job on findings
  hindsight analyze --format sarif session.jsonl > hindsight.sarif
  hindsight scan ~/.claude/projects               every session under a directory
  hindsight diff run-a/ run-b/                    what one session checked and the other did not
  hindsight explain port-unchecked
  hindsight install claude-code                   guard a live agent (also codex, gemini)
  hindsight watch --log /tmp/vllm.log             follow the newest Claude Code session live

Exit status: 0 ran (no finding at or above --fail-on), 1 a finding at or above
--fail-on, 2 usage error, unreadable input or bad configuration.

Configuration: a `hindsight.toml` with a [rules] table (select, ignore,
severity) is read from the current directory or the nearest parent, unless
--config PATH or --no-config is given. Flags are layered over the file.";

const ANALYZE_HELP: &str = "\
Examples:
  hindsight analyze transcript.txt sglang.log
  hindsight analyze examples/seed-sglang-eagle3/          every file in a folder, one session
  hindsight analyze --format json transcript.txt server.log > report.json
  hindsight analyze --format sarif --fail-on warning session.jsonl > hindsight.sarif
  hindsight analyze --select port-unchecked,ranks-uncounted --severity port-unchecked=error -
  pbpaste | hindsight analyze -

Exit status: 0 ran, 1 a finding at or above --fail-on, 2 usage or input error.";

const SCAN_HELP: &str = "\
Each transcript file is one session. Claude Code sub-agent files
(<session>/subagents/agent-*.jsonl) join their parent <session>.jsonl. A log
file (*.log, *.out, *.err) joins every session whose text names it by file
name; when several logs share that name, the one nearest the transcript wins.
Files of other types, hidden files and folders are skipped; a file that cannot
be read is reported on stderr and skipped.

Examples:
  hindsight scan ~/.claude/projects
  hindsight scan --format jsonl ~/.claude/projects > reports.jsonl
  hindsight scan --fail-on error --jobs 4 runs/

Exit status: 0 ran, 1 a session has a finding at or above --fail-on, 2 usage
error or unreadable DIR.";

const HOOK_HELP: &str = "\
Run by the agent, not by hand: `hindsight install AGENT` writes the hook
entries. Claude Code: PostToolUse (Bash, KillShell), Stop, SubagentStop (PostToolBatch
is answered too, if you add it). Codex: PostToolUse, Stop. Gemini CLI:
AfterTool, AfterAgent.

After a tool launched, killed or built something, the agent is told what is
not yet verified. When it is about to stop and its last message claims
success while findings remain, the stop is refused with each check's command
(mode block; at most --max-blocks times per prompt). Any error: exit 0,
nothing on stdout, the reason appended to hook.log in the state folder
($HINDSIGHT_STATE_DIR, else $XDG_STATE_HOME/hindsight, else
~/.local/state/hindsight).

hindsight.toml (looked for from the agent's working folder up):
  [hook]
  mode = \"block\"      # warn | nudge | block
  max_blocks = 2";

const INSTALL_HELP: &str = "\
Settings files: Claude Code ~/.claude/settings.json (user),
.claude/settings.json (project), .claude/settings.local.json (local); Codex
~/.codex/hooks.json, .codex/hooks.json; Gemini CLI ~/.gemini/settings.json,
.gemini/settings.json. Everything else in the file is kept, in its order; the
old file is backed up beside it and the new one written atomically.

Examples:
  hindsight install claude-code
  hindsight install codex --scope project --dry-run
  hindsight doctor";

const WATCH_HELP: &str = "\
Without PATH, follows the newest Claude Code session under ~/.claude/projects.
Files are followed by a file watcher and a tick (--interval); a last line
still being written waits for its newline; a file that shrinks or is replaced
is read again. On a terminal the view is redrawn; otherwise each change is
printed once as plain lines.

Examples:
  hindsight watch
  hindsight watch ~/.codex/sessions/2026/02/11/rollout-….jsonl --log /tmp/vllm.log
  hindsight watch --once session.jsonl | grep unverified";

const DIFF_HELP: &str = "\
A and B are each one session: a file, or a folder whose files form the session.

Examples:
  hindsight diff run-a/transcript.txt run-b/transcript.txt
  hindsight diff --format json examples/seed-sglang-eagle3 examples/diligent-sglang-verified";

/// What did the agent verify, and what did it only assume?
///
/// hindsight reads AI coding agents' transcripts and inference-server logs and
/// flags what the agent took for granted: ports never checked, drafters never
/// confirmed, tensor-parallel ranks never counted.
#[derive(Parser, Debug)]
#[command(name = "hindsight", version, about, long_about = None, after_help = MAIN_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Analyze one session: a transcript plus any server logs, together.
    #[command(after_help = ANALYZE_HELP)]
    Analyze(AnalyzeArgs),
    /// Analyze every session under a directory, in parallel, and summarize.
    #[command(after_help = SCAN_HELP)]
    Scan(scan::ScanArgs),
    /// Compare two sessions by their checkpoints and verification ledgers.
    #[command(after_help = DIFF_HELP)]
    Diff(diff::DiffArgs),
    /// List every rule.
    Rules {
        /// Output format.
        #[arg(long, short, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Print the documentation of one rule.
    Explain {
        /// A rule id, such as `port-unchecked`.
        rule: String,
    },
    /// The live guard: answer one hook event of a running agent (JSON on
    /// stdin) with what it has not verified. Always exits 0.
    #[command(after_help = HOOK_HELP)]
    Hook(hook::HookArgs),
    /// Add the live guard's hooks to an agent's settings file.
    #[command(after_help = INSTALL_HELP)]
    Install(install::InstallArgs),
    /// Remove the live guard's hooks from an agent's settings file.
    Uninstall(install::UninstallArgs),
    /// Check that the live guard is installed and its command resolves.
    Doctor(install::DoctorArgs),
    /// Follow a running session and its server logs: the timeline as it
    /// grows and what is still unverified, with commands.
    #[command(after_help = WATCH_HELP)]
    Watch(watch::WatchArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = "Examples:\n  \
        hindsight completions bash > ~/.local/share/bash-completion/completions/hindsight\n  \
        hindsight completions zsh > ~/.zfunc/_hindsight\n  \
        hindsight completions fish > ~/.config/fish/completions/hindsight.fish")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(clap::Args, Debug)]
struct AnalyzeArgs {
    /// Files or folders to analyze as one session; `-` reads standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = AnalyzeFormat::Text)]
    format: AnalyzeFormat,
    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    input_format: Option<Format>,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    rules: config::RuleArgs,
}

/// Options every analysing subcommand shares.
#[derive(clap::Args, Debug, Clone, Copy)]
struct OutputArgs {
    /// When to colour text output (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Exit with status 1 when a finding is at or above this severity.
    #[arg(long, value_enum, default_value_t = FailOn::Never, value_name = "SEVERITY")]
    fail_on: FailOn,
    /// Also mask IP addresses, e-mail addresses, ssh user and host names and
    /// home-directory user names, for sharing a report. (Credentials are
    /// always redacted.)
    #[arg(long)]
    redact: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum AnalyzeFormat {
    /// Compiler-style diagnostics.
    Text,
    /// The report (version 1, see docs/report.schema.json).
    Json,
    /// A postmortem in Markdown.
    Markdown,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Info,
    /// Exit 0 whatever is found.
    Never,
}

impl FailOn {
    /// Whether a finding of this severity fails the run.
    fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Never => false,
            FailOn::Error => severity >= Severity::Error,
            FailOn::Warning => severity >= Severity::Warning,
            FailOn::Info => true,
        }
    }

    fn fails_report(self, report: &Report) -> bool {
        report.findings.iter().any(|f| self.fails(f.severity))
    }
}

impl OutputArgs {
    fn color(&self, io: &Io<'_>) -> bool {
        match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => io.stdout_is_terminal && !io.no_color,
        }
    }
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

/// The process's surroundings, injected so tests can capture them.
pub struct Io<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Whether stdout is a terminal (colours in `--color auto`).
    pub stdout_is_terminal: bool,
    /// Whether stderr is a terminal (the progress bar of `scan`).
    pub stderr_is_terminal: bool,
    /// Whether `NO_COLOR` is set to a non-empty value.
    pub no_color: bool,
    /// Where `hindsight.toml` is looked for (then in each parent).
    pub current_dir: PathBuf,
    /// The environment variables `hook`, `install` and `doctor` read.
    pub env: Env,
}

/// The environment variables the live guard and the installer read,
/// injected so tests can point them at their own folders.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// `HOME`: where the agents keep their user settings.
    pub home: Option<PathBuf>,
    /// `XDG_STATE_HOME`: the hook's state goes in `hindsight/` under it
    /// (else under `~/.local/state`).
    pub xdg_state_home: Option<PathBuf>,
    /// `HINDSIGHT_STATE_DIR`: the hook's state folder itself, over the two
    /// above.
    pub state_dir: Option<PathBuf>,
    /// `PATH`: where a hook command written without a path must be found.
    pub path: Option<OsString>,
}

impl Env {
    /// The variables of the running process (empty ones count as unset).
    pub fn from_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Self {
            home: var("HOME").map(PathBuf::from),
            xdg_state_home: var("XDG_STATE_HOME").map(PathBuf::from),
            state_dir: var("HINDSIGHT_STATE_DIR").map(PathBuf::from),
            path: var("PATH"),
        }
    }
}

/// Runs the CLI with `args` (including the program name) and returns the exit status.
pub fn run<I, T>(args: I, io: &mut Io<'_>) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            if error.use_stderr() {
                let _ = writeln!(io.stderr, "hindsight: {}", one_line(&error));
                return EXIT_ERROR;
            }
            // --help and --version.
            let _ = io.stdout.write_all(error.render().to_string().as_bytes());
            return EXIT_OK;
        }
    };
    match execute(cli, io) {
        Ok(code) => code,
        Err(error) => {
            // A closed pipe (`hindsight … | head`) is not an error.
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return EXIT_OK;
            }
            let _ = writeln!(io.stderr, "hindsight: error: {error:#}");
            EXIT_ERROR
        }
    }
}

/// A clap error on one line: its message and any tip or list of possible
/// values, without the usage block (which `--help` shows in full).
fn one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    let mut parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.starts_with("For more information"))
        .collect();
    let first = parts.first().copied().unwrap_or("error: invalid arguments");
    let rest = parts.split_off(1.min(parts.len()));
    let mut line = first.to_owned();
    // `[possible values: …]` and `tip: …` read as asides; a list after a
    // colon (missing arguments) continues the sentence.
    let rest: Vec<&str> = rest
        .iter()
        .map(|p| p.trim_start_matches('[').trim_end_matches(']'))
        .collect();
    if first.ends_with(':') {
        line.push_str(&format!(" {}", rest.join(", ")));
    } else if !rest.is_empty() {
        line.push_str(&format!(" ({})", rest.join("; ")));
    }
    line.push_str("; see --help");
    line
}

fn execute(cli: Cli, io: &mut Io<'_>) -> Result<u8> {
    let code = match cli.command {
        Command::Analyze(args) => analyze(&args, io)?,
        Command::Scan(args) => scan::run(&args, io)?,
        Command::Diff(args) => diff::run(&args, io)?,
        Command::Hook(args) => hook::run(&args, io)?,
        Command::Install(args) => install::install(&args, io)?,
        Command::Uninstall(args) => install::uninstall(&args, io)?,
        Command::Doctor(args) => install::doctor(&args, io)?,
        Command::Watch(args) => watch::run(&args, io)?,
        Command::Rules { format } => {
            list_rules(format, io)?;
            EXIT_OK
        }
        Command::Explain { rule } => {
            let Some(rule) = rules::find(&rule) else {
                let ids: Vec<&str> = rules::ALL.iter().map(|r| r.id).collect();
                anyhow::bail!("no rule `{rule}`; known rules: {}", ids.join(", "));
            };
            write!(io.stdout, "{}", hindsight_core::rules::docs::markdown(rule))?;
            EXIT_OK
        }
        Command::Completions { shell } => {
            let mut command = Cli::command();
            clap_complete::generate(shell, &mut command, "hindsight", &mut io.stdout);
            EXIT_OK
        }
    };
    io.stdout.flush()?;
    Ok(code)
}

fn analyze(args: &AnalyzeArgs, io: &mut Io<'_>) -> Result<u8> {
    let config = config::load(&args.rules, &io.current_dir)?;
    let sources = inputs::read(&args.paths, args.input_format, io.stdin)?;
    let mut report = analyze_with(&sources, &config);
    // The inputs can be large; the report no longer needs them.
    drop(sources);
    if args.output.redact {
        report = redact::report(report);
    }
    let text = match args.format {
        AnalyzeFormat::Json => {
            // Written as it is serialized: a big session's report need not
            // exist twice (as data and as text) at once.
            // 64 KiB writes: a big report is thousands of them, not tens
            // of thousands.
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *io.stdout);
            serde_json::to_writer_pretty(&mut out, &report)?;
            out.write_all(b"\n")?;
            out.flush()?;
            String::new()
        }
        AnalyzeFormat::Markdown => hindsight_core::report::markdown::render(&report),
        AnalyzeFormat::Sarif => hindsight_core::report::sarif::render(&report),
        AnalyzeFormat::Text => hindsight_core::report::text::render(&report, args.output.color(io)),
    };
    io.stdout.write_all(text.as_bytes())?;
    Ok(if args.output.fail_on.fails_report(&report) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

fn list_rules(format: ListFormat, io: &mut Io<'_>) -> Result<()> {
    match format {
        ListFormat::Text => {
            for rule in rules::ALL {
                writeln!(
                    io.stdout,
                    "{:<26} {:<8} {}",
                    rule.id,
                    rule.severity.name(),
                    rule.title
                )?;
            }
        }
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = rules::ALL
                .iter()
                .map(|rule| {
                    serde_json::json!({
                        "id": rule.id,
                        "title": rule.title,
                        "severity": rule.severity.name(),
                        "why": rule.why,
                        "example": rule.example,
                        "check": rule.check,
                    })
                })
                .collect();
            let mut text = serde_json::to_string_pretty(&list)?;
            text.push('\n');
            io.stdout.write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

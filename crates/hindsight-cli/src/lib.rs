//! The command-line face of hindsight-core, as a library so tests can run it
//! in-process with their own input and output.
//!
//! Reads files (or stdin), hands them to the core as one session, and prints
//! the report. All analysis lives in the core; this crate only does I/O,
//! argument parsing and exit codes.

pub mod read;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use hindsight_core::{Format, Source, analyze, rules};

/// What did the agent verify, and what did it only assume?
///
/// hindsight reads AI coding agents' transcripts and inference-server logs and
/// flags what the agent took for granted: ports never checked, drafters never
/// confirmed, tensor-parallel ranks never counted.
#[derive(Parser, Debug)]
#[command(name = "hindsight", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Analyze one session: a transcript plus any server logs, together.
    #[command(after_help = "Examples:\n  \
        hindsight analyze transcript.txt sglang.log\n  \
        hindsight analyze --format json transcript.txt server.log > report.json\n  \
        pbpaste | hindsight analyze -")]
    Analyze(AnalyzeArgs),
    /// List every rule.
    Rules,
    /// Print the documentation of one rule.
    Explain {
        /// A rule id, such as `port-unchecked`.
        rule: String,
    },
}

#[derive(clap::Args, Debug)]
struct AnalyzeArgs {
    /// Files to analyze as one session; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value_t = OutputFormat::Text)]
    format: OutputFormat,
    /// When to colour text output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Read every input as this format instead of detecting it.
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    input_format: Option<Format>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OutputFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

/// Exit status when the analysis ran (findings or not).
pub const EXIT_OK: u8 = 0;
/// Exit status for bad arguments, unreadable files and other usage errors.
pub const EXIT_ERROR: u8 = 2;

/// The process's surroundings, injected so tests can capture them.
pub struct Io<'a> {
    pub stdin: &'a mut dyn Read,
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Whether stdout is a terminal (colours in `--color auto`).
    pub stdout_is_terminal: bool,
    /// Whether `NO_COLOR` is set to a non-empty value.
    pub no_color: bool,
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
            let text = error.render().to_string();
            let (out, code) = if error.use_stderr() {
                (&mut *io.stderr, EXIT_ERROR)
            } else {
                (&mut *io.stdout, EXIT_OK)
            };
            let _ = out.write_all(text.as_bytes());
            return code;
        }
    };
    match execute(cli, io) {
        Ok(()) => EXIT_OK,
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

fn execute(cli: Cli, io: &mut Io<'_>) -> Result<()> {
    match cli.command {
        Command::Analyze(args) => {
            let sources = read_sources(&args, io.stdin)?;
            let report = analyze(&sources);
            let text = match args.format {
                OutputFormat::Json => {
                    let mut json = report.to_json();
                    json.push('\n');
                    json
                }
                OutputFormat::Markdown => hindsight_core::report::markdown::render(&report),
                OutputFormat::Text => {
                    let color = match args.color {
                        ColorChoice::Always => true,
                        ColorChoice::Never => false,
                        ColorChoice::Auto => io.stdout_is_terminal && !io.no_color,
                    };
                    hindsight_core::report::text::render(&report, color)
                }
            };
            io.stdout.write_all(text.as_bytes())?;
        }
        Command::Rules => {
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
        Command::Explain { rule } => {
            let Some(rule) = rules::find(&rule) else {
                let ids: Vec<&str> = rules::ALL.iter().map(|r| r.id).collect();
                anyhow::bail!("no rule `{rule}`; known rules: {}", ids.join(", "));
            };
            write!(io.stdout, "{}", hindsight_core::rules::docs::markdown(rule))?;
        }
    }
    io.stdout.flush()?;
    Ok(())
}

fn read_sources(args: &AnalyzeArgs, stdin: &mut dyn Read) -> Result<Vec<Source>> {
    let mut sources = Vec::new();
    for path in &args.files {
        let source = if path.as_os_str() == "-" {
            read::read_source("stdin".to_owned(), &mut *stdin, args.input_format)
                .context("cannot read standard input")?
        } else {
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            std::fs::File::open(path)
                .and_then(|file| read::read_source(name, file, args.input_format))
                .with_context(|| format!("cannot read `{}`", path.display()))?
        };
        sources.push(source);
    }
    Ok(sources)
}

//! `hindsight`: the command-line face of hindsight-core.
//!
//! Reads files (or stdin), hands them to the core as one session, and prints
//! the report. All analysis lives in the core; this binary only does I/O,
//! argument parsing and exit codes.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            // A closed pipe (`hindsight … | head`) is not an error.
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            let mut stderr = anstream::stderr();
            let _ = writeln!(stderr, "hindsight: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        Command::Analyze(args) => {
            let sources = read_sources(&args)?;
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
                        ColorChoice::Auto => {
                            std::io::stdout().is_terminal()
                                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                        }
                    };
                    hindsight_core::report::text::render(&report, color)
                }
            };
            stdout.write_all(text.as_bytes())?;
        }
        Command::Rules => {
            for rule in rules::ALL {
                writeln!(stdout, "{:<22} {:<8} {}", rule.id, rule.severity.name(), rule.title)?;
            }
        }
        Command::Explain { rule } => {
            let Some(rule) = rules::find(&rule) else {
                let ids: Vec<&str> = rules::ALL.iter().map(|r| r.id).collect();
                anyhow::bail!("no rule `{rule}`; known rules: {}", ids.join(", "));
            };
            write!(stdout, "{}", hindsight_core::rules::docs::markdown(rule))?;
        }
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn read_sources(args: &AnalyzeArgs) -> Result<Vec<Source>> {
    let mut sources = Vec::new();
    for path in &args.files {
        let (name, bytes) = if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            ("stdin".to_owned(), bytes)
        } else {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            let name = path
                .file_name()
                .map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
            (name, bytes)
        };
        let mut source = Source::from_bytes(name, &bytes);
        source.format = args.input_format;
        sources.push(source);
    }
    Ok(sources)
}

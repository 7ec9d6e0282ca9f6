//! Rule configuration from `hindsight.toml` and flags.
//!
//! The file is found by walking up from the current directory (the way
//! `rustfmt.toml` or `ruff.toml` are), unless `--config PATH` names one or
//! `--no-config` turns it off. Flags are layered over the file with
//! [`Config::merged_with`]. Every rule id is checked before anything runs, so
//! a typo in a CI gate fails loudly instead of switching a check off.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use hindsight_core::{Config, Severity};
use serde::Deserialize;

/// The file's name.
pub(crate) const FILE_NAME: &str = "hindsight.toml";

/// Rule selection flags shared by `analyze`, `scan` and `diff`.
#[derive(clap::Args, Debug, Clone, Default)]
pub(crate) struct RuleArgs {
    /// Run only these rules (comma-separated; repeatable).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    select: Vec<String>,
    /// Never run these rules (comma-separated; repeatable).
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    ignore: Vec<String>,
    /// Change a rule's severity, as RULE=error|warning|info (comma-separated;
    /// repeatable).
    #[arg(long, value_delimiter = ',', value_name = "RULE=LEVEL", value_parser = parse_severity)]
    severity: Vec<(String, Severity)>,
    /// Read the rule configuration from this file instead of looking for
    /// `hindsight.toml` in the current directory and its parents.
    #[arg(long, value_name = "PATH", conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Read no `hindsight.toml`.
    #[arg(long)]
    no_config: bool,
}

/// The file's shape: a `[rules]` table and the live guard's `[hook]`
/// table; other keys are errors so a misspelt table is not silently ignored.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct File {
    rules: Config,
    hook: HookSettings,
}

/// The `[hook]` table: how `hindsight hook` answers the agent. Flags of the
/// hook command win over it.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct HookSettings {
    /// `warn`, `nudge` or `block` (see [`Mode`]).
    pub(crate) mode: Option<Mode>,
    /// How many times one prompt's stop may be blocked.
    pub(crate) max_blocks: Option<u32>,
}

fn parse_severity(text: &str) -> Result<(String, Severity), String> {
    let Some((rule, level)) = text.split_once('=') else {
        return Err(format!(
            "`{text}` is not RULE=LEVEL (for example port-unchecked=error)"
        ));
    };
    let severity = match level.trim() {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        "info" => Severity::Info,
        other => {
            return Err(format!(
                "unknown severity `{other}`; known: error, warning, info"
            ));
        }
    };
    Ok((rule.trim().to_owned(), severity))
}

/// The configuration in force: the file (if any) with the flags over it,
/// every rule id checked.
pub(crate) fn load(args: &RuleArgs, current_dir: &Path) -> Result<Config> {
    load_with_hook(args, current_dir).map(|(config, _)| config)
}

/// [`load`], and the file's `[hook]` table as well.
pub(crate) fn load_with_hook(
    args: &RuleArgs,
    current_dir: &Path,
) -> Result<(Config, HookSettings)> {
    let file = if args.no_config {
        None
    } else if let Some(path) = &args.config {
        Some(path.clone())
    } else {
        discover(current_dir)
    };
    let (base, hook) = match &file {
        Some(path) => {
            let file = read_file(path)?;
            (file.rules, file.hook)
        }
        None => (Config::default(), HookSettings::default()),
    };
    let flags = Config {
        select: (!args.select.is_empty()).then(|| args.select.iter().cloned().collect()),
        ignore: args.ignore.iter().cloned().collect(),
        severity: args.severity.iter().cloned().collect(),
    };
    let config = base.merged_with(flags);
    if let Err(message) = config.validate() {
        match &file {
            // Say where a bad id came from when the flags did not name it.
            Some(path) if args.select.is_empty() && args.ignore.is_empty() => {
                bail!("{message} (in `{}` or flags)", path.display())
            }
            _ => bail!("{message}"),
        }
    }
    Ok((config, hook))
}

/// The nearest `hindsight.toml` in `dir` or a parent.
fn discover(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.is_file())
}

/// The `[rules]` of a `hindsight.toml` text (the fuzz target's way in: the
/// same reading as a file's, without the file).
pub(crate) fn parse_text(text: &str) -> Result<Config> {
    Ok(toml::from_str::<File>(text)?.rules)
}

fn read_file(path: &Path) -> Result<File> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    match toml::from_str::<File>(&text) {
        Ok(file) => Ok(file),
        Err(error) => {
            // toml's own message spans several lines with a source excerpt;
            // one `path:line:column: message` line reads better in CI logs.
            let at = error
                .span()
                .map(|span| {
                    let before = text.get(..span.start).unwrap_or(&text);
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                    format!(":{line}:{column}")
                })
                .unwrap_or_default();
            bail!(
                "invalid configuration `{}{at}`: {}",
                path.display(),
                error.message().trim()
            )
        }
    }
}

/// How the guard answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    /// Tell only the user; never the agent.
    Warn,
    /// Also tell the agent what a launch, kill or build left unverified;
    /// never refuse a stop.
    Nudge,
    /// Also refuse a stop that claims success while findings remain.
    Block,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_parse() {
        assert_eq!(
            parse_severity("port-unchecked=error"),
            Ok(("port-unchecked".into(), Severity::Error))
        );
        assert!(parse_severity("port-unchecked").is_err());
        assert!(
            parse_severity("port-unchecked=fatal")
                .expect_err("fatal is no severity")
                .contains("unknown severity `fatal`")
        );
    }
}

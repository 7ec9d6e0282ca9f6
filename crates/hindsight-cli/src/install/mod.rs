//! `hindsight install AGENT`, `uninstall AGENT` and `doctor`: the live
//! guard's entries in an agent's own settings file.
//!
//! Where each agent reads its hooks (from its documentation):
//!
//! - Claude Code: `~/.claude/settings.json` (user), `.claude/settings.json`
//!   (project), `.claude/settings.local.json` (local, not committed); a
//!   `hooks` object of event → matcher groups → `{"type": "command",
//!   "command": …}` handlers (code.claude.com/docs/en/hooks);
//! - Codex: `hooks.json` beside each config layer's `config.toml`:
//!   `~/.codex/hooks.json` (user), `.codex/hooks.json` (project), the same
//!   shape as Claude Code's (`codex-rs/hooks/src/engine/discovery.rs`);
//!   versions before hooks were on by default also need `[features]
//!   codex_hooks = true` in `config.toml`, which `doctor` reports;
//! - Gemini CLI: `~/.gemini/settings.json` (user), `.gemini/settings.json`
//!   (project); the same shape, handlers may carry a `name`
//!   (`docs/hooks/reference.md`); `hooksConfig.enabled = false` turns every
//!   hook off, which `doctor` reports.
//!
//! Editing keeps everything else: keys stay in their order ([`json::Json`]),
//! other hooks stay where they are, only handlers whose command runs
//! `hindsight hook` are touched (so installing twice leaves one entry). The
//! old file is copied to `<file>.<seconds>.hindsight.bak` first and the new
//! one is written to a temporary file renamed over it. Before writing, the
//! command is checked to resolve: a hook whose binary is missing fails in
//! the agent, and the guard is silently off.

mod json;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use json::Json;

use crate::hook::Agent;
use crate::{EXIT_FINDINGS, EXIT_OK, Env, Io};

/// Which settings file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Scope {
    /// The user's own settings (every project).
    User,
    /// The project's shared settings, under the current folder.
    Project,
    /// The project's settings kept out of version control (Claude Code only).
    Local,
}

#[derive(clap::Args, Debug)]
pub(crate) struct InstallArgs {
    /// The agent to guard.
    #[arg(value_enum)]
    agent: Agent,
    /// Which settings file to edit.
    #[arg(long, value_enum, default_value_t = Scope::User)]
    scope: Scope,
    /// Print the file as it would be written; change nothing.
    #[arg(long)]
    dry_run: bool,
    /// The hindsight binary the hook runs (default: this one).
    #[arg(long, value_name = "PATH")]
    command: Option<String>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct UninstallArgs {
    /// The agent to stop guarding.
    #[arg(value_enum)]
    agent: Agent,
    /// Which settings file to edit.
    #[arg(long, value_enum, default_value_t = Scope::User)]
    scope: Scope,
    /// Print the file as it would be written; change nothing.
    #[arg(long)]
    dry_run: bool,
}

#[derive(clap::Args, Debug)]
pub(crate) struct DoctorArgs {
    /// Check only this agent (default: all three).
    #[arg(value_enum)]
    agent: Option<Agent>,
}

/// The Claude Code tools after which the guard looks (a regex matcher).
const CLAUDE_TOOLS: &str = "Bash|KillShell|KillBash|TaskStop";

/// The hook events the guard is installed on, with each one's matcher.
fn events(agent: Agent) -> &'static [(&'static str, Option<&'static str>)] {
    match agent {
        // PostToolBatch is left out: after a parallel batch it would run the
        // same analysis PostToolUse already ran for each call. The matcher
        // takes the shell and the tools that stop a background shell (the
        // names the core's Claude Code parser reads as kills).
        Agent::ClaudeCode => &[
            ("PostToolUse", Some(CLAUDE_TOOLS)),
            ("Stop", None),
            ("SubagentStop", None),
        ],
        // No matcher: Codex's hooks see its shell tool under a name that has
        // changed between versions; a call that ran nothing new costs one
        // read of the transcript's tail.
        Agent::Codex => &[("PostToolUse", None), ("Stop", None)],
        Agent::Gemini => &[
            ("AfterTool", Some("run_shell_command")),
            ("AfterAgent", None),
        ],
    }
}

/// The settings file of `agent` at `scope`.
fn settings_path(agent: Agent, scope: Scope, env: &Env, cwd: &Path) -> Result<PathBuf> {
    let home = || env.home.clone().context("HOME is not set");
    Ok(match (agent, scope) {
        (Agent::ClaudeCode, Scope::User) => home()?.join(".claude/settings.json"),
        (Agent::ClaudeCode, Scope::Project) => cwd.join(".claude/settings.json"),
        (Agent::ClaudeCode, Scope::Local) => cwd.join(".claude/settings.local.json"),
        (Agent::Codex, Scope::User) => home()?.join(".codex/hooks.json"),
        (Agent::Codex, Scope::Project) => cwd.join(".codex/hooks.json"),
        (Agent::Gemini, Scope::User) => home()?.join(".gemini/settings.json"),
        (Agent::Gemini, Scope::Project) => cwd.join(".gemini/settings.json"),
        (_, Scope::Local) => bail!(
            "{} has no local settings file; use --scope user or --scope project",
            agent.name()
        ),
    })
}

/// Whether a hook command is one of ours: its program is named `hindsight`
/// and it runs the `hook` subcommand.
fn is_ours(command: &str) -> bool {
    let words = split_command(command);
    let program = words.first().map(String::as_str).unwrap_or("");
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    (name == "hindsight" || name == "hindsight.exe") && words.get(1).is_some_and(|w| w == "hook")
}

/// A command line split into words, honouring single and double quotes
/// (enough for the commands this module writes and the ones users do).
fn split_command(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (_, c) => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// The command line the hook runs.
fn hook_command(program: &str, agent: Agent) -> String {
    let quoted = if program
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:~".contains(c))
    {
        program.to_owned()
    } else {
        format!("'{}'", program.replace('\'', r"'\''"))
    };
    format!("{quoted} hook {}", agent.name())
}

/// Where `program` resolves: itself when it names a path, else the first
/// executable of that name on `PATH`.
fn resolve(program: &str, env: &Env) -> Option<PathBuf> {
    let runnable = |path: &Path| {
        path.metadata().is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        })
    };
    if program.contains('/') {
        let path = PathBuf::from(program);
        return runnable(&path).then_some(path);
    }
    std::env::split_paths(env.path.as_deref()?)
        .map(|dir| dir.join(program))
        .find(|path| runnable(path))
}

/// The file's value, `{}` when it does not exist.
fn read_settings(path: &Path) -> Result<Option<Json>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Some(Json::Object(Vec::new()))),
        Ok(text) => serde_json::from_str(&text).map(Some).with_context(|| {
            format!(
                "`{}` is not plain JSON; hindsight leaves it untouched (add the hooks by hand)",
                path.display()
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error).with_context(|| format!("cannot read `{}`", path.display())),
    }
}

/// Removes every handler of ours from `settings`, and the matcher groups and
/// events only ours filled; returns how many handlers went.
fn remove_ours(settings: &mut Json) -> usize {
    let mut removed = 0;
    let Some(Json::Object(events)) = settings.entry("hooks", || Json::Object(Vec::new())) else {
        return 0;
    };
    for (_, groups) in events.iter_mut() {
        let Json::Array(groups) = groups else {
            continue;
        };
        groups.retain_mut(|group| {
            let Some(Json::Array(handlers)) = group.entry("hooks", || Json::Array(Vec::new()))
            else {
                return true;
            };
            let before = handlers.len();
            handlers.retain(|h| !h.get("command").and_then(Json::as_str).is_some_and(is_ours));
            removed += before - handlers.len();
            // A group emptied by this removal goes; one that was empty stays.
            !(handlers.is_empty() && before > 0)
        });
    }
    // An event whose only groups were ours goes too.
    events.retain(|(_, groups)| !matches!(groups, Json::Array(g) if g.is_empty()));
    if events.is_empty() {
        settings.remove("hooks");
    }
    removed
}

/// Adds our handlers to `settings` (after removing any earlier ones).
fn add_ours(settings: &mut Json, agent: Agent, command: &str) -> Result<()> {
    remove_ours(settings);
    let Some(hooks) = settings.entry("hooks", || Json::Object(Vec::new())) else {
        bail!("the settings file is not a JSON object");
    };
    if !matches!(hooks, Json::Object(_)) {
        bail!("the settings file's `hooks` is not an object");
    }
    for (event, matcher) in events(agent) {
        let Some(Json::Array(groups)) = hooks.entry(event, || Json::Array(Vec::new())) else {
            bail!("the settings file's `hooks.{event}` is not a list");
        };
        let mut handler = Vec::new();
        if agent == Agent::Gemini {
            handler.push(("name".to_owned(), Json::str("hindsight")));
        }
        handler.push(("type".to_owned(), Json::str("command")));
        handler.push(("command".to_owned(), Json::str(command)));
        let mut group = Vec::new();
        if let Some(matcher) = matcher {
            group.push(("matcher".to_owned(), Json::str(matcher)));
        }
        group.push(("hooks".to_owned(), Json::Array(vec![Json::Object(handler)])));
        groups.push(Json::Object(group));
    }
    Ok(())
}

/// Writes `text` to `path` atomically, backing up what was there.
fn write_settings(path: &Path, text: &str) -> Result<Option<PathBuf>> {
    let dir = path.parent().context("the settings path has no folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let backup = if path.exists() {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        // Never over an earlier backup: the first one holds the file as the
        // user wrote it.
        let backup = (0..)
            .map(|n| match n {
                0 => dir.join(format!("{name}.{seconds}.hindsight.bak")),
                n => dir.join(format!("{name}.{seconds}.{n}.hindsight.bak")),
            })
            .find(|candidate| !candidate.exists())
            .context("no free backup name")?;
        std::fs::copy(path, &backup)
            .with_context(|| format!("cannot back up `{}`", path.display()))?;
        Some(backup)
    } else {
        None
    };
    let temporary = dir.join(format!(".{name}.hindsight.{}", std::process::id()));
    std::fs::write(&temporary, text)
        .with_context(|| format!("cannot write `{}`", temporary.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // The file keeps its permissions (a settings file may hold tokens).
        let _ = std::fs::set_permissions(&temporary, meta.permissions());
    }
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot replace `{}`", path.display()))?;
    Ok(backup)
}

pub(crate) fn install(args: &InstallArgs, io: &mut Io<'_>) -> Result<u8> {
    let path = settings_path(args.agent, args.scope, &io.env, &io.current_dir)?;
    let program = match &args.command {
        Some(program) => program.clone(),
        None => default_program(),
    };
    let resolved = resolve(&program, &io.env).with_context(|| {
        format!(
            "the hook command `{program}` does not resolve to an executable (a hook whose \
             binary is missing turns the guard off silently); give --command PATH"
        )
    })?;
    let command = hook_command(&program, args.agent);
    let mut settings = read_settings(&path)?.unwrap_or(Json::Object(Vec::new()));
    add_ours(&mut settings, args.agent, &command)?;
    let Some(backup) = save(&path, &settings, args.dry_run, io)? else {
        return Ok(EXIT_OK);
    };
    writeln!(
        io.stdout,
        "hindsight guards {} now: {} runs `{command}` (resolves to {}) on {}.",
        args.agent.name(),
        path.display(),
        resolved.display(),
        events(args.agent)
            .iter()
            .map(|(e, _)| *e)
            .collect::<Vec<_>>()
            .join(", ")
    )?;
    note_backup(backup.as_deref(), io)?;
    if args.agent == Agent::Codex {
        writeln!(
            io.stdout,
            "Codex versions that still gate hooks need `[features] codex_hooks = true` in \
             config.toml; `hindsight doctor codex` checks it."
        )?;
    }
    Ok(EXIT_OK)
}

/// The binary to write into hooks: this one when it is a `hindsight`
/// (an absolute path, so the agent's PATH does not matter), else the name.
fn default_program() -> String {
    std::env::current_exe()
        .ok()
        .filter(|exe| exe.file_stem().is_some_and(|n| n == "hindsight"))
        .and_then(|exe| exe.to_str().map(str::to_owned))
        .unwrap_or_else(|| "hindsight".to_owned())
}

pub(crate) fn uninstall(args: &UninstallArgs, io: &mut Io<'_>) -> Result<u8> {
    let path = settings_path(args.agent, args.scope, &io.env, &io.current_dir)?;
    let Some(mut settings) = read_settings(&path)? else {
        writeln!(
            io.stdout,
            "{} does not exist; nothing to remove.",
            path.display()
        )?;
        return Ok(EXIT_OK);
    };
    let removed = remove_ours(&mut settings);
    if removed == 0 {
        writeln!(
            io.stdout,
            "{} has no hindsight hook; nothing to remove.",
            path.display()
        )?;
        return Ok(EXIT_OK);
    }
    let Some(backup) = save(&path, &settings, args.dry_run, io)? else {
        return Ok(EXIT_OK);
    };
    writeln!(
        io.stdout,
        "Removed {removed} hindsight hook(s) from {}.",
        path.display()
    )?;
    note_backup(backup.as_deref(), io)?;
    Ok(EXIT_OK)
}

/// Writes the edited settings (backing the old file up), or with
/// `--dry-run` prints what it would write and writes nothing (`None`).
/// Written, it gives the backup's path, if there was a file to back up.
fn save(
    path: &Path,
    settings: &Json,
    dry_run: bool,
    io: &mut Io<'_>,
) -> Result<Option<Option<PathBuf>>> {
    let text = settings.pretty()?;
    if dry_run {
        writeln!(io.stdout, "would write {}:", path.display())?;
        io.stdout.write_all(text.as_bytes())?;
        return Ok(None);
    }
    Ok(Some(write_settings(path, &text)?))
}

fn note_backup(backup: Option<&Path>, io: &mut Io<'_>) -> Result<()> {
    if let Some(backup) = backup {
        writeln!(io.stdout, "The previous file is in {}.", backup.display())?;
    }
    Ok(())
}

pub(crate) fn doctor(args: &DoctorArgs, io: &mut Io<'_>) -> Result<u8> {
    let agents = match args.agent {
        Some(agent) => vec![agent],
        None => vec![Agent::ClaudeCode, Agent::Codex, Agent::Gemini],
    };
    let mut problems = 0;
    for agent in agents {
        let mut found = false;
        for scope in [Scope::User, Scope::Project, Scope::Local] {
            let Ok(path) = settings_path(agent, scope, &io.env, &io.current_dir) else {
                continue;
            };
            let settings = match read_settings(&path) {
                Ok(Some(settings)) => settings,
                Ok(None) => continue,
                Err(error) => {
                    problems += 1;
                    writeln!(io.stdout, "{}: problem: {error:#}", agent.name())?;
                    continue;
                }
            };
            for (event, command) in our_commands(&settings) {
                found = true;
                let program = split_command(&command)
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                match resolve(&program, &io.env) {
                    Some(resolved) => writeln!(
                        io.stdout,
                        "{}: ok: {} runs `{command}` on {event} ({})",
                        agent.name(),
                        path.display(),
                        resolved.display()
                    )?,
                    None => {
                        problems += 1;
                        writeln!(
                            io.stdout,
                            "{}: problem: {} runs `{command}` on {event}, but `{program}` does \
                             not resolve: the guard is off (run `hindsight install {}` again)",
                            agent.name(),
                            path.display(),
                            agent.name()
                        )?;
                    }
                }
            }
            if let Some(off) = switched_off(agent, &path, &settings) {
                problems += 1;
                writeln!(io.stdout, "{}: problem: {off}", agent.name())?;
            }
        }
        if !found {
            writeln!(
                io.stdout,
                "{}: not installed (run `hindsight install {}`)",
                agent.name(),
                agent.name()
            )?;
        }
    }
    match crate::hook::state::dir(&io.env) {
        Ok(dir) => {
            writeln!(io.stdout, "state: {}", dir.display())?;
            let log = std::fs::read_to_string(dir.join("hook.log")).unwrap_or_default();
            let recent: Vec<&str> = log.lines().rev().take(3).collect();
            for line in recent.into_iter().rev() {
                writeln!(io.stdout, "state: recent hook.log entry: {line}")?;
            }
        }
        Err(error) => {
            problems += 1;
            writeln!(io.stdout, "state: problem: {error:#}")?;
        }
    }
    Ok(if problems == 0 {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    })
}

/// (event, command) of every handler of ours in a settings value.
fn our_commands(settings: &Json) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let Some(Json::Object(events)) = settings.get("hooks") else {
        return found;
    };
    for (event, groups) in events {
        let Json::Array(groups) = groups else {
            continue;
        };
        for group in groups {
            if let Some(Json::Array(handlers)) = group.get("hooks") {
                for command in handlers
                    .iter()
                    .filter_map(|h| h.get("command").and_then(Json::as_str))
                    .filter(|c| is_ours(c))
                {
                    found.push((event.clone(), command.to_owned()));
                }
            }
        }
    }
    found
}

/// Why the agent runs no hook at all despite the entries, if it does not.
fn switched_off(agent: Agent, path: &Path, settings: &Json) -> Option<String> {
    match agent {
        Agent::Gemini => {
            let enabled = settings.get("hooksConfig").and_then(|c| c.get("enabled"));
            (enabled == Some(&Json::Bool(false))).then(|| {
                format!(
                    "{} sets hooksConfig.enabled = false: Gemini CLI runs no hook",
                    path.display()
                )
            })
        }
        Agent::Codex => {
            let config = path.with_file_name("config.toml");
            let text = std::fs::read_to_string(&config).ok()?;
            let table: toml::Table = toml::from_str(&text).ok()?;
            let features = table.get("features")?.as_table()?;
            ["codex_hooks", "hooks"]
                .iter()
                .find(|key| features.get(**key).and_then(toml::Value::as_bool) == Some(false))
                .map(|key| {
                    format!(
                        "{} sets [features] {key} = false: Codex runs no hook",
                        config.display()
                    )
                })
        }
        Agent::ClaudeCode => {
            (settings.get("disableAllHooks") == Some(&Json::Bool(true))).then(|| {
                format!(
                    "{} sets disableAllHooks = true: Claude Code runs no hook",
                    path.display()
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_told_apart() {
        assert!(is_ours("hindsight hook claude-code"));
        assert!(is_ours("'/opt/my tools/hindsight' hook codex"));
        assert!(is_ours("/usr/local/bin/hindsight hook gemini --mode warn"));
        assert!(!is_ours("hindsight analyze x"));
        assert!(!is_ours("my-hindsight hook claude-code"));
        assert!(!is_ours("jq . >> log"));
        assert_eq!(
            split_command(&hook_command("/opt/my tools/hindsight", Agent::Codex)),
            ["/opt/my tools/hindsight", "hook", "codex"]
        );
    }
}

//! `hindsight install`, `uninstall` and `doctor` on real-looking settings
//! files of Claude Code, Codex and Gemini CLI: other settings and hooks kept
//! in their order, one entry however often it is installed, a backup, dry
//! runs that write nothing, commands that must resolve, and the repository's
//! Claude Code plugin.

use std::path::{Path, PathBuf};

use hindsight_cli::Env;
use hindsight_tests::{Setting, root, run_cli, scratch_dir};
use serde_json::{Value, json};

struct Home {
    dir: PathBuf,
}

type Output = hindsight_tests::Ran;

impl Home {
    fn new(name: &str) -> Self {
        let dir = scratch_dir("install", name);
        std::fs::create_dir_all(dir.join("project")).expect("folders");
        std::fs::create_dir_all(dir.join("bin")).expect("folders");
        Self { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn project(&self) -> PathBuf {
        self.dir.join("project")
    }

    /// A stand-in `hindsight` binary on the test's PATH.
    fn binary(&self) -> PathBuf {
        let path = self.dir.join("bin/hindsight");
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").expect("binary");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        path
    }

    fn run(&self, args: &[&str]) -> Output {
        run_cli(
            args.iter().copied(),
            Setting {
                current_dir: self.project(),
                env: Env {
                    home: Some(self.home()),
                    state_dir: Some(self.dir.join("state")),
                    path: Some(self.dir.join("bin").into_os_string()),
                    ..Env::default()
                },
                ..Setting::default()
            },
        )
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(path, text).expect("write");
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("settings")).expect("JSON")
}

/// The top-level keys of a settings file in file order.
fn key_order(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("settings");
    let mut keys = Vec::new();
    for line in text.lines() {
        // Two-space indented keys are the top level.
        if let Some(rest) = line.strip_prefix("  \"")
            && let Some((key, _)) = rest.split_once("\":")
        {
            keys.push(key.to_owned());
        }
    }
    keys
}

/// (event, matcher, command) of every handler in a settings value.
fn handlers(settings: &Value) -> Vec<(String, Option<String>, String)> {
    let mut found = Vec::new();
    if let Some(events) = settings.get("hooks").and_then(Value::as_object) {
        for (event, groups) in events {
            for group in groups.as_array().into_iter().flatten() {
                for handler in group["hooks"].as_array().into_iter().flatten() {
                    found.push((
                        event.clone(),
                        group
                            .get("matcher")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        handler["command"].as_str().unwrap_or_default().to_owned(),
                    ));
                }
            }
        }
    }
    found.sort();
    found
}

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "prettier --write \"$CLAUDE_FILE\""}]}
    ],
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "statusLine": {"type": "command", "command": "~/.claude/status.sh"},
  "alwaysThinkingEnabled": true
}
"#;

#[test]
fn claude_code_settings_keep_everything_else_and_get_one_entry() {
    let home = Home::new("claude");
    let binary = home.binary();
    let settings = home.home().join(".claude/settings.json");
    home.write(&settings, CLAUDE_SETTINGS);
    let before = read_json(&settings);
    let order = key_order(&settings);
    for _ in 0..2 {
        let out = home.run(&[
            "install",
            "claude-code",
            "--command",
            binary.to_str().expect("path"),
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.stdout.contains("hindsight guards claude-code now"),
            "{out:?}"
        );
    }
    let after = read_json(&settings);
    assert_eq!(key_order(&settings), order, "top-level keys moved");
    for key in [
        "model",
        "permissions",
        "statusLine",
        "alwaysThinkingEnabled",
    ] {
        assert_eq!(after[key], before[key], "{key} changed");
    }
    let command = format!("{} hook claude-code", binary.display());
    assert_eq!(
        handlers(&after),
        vec![
            (
                "Notification".to_owned(),
                None,
                "notify-send done".to_owned()
            ),
            (
                "PostToolUse".to_owned(),
                Some("Bash|KillShell|KillBash|TaskStop".to_owned()),
                command.clone()
            ),
            (
                "PostToolUse".to_owned(),
                Some("Write|Edit".to_owned()),
                "prettier --write \"$CLAUDE_FILE\"".to_owned()
            ),
            ("Stop".to_owned(), None, command.clone()),
            ("SubagentStop".to_owned(), None, command.clone()),
        ]
    );
    // The user's own hook stays first in its event.
    assert_eq!(after["hooks"]["PostToolUse"][0]["matcher"], "Write|Edit");
    // Backups: the first one is the file as the user wrote it.
    let backups: Vec<PathBuf> = std::fs::read_dir(settings.parent().expect("folder"))
        .expect("folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".hindsight.bak"))
        .collect();
    assert_eq!(backups.len(), 2, "{backups:?}");
    assert!(
        backups
            .iter()
            .any(|b| std::fs::read_to_string(b).expect("backup") == CLAUDE_SETTINGS)
    );
    // doctor: installed, resolving.
    let doctor = home.run(&["doctor", "claude-code"]);
    assert_eq!(doctor.code, 0, "{doctor:?}");
    assert_eq!(
        doctor.stdout.matches("claude-code: ok:").count(),
        3,
        "{doctor:?}"
    );
    // uninstall: back to the user's settings, in their order.
    let out = home.run(&["uninstall", "claude-code"]);
    assert!(
        out.stdout.contains("Removed 3 hindsight hook(s)"),
        "{out:?}"
    );
    assert_eq!(read_json(&settings), before);
    assert_eq!(key_order(&settings), order);
    let again = home.run(&["uninstall", "claude-code"]);
    assert!(again.stdout.contains("no hindsight hook"), "{again:?}");
}

#[test]
fn scopes_dry_runs_and_commands_that_do_not_resolve() {
    let home = Home::new("scopes");
    let binary = home.binary();
    let binary = binary.to_str().expect("path");
    // Project and local scopes write under the current folder.
    for (scope, file) in [
        ("project", ".claude/settings.json"),
        ("local", ".claude/settings.local.json"),
    ] {
        let out = home.run(&[
            "install",
            "claude-code",
            "--scope",
            scope,
            "--command",
            binary,
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        let written = read_json(&home.project().join(file));
        assert_eq!(handlers(&written).len(), 3, "{written}");
    }
    // Gemini and Codex have no local scope.
    for agent in ["codex", "gemini"] {
        let out = home.run(&["install", agent, "--scope", "local", "--command", binary]);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stderr.contains("no local settings file"), "{out:?}");
    }
    // A dry run prints the file and writes nothing.
    let out = home.run(&["install", "gemini", "--dry-run", "--command", binary]);
    assert_eq!(out.code, 0, "{out:?}");
    let gemini = home.home().join(".gemini/settings.json");
    assert!(
        out.stdout
            .starts_with(&format!("would write {}:\n", gemini.display())),
        "{out:?}"
    );
    assert!(!gemini.exists());
    // The bare name resolves on PATH; a missing binary is refused, and the
    // file is left as it was.
    let out = home.run(&["install", "codex"]);
    assert_eq!(out.code, 0, "{out:?}");
    let codex = home.home().join(".codex/hooks.json");
    assert!(out.stdout.contains("codex_hooks = true"), "{out:?}");
    let before = std::fs::read_to_string(&codex).expect("hooks.json");
    let out = home.run(&["install", "codex", "--command", "/nowhere/hindsight"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("does not resolve"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&codex).expect("hooks.json"), before);
    // A settings file that is not plain JSON is never rewritten.
    let jsonc = "{\n  // my comment\n  \"theme\": \"dark\"\n}\n";
    home.write(&gemini, jsonc);
    let out = home.run(&["install", "gemini", "--command", binary]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not plain JSON"), "{out:?}");
    assert_eq!(std::fs::read_to_string(&gemini).expect("settings"), jsonc);
}

#[test]
fn codex_and_gemini_get_their_own_events() {
    let home = Home::new("codex-gemini");
    let binary = home.binary();
    let binary = binary.to_str().expect("path");
    let gemini = home.home().join(".gemini/settings.json");
    home.write(&gemini, r#"{"theme": "GitHub", "hooksConfig": {"enabled": true}, "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "lint", "type": "command", "command": "lint.sh"}]}]}}"#);
    assert_eq!(
        home.run(&["install", "gemini", "--command", binary]).code,
        0
    );
    assert_eq!(home.run(&["install", "codex", "--command", binary]).code, 0);
    let settings = read_json(&gemini);
    let command = format!("{binary} hook gemini");
    assert_eq!(
        handlers(&settings),
        vec![
            ("AfterAgent".to_owned(), None, command.clone()),
            (
                "AfterTool".to_owned(),
                Some("run_shell_command".to_owned()),
                command.clone()
            ),
            (
                "BeforeTool".to_owned(),
                Some("write_file".to_owned()),
                "lint.sh".to_owned()
            ),
        ]
    );
    assert_eq!(
        settings["hooks"]["AfterAgent"][0]["hooks"][0]["name"],
        "hindsight"
    );
    assert_eq!(key_order(&gemini), ["theme", "hooksConfig", "hooks"]);
    let codex = read_json(&home.home().join(".codex/hooks.json"));
    let command = format!("{binary} hook codex");
    assert_eq!(
        handlers(&codex),
        vec![
            ("PostToolUse".to_owned(), None, command.clone()),
            ("Stop".to_owned(), None, command)
        ]
    );
    // doctor sees both, and what switches hooks off.
    let doctor = home.run(&["doctor"]);
    assert_eq!(doctor.code, 0, "{doctor:?}");
    assert!(
        doctor.stdout.contains("claude-code: not installed"),
        "{doctor:?}"
    );
    home.write(
        &home.home().join(".codex/config.toml"),
        "model = \"o3\"\n[features]\ncodex_hooks = false\n",
    );
    let mut off: Value = read_json(&gemini);
    off["hooksConfig"]["enabled"] = json!(false);
    home.write(&gemini, &off.to_string());
    let doctor = home.run(&["doctor"]);
    assert_eq!(doctor.code, 1, "{doctor:?}");
    assert!(
        doctor
            .stdout
            .contains("codex_hooks = false: Codex runs no hook"),
        "{doctor:?}"
    );
    assert!(
        doctor.stdout.contains("hooksConfig.enabled = false"),
        "{doctor:?}"
    );
    // A binary that went away: the guard is off, and doctor says so.
    std::fs::remove_file(home.dir.join("bin/hindsight")).expect("remove");
    let doctor = home.run(&["doctor", "codex"]);
    assert_eq!(doctor.code, 1, "{doctor:?}");
    assert!(
        doctor.stdout.contains("does not resolve: the guard is off"),
        "{doctor:?}"
    );
}

#[test]
fn the_claude_code_plugin_runs_the_guard_on_the_events_install_writes() {
    let plugin: Value = read_json(&root().join(".claude-plugin/plugin.json"));
    assert_eq!(plugin["name"], "hindsight");
    let marketplace: Value = read_json(&root().join(".claude-plugin/marketplace.json"));
    assert_eq!(marketplace["name"], "hindsight");
    assert!(marketplace["owner"]["name"].is_string());
    assert_eq!(marketplace["plugins"][0]["name"], "hindsight");
    assert_eq!(marketplace["plugins"][0]["source"], "./");
    let hooks = read_json(&root().join("hooks/hooks.json"));
    let home = Home::new("plugin");
    home.binary();
    let out = home.run(&[
        "install",
        "claude-code",
        "--dry-run",
        "--command",
        "hindsight",
    ]);
    let written: Value =
        serde_json::from_str(out.stdout.split_once(":\n").expect("dry run").1).expect("JSON");
    assert_eq!(handlers(&hooks), handlers(&written));
}

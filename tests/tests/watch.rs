//! `hindsight watch --once`, in process: the newest Claude Code session
//! found under `~/.claude/projects` (sub-agents' files left out), logs
//! named with `--log` linked to their launch, the redrawn terminal view and
//! the plain lines. (The running loop is tested with the real binary in
//! `crates/hindsight-cli/tests/watch_process.rs`.)

use std::path::{Path, PathBuf};

use hindsight_cli::Env;
use hindsight_tests::{Setting, root, run_cli, scratch_dir};

fn watch(args: &[&str], home: &Path, terminal: bool) -> (u8, String, String) {
    let ran = run_cli(
        ["watch", "--once", "--no-config"]
            .into_iter()
            .chain(args.iter().copied()),
        Setting {
            env: Env {
                home: Some(home.to_path_buf()),
                ..Env::default()
            },
            stdout_is_terminal: terminal,
            ..Setting::default()
        },
    );
    (ran.code, ran.stdout, ran.stderr)
}

fn scratch(name: &str) -> PathBuf {
    scratch_dir("watch", name)
}

#[test]
fn the_newest_claude_code_session_is_watched_by_default() {
    let home = scratch("home");
    let projects = home.join(".claude/projects");
    let old = projects.join("-home-ops-old/11111111.jsonl");
    let new = projects.join("-home-ops-kimi-migration/5b1f0c7e.jsonl");
    let sub = projects.join("-home-ops-kimi-migration/5b1f0c7e/subagents/agent-1.jsonl");
    for path in [&old, &new, &sub] {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
    }
    std::fs::write(
        &old,
        std::fs::read(root().join("examples/diligent-claude-code-vllm-tp2/session.jsonl"))
            .expect("read"),
    )
    .expect("write");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(
        &new,
        std::fs::read(root().join("examples/seed-claude-code/session.jsonl")).expect("read"),
    )
    .expect("write");
    std::thread::sleep(std::time::Duration::from_millis(20));
    // Newer still, but a sub-agent's file: not a session of its own.
    std::fs::write(&sub, "{}\n").expect("write");
    let (code, stdout, stderr) = watch(&[], &home, false);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("checkpoint 6 launch: ssh root@10.1.230.174"),
        "{stdout}"
    );
    assert!(stdout.contains("unverified port-unchecked:"), "{stdout}");
    // Nothing to watch: an error, not a wait.
    let empty = scratch("empty");
    let (code, _, stderr) = watch(&[], &empty, false);
    assert_eq!(code, 2);
    assert!(stderr.contains("no Claude Code session under"), "{stderr}");
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&empty);
}

#[test]
fn logs_join_their_launch_and_the_terminal_view_is_redrawn() {
    let case = root().join("examples/seed-claude-code");
    let session = case.join("session.jsonl");
    let log = case.join("sglang_eagle3_aqmedai.log");
    let (session, log) = (session.to_str().expect("path"), log.to_str().expect("path"));
    let (code, screen, _) = watch(&[session, "--log", log], &std::env::temp_dir(), true);
    assert_eq!(code, 0);
    assert!(screen.starts_with("\x1b[H\x1b[2J"), "{screen}");
    assert!(screen.contains("Timeline\n"), "{screen}");
    assert!(
        screen.contains("sglang on root@10.1.230.174 port 8000"),
        "{screen}"
    );
    assert!(screen.contains("Unverified (6)"), "{screen}");
    // The log is read: its eight rank tags are seen.
    assert!(
        screen.contains("The log given shows 8 of 8 rank tag(s)"),
        "{screen}"
    );
    let (_, plain, _) = watch(&[session, "--log", log], &std::env::temp_dir(), false);
    assert!(!plain.contains('\x1b'), "{plain}");
    assert_eq!(plain.matches("unverified ").count(), 6, "{plain}");
}

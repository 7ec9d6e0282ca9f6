//! Several `hindsight hook` processes of one session at once, as an agent
//! starts them for parallel tool calls: they take turns on the session's
//! lock, each finding is told by exactly one, and all exit 0. (Here rather
//! than in `tests/`: only this package's tests are given the binary's path.)

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn hook_processes_of_one_session_at_once_take_turns() {
    let dir = std::env::temp_dir().join(format!("hindsight-hook-processes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("folder");
    let transcript = dir.join("session.jsonl");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/seed-claude-code/session.jsonl"
        ),
        &transcript,
    )
    .expect("seed session");
    let event = serde_json::json!({
        "session_id": "parallel",
        "transcript_path": transcript,
        "cwd": dir,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
        "tool_response": {"stdout": ""},
    })
    .to_string();
    let children: Vec<_> = (0..6)
        .map(|_| {
            let mut child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
                .args(["hook", "claude-code"])
                .env("HINDSIGHT_STATE_DIR", dir.join("state"))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(event.as_bytes())
                .expect("event");
            child
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect();
    assert!(
        outputs.iter().all(|o| o.status.code() == Some(0)),
        "{outputs:?}"
    );
    let told = outputs
        .iter()
        .filter(|o| String::from_utf8_lossy(&o.stdout).contains("port-unchecked"))
        .count();
    assert_eq!(told, 1, "{outputs:?}");
    assert!(!dir.join("state/hook.log").exists(), "a call failed open");
    let _ = std::fs::remove_dir_all(&dir);
}

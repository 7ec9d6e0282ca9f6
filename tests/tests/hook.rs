//! The live guard (`hindsight hook AGENT`), run in process as the agents run
//! it: every event with realistic payloads (malformed and missing fields
//! too), whole sessions from `examples/` replayed as they grew with the
//! hook called after each tool and at the stop, the loop guard, modes and
//! rule selection, several hook calls at once, a transcript truncated or
//! replaced, and failing open.

use std::path::{Path, PathBuf};

use hindsight_cli::Env;
use hindsight_tests::{Setting, root, run_cli, scratch_dir};
use serde_json::{Value, json};

/// One hook call's outcome.
#[derive(Debug)]
struct Answer {
    code: u8,
    stdout: String,
    stderr: String,
}

impl Answer {
    /// The JSON written, or `Null` when nothing was.
    fn json(&self) -> Value {
        if self.stdout.trim().is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "the hook wrote something that is not JSON ({e}): {}",
                self.stdout
            )
        })
    }

    fn context(&self) -> Option<String> {
        self.json()
            .pointer("/hookSpecificOutput/additionalContext")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn block_reason(&self) -> Option<String> {
        let json = self.json();
        matches!(
            json.get("decision").and_then(Value::as_str),
            Some("block" | "deny")
        )
        .then(|| json["reason"].as_str().unwrap_or_default().to_owned())
    }

    fn user_message(&self) -> Option<String> {
        self.json()
            .get("systemMessage")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn is_silent(&self) -> bool {
        self.stdout.is_empty()
    }
}

/// A folder of its own for one test: the state folder and transcripts.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = scratch_dir("hook", name);
        std::fs::create_dir_all(dir.join("work")).expect("scratch folder");
        Self { dir }
    }

    fn state(&self) -> PathBuf {
        self.dir.join("state")
    }

    /// The agent's working folder (where a hindsight.toml may be put).
    fn work(&self) -> PathBuf {
        self.dir.join("work")
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.state().join("hook.log")).unwrap_or_default()
    }

    /// Calls the hook with `event` on stdin.
    fn hook(&self, agent: &str, event: &Value, flags: &[&str]) -> Answer {
        self.hook_raw(agent, event.to_string().as_bytes(), flags)
    }

    fn hook_raw(&self, agent: &str, stdin: &[u8], flags: &[&str]) -> Answer {
        hook_in(&self.state(), &self.work(), agent, stdin, flags)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn hook_in(state: &Path, work: &Path, agent: &str, stdin: &[u8], flags: &[&str]) -> Answer {
    let ran = run_cli(
        ["hook", agent].into_iter().chain(flags.iter().copied()),
        Setting {
            stdin,
            current_dir: work.to_path_buf(),
            env: Env {
                state_dir: Some(state.to_path_buf()),
                ..Env::default()
            },
            ..Setting::default()
        },
    );
    Answer {
        code: ran.code,
        stdout: ran.stdout,
        stderr: ran.stderr,
    }
}

fn example(case: &str, file: &str) -> String {
    std::fs::read_to_string(root().join("examples").join(case).join(file)).expect("example")
}

fn codex_rollout() -> String {
    let dir = root().join("examples/seed-codex");
    let name = std::fs::read_dir(&dir)
        .expect("seed-codex")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("rollout-"))
        .expect("a rollout");
    example("seed-codex", &name)
}

/// A Claude Code event as Claude Code sends it.
fn claude_event(scratch: &Scratch, transcript: &Path, event: &str, extra: Value) -> Value {
    let mut value = json!({
        "session_id": "5b1f0c7e-3d2a-4c1b-9f6e-2a7d8c9e0f13",
        "transcript_path": transcript,
        "cwd": scratch.work(),
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
        value.extend(extra);
    }
    value
}

fn post_tool_use(scratch: &Scratch, transcript: &Path, command: &str) -> Value {
    claude_event(
        scratch,
        transcript,
        "PostToolUse",
        json!({
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "run"},
            "tool_response": {"stdout": "", "stderr": "", "interrupted": false},
            "tool_use_id": "toolu_01",
        }),
    )
}

fn stop(scratch: &Scratch, transcript: &Path, message: Option<&str>, active: bool) -> Value {
    claude_event(
        scratch,
        transcript,
        "Stop",
        json!({"stop_hook_active": active, "last_assistant_message": message}),
    )
}

/// The text blocks of one Claude Code record, joined.
fn claude_text(line: &str) -> Option<String> {
    let record: Value = serde_json::from_str(line).ok()?;
    let texts: Vec<&str> = record
        .pointer("/message/content")?
        .as_array()?
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The command of a Claude Code record's Bash call.
fn claude_command(line: &str) -> Option<String> {
    let record: Value = serde_json::from_str(line).ok()?;
    record
        .pointer("/message/content")?
        .as_array()?
        .iter()
        .find(|b| b["type"] == "tool_use")
        .and_then(|b| b.pointer("/input/command"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

const PORT_CHECK: &str =
    "ssh root@10.1.230.174 'ss -ltnp | grep :8000; curl -sS -m 5 http://127.0.0.1:8000/v1/models'";

/// Replays the seed Claude Code session line by line, calling the hook
/// after every tool result and at the final stop; returns what each call
/// answered, by line.
fn replay_claude(scratch: &Scratch, transcript: &Path) -> Vec<(usize, Answer)> {
    let session = example("seed-claude-code", "session.jsonl");
    let lines: Vec<&str> = session.lines().collect();
    let mut answers = Vec::new();
    let mut grown = String::new();
    let mut last_command = String::new();
    for (at, line) in lines.iter().enumerate() {
        grown.push_str(line);
        grown.push('\n');
        std::fs::write(transcript, &grown).expect("transcript");
        if let Some(command) = claude_command(line) {
            last_command = command;
        }
        if line.contains("\"tool_result\"") {
            let answer = scratch.hook(
                "claude-code",
                &post_tool_use(scratch, transcript, &last_command),
                &[],
            );
            answers.push((at + 1, answer));
        }
    }
    let last = lines
        .last()
        .and_then(|l| claude_text(l))
        .expect("a last message");
    let answer = scratch.hook(
        "claude-code",
        &stop(scratch, transcript, Some(&last), false),
        &[],
    );
    answers.push((lines.len(), answer));
    answers
}

#[test]
fn a_claude_code_session_replayed_as_it_grew() {
    let scratch = Scratch::new("claude-replay");
    let transcript = scratch.path("session.jsonl");
    let answers = replay_claude(&scratch, &transcript);
    for (line, answer) in &answers {
        assert_eq!(answer.code, 0, "line {line}: {answer:?}");
        assert!(answer.stderr.is_empty(), "line {line}: {answer:?}");
    }
    // Told after the launch's result (line 23), with the real command.
    let (_, launch) = answers
        .iter()
        .find(|(line, _)| *line == 23)
        .expect("the launch");
    let context = launch.context().expect("context after the launch");
    assert!(
        context.contains("not yet verified after this launch"),
        "{context}"
    );
    for rule in ["port-unchecked", "drafter-unconfirmed", "ranks-uncounted"] {
        assert!(context.contains(rule), "{rule} missing: {context}");
    }
    assert!(context.contains(PORT_CHECK), "{context}");
    // The builds and kills were told about as they happened, each finding
    // once; the looks at the log after the launch add nothing.
    let mut told: Vec<String> = Vec::new();
    for (line, answer) in &answers[..answers.len() - 1] {
        if *line > 23 {
            assert!(answer.is_silent(), "line {line}: {answer:?}");
        }
        if let Some(context) = answer.context() {
            for item in context
                .lines()
                .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            {
                let rule = item.split(": ").next().unwrap_or_default().to_owned();
                let key = format!("{rule}@{line}");
                assert!(!told.contains(&key), "told twice: {key}");
                told.push(key);
            }
        }
    }
    // The stop on "The server is up with the EAGLE-3 drafter" is refused,
    // with every unverified check and its command.
    let (_, last) = answers.last().expect("the stop");
    let reason = last.block_reason().expect("the stop is refused");
    assert!(
        reason.starts_with(
            "hindsight: you wrote that the weights are loaded, the server is up and the \
             speculative drafter is active, but these checks are not done:\n"
        ),
        "{reason}"
    );
    for rule in hindsight_tests::SEED_FINDINGS {
        assert!(
            reason.contains(&format!(". {rule}: ")),
            "{rule} missing: {reason}"
        );
    }
    assert!(reason.contains(&format!("check: {PORT_CHECK}")), "{reason}");
    assert!(
        reason.contains("/data/eagle3/synth_10k/sglang_eagle3_aqmedai.log"),
        "{reason}"
    );

    // The agent answers without checking and stops again: nothing new to
    // list, so it may stop, and the user is told what is still unverified.
    let again = scratch.hook(
        "claude-code",
        &stop(
            &scratch,
            &transcript,
            Some("The server is up and serving."),
            true,
        ),
        &[],
    );
    assert!(again.block_reason().is_none(), "{again:?}");
    let told_user = again.user_message().expect("the user is told");
    assert!(
        told_user.contains("port-unchecked") && told_user.contains(PORT_CHECK),
        "{told_user}"
    );
    // And only once.
    let third = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("The server is up."), true),
        &[],
    );
    assert!(third.is_silent(), "{third:?}");
}

#[test]
fn incremental_reading_gives_what_a_first_reading_of_the_whole_file_gives() {
    let grown = Scratch::new("claude-incremental");
    let transcript = grown.path("session.jsonl");
    let answers = replay_claude(&grown, &transcript);
    let incremental = answers
        .last()
        .and_then(|(_, a)| a.block_reason())
        .expect("refused");
    let fresh = Scratch::new("claude-whole");
    let whole = fresh.path("session.jsonl");
    std::fs::copy(&transcript, &whole).expect("copy");
    let session = example("seed-claude-code", "session.jsonl");
    let last = session
        .lines()
        .last()
        .and_then(claude_text)
        .expect("last message");
    let once = fresh
        .hook(
            "claude-code",
            &stop(&fresh, &whole, Some(&last), false),
            &[],
        )
        .block_reason()
        .expect("refused");
    assert_eq!(incremental, once);
}

#[test]
fn the_readme_shows_what_the_agent_really_sees() {
    let scratch = Scratch::new("claude-readme");
    let transcript = scratch.path("session.jsonl");
    let answers = replay_claude(&scratch, &transcript);
    let reason = answers
        .last()
        .and_then(|(_, a)| a.block_reason())
        .expect("refused");
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    let marker = "<!-- hook-block-example -->";
    let after = readme
        .split(marker)
        .nth(1)
        .expect("the README's block example marker");
    let shown = after
        .split("```text\n")
        .nth(1)
        .and_then(|block| block.split("\n```").next())
        .expect("a text block after the marker");
    assert_eq!(
        shown, reason,
        "update the README's block example to the real output"
    );
}

#[test]
fn a_codex_session_replayed_as_it_grew() {
    let scratch = Scratch::new("codex-replay");
    let transcript = scratch.path("rollout.jsonl");
    let rollout = codex_rollout();
    let lines: Vec<&str> = rollout.lines().collect();
    let mut grown = String::new();
    let mut contexts = Vec::new();
    let event = |name: &str, extra: Value| {
        let mut value = json!({
            "session_id": "0199a6c2-5e1b-7c3d-9a8f-1b2c3d4e5f60",
            "turn_id": "turn-1",
            "transcript_path": transcript,
            "cwd": scratch.work(),
            "hook_event_name": name,
            "model": "gpt-5-codex",
            "permission_mode": "default",
        });
        if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
            value.extend(extra);
        }
        value
    };
    for line in &lines {
        grown.push_str(line);
        grown.push('\n');
        std::fs::write(&transcript, &grown).expect("rollout");
        if line.contains("\"function_call_output\"") {
            let answer = scratch.hook(
                "codex",
                &event(
                    "PostToolUse",
                    json!({"tool_name": "Bash", "tool_input": {"command": "…"}, "tool_response": "…", "tool_use_id": "call_1"}),
                ),
                &[],
            );
            assert_eq!(answer.code, 0);
            if let Some(context) = answer.context() {
                // Codex reads `hookSpecificOutput.hookEventName` too.
                assert_eq!(
                    answer.json().pointer("/hookSpecificOutput/hookEventName"),
                    Some(&json!("PostToolUse"))
                );
                contexts.push(context);
            }
        }
    }
    assert!(
        contexts
            .iter()
            .any(|c| c.contains("port-unchecked") && c.contains(PORT_CHECK)),
        "{contexts:#?}"
    );
    let message = "SGLang loaded all 64 shards of the 547 GB checkpoint in 34 seconds, versus 25 minutes on vLLM. The server is up with the EAGLE-3 drafter; next I'll run the acceptance-rate benchmark against port 8000.";
    let stop = |active: bool, message: Value, turn: &str| {
        let mut value = event(
            "Stop",
            json!({"stop_hook_active": active, "last_assistant_message": message}),
        );
        value["turn_id"] = json!(turn);
        value
    };
    let first = scratch.hook("codex", &stop(false, json!(message), "turn-1"), &[]);
    let reason = first.block_reason().expect("refused");
    assert_eq!(first.json()["decision"], "block");
    assert!(
        reason.contains("port-unchecked") && reason.contains(PORT_CHECK),
        "{reason}"
    );
    // A null last message: read from the rollout itself.
    let fresh = Scratch::new("codex-null-message");
    let copy = fresh.path("rollout.jsonl");
    std::fs::copy(&transcript, &copy).expect("copy");
    let mut null_message = stop(false, Value::Null, "turn-1");
    null_message["transcript_path"] = json!(copy);
    null_message["cwd"] = json!(fresh.work());
    let from_rollout = fresh.hook("codex", &null_message, &[]);
    assert_eq!(
        from_rollout.block_reason().as_deref(),
        Some(reason.as_str())
    );
    // Same turn again: nothing new to list, the user is told.
    let second = scratch.hook("codex", &stop(true, json!(message), "turn-1"), &[]);
    assert!(
        second.block_reason().is_none() && second.user_message().is_some(),
        "{second:?}"
    );
}

#[test]
fn a_gemini_cli_session_replayed_as_it_grew() {
    let scratch = Scratch::new("gemini-replay");
    let name = "session-2025-11-14T14-01-4f0c2a91.json";
    let transcript = scratch.path(name);
    let session: Value =
        serde_json::from_str(&example("gemini-cli-vllm-ps-only", name)).expect("session");
    let messages = session["messages"].as_array().expect("messages").clone();
    let event = |name: &str, extra: Value| {
        let mut value = json!({
            "session_id": "4f0c2a91",
            "transcript_path": transcript,
            "cwd": scratch.work(),
            "hook_event_name": name,
            "timestamp": "2025-11-14T14:02:27.380Z",
        });
        if let (Some(value), Value::Object(extra)) = (value.as_object_mut(), extra) {
            value.extend(extra);
        }
        value
    };
    let mut contexts = Vec::new();
    // Gemini CLI rewrites the whole document as messages are added.
    for count in 1..=messages.len() {
        let mut grown = session.clone();
        grown["messages"] = Value::Array(messages[..count].to_vec());
        std::fs::write(
            &transcript,
            serde_json::to_string_pretty(&grown).expect("json"),
        )
        .expect("write");
        if messages[count - 1].get("toolCalls").is_some() {
            let answer = scratch.hook(
                "gemini",
                &event("AfterTool", json!({"tool_name": "run_shell_command", "tool_input": {}, "tool_response": {"llmContent": ""}})),
                &[],
            );
            assert_eq!(answer.code, 0);
            if answer.context().is_some() {
                assert_eq!(
                    answer.json().pointer("/hookSpecificOutput/hookEventName"),
                    Some(&json!("AfterTool"))
                );
            }
            contexts.extend(answer.context());
        }
    }
    assert!(
        contexts
            .iter()
            .any(|c| c.contains("port-unchecked") && c.contains("8001")),
        "{contexts:#?}"
    );
    // Rewritten by a rename (another inode), nothing new: nothing is told
    // again.
    let copy = scratch.path("rewritten.json");
    std::fs::copy(&transcript, &copy).expect("copy");
    std::fs::rename(&copy, &transcript).expect("rename");
    let again = scratch.hook(
        "gemini",
        &event("AfterTool", json!({"tool_name": "run_shell_command", "tool_input": {}, "tool_response": {"llmContent": ""}})),
        &[],
    );
    assert!(again.is_silent(), "{again:?}");
    let response = messages
        .last()
        .and_then(|m| m["content"].as_str())
        .expect("the last response");
    let after = scratch.hook(
        "gemini",
        &event(
            "AfterAgent",
            json!({"prompt": "Start vLLM", "prompt_response": response, "stop_hook_active": false}),
        ),
        &[],
    );
    assert_eq!(after.json()["decision"], "deny", "{after:?}");
    let reason = after.block_reason().expect("refused");
    assert!(
        reason.contains("port-unchecked") && reason.contains("ranks-uncounted"),
        "{reason}"
    );
    // The retry turn stops on the same claim: nothing new to refuse over.
    std::fs::copy(&transcript, &copy).expect("copy");
    std::fs::rename(&copy, &transcript).expect("rename");
    let retry = scratch.hook(
        "gemini",
        &event(
            "AfterAgent",
            json!({"prompt": "Start vLLM", "prompt_response": response, "stop_hook_active": true}),
        ),
        &[],
    );
    assert!(
        retry.block_reason().is_none() && retry.user_message().is_some(),
        "{retry:?}"
    );
}

#[test]
fn every_event_shape_answers_or_stays_silent_and_never_fails() {
    let scratch = Scratch::new("events");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    let claim = "The server is up.";
    // (agent, event JSON or raw bytes, what must come out)
    let silent = [
        (
            "claude-code",
            claude_event(
                &scratch,
                &transcript,
                "UserPromptSubmit",
                json!({"prompt": "go"}),
            ),
        ),
        (
            "claude-code",
            claude_event(
                &scratch,
                &transcript,
                "SessionStart",
                json!({"source": "startup"}),
            ),
        ),
        (
            "claude-code",
            claude_event(
                &scratch,
                &transcript,
                "PreToolUse",
                json!({"tool_name": "Bash"}),
            ),
        ),
        (
            "claude-code",
            stop(
                &scratch,
                &transcript,
                Some("Launched it; I have not checked it yet."),
                false,
            ),
        ),
        (
            "claude-code",
            json!({"hook_event_name": "Stop", "last_assistant_message": claim}),
        ),
        (
            "claude-code",
            json!({"transcript_path": transcript, "last_assistant_message": claim}),
        ),
        ("claude-code", json!([1, 2, 3])),
        (
            "claude-code",
            claude_event(
                &scratch,
                &scratch.path("missing.jsonl"),
                "Stop",
                json!({"last_assistant_message": claim}),
            ),
        ),
        (
            "claude-code",
            claude_event(
                &scratch,
                &transcript,
                "Stop",
                json!({"transcript_path": 42, "last_assistant_message": claim}),
            ),
        ),
        (
            "codex",
            json!({"hook_event_name": "Stop", "transcript_path": null, "last_assistant_message": claim, "turn_id": "t"}),
        ),
        (
            "codex",
            json!({"hook_event_name": "SessionStart", "transcript_path": transcript}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "BeforeTool", "transcript_path": transcript}),
        ),
        (
            "gemini",
            json!({"hook_event_name": "AfterAgent", "transcript_path": transcript, "prompt_response": null}),
        ),
    ];
    for (agent, event) in &silent {
        let answer = scratch.hook(agent, event, &[]);
        assert_eq!(answer.code, 0, "{event}");
        assert!(answer.is_silent(), "{event}: {answer:?}");
    }
    for raw in [
        &b""[..],
        b"not json",
        b"{\"hook_event_name\": ",
        b"\xff\xfe",
    ] {
        let answer = scratch.hook_raw("claude-code", raw, &[]);
        assert_eq!((answer.code, answer.stdout.as_str()), (0, ""), "{raw:?}");
    }
    let log = scratch.log();
    for why in [
        "not JSON",
        "no hook_event_name",
        "names no transcript",
        "cannot read",
    ] {
        assert!(log.contains(why), "hook.log lacks `{why}`:\n{log}");
    }
    // Fields of the wrong type or missing where a default is safe.
    let agent_transcript = scratch.path("agent-a1.jsonl");
    std::fs::copy(&transcript, &agent_transcript).expect("copy");
    let answers = [
        scratch.hook("claude-code", &claude_event(&scratch, &transcript, "Stop", json!({"stop_hook_active": "yes", "last_assistant_message": claim})), &[]),
        scratch.hook("claude-code", &claude_event(&scratch, &transcript, "SubagentStop", json!({"agent_id": "a1", "agent_transcript_path": agent_transcript, "stop_hook_active": false, "last_assistant_message": claim})), &[]),
    ];
    assert!(answers[0].block_reason().is_some(), "{:?}", answers[0]);
    // The sub-agent's transcript is a session of its own: refused too.
    assert!(answers[1].block_reason().is_some(), "{:?}", answers[1]);
    // PostToolBatch is answered like PostToolUse, naming its own event.
    let fresh = Scratch::new("events-batch");
    let batch = fresh.hook(
        "claude-code",
        &claude_event(
            &fresh,
            &transcript,
            "PostToolBatch",
            json!({"tool_calls": []}),
        ),
        &[],
    );
    assert_eq!(
        batch.json().pointer("/hookSpecificOutput/hookEventName"),
        Some(&json!("PostToolBatch"))
    );
    assert!(
        batch
            .context()
            .is_some_and(|c| c.contains("port-unchecked")),
        "{batch:?}"
    );
}

#[test]
fn a_stop_without_a_claim_of_success_goes_through() {
    let scratch = Scratch::new("no-claim");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    for message in [
        "The server is launched but I have not verified it is up; run curl localhost:8000/v1/models to check.",
        "Is the server up? I could not tell from the log.",
        "The build finished. Next I will check the port.",
    ] {
        let answer = scratch.hook(
            "claude-code",
            &stop(&scratch, &transcript, Some(message), false),
            &[],
        );
        assert!(answer.is_silent(), "{message}: {answer:?}");
    }
}

#[test]
fn blocks_are_capped_per_prompt_and_then_the_user_is_told() {
    let scratch = Scratch::new("cap");
    let transcript = scratch.path("session.jsonl");
    let session = example("seed-claude-code", "session.jsonl");
    std::fs::write(&transcript, &session).expect("write");
    let first = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("The server is up."), false),
        &["--max-blocks", "1"],
    );
    assert!(first.block_reason().is_some(), "{first:?}");
    // The agent launches a second server and claims again within the same
    // prompt: a new finding, but the cap is reached.
    let launch = concat!(
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"nohup vllm serve Qwen/Qwen2.5-7B-Instruct --port 8011 > /tmp/v.log 2>&1 &"}}]}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_9","type":"tool_result","content":""}]}}"#,
        "\n"
    );
    std::fs::write(&transcript, format!("{session}{launch}")).expect("write");
    let second = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("Both servers are up."), true),
        &["--max-blocks", "1"],
    );
    assert!(second.block_reason().is_none(), "{second:?}");
    let told = second.user_message().expect("the user is told");
    assert!(told.contains("refused the stop 1 time"), "{told}");
    assert!(told.contains("8011"), "{told}");
    // A new prompt starts the count again, and its new findings block.
    let third_launch = launch
        .replace("8011", "8012")
        .replace("toolu_9", "toolu_10");
    std::fs::write(&transcript, format!("{session}{launch}{third_launch}")).expect("write");
    let third = scratch.hook(
        "claude-code",
        &stop(
            &scratch,
            &transcript,
            Some("All three servers are up."),
            false,
        ),
        &["--max-blocks", "1"],
    );
    let reason = third.block_reason().expect("a new prompt may block again");
    assert!(
        reason.contains("8012") && !reason.contains("port 8000 listening"),
        "{reason}"
    );
    assert!(reason.contains("more, listed before"), "{reason}");
}

#[test]
fn modes_and_rules_come_from_hindsight_toml_and_flags() {
    let scratch = Scratch::new("modes");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    std::fs::write(
        scratch.work().join("hindsight.toml"),
        "[rules]\nselect = [\"port-unchecked\"]\n\n[hook]\nmode = \"warn\"\n",
    )
    .expect("toml");
    // warn: the agent is told nothing; the user is.
    let after = scratch.hook(
        "claude-code",
        &post_tool_use(&scratch, &transcript, "x"),
        &[],
    );
    assert!(after.context().is_none(), "{after:?}");
    let told = after.user_message().expect("the user is told");
    assert!(
        told.contains("port-unchecked") && !told.contains("drafter-unconfirmed"),
        "{told}"
    );
    let stopped = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("The server is up."), false),
        &[],
    );
    assert!(
        stopped.block_reason().is_none() && stopped.user_message().is_some(),
        "{stopped:?}"
    );
    // nudge (a flag over the file): context after tools, never a refusal.
    let nudge = Scratch::new("modes-nudge");
    std::fs::write(
        nudge.work().join("hindsight.toml"),
        "[hook]\nmode = \"nudge\"\n",
    )
    .expect("toml");
    let after = nudge.hook("claude-code", &post_tool_use(&nudge, &transcript, "x"), &[]);
    assert!(
        after
            .context()
            .is_some_and(|c| c.contains("drafter-unconfirmed")),
        "{after:?}"
    );
    let stopped = nudge.hook(
        "claude-code",
        &stop(&nudge, &transcript, Some("The server is up."), false),
        &[],
    );
    assert!(stopped.block_reason().is_none(), "{stopped:?}");
    // block by flag, only the selected rule by flag.
    let flagged = Scratch::new("modes-flags");
    let stopped = flagged.hook(
        "claude-code",
        &stop(&flagged, &transcript, Some("The server is up."), false),
        &["--mode", "block", "--select", "ranks-uncounted"],
    );
    let reason = stopped.block_reason().expect("refused");
    assert!(
        reason.contains("1. ranks-uncounted") && !reason.contains("2. "),
        "{reason}"
    );
    // A bad hindsight.toml fails open.
    let bad = Scratch::new("modes-bad");
    std::fs::write(
        bad.work().join("hindsight.toml"),
        "[hook]\nmode = \"loud\"\n",
    )
    .expect("toml");
    let answer = bad.hook(
        "claude-code",
        &stop(&bad, &transcript, Some("The server is up."), false),
        &[],
    );
    assert!(answer.is_silent() && answer.code == 0, "{answer:?}");
    assert!(bad.log().contains("invalid configuration"), "{}", bad.log());
}

#[test]
fn hook_calls_of_one_session_at_once_take_turns() {
    let scratch = Scratch::new("concurrent");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    let event = post_tool_use(&scratch, &transcript, "x").to_string();
    let answers: Vec<Answer> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| scratch.hook_raw("claude-code", event.as_bytes(), &[])))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    assert!(answers.iter().all(|a| a.code == 0));
    // Each finding is told once: by exactly one of the eight.
    let told: Vec<&Answer> = answers.iter().filter(|a| a.context().is_some()).collect();
    assert_eq!(told.len(), 1, "{answers:#?}");
    assert!(scratch.log().is_empty(), "{}", scratch.log());
    // The state is whole: a stop reads it.
    let stopped = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("The server is up."), false),
        &[],
    );
    assert!(stopped.block_reason().is_some(), "{stopped:?}");
}

#[test]
fn a_truncated_or_replaced_transcript_is_read_again() {
    let scratch = Scratch::new("replaced");
    let transcript = scratch.path("session.jsonl");
    let seed = example("seed-claude-code", "session.jsonl");
    std::fs::write(&transcript, &seed).expect("write");
    let first = scratch.hook(
        "claude-code",
        &post_tool_use(&scratch, &transcript, "x"),
        &[],
    );
    assert!(
        first
            .context()
            .is_some_and(|c| c.contains("port-unchecked"))
    );
    // Replaced by a session where everything was checked (another inode,
    // via rename, as editors and `/clear` do).
    let other = scratch.path("other.jsonl");
    std::fs::write(
        &other,
        example("diligent-claude-code-vllm-tp2", "session.jsonl"),
    )
    .expect("write");
    std::fs::rename(&other, &transcript).expect("rename");
    let replaced = scratch.hook(
        "claude-code",
        &stop(
            &scratch,
            &transcript,
            Some("The server is up and serving."),
            false,
        ),
        &[],
    );
    assert!(
        replaced.is_silent(),
        "a diligent session must not be refused: {replaced:?}"
    );
    // Truncated in place to the seed's first 23 lines (the launch): read
    // from the start, and what was told of the old file is forgotten.
    let head: String = seed.lines().take(23).map(|l| format!("{l}\n")).collect();
    std::fs::write(&transcript, &head).expect("truncate");
    let truncated = scratch.hook(
        "claude-code",
        &post_tool_use(&scratch, &transcript, "x"),
        &[],
    );
    assert!(
        truncated
            .context()
            .is_some_and(|c| c.contains("port-unchecked")),
        "{truncated:?}"
    );
    // Rewritten in place with other bytes of at least the old length.
    let mut changed = seed.replace("10.1.230.174", "10.1.230.175");
    changed.push('\n');
    std::fs::write(&transcript, &changed).expect("rewrite");
    let rewritten = scratch.hook(
        "claude-code",
        &stop(&scratch, &transcript, Some("The server is up."), false),
        &[],
    );
    let reason = rewritten.block_reason().expect("refused");
    assert!(
        reason.contains("10.1.230.175") && !reason.contains("10.1.230.174"),
        "{reason}"
    );
    assert!(scratch.log().is_empty(), "{}", scratch.log());
}

#[test]
fn a_line_still_being_written_waits_for_the_next_call() {
    let scratch = Scratch::new("partial");
    let transcript = scratch.path("session.jsonl");
    let seed = example("seed-claude-code", "session.jsonl");
    let lines: Vec<&str> = seed.lines().collect();
    // Up to the launch's record (line 22), cut in the middle.
    let mut text: String = lines[..21].iter().map(|l| format!("{l}\n")).collect();
    let (half, rest) = lines[21].split_at(lines[21].len() / 2);
    text.push_str(half);
    std::fs::write(&transcript, &text).expect("write");
    let before = scratch.hook(
        "claude-code",
        &post_tool_use(&scratch, &transcript, "x"),
        &[],
    );
    assert!(
        !before
            .context()
            .unwrap_or_default()
            .contains("port-unchecked"),
        "{before:?}"
    );
    text.push_str(rest);
    text.push('\n');
    text.push_str(lines[22]);
    text.push('\n');
    std::fs::write(&transcript, &text).expect("write");
    let after = scratch.hook(
        "claude-code",
        &post_tool_use(&scratch, &transcript, "x"),
        &[],
    );
    assert!(
        after
            .context()
            .is_some_and(|c| c.contains("after this launch")),
        "{after:?}"
    );
    assert!(scratch.log().is_empty(), "{}", scratch.log());
}

#[test]
fn the_guard_fails_open() {
    let scratch = Scratch::new("fail-open");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    let event = stop(&scratch, &transcript, Some("The server is up."), false).to_string();
    // The state folder is a file: nothing can be kept, nothing is said.
    let blocked = scratch.path("not-a-folder");
    std::fs::write(&blocked, "").expect("file");
    let answer = hook_in(
        &blocked,
        &scratch.work(),
        "claude-code",
        event.as_bytes(),
        &[],
    );
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""));
    // A transcript that is a folder.
    let folder = claude_event(
        &scratch,
        &scratch.work(),
        "Stop",
        json!({"last_assistant_message": "The server is up."}),
    );
    let answer = scratch.hook("claude-code", &folder, &[]);
    assert_eq!((answer.code, answer.stdout.as_str()), (0, ""));
    assert!(!scratch.log().is_empty());
    // State files are private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let ok = scratch.hook(
            "claude-code",
            &serde_json::from_str(&event).expect("event"),
            &[],
        );
        assert!(ok.block_reason().is_some());
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&scratch.state()), 0o700);
        assert_eq!(mode(&scratch.state().join("sessions")), 0o700);
        for entry in std::fs::read_dir(scratch.state().join("sessions")).expect("sessions") {
            let path = entry.expect("entry").path();
            assert_eq!(mode(&path), 0o600, "{}", path.display());
        }
        assert_eq!(mode(&scratch.state().join("hook.log")), 0o600);
    }
}

#[test]
fn an_exposed_credential_is_no_check_to_refuse_a_stop_over() {
    let scratch = Scratch::new("secret");
    let transcript = scratch.path("rollout.jsonl");
    let case = "codex-vllm-api-key-exposed";
    std::fs::write(
        &transcript,
        example(
            case,
            "rollout-2026-04-02T09-10-00-0196a0b2-7c1d-7e2f-8a9b-0c1d2e3f4a5b.jsonl",
        ),
    )
    .expect("write");
    // `analyze` reports the credential; the guard stays out of it.
    let report = hindsight_tests::cli_report(std::slice::from_ref(&transcript));
    assert!(
        report["findings"]
            .as_array()
            .is_some_and(|f| f.iter().any(|f| f["rule"] == "secret-exposed")),
        "{report}"
    );
    let event = json!({
        "session_id": "s", "turn_id": "t", "transcript_path": transcript, "cwd": scratch.work(),
        "hook_event_name": "Stop", "stop_hook_active": false,
        "last_assistant_message": "The server is up and answering on port 8000.",
    });
    let answer = scratch.hook("codex", &event, &[]);
    let said = format!("{}", answer.json());
    assert!(!said.contains("secret-exposed"), "{said}");
}

#[test]
fn a_sub_agents_tool_call_is_read_from_its_own_transcript() {
    let scratch = Scratch::new("sub-agent");
    let main = scratch.path("5b1f0c7e.jsonl");
    let seed = example("seed-claude-code", "session.jsonl");
    // The main thread only handed the work over.
    let first: String = seed.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(&main, first).expect("write");
    let sub = scratch.path("5b1f0c7e/subagents/agent-a7f3.jsonl");
    std::fs::create_dir_all(sub.parent().expect("parent")).expect("folder");
    std::fs::write(&sub, &seed).expect("write");
    let mut event = post_tool_use(&scratch, &main, "nohup python -m sglang.launch_server …");
    let from_main = Scratch::new("sub-agent-main");
    assert!(
        from_main
            .hook("claude-code", &event, &[])
            .context()
            .is_none()
    );
    event["agent_id"] = json!("a7f3");
    event["agent_type"] = json!("general-purpose");
    let answer = scratch.hook("claude-code", &event, &[]);
    assert!(
        answer.context().is_some_and(|c| c.contains(PORT_CHECK)),
        "{answer:?}"
    );
    // An id that names no file (or a path in disguise) falls back to the main one.
    event["agent_id"] = json!("../../etc");
    let fallback = Scratch::new("sub-agent-fallback");
    let answer = fallback.hook("claude-code", &event, &[]);
    assert!(
        answer.is_silent() && fallback.log().is_empty(),
        "{answer:?} {}",
        fallback.log()
    );
}

#[test]
fn sessions_not_seen_for_two_weeks_are_forgotten() {
    let scratch = Scratch::new("prune");
    let transcript = scratch.path("session.jsonl");
    std::fs::write(&transcript, example("seed-claude-code", "session.jsonl")).expect("write");
    let event = |id: &str| {
        let mut event = post_tool_use(&scratch, &transcript, "x");
        event["session_id"] = json!(id);
        event
    };
    scratch.hook("claude-code", &event("old"), &[]);
    scratch.hook("claude-code", &event("recent"), &[]);
    let sessions = scratch.state().join("sessions");
    let files = |stem: &str| -> Vec<PathBuf> {
        std::fs::read_dir(&sessions)
            .expect("sessions")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains(stem))
            })
            .collect()
    };
    assert_eq!(files("-old-").len(), 3);
    let weeks_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(15 * 24 * 3600);
    for path in files("-old-") {
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(weeks_ago))
            .expect("age");
    }
    // A new session's first call prunes.
    scratch.hook("claude-code", &event("new"), &[]);
    assert!(files("-old-").is_empty(), "{:?}", files(""));
    assert_eq!(files("-recent-").len(), 3);
    assert_eq!(files("-new-").len(), 3);
}

#[test]
fn a_codex_turn_continued_by_a_refusal_keeps_its_block_count() {
    let scratch = Scratch::new("codex-turns");
    let transcript = scratch.path("rollout.jsonl");
    let rollout = codex_rollout();
    std::fs::write(&transcript, &rollout).expect("write");
    let stop = |turn: &str, active: bool| {
        json!({
            "session_id": "s", "turn_id": turn, "transcript_path": transcript, "cwd": scratch.work(),
            "hook_event_name": "Stop", "model": "gpt-5-codex", "permission_mode": "default",
            "stop_hook_active": active, "last_assistant_message": "The server is up.",
        })
    };
    let flags = ["--max-blocks", "1"];
    assert!(
        scratch
            .hook("codex", &stop("turn-1", false), &flags)
            .block_reason()
            .is_some()
    );
    // A second server launched while continuing; Codex names a new turn,
    // but the refusal's continuation may not restart the count.
    let launch = concat!(
        r#"{"timestamp":"2026-02-11T22:40:00.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"nohup vllm serve Qwen/Qwen2.5-7B-Instruct --port 8011 > /tmp/v.log 2>&1 &\"]}","call_id":"call_x"}}"#,
        "\n",
        r#"{"timestamp":"2026-02-11T22:40:01.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_x","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":0}}"}}"#,
        "\n"
    );
    std::fs::write(&transcript, format!("{rollout}{launch}")).expect("write");
    let continued = scratch.hook("codex", &stop("turn-2", true), &flags);
    assert!(continued.block_reason().is_none(), "{continued:?}");
    assert!(
        continued
            .user_message()
            .is_some_and(|m| m.contains("refused the stop 1 time") && m.contains("8011")),
        "{continued:?}"
    );
    // The user's next prompt is a new turn: its new findings may block.
    let third = launch.replace("8011", "8012").replace("call_x", "call_y");
    std::fs::write(&transcript, format!("{rollout}{launch}{third}")).expect("write");
    let next = scratch.hook("codex", &stop("turn-3", false), &flags);
    assert!(
        next.block_reason().is_some_and(|r| r.contains("8012")),
        "{next:?}"
    );
}

//! `hindsight watch` as a running process: a transcript written a line at
//! a time (a line at a time in two halves), and it tells the launch and
//! what it left unverified once the lines are complete; then the file is
//! replaced and it starts again. (Here rather than in `tests/`: only this
//! package's tests are given the binary's path.)

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Waits for a line of the child's output containing `needle`.
fn wait_for(lines: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(needle);
                seen.push(line);
                if found {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

#[test]
fn watch_follows_a_growing_then_replaced_transcript() {
    let dir = std::env::temp_dir().join(format!("hindsight-watch-process-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("folder");
    let seed = include_str!("../../../examples/seed-claude-code/session.jsonl");
    let lines: Vec<&str> = seed.lines().collect();
    let transcript = dir.join("session.jsonl");
    let head: String = lines[..21].iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&transcript, &head).expect("write");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hindsight"))
        .args(["watch", "--interval", "100", "--no-config"])
        .arg(&transcript)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let (send, output) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    assert!(
        wait_for(&output, "checkpoint 5 kill:", &mut seen),
        "{seen:#?}"
    );
    // The launch's record in two writes: nothing until its newline.
    let (half, rest) = lines[21].split_at(lines[21].len() / 2);
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .expect("open");
    file.write_all(half.as_bytes()).expect("write");
    file.flush().expect("flush");
    std::thread::sleep(Duration::from_millis(400));
    file.write_all(format!("{rest}\n{}\n", lines[22]).as_bytes())
        .expect("write");
    file.flush().expect("flush");
    assert!(
        wait_for(&output, "unverified port-unchecked:", &mut seen),
        "{seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.starts_with("checkpoint 6 launch:")),
        "{seen:#?}"
    );
    assert!(
        seen.iter()
            .all(|l| !l.contains("unverified") || !l.contains("claim-without-evidence")),
        "{seen:#?}"
    );
    // Replaced by a shorter session where the port was checked.
    let other = dir.join("other.jsonl");
    let diligent = include_str!("../../../examples/diligent-claude-code-vllm-tp2/session.jsonl");
    std::fs::write(&other, diligent).expect("write");
    std::fs::rename(&other, &transcript).expect("rename");
    assert!(
        wait_for(&output, "verified or gone: port-unchecked", &mut seen),
        "{seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.starts_with("read again: ")),
        "{seen:#?}"
    );
    // Its checkpoints are told anew, from the first.
    assert!(
        seen.iter()
            .filter(|l| l.starts_with("checkpoint 0 "))
            .count()
            == 2,
        "{seen:#?}"
    );
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}

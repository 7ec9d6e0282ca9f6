//! Bad input never panics and never loses the good input around it.

use hindsight_core::{Source, analyze};

const LAUNCH: &str =
    "$ python -m sglang.launch_server --model-path /m --tp 2 --port 30000 > s.log 2>&1 &\n";

/// A tiny deterministic generator, so failures reproduce.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as u8
        })
        .collect()
}

#[test]
fn random_bytes_in_every_format_do_not_panic() {
    for seed in 0..200 {
        let bytes = noise(seed, 2_000);
        for format in hindsight_core::Format::ALL {
            let source = Source::from_bytes("noise", &bytes).with_format(*format);
            let _ = analyze(&[source]);
        }
        let _ = analyze(&[Source::from_bytes("noise", &bytes)]);
    }
}

#[test]
fn shell_and_prompt_fragments_do_not_panic() {
    let pieces = [
        "$ ",
        "ssh ",
        "-p",
        " '",
        "\"",
        "\\",
        "&&",
        "|",
        ";",
        "&",
        ">",
        "2>&1",
        "\n",
        "[msg 1]",
        "root@h:~# ",
        "python -m sglang.launch_server",
        " --tp",
        " 8",
        " --port",
        "=",
        "é",
        "\r",
        "```",
        "Human:",
        "\u{1b}[31m",
        "Loading safetensors checkpoint shards: 100% Completed | 1/1 [",
    ];
    for seed in 0..500 {
        let picks = noise(seed, 40);
        let text: String = picks
            .iter()
            .map(|b| pieces[*b as usize % pieces.len()])
            .collect();
        let _ = analyze(&[Source::new("t.txt", text.clone())]);
        let _ =
            analyze(&[Source::new("t.log", text).with_format(hindsight_core::Format::SglangLog)]);
    }
}

#[test]
fn invalid_utf8_nul_bytes_and_a_huge_line_give_diagnostics_and_keep_the_rest() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(LAUNCH.as_bytes());
    bytes.extend_from_slice(b"garbage \xff\xfe\x00\x00 here\n");
    bytes.extend_from_slice(&vec![b'x'; 5 * 1024 * 1024]);
    bytes.extend_from_slice(b"\n$ ss -ltnp | grep :30000\nLISTEN 0 4096 0.0.0.0:30000 0.0.0.0:*\n");
    let report = analyze(&[Source::from_bytes("t.txt", &bytes)]);
    let messages: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.starts_with("invalid UTF-8")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("NUL bytes")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("bytes long")),
        "{messages:?}"
    );
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.source == "t.txt" && d.line.is_some())
    );
    // The launch before and the port check after the bad lines are both still seen.
    assert_eq!(report.servers.len(), 1);
    assert!(
        report.findings.iter().all(|f| f.rule != "port-unchecked"),
        "{:#?}",
        report.findings
    );
    // Evidence never carries megabytes.
    assert!(
        report
            .checkpoints
            .iter()
            .all(|c| c.output.as_ref().is_none_or(|o| o.text.len() < 10_000))
    );
}

#[test]
fn empty_input_gives_an_empty_report() {
    let report = analyze(&[Source::new("empty.txt", "")]);
    assert_eq!(report.version, 1);
    assert!(report.checkpoints.is_empty() && report.findings.is_empty());
    assert_eq!(report.sources[0].lines, 0);
}

/// The readers of pasted agent renderings (Codex's `• Ran`, Cline's
/// `<execute_command>`, Gemini's `│ ✔  Shell`) on shuffled pieces of their
/// own shapes, and on their examples cut at many places: no panic, and
/// the cut text is still read as a transcript.
#[test]
fn pieces_and_cuts_of_agent_renderings_do_not_panic() {
    let pieces = [
        "• Ran ",
        "◦ Running ",
        "  └ ",
        "  └",
        "  │ ",
        "    ",
        "› ",
        "• Explored",
        "↳ Interacted with background terminal · ",
        "• Waited for background terminal · ",
        "^C",
        "**Assistant:**",
        "**User:**",
        "---",
        "<execute_command>",
        "<command>",
        "</command>",
        "</execute_command>",
        "[execute_command for '",
        "'] Result:",
        "Exit code: ",
        "Output:",
        "<attempt_completion>",
        "<thinking>",
        "✦ ",
        " │ ✔  Shell ",
        " │ ✗  Shell ",
        " ╰──",
        "│  > ",
        " (desc)",
        "uvicorn app:app --port 8000",
        "\n",
        "é",
        "\r",
    ];
    for seed in 0..400u64 {
        let bytes = noise(seed, 64);
        let text: String = bytes
            .iter()
            .map(|b| pieces[*b as usize % pieces.len()])
            .collect();
        let _ = analyze(&[Source::new("pieces", text)]);
    }
    let root = hindsight_tests::root().join("examples");
    for case in [
        "codex-tui-text-http-server-denied-then-called-up",
        "cline-export-uvicorn-empty-body-called-working",
    ] {
        let text = std::fs::read_to_string(root.join(case).join("transcript.md")).expect("example");
        let mut cut = 0;
        while cut < text.len() {
            let end = hindsight_core::source::floor_char_boundary(&text, cut);
            let report = analyze(&[Source::new("cut", &text[..end])]);
            if end > 4096 {
                assert_eq!(
                    report.sources[0].format,
                    hindsight_core::Format::PastedText,
                    "{case} cut at {end}"
                );
            }
            cut += 211;
        }
    }
}

//! The regex engine behind every pattern of the core, one per target:
//! `regex` natively, where its lazy DFA and literal prefilters keep gigabyte
//! logs fast, and `regex-lite` in wasm, where `regex`'s compiler and engines
//! would be over a fifth of the web page's download (regex-lite has neither
//! Unicode tables nor a DFA, and is a tenth of the size).
//!
//! Both engines give the same matches only for patterns whose classes mean
//! the same in both, and regex-lite's `\b`, `\w`, `\d`, `\s` and case folding
//! are ASCII-only. So every pattern asks `regex` for ASCII too: a leading
//! `(?-u)` or `(?i-u)` where the whole pattern allows it, else `(?-u:…)`
//! around the parts that use those classes, and an explicit
//! `[^\t\n\x0B\x0C\r ]` for "not whitespace" (`(?-u:\S)` could match half a
//! UTF-8 sequence, which `regex` refuses). regex-lite accepts the `u` flag and
//! ignores it. [`regex!`] gives each pattern a test that both engines compile
//! it and find the same captures on every line of the examples, and on those
//! lines with non-ASCII letters, digits, spaces and case variants added.

#[cfg(not(target_family = "wasm"))]
pub(crate) use regex::{Captures, Regex};
#[cfg(target_family = "wasm")]
pub(crate) use regex_lite::{Captures, Regex};

/// The captures of a lazily built pattern (none when it failed to build).
pub(crate) fn capture<'t>(
    re: &std::sync::LazyLock<Option<Regex>>,
    text: &'t str,
) -> Option<Captures<'t>> {
    re.as_ref().and_then(|re| re.captures(text))
}

/// `regex!(NAME, r"pattern")`: a lazily compiled pattern (`None` only if it
/// failed to compile, which its test rules out), plus, in native test
/// builds, a test module of the same name (modules and statics have separate
/// namespaces) checking that both engines agree on it.
macro_rules! regex {
    ($name:ident, $pattern:literal) => {
        static $name: std::sync::LazyLock<Option<$crate::re::Regex>> =
            std::sync::LazyLock::new(|| $crate::re::Regex::new($pattern).ok());

        #[cfg(all(test, not(target_family = "wasm")))]
        #[allow(non_snake_case)]
        mod $name {
            #[test]
            fn means_the_same_in_both_engines() {
                $crate::re::tests::assert_same_in_both_engines($pattern);
            }
        }
    };
}
pub(crate) use regex;

#[cfg(all(test, not(target_family = "wasm")))]
pub(crate) mod tests {
    use std::path::Path;

    /// Lines longer than this are cut: the patterns' meaning shows in the
    /// first few hundred bytes, and regex-lite is slow on long haystacks.
    const LINE_CAP: usize = 2_000;

    /// Lines no example has, so that every pattern matches something.
    const EXTRA: &[&str] = &[
        "Ubuntu\u{ff1a} ~ $ ollama list",
        "C:\\Users\\me>curl http://127.0.0.1:8080/models",
        "MacBook-Pro:~ me$ curl -s localhost:8000",
        "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123",
        "see https://alice:hunter22@example.com/x and ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAABCDEFGHIJKLMNOP xoxb-0123456789-abc sk-ant-abcdefghijklmnopqrstu",
        "export OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx hf_abcdefghijklmnopqrstuvwxyz0123456",
        "glpat-abcdefghij0123456789 https://hooks.slack.com/services/T0123ABCD/B0123ABCDE/abcdefghijklmnopqrstuvwx",
        "STRIPE_KEY=sk_live_abcdefghijklmnopqrstuvwx key=AIzaabcdefghijklmnopqrstuvwxyz012345678 ASIAABCDEFGHIJKLMNOP",
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstuv github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789",
        "bot  | HTTP Request: POST https://api.telegram.org/bot8034820322:AA4zgxWeLChypIYn0AELFPok1Qwr_-rD8vU/getUpdates \"HTTP/1.1 200 OK\"",
        "The server is now up. All 8 ranks are up and running; the drafter is active.",
        "GPUs are now free after freed the gpu memory; weights are loaded, it is listening on port 30000",
        "port 8000 is now open; serving on 0.0.0.0:8000 and the eagle3 drafter is loaded",
        "with the eagle-3 drafter, loaded all shards, ready to serve, came up",
        "I will check whether it's ready? Let me wait until it isn't",
        "load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, elapsed=12.5 s took 3.2 seconds",
        "NCCL INFO comm 0x1 rank 3 nranks 8 cudaDev 3 - Init COMPLETE; Rank 2 is using GPU 2",
        "MPI size: 4, rank: 1; world_size=8 rank=3; rank 5 in world size 8 is assigned",
        "OSError: [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use",
        "listen tcp 127.0.0.1:11434: bind: address already in use; port: 8080 failed",
        "[GIN] 2026/02/11 - 22:35:07 | 200 |  1.2ms | 127.0.0.1 | POST \"/api/chat\"",
        "srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200",
        "accept len: 2.75, Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:12<00:00,  3.1s/it]",
        "Rank 1: NCCL watchdog timeout",
        "router/src/server.rs:622: Success",
        "[rank3]: Traceback; Rank 1: failed; [2026-02-11 22:35:07 DP1 TP3] x; scheduler_DP1_TP3 Worker_TP2",
        "torch.OutOfMemoryError: CUDA out of memory; ValueError: bad",
        "\x1b[31mred\x1b[0m #033[0m \x1b]0;title\x07",
        "[pod/vllm-0] svc-1  | Feb 11 22:35:07 host vllm[42]: 2026-02-11T22:35:07.123Z x",
        "time=2026-02-11T22:35:07.000Z level=INFO source=server.go:637 msg=\"llama runner started in 5.65 seconds\"",
        "2026/02/11 22:35:07 routes.go:1125: OLLAMA_HOST:http://0.0.0.0:11434 --model /root/m.gguf",
        "0.01.123.456 I loading model 'm' from /models/x.gguf",
        "(VllmWorker TP1 pid=3101, ip=10.0.0.2) INFO 11-30 18:00:25 [x.py:144] y",
        "INFO 11-30 18:00:25.123 [loggers.py:123] z; WARNING 11-30 18:00:25 api_server.py:1] q",
        "2026-11-30T12:01:05.800000Z  INFO text_generation_router::server{a=1}::x: router/src/server.rs:622: Success rank=3",
        "[11/30/2026-07:00:01] [TRT-LLM] [RANK 2] [I] iter = 1200",
        "[msg 3] user: hi; ## **Assistant**: ok",
        "(venv) alice@gpu-01:~/work$ ls -la",
        "{\"model\": \"Qwen/Qwen3-8B\", \"id\": \"chatcmpl-1\", \"data\": [{\"id\": \"m\"}]}",
    ];

    /// The same line with what ASCII-only and Unicode classes disagree on:
    /// non-ASCII letters at word edges, non-ASCII digits and spaces, and the
    /// two non-ASCII letters that fold to ASCII ones (Kelvin sign, long s).
    fn variants(line: &str) -> Vec<String> {
        let edges: String = line
            .chars()
            .flat_map(|c| {
                if c.is_ascii_alphanumeric() {
                    vec![c]
                } else {
                    vec!['é', c, 'ß']
                }
            })
            .collect();
        vec![
            line.to_owned(),
            line.replace(' ', "\u{a0}"),
            line.replace(' ', "\u{2003}"),
            edges,
            line.chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) if c.is_ascii_digit() => char::from_u32(0x660 + d).unwrap_or(c),
                    _ => c,
                })
                .collect(),
            line.replace(['k', 'K'], "\u{212a}")
                .replace(['s', 'S'], "\u{17f}"),
            line.to_ascii_uppercase(),
            line.to_ascii_lowercase(),
        ]
    }

    /// Every input line of every example, cut at [`LINE_CAP`], then [`EXTRA`].
    fn corpus() -> Vec<String> {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut files: Vec<_> = std::fs::read_dir(&examples)
            .expect("the examples folder")
            .filter_map(Result::ok)
            .filter_map(|case| std::fs::read_dir(case.path()).ok())
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                !matches!(name, "expected.json" | "report.json")
            })
            .collect();
        files.sort();
        let mut lines = Vec::new();
        for file in files {
            // A test reading its fixtures; the core itself does no I/O.
            #[allow(clippy::disallowed_methods)]
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            for line in text.lines() {
                let cut = crate::source::floor_char_boundary(line, LINE_CAP);
                lines.push(line[..cut].to_owned());
            }
        }
        lines.extend(EXTRA.iter().map(|line| (*line).to_owned()));
        lines.sort();
        lines.dedup();
        lines
    }

    /// [`corpus`], read once per test binary.
    pub(crate) fn corpus_cached() -> &'static [String] {
        static CORPUS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(corpus);
        &CORPUS
    }

    type Spans = Vec<Vec<Option<(usize, usize)>>>;

    /// Both engines compile `pattern` and find the same matches, with the
    /// same capture groups, in every line of the corpus and its variants;
    /// and the pattern matches at least one line, so the check means
    /// something.
    pub(crate) fn assert_same_in_both_engines(pattern: &str) {
        let full =
            regex::Regex::new(pattern).unwrap_or_else(|e| panic!("regex rejects {pattern}: {e}"));
        let lite = regex_lite::Regex::new(pattern)
            .unwrap_or_else(|e| panic!("regex-lite rejects {pattern}: {e}"));
        let mut matched = false;
        for line in corpus_cached() {
            for text in variants(line) {
                let by_full: Spans = full
                    .captures_iter(&text)
                    .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
                    .collect();
                let by_lite: Spans = lite
                    .captures_iter(&text)
                    .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect())
                    .collect();
                assert_eq!(by_full, by_lite, "{pattern} on {text:?}");
                matched |= !by_full.is_empty();
            }
        }
        assert!(matched, "{pattern} matches no line of the corpus");
    }
}

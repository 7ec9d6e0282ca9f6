//! Credentials in the inputs: API keys, tokens and passwords that an agent
//! printed or passed on a command line. Found once over every source so that
//! the `secret-exposed` rule can report them and the report can redact them
//! everywhere it quotes text.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use crate::re::{Regex, regex};
use crate::source::{Source, Span};

/// One credential found in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// The line it is on.
    pub line: Span,
    /// What kind of credential (`Hugging Face token`).
    pub kind: &'static str,
    /// The credential itself; never rendered, only used to redact.
    pub value: String,
    /// What to show instead: a short prefix and `…[redacted]`.
    pub redacted: String,
}

// ASCII word boundaries and case: credentials are ASCII, a Unicode `\b`
// would make the native engine leave its fast automaton on any non-ASCII
// text, and the wasm engine knows only ASCII classes (`crate::re`).
regex!(HF_TOKEN, r"(?-u:\b)(hf_[A-Za-z0-9]{30,})");
regex!(ANTHROPIC_KEY, r"(?-u:\b)(sk-ant-[A-Za-z0-9_-]{20,})");
regex!(OPENAI_KEY, r"(?-u:\b)(sk-(?:proj-)?[A-Za-z0-9_-]{20,})");
regex!(GITHUB_TOKEN, r"(?-u:\b)(gh[pousr]_[A-Za-z0-9]{30,})");
regex!(AWS_KEY, r"(?-u:\b)(AKIA[0-9A-Z]{16})(?-u:\b)");
regex!(SLACK_TOKEN, r"(?-u:\b)(xox[baprs]-[A-Za-z0-9-]{10,})");
regex!(
    BEARER,
    r"(?i-u)authorization:[ \t]*bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})"
);
regex!(
    URL_PASSWORD,
    r"(?-u:\b)[a-z][a-z0-9+.-]*://[^\t\n\x0B\x0C\r :/@]+:([^\t\n\x0B\x0C\r @/]{3,})@"
);
regex!(
    OPTION_OR_VARIABLE,
    r#"(?i-u)(?:--api-key|api[_-]?key|token|secret|password|passwd)(?:[ \t]*[=:][ \t]*|[ \t]+)['"]?([A-Za-z0-9._~+/-]{8,})"#
);

/// Each kind of credential and its pattern: the credential is capture group
/// 1 when there is one, else the whole match.
static PATTERNS: [(&str, &LazyLock<Option<Regex>>); 9] = [
    ("Hugging Face token", &HF_TOKEN),
    ("Anthropic API key", &ANTHROPIC_KEY),
    ("OpenAI API key", &OPENAI_KEY),
    ("GitHub token", &GITHUB_TOKEN),
    ("AWS access key", &AWS_KEY),
    ("Slack token", &SLACK_TOKEN),
    ("bearer token", &BEARER),
    ("password in a URL", &URL_PASSWORD),
    ("credential in an option or variable", &OPTION_OR_VARIABLE),
];

/// Values that look like credentials but are placeholders or plain words.
fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.chars().all(|c| c.is_ascii_digit())
        || value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
        || [
            "none", "null", "xxxx", "your", "redacted", "example", "$", "<", "***",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Every credential-shaped match in a text, placeholders left out, as the
/// text it matched (with the keyword or scheme before the value, so that
/// [`scan`] finds it again). The condenser keeps these from the parts of a
/// record it drops.
pub fn fragments(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for m in matches(text) {
        if !found.contains(&m.whole) {
            found.push(m.whole);
        }
    }
    found
}

/// For each pattern (by its index in [`PATTERNS`]), words one of which is
/// in every match of it, ASCII case ignored.
const TRIGGERS: [(&str, usize); 19] = [
    ("hf_", 0),
    ("sk-", 1),
    ("sk-", 2),
    ("ghp_", 3),
    ("gho_", 3),
    ("ghu_", 3),
    ("ghs_", 3),
    ("ghr_", 3),
    ("akia", 4),
    ("xox", 5),
    ("authorization", 6),
    ("://", 7),
    // `--api-key` ends with `api-key`.
    ("api-key", OPTION),
    ("api_key", OPTION),
    ("apikey", OPTION),
    ("token", OPTION),
    ("secret", OPTION),
    ("password", OPTION),
    ("passwd", OPTION),
];

/// The index of `credential in an option or variable` in [`PATTERNS`].
const OPTION: usize = 8;

// A DFA, like the log-line scanner's (`parse::logline`): one kind of
// automaton linked, not two.
static TRIGGER_SCAN: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .kind(Some(AhoCorasickKind::DFA))
        .build(TRIGGERS.iter().map(|(word, _)| word))
        .ok()
});

/// Whether the option-or-variable pattern can match at a keyword followed
/// by `rest`: `[ \t]*[=:][ \t]*` or `[ \t]+`, an optional quote, then eight
/// value characters (the pattern's own grammar after its keyword). `token`
/// is on every batch line of most engines' logs (`#token: 2311`), so this
/// keeps the pattern off nearly all of them.
fn value_follows(rest: &str) -> bool {
    let rest = rest.as_bytes();
    let blanks = |from: usize| {
        from + rest.get(from..).map_or(0, |r| {
            r.iter().take_while(|b| matches!(b, b' ' | b'\t')).count()
        })
    };
    let mut at = blanks(0);
    if matches!(rest.get(at), Some(b'=' | b':')) {
        at = blanks(at + 1);
    } else if at == 0 {
        return false;
    }
    if matches!(rest.get(at), Some(b'\'' | b'"')) {
        at += 1;
    }
    rest.get(at..).is_some_and(|value| {
        value
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || b"._~+/-".contains(b))
            .count()
            >= 8
    })
}

/// For each pattern, the byte ranges of the lines (without their `\n`) it
/// can match on, in order: those holding one of its triggers (for the
/// option-or-variable pattern, followed by what its value needs). Every
/// line for every pattern when the scanner could not be built.
fn lines_per_pattern(text: &str) -> Vec<Vec<(usize, usize)>> {
    let line_around = |at: usize| {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        (start, end)
    };
    let mut lines: Vec<Vec<(usize, usize)>> = vec![Vec::new(); PATTERNS.len()];
    let Some(scan) = TRIGGER_SCAN.as_ref() else {
        let mut all = Vec::new();
        let mut at = 0;
        while at <= text.len() {
            let (start, end) = line_around(at);
            all.push((start, end));
            at = end + 1;
        }
        lines.fill(all);
        return lines;
    };
    // Overlapping, so that no trigger hides another (`secretoken=…`).
    for found in scan.find_overlapping_iter(text) {
        let Some(&(_, pattern)) = TRIGGERS.get(found.pattern().as_usize()) else {
            continue;
        };
        if pattern == OPTION && !value_follows(&text[found.end()..]) {
            continue;
        }
        let line = line_around(found.start());
        if let Some(list) = lines.get_mut(pattern)
            && list.last() != Some(&line)
        {
            list.push(line);
        }
    }
    lines
}

/// One credential-shaped match: the pattern's index, the whole match and,
/// where it starts in the text, the credential in it.
struct Found<'t> {
    pattern: usize,
    whole: &'t str,
    at: usize,
    value: &'t str,
}

/// Every credential-shaped match in a text, placeholders left out, pattern by
/// pattern and in text order for each. No pattern crosses a newline, so each
/// runs only on the lines [`lines_per_pattern`] picks for it, with the same
/// matches as over the whole text (the tests check it): the wasm engine has
/// no literal prefilter of its own, and every pattern over the whole of a
/// 100 MB log took it minutes.
fn matches(text: &str) -> Vec<Found<'_>> {
    let lines = lines_per_pattern(text);
    let mut found = Vec::new();
    for (index, ((_, pattern), lines)) in PATTERNS.iter().zip(&lines).enumerate() {
        let Some(regex) = pattern.as_ref() else {
            continue;
        };
        for &(start, end) in lines {
            let line = &text[start..end];
            for captures in regex.captures_iter(line) {
                let Some(whole) = captures.get(0) else {
                    continue;
                };
                let value = captures.get(1).unwrap_or(whole);
                if !is_placeholder(value.as_str()) {
                    found.push(Found {
                        pattern: index,
                        whole: whole.as_str(),
                        at: start + value.start(),
                        value: value.as_str(),
                    });
                }
            }
        }
    }
    found
}

/// Finds every credential in every source, each value once per line.
pub fn scan(sources: &[&Source]) -> Vec<Secret> {
    struct Candidate<'t> {
        source: usize,
        line_start: usize,
        line_end: usize,
        pattern: usize,
        at: usize,
        value: &'t str,
    }
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    for (source_id, source) in sources.iter().enumerate() {
        let text = source.text.as_str();
        for m in matches(text) {
            let value_end = m.at + m.value.len();
            let line_start = text[..m.at].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[value_end..]
                .find('\n')
                .map_or(text.len(), |i| value_end + i);
            candidates.push(Candidate {
                source: source_id,
                line_start,
                line_end,
                pattern: m.pattern,
                at: m.at,
                value: m.value,
            });
        }
    }
    // Line by line, then pattern by pattern: a value already found on the
    // line (or inside a longer one found there) is not found again.
    candidates.sort_by_key(|c| (c.source, c.line_start, c.pattern, c.at));
    let mut found: Vec<Secret> = Vec::new();
    for c in candidates {
        if found.iter().any(|s| {
            s.line.source == c.source && s.line.start == c.line_start && s.value.contains(c.value)
        }) {
            continue;
        }
        let prefix: String = c.value.chars().take(4).collect();
        found.push(Secret {
            line: Span::new(c.source, c.line_start, c.line_end),
            kind: PATTERNS[c.pattern].0,
            value: c.value.to_owned(),
            redacted: format!("{prefix}…[redacted]"),
        });
    }
    found
}

/// Replaces every found credential in `text`.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    let mut text = text.to_owned();
    for secret in secrets {
        if text.contains(&secret.value) {
            text = text.replace(&secret.value, &secret.redacted);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&'static str, String)> {
        scan(&[&Source::new("t", text)])
            .into_iter()
            .map(|s| (s.kind, s.redacted))
            .collect()
    }

    #[test]
    fn all_patterns_compile() {
        assert!(PATTERNS.iter().all(|(_, p)| p.is_some()));
    }

    /// Searching only the lines with a trigger finds what searching the whole
    /// text finds.
    #[cfg(not(target_family = "wasm"))]
    #[test]
    fn trigger_lines_find_what_the_whole_text_has() {
        let corpus = crate::re::tests::corpus_cached().join("\n");
        // Keywords with and without what the option-or-variable pattern
        // needs after them (`value_follows`), and overlapping ones.
        let keywords = "secretoken=abcdefgh12\napi_key = 'abcdefghij'\n\
            password\t\"abcdefghijk\"\n--api-key abcdefgh\nTOKEN:abcdefgh\n\
            token : short\n#token: 2311, token usage: 0.00\ntoken=\"abcdefgh\" \
            SECRET abcdefgh/+~ passwd:\tabcdefgh token token=abcdefgh\napikey= 'x\n";
        for text in [
            corpus.as_str(),
            keywords,
            "x\n\nhf_abcdefghijklmnopqrstuvwxyz0123456\n",
        ] {
            let mut whole_text = Vec::new();
            for (index, (_, pattern)) in PATTERNS.iter().enumerate() {
                let Some(regex) = pattern.as_ref() else {
                    continue;
                };
                for c in regex.captures_iter(text) {
                    let whole = c.get(0).expect("group 0");
                    let value = c.get(1).unwrap_or(whole);
                    if !is_placeholder(value.as_str()) {
                        whole_text.push((index, whole.as_str(), value.start(), value.as_str()));
                    }
                }
            }
            let by_line: Vec<_> = matches(text)
                .into_iter()
                .map(|m| (m.pattern, m.whole, m.at, m.value))
                .collect();
            assert!(!whole_text.is_empty());
            assert_eq!(by_line, whole_text);
        }
    }

    #[test]
    fn finds_tokens_keys_and_passwords() {
        assert_eq!(
            kinds("export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
            [("Hugging Face token", "hf_A…[redacted]".to_owned())]
        );
        assert_eq!(
            kinds("vllm serve m --api-key s3cr3tK3yValue99"),
            [(
                "credential in an option or variable",
                "s3cr…[redacted]".to_owned()
            )]
        );
        assert_eq!(
            kinds("git clone https://ops:Tr0ub4dor@git.example.com/x.git"),
            [("password in a URL", "Tr0u…[redacted]".to_owned())]
        );
        assert_eq!(
            kinds("curl -H 'Authorization: Bearer abcdefghijklmnop1234'").len(),
            1
        );
    }

    #[test]
    fn ignores_log_noise_and_placeholders() {
        for text in [
            "[2026-01-01 00:00:00 TP0] Decode batch. #running-req: 1, #token: 20480, token usage: 0.00",
            "server_args=ServerArgs(api_key=None, tokenizer_path='/m', max_total_num_token=56524)",
            "export HF_TOKEN=<your-token>",
            "--api-key $API_KEY",
            "max_total_num_tokens=20480, chunked_prefill_size=8192",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    #[test]
    fn a_match_never_spans_lines() {
        assert!(kinds("the token\nabcdefghijklmnop").is_empty());
        let found = scan(&[&Source::new("t", "a\nexport API_KEY=s3cr3tK3yValue99\nb\n")]);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line.start, found[0].line.end), (2, 33));
    }

    #[test]
    fn redaction_replaces_every_copy() {
        let text =
            "a hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 b hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let secrets = scan(&[&Source::new("t", text)]);
        assert_eq!(
            redact(text, &secrets),
            "a hf_A…[redacted] b hf_A…[redacted]"
        );
    }
}

//! Credentials in the inputs: API keys, tokens and passwords that an agent
//! printed or passed on a command line. Found once over every source so that
//! the `secret-exposed` rule can report them and the report can redact them
//! everywhere it quotes text.

use std::sync::LazyLock;

use regex::Regex;

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

struct Pattern {
    kind: &'static str,
    /// The credential is capture group 1 when there is one, else the match.
    regex: LazyLock<Option<Regex>>,
}

macro_rules! pattern {
    ($kind:literal, $re:literal) => {
        Pattern {
            kind: $kind,
            regex: LazyLock::new(|| Regex::new($re).ok()),
        }
    };
}

// ASCII word boundaries: a Unicode `\b` makes the regex engine leave its
// fast automaton on any non-ASCII text, and credentials are ASCII anyway.
static PATTERNS: [Pattern; 9] = [
    pattern!("Hugging Face token", r"(?-u:\b)(hf_[A-Za-z0-9]{30,})"),
    pattern!("Anthropic API key", r"(?-u:\b)(sk-ant-[A-Za-z0-9_-]{20,})"),
    pattern!(
        "OpenAI API key",
        r"(?-u:\b)(sk-(?:proj-)?[A-Za-z0-9_-]{20,})"
    ),
    pattern!("GitHub token", r"(?-u:\b)(gh[pousr]_[A-Za-z0-9]{30,})"),
    pattern!("AWS access key", r"(?-u:\b)(AKIA[0-9A-Z]{16})(?-u:\b)"),
    pattern!("Slack token", r"(?-u:\b)(xox[baprs]-[A-Za-z0-9-]{10,})"),
    pattern!(
        "bearer token",
        r"(?i)authorization:[ \t]*bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})"
    ),
    pattern!(
        "password in a URL",
        r"(?-u:\b)[a-z][a-z0-9+.-]*://[^\s:/@]+:([^\s@/]{3,})@"
    ),
    pattern!(
        "credential in an option or variable",
        r#"(?i)(?:--api-key|api[_-]?key|token|secret|password|passwd)(?:[ \t]*[=:][ \t]*|[ \t]+)['"]?([A-Za-z0-9._~+/-]{8,})"#
    ),
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
    for (_, whole, _) in matches(text) {
        if !found.contains(&whole.as_str()) {
            found.push(whole.as_str());
        }
    }
    found
}

/// Every credential-shaped match in a text, placeholders left out: the
/// pattern's index, the whole match and the credential in it. Pattern by
/// pattern over the whole text: each regex skips ahead with its own literal
/// prefilter (`hf_`, `://`, `token`…), far faster than every pattern on
/// every line. No pattern crosses a newline.
fn matches(text: &str) -> impl Iterator<Item = (usize, regex::Match<'_>, regex::Match<'_>)> {
    PATTERNS
        .iter()
        .enumerate()
        .filter_map(|(index, pattern)| pattern.regex.as_ref().map(|regex| (index, regex)))
        .flat_map(move |(index, regex)| {
            regex.captures_iter(text).filter_map(move |captures| {
                let whole = captures.get(0)?;
                let value = captures.get(1).unwrap_or(whole);
                (!is_placeholder(value.as_str())).then_some((index, whole, value))
            })
        })
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
        for (index, _, value) in matches(text) {
            let line_start = text[..value.start()].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[value.end()..]
                .find('\n')
                .map_or(text.len(), |i| value.end() + i);
            candidates.push(Candidate {
                source: source_id,
                line_start,
                line_end,
                pattern: index,
                at: value.start(),
                value: value.as_str(),
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
            kind: PATTERNS[c.pattern].kind,
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
        assert!(PATTERNS.iter().all(|p| p.regex.is_some()));
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

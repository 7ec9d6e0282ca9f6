//! Credentials in the inputs: API keys, tokens and passwords that an agent
//! printed or passed on a command line. Found once over every source so that
//! the `secret-exposed` rule can report them and the report can redact them
//! everywhere it quotes text.

use std::ops::Range;
use std::sync::LazyLock;

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

// ASCII word boundaries and classes: credentials are ASCII, a Unicode `\b`
// would make the native engine leave its fast automaton on any non-ASCII
// text, and the wasm engine knows only ASCII classes (`crate::re`). Each has
// a rare literal (`hf_`, `AKIA`, `://`…) its search skips to. The two
// credentials led by a common word (`token: 1234` is in every batch line of
// a server log, and `authorization` is case-free) are matched by hand below
// (`bearers`, `credentials`).
regex!(HF_TOKEN, r"(?-u:\b)(hf_[A-Za-z0-9]{30,})");
regex!(ANTHROPIC_KEY, r"(?-u:\b)(sk-ant-[A-Za-z0-9_-]{20,})");
regex!(OPENAI_KEY, r"(?-u:\b)(sk-(?:proj-)?[A-Za-z0-9_-]{20,})");
regex!(GITHUB_TOKEN, r"(?-u:\b)(gh[pousr]_[A-Za-z0-9]{30,})");
regex!(AWS_KEY, r"(?-u:\b)(AKIA[0-9A-Z]{16})(?-u:\b)");
regex!(SLACK_TOKEN, r"(?-u:\b)(xox[baprs]-[A-Za-z0-9-]{10,})");
regex!(
    URL_PASSWORD,
    r"(?-u:\b)[a-z][a-z0-9+.-]*://[^\t\n\x0B\x0C\r :/@]+:([^\t\n\x0B\x0C\r @/]{3,})@"
);

/// Each kind of credential found by a pattern, and the pattern: the
/// credential is capture group 1 when there is one, else the match.
static PATTERNS: [(&str, &LazyLock<Option<Regex>>); 7] = [
    ("Hugging Face token", &HF_TOKEN),
    ("Anthropic API key", &ANTHROPIC_KEY),
    ("OpenAI API key", &OPENAI_KEY),
    ("GitHub token", &GITHUB_TOKEN),
    ("AWS access key", &AWS_KEY),
    ("Slack token", &SLACK_TOKEN),
    ("password in a URL", &URL_PASSWORD),
];

/// The kinds found by hand, by their place in the order kinds are tried on
/// a line (a value found by an earlier kind is not found again): bearer
/// tokens before URLs' passwords, option and variable credentials last.
const BEARER: usize = 6;
const CREDENTIAL: usize = 8;

/// A kind's place in that order from its index in [`PATTERNS`].
fn order(pattern: usize) -> usize {
    if pattern >= BEARER {
        pattern + 1
    } else {
        pattern
    }
}

/// Every kind's name, by its place in the order.
fn kind(index: usize) -> &'static str {
    match index {
        BEARER => "bearer token",
        CREDENTIAL => "credential in an option or variable",
        _ => PATTERNS
            .get(if index > BEARER { index - 1 } else { index })
            .map_or("credential", |(kind, _)| kind),
    }
}

/// A match: the whole of it and the credential in it, as byte ranges.
type Found = (Range<usize>, Range<usize>);

/// The length of the run of `class` bytes at `at`.
fn run(bytes: &[u8], at: usize, class: impl Fn(u8) -> bool) -> usize {
    bytes
        .get(at..)
        .map_or(0, |rest| rest.iter().take_while(|b| class(**b)).count())
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Whether `bytes[at..]` starts with `word`, ASCII case ignored.
fn word_at(bytes: &[u8], at: usize, word: &[u8]) -> bool {
    bytes
        .get(at..at + word.len())
        .is_some_and(|here| here.eq_ignore_ascii_case(word))
}

/// The keywords of [`credentials`], lowercase, each with the letter the
/// letter-by-letter search finds it by (`k`, `w` or `c`) and that letter's
/// offset; `--api-key` before `api-key`, whose match it would contain.
const KEYWORDS: &[(&[u8], u8, usize)] = &[
    (b"token", b'k', 2),
    (b"--api-key", b'k', 6),
    (b"api_key", b'k', 4),
    (b"api-key", b'k', 4),
    (b"apikey", b'k', 3),
    (b"password", b'w', 4),
    (b"passwd", b'w', 4),
    (b"secret", b'c', 2),
];

/// Whether multi-literal searches run on SIMD here: aho-corasick's Teddy
/// exists for x86-64 and AArch64 only, and only there are
/// [`KEYWORD_SCAN`] and [`LITERAL_SCAN`] built. Elsewhere (WebAssembly,
/// where memchr has SIMD) a letter or key found with memchr is faster than
/// an automaton walking every byte: the keywords are found by their letters
/// ([`keyword_hits_by_letter`]), the patterns' literals by their keys
/// ([`literal_hits`]).
const MULTI_LITERAL_SIMD: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The keywords as one multi-literal (SIMD) search over lowercased text.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static KEYWORD_SCAN: LazyLock<Option<aho_corasick::AhoCorasick>> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(KEYWORDS.iter().map(|(word, _, _)| word))
        .ok()
});

/// `(?i)(?:--api-key|api[_-]?key|token|secret|password|passwd)(?:[ \t]*[=:][ \t]*|[ \t]+)['"]?([A-Za-z0-9._~+/-]{8,})`,
/// by hand, each match handed to `each` in order. Its keywords are common
/// words in logs (`token` twice in every SGLang batch line) and in code, so
/// a pattern would be started at each; here the keywords are found first
/// and each checked in a few byte comparisons. Leftmost first and never
/// overlapping, as the pattern's matches are.
fn credentials(text: &str, mut each: impl FnMut(Found)) {
    let bytes = text.as_bytes();
    let mut allowed = 0;
    keyword_hits(bytes, |hits| {
        check_keywords(bytes, hits, &mut allowed, &mut each)
    });
}

/// [`credentials`] on keywords found (sorted as [`keyword_hits`] gives
/// them): at each letter, the first keyword (in [`KEYWORDS`] order) that
/// starts after the last match, followed by a separator and a value.
fn check_keywords(bytes: &[u8], hits: &[Hit], allowed: &mut usize, each: &mut impl FnMut(Found)) {
    let value_byte = |b: u8| b.is_ascii_alphanumeric() || b"._~+/-".contains(&b);
    let mut next = 0;
    while let Some(&(letter, _, _, _)) = hits.get(next) {
        let group = hits[next..]
            .iter()
            .take_while(|(at, _, _, _)| *at == letter)
            .count();
        let keyword = hits[next..next + group]
            .iter()
            .find(|(_, _, start, _)| *start >= *allowed)
            .map(|&(_, _, start, end)| (start, end));
        next += group;
        let Some((start, end)) = keyword else {
            continue;
        };
        // `[ \t]*[=:][ \t]*`, else `[ \t]+`.
        let spaces = run(bytes, end, is_blank);
        let mut value = end + spaces;
        if matches!(bytes.get(value), Some(b'=' | b':')) {
            value += 1;
            value += run(bytes, value, is_blank);
        } else if spaces == 0 {
            continue;
        }
        if matches!(bytes.get(value), Some(b'\'' | b'"')) {
            value += 1;
        }
        let length = run(bytes, value, value_byte);
        if length >= 8 {
            each((start..value + length, value..value + length));
            *allowed = value + length;
        }
    }
}

/// An occurrence of a keyword: the position of its letter, its index in
/// [`KEYWORDS`], its start and end.
type Hit = (usize, usize, usize, usize);

/// Every occurrence of every keyword, in any case, handed to `settled` a
/// batch at a time, sorted by letter and then by [`KEYWORDS`] order (no
/// later batch has an earlier letter). Found with one multi-literal search
/// over a lowercased copy of the text, a window at a time, so that neither
/// the text nor its keywords are ever held whole; each search restarts
/// just after the last keyword's start, so overlapping keywords
/// (`secretoken`) are all found.
fn keyword_hits(bytes: &[u8], mut settled: impl FnMut(&[Hit])) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if let Some(scan) = KEYWORD_SCAN.as_ref() {
        keyword_hits_simd(bytes, scan, settled);
        return;
    }
    settled(&keyword_hits_by_letter(bytes));
}

/// [`keyword_hits`] with [`KEYWORD_SCAN`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn keyword_hits_simd(
    bytes: &[u8],
    scan: &aho_corasick::AhoCorasick,
    mut settled: impl FnMut(&[Hit]),
) {
    const WINDOW: usize = 64 * 1024;
    // A keyword starting in a window may end in the next one.
    const LONGEST: usize = 9;
    let mut pending: Vec<Hit> = Vec::new();
    let mut lower = Vec::with_capacity(bytes.len().min(WINDOW + LONGEST));
    let mut window = 0;
    while window < bytes.len() {
        let end = (window + WINDOW + LONGEST).min(bytes.len());
        lower.clear();
        lower.extend_from_slice(&bytes[window..end]);
        lower.make_ascii_lowercase();
        // Keywords starting in this window; later ones are the next one's.
        let starts_before = WINDOW.min(lower.len());
        let mut from = 0;
        while from < starts_before {
            let input = aho_corasick::Input::new(&lower).span(from..lower.len());
            let Some(hit) = scan.find(input) else {
                break;
            };
            if hit.start() >= starts_before {
                break;
            }
            let index = hit.pattern().as_usize();
            let offset = KEYWORDS.get(index).map_or(0, |(_, _, offset)| *offset);
            let start = window + hit.start();
            pending.push((start + offset, index, start, window + hit.end()));
            from = hit.start() + 1;
        }
        window += WINDOW;
        // Later windows' keywords start, so have their letter, after here.
        pending.sort_unstable();
        let done = pending.partition_point(|hit| hit.0 < window);
        settled(&pending[..done]);
        pending.drain(..done);
    }
    settled(&pending);
}

/// [`keyword_hits`] without the multi-literal search: every `k`, `w` and
/// `c` (any case) checked for the keywords it can be in.
fn keyword_hits_by_letter(bytes: &[u8]) -> Vec<Hit> {
    let mut hits = Vec::new();
    let letters = memchr::memchr3_iter(b'k', b'w', b'c', bytes);
    let capitals = memchr::memchr3_iter(b'K', b'W', b'C', bytes);
    for at in merge(letters, capitals) {
        let letter = bytes[at].to_ascii_lowercase();
        for (index, (word, by, offset)) in KEYWORDS.iter().enumerate() {
            if *by == letter
                && let Some(start) = at.checked_sub(*offset)
                && word_at(bytes, start, word)
            {
                hits.push((at, index, start, start + word.len()));
            }
        }
    }
    hits
}

/// `(?i)authorization:[ \t]*bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})`, by
/// hand: `authorization` in any case is found from its `z`.
fn bearers(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b"._~+/=-".contains(&b);
    let mut found = Vec::new();
    let mut allowed = 0;
    for at in memchr::memchr2_iter(b'z', b'Z', bytes) {
        // `authori` + `z` + `ation:`
        let Some(start) = at.checked_sub(7) else {
            continue;
        };
        if start < allowed || !word_at(bytes, start, b"authorization:") {
            continue;
        }
        let mut value = start + 14;
        value += run(bytes, value, is_blank);
        if !word_at(bytes, value, b"bearer") {
            continue;
        }
        value += 6;
        let spaces = run(bytes, value, is_blank);
        if spaces == 0 {
            continue;
        }
        value += spaces;
        let length = run(bytes, value, token_byte);
        if length >= 16 {
            found.push((start..value + length, value..value + length));
            allowed = value + length;
        }
    }
    found
}

/// Two ascending position streams as one.
fn merge(
    a: impl Iterator<Item = usize>,
    b: impl Iterator<Item = usize>,
) -> impl Iterator<Item = usize> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if x <= y => a.next(),
        (Some(_), Some(_)) => b.next(),
        (Some(_), None) => a.next(),
        (None, _) => b.next(),
    })
}

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
    for (_, (whole, _)) in matches(text) {
        let whole = &text[whole];
        if !found.contains(&whole) {
            found.push(whole);
        }
    }
    found
}

/// Literals a match of [`PATTERNS`] holds, each with the patterns (a bit
/// per index) whose matches hold it: a text with none of a pattern's
/// literals is not searched with it. A test holds them to the patterns.
const PATTERN_LITERALS: &[(&str, u32)] = &[
    ("hf_", 1),
    // Anthropic's keys and OpenAI's.
    ("sk-", 1 << 1 | 1 << 2),
    ("ghp_", 1 << 3),
    ("gho_", 1 << 3),
    ("ghu_", 1 << 3),
    ("ghs_", 1 << 3),
    ("ghr_", 1 << 3),
    ("AKIA", 1 << 4),
    ("xoxb-", 1 << 5),
    ("xoxa-", 1 << 5),
    ("xoxp-", 1 << 5),
    ("xoxr-", 1 << 5),
    ("xoxs-", 1 << 5),
    ("://", 1 << 6),
];

/// All of [`PATTERN_LITERALS`] in one multi-literal (SIMD) search.
/// Leftmost-first: that search runs on its SIMD literal searcher (Teddy).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static LITERAL_SCAN: LazyLock<Option<aho_corasick::AhoCorasick>> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .match_kind(aho_corasick::MatchKind::LeftmostFirst)
        .build(PATTERN_LITERALS.iter().map(|(literal, _)| literal))
        .ok()
});

/// For each of [`PATTERNS`], the parts of the text to search with it: none
/// when the text holds none of its literals (most text, a file the agent
/// read or a build's output, holds no credential at all), found in one pass
/// instead of one per pattern. Either the whole text, where a regex with
/// its own literal prefilter skips ahead (natively), or the lines holding
/// one of the pattern's literals, for an engine with no prefilter, which
/// would start at every byte of a 100 MB log (wasm's `regex-lite`). No
/// match crosses a newline, so both find the same matches.
fn search_ranges(text: &str, by_line: bool) -> Vec<Vec<Range<usize>>> {
    let mut ranges = vec![Vec::new(); PATTERNS.len()];
    if by_line {
        let bytes = text.as_bytes();
        let mut line = 0..0;
        literal_hits(bytes, |at, patterns| {
            if !line.contains(&at) {
                let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
                let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                line = start..end;
            }
            for (index, list) in ranges.iter_mut().enumerate() {
                if patterns & (1 << index) != 0 && list.last() != Some(&line) {
                    list.push(line.clone());
                }
            }
        });
        // In text order, each line once, whichever key found it.
        for list in &mut ranges {
            list.sort_unstable_by_key(|line| line.start);
            list.dedup();
        }
        return ranges;
    }
    let all = (1 << PATTERNS.len()) - 1;
    let found = literal_patterns(text).unwrap_or(all);
    for (index, list) in ranges.iter_mut().enumerate() {
        if found & (1 << index) != 0 {
            let whole = 0..text.len();
            list.push(whole);
        }
    }
    ranges
}

/// The patterns (bits of [`PATTERNS`]) whose literals occur in `text`, from
/// one multi-literal SIMD search; `None` where there is none.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn literal_patterns(text: &str) -> Option<u32> {
    let all = (1 << PATTERNS.len()) - 1;
    let scan = LITERAL_SCAN.as_ref()?;
    let mut found = 0;
    // Not overlapping: no literal's end starts another family's
    // literal, so none is hidden (and the search keeps its SIMD
    // prefilter).
    for hit in scan.find_iter(text) {
        found |= PATTERN_LITERALS
            .get(hit.pattern().as_usize())
            .map_or(all, |(_, patterns)| *patterns);
        if found == all {
            break;
        }
    }
    Some(found)
}

/// Without a multi-literal SIMD search, no answer: every pattern is tried.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn literal_patterns(_: &str) -> Option<u32> {
    None
}

/// What [`literal_hits`] searches for: each of [`PATTERN_LITERALS`] holds
/// one (a test checks it), and each is rare in prose and logs (`gh`, which
/// GitHub's prefixes share, is in every `throughput`; `_` is not).
const LITERAL_KEYS: [&str; 5] = ["_", "sk-", "xox", "://", "AKIA"];

/// Every occurrence of each of [`PATTERN_LITERALS`] in `bytes`, overlapping
/// ones too, handed to `each` as a position inside it and its patterns'
/// bits, key by key (so not in order). Without an automaton: a SIMD
/// substring search (`memmem`) per key of [`LITERAL_KEYS`], the literals
/// holding that key compared in place at each. In wasm, which has SIMD
/// memchr but no multi-literal SIMD search, a few such passes are far
/// faster than an automaton walking every byte.
fn literal_hits(bytes: &[u8], mut each: impl FnMut(usize, u32)) {
    for key in LITERAL_KEYS {
        // The literals holding the key, with where it is in each.
        let holding: Vec<(&[u8], usize, u32)> = PATTERN_LITERALS
            .iter()
            .filter_map(|(literal, patterns)| {
                Some((literal.as_bytes(), literal.find(key)?, *patterns))
            })
            .collect();
        for at in memchr::memmem::find_iter(bytes, key) {
            for &(literal, offset, patterns) in &holding {
                let start = at.wrapping_sub(offset);
                if bytes.get(start..start.wrapping_add(literal.len())) == Some(literal) {
                    each(at, patterns);
                }
            }
        }
    }
}

/// Every credential-shaped match in a text, placeholders left out: the
/// kind's index, the whole match and the credential in it. Pattern by
/// pattern, each only where [`search_ranges`] sends it: far faster than
/// every pattern on every line.
fn matches(text: &str) -> impl Iterator<Item = (usize, Found)> + '_ {
    matches_in(text, !MULTI_LITERAL_SIMD)
}

/// [`matches`], the patterns searched line by line or over the whole text.
fn matches_in(text: &str, by_line: bool) -> impl Iterator<Item = (usize, Found)> + '_ {
    let by_pattern = PATTERNS
        .iter()
        .zip(search_ranges(text, by_line))
        .enumerate()
        .filter_map(|(index, ((_, regex), ranges))| Some((index, regex.as_ref()?, ranges)))
        .flat_map(move |(index, regex, ranges)| {
            ranges.into_iter().flat_map(move |range| {
                let offset = range.start;
                regex
                    .captures_iter(&text[range])
                    .filter_map(move |captures| {
                        let whole = captures.get(0)?.range();
                        let value = captures.get(1).map_or(whole.clone(), |m| m.range());
                        let shift = |r: Range<usize>| r.start + offset..r.end + offset;
                        Some((order(index), (shift(whole), shift(value))))
                    })
            })
        });
    let real = move |(_, value): &Found| !is_placeholder(&text[value.clone()]);
    // Placeholders go as they are found: in code and logs most keyword
    // matches are plain words (`token scheduler`).
    let mut by_hand: Vec<(usize, Found)> = bearers(text)
        .into_iter()
        .filter(real)
        .map(|found| (BEARER, found))
        .collect();
    credentials(text, |found| {
        if real(&found) {
            by_hand.push((CREDENTIAL, found));
        }
    });
    by_pattern
        .filter(move |(_, found)| real(found))
        .chain(by_hand)
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
        for (index, (_, value)) in matches(text) {
            let line_start =
                memchr::memrchr(b'\n', &text.as_bytes()[..value.start]).map_or(0, |i| i + 1);
            let line_end = memchr::memchr(b'\n', &text.as_bytes()[value.end..])
                .map_or(text.len(), |i| value.end + i);
            candidates.push(Candidate {
                source: source_id,
                line_start,
                line_end,
                pattern: index,
                at: value.start,
                value: &text[value],
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
            kind: kind(c.pattern),
            value: c.value.to_owned(),
            redacted: format!("{prefix}…[redacted]"),
        });
    }
    found
}

/// Replaces every found credential in `text`.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    redact_owned(text.to_owned(), secrets)
}

/// [`redact`] of a text already owned: not copied when it holds none.
pub fn redact_owned(mut text: String, secrets: &[Secret]) -> String {
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

    fn all_credentials(text: &str) -> Vec<Found> {
        let mut found = Vec::new();
        credentials(text, |f| found.push(f));
        found
    }

    fn all_hits(bytes: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        keyword_hits(bytes, |batch| hits.extend_from_slice(batch));
        hits
    }

    fn kinds(text: &str) -> Vec<(&'static str, String)> {
        scan(&[&Source::new("t", text)])
            .into_iter()
            .map(|s| (s.kind, s.redacted))
            .collect()
    }

    /// The hand matchers against the patterns they replace.
    #[test]
    fn hand_matchers_equal_their_patterns() {
        let credential = Regex::new(
            r#"(?i)(?:--api-key|api[_-]?key|token|secret|password|passwd)(?:[ \t]*[=:][ \t]*|[ \t]+)['"]?([A-Za-z0-9._~+/-]{8,})"#,
        )
        .expect("pattern");
        let bearer = Regex::new(r"(?i)authorization:[ \t]*bearer[ \t]+([A-Za-z0-9._~+/=-]{16,})")
            .expect("pattern");
        let by_pattern = |regex: &Regex, text: &str| -> Vec<Found> {
            regex
                .captures_iter(text)
                .filter_map(|c| Some((c.get(0)?.range(), c.get(1)?.range())))
                .collect()
        };
        let mut texts: Vec<String> = [
            "vllm serve m --api-key s3cr3tK3yValue99",
            "export API_KEY=s3cr3tK3yValue99 TOKEN: 'abcdefgh1' Secret  =\"zzzzzzzzzz\"",
            "password=hunter2hunter2 passwd:xyzxyzxyz PassWord abcdefghij",
            "mytoken=abcdefghij tokentoken: abcdefghijk secretoken = abcdefghijkl",
            "token:short token usage: 0.01 #token: 1234, token usage: 0.00",
            "--api-key  \t 'k3y-k3y-k3y-k3y' api-key:abc api_keyx=abcdefghij apikey\tvalue123456",
            "Authorization: Bearer abcdefghijklmnop1234 AUTHORIZATION:bearer\tABCDEFGHIJKLMNOPQRST",
            "authorization: bearer short authorization:  Bearer  abcdefghijklmnopq=+/",
            "token\nabcdefghijklmnop",
            "kkkk wwww cccc KWC token= \"\" token ='abcdefghi' tok en=abcdefghij",
            "token: abcdefg secret=abcdefgh Authorization: Bearer abcdefghijklmno",
            "Authorization: Bearer abcdefghijklmnop passwd:\t\tabcdefgh",
        ]
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
        // Every line shape at once, and run together without separators.
        texts.push(texts.join("\n"));
        texts.push(texts.concat());
        for text in &texts {
            assert_eq!(
                all_credentials(text),
                by_pattern(&credential, text),
                "{text}"
            );
            assert_eq!(bearers(text), by_pattern(&bearer, text), "{text}");
        }
    }

    /// Each pattern's match holds one of its literals, and a text holding
    /// none is not searched with it.
    #[test]
    fn pattern_literals_cover_their_patterns() {
        let examples = [
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "sk-ant-abcdefghijklmnopqrstuvwxyz",
            "sk-proj-abcdefghijklmnopqrstuvwxyz",
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "ghs_abcdefghijklmnopqrstuvwxyz0123456789",
            "AKIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdef",
            "xoxs-1234567890-abcdef",
            "https://ops:Tr0ub4dor@git.example.com/x.git",
        ];
        for example in examples {
            for (index, (_, regex)) in PATTERNS.iter().enumerate() {
                let regex = regex.as_ref().expect("pattern");
                if let Some(found) = regex.find(example) {
                    let holds = PATTERN_LITERALS.iter().any(|(literal, patterns)| {
                        patterns & (1 << index) != 0 && found.as_str().contains(literal)
                    });
                    assert!(holds, "{example} by pattern {index}");
                    for by_line in [false, true] {
                        assert!(!search_ranges(example, by_line)[index].is_empty());
                    }
                }
            }
        }
        for by_line in [false, true] {
            let ranges = search_ranges("no credential here, just sk_ and hf-", by_line);
            assert!(ranges.iter().all(Vec::is_empty));
        }
        // A literal at the end of a long text is still found.
        let long = format!("{}AKIAABCDEFGHIJKLMNOP", "x ".repeat(100_000));
        assert_eq!(matches(&long).count(), 1);
    }

    /// Every literal holds one of the keys the wasm search looks for.
    #[test]
    fn every_literal_holds_a_key() {
        for (literal, _) in PATTERN_LITERALS {
            assert!(
                LITERAL_KEYS.iter().any(|key| literal.contains(key)),
                "{literal}"
            );
        }
    }

    /// The patterns searched only on the lines holding their literals (as
    /// in wasm) find what they find over the whole text (as natively).
    #[cfg(not(target_family = "wasm"))]
    #[test]
    fn literal_lines_find_what_the_whole_text_has() {
        let corpus = crate::re::tests::corpus_cached().join("\n");
        for text in [
            corpus.as_str(),
            "x\n\nhf_abcdefghijklmnopqrstuvwxyz0123456\n",
            "hf_abcdefghijklmnopqrstuvwxyz0123456 sk-abcdefghijklmnopqrstuvwxyz\nAKIAABCDEFGHIJKLMNOP",
        ] {
            let whole: Vec<_> = matches_in(text, false).collect();
            assert!(!whole.is_empty());
            assert_eq!(matches_in(text, true).collect::<Vec<_>>(), whole);
        }
    }

    /// Keywords are found in windows: one across a window's edge, and every
    /// shape above many times over, agree with the pattern and with the
    /// letter-by-letter search.
    #[test]
    fn keywords_are_found_across_windows() {
        let credential = Regex::new(
            r#"(?i)(?:--api-key|api[_-]?key|token|secret|password|passwd)(?:[ \t]*[=:][ \t]*|[ \t]+)['"]?([A-Za-z0-9._~+/-]{8,})"#,
        )
        .expect("pattern");
        let by_pattern = |text: &str| -> Vec<Found> {
            credential
                .captures_iter(text)
                .filter_map(|c| Some((c.get(0)?.range(), c.get(1)?.range())))
                .collect()
        };
        for shift in 0..12 {
            let text = format!(
                "{}--API-KEY=abcdefgh12 secretoken: abcdefghij",
                "y".repeat(64 * 1024 - shift)
            );
            assert_eq!(all_credentials(&text), by_pattern(&text), "shift {shift}");
            assert_eq!(all_credentials(&text).len(), 2, "shift {shift}");
        }
        let many = "mytoken=abcdefghij PassWord abcdefghij --api-key  'k3y-k3y-k3y' secretoken = abcdefghijkl kkk www ccc\n"
            .repeat(3000);
        assert_eq!(all_credentials(&many), by_pattern(&many));
        assert_eq!(
            all_hits(many.as_bytes()),
            keyword_hits_by_letter(many.as_bytes())
        );
    }

    #[test]
    fn all_patterns_compile() {
        assert!(PATTERNS.iter().all(|(_, regex)| regex.is_some()));
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

//! Credentials in the inputs: API keys, tokens, private keys and passwords
//! that an agent printed, read or passed on a command line. Found once over
//! every source so that the `secret-exposed` rule can report them and the
//! report can redact them everywhere it quotes text.
//!
//! Credentials are values, not code. A vendor's key is told by its shape
//! (`hf_…`, `AKIA…`, a private key block); any other value is one only when
//! it is written after a credential's name (`--api-key`, `HF_TOKEN=`,
//! `"password":`, `Authorization: Bearer`, a URL's `user:password@`) and
//! reads as a value: not a call, attribute, subscript, variable or type
//! (`self._issue_auth_token(…)`, `os.environ[…]`, `$HF_TOKEN`, `SecretStr`),
//! not a placeholder (`<your-token>`, `xxx`, `changeme`, `...`) and not a
//! number.

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
    /// A further piece of a credential found just before, on a later line
    /// (the rest of a private key's body): redacted like it, never reported
    /// as a credential of its own.
    pub continuation: bool,
}

// ASCII word boundaries and classes: credentials are ASCII, a Unicode `\b`
// would make the native engine leave its fast automaton on any non-ASCII
// text, and the wasm engine knows only ASCII classes (`crate::re`). Each has
// a rare literal (`hf_`, `AKIA`, `://`…) its search skips to. The
// credentials led by a common word (`token: 1234` is in every batch line of
// a server log, and `authorization` is case-free) and private keys (whose
// body spans lines) are matched by hand below (`credentials`, `bearers`,
// `private_keys`).
regex!(HF_TOKEN, r"(?-u:\b)(hf_[A-Za-z0-9]{30,})");
regex!(ANTHROPIC_KEY, r"(?-u:\b)(sk-ant-[A-Za-z0-9_-]{20,})");
regex!(OPENAI_KEY, r"(?-u:\b)(sk-(?:proj-)?[A-Za-z0-9_-]{20,})");
regex!(
    GITHUB_TOKEN,
    r"(?-u:\b)(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{50,})"
);
regex!(GITLAB_TOKEN, r"(?-u:\b)(glpat-[A-Za-z0-9_-]{20,})");
regex!(AWS_KEY, r"(?-u:\b)((?:AKIA|ASIA)[0-9A-Z]{16})(?-u:\b)");
regex!(SLACK_TOKEN, r"(?-u:\b)(xox[baprs]-[A-Za-z0-9-]{10,})");
regex!(
    SLACK_WEBHOOK,
    r"hooks\.slack\.com/services/(T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,})"
);
regex!(
    STRIPE_KEY,
    r"(?-u:\b)([rs]k_(?:live|test)_[A-Za-z0-9]{20,})"
);
regex!(GOOGLE_KEY, r"(?-u:\b)(AIza[A-Za-z0-9_-]{35})");
regex!(
    JWT,
    r"(?-u:\b)(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})"
);
// A Telegram bot's token in the Bot API's URL, as a bot's HTTP client logs
// every call (`https://api.telegram.org/bot8034820322:AA…/getUpdates`).
regex!(
    TELEGRAM_BOT_TOKEN,
    r"(?-u)https?://api\.telegram\.org/(?:file/)?bot([0-9]{5,16}:[A-Za-z0-9_-]{30,})"
);
// A URL's `user:password@`: only the characters a URL's user part may hold
// (RFC 3986, less `,'()`), so JSON (`"url":"https://x","name":"y","logo":
// {"@type"…`) is never read as one.
regex!(
    URL_PASSWORD,
    r"(?-u:\b)[a-z][a-z0-9+.-]*://[A-Za-z0-9._~%!$&*+;=-]*:([A-Za-z0-9._~%!$&*+;=-]{3,})@"
);

/// Each kind of credential found by a pattern, and the pattern: the
/// credential is capture group 1 when there is one, else the match.
static PATTERNS: [(&str, &LazyLock<Option<Regex>>); 13] = [
    ("Hugging Face token", &HF_TOKEN),
    ("Anthropic API key", &ANTHROPIC_KEY),
    ("OpenAI API key", &OPENAI_KEY),
    ("GitHub token", &GITHUB_TOKEN),
    ("GitLab token", &GITLAB_TOKEN),
    ("AWS access key", &AWS_KEY),
    ("Slack token", &SLACK_TOKEN),
    ("Slack webhook URL", &SLACK_WEBHOOK),
    ("Stripe secret key", &STRIPE_KEY),
    ("Google API key", &GOOGLE_KEY),
    ("JSON Web Token", &JWT),
    ("Telegram bot token", &TELEGRAM_BOT_TOKEN),
    ("password in a URL", &URL_PASSWORD),
];

/// The index in [`PATTERNS`] of the one pattern whose value is read after
/// a name (a URL's user) rather than told by its own shape.
const URL_PASSWORD_PATTERN: usize = 12;

/// How a kind of credential is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Finder {
    /// By the pattern of this index in [`PATTERNS`].
    Pattern(usize),
    /// [`private_keys`].
    PrivateKey,
    /// [`bearers`].
    Bearer,
    /// [`credentials`].
    Credential,
}

/// The order kinds are tried in on a line (a value found by an earlier kind
/// is not found again): vendors' shapes first, then the kinds read after a
/// name, the most specific first.
const ORDER: [Finder; 16] = [
    Finder::Pattern(0),
    Finder::Pattern(1),
    Finder::Pattern(2),
    Finder::Pattern(3),
    Finder::Pattern(4),
    Finder::Pattern(5),
    Finder::Pattern(6),
    Finder::Pattern(7),
    Finder::Pattern(8),
    Finder::Pattern(9),
    Finder::Pattern(10),
    Finder::Pattern(11),
    Finder::PrivateKey,
    Finder::Bearer,
    Finder::Pattern(URL_PASSWORD_PATTERN),
    Finder::Credential,
];

/// A kind's place in [`ORDER`].
fn order(finder: Finder) -> usize {
    ORDER
        .iter()
        .position(|f| *f == finder)
        .unwrap_or(ORDER.len())
}

/// A kind's name, by its place in [`ORDER`].
fn kind(index: usize) -> &'static str {
    match ORDER.get(index) {
        Some(Finder::Pattern(pattern)) => PATTERNS
            .get(*pattern)
            .map_or("credential", |(kind, _)| kind),
        Some(Finder::PrivateKey) => "private key",
        Some(Finder::Bearer) => "bearer token",
        Some(Finder::Credential) | None => "credential in an option or variable",
    }
}

/// Whether a kind's value is read after a name, rather than told by its own
/// shape: such a value must also read as a value ([`is_code`]).
fn after_a_name(index: usize) -> bool {
    matches!(
        ORDER.get(index),
        Some(Finder::Bearer | Finder::Credential | Finder::Pattern(URL_PASSWORD_PATTERN))
    )
}

/// A match: the whole of it and the credential in it, as byte ranges.
type Found = (Range<usize>, Range<usize>);

/// A match of one kind: its place in [`ORDER`], the match, and whether it
/// is a further piece of the one before ([`Secret::continuation`]).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Match {
    kind: usize,
    whole: Range<usize>,
    value: Range<usize>,
    continuation: bool,
}

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

/// The length of a quote at `at`, escaped or not (`"`, `'`, `\"`, `\\\"`),
/// or 0.
fn quote_at(bytes: &[u8], at: usize) -> usize {
    let slashes = run(bytes, at, |b| b == b'\\');
    match bytes.get(at + slashes) {
        Some(b'"' | b'\'') => slashes + 1,
        _ => 0,
    }
}

/// The names of [`credentials`], lowercase: a credential's name ends with
/// one (`HF_TOKEN`, `--api-key`, `aws_secret_access_key`, `AccountKey`,
/// `client_secret`, `DB_PASSWORD`). Each has the letter the
/// letter-by-letter search finds it by (`k`, `w` or `c`) and that letter's
/// offset; the names ending in `key` are found by that `k`, so that a name
/// and a shorter one it ends with would be found at the same letter, the
/// longer first. A keyword comes before any shorter one it starts with
/// (`secret_key`, `secret`): a leftmost-first search finds only the first.
const KEYWORDS: &[(&[u8], u8, usize)] = &[
    (b"token", b'k', 2),
    (b"api_key", b'k', 4),
    (b"api-key", b'k', 4),
    (b"apikey", b'k', 3),
    (b"access_key", b'k', 7),
    (b"access-key", b'k', 7),
    (b"accesskey", b'k', 6),
    (b"secret_key", b'k', 7),
    (b"secret-key", b'k', 7),
    (b"secretkey", b'k', 6),
    (b"account_key", b'k', 8),
    (b"accountkey", b'k', 7),
    (b"subscription_key", b'k', 13),
    (b"subscription-key", b'k', 13),
    (b"password", b'w', 4),
    (b"passwd", b'w', 4),
    (b"secret", b'c', 2),
];

/// The longest of [`KEYWORDS`]: how far a keyword starting in one window
/// of [`keyword_hits_simd`] may reach into the next.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64", test))]
const LONGEST_KEYWORD: usize = {
    let mut longest = 0;
    let mut index = 0;
    while index < KEYWORDS.len() {
        if KEYWORDS[index].0.len() > longest {
            longest = KEYWORDS[index].0.len();
        }
        index += 1;
    }
    longest
};

/// Whether multi-literal searches run on SIMD here: aho-corasick's Teddy
/// exists for x86-64 and AArch64 only, and only there are
/// [`KEYWORD_SCAN`] and [`LITERAL_SCAN`] built (Teddy itself, aho-corasick's
/// packed searcher: its `AhoCorasick` uses Teddy for at most 16 literals
/// and, beyond, a rare-byte prefilter that made the whole analysis of a
/// server log twice as slow). Elsewhere (WebAssembly,
/// where memchr has SIMD) a letter or key found with memchr is faster than
/// an automaton walking every byte: the keywords are found by their letters
/// ([`keyword_hits_by_letter`]), the patterns' literals by their keys
/// ([`literal_hits`]).
const MULTI_LITERAL_SIMD: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The keywords as one multi-literal (SIMD) search over lowercased text,
/// leftmost-first; `None` where Teddy cannot run (no SSSE3).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static KEYWORD_SCAN: LazyLock<Option<aho_corasick::packed::Searcher>> = LazyLock::new(|| {
    aho_corasick::packed::Config::new()
        .builder()
        .extend(KEYWORDS.iter().map(|(word, _, _)| word))
        .build()
});

/// A credential's name and its value, each match handed to `each` in order:
/// a name ending in one of [`KEYWORDS`] (any case), then [`assignment`].
/// Leftmost first and never overlapping, as a pattern's matches are
/// ([`tests::credentials_by_position`] is that definition, one position at
/// a time). Its keywords are common words in logs (`token` twice in every
/// SGLang batch line) and in code, so a pattern would be started at each;
/// here the keywords are found first and each checked in a few byte
/// comparisons.
fn credentials(text: &str, mut each: impl FnMut(Found)) {
    let bytes = text.as_bytes();
    let mut allowed = 0;
    keyword_hits(bytes, |hits| {
        check_keywords(bytes, hits, &mut allowed, &mut each)
    });
}

/// [`credentials`] on keywords found (sorted as [`keyword_hits`] gives
/// them): at each letter, the first keyword (in [`KEYWORDS`] order) that
/// starts after the last match, followed by a value.
fn check_keywords(bytes: &[u8], hits: &[Hit], allowed: &mut usize, each: &mut impl FnMut(Found)) {
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
        if let Some(found) = assignment(bytes, start, end) {
            *allowed = found.0.end;
            each(found);
        }
    }
}

/// Bytes of a value written without quotes (`HF_TOKEN=…`, `--api-key …`):
/// what keys, tokens and passwords are made of, and no shell or code
/// syntax (`$`, `(`, `[`, `{`, quotes, `,`, `;`, `&`, `|`).
fn bare_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"._~+/=-!#%*^@".contains(&b)
}

/// Bytes of a value between `quote`s: anything but that quote, an escape
/// and white space.
fn quoted_byte(quote: u8) -> impl Fn(u8) -> bool {
    move |b| b.is_ascii_graphic() && b != quote && b != b'\\'
}

/// The shortest value read after a name.
const SHORTEST_VALUE: usize = 8;

/// The shortest value of a server's key option (`--api-key KEY`, and the
/// same option in vLLM's `'api_key': ['KEY']` dump): whatever its length it
/// is the key the server accepts, and people set short ones.
const SHORTEST_OPTION_VALUE: usize = 6;

/// The shortest quoted value taken without its closing quote, when the
/// line ends first: a terminal's wrap cuts only long values, and a short
/// one is more likely a string cut for another reason.
const WRAPPED_VALUE: usize = 24;

/// The value written after the name `start..end`, if one is: an
/// assignment (`name=value`, `name: value`, `"name": "value"`, escaped
/// quotes too) or an option (`--name value`). A value in quotes runs to
/// its closing quote, which the match ends with; a bare value starts with
/// a letter, a digit or `+/._~-`. The whole match starts at the name (at
/// the option's dash), so that it is found again on its own
/// ([`fragments`]).
fn assignment(bytes: &[u8], start: usize, end: usize) -> Option<Found> {
    // A plural key name holds keys too: LMDeploy's `--api-keys KEY`,
    // `API_KEYS=…`.
    let end = if end >= 3
        && bytes[end - 3..end].eq_ignore_ascii_case(b"key")
        && matches!(bytes.get(end), Some(b's' | b'S'))
    {
        end + 1
    } else {
        end
    };
    // A quoted name's closing quote.
    let closed = quote_at(bytes, end);
    let mut at = end + closed;
    let spaces = run(bytes, at, is_blank);
    at += spaces;
    let mut from = start;
    let mut shortest = SHORTEST_VALUE;
    if matches!(bytes.get(at), Some(b'=' | b':')) {
        at += 1;
        at += run(bytes, at, is_blank);
        // A list of one quoted value, as vLLM's `non-default args` dump
        // prints its keys: `'api_key': ['…']`.
        if bytes.get(at) == Some(&b'[') && quote_at(bytes, at + 1) > 0 {
            at += 1;
            shortest = SHORTEST_OPTION_VALUE;
        }
    } else if spaces > 0 && closed == 0 && start > 0 && bytes[start - 1] == b'-' {
        // An option and its value: `--api-key KEY`, `--hf-token KEY`.
        from = start - 1;
        // A real option's dashes start a word (`--api-key`, ` -token`);
        // a hyphenated word's do not (`a 3.4k-token prompt`): its value
        // needs the full length.
        let dashes = bytes[..start]
            .iter()
            .rev()
            .take_while(|&&b| b == b'-')
            .count();
        let before = start.checked_sub(dashes + 1).and_then(|i| bytes.get(i));
        if before.is_none_or(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`')) {
            shortest = SHORTEST_OPTION_VALUE;
        }
    } else {
        return None;
    }
    let quote = quote_at(bytes, at);
    at += quote;
    let (length, close) = if quote > 0 {
        let mark = bytes[at - 1];
        let length = run(bytes, at, quoted_byte(mark));
        // A quoted value ends at its quote: `"Bearer …"`, `"{{ x }}"` and
        // other text with spaces are not one value.
        let close = quote_at(bytes, at + length);
        // A long value cut by the end of its line: a terminal wrapped it
        // (`"token": "rw_Fe26.2**a84b…` and the rest on the next line).
        let wrapped = close == 0
            && length >= WRAPPED_VALUE
            && matches!(bytes.get(at + length), None | Some(b'\n' | b'\r'));
        if wrapped {
            return Some((from..at + length, at..at + length));
        }
        if close == 0 || bytes[at + length + close - 1] != mark {
            return None;
        }
        (length, close)
    } else {
        let first = bytes.get(at).copied()?;
        if !(first.is_ascii_alphanumeric() || b"+/._~-".contains(&first)) {
            return None;
        }
        (run(bytes, at, bare_byte), 0)
    };
    (length >= shortest).then_some((from..at + length + close, at..at + length))
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
    scan: &aho_corasick::packed::Searcher,
    mut settled: impl FnMut(&[Hit]),
) {
    const WINDOW: usize = 64 * 1024;
    let mut pending: Vec<Hit> = Vec::new();
    let mut lower = Vec::with_capacity(bytes.len().min(WINDOW + LONGEST_KEYWORD));
    let mut window = 0;
    while window < bytes.len() {
        // A keyword starting in a window may end in the next one.
        let end = (window + WINDOW + LONGEST_KEYWORD).min(bytes.len());
        lower.clear();
        lower.extend_from_slice(&bytes[window..end]);
        lower.make_ascii_lowercase();
        // Keywords starting in this window; later ones are the next one's.
        let starts_before = WINDOW.min(lower.len());
        let mut from = 0;
        while from < starts_before {
            let span = aho_corasick::Span::from(from..lower.len());
            let Some(hit) = scan.find_in(&lower, span) else {
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
                // At a start, only the first keyword written there, as a
                // leftmost-first search finds.
                && !KEYWORDS[..index]
                    .iter()
                    .any(|(earlier, _, _)| word_at(bytes, start, earlier))
            {
                hits.push((at, index, start, start + word.len()));
            }
        }
    }
    hits
}

/// The shortest token after `Bearer`.
const SHORTEST_BEARER: usize = 16;

/// `Authorization: Bearer TOKEN` (or `token TOKEN`), in any case, the
/// header's name quoted or not (`"Authorization": "Bearer …"`, escaped
/// quotes too): `authorization` is found from its `z`.
fn bearers(text: &str) -> Vec<Found> {
    let bytes = text.as_bytes();
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b"._~+/=-".contains(&b);
    let mut found = Vec::new();
    let mut allowed = 0;
    for at in memchr::memchr2_iter(b'z', b'Z', bytes) {
        // `authori` + `z` + `ation`
        let Some(start) = at.checked_sub(7) else {
            continue;
        };
        if start < allowed || !word_at(bytes, start, b"authorization") {
            continue;
        }
        let mut value = start + 13;
        value += quote_at(bytes, value);
        value += run(bytes, value, is_blank);
        if bytes.get(value) != Some(&b':') {
            continue;
        }
        value += 1;
        value += run(bytes, value, is_blank);
        value += quote_at(bytes, value);
        let scheme = [b"bearer".as_slice(), b"token"]
            .into_iter()
            .find(|scheme| word_at(bytes, value, scheme));
        let Some(scheme) = scheme else {
            continue;
        };
        value += scheme.len();
        let spaces = run(bytes, value, is_blank);
        if spaces == 0 {
            continue;
        }
        value += spaces;
        let length = run(bytes, value, token_byte);
        if length >= SHORTEST_BEARER {
            found.push((start..value + length, value..value + length));
            allowed = value + length;
        }
    }
    found
}

/// What [`private_keys`] searches for.
const PRIVATE_KEY: &[u8] = b"PRIVATE KEY";

/// The shortest first line of a private key's body: a key's lines are 64
/// (PEM) or 70 (OpenSSH) characters long, and documentation shows a key's
/// first line, the same for every key of a size, cut short
/// (`MIIEpAIBAAKCAQEA...`).
const SHORTEST_KEY_LINE: usize = 40;

/// The shortest further line of a private key's body redacted with it: a
/// shorter one (a body's last line, `Aw==`) could be anywhere in a text.
const SHORTEST_KEY_PIECE: usize = 16;

/// Private key blocks (`-----BEGIN [RSA |EC |OPENSSH |ENCRYPTED |PGP ]PRIVATE
/// KEY[ BLOCK]-----` and a base64 body), their lines apart as in a file or
/// a log, or joined by escaped newlines (`\n`, `\\n`) as in JSON: the first
/// line of the body, then each further line, handed to `each` with whether
/// it is a further piece. The first one's whole match runs from the header
/// to the body's end, so that [`fragments`] keeps the whole key.
fn private_keys(text: &str, mut each: impl FnMut(Found, bool)) {
    let bytes = text.as_bytes();
    let base64 = |b: u8| b.is_ascii_alphanumeric() || b"+/=".contains(&b);
    let mut allowed = 0;
    for at in memchr::memmem::find_iter(bytes, PRIVATE_KEY) {
        if at < allowed {
            continue;
        }
        // `-----BEGIN ` and the key's type words before `PRIVATE KEY`.
        let words = bytes[..at]
            .iter()
            .rev()
            .take(32)
            .take_while(|b| b.is_ascii_uppercase() || **b == b' ')
            .count();
        let header = at - words;
        if !(bytes[header..at].starts_with(b"BEGIN ")
            && header >= 5
            && &bytes[header - 5..header] == b"-----")
        {
            continue;
        }
        let mut end = at + PRIVATE_KEY.len();
        if bytes[end..].starts_with(b" BLOCK") {
            end += 6;
        }
        if !bytes[end..].starts_with(b"-----") {
            continue;
        }
        end += 5;
        let mut lines: Vec<Range<usize>> = Vec::new();
        loop {
            end += line_breaks(bytes, end);
            let length = run(bytes, end, base64);
            if length == 0 || lines.len() >= 256 {
                break;
            }
            lines.push(end..end + length);
            end += length;
        }
        let Some(first) = lines.first() else {
            continue;
        };
        if first.len() < SHORTEST_KEY_LINE {
            continue;
        }
        let last = lines.last().map_or(first.end, |line| line.end);
        allowed = last;
        each((header - 5..last, first.clone()), false);
        for line in lines.iter().skip(1) {
            if line.len() >= SHORTEST_KEY_PIECE {
                each((line.clone(), line.clone()), true);
            }
        }
    }
}

/// The length of the line breaks at `at` between a private key's lines:
/// newlines, escaped newlines (`\n`, `\r\n`, `\\n`) and blanks.
fn line_breaks(bytes: &[u8], at: usize) -> usize {
    let mut end = at;
    loop {
        match bytes.get(end) {
            Some(b'\n' | b'\r' | b' ' | b'\t') => end += 1,
            Some(b'\\') => {
                let slashes = run(bytes, end, |b| b == b'\\');
                if matches!(bytes.get(end + slashes), Some(b'n' | b'r')) {
                    end += slashes + 1;
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    end - at
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

/// Values that look like credentials but are placeholders or plain words:
/// all digits, all lowercase words (`changeme`, `scheduler`), or holding a
/// placeholder's mark (`<your-token>`, `xxx`, `${X}`, `***`, `...`,
/// `not-needed`). An option's value (`--api-key abcdwxyz`, LMDeploy's
/// `--api-keys demokey_xyz`) is the key the server will accept whatever
/// its letters, so there lowercase letters alone do not make a placeholder;
/// only the marks do.
fn is_placeholder(value: &str, option: bool) -> bool {
    let lower = value.to_ascii_lowercase();
    value.chars().all(|c| c.is_ascii_digit())
        || (!option
            && value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-'))
        || [
            "none",
            "null",
            "xxx",
            "your",
            "redacted",
            "example",
            "placeholder",
            "changeme",
            "dummy",
            "$",
            "<",
            ">",
            "{",
            "}",
            "***",
            "...",
            "needed",
            "required",
            // vLLM's clients' `--api-key EMPTY`.
            "empty",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Whether a value read after a name is code or no credential at all: a
/// number or a date (no letter); a call, subscript or generic type
/// (`self._issue_auth_token(…)`, `os.environ[…]`, `Optional[str]`); or
/// names rather than random characters: a variable, attribute or type
/// (`settings.OPENAI_API_KEY`, `SecretStr`, `oauth2_scheme`) or a file's
/// path (`/run/secrets/hf_token`).
fn is_code(bytes: &[u8], value: Range<usize>) -> bool {
    let Some(text) = bytes.get(value.clone()) else {
        return true;
    };
    let quoted = value
        .start
        .checked_sub(1)
        .and_then(|before| bytes.get(before))
        .is_some_and(|b| matches!(b, b'"' | b'\''));
    !text.iter().any(u8::is_ascii_alphabetic)
        || (!quoted && matches!(bytes.get(value.end), Some(b'(' | b'[' | b'<')))
        || ((is_identifier_path(text) || is_file_path(text)) && reads_as_words(text))
}

/// `name` or `name.name…`, each name a letter or `_` then letters, digits
/// and `_`.
fn is_identifier_path(text: &[u8]) -> bool {
    text.split(|b| *b == b'.').all(|name| {
        name.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
            && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
    })
}

/// A file's path: `/`, `~/`, `./` or `../`, then names of letters, digits
/// and `._-`.
fn is_file_path(text: &[u8]) -> bool {
    ["/", "~/", "./", "../"]
        .iter()
        .any(|start| text.starts_with(start.as_bytes()))
        && text
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"/~._-".contains(b))
}

/// Whether a text reads as words (`self._issue_auth_token`, `SecretStr`,
/// `OPENAI_API_KEY`, `oauth2_scheme`) rather than random characters
/// (`hunter2hunter2`, `Tr0ub4dor`, `qWeRtYuIoP`): at most one run of
/// digits, and either words set apart by `_`, `.`, `-` or `/`, or words of
/// three letters on average, a word being a run of lowercase letters with
/// a capital before it or a run of capitals.
fn reads_as_words(text: &[u8]) -> bool {
    let (mut letters, mut words, mut digit_runs) = (0, 0, 0);
    for (index, &b) in text.iter().enumerate() {
        let before = index.checked_sub(1).and_then(|i| text.get(i)).copied();
        let after = text.get(index + 1).copied();
        if b.is_ascii_digit() {
            if !before.is_some_and(|p| p.is_ascii_digit()) {
                digit_runs += 1;
            }
        } else if b.is_ascii_alphabetic() {
            letters += 1;
            let starts = match before {
                Some(p) if p.is_ascii_lowercase() => b.is_ascii_uppercase(),
                Some(p) if p.is_ascii_uppercase() => {
                    b.is_ascii_uppercase() && after.is_some_and(|a| a.is_ascii_lowercase())
                }
                _ => true,
            };
            if starts {
                words += 1;
            }
        }
    }
    let set_apart = text.iter().any(|b| b"_.-/".contains(b));
    digit_runs <= 1 && words > 0 && (set_apart || letters >= 3 * words)
}

/// Whether a match is a credential: its value is no placeholder and, when
/// it was read after a name, no code, and the name is no page's token.
fn is_credential(text: &str, found: &Match) -> bool {
    let Some(value) = text.get(found.value.clone()) else {
        return false;
    };
    let bytes = text.as_bytes();
    let option = after_a_name(found.kind) && bytes.get(found.whole.start) == Some(&b'-');
    // A command line's option takes a value, not code: `--api-key
    // abcdwxyz` reads as a word but is the key (a variable there is
    // `$KEY`, a placeholder).
    let code = after_a_name(found.kind)
        && if option {
            !value.bytes().any(|b| b.is_ascii_alphabetic())
        } else {
            is_code(bytes, found.value.clone())
        };
    let page = found.kind == order(Finder::Credential) && names_a_page(bytes, found.whole.start);
    !(is_placeholder(value, option) || code || page)
}

/// Words naming a token that marks a place in a listing, not a credential
/// (`nextPageToken`, `NextToken`, `continuation_token`, `$skiptoken`).
const PAGE_WORDS: [&[u8]; 7] = [
    b"page",
    b"next",
    b"continuation",
    b"sync",
    b"resume",
    b"skip",
    b"delta",
];

/// Whether the name of a match starting at `start` is `token` after one of
/// [`PAGE_WORDS`] (with or without `_` or `-` between).
fn names_a_page(bytes: &[u8], start: usize) -> bool {
    let name = if bytes.get(start) == Some(&b'-') {
        start + 1
    } else {
        start
    };
    if !word_at(bytes, name, b"token") {
        return false;
    }
    let before = &bytes[..name];
    let before = before
        .strip_suffix(b"_")
        .or_else(|| before.strip_suffix(b"-"))
        .unwrap_or(before);
    PAGE_WORDS.iter().any(|word| {
        before.len() >= word.len() && before[before.len() - word.len()..].eq_ignore_ascii_case(word)
    })
}

/// Every credential-shaped match in a text, placeholders left out, as the
/// text it matched (with the name or scheme before the value, so that
/// [`scan`] finds it again). The condenser keeps these from the parts of a
/// record it drops.
pub fn fragments(text: &str) -> Vec<&str> {
    let mut found: Vec<&str> = Vec::new();
    for found_match in matches(text) {
        if found_match.continuation {
            continue;
        }
        let whole = &text[found_match.whole];
        if !found.contains(&whole) {
            found.push(whole);
        }
    }
    found
}

/// Where every credential-shaped match in a text lies, from its name or
/// scheme to the end of its value: the log condenser keeps those lines, so
/// that [`scan`] finds in the condensed log what it finds in the whole one.
pub(crate) fn credential_spans(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    matches(text)
        .map(|found| found.whole.start.min(found.value.start)..found.whole.end.max(found.value.end))
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
    ("github_pat_", 1 << 3),
    ("glpat-", 1 << 4),
    ("AKIA", 1 << 5),
    ("ASIA", 1 << 5),
    ("xoxb-", 1 << 6),
    ("xoxa-", 1 << 6),
    ("xoxp-", 1 << 6),
    ("xoxr-", 1 << 6),
    ("xoxs-", 1 << 6),
    ("hooks.slack.com/services/", 1 << 7),
    ("sk_live_", 1 << 8),
    ("sk_test_", 1 << 8),
    ("rk_live_", 1 << 8),
    ("rk_test_", 1 << 8),
    ("AIza", 1 << 9),
    ("eyJ", 1 << 10),
    // A URL: its password, or a Telegram bot token in its path.
    ("://", 1 << 11 | 1 << 12),
];

/// All of [`PATTERN_LITERALS`] in one multi-literal (SIMD) search,
/// leftmost-first; `None` where Teddy cannot run (no SSSE3).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static LITERAL_SCAN: LazyLock<Option<aho_corasick::packed::Searcher>> = LazyLock::new(|| {
    aho_corasick::packed::Config::new()
        .builder()
        .extend(PATTERN_LITERALS.iter().map(|(literal, _)| literal))
        .build()
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
    // literal, so none is hidden (`no_literal_hides_another`).
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
const LITERAL_KEYS: [&str; 10] = [
    "_",
    "sk-",
    "xox",
    "://",
    "AKIA",
    "ASIA",
    "glpat-",
    "hooks.slack",
    "AIza",
    "eyJ",
];

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

/// Every credential-shaped match in a text, placeholders and code left
/// out. Pattern by pattern, each only where [`search_ranges`] sends it: far
/// faster than every pattern on every line.
fn matches(text: &str) -> impl Iterator<Item = Match> + '_ {
    matches_in(text, !MULTI_LITERAL_SIMD)
}

/// [`matches`], the patterns searched line by line or over the whole text.
fn matches_in(text: &str, by_line: bool) -> impl Iterator<Item = Match> + '_ {
    let by_pattern = PATTERNS
        .iter()
        .zip(search_ranges(text, by_line))
        .enumerate()
        .filter_map(|(index, ((_, regex), ranges))| Some((index, regex.as_ref()?, ranges)))
        .flat_map(move |(index, regex, ranges)| {
            let kind = order(Finder::Pattern(index));
            ranges.into_iter().flat_map(move |range| {
                let offset = range.start;
                regex
                    .captures_iter(&text[range])
                    .filter_map(move |captures| {
                        let whole = captures.get(0)?.range();
                        let value = captures.get(1).map_or(whole.clone(), |m| m.range());
                        let shift = |r: Range<usize>| r.start + offset..r.end + offset;
                        Some(Match {
                            kind,
                            whole: shift(whole),
                            value: shift(value),
                            continuation: false,
                        })
                    })
            })
        });
    // Rejected values go as they are found: in code and logs most keyword
    // matches are code or plain words (`token = self._issue_token(…)`).
    let mut by_hand: Vec<Match> = Vec::new();
    let mut keep = |kind: usize, (whole, value): Found, continuation: bool| {
        let found = Match {
            kind,
            whole,
            value,
            continuation,
        };
        if is_credential(text, &found) {
            by_hand.push(found);
        }
    };
    private_keys(text, |found, continuation| {
        keep(order(Finder::PrivateKey), found, continuation);
    });
    for found in bearers(text) {
        keep(order(Finder::Bearer), found, false);
    }
    credentials(text, |found| keep(order(Finder::Credential), found, false));
    by_pattern
        .filter(move |found| is_credential(text, found))
        .chain(by_hand)
}

/// Finds every credential in every source, each value once per line: a
/// value found on a line is not found again there, by a later kind
/// ([`ORDER`]) in the same place or holding it (`--api-key sk-…`), nor
/// elsewhere on the line; a different value elsewhere is, even when an
/// earlier one holds it.
pub fn scan(sources: &[&Source]) -> Vec<Secret> {
    struct Candidate<'t> {
        source: usize,
        line_start: usize,
        line_end: usize,
        kind: usize,
        value: Range<usize>,
        text: &'t str,
        continuation: bool,
    }
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    for (source_id, source) in sources.iter().enumerate() {
        let text = source.text.as_str();
        let bytes = text.as_bytes();
        for found in matches(text) {
            let value = found.value;
            let line_start = memchr::memrchr(b'\n', &bytes[..value.start]).map_or(0, |i| i + 1);
            let line_end =
                memchr::memchr(b'\n', &bytes[value.end..]).map_or(text.len(), |i| value.end + i);
            candidates.push(Candidate {
                source: source_id,
                line_start,
                line_end,
                kind: found.kind,
                text: &text[value.clone()],
                value,
                continuation: found.continuation,
            });
        }
    }
    // Line by line, then kind by kind.
    candidates.sort_by_key(|c| (c.source, c.line_start, c.kind, c.value.start));
    let mut found: Vec<Secret> = Vec::new();
    // What the current line holds so far: where and what.
    let mut line: (usize, usize) = (usize::MAX, usize::MAX);
    let mut on_line: Vec<(Range<usize>, &str)> = Vec::new();
    for c in candidates {
        if (c.source, c.line_start) != line {
            line = (c.source, c.line_start);
            on_line.clear();
        }
        // The same value again, or one in the same place: one secret. A
        // shorter value elsewhere on the line that an earlier one holds
        // (`…:80rOOOO@` beside `…:80rOOOOOOOO@`) is kept: redacting the
        // longer one leaves it in the text, and a second scan of the
        // redacted text would find it (redaction must be idempotent).
        let seen = on_line.iter().any(|(at, value)| {
            (at.start < c.value.end && c.value.start < at.end) || *value == c.text
        });
        if seen {
            continue;
        }
        on_line.push((c.value.clone(), c.text));
        let redacted = if c.continuation {
            "…[redacted]".to_owned()
        } else {
            let prefix: String = c.text.chars().take(4).collect();
            format!("{prefix}…[redacted]")
        };
        found.push(Secret {
            line: Span::new(c.source, c.line_start, c.line_end),
            kind: kind(c.kind),
            value: c.text.to_owned(),
            redacted,
            continuation: c.continuation,
        });
    }
    found
}

/// Replaces every found credential in `text`.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    redact_owned(text.to_owned(), secrets)
}

/// [`redact`] of a text already owned: not copied when it holds none.
/// Longer values first, so that a value holding a shorter one found
/// elsewhere (`Tr0ub4dor&3` and `Tr0ub4dor`) is replaced whole.
pub fn redact_owned(mut text: String, secrets: &[Secret]) -> String {
    let mut longest_first: Vec<&Secret> = secrets.iter().collect();
    longest_first.sort_by_key(|secret| std::cmp::Reverse(secret.value.len()));
    for secret in longest_first {
        if !secret.value.is_empty() && text.contains(&secret.value) {
            text = text.replace(&secret.value, &secret.redacted);
        }
    }
    text
}

/// [`redact_owned`], then the text scanned again and redacted again until
/// nothing credential-shaped is left (at most a few rounds): a redaction can
/// make a match where there was none, when the `]` it ends with puts a word
/// boundary before a URL glued to the value (`…Oh://u:pw@` becomes
/// `…[redacted]h://u:pw@`). What leaves the machine (a share link) must
/// scan clean.
pub fn redact_fully(text: String, secrets: &[Secret]) -> String {
    let mut source = Source::new("", redact_owned(text, secrets));
    for _ in 0..4 {
        let found = scan(&[&source]);
        if found.is_empty() {
            break;
        }
        source.text = redact_owned(std::mem::take(&mut source.text), &found);
    }
    source.text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the fuzzer (`fuzz/regressions/share_link/`): two URL
    /// passwords on one line, one a prefix of the other. Both are found, so
    /// one redaction leaves nothing for a second to find.
    #[test]
    fn a_value_another_holds_elsewhere_on_the_line_is_redacted_too() {
        let text = "a http://u:80rOOOOOOOOOOOO@h and http://u:80rOOOO@h\n";
        let source = Source::new("s.log", text);
        let found = scan(&[&source]);
        let once = redact(text, &found);
        assert!(!once.contains("OOOO@"), "{once}");
        let again = Source::new("s.log", once.clone());
        assert!(scan(&[&again]).is_empty(), "{once}");
    }

    /// Found by the fuzzer too: redacting a value glued to a URL makes the
    /// URL's password a match; `redact_fully` scans until nothing is left.
    #[test]
    fn a_match_a_redaction_exposes_is_redacted_too() {
        let text = "on http://z:80rOOOOOOOOzOOO@p and p80rOOOOOOOOzOOOh://z:80rQQQQQQQQQ@p\n";
        let source = Source::new("s.log", text);
        let found = scan(&[&source]);
        let once = redact(text, &found);
        let exposed = scan(&[&Source::new("s.log", once.clone())]);
        assert!(
            !exposed.is_empty(),
            "the shape no longer exposes a match: {once}"
        );
        let full = redact_fully(text.to_owned(), &found);
        assert!(
            scan(&[&Source::new("s.log", full.clone())]).is_empty(),
            "{full}"
        );
        assert!(!full.contains("QQQQ"), "{full}");
    }

    fn all_credentials(text: &str) -> Vec<Found> {
        let mut found = Vec::new();
        credentials(text, |f| found.push(f));
        found
    }

    /// What [`credentials`] finds, by its definition: at each position in
    /// turn, after the last match, the first keyword (in [`KEYWORDS`]
    /// order) written there and followed by a value.
    fn credentials_by_position(text: &str) -> Vec<Found> {
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let here = KEYWORDS.iter().find_map(|(word, _, _)| {
                word_at(bytes, at, word)
                    .then(|| assignment(bytes, at, at + word.len()))
                    .flatten()
            });
            match here {
                Some(one) => {
                    at = one.0.end;
                    found.push(one);
                }
                None => at += 1,
            }
        }
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

    fn values(text: &str) -> Vec<String> {
        scan(&[&Source::new("t", text)])
            .into_iter()
            .map(|s| s.value)
            .collect()
    }

    /// Names and values in every form [`assignment`] reads, and near ones.
    const ASSIGNMENTS: &[&str] = &[
        "vllm serve m --api-key s3cr3tK3yValue99",
        "export API_KEY=s3cr3tK3yValue99 TOKEN: 'abcdefgh1' Secret  =\"zzzzzzzzzz\"",
        "password=hunter2hunter2 passwd:xyzxyzxyz PassWord abcdefghij",
        "mytoken=abcdefghij tokentoken: abcdefghijk secretoken = abcdefghijkl",
        "token:short token usage: 0.01 #token: 1234, token usage: 0.00",
        "--api-key  \t 'k3y-k3y-k3y-k3y' api-key:abc api_keyx=abcdefghij apikey\tvalue123456",
        "token\nabcdefghijklmnop",
        "kkkk wwww cccc KWC token= \"\" token ='abcdefghi' tok en=abcdefghij",
        "token: abcdefg secret=abcdefgh --token\tabcdefghij -password  abcdefghij",
        r#"{"api_key": "abcdefghij", "password":"abc def ghi", 'secret' : 'abcdefghij'}"#,
        r#"{\"password\":\"abcdefghij\",\\\"token\\\": \\\"abcdefghij\\\"}"#,
        "AWS_SECRET_ACCESS_KEY=abc/def+ghi= SECRET_KEY=abcdefghij AccountKey=abcd==;x",
        "Ocp-Apim-Subscription-Key: abcdef0123 subscription_key=abcdefghij secretkey=abcdefghij",
        "token == other_token token = =abcdefghij token=$TOKEN token=%TOKEN% token=@abcdefgh",
        "token = self._issue(x) token: Optional[str] token=\"abc\"def\" token \"abcdefghij\"",
        "password=p@ss!w0rd#1&x=1 token=abc,def;ghi token=abcdefghij)",
    ];

    /// The hand matchers against their definitions: [`credentials`] against
    /// [`credentials_by_position`], [`bearers`] against a pattern.
    #[test]
    fn hand_matchers_equal_their_definitions() {
        let bearer = Regex::new(
            r#"(?i)authorization\\*["']?[ \t]*:[ \t]*(?:\\*["'])?(?:bearer|token)[ \t]+([A-Za-z0-9._~+/=-]{16,})"#,
        )
        .expect("pattern");
        let by_pattern = |regex: &Regex, text: &str| -> Vec<Found> {
            regex
                .captures_iter(text)
                .filter_map(|c| Some((c.get(0)?.range(), c.get(1)?.range())))
                .collect()
        };
        let mut texts: Vec<String> = ASSIGNMENTS.iter().map(|t| (*t).to_owned()).collect();
        texts.extend(
            [
                "Authorization: Bearer aB3dEf9hIjK2mN0p1234 AUTHORIZATION:bearer\tABCDEFGHIJKLMNOPQRST",
                "authorization: bearer short authorization:  Bearer  abcdefghijklmnopq=+/",
                r#"{"Authorization": "Bearer abcdefghijklmnop"} {\"authorization\":\"token abcdefghijklmnop\"}"#,
                "Authorization: Basic abcdefghijklmnopqr Authorization : Bearer abcdefghijklmnop",
                "Authorization: Bearer abcdefghijklmnop passwd:\t\tabcdefgh",
            ]
            .iter()
            .map(|t| (*t).to_owned()),
        );
        // Every shape at once, and run together without separators.
        texts.push(texts.join("\n"));
        texts.push(texts.concat());
        for text in &texts {
            assert_eq!(
                all_credentials(text),
                credentials_by_position(text),
                "{text}"
            );
            assert_eq!(bearers(text), by_pattern(&bearer, text), "{text}");
        }
    }

    /// What [`assignment`] reads, and where a match starts and ends.
    #[test]
    fn names_and_values() {
        fn found(text: &str) -> Vec<(&str, &str)> {
            all_credentials(text)
                .into_iter()
                .map(|(whole, value)| (&text[whole], &text[value]))
                .collect()
        }
        assert_eq!(
            found("vllm serve m --api-key s3cr3tK3yValue99 --port 8000"),
            [("-api-key s3cr3tK3yValue99", "s3cr3tK3yValue99")]
        );
        assert_eq!(
            found(
                "non-default args: {'model': 'm', 'api_key': ['sk-l0ngEnoughValue9'], 'port': 8000}"
            ),
            [("api_key': ['sk-l0ngEnoughValue9'", "sk-l0ngEnoughValue9")]
        );
        assert_eq!(
            found("lmdeploy serve api_server /m --api-keys demokeyabcd_xyz --tp 4"),
            [("-api-keys demokeyabcd_xyz", "demokeyabcd_xyz")]
        );
        assert_eq!(
            found(r#"{"password": "p@ss w0rd", "api_key": "Tr0ub4dor&3"}"#),
            [(r#"api_key": "Tr0ub4dor&3""#, "Tr0ub4dor&3")]
        );
        assert_eq!(
            found(r#"password="it's-Tr0ub4dor" token='say "hi" 12345'"#),
            [(r#"password="it's-Tr0ub4dor""#, "it's-Tr0ub4dor")]
        );
        assert_eq!(
            found(r#"{\"token\":\"abcdefgh1\"}"#),
            [(r#"token\":\"abcdefgh1\""#, "abcdefgh1")]
        );
        // A terminal wrapped a long quoted value: the line ends it.
        assert_eq!(
            found(
                "        \"token\": \"rw_Fe26.2**a84bba07931db925306a0799dc6ebd\n    3dea13*yq\n"
            ),
            [(
                "token\": \"rw_Fe26.2**a84bba07931db925306a0799dc6ebd",
                "rw_Fe26.2**a84bba07931db925306a0799dc6ebd"
            )]
        );
        // A short one cut by the line is no value.
        assert_eq!(found("\"token\": \"abcdefgh12\n"), []);
        assert_eq!(
            found("AccountKey=abc+/def==;EndpointSuffix=x"),
            [("AccountKey=abc+/def==", "abc+/def==")]
        );
        // A name and a word apart by a space are prose or code, not an
        // option: `$HF_TOKEN ghcr.io/…`, `token scheduler`.
        assert!(found("-e HF_TOKEN=$HF_TOKEN ghcr.io/huggingface/tgi:2.4").is_empty());
        assert!(found("the token scheduler_v2 reserves").is_empty());
        assert!(found("if token == expected_token2:").is_empty());
    }

    /// Code and placeholders after a name are not credentials.
    #[test]
    fn code_is_not_a_credential() {
        let code = |text: &str, value: &str| {
            let start = text.find(value).expect("value in text");
            is_code(text.as_bytes(), start..start + value.len())
        };
        for (text, value) in [
            (
                "token = self._issue_auth_token(user_id)",
                "self._issue_auth_token",
            ),
            ("password = os.environ[\"X\"]", "os.environ"),
            ("api_key: Optional[str] = None", "Optional"),
            ("token: Promise<string>", "Promise"),
            (
                "api_key = settings.OPENAI_API_KEY",
                "settings.OPENAI_API_KEY",
            ),
            ("password: SecretStr", "SecretStr"),
            ("token = oauth2_scheme", "oauth2_scheme"),
            ("token = cfg.db.pw_v2", "cfg.db.pw_v2"),
            (
                "--token-file /run/secrets/hf_token",
                "/run/secrets/hf_token",
            ),
            ("token_rate: 123.45", "123.45"),
        ] {
            assert!(code(text, value), "{value} in {text}");
        }
        for (text, value) in [
            ("password=hunter2hunter2", "hunter2hunter2"),
            ("password=Tr0ub4dor", "Tr0ub4dor"),
            ("password=MyS3cretPass", "MyS3cretPass"),
            ("token=qWeRtYuIoPaSdFgH", "qWeRtYuIoPaSdFgH"),
            (
                "--api-key vk-prod-7f3a9c2e5b8d41f6",
                "vk-prod-7f3a9c2e5b8d41f6",
            ),
            (
                "secret=wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
                "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
            ),
            ("token=\"AbC(\"", "AbC("),
            ("token = 'abc123def456'(", "abc123def456"),
        ] {
            assert!(!code(text, value), "{value} in {text}");
        }
        for placeholder in [
            "<your-token>",
            "xxxxxxxx",
            "sk-xxxxxxxxxxxxxxxx",
            "${HF_TOKEN}",
            "$OPENAI_API_KEY",
            "changeme",
            "CHANGEME1",
            "sk-proj-...",
            "********",
            "REDACTED_TOKEN",
            "12345678",
        ] {
            assert!(is_placeholder(placeholder, false), "{placeholder}");
        }
        // An option's lowercase value is the key itself; marks still tell a
        // placeholder there.
        assert!(!is_placeholder("abcdwxyz", true));
        assert!(!is_placeholder("demokeyabcd_xyz_txt", true));
        assert!(is_placeholder("not-needed", true));
        assert!(is_placeholder("sk-no-key-required", true));
        assert!(is_placeholder("scheduler", false));
        assert!(is_placeholder("EMPTY", true));
        let found = |text: &str| {
            let source = crate::Source::new("t.txt", text);
            scan(&[&source]).len()
        };
        assert_eq!(found("vllm serve m --api-key abcdwxyz --port 8000"), 1);
        assert_eq!(
            found("lmdeploy serve api_server m --api-keys demokeyabcd_xyz_txt"),
            1
        );
        assert_eq!(found("vllm bench serve --api-key EMPTY --port 8000"), 0);
        assert_eq!(found("vllm serve m --api-key $VLLM_API_KEY"), 0);
        assert_eq!(found("vllm serve m --api-key 12345678"), 0);
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
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789",
            "glpat-abcdefghij0123456789",
            "AKIAABCDEFGHIJKLMNOP",
            "ASIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdef",
            "xoxs-1234567890-abcdef",
            "https://hooks.slack.com/services/T0123ABCD/B0123ABCDE/abcdefghijklmnopqrstuvwx",
            "sk_live_abcdefghijklmnopqrstuvwx",
            "rk_test_abcdefghijklmnopqrstuvwx",
            "AIzaabcdefghijklmnopqrstuvwxyz012345678",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstuv",
            "https://api.telegram.org/bot8034820322:AA4zgxWeLChypIYn0AELFPok1Qwr_-rD8vU/getMe",
            "https://ops:Tr0ub4dor@git.example.com/x.git",
        ];
        let mut matched = [false; PATTERNS.len()];
        for example in examples {
            for (index, (_, regex)) in PATTERNS.iter().enumerate() {
                let regex = regex.as_ref().expect("pattern");
                if let Some(found) = regex.find(example) {
                    matched[index] = true;
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
        assert!(matched.iter().all(|m| *m), "{matched:?}");
        for by_line in [false, true] {
            let ranges = search_ranges("no credential here, just sk_ and hf-", by_line);
            assert!(ranges.iter().all(Vec::is_empty));
        }
        // A literal at the end of a long text is still found.
        let long = format!("{}AKIAABCDEFGHIJKLMNOP", "x ".repeat(100_000));
        assert_eq!(matches(&long).count(), 1);
    }

    /// The literal search is leftmost-first and not overlapping, so no
    /// literal may start inside another (it would be hidden by it).
    #[test]
    fn no_literal_hides_another() {
        for (a, a_patterns) in PATTERN_LITERALS {
            for (b, b_patterns) in PATTERN_LITERALS {
                if a == b {
                    continue;
                }
                // Harmless when both find the same patterns, and for a
                // Google key after `AKIA`'s or `ASIA`'s last `A`: a letter
                // before `AIza` leaves no word boundary, which its pattern
                // wants.
                if (a_patterns & !b_patterns == 0 && b_patterns & !a_patterns == 0)
                    || (["AKIA", "ASIA"].contains(a) && *b == "AIza")
                {
                    continue;
                }
                for cut in 0..a.len() {
                    let tail = &a[cut..];
                    assert!(
                        !(b.starts_with(tail) || (cut > 0 && tail.contains(b))),
                        "{b} may start inside {a}"
                    );
                    if cut == 0 {
                        assert!(!a.starts_with(b), "{a} starts with {b}");
                    }
                }
            }
        }
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
    /// shape above many times over, agree with the definition and with the
    /// letter-by-letter search.
    #[test]
    fn keywords_are_found_across_windows() {
        for shift in 0..LONGEST_KEYWORD + 4 {
            let text = format!(
                "{}--API-KEY=abcdefgh12 secretoken: abcdefghij SUBSCRIPTION-KEY: abcdefghij",
                "y".repeat(64 * 1024 - shift)
            );
            assert_eq!(
                all_credentials(&text),
                credentials_by_position(&text),
                "shift {shift}"
            );
            assert_eq!(all_credentials(&text).len(), 3, "shift {shift}");
            let text = format!(
                "{}SUBSCRIPTION-KEY: abcdefghij",
                "y".repeat(64 * 1024 - shift)
            );
            assert_eq!(all_credentials(&text).len(), 1, "shift {shift}");
        }
        let many = format!("{}\n", ASSIGNMENTS.join(" kkk www ccc ")).repeat(300);
        assert_eq!(all_credentials(&many), credentials_by_position(&many));
        let (simd, by_letter) = (
            all_hits(many.as_bytes()),
            keyword_hits_by_letter(many.as_bytes()),
        );
        let first = simd.iter().zip(&by_letter).position(|(a, b)| a != b);
        assert_eq!(
            (simd.len(), first),
            (by_letter.len(), None),
            "{:?}",
            first.map(|i| (
                &simd[i..(i + 3).min(simd.len())],
                &by_letter[i..(i + 3).min(by_letter.len())]
            ))
        );
    }

    /// A keyword is listed before any shorter one it starts with
    /// (`secret_key`, `secret`): a leftmost-first search finds only the
    /// first listed at a start. The shorter one is then followed by a
    /// name's letter, so never by a value: nothing is lost.
    #[test]
    fn longer_keywords_come_first() {
        for (index, (word, _, _)) in KEYWORDS.iter().enumerate() {
            for (shorter, _, _) in &KEYWORDS[..index] {
                assert!(!word.starts_with(shorter), "{word:?} after {shorter:?}");
            }
            assert!(
                word.iter()
                    .all(|b| b.is_ascii_lowercase() || b"_-".contains(b))
            );
        }
    }

    #[test]
    fn all_patterns_compile() {
        assert!(PATTERNS.iter().all(|(_, regex)| regex.is_some()));
    }

    #[test]
    fn order_names_every_kind() {
        for (index, finder) in ORDER.iter().enumerate() {
            assert_eq!(order(*finder), index);
        }
        for pattern in 0..PATTERNS.len() {
            assert!(ORDER.contains(&Finder::Pattern(pattern)));
        }
        assert_eq!(
            kind(order(Finder::Credential)),
            "credential in an option or variable"
        );
        assert_eq!(
            PATTERNS[URL_PASSWORD_PATTERN].0, "password in a URL",
            "URL_PASSWORD_PATTERN"
        );
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
            kinds("curl -H 'Authorization: Bearer aB3dEf9hIjK2mN0p1234'").len(),
            1
        );
        assert_eq!(
            kinds("  token = \"Zq8v3LmN0pRt5Wx\"  # for the staging cluster"),
            [(
                "credential in an option or variable",
                "Zq8v…[redacted]".to_owned()
            )]
        );
    }

    #[test]
    fn ignores_log_noise_code_and_placeholders() {
        for text in [
            "[2026-01-01 00:00:00 TP0] Decode batch. #running-req: 1, #token: 20480, token usage: 0.00",
            "server_args=ServerArgs(api_key=None, tokenizer_path='/m', max_total_num_token=56524)",
            "export HF_TOKEN=<your-token>",
            "--api-key $API_KEY",
            "max_total_num_tokens=20480, chunked_prefill_size=8192",
            "        token = self._issue_auth_token(user_id, scope)",
            r#"{"url":"https://www.acme.com","name":"Acme","logo":{"@type":"ImageObject"}}"#,
            "password = os.environ[\"DB_PASSWORD\"]",
            "api_key: Optional[str] = None",
            "token = secrets.token_urlsafe(32)",
            "-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA...\n-----END RSA PRIVATE KEY-----",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    const KEY_LINES: [&str; 3] = [
        "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDzYqP3dZOo0u/C",
        "Yq6pInLddeC8tBu96QALlZpICj1kxLOuTPHzmkVlurcOD4AGQwH6O/NIAoKMvmlg",
        "x88azmbLhx==",
    ];

    /// A private key's body is found whatever joins its lines; its first
    /// line is the credential, the further ones are redacted with it.
    #[test]
    fn private_keys_are_found_in_files_and_json() {
        for newline in ["\n", "\r\n", "\\n", "\\\\n", "\\r\\n"] {
            let text = format!(
                "x\n-----BEGIN PRIVATE KEY-----{newline}{}{newline}-----END PRIVATE KEY-----{newline}",
                KEY_LINES.join(newline)
            );
            let secrets = scan(&[&Source::new("t", text.as_str())]);
            let found: Vec<(&str, bool)> = secrets
                .iter()
                .map(|s| (s.value.as_str(), s.continuation))
                .collect();
            assert_eq!(
                found,
                [(KEY_LINES[0], false), (KEY_LINES[1], true)],
                "{newline:?}"
            );
            assert_eq!(secrets[0].kind, "private key");
            let redacted = redact(&text, &secrets);
            assert!(!redacted.contains(KEY_LINES[0]) && !redacted.contains(KEY_LINES[1]));
            // The condenser keeps the whole block, which is found again.
            let fragments = fragments(&text);
            assert_eq!(fragments.len(), 1);
            let carried = serde_json::to_string(&fragments).expect("JSON");
            assert_eq!(values(&carried), [KEY_LINES[0], KEY_LINES[1]]);
        }
        for header in [
            "-----BEGIN RSA PRIVATE KEY-----",
            "-----BEGIN OPENSSH PRIVATE KEY-----",
            "-----BEGIN ENCRYPTED PRIVATE KEY-----",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
        ] {
            assert_eq!(
                values(&format!("{header}\n{}", KEY_LINES[0]))[0],
                KEY_LINES[0]
            );
        }
        for other in [
            "-----BEGIN PUBLIC KEY-----",
            "-----BEGIN CERTIFICATE-----",
            "PRIVATE KEY-----",
        ] {
            assert!(
                values(&format!("{other}\n{}", KEY_LINES[0])).is_empty(),
                "{other}"
            );
        }
    }

    /// What the condenser keeps of a dropped part is found again, alone and
    /// written into a JSON string, with the same value.
    #[test]
    fn fragments_are_found_again() {
        let text = [
            "export HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "vllm serve m --api-key s3cr3tK3yValue99",
            r#"{"password": "Tr0ub4dor&3xK", "user": "svc"}"#,
            r#"{\"token\":\"Zq8v3LmN0pRt5Wx\"}"#,
            "curl -H 'Authorization: Bearer aB3dEf9hIjK2mN0p1234'",
            "DATABASE_URL=postgres://app:Vq8rT2mZk4Lp@db:5432/app",
        ]
        .join("\n");
        let all = values(&text);
        assert_eq!(all.len(), 6, "{all:?}");
        for fragment in fragments(&text) {
            let alone = values(fragment);
            assert_eq!(alone.len(), 1, "{fragment}");
            assert!(all.contains(&alone[0]), "{fragment}");
            let carried = serde_json::to_string(&[fragment]).expect("JSON");
            assert_eq!(values(&carried), alone, "{carried}");
        }
    }

    #[test]
    fn a_value_is_found_once_per_line() {
        // By two kinds in one place, and again elsewhere on the line.
        let key = "sk-aB3dEf9hIjK2mN0pQrStUvWx";
        let line = format!("OPENAI_API_KEY={key}. echo {key}");
        assert_eq!(values(&line), [key]);
        let line = format!("--api-key {key} -H 'Authorization: Bearer {key}'");
        assert_eq!(
            kinds(&line),
            [("OpenAI API key", "sk-a…[redacted]".to_owned())]
        );
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
        // A value holding another found elsewhere is replaced whole.
        let text = "password='Tr0ub4dor'\nDB_PASSWORD=\"Tr0ub4dor&3xK\"";
        let secrets = scan(&[&Source::new("t", text)]);
        assert_eq!(secrets.len(), 2);
        assert_eq!(
            redact(text, &secrets),
            "password='Tr0u…[redacted]'\nDB_PASSWORD=\"Tr0u…[redacted]\""
        );
    }
}

//! What the agent's prose claims: the server or GPU states a sentence
//! asserts (up, weights loaded, drafter active, all ranks up, a port
//! listening, GPUs free), in the words agents and people really use and in
//! the languages [`vocabulary`] holds. Read by `claim-without-evidence`, the
//! one rule that reads prose; whether a claim is backed is that rule's call.
//!
//! No regex: every phrase is a literal of one table ([`vocabulary::VOCABULARY`]),
//! all found in one pass over the whole text (see [`Search`]). Most prose
//! holds no claim word and ends there. A sentence that holds one is then
//! read from the phrases found in it:
//!
//! - a state needs what it is said of before it (`the server` … `running`),
//!   in the same clause or else the nearest one before; a bare state
//!   (`up`, `live`, `prêt`) also needs a copula right before it (`is now up`);
//!   a verb takes what follows (`freed the GPUs`, `running across both GPUs`);
//! - a question (`?`, `吗`, `ですか`) or a belief (`probably`, `might`,
//!   `I think`) voids the whole sentence; a condition (`if`, `once`,
//!   `whether`, `sobald`, `たら`) voids its clause and the ones after it; a
//!   negation (`not`, `还没`, `noch nicht`) voids its clause; an intention,
//!   plan or future (`will`, `let me`, `bringing … up`, `before`) voids what
//!   follows it in its clause;
//! - `should` (`sollte`, `应该`…) voids what follows it only when the
//!   sentence names a later time (`in a minute`, `soon`, `gleich`, `马上`):
//!   "should be ready in a few minutes" is a forecast, while "should be good
//!   to go" is how agents report a finished job;
//! - an idiom voids the words within it (`no errors` is not a negation,
//!   `feel free` is not a free GPU, `started loading` is not started).
//!
//! A port named in a clause that claims the server is up (`up on :8085`,
//! `läuft auf Port 8085`, `8085 端口`) is claimed too.
//!
//! Matching is on a folded copy: ASCII, Latin-1 and Cyrillic letters
//! lower-cased (by hand: no Unicode case tables in the web page), curly
//! apostrophes straightened, English contractions spelt out (`isn't` →
//! `is not`, `it's` → `it is`), Markdown emphasis and code ticks dropped,
//! runs of spaces made one.

mod vocabulary;

#[cfg(test)]
mod tests;

use std::sync::LazyLock;

#[cfg(any(target_family = "wasm", test))]
use crate::literals::LiteralSet;
use vocabulary::{DRAFTER, GPUS, Kinds, LOADED, PORT, RANKS, READY, VOCABULARY, Word};

/// How much of one sentence is read: the reading compares the phrases of a
/// sentence with each other, so a run of text without a sentence end (a
/// pasted JSON blob, a table) is cut here. Real sentences are far shorter.
const SENTENCE_CAP: usize = 2_000;

/// The states a claim can assert. Serializable so the CLI's live guard
/// (`hindsight hook`) can tell the agent and keep what it was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "claim", content = "port")]
pub enum Claim {
    Ready,
    Loaded,
    Drafter,
    Ranks,
    Port(u16),
    GpusFree,
}

impl Claim {
    /// What the claim states, as a clause ("the server is up").
    pub fn stated(self) -> String {
        match self {
            Claim::Ready => "the server is up".to_owned(),
            Claim::Loaded => "the weights are loaded".to_owned(),
            Claim::Drafter => "the speculative drafter is active".to_owned(),
            Claim::Ranks => "all ranks are up".to_owned(),
            Claim::Port(port) => format!("port {port} is listening"),
            Claim::GpusFree => "the GPUs are free".to_owned(),
        }
    }
}

/// The claims `text` makes, each once, sentence by sentence and within a
/// sentence in the order of [`Claim`]'s variants. Public for the live guard,
/// which reads one assistant message at a time (the message an agent is
/// about to stop on), outside any transcript.
pub fn claims(text: &str) -> Vec<Claim> {
    let mut found = Vec::new();
    let Some(words) = WORDS.as_ref() else {
        return found;
    };
    let folded = fold(text);
    let hits = words.hits(&folded);
    if !hits.iter().any(|h| h.word.may_claim()) {
        return found;
    }
    let mut first = 0;
    for mut sentence in sentences(&folded) {
        sentence.end = sentence.end.min(crate::source::floor_char_boundary(
            &folded,
            sentence.start + SENTENCE_CAP,
        ));
        // Hits come in order of start; those past the sentence are left for
        // the next one.
        let from = first + hits[first..].partition_point(|h| h.start < sentence.start);
        let to = from + hits[from..].partition_point(|h| h.start < sentence.end);
        first = to;
        let inside: Vec<Hit> = hits[from..to]
            .iter()
            .filter(|h| h.end <= sentence.end)
            .copied()
            .collect();
        if sentence.question || !inside.iter().any(|h| h.word.may_claim()) {
            continue;
        }
        let mut add = |claim: Claim| {
            if !found.contains(&claim) {
                found.push(claim);
            }
        };
        let said = Sentence::read(&folded, sentence.start, sentence.end, inside).said();
        for (kind, claim) in [
            (READY, Claim::Ready),
            (LOADED, Claim::Loaded),
            (DRAFTER, Claim::Drafter),
            (RANKS, Claim::Ranks),
        ] {
            if said.kinds & kind != 0 {
                add(claim);
            }
        }
        for port in said.ports {
            add(Claim::Port(port));
        }
        if said.kinds & GPUS != 0 {
            add(Claim::GpusFree);
        }
    }
    found
}

/// The vocabulary ready to search: its phrases without their edge marks,
/// and for each whether its edges must be word edges.
struct Words {
    search: Search,
    /// (word, left edge checked, right edge checked), in table order.
    entries: Vec<(Word, bool, bool)>,
}

/// The search for every phrase at once: natively aho-corasick (its
/// contiguous NFA, ten times the speed of a [`LiteralSet`] over a thousand
/// short phrases, many of two letters); in wasm, where aho-corasick is not
/// linked, a [`LiteralSet`]. A test holds the two to the same occurrences.
#[cfg(not(target_family = "wasm"))]
type Search = aho_corasick::AhoCorasick;
#[cfg(target_family = "wasm")]
type Search = LiteralSet;

/// Every occurrence of every phrase in `text`, overlapping ones too, as
/// (start, end, index in the vocabulary), in no particular order.
#[cfg(not(target_family = "wasm"))]
fn each_phrase(search: &Search, text: &str, mut each: impl FnMut(usize, usize, usize)) {
    for found in search.find_overlapping_iter(text) {
        each(found.start(), found.end(), found.pattern().as_usize());
    }
}

#[cfg(target_family = "wasm")]
fn each_phrase(search: &Search, text: &str, each: impl FnMut(usize, usize, usize)) {
    search.each_overlapping(text.as_bytes(), each);
}

fn phrases() -> impl Iterator<Item = &'static str> {
    VOCABULARY.iter().map(|(text, _)| text.trim_matches('~'))
}

static WORDS: LazyLock<Option<Words>> = LazyLock::new(|| {
    let entries = VOCABULARY
        .iter()
        .map(|(text, word)| {
            let phrase = text.trim_matches('~');
            let first = phrase.chars().next().is_some_and(is_word_char);
            let last = phrase.chars().next_back().is_some_and(is_word_char);
            (
                *word,
                first && !text.starts_with('~'),
                last && !text.ends_with('~'),
            )
        })
        .collect();
    #[cfg(not(target_family = "wasm"))]
    let search = aho_corasick::AhoCorasick::new(phrases()).ok()?;
    #[cfg(target_family = "wasm")]
    let search = LiteralSet::new(phrases());
    Some(Words { search, entries })
});

/// One phrase of the vocabulary found in the folded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hit {
    start: usize,
    end: usize,
    word: Word,
}

impl Hit {
    /// Whether `other` lies within this phrase and is not the same span.
    fn holds(&self, other: &Hit) -> bool {
        self.start <= other.start
            && other.end <= self.end
            && (self.start, self.end) != (other.start, other.end)
    }
}

impl Words {
    /// Every phrase found in `text` on the edges it asks for, in order of
    /// start (overlapping ones too).
    fn hits(&self, text: &str) -> Vec<Hit> {
        let mut hits = Vec::new();
        each_phrase(&self.search, text, |start, end, index| {
            let Some(&(word, left, right)) = self.entries.get(index) else {
                return;
            };
            let before = text.get(..start).and_then(|t| t.chars().next_back());
            let after = text.get(end..).and_then(|t| t.chars().next());
            if (left && before.is_some_and(is_word_char))
                || (right && after.is_some_and(is_word_char))
            {
                return;
            }
            hits.push(Hit { start, end, word });
        });
        hits.sort_by_key(|h| (h.start, h.end));
        hits
    }
}

/// A letter or digit of a script that spaces its words: ASCII, Latin,
/// Cyrillic, Hangul. (Chinese and Japanese phrases have no word edges.)
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '_'
        || (('\u{c0}'..='\u{24f}').contains(&c) && c != '\u{d7}' && c != '\u{f7}')
        || ('\u{400}'..='\u{4ff}').contains(&c)
        || ('\u{ac00}'..='\u{d7a3}').contains(&c)
}

/// The lower-case, contraction-free copy of `text` that phrases are matched
/// in (see the module documentation).
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut chars = text.char_indices().peekable();
    while let Some((at, original)) = chars.next() {
        let c = match original {
            '\u{2018}' | '\u{2019}' | '\u{2032}' => '\'',
            '*' | '`' => continue,
            '\t' | '\r' | '\u{a0}' | '\u{3000}' => ' ',
            c @ 'A'..='Z' => c.to_ascii_lowercase(),
            c @ '\u{c0}'..='\u{de}' if c != '\u{d7}' => shifted(c, 0x20),
            c @ '\u{410}'..='\u{42f}' => shifted(c, 0x20),
            c @ '\u{400}'..='\u{40f}' => shifted(c, 0x50),
            c => c,
        };
        if c == ' ' && (out.is_empty() || out.ends_with([' ', '\n'])) {
            continue;
        }
        if c == '\'' && out.ends_with(|p: char| p.is_ascii_alphabetic()) {
            let rest = text.get(at + original.len_utf8()..).unwrap_or_default();
            if let Some((spelt, skip)) = contraction(&out, rest) {
                if spelt == " not" {
                    out.pop();
                }
                out.push_str(spelt);
                for _ in 0..skip {
                    chars.next();
                }
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// `c` moved `by` code points (a lower-case letter for an upper-case one).
fn shifted(c: char, by: u32) -> char {
    char::from_u32(u32::from(c) + by).unwrap_or(c)
}

/// An English contraction at an apostrophe: what it spells out to and how
/// many characters after the apostrophe it takes. `done` ends in the letter
/// before the apostrophe (`n` of `n't`, which the caller drops).
fn contraction(done: &str, rest: &str) -> Option<(&'static str, usize)> {
    let word_ends = |n: usize| !rest[n..].starts_with(is_word_char);
    let lower: String = rest
        .chars()
        .take(2)
        .collect::<String>()
        .to_ascii_lowercase();
    let spelt = if lower.starts_with('t') && done.ends_with('n') && word_ends(1) {
        (" not", 1)
    } else if lower.starts_with('s') && word_ends(1) {
        if done.ends_with("let") && !done.ends_with("llet") {
            (" us", 1)
        } else {
            (" is", 1)
        }
    } else if lower == "re" && word_ends(2) {
        (" are", 2)
    } else if lower == "ll" && word_ends(2) {
        (" will", 2)
    } else if lower == "ve" && word_ends(2) {
        (" have", 2)
    } else if lower.starts_with('m') && word_ends(1) {
        (" am", 1)
    } else if lower.starts_with('d') && word_ends(1) {
        (" would", 1)
    } else {
        return None;
    };
    Some(spelt)
}

/// Where a sentence lies in the folded text, and whether it asks.
struct Bounds {
    start: usize,
    end: usize,
    question: bool,
}

/// The sentences of `text`: ended by a line break, `!`, `;`, `?` (then a
/// question), a `.` before a space or the end (not the dots of `0.0.0.0`,
/// `llama.cpp` or `v0.11`), an ellipsis, or the full-width `。！？；`.
fn sentences(text: &str) -> Vec<Bounds> {
    let mut spans = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends_here = matches!(c, '\n' | '!' | ';' | '\u{2026}' | '。' | '！' | '？' | '；')
            || (matches!(c, '.' | '?')
                && next.is_none_or(|n| n.is_whitespace() || matches!(n, '"' | '\'' | ')')));
        if ends_here {
            spans.push(Bounds {
                start,
                end: at,
                question: matches!(c, '?' | '？'),
            });
            start = at + c.len_utf8();
        }
    }
    spans.push(Bounds {
        start,
        end: text.len(),
        question: false,
    });
    spans.retain(|s| s.start < s.end);
    spans
}

/// One sentence with the phrases found in it, the voided ones removed.
struct Sentence<'t> {
    text: &'t str,
    start: usize,
    end: usize,
    hits: Vec<Hit>,
    /// Where clauses start, in order.
    breaks: Vec<usize>,
}

/// What a sentence claims.
#[derive(Debug, Default)]
struct Said {
    kinds: Kinds,
    ports: Vec<u16>,
}

impl<'t> Sentence<'t> {
    fn read(text: &'t str, start: usize, end: usize, mut hits: Vec<Hit>) -> Sentence<'t> {
        let idioms: Vec<Hit> = hits
            .iter()
            .filter(|h| h.word == Word::Idiom)
            .copied()
            .collect();
        // An idiom voids the other phrases within it.
        hits.retain(|h| !idioms.iter().any(|i| i.holds(h)));
        let mut breaks: Vec<usize> = hits
            .iter()
            .filter(|h| h.word == Word::Break)
            .map(|h| h.start)
            .collect();
        let body = text.get(start..end).unwrap_or_default();
        breaks.extend(
            body.char_indices()
                .filter(|&(at, c)| {
                    let spaced = |t: &str| t.starts_with(' ');
                    match c {
                        ',' | '，' | '—' | '–' | '(' | ')' | '（' | '）' | '：' => true,
                        // `Status: up`, not `host:8085`; ` - `, not `llama-server`.
                        ':' => spaced(&body[at + 1..]),
                        '-' => spaced(&body[at + 1..]) && body[..at].ends_with(' '),
                        _ => false,
                    }
                })
                .map(|(at, _)| start + at),
        );
        breaks.sort_unstable();
        Sentence {
            text,
            start,
            end,
            hits,
            breaks,
        }
    }

    /// Which clause a position is in.
    fn clause(&self, at: usize) -> usize {
        self.breaks.partition_point(|&b| b <= at)
    }

    /// Where the clause holding `at` ends.
    fn clause_end(&self, at: usize) -> usize {
        self.breaks
            .iter()
            .copied()
            .find(|&b| b > at)
            .unwrap_or(self.end)
    }

    fn said(&self) -> Said {
        let mut said = Said::default();
        if self.hits.iter().any(|h| h.word == Word::Doubt) {
            return said;
        }
        let later = self.hits.iter().any(|h| h.word == Word::Later);
        let conditioned = self
            .hits
            .iter()
            .filter(|h| h.word == Word::Condition)
            .map(|h| self.clause(h.start))
            .min()
            .unwrap_or(usize::MAX);
        for hit in &self.hits {
            if !hit.word.may_claim()
                || self.clause(hit.start) >= conditioned
                || self.hedged(hit, later)
            {
                continue;
            }
            let (kinds, port) = match hit.word {
                Word::Claim(kinds) => (kinds, None),
                Word::State(kinds) => self.subject_before(hit, kinds),
                Word::Bare(kinds) if self.copula_before(hit.start) => {
                    self.subject_before(hit, kinds)
                }
                Word::Verb(kinds) => self.object_after(hit, kinds),
                Word::PortLead => {
                    let rest = self.text.get(hit.end..self.clause_end(hit.start));
                    (0, rest.and_then(port_after))
                }
                _ => (0, None),
            };
            said.kinds |= kinds & !PORT;
            if let Some(port) = port.filter(|_| kinds & PORT != 0 || hit.word == Word::PortLead) {
                push_new(&mut said.ports, port);
            }
            if kinds & READY != 0 {
                // A port named with "up", "läuft" or "已启动" is a port claim too.
                for port in self.ports_in_clause(hit.start) {
                    push_new(&mut said.ports, port);
                }
            }
        }
        said
    }

    /// Whether a negation in its clause (not one inside the phrase itself:
    /// `no longer in use`, `没有进程`), or an intention (or a `should` in a
    /// sentence naming a later time) before it in its clause, voids a claim
    /// phrase.
    fn hedged(&self, hit: &Hit, later: bool) -> bool {
        let clause = self.clause(hit.start);
        self.hits.iter().any(|h| {
            self.clause(h.start) == clause
                && ((h.word == Word::Negation && !hit.holds(h))
                    || (h.start < hit.start
                        && (h.word == Word::Intent || (h.word == Word::Modal && later))))
        })
    }

    /// The kinds of what is said before a state, among those it can be
    /// said of: the subjects in its clause, else the nearest subject before
    /// it. The port number of a port subject (`port 8085 is open`) comes
    /// along.
    fn subject_before(&self, hit: &Hit, kinds: Kinds) -> (Kinds, Option<u16>) {
        let clause = self.clause(hit.start);
        let subjects: Vec<(usize, Kinds, Option<u16>)> = self
            .hits
            .iter()
            .filter(|h| h.end <= hit.start)
            .filter_map(|h| self.subject(h).map(|(k, p)| (h.start, k & kinds, p)))
            .filter(|(_, k, _)| *k != 0)
            .collect();
        let in_clause: Vec<&(usize, Kinds, Option<u16>)> = subjects
            .iter()
            .filter(|(at, _, _)| self.clause(*at) == clause)
            .collect();
        let chosen: Vec<&(usize, Kinds, Option<u16>)> = if in_clause.is_empty() {
            subjects.last().into_iter().collect()
        } else {
            in_clause
        };
        let found = chosen.iter().fold(0, |all, (_, k, _)| all | k);
        let port = chosen.iter().rev().find_map(|(_, _, p)| *p);
        (found, port)
    }

    /// The kinds of the object after a verb, in its clause and close by.
    fn object_after(&self, hit: &Hit, kinds: Kinds) -> (Kinds, Option<u16>) {
        let clause = self.clause(hit.start);
        let mut found = 0;
        let mut port = None;
        for h in self.hits.iter().filter(|h| {
            h.start >= hit.end && h.start <= hit.end + 40 && self.clause(h.start) == clause
        }) {
            if let Some((k, p)) = self.subject(h) {
                found |= k;
                port = port.or(p);
            }
        }
        (found & kinds, port)
    }

    /// What a phrase can be the subject of: its kinds, with a port word's
    /// number, and a unit (`GPUs`, `ranks`) counted (`all 8`, `both`) as
    /// the ranks.
    fn subject(&self, hit: &Hit) -> Option<(Kinds, Option<u16>)> {
        match hit.word {
            Word::Subject(kinds) => Some((kinds, None)),
            Word::Unit if self.counted(hit) => Some((RANKS, None)),
            Word::Port => port_number_at(self.text, hit).map(|p| (PORT, Some(p))),
            _ => None,
        }
    }

    /// Whether a unit is counted: a quantifier shortly before it in its
    /// clause (`all 8 TP ranks`, `both GPUs`), or a number of two or more
    /// right before it (`8 GPUs`, `4 TP workers`; not `70 GB per GPU`).
    fn counted(&self, unit: &Hit) -> bool {
        let clause = self.clause(unit.start);
        let from = unit.start.saturating_sub(14);
        let quantified = self.hits.iter().any(|h| {
            h.word == Word::Quantifier
                && h.end <= unit.start
                && h.end >= from
                && self.clause(h.start) == clause
        });
        let mut before = self.text.get(..unit.start).unwrap_or_default().trim_end();
        for parallel in ["tp", "dp", "pp", "ep"] {
            if let Some(rest) = before.strip_suffix(parallel)
                && !rest.ends_with(is_word_char)
            {
                before = rest.trim_end();
            }
        }
        let run = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let digits = &before[before.len() - run..];
        let number = !before[..before.len() - run].ends_with(is_word_char)
            && digits.parse::<u32>().is_ok_and(|n| n >= 2);
        quantified || number
    }

    /// Whether a copula comes right before `at`, past any adverbs
    /// (`is up`, `is now fully up`, `ist jetzt bereit`).
    fn copula_before(&self, mut at: usize) -> bool {
        for _ in 0..4 {
            let end = self
                .text
                .get(..at)
                .unwrap_or_default()
                .trim_end_matches(' ')
                .len();
            let before = self.hits.iter().filter(|h| h.end == end);
            let mut adverb = None;
            for h in before {
                match h.word {
                    Word::Copula => return true,
                    Word::Adverb => adverb = Some(h.start),
                    _ => {}
                }
            }
            match adverb {
                Some(start) => at = start,
                None => return false,
            }
        }
        false
    }

    /// The ports named in the clause holding `at`: a port word with its
    /// number (`port 8085`, `8085 端口`) or `host:8085`, `:8085`.
    fn ports_in_clause(&self, at: usize) -> Vec<u16> {
        let clause = self.clause(at);
        let start = self
            .breaks
            .iter()
            .copied()
            .rev()
            .find(|&b| b <= at)
            .unwrap_or(self.start);
        let end = self.clause_end(at);
        let mut ports: Vec<u16> = self
            .hits
            .iter()
            .filter(|h| h.word == Word::Port && self.clause(h.start) == clause)
            .filter_map(|h| port_number_at(self.text, h))
            .collect();
        let body = self.text.get(start..end).unwrap_or_default();
        for (colon, _) in body.match_indices(':') {
            let before = body[..colon].chars().next_back();
            if before.is_none_or(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | ']'))
                && let Some(port) = digits(&body[colon + 1..]).filter(|&p| p >= 1000)
            {
                push_new(&mut ports, port);
            }
        }
        ports
    }
}

fn push_new(ports: &mut Vec<u16>, port: u16) {
    if !ports.contains(&port) {
        ports.push(port);
    }
}

/// A port number of 2 to 5 digits at the start of `text`, not followed by
/// another digit or a letter.
fn digits(text: &str) -> Option<u16> {
    let run = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let after = text[run..].chars().next();
    if !(2..=5).contains(&run) || after.is_some_and(is_word_char) {
        return None;
    }
    text[..run].parse().ok().filter(|&p: &u16| p > 0)
}

/// The number next to a port word: after it (`port 8085`, `--port=8085`,
/// `ポート8085`) or before it (`8085 端口`).
fn port_number_at(text: &str, hit: &Hit) -> Option<u16> {
    let after = end_of_word(text.get(hit.end..)?).trim_start_matches([' ', ':', '=', '#', '：']);
    digits(after).or_else(|| {
        let before = text.get(..hit.start)?.trim_end_matches([' ', '番']);
        let run = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let start = before.len() - run;
        let prior = before[..start].chars().next_back();
        if prior.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.') {
            return None;
        }
        digits(&before[start..])
    })
}

/// What follows the rest of a word whose start was matched (`порт|у 8085`).
fn end_of_word(text: &str) -> &str {
    text.trim_start_matches(|c: char| is_word_char(c) && !c.is_ascii_digit())
}

/// The port after `listening on`, `bound to`, `serving at`: `port 8085`,
/// `:8085`, `0.0.0.0:8085`, `http://host:8085/v1`, or a bare number from
/// 1000 on (`on 8085`, not `on 8 GPUs`).
fn port_after(text: &str) -> Option<u16> {
    let mut rest = text.trim_start();
    let mut marked = false;
    for (word, entry) in VOCABULARY {
        if *entry == Word::Port
            && let Some(after) = rest.strip_prefix(word.trim_matches('~'))
        {
            rest = end_of_word(after).trim_start_matches([' ', ':', '=', '#']);
            marked = true;
            break;
        }
    }
    for scheme in ["http://", "https://"] {
        if let Some(after) = rest.strip_prefix(scheme) {
            rest = after;
        }
    }
    let token = rest
        .split(|c: char| {
            !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '/'))
        })
        .next()
        .unwrap_or_default();
    let token = token.split('/').next().unwrap_or_default();
    if let Some(colon) = token.rfind(':') {
        return digits(&token[colon + 1..]);
    }
    digits(token).filter(|&p| marked || p >= 1000)
}

impl Word {
    /// Whether this phrase can make a claim (the rest only qualify one).
    fn may_claim(self) -> bool {
        matches!(
            self,
            Word::Claim(_) | Word::State(_) | Word::Bare(_) | Word::Verb(_) | Word::PortLead
        )
    }
}

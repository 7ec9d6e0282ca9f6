//! A set of literals searched in one pass: where any of them occurs.
//!
//! The parsers decide which lines to read closely by the literals they hold
//! (template triggers, rank tags, rare log words). Natively, aho-corasick
//! does that (its SIMD searcher, Teddy, and a DFA) and stays. In
//! WebAssembly it has no SIMD searcher and falls back to automata, whose
//! builders, searchers and debug printing were 24 KB of the web page
//! gzipped (6%). This search replaced them there: the page's 100 MB
//! analysis went from 1.20 s to 0.98 s in headless Chromium. Natively it
//! runs at about 0.8 times the DFA's speed, which is why it is not used
//! there. A test holds the two to the same occurrences on every example.
//!
//! The method is a filter of 65,536 bits: when every literal is at least
//! four bytes long, a hash of each one's first four bytes; otherwise the
//! pairs of bytes literals start with (and the pairs after those). Most
//! text positions cost a load and a bit test; where the filter passes, the
//! literals beginning with that byte are compared in full. Matches are
//! leftmost-first: the earliest start, and among literals starting there
//! the first in the list, as aho-corasick's `MatchKind::LeftmostFirst`
//! reports them.

/// 65,536 bits.
type Bits = [u64; 1024];

fn has(bits: &Bits, bit: usize) -> bool {
    bits[bit / 64 % 1024] & (1 << (bit % 64)) != 0
}

fn set(bits: &mut Bits, bit: usize) {
    bits[bit / 64 % 1024] |= 1 << (bit % 64);
}

/// The bit of a pair of bytes.
fn pair(a: u8, b: u8) -> usize {
    usize::from(a) << 8 | usize::from(b)
}

/// The bit of four bytes: a multiplicative hash to 16 bits.
fn quad(bytes: [u8; 4]) -> usize {
    (u32::from_le_bytes(bytes).wrapping_mul(0x9E37_79B1) >> 16) as usize
}

/// Which text positions may start a literal.
#[derive(Debug, Clone)]
enum Filter {
    /// Every literal is at least four bytes long: the hashes of their first
    /// four bytes. One in about a thousand other positions passes.
    Quads(Box<Bits>),
    /// Some literal is shorter: the pairs literals start with, and the
    /// pairs their second and third bytes make (every pair a short
    /// literal's second byte starts; every pair at all for a one-byte
    /// literal).
    Pairs(Box<Bits>, Box<Bits>),
}

/// Literals (any bytes) ready to be searched for.
#[derive(Debug, Clone)]
pub(crate) struct LiteralSet {
    literals: Vec<Box<[u8]>>,
    filter: Filter,
    /// Indices into `literals` ordered by first byte (then list order), and
    /// for each first byte its range in that order.
    by_first: Vec<u16>,
    ranges: Box<[(u16, u16); 256]>,
}

impl LiteralSet {
    /// The set of `literals`, in priority order; an occurrence names its
    /// literal by its place in that order. Empty literals (which would match
    /// everywhere) never match, and any past the 65,535th are left out.
    pub(crate) fn new<I, L>(literals: I) -> LiteralSet
    where
        I: IntoIterator<Item = L>,
        L: AsRef<[u8]>,
    {
        let literals: Vec<Box<[u8]>> = literals
            .into_iter()
            .map(|l| Box::from(l.as_ref()))
            .take(usize::from(u16::MAX))
            .collect();
        let filter = if literals.iter().all(|l| l.is_empty() || l.len() >= 4) {
            let mut quads = Box::new([0u64; 1024]);
            for literal in &literals {
                if let [a, b, c, d, ..] = **literal {
                    set(&mut quads, quad([a, b, c, d]));
                }
            }
            Filter::Quads(quads)
        } else {
            let mut pairs = Box::new([0u64; 1024]);
            let mut next_pairs = Box::new([0u64; 1024]);
            for literal in &literals {
                match **literal {
                    [] => {}
                    [a] => {
                        (0..=255).for_each(|b| set(&mut pairs, pair(a, b)));
                        *next_pairs = [u64::MAX; 1024];
                    }
                    [a, b] => {
                        set(&mut pairs, pair(a, b));
                        (0..=255).for_each(|c| set(&mut next_pairs, pair(b, c)));
                    }
                    [a, b, c, ..] => {
                        set(&mut pairs, pair(a, b));
                        set(&mut next_pairs, pair(b, c));
                    }
                }
            }
            Filter::Pairs(pairs, next_pairs)
        };
        // How many literals start with each byte, then where each byte's
        // run begins in `by_first`: a counting sort, which keeps list order.
        let mut counts = [0u16; 256];
        for literal in &literals {
            if let Some(&first) = literal.first() {
                counts[usize::from(first)] += 1;
            }
        }
        let mut ranges = Box::new([(0u16, 0u16); 256]);
        let mut next = 0u16;
        for (range, count) in ranges.iter_mut().zip(counts) {
            *range = (next, next);
            next += count;
        }
        let mut by_first = vec![0u16; usize::from(next)];
        for (i, literal) in (0u16..).zip(&literals) {
            if let Some(&first) = literal.first() {
                let range = &mut ranges[usize::from(first)];
                by_first[usize::from(range.1)] = i;
                range.1 += 1;
            }
        }
        LiteralSet {
            literals,
            filter,
            by_first,
            ranges,
        }
    }

    /// The leftmost-first occurrence starting at or after `from`, as
    /// (start, end, index of the literal).
    pub(crate) fn find(&self, text: &[u8], from: usize) -> Option<(usize, usize, usize)> {
        let mut at = from;
        while let Some(start) = self.candidate(text, at) {
            if let Some(found) = self.literals_at(text, start).next() {
                return Some(found);
            }
            at = start + 1;
        }
        None
    }

    /// Every occurrence of every literal, overlapping ones included, in
    /// order of start (then list order), handed to `each`.
    // The wasm trigger scan's; natively only the tests'.
    #[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
    pub(crate) fn each_overlapping(&self, text: &[u8], mut each: impl FnMut(usize, usize, usize)) {
        let mut at = 0;
        while let Some(start) = self.candidate(text, at) {
            for (start, end, index) in self.literals_at(text, start) {
                each(start, end, index);
            }
            at = start + 1;
        }
    }

    /// The starts of the non-overlapping leftmost-first occurrences, in
    /// order (each search resumes where the last occurrence ended).
    // The wasm trigger scan's; natively only the tests'.
    #[cfg_attr(not(target_family = "wasm"), allow(dead_code))]
    pub(crate) fn starts(&self, text: &[u8]) -> Vec<usize> {
        let mut starts = Vec::new();
        let mut from = 0;
        while let Some((start, end, _)) = self.find(text, from) {
            starts.push(start);
            from = end.max(start + 1);
        }
        starts
    }

    /// The first position at or after `from` that may start a literal. Most
    /// positions cost a load or two and a bit test.
    fn candidate(&self, text: &[u8], from: usize) -> Option<usize> {
        let tail = text.get(from..)?;
        match &self.filter {
            Filter::Quads(quads) => tail
                .windows(4)
                .position(|w| has(quads, quad([w[0], w[1], w[2], w[3]])))
                .map(|k| from + k),
            Filter::Pairs(pairs, next_pairs) => {
                let found = tail
                    .iter()
                    .zip(tail.get(1..).unwrap_or_default())
                    .zip(tail.get(2..).unwrap_or_default())
                    .position(|((&a, &b), &c)| {
                        has(pairs, pair(a, b)) && has(next_pairs, pair(b, c))
                    });
                match found {
                    Some(k) => Some(from + k),
                    // The last two positions have no three bytes to test.
                    None => (from.max(text.len().saturating_sub(2))..text.len()).next(),
                }
            }
        }
    }

    /// The literals occurring at `start`, in list order.
    fn literals_at<'s>(
        &'s self,
        text: &'s [u8],
        start: usize,
    ) -> impl Iterator<Item = (usize, usize, usize)> + 's {
        let rest = text.get(start..).unwrap_or_default();
        let (low, high) = rest
            .first()
            .map_or((0, 0), |&b| self.ranges[usize::from(b)]);
        self.by_first
            .get(usize::from(low)..usize::from(high))
            .unwrap_or_default()
            .iter()
            .map(|&i| usize::from(i))
            .filter(move |&i| rest.starts_with(&self.literals[i]))
            .map(move |i| (start, start + self.literals[i].len(), i))
    }
}

#[cfg(test)]
mod tests {
    use super::LiteralSet;

    /// Every (start, end, index) by brute force, in start then list order.
    fn naive(literals: &[&[u8]], text: &[u8]) -> Vec<(usize, usize, usize)> {
        let mut all = Vec::new();
        for start in 0..text.len() {
            for (i, l) in literals.iter().enumerate() {
                if !l.is_empty() && text[start..].starts_with(l) {
                    all.push((start, start + l.len(), i));
                }
            }
        }
        all
    }

    fn check(literals: &[&[u8]], text: &[u8]) {
        let set = LiteralSet::new(literals);
        let all = naive(literals, text);
        let mut overlapping = Vec::new();
        set.each_overlapping(text, |s, e, i| overlapping.push((s, e, i)));
        assert_eq!(overlapping, all, "{:?}", String::from_utf8_lossy(text));
        for from in 0..=text.len() + 1 {
            let expected = all.iter().find(|m| m.0 >= from).copied();
            assert_eq!(set.find(text, from), expected, "from {from}");
        }
        let mut starts = Vec::new();
        let mut from = 0;
        while let Some(&(s, e, _)) = all.iter().find(|m| m.0 >= from) {
            starts.push(s);
            from = e.max(s + 1);
        }
        assert_eq!(set.starts(text), starts);
    }

    #[test]
    fn finds_what_brute_force_finds() {
        let literals: &[&[u8]] = &[
            b"TP",
            b"pid=",
            b"ANK",
            b"ank",
            b"x",
            b"Listening on ",
            b"istening",
            b"\xff\x00",
        ];
        for text in [
            &b""[..],
            b"x",
            b"TP3 rank RANK pid=7",
            b"Listening on 0.0.0.0:8000",
            b"xx\xff\x00TPx",
            b"no literal at all here",
            b"ankANKankx",
        ] {
            check(literals, text);
        }
    }

    #[test]
    fn random_texts_and_literals() {
        // A fixed xorshift sequence: the same cases on every run.
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..300 {
            // A small alphabet, so literals occur and overlap often.
            let byte = |n: u64| b"abcA\n"[(n % 5) as usize];
            let literals: Vec<Vec<u8>> = (0..1 + next() % 6)
                .map(|_| (0..1 + next() % 4).map(|_| byte(next())).collect())
                .collect();
            let text: Vec<u8> = (0..next() % 60).map(|_| byte(next())).collect();
            let refs: Vec<&[u8]> = literals.iter().map(Vec::as_slice).collect();
            check(&refs, &text);
        }
    }

    #[test]
    fn empty_literals_are_left_out() {
        let set = LiteralSet::new([&b""[..], b"ab"]);
        assert_eq!(set.find(b"xab", 0), Some((1, 3, 1)));
        assert_eq!(LiteralSet::new([&b""[..]]).find(b"xab", 0), None);
    }
}

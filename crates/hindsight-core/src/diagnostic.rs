//! Problems met while reading input: never fatal, always reported with where.

use crate::source::SourceId;

/// How bad a diagnostic is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "tsify", derive(tsify::Tsify))]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticLevel {
    Info,
    Warning,
    Error,
}

impl std::fmt::Display for DiagnosticLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl DiagnosticLevel {
    /// The name the report writes (`warning`), the same as its JSON.
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticLevel::Info => "info",
            DiagnosticLevel::Warning => "warning",
            DiagnosticLevel::Error => "error",
        }
    }
}

/// Something the reader noticed about an input (bad bytes, a cut line, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub source: SourceId,
    /// 1-based line, when the problem is on one line.
    pub line: Option<u32>,
    pub level: DiagnosticLevel,
    pub message: String,
}

impl Diagnostic {
    pub fn warning(source: SourceId, line: Option<u32>, message: impl Into<String>) -> Self {
        Self {
            source,
            line,
            level: DiagnosticLevel::Warning,
            message: message.into(),
        }
    }

    pub fn info(source: SourceId, line: Option<u32>, message: impl Into<String>) -> Self {
        Self {
            source,
            line,
            level: DiagnosticLevel::Info,
            message: message.into(),
        }
    }
}

/// Lines longer than this are only classified by their first bytes: no log or
/// prompt line is this long, and regexes over megabytes would stall the page.
pub const LONG_LINE: usize = 64 * 1024;

/// Checks a text for things worth a diagnostic before parsing: NUL bytes
/// (binary input) and overlong lines. Each is reported once, with its line.
pub fn scan_text(text: &str, source: SourceId) -> Vec<Diagnostic> {
    // Whole-text SIMD searches, not a pass per line: this runs on every
    // source, and a pasted log can be a hundred megabytes.
    let bytes = text.as_bytes();
    let line_number = |at: usize| {
        let before = memchr::memchr_iter(b'\n', &bytes[..at.min(bytes.len())]).count();
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    };
    let mut diagnostics = Vec::new();
    if let Some(at) = memchr::memchr(0, bytes) {
        diagnostics.push(Diagnostic::warning(
            source,
            Some(line_number(at)),
            "NUL bytes: this looks like binary data; it was read as text",
        ));
    }
    // A line longer than LONG_LINE has no newline in the LONG_LINE + 1
    // bytes after its start: jump from line start to the last newline of
    // each such window, a few hundred searches for a 100 MB log.
    let mut start = 0;
    while bytes.len() - start > LONG_LINE {
        let window = &bytes[start..=start + LONG_LINE];
        match memchr::memrchr(b'\n', window) {
            Some(at) => start += at + 1,
            None => {
                let end =
                    memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |at| start + at);
                let line = &bytes[start..end];
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.len() > LONG_LINE {
                    diagnostics.push(Diagnostic::warning(
                        source,
                        Some(line_number(start)),
                        format!(
                            "line is {} bytes long; only its first {} KiB were examined",
                            line.len(),
                            LONG_LINE / 1024
                        ),
                    ));
                    break;
                }
                // Exactly LONG_LINE + 1 bytes with its `\r`: not too long.
                start = end + 1;
            }
        }
    }
    in_line_order(&mut diagnostics);
    diagnostics
}

/// Sorts diagnostics in line order, as a reader meets them (stable: those
/// of one line keep their order). One function for every such sort, so the
/// web page carries one copy of the sort's code, not one per call site.
pub(crate) fn in_line_order(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by_key(|d| d.line);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_line(text: &str) -> Option<u32> {
        scan_text(text, 0)
            .into_iter()
            .find(|d| d.message.contains("bytes long"))
            .and_then(|d| d.line)
    }

    #[test]
    fn long_lines_are_found_at_the_limit_and_not_before() {
        let at_limit = "x".repeat(LONG_LINE);
        let over = "y".repeat(LONG_LINE + 1);
        assert_eq!(long_line(&format!("a\n{at_limit}\nb\n")), None);
        assert_eq!(long_line(&format!("a\r\n{at_limit}\r\nb\r\n")), None);
        assert_eq!(long_line(&format!("a\nb\n{over}\nc\n")), Some(3));
        assert_eq!(long_line(&format!("a\nb\n{over}")), Some(3));
        assert_eq!(long_line(&over), Some(1));
        let many = "short line\n".repeat(20_000);
        assert_eq!(long_line(&format!("{many}{over}\n{many}")), Some(20_001));
        assert_eq!(long_line(&format!("{many}{at_limit}\n{many}")), None);
    }

    #[test]
    fn nul_bytes_are_reported_on_their_line() {
        let found = scan_text("a\nb\0c\nd", 0);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, Some(2));
    }
}

/// How many diagnostics of one kind (same source, level and message up to
/// its first `:`) are listed one by one; the rest become one line that
/// counts them. A file whose every line is broken gives a readable report,
/// not 200,000 warnings.
pub const MAX_OF_ONE_KIND: usize = 10;

/// Keeps the first [`MAX_OF_ONE_KIND`] diagnostics of each kind, in order,
/// and after them one diagnostic per kind saying how many more there were
/// and on which lines.
pub fn cap_repeated(diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    fn kind(d: &Diagnostic) -> (SourceId, DiagnosticLevel, &str) {
        let head = d.message.split(':').next().unwrap_or(&d.message);
        (d.source, d.level, head)
    }
    let mut counts: std::collections::HashMap<
        (SourceId, DiagnosticLevel, String),
        (usize, u32, u32),
    > = std::collections::HashMap::new();
    let mut kept = Vec::with_capacity(diagnostics.len().min(1000));
    let mut order: Vec<(SourceId, DiagnosticLevel, String)> = Vec::new();
    for diagnostic in diagnostics {
        let (source, level, head) = kind(&diagnostic);
        let key = (source, level, head.to_owned());
        let entry = counts.entry(key.clone()).or_insert((0, u32::MAX, 0));
        entry.0 += 1;
        if entry.0 <= MAX_OF_ONE_KIND {
            kept.push(diagnostic);
            continue;
        }
        if entry.0 == MAX_OF_ONE_KIND + 1 {
            order.push(key);
        }
        if let Some(line) = diagnostic.line {
            entry.1 = entry.1.min(line);
            entry.2 = entry.2.max(line);
        }
    }
    for key in order {
        let Some(&(count, first, last)) = counts.get(&key) else {
            continue;
        };
        let more = count - MAX_OF_ONE_KIND;
        let lines = match (first, last) {
            (u32::MAX, _) => String::new(),
            (first, last) if first == last => format!(" (line {first})"),
            (first, last) => format!(" (lines {first} to {last})"),
        };
        kept.push(Diagnostic {
            source: key.0,
            line: None,
            level: key.1,
            message: format!("{more} more like \"{}: …\"{lines}", key.2),
        });
    }
    kept
}

#[cfg(test)]
mod cap_tests {
    use super::*;

    #[test]
    fn a_flood_of_one_kind_is_counted() {
        let flood: Vec<Diagnostic> = (1..=1000)
            .map(|line| {
                Diagnostic::warning(
                    0,
                    Some(line),
                    format!("malformed JSON record skipped: error {line}"),
                )
            })
            .chain([Diagnostic::info(0, None, "a different note")])
            .collect();
        let capped = cap_repeated(flood);
        assert_eq!(capped.len(), MAX_OF_ONE_KIND + 2);
        assert_eq!(capped[MAX_OF_ONE_KIND].message, "a different note");
        assert_eq!(
            capped[MAX_OF_ONE_KIND + 1].message,
            "990 more like \"malformed JSON record skipped: …\" (lines 11 to 1000)"
        );
    }
}

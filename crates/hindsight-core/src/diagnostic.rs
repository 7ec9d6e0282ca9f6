//! Problems met while reading input: never fatal, always reported with where.

use crate::source::SourceId;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiagnosticLevel {
    Info,
    Warning,
    Error,
}

impl DiagnosticLevel {
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
    let mut start = 0;
    for newline in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        let line = &bytes[start..newline];
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
        start = newline + 1;
    }
    // In line order, as a reader meets them.
    diagnostics.sort_by_key(|d| d.line);
    diagnostics
}

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
    let mut diagnostics = Vec::new();
    let mut nul_reported = false;
    let mut long_reported = false;
    for (number, (_, line)) in crate::source::lines_with_offsets(text).enumerate() {
        let line_number = u32::try_from(number + 1).unwrap_or(u32::MAX);
        if !nul_reported && line.contains('\0') {
            nul_reported = true;
            diagnostics.push(Diagnostic::warning(
                source,
                Some(line_number),
                "NUL bytes: this looks like binary data; it was read as text",
            ));
        }
        if !long_reported && line.len() > LONG_LINE {
            long_reported = true;
            diagnostics.push(Diagnostic::warning(
                source,
                Some(line_number),
                format!(
                    "line is {} bytes long; only its first {} KiB were examined",
                    line.len(),
                    LONG_LINE / 1024
                ),
            ));
        }
        if nul_reported && long_reported {
            break;
        }
    }
    diagnostics
}

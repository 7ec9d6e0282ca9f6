//! Shared help for whole-document JSON formats (OpenHands, SWE-agent, Gemini
//! CLI): they are not line-oriented, so an event's span is found by locating its
//! JSON-escaped text in the document, moving forward as events go.

use serde_json::Value;

use super::Parsed;
use crate::diagnostic::Diagnostic;
use crate::source::Span;

/// Finds successive JSON values in a document to give events real spans.
pub(super) struct Locator<'t> {
    text: &'t str,
    source: usize,
    cursor: usize,
    /// Where searching stops (the end of the text, or of one record).
    end: usize,
}

impl<'t> Locator<'t> {
    pub(super) fn new(text: &'t str, source: usize) -> Self {
        Self {
            text,
            source,
            cursor: 0,
            end: text.len(),
        }
    }

    /// A locator that searches only `start..end` of the text: one record of
    /// a document whose records' places are known.
    pub(super) fn within(text: &'t str, source: usize, start: usize, end: usize) -> Self {
        let end = end.min(text.len());
        Self {
            text,
            source,
            cursor: start.min(end),
            end,
        }
    }

    /// The span of `value` as a JSON string literal at or after the cursor,
    /// or an empty span at the cursor when it cannot be found (text written
    /// with other escapes). Never moves backwards.
    pub(super) fn string(&mut self, value: &str) -> Span {
        let span = self.find(value);
        self.cursor = self.cursor.max(span.end);
        span
    }

    /// Like [`Locator::string`], without moving: for values of one event
    /// whose order in the text is not known.
    pub(super) fn find(&self, value: &str) -> Span {
        let needle = serde_json::to_string(value).unwrap_or_default();
        match self
            .text
            .get(self.cursor..self.end)
            .and_then(|rest| rest.find(&needle))
        {
            Some(at) => {
                let start = self.cursor + at;
                Span::new(self.source, start, start + needle.len())
            }
            None => Span::new(self.source, self.cursor, self.cursor),
        }
    }

    /// Moves to `offset` (a line of a JSON Lines text), never backwards.
    pub(super) fn skip_to_offset(&mut self, offset: usize) {
        self.cursor = self.cursor.max(offset.min(self.text.len()));
    }

    /// An empty span where the search has got to.
    pub(super) fn here(&self) -> Span {
        Span::new(self.source, self.cursor, self.cursor)
    }

    /// Moves past the next occurrence of `marker` (a key such as `"id": 12`).
    pub(super) fn skip_to(&mut self, marker: &str) {
        if let Some(at) = self
            .text
            .get(self.cursor..self.end)
            .and_then(|rest| rest.find(marker))
        {
            self.cursor += at;
        }
    }
}

/// Reads a whole JSON document, or says in a diagnostic why it could not.
pub(super) fn document(text: &str, source: usize, parsed: &mut Parsed) -> Option<Value> {
    match serde_json::from_str(text) {
        Ok(document) => Some(document),
        Err(error) => {
            parsed.diagnostics.push(Diagnostic::warning(
                source,
                u32::try_from(error.line()).ok(),
                format!("not valid JSON, so nothing was read from this trajectory: {error}"),
            ));
            None
        }
    }
}

//! Characters that change what a reader sees without being seen: bidi
//! controls (a `U+202E` makes `rm -rf /tmp/x` display reversed), zero-width
//! spaces and joiners, a byte-order mark inside a line, and control codes
//! other than tab and newline (an escape sequence can retitle or clear the
//! terminal that prints a report). Renderers show each as a visible marker,
//! `⟨U+202E⟩`, so a report never hides what a command really was, and the
//! report warns about commands that hold them ([`hidden_in`]).

use std::borrow::Cow;

/// Whether a character is one that hides or reorders text.
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{FEFF}'
            | '\u{0080}'..='\u{009F}'
            | '\u{007F}'
    ) || (c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r'))
}

/// The hidden characters of a text, each once, in order of first use.
pub fn hidden_in(text: &str) -> Vec<char> {
    let mut found: Vec<char> = Vec::new();
    for c in text.chars().filter(|&c| is_hidden(c)) {
        if !found.contains(&c) {
            found.push(c);
        }
    }
    found
}

/// `text` with every hidden character shown as `⟨U+XXXX⟩`. With `keep_sgr`,
/// the colour codes `ESC[…m` stay (the text renderer colours its own
/// output); any other escape is shown.
pub fn visible(text: &str, keep_sgr: bool) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if keep_sgr
            && c == '\u{1b}'
            && let Some(len) = sgr_len(rest)
        {
            out.push_str(&rest[..len]);
            rest = &rest[len..];
            continue;
        }
        if is_hidden(c) {
            out.push_str(&format!("\u{27e8}U+{:04X}\u{27e9}", u32::from(c)));
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of a colour code (`ESC[` digits and `;`, then `m`) at the
/// start of `text`.
fn sgr_len(text: &str) -> Option<usize> {
    let body = text.strip_prefix("\u{1b}[")?;
    let digits = body
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (body.as_bytes().get(digits) == Some(&b'm')).then_some(2 + digits + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_shown() {
        let command = "rm -rf /tmp/\u{202E}txt.exe\u{200B} && echo ok";
        assert_eq!(
            visible(command, false),
            "rm -rf /tmp/\u{27e8}U+202E\u{27e9}txt.exe\u{27e8}U+200B\u{27e9} && echo ok"
        );
        assert_eq!(hidden_in(command), ['\u{202E}', '\u{200B}']);
        assert!(matches!(
            visible("plain text\tand tabs\n", false),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn colour_codes_stay_only_when_asked() {
        let text = "\u{1b}[1mbold\u{1b}[0m \u{1b}]0;title\u{7}";
        assert_eq!(
            visible(text, true),
            "\u{1b}[1mbold\u{1b}[0m \u{27e8}U+001B\u{27e9}]0;title\u{27e8}U+0007\u{27e9}"
        );
        assert!(!visible(text, false).contains('\u{1b}'));
    }
}

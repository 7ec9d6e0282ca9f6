//! The small words every face writes the same way: a three-way fact as
//! `yes`, `no` or `unknown`, a count's plural ending, a line cut short.

/// A three-way fact: shown, shown failing, or not shown either way.
pub fn tri_state(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    }
}

/// The ending of a regular plural: `""` for one, `"s"` otherwise.
pub fn plural_s(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The text on one line, cut to `max` characters with an ellipsis.
pub fn shorten(text: &str, max: usize) -> String {
    let flat = text.replace('\n', " ");
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(
            [
                tri_state(Some(true)),
                tri_state(Some(false)),
                tri_state(None)
            ],
            ["yes", "no", "unknown"]
        );
        assert_eq!((plural_s(1), plural_s(0), plural_s(2)), ("", "s", "s"));
    }
}

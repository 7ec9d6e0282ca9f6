//! Rule documentation rendered from the declarations: the one source for
//! `hindsight explain`, `docs/rules.md` and the web page.

use super::{ALL, Rule};

/// One rule's documentation as Markdown.
pub fn markdown(rule: &Rule) -> String {
    format!(
        "# {id}: {title}\n\nSeverity: {severity}\n\n## Why\n\n{why}\n\n## Example\n\n{example}\n\n## How to check\n\n{check}\n",
        id = rule.id,
        title = rule.title,
        severity = rule.severity.name(),
        why = rule.why,
        example = rule.example,
        check = rule.check,
    )
}

/// The reference page of every rule (`docs/rules.md`).
pub fn reference() -> String {
    let mut out = String::from(
        "<!-- Generated from crates/hindsight-core/src/rules by `hindsight-tests`; do not edit. -->\n\n# Rules\n\n| id | severity | title |\n|---|---|---|\n",
    );
    for rule in ALL {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} |\n",
            rule.id,
            rule.id,
            rule.severity.name(),
            rule.title
        ));
    }
    for rule in ALL {
        out.push('\n');
        out.push_str(
            &markdown(rule)
                .replacen("# ", "## ", 1)
                .replace("\n## ", "\n### "),
        );
    }
    out
}

//! Prints how hindsight scores on the real-material corpus (`corpus/`):
//! every miss of every item, then detection, server-fact and checkpoint
//! accuracy and findings recall and precision.
//!
//!     cargo run -p hindsight-tests --bin corpus-score [ITEM-SUBSTRING]
//!
//! With a substring, only the items whose path under `corpus/` holds it are
//! analyzed, and the figures are theirs alone.

#![forbid(unsafe_code)]
// A command-line tool: printing is its job.
#![allow(clippy::print_stdout)]

use std::path::Path;

fn main() {
    let filter = std::env::args().nth(1);
    // `@FILE`: the items named in FILE, one per line (a batch scored blind).
    let filters: Vec<String> = match filter.as_deref().and_then(|f| f.strip_prefix('@')) {
        Some(file) => std::fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().trim_start_matches("corpus/").to_owned())
            .filter(|l| !l.is_empty())
            .collect(),
        None => filter.iter().cloned().collect(),
    };
    let corpus_dir = hindsight_tests::root().join("corpus");
    // Matched under `corpus/`: the checkout's own path may hold any word.
    let wanted = |item: &Path| {
        let name = item
            .strip_prefix(&corpus_dir)
            .unwrap_or(item)
            .display()
            .to_string();
        filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()))
    };
    let mut corpus = hindsight_tests::corpus::score_all(|files| {
        if files.first().and_then(|p| p.parent()).is_some_and(wanted) {
            hindsight_tests::cli_report(files)
        } else {
            serde_json::Value::Null
        }
    });
    if !filters.is_empty() {
        corpus.items.retain(|item| wanted(&item.path));
        corpus.total = hindsight_tests::corpus::Score::default();
        for item in &corpus.items {
            corpus.total.merge(&item.score);
        }
    }
    print!("{}", corpus.details());
}

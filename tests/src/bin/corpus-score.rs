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
    let corpus_dir = hindsight_tests::root().join("corpus");
    // Matched under `corpus/`: the checkout's own path may hold any word.
    let wanted = |item: &Path| {
        filter.as_deref().is_none_or(|f| {
            item.strip_prefix(&corpus_dir)
                .unwrap_or(item)
                .display()
                .to_string()
                .contains(f)
        })
    };
    let mut corpus = hindsight_tests::corpus::score_all(|files| {
        if files.first().and_then(|p| p.parent()).is_some_and(wanted) {
            hindsight_tests::cli_report(files)
        } else {
            serde_json::Value::Null
        }
    });
    if filter.is_some() {
        corpus.items.retain(|item| wanted(&item.path));
        corpus.total = hindsight_tests::corpus::Score::default();
        for item in &corpus.items {
            corpus.total.merge(&item.score);
        }
    }
    print!("{}", corpus.details());
}

//! Prints how hindsight scores on the real-material corpus (`corpus/`):
//! every miss of every item, then detection, server-fact and checkpoint
//! accuracy and findings recall and precision.
//!
//!     cargo run -p hindsight-tests --bin corpus-score [ITEM-SUBSTRING]

#![allow(clippy::print_stdout)]

fn main() {
    let filter = std::env::args().nth(1);
    let corpus = hindsight_tests::corpus::score_all(|files| {
        let wanted = filter.as_deref().is_none_or(|f| {
            files
                .first()
                .is_some_and(|p| p.display().to_string().contains(f))
        });
        if wanted {
            hindsight_tests::cli_report(files)
        } else {
            serde_json::Value::Null
        }
    });
    print!("{}", corpus.details());
}

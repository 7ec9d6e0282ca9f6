//! The texts of `examples/`, for unit tests that hold a fast path equal to
//! the plain one on every realistic input we have. Only tests read files:
//! the library itself does no I/O.

/// Every example file that is text: its file name and its contents.
#[allow(clippy::disallowed_methods)]
pub(crate) fn texts() -> Vec<(String, String)> {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut texts = Vec::new();
    let Ok(cases) = std::fs::read_dir(examples) else {
        return texts;
    };
    for case in cases.flatten() {
        let Ok(files) = std::fs::read_dir(case.path()) else {
            continue;
        };
        for file in files.flatten() {
            let path = file.path();
            if let Ok(text) = std::fs::read_to_string(&path) {
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("")
                    .to_owned();
                texts.push((name, text));
            }
        }
    }
    texts
}

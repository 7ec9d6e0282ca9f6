//! Replays what the fuzzer found (`fuzz/corpus/<target>/`, minimized) and
//! every crash it ever reported (`fuzz/regressions/<target>/`) through the
//! same target bodies (`hindsight_cli::fuzzing`, and the page's
//! `hindsight_web::fuzzing`), on stable, so nothing
//! found ever comes back. The fuzzing itself is `scripts/fuzz.sh`
//! (nightly); this test is fast.

use std::path::Path;

/// Every target: the CLI's and the page's.
fn targets() -> impl Iterator<Item = &'static (&'static str, fn(&[u8]))> {
    hindsight_cli::fuzzing::TARGETS
        .iter()
        .chain(hindsight_web::fuzzing::TARGETS)
}

fn inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            Some((p.display().to_string(), bytes))
        })
        .collect()
}

#[test]
fn every_saved_fuzz_input_runs_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut total = 0;
    for (name, body) in targets() {
        // A target the fuzz crate does not build would never be fuzzed.
        assert!(
            root.join("fuzz_targets")
                .join(format!("{name}.rs"))
                .is_file(),
            "no fuzz/fuzz_targets/{name}.rs"
        );
        for kind in ["corpus", "regressions"] {
            for (path, bytes) in inputs(&root.join(kind).join(name)) {
                // A panic names the file, so it can be run alone.
                let outcome = std::panic::catch_unwind(|| body(&bytes));
                assert!(outcome.is_ok(), "fuzz input {path} panicked");
                total += 1;
            }
        }
    }
    assert!(total > 0, "no fuzz corpus found under {}", root.display());
}

/// The regressions folder holds inputs that once crashed a target: each
/// must have one (this test fails if the folder structure drifts from the
/// target list, so a regression is never silently skipped).
#[test]
fn regression_folders_match_the_targets() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let Ok(entries) = std::fs::read_dir(&root) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            targets().any(|(t, _)| *t == name),
            "fuzz/regressions/{name} is no fuzz target"
        );
    }
}

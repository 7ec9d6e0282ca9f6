//! The bodies of the page's fuzz targets (`fuzz/fuzz_targets/share_link.rs`
//! and `saved_state.rs`): the two ways text nobody on the page typed
//! reaches it. A share link can come from anyone, and `localStorage` can
//! hold what an older or damaged page wrote. As with the CLI's targets
//! (`hindsight_cli::fuzzing`), the stable test `tests/tests/fuzz_corpus.rs`
//! replays every saved input through these same functions.
//!
//! Each takes raw bytes, must not panic, and asserts the round trips the
//! page relies on, so the fuzzer reports a broken one as a crash.

use crate::protocol;
use crate::saved::Saved;
use crate::share::{self, PREFIX};

/// A target's body: bytes in, a panic on a bug.
pub type Target = fn(&[u8]);

/// The targets by name, as `fuzz/fuzz_targets/<name>.rs` runs them.
pub const TARGETS: &[(&str, Target)] = &[("share_link", share_link), ("saved_state", saved_state)];

/// Sources larger than this are decoded but not analyzed: a small deflated
/// link can inflate to megabytes, and the fuzzer is here for the decoders
/// (whole analysis has its own target).
const ANALYZE_AT_MOST: usize = 1 << 16;

/// A share link: the bytes as a fragment's payload (what a hand-edited or
/// cut-off link gives), and the bytes deflated into a link as the page makes
/// one (so the JSON decoder sees arbitrary text, which random base64 would
/// almost never reach). What a link decodes to is loaded as the page loads
/// it; encoding it again must give a link that decodes to the same inputs.
pub fn share_link(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Some(Ok(shared)) = share::decode(&format!("{PREFIX}{text}")) {
        load_shared(&shared);
    }
    // Text that happens to start with the prefix is read as a link too.
    let _ = share::decode(&text);

    let Ok(fragment) = deflated_link(data) else {
        return;
    };
    match share::decode(&fragment) {
        None => panic!("a fragment the page made is not a share link"),
        Some(Err(e)) => assert!(
            !e.contains("base64") && !e.contains("inflate"),
            "the page cannot read back its own encoding: {e}"
        ),
        Some(Ok(shared)) => load_shared(&shared),
    }
}

/// What the page does with a decoded link, plus the re-sharing round trip:
/// the credentials were redacted once, so sharing again changes nothing.
fn load_shared(shared: &share::Shared) {
    let inputs = shared.inputs();
    analyze_if_small(&shared.config, &inputs.to_sources());
    let Ok(json) = share::payload(&inputs, &shared.config) else {
        return;
    };
    let Ok(fragment) = deflated_link(&json) else {
        return;
    };
    let again = share::decode(&fragment)
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("a link the page made from a link does not decode"));
    assert_eq!(
        again.config, shared.config,
        "the rules changed on re-sharing"
    );
    let Ok(json2) = share::payload(&again.inputs(), &again.config) else {
        panic!("a re-shared link has nothing to share");
    };
    assert_eq!(
        json, json2,
        "sharing a shared link again changed it (redaction is not idempotent)"
    );
}

/// Saved state: the bytes as the stored JSON document (the page reads
/// anything unreadable as nothing stored), then the page's round trip: what
/// it restores, saved and restored again, is the same inputs, rules and
/// view.
pub fn saved_state(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(saved) = Saved::parse(&text) else {
        return;
    };
    let _ = saved.dropped();
    let inputs = saved.inputs();
    let sources = inputs.to_sources();
    analyze_if_small(&saved.config, &sources);
    let stored = Saved::of(&inputs, &saved.config, &saved.view);
    let json = serde_json::to_string(&stored).unwrap_or_default();
    let restored = Saved::parse(&json)
        .unwrap_or_else(|| panic!("the page cannot read what it stored: {json:.200}"));
    assert_eq!(restored, stored, "saved state changed on a round trip");
    if stored.dropped().is_empty() {
        assert_eq!(restored.inputs().to_sources(), sources);
    }
}

/// A link as the page makes one from these bytes (the browser deflates
/// them; miniz_oxide stands in for it here).
fn deflated_link(bytes: &[u8]) -> Result<String, share::ShareError> {
    share::fragment(&miniz_oxide::deflate::compress_to_vec(bytes, 1))
}

/// The analysis the page runs on loaded sources, when they are small enough
/// (see [`ANALYZE_AT_MOST`]).
fn analyze_if_small(config: &hindsight_core::Config, sources: &[hindsight_core::Source]) {
    if sources.iter().map(|s| s.text.len()).sum::<usize>() <= ANALYZE_AT_MOST {
        let _ = protocol::run(0, config, sources);
    }
}

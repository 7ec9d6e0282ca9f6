//! Share links without a server: the inputs and rule configuration, with
//! every credential redacted, deflated and base64url-encoded into the URL
//! fragment (`#share=…`). The browser deflates ([`crate::browser::deflate_raw`],
//! its `CompressionStream`), which keeps a deflate encoder out of the page;
//! the page inflates (miniz_oxide), so a link opens before anything async
//! has run. Browsers never send the fragment to a server, so
//! the session only travels where the link is pasted.
//!
//! Links longer than [`MAX_FRAGMENT`] characters are refused with the size,
//! rather than produced and then cut off by a chat client or a browser.

use hindsight_core::{Config, Source};
use serde::{Deserialize, Serialize};

use crate::model::Inputs;
use crate::saved::SavedSource;

/// Where a share link's payload starts.
pub const PREFIX: &str = "#share=";

/// The longest fragment produced: about what chat tools and browsers keep
/// whole in a link.
pub const MAX_FRAGMENT: usize = 64 * 1024;

/// What a link carries.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Shared {
    pub sources: Vec<SavedSource>,
    pub config: Config,
}

impl Shared {
    /// The inputs to load.
    pub fn inputs(&self) -> Inputs {
        crate::saved::to_inputs(&self.sources)
    }
}

/// Why no link was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShareError {
    /// Nothing to share.
    Empty,
    /// The fragment would be this many characters.
    TooLarge(usize),
}

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShareError::Empty => f.write_str("There is nothing to share: add a source first."),
            ShareError::TooLarge(n) => write!(
                f,
                "This session does not fit in a link: compressed it is {} KB, and a link holds at most {} KB. Export the report instead, or share the files.",
                n.div_ceil(1024),
                MAX_FRAGMENT / 1024
            ),
        }
    }
}

/// What a link carries for these inputs, as JSON, credentials redacted:
/// deflate it (raw) and hand it to [`fragment`].
pub fn payload(inputs: &Inputs, config: &Config) -> Result<Vec<u8>, ShareError> {
    let sources = inputs.to_sources();
    if sources.is_empty() {
        return Err(ShareError::Empty);
    }
    // The core's scan and redaction, to a text that scans clean (see
    // `redact_fully`): what a link carries must hold no credential.
    let secrets = hindsight_core::secrets::scan(&sources.iter().collect::<Vec<&Source>>());
    let shared = Shared {
        sources: sources
            .iter()
            .map(|s: &Source| SavedSource {
                name: s.name.clone(),
                format: s.format.map(|f| f.name().to_owned()),
                text: Some(hindsight_core::secrets::redact_fully(
                    s.text.clone(),
                    &secrets,
                )),
            })
            .collect(),
        config: config.clone(),
    };
    Ok(serde_json::to_vec(&shared).unwrap_or_default())
}

/// The fragment (with [`PREFIX`]) carrying a [`payload`] deflated (raw, no
/// zlib header).
pub fn fragment(packed: &[u8]) -> Result<String, ShareError> {
    let fragment = format!("{PREFIX}{}", base64url_encode(packed));
    if fragment.len() > MAX_FRAGMENT {
        return Err(ShareError::TooLarge(fragment.len()));
    }
    Ok(fragment)
}

/// The inputs a fragment carries; `None` when it is no share link, an error
/// when it is a damaged one.
pub fn decode(fragment: &str) -> Option<Result<Shared, String>> {
    let payload = fragment.strip_prefix(PREFIX)?;
    Some((|| {
        let packed = base64url_decode(payload).ok_or("the link is damaged (not base64url)")?;
        // Cap the inflated size: a crafted link must not exhaust memory.
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, 256 << 20)
            .map_err(|_| "the link is damaged (cannot inflate)".to_owned())?;
        serde_json::from_slice(&json).map_err(|e| format!("the link is damaged ({e})"))
    })())
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding (RFC 4648 §5).
fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let digit = |c: u8| ALPHABET.iter().position(|&a| a == c).map(|p| p as u32);
    let text = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.chunks(4) {
        if chunk.len() == 1 {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= digit(c)? << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i) & 255) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fragment as the page makes it, with miniz_oxide deflating in the
    /// browser's place (the component tests use the browser's).
    fn encode(inputs: &Inputs, config: &Config) -> Result<String, ShareError> {
        let json = payload(inputs, config)?;
        fragment(&miniz_oxide::deflate::compress_to_vec(&json, 6))
    }

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..20 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 250) as u8).collect();
            let text = base64url_encode(&bytes);
            assert!(!text.contains(['+', '/', '=']));
            assert_eq!(base64url_decode(&text), Some(bytes));
        }
        assert_eq!(base64url_encode(b"hi?"), "aGk_");
        assert_eq!(base64url_decode("a"), None);
        assert_eq!(base64url_decode("a*bc"), None);
    }

    #[test]
    fn the_seed_fits_in_a_link_and_comes_back() {
        let inputs = crate::seed::inputs();
        let mut config = Config::default();
        crate::model::set_rule_enabled(&mut config, "port-unchecked", false);
        let fragment = encode(&inputs, &config).unwrap_or_default();
        assert!(fragment.starts_with(PREFIX));
        assert!(fragment.len() < MAX_FRAGMENT);
        let shared = decode(&fragment).and_then(Result::ok).unwrap_or_default();
        assert_eq!(shared.config, config);
        assert_eq!(shared.inputs().to_sources(), inputs.to_sources());
    }

    #[test]
    fn secrets_never_reach_the_link() {
        let token = "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let inputs =
            Inputs::with_sources([("t.txt", format!("$ export HF_TOKEN={token}\n").as_str())]);
        let fragment = encode(&inputs, &Config::default()).unwrap_or_default();
        let shared = decode(&fragment).and_then(Result::ok).unwrap_or_default();
        let text = shared.sources[0].text.clone().unwrap_or_default();
        assert!(!text.contains(token), "{text}");
        assert!(text.contains("[redacted]"));
    }

    #[test]
    fn too_large_empty_and_damaged_links_say_so() {
        // Incompressible text: a simple generator's digits.
        let mut x: u64 = 1;
        let noise: String = (0..200_000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                char::from(b'a' + (x >> 59) as u8 % 26)
            })
            .collect();
        let inputs = Inputs::with_sources([("big.log", noise.as_str())]);
        let error = encode(&inputs, &Config::default());
        assert!(matches!(error, Err(ShareError::TooLarge(n)) if n > MAX_FRAGMENT));
        assert!(
            error
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
                .contains("KB")
        );
        assert_eq!(
            encode(&Inputs::default(), &Config::default()),
            Err(ShareError::Empty)
        );
        assert_eq!(decode("#other"), None);
        assert!(matches!(decode("#share=!!!"), Some(Err(_))));
        assert!(matches!(decode("#share=AAAA"), Some(Err(_))));
    }
}

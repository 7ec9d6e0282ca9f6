//! The worker's reply in a compact binary form: postcard, a
//! non-self-describing serde format, private to the page and its worker,
//! which run the same wasm and so always agree on the types.
//!
//! Why not JSON: the page must decode a whole [`crate::protocol::Reply`], and
//! serde's JSON decoding of the report's types (field names matched per
//! struct, every struct also readable from an array, `deserialize_any` for
//! skipped values) was one of the largest parts of the page's wasm. In
//! postcard a struct is its fields in order, so only serde's sequence path
//! is compiled for it. The JSON the user exports is still made from the
//! report itself (`Report::to_json`). Formats that need to see the data to
//! know its type (`deserialize_any`, skipped fields) are not supported, and
//! the report has none.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// An encoding or decoding failure.
pub type Error = postcard::Error;

type Result<T> = std::result::Result<T, Error>;

/// `value` encoded.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    postcard::to_allocvec(value)
}

/// A value decoded from `bytes`, which must hold nothing else: bytes left
/// over mean the two ends disagree, so they are an error too.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    match postcard::take_from_bytes(bytes)? {
        (value, []) => Ok(value),
        _ => Err(postcard::Error::DeserializeBadEncoding),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    enum Shape {
        Dot,
        Tagged(String),
        Pair(i16, char),
        Box { width: f32, height: Option<u8> },
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Everything {
        flag: bool,
        small: i8,
        big: u64,
        negative: i64,
        ratio: f64,
        text: String,
        maybe: Option<Vec<u32>>,
        shapes: Vec<Shape>,
        map: BTreeMap<String, usize>,
        unit: (),
        tuple: (u16, String),
    }

    #[test]
    fn every_kind_of_value_round_trips() {
        let value = Everything {
            flag: true,
            small: -128,
            big: u64::MAX,
            negative: i64::MIN,
            ratio: -0.1,
            text: "héllo\u{1f600}".to_owned(),
            maybe: Some(vec![0, 127, 128, u32::MAX]),
            shapes: vec![
                Shape::Dot,
                Shape::Tagged("t".to_owned()),
                Shape::Pair(-300, 'ß'),
                Shape::Box {
                    width: 1.5,
                    height: None,
                },
            ],
            map: [("a".to_owned(), 1), ("b".to_owned(), usize::MAX)].into(),
            unit: (),
            tuple: (65535, String::new()),
        };
        let bytes = to_vec(&value).unwrap_or_else(|e| panic!("{e}"));
        let back: Everything = from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, value);
    }

    #[test]
    fn damaged_input_is_an_error_not_a_panic() {
        let bytes = to_vec(&vec!["abc".to_owned(); 3]).unwrap_or_default();
        for cut in 0..bytes.len() {
            assert!(from_slice::<Vec<String>>(&bytes[..cut]).is_err(), "{cut}");
        }
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(from_slice::<Vec<String>>(&extra).is_err());
        // A length far beyond the input.
        assert!(from_slice::<Vec<u8>>(&[0xff, 0xff, 0xff, 0xff, 0x0f]).is_err());
        assert!(from_slice::<Option<u8>>(&[1, 0x80, 0x02]).is_err());
    }
}

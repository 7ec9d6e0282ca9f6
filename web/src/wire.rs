//! The worker's reply in a compact binary form: a minimal, non-self-describing
//! serde format (like bincode), private to the page and its worker, which run
//! the same wasm and so always agree on the types.
//!
//! Why not JSON: the page must decode a whole [`crate::protocol::Reply`], and
//! serde's JSON decoding of the report's types (field names matched per
//! struct, every struct also readable from an array, `deserialize_any` for
//! skipped values) was one of the largest parts of the page's wasm. Here a
//! struct is its fields in order, so only serde's sequence path is compiled
//! for it. The JSON the user exports is still made from the report itself
//! (`Report::to_json`).
//!
//! Encoding: integers as LEB128 (signed ones zigzagged), floats as their
//! little-endian bytes, strings and byte strings as a length and the bytes,
//! `Option` as a 0 or 1 byte before the value, sequences and maps as a
//! length and the items, structs and tuples as their fields, enum variants
//! as their index and then their fields. Formats that need to see the data
//! to know its type (`deserialize_any`) are not supported, and the report
//! has none.

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};

/// An encoding or decoding failure, as text.
#[derive(Debug)]
pub(crate) struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

impl de::Error for Error {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Error(message.to_string())
    }
}

type Result<T> = std::result::Result<T, Error>;

/// `value` encoded.
pub(crate) fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
    let mut encoder = Encoder { out: Vec::new() };
    value.serialize(&mut encoder)?;
    Ok(encoder.out)
}

/// A value decoded from `bytes`, which must hold nothing else.
pub(crate) fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let mut decoder = Decoder { input: bytes };
    let value = T::deserialize(&mut decoder)?;
    if decoder.input.is_empty() {
        Ok(value)
    } else {
        Err(Error("bytes left over after the value".to_owned()))
    }
}

struct Encoder {
    out: Vec<u8>,
}

impl Encoder {
    fn unsigned(&mut self, mut n: u64) {
        while n >= 0x80 {
            // The low seven bits, and a flag that more follow.
            self.out.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
    }

    fn signed(&mut self, n: i64) {
        // Zigzag: small negative numbers stay short.
        self.unsigned(((n << 1) ^ (n >> 63)) as u64);
    }

    fn length(&mut self, len: Option<usize>) -> Result<()> {
        let len = len.ok_or_else(|| Error("a sequence of unknown length".to_owned()))?;
        self.unsigned(len as u64);
        Ok(())
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.unsigned(bytes.len() as u64);
        self.out.extend_from_slice(bytes);
    }
}

impl ser::Serializer for &mut Encoder {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(u8::from(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.signed(v.into());
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.signed(v.into());
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.signed(v.into());
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.signed(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.unsigned(v.into());
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.unsigned(v.into());
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.unsigned(v.into());
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.unsigned(v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.unsigned(u32::from(v).into());
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.bytes(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.bytes(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<()> {
        self.out.push(0);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        self.out.push(1);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
    ) -> Result<()> {
        self.unsigned(index.into());
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        value: &T,
    ) -> Result<()> {
        self.unsigned(index.into());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        self.length(len)?;
        Ok(self)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.unsigned(index.into());
        Ok(self)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        self.length(len)?;
        Ok(self)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self> {
        self.unsigned(index.into());
        Ok(self)
    }
}

impl ser::SerializeSeq for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeMap for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Encoder {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _key: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

struct Decoder<'de> {
    input: &'de [u8],
}

impl<'de> Decoder<'de> {
    fn take(&mut self, len: usize) -> Result<&'de [u8]> {
        if len > self.input.len() {
            return Err(Error("the reply ends early".to_owned()));
        }
        let (taken, rest) = self.input.split_at(len);
        self.input = rest;
        Ok(taken)
    }

    fn byte(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn unsigned(&mut self) -> Result<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            n |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(n);
            }
        }
        Err(Error("an integer too long".to_owned()))
    }

    fn signed(&mut self) -> Result<i64> {
        let n = self.unsigned()?;
        Ok((n >> 1) as i64 ^ -((n & 1) as i64))
    }

    fn length(&mut self) -> Result<usize> {
        usize::try_from(self.unsigned()?).map_err(|_| Error("a length too large".to_owned()))
    }

    fn bytes(&mut self) -> Result<&'de [u8]> {
        let len = self.length()?;
        self.take(len)
    }

    fn str(&mut self) -> Result<&'de str> {
        std::str::from_utf8(self.bytes()?)
            .map_err(|_| Error("a string that is not UTF-8".to_owned()))
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut array = [0; N];
        array.copy_from_slice(self.take(N)?);
        Ok(array)
    }
}

/// Reads a number of a type, checked into the type the visitor is told.
macro_rules! number {
    ($method:ident, $visit:ident, $read:ident, $ty:ty) => {
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            let n = self.$read()?;
            visitor
                .$visit(<$ty>::try_from(n).map_err(|_| Error("a number out of range".to_owned()))?)
        }
    };
}

impl<'de> de::Deserializer<'de> for &mut Decoder<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error(
            "the binary reply cannot be read without its type".to_owned(),
        ))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_bool(self.byte()? != 0)
    }

    number!(deserialize_i8, visit_i8, signed, i8);
    number!(deserialize_i16, visit_i16, signed, i16);
    number!(deserialize_i32, visit_i32, signed, i32);

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_i64(self.signed()?)
    }

    number!(deserialize_u8, visit_u8, unsigned, u8);
    number!(deserialize_u16, visit_u16, unsigned, u16);
    number!(deserialize_u32, visit_u32, unsigned, u32);

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_u64(self.unsigned()?)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f32(f32::from_le_bytes(self.array()?))
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_f64(f64::from_le_bytes(self.array()?))
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let code = u32::try_from(self.unsigned()?)
            .ok()
            .and_then(char::from_u32);
        visitor.visit_char(code.ok_or_else(|| Error("not a character".to_owned()))?)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.str()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(self.str()?)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_bytes(self.bytes()?)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_bytes(self.bytes()?)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.byte()? {
            0 => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let len = self.length()?;
        visitor.visit_seq(Items {
            decoder: self,
            left: len,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items {
            decoder: self,
            left: len,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(Items {
            decoder: self,
            left: len,
        })
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let len = self.length()?;
        visitor.visit_map(Items {
            decoder: self,
            left: len,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(Items {
            decoder: self,
            left: fields.len(),
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_enum(self)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error("the binary reply has no names".to_owned()))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error("the binary reply cannot skip a value".to_owned()))
    }

    fn is_human_readable(&self) -> bool {
        false
    }
}

/// The items of a sequence, tuple, struct or map, counted down.
struct Items<'a, 'de> {
    decoder: &'a mut Decoder<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.decoder).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        // Never more than the bytes left could hold: a damaged length must
        // not reserve gigabytes.
        Some(self.left.min(self.decoder.input.len()))
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.decoder).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.decoder)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left.min(self.decoder.input.len()))
    }
}

impl<'de> de::EnumAccess<'de> for &mut Decoder<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index = u32::try_from(self.unsigned()?)
            .map_err(|_| Error("a variant out of range".to_owned()))?;
        let variant = seed.deserialize(IntoDeserializer::<Error>::into_deserializer(index))?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Decoder<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(Items {
            decoder: self,
            left: len,
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_seq(Items {
            decoder: self,
            left: fields.len(),
        })
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

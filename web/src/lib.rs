//! The page's logic without a DOM: what the page holds ([`model`]), what the
//! worker and the page say to each other ([`protocol`], [`wire`]), what it
//! keeps across reloads ([`saved`]) and puts in share links ([`share`]), the
//! example it opens with ([`seed`]) and the words and numbers it shows
//! ([`present`]).
//!
//! A library apart from the page's binary (`main.rs`, the components and
//! the browser APIs) so that it builds and is tested natively, and so that
//! the fuzz targets in `fuzz/` can reach the decoders a stranger's share
//! link or a damaged `localStorage` feed: [`share::decode`] and
//! [`saved::Saved::parse`], through [`fuzzing`]. Nothing here uses Leptos or a browser API.

#![forbid(unsafe_code)]

pub mod fuzzing;
pub mod model;
pub mod present;
pub mod protocol;
pub mod saved;
pub mod seed;
pub mod share;
pub mod wire;

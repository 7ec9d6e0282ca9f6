//! Fuzz target `condense`: see [`hindsight_cli::fuzzing::condense`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::condense(data));

//! Fuzz target `detect_parse`: see [`hindsight_cli::fuzzing::detect_parse`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::detect_parse(data));

//! Fuzz target `analyze`: see [`hindsight_cli::fuzzing::analyze`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::analyze(data));

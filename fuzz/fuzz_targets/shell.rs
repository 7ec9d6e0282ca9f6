//! Fuzz target `shell`: see [`hindsight_cli::fuzzing::shell`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::shell(data));

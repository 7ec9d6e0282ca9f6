//! Fuzz target `config`: see [`hindsight_cli::fuzzing::config_file`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::config_file(data));

//! Fuzz target `hook`: see [`hindsight_cli::fuzzing::hook_event`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_cli::fuzzing::hook_event(data));

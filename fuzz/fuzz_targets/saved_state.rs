//! Fuzz target `saved_state`: see [`hindsight_web::fuzzing::saved_state`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_web::fuzzing::saved_state(data));

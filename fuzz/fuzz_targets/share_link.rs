//! Fuzz target `share_link`: see [`hindsight_web::fuzzing::share_link`].
#![no_main]
#![forbid(unsafe_code)]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hindsight_web::fuzzing::share_link(data));

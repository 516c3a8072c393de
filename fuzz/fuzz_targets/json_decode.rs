//! The `json_decode` property of `acp-fuzz-props` (see `fuzz/props/src/json_decode.rs`),
//! under libFuzzer. `cargo test` runs the same property on stable over the
//! seeds and generated inputs (`fuzz/props/tests/properties.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz_props::json_decode::check(data));

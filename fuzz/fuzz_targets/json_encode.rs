//! The `json_encode` property of `acp-fuzz-props` (see `fuzz/props/src/json_encode.rs`),
//! under libFuzzer. `cargo test` runs the same property on stable over the
//! seeds and generated inputs (`fuzz/props/tests/properties.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz_props::json_encode::check(data));

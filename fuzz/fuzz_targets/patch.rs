//! The `patch` property of `acp-fuzz-props` (see `fuzz/props/src/patch.rs`),
//! under libFuzzer. `cargo test` runs the same property on stable over the
//! seeds and generated inputs (`fuzz/props/tests/properties.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz_props::patch::check(data));

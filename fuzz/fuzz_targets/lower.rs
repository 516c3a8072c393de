//! The `lower` property of `acp-fuzz-props` (see `fuzz/props/src/lower.rs`),
//! under libFuzzer. `cargo test` runs the same property on stable over the
//! seeds and generated inputs (`fuzz/props/tests/properties.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz_props::lower::check(data));

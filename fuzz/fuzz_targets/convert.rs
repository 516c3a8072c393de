//! The `convert` property of `acp-fuzz-props` (see `fuzz/props/src/convert.rs`),
//! under libFuzzer. `cargo test` runs the same property on stable over the
//! seeds and generated inputs (`fuzz/props/tests/properties.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| acp_fuzz_props::convert::check(data));

//! Misuse of the derives (`AcpPatch`, `AcpDeserialize`, `AcpSerialize`,
//! `AcpEnum`, `AcpUnion`, `AcpDispatch`) is a compile error at the offending
//! span, with the message in `tests/ui/<case>.stderr`.

#[test]
fn misuse_is_a_compile_error_at_the_offending_span() {
    // trybuild's cargo builds the cases once, in a directory removed below:
    // no incremental caches (slower to write, and large). The only test of
    // this binary, so no other thread reads the environment meanwhile.
    std::env::set_var("CARGO_INCREMENTAL", "0");
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    // The cases are built when `t` drops; past a failure, its builds stay to be read.
    drop(t);
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tests/trybuild");
    let _ = std::fs::remove_dir_all(target);
}

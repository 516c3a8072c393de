//! What several of these test binaries share.

use std::path::PathBuf;

/// An example of `acp-bindings`: `cargo test --workspace` builds them into
/// `target/<profile>/examples/` before running any test.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>");
    let path = dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p acp-bindings --examples` (`cargo test --workspace` does)",
        path.display()
    );
    path
}

//! What several of these test modules share (`tests/tests/codegen.rs` takes
//! `npm.rs` too).

use std::path::{Path, PathBuf};

pub mod node;
pub mod npm;

/// An example of `acp-bindings`: `cargo test --workspace` builds them into
/// `target/<profile>/examples/` before running any test.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>");
    let path = dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p acp-bindings --features v2 --examples` (`cargo test --workspace` does)",
        path.display()
    );
    path
}

/// Broken JSON, one text per line: every prefix of every eighth v2 corpus
/// message, and each of them with one character replaced at every position
/// by each of seven characters (a comma, a quote, a backslash, brackets, a
/// letter, a control character). What the crate's reader says of each is what
/// the other packages' readers must say.
pub fn broken_lines(root: &Path) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let corpus = root.join("tests/corpus/v2");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")).step_by(8) {
        let case: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let chars: Vec<char> = serde_json::to_string(&case["input"]).unwrap().chars().collect();
        for end in 1..chars.len() {
            lines.push(chars[..end].iter().collect());
        }
        for i in 0..chars.len() {
            for replacement in [',', '"', '\\', ']', '}', 'x', '\u{1}'] {
                let mut broken = chars.clone();
                broken[i] = replacement;
                lines.push(broken.into_iter().collect());
            }
        }
    }
    lines.retain(|l| !l.trim().is_empty());
    lines
}

/// Who may use `ts/dist/` at a time: every test that runs the compiled
/// package holds a read guard, and a test that runs a script recompiling it
/// (`npm test` runs `tsc`, which rewrites each file in place) holds the write
/// guard, so that no test imports a module while `tsc` is half way through it.
static TS_DIST: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// `npm ci` (unless `ts/node_modules` already holds what the lock pins:
/// [`npm::installed_from_lock`]) and `npm run build` in `ts/`, once for every
/// test of the binary; the guard keeps `ts/dist/` from being recompiled while it is held.
#[must_use = "hold the guard while the test runs ts/dist/"]
pub fn ts_built(root: &Path) -> std::sync::RwLockReadGuard<'static, ()> {
    ts_build_once(root);
    TS_DIST.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// As [`ts_built`], for a test that recompiles `ts/dist/`: no other test
/// runs the package until the guard is dropped.
#[must_use = "hold the guard while the test recompiles ts/dist/"]
pub fn ts_rebuilding(root: &Path) -> std::sync::RwLockWriteGuard<'static, ()> {
    ts_build_once(root);
    TS_DIST.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn ts_build_once(root: &Path) {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let ts = root.join("ts");
        let run = |args: &[&str]| {
            let o = std::process::Command::new("npm")
                .args(args)
                .current_dir(&ts)
                .output()
                .unwrap_or_else(|e| panic!("npm runs (Node 20 and npm are needed for ts/): {e}"));
            assert!(
                o.status.success(),
                "`npm {}` in ts/ failed:\n{}\n{}",
                args.join(" "),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
        };
        if !npm::installed_from_lock(&ts) {
            run(&["ci", "--no-audit", "--no-fund"]);
        }
        run(&["run", "build"]);
    });
}

/// A directory of the system's temporary directory for one test's files,
/// removed when the test is done with it (kept when the test fails, to look at).
pub struct Scratch(PathBuf);

impl Scratch {
    /// `name` in the temporary directory, empty.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

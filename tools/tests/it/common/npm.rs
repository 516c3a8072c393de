//! Whether `npm ci` in `ts/` can be skipped. Shared by the tests of
//! `acp-tools` and `acp-tests` that need the TypeScript package installed.

use std::path::Path;

/// Whether `ts/node_modules` holds what `ts/package-lock.json` pins: npm's
/// own record of the tree it installed (`node_modules/.package-lock.json`,
/// which `npm ci` writes last) names the same packages, each at the same
/// version and integrity. `npm ci` would then delete the same files and
/// write them again (about 15 s); a lock changed since, a package missing
/// from the record or no record at all means it runs.
pub fn installed_from_lock(ts: &Path) -> bool {
    let read = |path: &Path| -> Option<serde_json::Map<String, serde_json::Value>> {
        let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        value.get("packages")?.as_object().cloned()
    };
    let (Some(lock), Some(installed)) =
        (read(&ts.join("package-lock.json")), read(&ts.join("node_modules/.package-lock.json")))
    else {
        return false;
    };
    // The lock's "" entry is the package itself, which is not installed.
    let pinned: Vec<_> = lock.iter().filter(|(path, _)| !path.is_empty()).collect();
    let same = |a: &serde_json::Value, b: &serde_json::Value| {
        a.get("version") == b.get("version") && a.get("integrity") == b.get("integrity")
    };
    pinned.len() == installed.len()
        && pinned.iter().all(|(path, pin)| installed.get(path.as_str()).is_some_and(|got| same(pin, got)))
        && pinned.iter().all(|(path, _)| ts.join(path).is_dir())
}

/// The check on a scratch copy of the lock and of npm's record (with an
/// empty directory for each package): true for the two as `npm ci` leaves
/// them, false when a pin changed, a package's directory or the record is
/// missing. (In each test binary that includes this file; it takes milliseconds.)
#[test]
fn npm_ci_is_skipped_only_for_the_tree_the_lock_pins() {
    let ts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ts");
    let lock: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ts.join("package-lock.json")).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("acp-npm-lock-{}-{}", env!("CARGO_CRATE_NAME"), std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let packages = lock["packages"].as_object().unwrap();
    for path in packages.keys().filter(|p| !p.is_empty()) {
        std::fs::create_dir_all(dir.join(path)).unwrap();
    }
    let write = |lock: &serde_json::Value, record: &serde_json::Value| {
        std::fs::write(dir.join("package-lock.json"), lock.to_string()).unwrap();
        let mut record = record.clone();
        record["packages"].as_object_mut().unwrap().remove("");
        std::fs::write(dir.join("node_modules/.package-lock.json"), record.to_string()).unwrap();
    };
    write(&lock, &lock);
    assert!(installed_from_lock(&dir), "the tree npm ci installs from the lock");
    let mut changed = lock.clone();
    let first = packages.keys().find(|p| !p.is_empty()).unwrap().clone();
    changed["packages"][&first]["integrity"] = "sha512-other".into();
    write(&changed, &lock);
    assert!(!installed_from_lock(&dir), "a pin changed since the install");
    write(&lock, &lock);
    std::fs::remove_dir(dir.join(&first)).unwrap();
    assert!(!installed_from_lock(&dir), "a package's directory is missing");
    std::fs::create_dir(dir.join(&first)).unwrap();
    std::fs::remove_file(dir.join("node_modules/.package-lock.json")).unwrap();
    assert!(!installed_from_lock(&dir), "no record of an install");
    let _ = std::fs::remove_dir_all(&dir);
}

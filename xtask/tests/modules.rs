//! No two modules of the project's crates import each other, directly or
//! around a loop.
//!
//! A module is a source file (`a/b.rs` or `a/b/mod.rs` is `a::b`). Module
//! `A` depends on module `B` when `A` names `B` by a path from `crate::`,
//! `super::` or `self::` (in a `use` or in code; a group `{x, y}` names each
//! member; the longest prefix that is a module counts). A module and the
//! files it is split into are one unit: a dependency between a module and
//! its own ancestor or descendant is not counted, and a file whose items its
//! parent re-exports whole (`pub use self::part::*;`) is a part of the
//! parent, so the parent's dependencies include the part's and a loop
//! through the part is the parent's. Test modules (`#[cfg(test)]` and after)
//! are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Every module of the crate whose sources are in `src`, by path, with its code.
fn modules(src: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, src, out);
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
            let Some(stem) = rel.strip_suffix(".rs") else { continue };
            let stem = stem.strip_suffix("/mod").unwrap_or(stem);
            let name = if stem == "lib" || stem == "main" { String::new() } else { stem.replace('/', "::") };
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code: String =
                code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
            out.insert(name, code);
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The module a path from module `at` names: its longest prefix that is one.
fn resolve(at: &str, segments: &[&str], modules: &BTreeMap<String, String>) -> Option<String> {
    let mut base: Vec<&str> = if at.is_empty() { Vec::new() } else { at.split("::").collect() };
    let mut i = 0;
    match segments.first() {
        Some(&"crate") => {
            base.clear();
            i = 1;
        }
        Some(&"self") => i = 1,
        Some(&"super") => {
            while segments.get(i) == Some(&"super") {
                base.pop();
                i += 1;
            }
        }
        _ => return None,
    }
    let rest = &segments[i..];
    let mut best = None;
    for n in 0..=rest.len() {
        let name = base.iter().chain(&rest[..n]).copied().collect::<Vec<_>>().join("::");
        if modules.contains_key(&name) {
            best = Some(name);
        }
    }
    best
}

/// The unit module `name` belongs to: itself, or the parent that re-exports
/// all of it (`pub use self::part::*;`), and that parent's unit.
fn unit(name: &str, modules: &BTreeMap<String, String>) -> String {
    let Some((parent, part)) = name.rsplit_once("::").or_else(|| (!name.is_empty()).then_some(("", name))) else {
        return String::new();
    };
    let code = modules.get(parent).map(String::as_str).unwrap_or_default();
    let glob = |prefix: &str| code.contains(&format!("{prefix}{part}::*;"));
    if glob("pub use self::") || glob("pub use ") || glob("pub(crate) use self::") {
        unit(parent, modules)
    } else {
        name.to_owned()
    }
}

/// Each unit's dependencies on units that are neither its ancestors nor its descendants ([`unit`]).
fn dependencies(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, deps) in module_dependencies(modules) {
        let from = unit(name, modules);
        let within =
            |inner: &str, outer: &str| outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"));
        let entry = out.entry(from.clone()).or_default();
        for d in deps {
            let to = unit(&d, modules);
            if !within(&from, &to) && !within(&to, &from) {
                entry.insert(to);
            }
        }
    }
    out
}

/// Each module's dependencies on modules that are neither its ancestors nor its descendants.
fn module_dependencies(modules: &BTreeMap<String, String>) -> BTreeMap<&str, BTreeSet<String>> {
    let path = regex_lite::Regex::new(r"\b(?:crate|super|self)(?:::(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}))*").unwrap();
    let segment = regex_lite::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}").unwrap();
    let related = |a: &str, b: &str| {
        let within =
            |inner: &str, outer: &str| outer.is_empty() || inner == outer || inner.starts_with(&format!("{outer}::"));
        within(a, b) || within(b, a)
    };
    let mut out: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in modules {
        let deps = out.entry(name.as_str()).or_default();
        for m in path.find_iter(code) {
            let mut segments: Vec<&str> = Vec::new();
            let mut named = Vec::new();
            for s in segment.find_iter(m.as_str()).map(|s| s.as_str()) {
                if let Some(group) = s.strip_prefix('{') {
                    for member in
                        group.trim_end_matches('}').split(',').map(|x| x.split("::").next().unwrap_or("").trim())
                    {
                        named.push([segments.clone(), vec![member]].concat());
                    }
                    break;
                }
                segments.push(s);
            }
            named.push(segments);
            for n in &named {
                if let Some(dep) = resolve(name, n, modules) {
                    if !related(name, &dep) {
                        deps.insert(dep);
                    }
                }
            }
        }
    }
    out
}

/// A loop of dependencies, if there is one.
fn a_loop(deps: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            return Some(path[i..].iter().cloned().chain([at.to_owned()]).collect());
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in deps.get(at).into_iter().flatten() {
            if let Some(found) = visit(next, deps, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    deps.keys().find_map(|m| visit(m, deps, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_modules_import_each_other() {
    let root = root();
    let mut loops = Vec::new();
    for src in ["xtask/src", "codegen/src", "macros/src", "runtime/src", "convert/src", "tools/src", "generated/src"] {
        let modules = modules(&root.join(src));
        assert!(!modules.is_empty(), "{src}: no modules");
        if let Some(found) = a_loop(&dependencies(&modules)) {
            loops.push(format!("{src}: {}", found.join(" -> ")));
        }
    }
    assert!(loops.is_empty(), "modules that import each other:\n{}", loops.join("\n"));
}

#[test]
fn the_check_finds_a_loop_through_a_group_and_leaves_a_module_and_its_parts_alone() {
    let modules: BTreeMap<String, String> = [
        ("", "mod a; mod b; mod c;"),
        ("a", "use crate::b::Thing;"),
        ("b", "use super::{c::Other, x};"),
        ("c", "fn f() { crate::a::g() }"),
        ("d", "use self::part::P;"),
        ("d::part", "use super::Q;"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let deps = dependencies(&modules);
    assert_eq!(a_loop(&deps), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert!(deps["d"].is_empty() && deps["d::part"].is_empty(), "{deps:?}");
    let mut without = modules.clone();
    without.insert("c".into(), "fn f() {}".into());
    assert_eq!(a_loop(&dependencies(&without)), None);
}

#[test]
fn a_loop_through_a_file_a_module_is_split_into_is_the_modules() {
    // `x` uses `y`, and `y` uses `x::part`, a file whose items `x` re-exports whole.
    let modules: BTreeMap<String, String> = [
        ("", "mod x; mod y;"),
        ("x", "mod part; pub use self::part::*;"),
        ("x::part", "use crate::y::Y;"),
        ("y", "use crate::x::Thing;"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    assert_eq!(a_loop(&dependencies(&modules)), Some(vec!["x".into(), "y".into(), "x".into()]));
    // A file the parent does not re-export whole is a module of its own.
    let mut own = modules.clone();
    own.insert("x".into(), "pub mod part;".into());
    assert_eq!(a_loop(&dependencies(&own)), None);
}

/// The workspace's member directories, from the root manifest's `members`.
fn members() -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.starts_with("members = [")).expect("a members line");
    line.split('"').skip(1).step_by(2).map(|m| root().join(m)).collect()
}

/// A library's modules: the `.rs` files under `dir` (its `src`), but the
/// binaries' (`src/main.rs`, `src/bin/`).
fn library_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let binary = dir.ends_with("src") && (name == "bin" || name == "main.rs");
        if path.is_dir() && !binary {
            library_sources(&path, out);
        } else if name.ends_with(".rs") && !binary {
            out.push(path);
        }
    }
}

/// What `cargo test` would have run in a file: a test (`#[test]`,
/// `#[cfg(test)]`), or a doctest (a code block in a doc comment that rustdoc
/// compiles, or docs included from a file), with its line.
fn runnable(text: &str, doctests: bool) -> Option<(usize, String)> {
    // Inside a doc comment's code block (its closing fence is no opening one).
    let mut in_block = false;
    text.lines().enumerate().find_map(|(i, line)| {
        let l = line.trim();
        let found = if doctests {
            let doc = l.strip_prefix("///").or_else(|| l.strip_prefix("//!")).map(str::trim_start);
            let opened = match doc.and_then(|d| d.strip_prefix("```")) {
                Some(_) if in_block => {
                    in_block = false;
                    None
                }
                Some(info) => {
                    in_block = true;
                    Some(info.trim())
                }
                None => None,
            };
            let rust_block = opened.is_some_and(|info| {
                info.is_empty()
                    || info.split(',').map(str::trim).any(|w| {
                        matches!(w, "rust" | "ignore" | "no_run" | "should_panic" | "compile_fail")
                            || w.starts_with("edition")
                    })
            });
            rust_block || l.contains("doc = include_str!")
        } else {
            l.starts_with("#[test]") || l.starts_with("#[cfg(test)]")
        };
        found.then(|| (i + 1, l.to_owned()))
    })
}

/// A target a member's manifest keeps out of `cargo test` (`test = false`,
/// `doctest = false`, set where there was nothing to run, to save its build)
/// still has nothing to run: a test added there later would silently never run.
#[test]
fn a_target_cargo_test_skips_has_nothing_it_would_run() {
    let mut skipped = 0;
    for member in members() {
        let manifest = std::fs::read_to_string(member.join("Cargo.toml")).unwrap();
        for table in manifest.split("\n[").skip(1) {
            let (header, body) = table.split_once('\n').unwrap_or((table, ""));
            let value = |key: &str| {
                body.lines().take_while(|l| !l.starts_with('[')).find_map(|l| {
                    l.strip_prefix(key)?.trim_start().strip_prefix('=').map(|v| v.trim().trim_matches('"'))
                })
            };
            let library = header == "lib]";
            if !library && header != "[bin]]" {
                continue;
            }
            let files = match value("path") {
                Some(path) if !library => vec![member.join(path)],
                _ => {
                    let mut out = Vec::new();
                    library_sources(&member.join("src"), &mut out);
                    out
                }
            };
            for (key, doctests) in [("test", false), ("doctest", true)] {
                if value(key) != Some("false") {
                    continue;
                }
                skipped += 1;
                for file in &files {
                    let text = std::fs::read_to_string(file).unwrap();
                    if let Some((line, what)) = runnable(&text, doctests) {
                        panic!(
                            "{}:{line}: `{what}`, but {} sets `{key} = false` for this target: cargo test would not run it",
                            file.display(),
                            member.join("Cargo.toml").display()
                        );
                    }
                }
            }
        }
    }
    assert!(skipped >= 10, "the manifests' `test = false` and `doctest = false` were not found ({skipped})");
}

#[test]
fn the_skip_check_finds_a_test_and_a_code_block() {
    assert_eq!(runnable("fn a() {}\n#[cfg(test)]\nmod tests {}\n", false).map(|f| f.0), Some(2));
    assert_eq!(runnable("/// ```\n/// let a = 1;\n/// ```\n", false), None);
    assert_eq!(runnable("//! Text.\n//! ```\n", true).map(|f| f.0), Some(2));
    assert_eq!(runnable("/// ```rust,no_run\n", true).map(|f| f.0), Some(1));
    assert_eq!(runnable("#[doc = include_str!(\"../README.md\")]\n", true).map(|f| f.0), Some(1));
    assert_eq!(runnable("/// ```text\n/// a\n/// ```\n/// ```json\n", true), None);
}

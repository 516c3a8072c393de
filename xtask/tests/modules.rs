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

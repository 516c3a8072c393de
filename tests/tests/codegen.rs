//! The generator: fixture snapshots (IR, Rust and TypeScript), the fixture output compiled
//! and exercised, bad schemas, the lock check, all-or-nothing writes, drift.

use std::path::{Path, PathBuf};

use xtask::generate::{self, Layout};

// Every fixture's emitted Rust, compiled once in this binary.
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../generated/mod.rs"]
mod fixtures;

#[path = "../../tools/tests/it/common/npm.rs"]
mod npm;

#[path = "codegen/fixture_behaviour.rs"]
mod fixture_behaviour;

#[path = "codegen/model.rs"]
mod model;

#[path = "codegen/diff.rs"]
mod diff;

#[path = "codegen/diff_eval.rs"]
mod diff_eval;

#[path = "codegen/mutations.rs"]
mod mutations;

#[path = "codegen/serde_types.rs"]
mod serde_types;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// Runs `check` on each `*.json` file directly in `dir`, in name order, with
/// the snapshot names and metadata `insta::glob!` gives (the suffix
/// `@<file name>`, the file as the snapshot's input), without the glob
/// matcher (`insta`'s `glob` feature, whose `globset` and second `regex`
/// build every first test run compiled for these two tests).
fn each_json(dir: &Path, mut check: impl FnMut(&Path)) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no *.json file", dir.display());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({ snapshot_suffix => name, input_file => &path }, { check(&path) });
    }
}

#[test]
fn fixture_ir_and_rust_snapshots() {
    let root = root();
    each_json(&root.join("schema/fixtures"), |path| {
        let (module, rust) = generate::fixture(&root, path).expect("fixture generates");
        insta::assert_yaml_snapshot!("ir", module);
        insta::assert_snapshot!("rust", rust);
        // The TypeScript target's types of the same model.
        insta::assert_snapshot!("ts", xtask::ts::single(&module));
    });
}

#[test]
fn every_fixture_output_is_committed() {
    let root = root();
    let fixtures = generate::fixture_files(&root.join("schema/fixtures")).unwrap();
    assert!(fixtures.len() >= 7, "expected one fixture per shape, found {}", fixtures.len());
    for path in fixtures {
        let (_, rust) = generate::fixture(&root, &path).unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let committed = std::fs::read_to_string(root.join("tests/generated").join(format!("{stem}.rs"))).unwrap();
        assert_eq!(committed, rust, "tests/generated/{stem}.rs is stale: run `cargo xtask codegen`");
    }
}

#[test]
fn bad_schemas_are_errors_naming_file_and_pointer() {
    let root = root();
    let mut seen = 0;
    each_json(&root.join("schema/fixtures/bad"), |path| {
        let err = generate::fixture(&root, path).expect_err("a bad schema must not generate");
        let message = err.to_string();
        let rel = path.strip_prefix(&root).unwrap().display().to_string();
        // One line per problem, each naming the file.
        for line in message.lines() {
            assert!(line.starts_with(&rel), "error must name the file: {line}");
        }
        insta::assert_snapshot!(message);
        seen += 1;
    });
    assert!(seen >= 6);
}

/// A scratch copy of the vendored schema directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("acp-codegen-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for rel in xtask::lock::SCHEMA_FILES {
        let to = dir.join("schema").join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join("schema").join(rel), to).unwrap();
    }
    std::fs::copy(root().join("schema/acp-schema.lock"), dir.join("schema/acp-schema.lock")).unwrap();
    dir
}

fn layout(dir: &Path, locked: bool) -> Layout {
    Layout {
        messages: None,
        root: dir.to_path_buf(),
        schema_dir: dir.join("schema"),
        locked,
        upserts: xtask::load::UpsertFile::beside(&dir.join("schema")),
        out_dir: dir.join("out"),
        fixtures: None,
        convert: None,
        mode: xtask::lower::Mode::Strict,
        typescript: None,
        python: None,
        registry: None,
    }
}

#[test]
fn tampered_vendored_file_is_refused_by_name_and_nothing_is_written() {
    let dir = scratch("tamper");
    let file = dir.join("schema/v2/schema.json");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text = text.replacen("\"description\"", "\"description\" ", 1);
    std::fs::write(&file, text).unwrap();
    let err = generate::generate(&layout(&dir, true)).expect_err("tampered file must be refused");
    let message = err.to_string();
    assert!(message.contains("schema/v2/schema.json"), "{message}");
    assert!(message.contains("does not match"), "{message}");
    assert!(!dir.join("out").exists(), "nothing may be written");
    // The same directory generates when the lock is not checked (--schema/--out).
    let out = generate::generate(&layout(&dir, false)).expect("unlocked generation");
    generate::write_all(&out).unwrap();
    assert!(dir.join("out/v1/mod.rs").is_file() && dir.join("out/v2/mod.rs").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_schema_in_a_directory_writes_nothing() {
    let dir = scratch("bad");
    std::fs::copy(root().join("schema/fixtures/bad/dangling_ref.json"), dir.join("schema/v2/schema.unstable.json"))
        .unwrap();
    let err = generate::generate(&layout(&dir, false)).expect_err("dangling ref");
    assert!(err.to_string().contains("schema/v2/schema.unstable.json: #/$defs/Message"), "{err}");
    assert!(!dir.join("out").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unwritable_output_leaves_no_partial_files() {
    let dir = scratch("unwritable");
    let mut out = generate::generate(&layout(&dir, true)).unwrap();
    // The second target's directory is a file: its temporary cannot be created.
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/v2"), "not a directory").unwrap();
    out.files.sort();
    let err = generate::write_all(&out).expect_err("must fail");
    assert!(err.to_string().contains("out/v2/mod.rs"), "{err}");
    let leftovers: Vec<_> = walk(&dir.join("out"));
    assert_eq!(leftovers, vec![dir.join("out/v2")], "no file of the set may be written");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn committed_bindings_are_up_to_date() {
    let output = generate::generate(&Layout::repo(&root())).expect("vendored schema generates");
    let stale = generate::stale_files(&output);
    assert!(stale.is_empty(), "generated code is out of date, run `cargo xtask codegen`: {stale:?}");
    // What the v1 <-> v2 conversions are generated from: the counts and the
    // rule of every generated pair whose shapes differ (a spec update shows here).
    let c = output.convert.expect("both versions are vendored");
    let mut text = format!("{c}\n");
    text.extend(c.rules.iter().map(|r| format!("{r}\n")));
    insta::assert_snapshot!("conversion_pairs", text);
    let lines: Vec<String> = output.stats.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, defs) in lines.iter().zip(["178 + 252", "197 + 262"]) {
        assert!(line.contains(&format!("{defs} defs read")), "{line}");
    }
}

#[test]
fn every_def_becomes_an_item_of_the_same_name() {
    let root = root();
    for (version, names) in [("v1", acp_bindings::v1::TYPE_NAMES), ("v2", acp_bindings::v2::TYPE_NAMES)] {
        let unstable: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(format!("schema/{version}/schema.unstable.json"))).unwrap(),
        )
        .unwrap();
        let defs = unstable["$defs"].as_object().unwrap();
        let mut missing: Vec<&String> = defs.keys().filter(|k| !names.contains(&k.as_str())).collect();
        missing.sort();
        assert!(missing.is_empty(), "{version}: defs without an item: {missing:?}");
        assert_eq!(names.len(), defs.len(), "{version}");
        // The module's own items and those it includes from what the versions share.
        let text = ["mod.rs", "../shared/items.rs"]
            .map(|f| std::fs::read_to_string(root.join(format!("generated/src/{version}/{f}"))).unwrap())
            .concat();
        for name in defs.keys() {
            let declared = [
                format!("pub struct {name} "),
                format!("pub struct {name}("),
                format!("pub enum {name} "),
                format!("pub type {name} "),
                // An upsert: the wire type is derived from its state struct.
                format!("patch = \"{name}\","),
            ];
            assert!(declared.iter().any(|d| text.contains(d.as_str())), "{version}: no item named {name}");
        }
    }
}

fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walk(dir).into_iter().filter(|p| p.is_file()).map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

/// A write hook that fails at the `n`th step (1-based).
fn fail_at(n: usize) -> impl FnMut(&Path) -> std::io::Result<()> {
    let mut step = 0;
    move |_| {
        step += 1;
        if step == n {
            Err(std::io::Error::other("injected failure"))
        } else {
            Ok(())
        }
    }
}

#[test]
fn a_failure_while_replacing_files_restores_every_one() {
    let dir = scratch("rollback");
    let first = generate::generate(&layout(&dir, true)).unwrap();
    generate::write_all(&first).unwrap();
    let before = contents(&dir.join("out"));
    // Each version's `mod.rs` and its `schemas.rs`, and the two files of what they share.
    assert_eq!(before.len(), 6);
    // New texts for every file plus a new one; the last step (the new file) fails.
    let mut files: Vec<(PathBuf, Vec<u8>)> =
        first.files.iter().map(|(p, t)| (p.clone(), format!("{t}// changed\n").into_bytes())).collect();
    files.push((dir.join("out/v3/mod.rs"), b"// new\n".to_vec()));
    let err = xtask::write::write_all_with(&files, &[], &mut fail_at(files.len())).expect_err("the last step fails");
    assert!(err.to_string().contains("out/v3/mod.rs: cannot write: injected failure"), "{err}");
    assert_eq!(contents(&dir.join("out")), before, "every file restored, no temporary or backup left");
    assert!(!dir.join("out/v3").exists(), "a directory made for the failed write is removed");

    // Into a directory that did not exist: nothing at all is left.
    let fresh = dir.join("fresh");
    let files = vec![(fresh.join("a/x.rs"), b"x".to_vec()), (fresh.join("b/y.rs"), b"y".to_vec())];
    let err = xtask::write::write_all_with(&files, &[], &mut fail_at(2));
    assert!(err.is_err());
    assert!(!fresh.exists(), "{:?}", walk(&dir));

    // A stale file is only deleted together with a successful write.
    let stale = dir.join("out/v1/stale.rs");
    std::fs::write(&stale, "// stale").unwrap();
    let err = xtask::write::write_all_with(&files[..1], std::slice::from_ref(&stale), &mut |p| {
        if p == stale {
            Err(std::io::Error::other("injected failure"))
        } else {
            Ok(())
        }
    });
    assert!(err.is_err());
    assert!(stale.is_file() && !fresh.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The wire type of a generated upsert is declared in the source, where a
/// reader looks for it, with the schema's description and its fields; the
/// state struct says that it is the stored state, names the wire type, and
/// derives `AcpPatch` with `declared` (the derive writes the rest).
#[test]
fn upsert_wire_and_state_types_have_their_own_docs() {
    let text = std::fs::read_to_string(root().join("generated/src/v2/mod.rs")).unwrap();
    for (state, wire, schema_text, field) in [
        ("ToolCall", "ToolCallUpdate", "Represents an upsert for a tool call", "pub title: crate::Patch<String>,"),
        ("UserMessageState", "UserMessage", "A user message upsert.", "pub message_id: MessageId,"),
    ] {
        let item = |name: &str| {
            let at = text.find(&format!("pub struct {name} {{")).unwrap_or_else(|| panic!("no struct {name}"));
            let start = text[..at].rfind("\n}\n").map_or(0, |i| i + 3);
            let end = at + text[at..].find("\n}\n").unwrap();
            (&text[start..at], &text[at..end])
        };
        let (state_head, _) = item(state);
        assert!(
            state_head.contains(&format!("/// The stored state of an entity that [`{wire}`] patches")),
            "{state_head}"
        );
        assert!(state_head.contains("keep_unknown, declared"), "{state_head}");
        assert!(!state_head.contains(schema_text), "the state must not carry the wire text: {state_head}");
        let (wire_head, wire_body) = item(wire);
        assert!(wire_head.contains(&format!("/// {schema_text}")), "{wire_head}");
        assert!(wire_head.contains(&format!("/// The wire patch of [`{state}`]")), "{wire_head}");
        assert!(wire_body.contains(field), "{wire_body}");
        assert!(wire_body.contains("pub additional_properties: runtime::Extra,"), "{wire_body}");
    }
}

/// A payload whose unstable shape differs is dispatched with the shape of the
/// build: here the stable `x/ping` request requires `id` (omitted params are
/// refused), the unstable one requires nothing (omitted params are accepted).
#[test]
fn dispatch_follows_the_unstable_shape_of_a_changed_payload() {
    let schema = |required: &str| {
        serde_json::json!({"$defs": {"PingRequest": {
            "type": "object",
            "properties": {"id": {"type": "string"}},
            "required": serde_json::from_str::<serde_json::Value>(required).unwrap(),
            "x-method": "x/ping",
            "x-side": "agent"
        }}})
    };
    let stable = xtask::lower::lower(Path::new("stable.json"), &schema(r#"["id"]"#)).unwrap();
    let unstable = xtask::lower::lower(Path::new("unstable.json"), &schema("[]")).unwrap();
    let (items, registry) = generate::merge(&stable, &unstable);
    let text: String = items.iter().map(ToString::to_string).collect::<String>().replace(' ', "");
    // Each shape's variant states its own null mode for the dispatch derive
    // (`refuse`, the default, says nothing).
    let variant = |cfg: &str, rules: &str| {
        format!("#[cfg({cfg})]#[doc=\"`x/ping`:[`super::PingRequest`].\"]#[acp(method=\"x/ping\"{rules})]XPing(super::PingRequest)")
    };
    assert!(text.contains(&variant("not(feature=\"unstable\")", ",streams,from")), "{text}");
    assert!(text.contains(&variant("feature=\"unstable\"", ",null=\"empty\",streams,from")), "{text}");
    // The by-name registry and TYPE_NAMES name each shape under its own cfg.
    let registry = registry.to_string().replace(' ', "");
    assert!(registry.contains("#[cfg(feature=\"unstable\")]\"PingRequest\"=>"), "{registry}");
    assert!(registry.contains("#[cfg(not(feature=\"unstable\"))]\"PingRequest\"=>"), "{registry}");
}

#[test]
fn every_policy_entry_has_a_reason_and_names_something_the_vendored_schemas_have() {
    let policy = xtask::policy::policy();
    let r = root();
    let mut methods = Vec::new();
    // The unstable schemas hold every definition of the stable ones.
    for rel in ["v1/schema.unstable.json", "v2/schema.unstable.json"] {
        let m = xtask::load::module(&r, &r.join("schema"), rel, None).unwrap();
        for b in &policy.boxed_arms {
            assert!(!b.reason.trim().is_empty(), "schema/rust.json: boxed arm `{}` `{}` has no reason", b.union, b.arm);
            let def = m.defs.iter().find(|d| d.name == b.union).unwrap_or_else(|| panic!("{rel}: no `{}`", b.union));
            let xtask::model::Kind::Union(u) = &def.kind else { panic!("{rel}: `{}` is not a union", b.union) };
            assert!(
                u.variants.iter().any(|v| v.tag.as_deref() == Some(b.arm.as_str())),
                "{rel}: `{}` has no arm `{}` (schema/rust.json is stale)",
                b.union,
                b.arm
            );
        }
        methods.extend(m.defs.iter().filter_map(|d| d.method.as_ref().map(|m| m.name.clone())));
    }
    for d in &policy.direct_methods {
        assert!(!d.reason.trim().is_empty(), "schema/rust.json: direct method `{}` has no reason", d.method);
        assert!(methods.contains(&d.method), "schema/rust.json: no method `{}` in the vendored schemas", d.method);
    }
    // The reducer's items: named by the configuration, or re-exported from the runtime.
    let reducer = std::fs::read_to_string(r.join("schema/upserts.json")).unwrap();
    let runtime = std::fs::read_to_string(r.join("runtime/src/runtime/session.rs")).unwrap();
    for n in &policy.reserved_names {
        assert!(!n.reason.trim().is_empty(), "schema/rust.json: reserved name `{}` has no reason", n.name);
        let named = reducer.contains(&format!("\"{}\"", n.name)) || runtime.contains(&format!("pub struct {}", n.name));
        assert!(named, "neither the reducer configuration nor the runtime names `{}`", n.name);
    }
}

#[test]
fn an_upsert_reset_that_is_not_a_string_is_refused_not_emitted_empty() {
    let r = root();
    let mut m = xtask::load::module(&r, &r.join("schema"), "v2/schema.json", None).unwrap();
    let config: xtask::upserts::Config = serde_json::from_value(serde_json::json!({
        "ToolCallUpdate": {"state": "ToolCall", "key": "toolCallId", "fields": {"kind": {"reset": 1}}}
    }))
    .unwrap();
    let err = xtask::upserts::apply(&mut m, &config, std::path::Path::new("upserts.json"), true).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("#/v2/ToolCallUpdate/fields/kind"), "{text}");
    assert!(text.contains("`reset` 1 is not a string"), "{text}");
}

/// A version's unstable TypeScript module is its stable module's items
/// re-exported and only what differs written again: an item of another
/// shape, an item naming one (directly or further down), an added item; the
/// tables are the stable ones with the differing entries over them and
/// without a removed definition's. Written beside the fixtures for `tsc`.
fn unstable_module_is_a_difference(out: &Path) {
    let schema = |defs: serde_json::Value| {
        let file = if defs.get("Removed").is_some() { "pair.json" } else { "pair.unstable.json" };
        xtask::lower::lower(Path::new(file), &serde_json::json!({ "$defs": defs })).unwrap()
    };
    let leaf = serde_json::json!({ "type": "string", "enum": ["a", "b"] });
    let stable = schema(serde_json::json!({
        "Leaf": leaf,
        "Changed": { "type": "object", "properties": { "n": { "type": "integer", "format": "uint32" } } },
        "Parent": { "type": "object", "properties": { "child": { "$ref": "#/$defs/Changed" } } },
        "Grand": { "type": "object", "properties": { "parent": { "$ref": "#/$defs/Parent" } } },
        "Other": { "type": "object", "description": "Stable words.", "properties": { "leaf": { "$ref": "#/$defs/Leaf" } } },
        "Removed": { "type": "object", "properties": { "x": { "type": "string" } } },
    }));
    let unstable = schema(serde_json::json!({
        "Leaf": leaf,
        "Changed": { "type": "object", "properties": { "n": { "type": "string" } } },
        "Parent": { "type": "object", "properties": { "child": { "$ref": "#/$defs/Changed" } } },
        "Grand": { "type": "object", "properties": { "parent": { "$ref": "#/$defs/Parent" } } },
        "Other": { "type": "object", "description": "Unstable words.", "properties": { "leaf": { "$ref": "#/$defs/Leaf" } } },
        "Added": { "type": "object", "properties": { "other": { "$ref": "#/$defs/Other" } } },
    }));
    let plan = xtask::plan::Plan::version(&stable, &unstable);
    let payloads = plan.payloads();
    let s = xtask::ts::module(&plan, &stable, &payloads, None);
    let u = xtask::ts::unstable_module(&plan, &stable, &unstable, &payloads, "pair", None);
    // Equal but for their words: re-exported, the stable words with them.
    assert!(u.contains("import type { Leaf, Other } from \"./pair.js\";"), "{u}");
    assert!(u.contains("export type { Leaf, Other };"), "{u}");
    assert!(!u.contains("Unstable words") && s.contains("Stable words"), "{u}");
    // Of another shape, naming it, naming that, added: written here.
    for item in ["interface Changed", "interface Parent", "interface Grand", "interface Added"] {
        assert!(u.contains(item), "{item} is not written in the unstable module:\n{u}");
    }
    assert!(u.contains("n?: string"), "{u}");
    assert!(u.contains("...without(stable.shapes, [\"Removed\"]),"), "{u}");
    assert!(
        u.contains(
            "export interface Types extends Omit<stable.Types, \"Changed\" | \"Parent\" | \"Grand\" | \"Removed\">"
        ),
        "{u}"
    );
    // The stable table's entries that are the same are not repeated.
    assert!(!u.contains("Leaf: {"), "{u}");
    std::fs::write(out.join("pair.ts"), s).unwrap();
    std::fs::write(out.join("pair.unstable.ts"), u).unwrap();
}

/// The TypeScript package (`ts/`): installed from its lock (`npm ci`, unless
/// `ts/node_modules` already holds what the lock pins), then
/// `tsc --strict` over the generated modules, the runtime and the
/// type-level tests of `ts/test/types.ts` (which also check, with
/// `@ts-expect-error`, what the types refuse); and every fixture schema's
/// TypeScript, which must type-check too.
#[test]
fn typescript_package_type_checks_strictly() {
    let ts = root().join("ts");
    let npm = |args: &[&str]| {
        let out = std::process::Command::new("npm")
            .args(args)
            .current_dir(&ts)
            .output()
            .unwrap_or_else(|e| panic!("npm runs (Node 20 and npm are needed for the TypeScript package): {e}"));
        let log = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "`npm {}` in ts/ failed:\n{log}", args.join(" "));
    };
    if !npm::installed_from_lock(&ts) {
        npm(&["ci", "--no-audit", "--no-fund"]);
    }
    npm(&["run", "check"]);

    // Every fixture schema's TypeScript, beside the package's runtime, under
    // the package's compiler options.
    let root = root();
    let dir = root.join("target/ts-fixtures");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src/generated")).unwrap();
    // The hand-written runtime the generated modules import (not the entry
    // points, the reducer or the CLI, which import the package's own modules).
    for file in ["runtime.ts", "json.ts", "shape.ts", "decode.ts", "codec.ts", "words.ts", "generated/messages.ts"] {
        std::fs::copy(ts.join("src").join(file), dir.join("src").join(file)).unwrap();
    }
    for path in generate::fixture_files(&root.join("schema/fixtures")).unwrap() {
        let (module, _) = generate::fixture(&root, &path).unwrap();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        std::fs::write(dir.join(format!("src/generated/{stem}.ts")), xtask::ts::single(&module)).unwrap();
    }
    unstable_module_is_a_difference(&dir.join("src/generated"));
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ts.join("tsconfig.json")).unwrap()).unwrap();
    config["include"] = serde_json::json!(["src"]);
    std::fs::write(dir.join("tsconfig.json"), config.to_string()).unwrap();
    let out = std::process::Command::new(ts.join("node_modules/.bin/tsc"))
        .args(["-p", ".", "--noEmit"])
        .current_dir(&dir)
        .output()
        .expect("tsc runs");
    let log = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the fixtures' TypeScript does not type-check:\n{log}");
}

/// The output of `cargo xtask codegen --schema FILE --out DIR` for schemas
/// that are not ACP's (the fixtures) compiles and works in a crate that
/// depends on the runtime crate alone (`tests/own-schema`, outside the
/// workspace, built in `target/own-schema`, removed after): no ACP type is
/// needed, and the derives find the runtime through `#[acp(crate = "..")]`.
#[test]
fn own_schema_builds_on_the_runtime_alone() {
    let root = root();
    let mut seen = 0;
    for path in generate::fixture_files(&root.join("schema/fixtures")).unwrap() {
        let (_, text) = generate::single_file(&root, &path, xtask::lower::Mode::Strict).unwrap();
        let stem = generate::module_stem(&path);
        let committed = std::fs::read_to_string(root.join("tests/generated").join(format!("{stem}.rs"))).unwrap();
        assert!(text == committed, "`--schema {}` writes other text than tests/generated/{stem}.rs", path.display());
        assert!(!text.contains("::acp_bindings::"), "{stem}.rs names the bindings crate");
        seen += 1;
    }
    assert!(seen >= 10, "{seen} fixtures");
    let lock = std::fs::read_to_string(root.join("tests/own-schema/Cargo.lock")).unwrap();
    assert!(lock.contains("name = \"acp-bindings-runtime\""));
    assert!(!lock.contains("name = \"acp-bindings\"\n"), "the own-schema crate depends on ACP's types");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["test", "--quiet", "--locked", "--manifest-path"])
        .arg(root.join("tests/own-schema/Cargo.toml"))
        .arg("--target-dir")
        .arg(root.join("target/own-schema"))
        .env_remove("CARGO_TARGET_DIR")
        // A build made once and removed: no incremental caches (slower to write, and large).
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("cargo runs");
    let log = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the own-schema crate failed:\n{log}");
    assert!(log.contains("test result: ok. 3 passed"), "{log}");
    // Nothing else reads this build: its disk goes back (kept when it failed).
    let _ = std::fs::remove_dir_all(root.join("target/own-schema"));
}

/// The session reducer is configuration (`schema/upserts.json`, `reducer`)
/// checked against the schema: the vendored one resolves (an arm only the
/// unstable schema has is gated so), and each kind of mistake is refused
/// with a message that names the update and what does not fit.
#[test]
fn the_reducer_configuration_is_checked_against_the_schema() {
    use xtask::plan::reducer::Reducer;
    use xtask::upserts::UpdateConfig;
    let root = root();
    let dir = root.join("schema");
    let upserts = xtask::load::UpsertFile::beside(&dir);
    let stable = xtask::load::module_with(&root, &dir, "v2/schema.json", None, &upserts).unwrap();
    let unstable = xtask::load::module_with(&root, &dir, "v2/schema.unstable.json", None, &upserts).unwrap();
    let plan = xtask::plan::Plan::version(&stable, &unstable);
    let configs = xtask::upserts::read_reducers(&dir.join("upserts.json"), Path::new("schema/upserts.json")).unwrap();
    let good = &configs["v2"];
    let (r, warnings) = Reducer::of(good, &plan, true).unwrap();
    let r = r.unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(r.arms.len(), good.updates.len());
    let removed = r.arms.iter().find(|a| a.tag == "plan_removed").unwrap();
    assert_eq!(removed.gate, xtask::plan::Gate::Unstable);
    assert!(r.arms.iter().filter(|a| a.tag != "plan_removed").all(|a| a.gate == xtask::plan::Gate::Always));

    let refused = |change: &dyn Fn(&mut xtask::upserts::ReducerConfig), expected: &str| {
        let mut config = good.clone();
        change(&mut config);
        let errors = Reducer::of(&config, &plan, true).expect_err(expected).join("\n");
        assert!(errors.contains(expected), "expected {expected:?} in:\n{errors}");
        // A preview of another revision leaves it out, with a warning.
        let (lenient, warnings) = Reducer::of(&config, &plan, false).unwrap();
        assert!(warnings.join("\n").contains(expected), "{warnings:?}");
        if let Some(lenient) = lenient {
            assert!(lenient.arms.len() < config.updates.len(), "the update that does not fit is left out");
        }
    };
    refused(
        &|c| {
            c.updates.insert("no_such_update".into(), UpdateConfig::Upsert { into: "toolCalls".into(), kind: None });
        },
        "update `no_such_update`: `SessionUpdate` has no arm of that tag",
    );
    refused(
        &|c| {
            let chunk = c.updates.get_mut("compaction_summary_chunk").unwrap();
            if let UpdateConfig::Append { create, .. } = chunk {
                *create = true;
            }
        },
        "`CompactionUpdate` requires more than its key",
    );
    refused(
        &|c| {
            let chunk = c.updates.get_mut("tool_call_content_chunk").unwrap();
            if let UpdateConfig::Append { to, .. } = chunk {
                *to = "title".into();
            }
        },
        "`title` is no list",
    );
    refused(
        &|c| {
            c.updates.insert("usage_update".into(), UpdateConfig::Upsert { into: "toolCalls".into(), kind: None });
        },
        "its payload is `UsageUpdate`, not the upsert `ToolCallUpdate`",
    );
    refused(
        &|c| {
            c.updates.insert("user_message".into(), UpdateConfig::Upsert { into: "messages".into(), kind: None });
        },
        "`messages` holds kinds: say which with `kind`",
    );
    refused(&|c| c.union = "ToolCallUpdate".into(), "`union`: `ToolCallUpdate` is no tagged union");
}

/// `generated/src` holds what the generator writes (each file says so in its
/// first line) and the crate root: the hand-written runtime is its own crate
/// (`runtime/`), the conversions theirs (`convert/`), the session reducer
/// generated from its configuration.
#[test]
fn generated_src_holds_the_generators_output_and_the_crate_root() {
    let root = root();
    let mut hand_written = Vec::new();
    for path in walk(&root.join("generated/src")) {
        let text = std::fs::read_to_string(&path).unwrap();
        if !text.starts_with("// @generated by `cargo xtask codegen`") {
            hand_written.push((path.strip_prefix(&root).unwrap().display().to_string(), text.lines().count()));
        }
    }
    let files: Vec<&str> = hand_written.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(files, ["generated/src/lib.rs"], "hand-written files under generated/src");
    let lines: usize = hand_written.iter().map(|(_, n)| n).sum();
    assert!(lines <= 300, "{lines} hand-written lines under generated/src");
}

/// What the version modules have word for word is written once: no item of
/// `v1/mod.rs` prints the same as an item of `v2/mod.rs` (at the top level or
/// inside `rpc`), and each module includes the shared files where those items
/// stood, so each version keeps items of its own.
#[test]
fn version_modules_include_what_they_share_instead_of_repeating_it() {
    let read = |rel: &str| std::fs::read_to_string(root().join("generated/src").join(rel)).unwrap();
    fn texts(items: &[syn::Item], inside: &str, out: &mut Vec<(String, String)>) {
        for item in items {
            match item {
                syn::Item::Mod(m) if m.content.is_some() => {
                    texts(&m.content.as_ref().unwrap().1, &m.ident.to_string(), out);
                }
                syn::Item::Use(_) | syn::Item::Mod(_) => {}
                syn::Item::Macro(m) if m.mac.path.is_ident("include") => {}
                _ => out.push((inside.to_owned(), quote::ToTokens::to_token_stream(item).to_string())),
            }
        }
    }
    let mut per_version = Vec::new();
    for v in ["v1", "v2"] {
        let text = read(&format!("{v}/mod.rs"));
        assert!(text.contains("include!(\"../shared/items.rs\");"), "{v} includes the shared items");
        assert!(text.contains("include!(\"../shared/rpc.rs\");"), "{v}::rpc includes the shared rpc items");
        let mut items = Vec::new();
        texts(&syn::parse_file(&text).unwrap().items, "", &mut items);
        per_version.push(items);
    }
    let repeated: Vec<&(String, String)> = per_version[0].iter().filter(|i| per_version[1].contains(i)).collect();
    assert!(repeated.is_empty(), "{} items repeated, the first: {:?}", repeated.len(), repeated.first());
    // The shared files hold items of both kinds and parse as items.
    for f in ["shared/items.rs", "shared/rpc.rs"] {
        let file = syn::parse_file(&read(f)).unwrap();
        assert!(file.items.len() > 10, "{f}: {} items", file.items.len());
    }
    let shared = syn::parse_file(&read("shared/items.rs")).unwrap();
    assert!(
        shared.items.iter().any(|i| matches!(i, syn::Item::Struct(s) if s.ident == "ToolCallId")),
        "`ToolCallId` is the same in v1 and v2"
    );
}

/// The generated TypeScript stays small: the unstable modules are
/// differences from the stable ones, shared members are written once.
#[test]
fn generated_typescript_stays_within_its_line_budget() {
    let dir = root().join("ts/src/generated");
    let lines: usize = ["v1.ts", "v1.unstable.ts", "v2.ts", "v2.unstable.ts"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap().lines().count())
        .sum();
    assert!(lines <= 16_000, "{lines} lines of generated TypeScript for v1 and v2 (at most 16,000)");
}

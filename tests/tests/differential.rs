//! Differential test against the official hand-written crate
//! `agent-client-protocol-schema` 1.15.1 (features `unstable`,
//! `unstable_protocol_v2`): wherever both accept a message, both must re-encode
//! it to the same JSON, except for named classes of difference, which are
//! counted and snapshotted.

use serde_json::Value;

macro_rules! official {
    ($f:ident, $v:ident, [$($t:ident),* $(,)?]) => {
        /// Decodes with the official type of the same name and re-encodes.
        fn $f(type_name: &str, text: &str) -> Option<Result<Value, String>> {
            fn go<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> Result<Value, String> {
                let v: T = serde_json::from_str(text).map_err(|e| e.to_string())?;
                serde_json::to_value(v).map_err(|e| e.to_string())
            }
            Some(match type_name {
                $( stringify!($t) => go::<agent_client_protocol_schema::$v::$t>(text), )*
                _ => return None,
            })
        }
    };
}

include!("differential/pairs.rs");

use std::collections::BTreeMap;
use std::path::Path;

type Reencode = fn(&str, &str) -> Option<Result<Value, String>>;

fn ours_v1(t: &str, text: &str) -> Option<Result<Value, String>> {
    acp_tools::registry::v1::reencode(t, text).map(|r| r.map_err(|e| e.to_string()))
}

fn ours_v2(t: &str, text: &str) -> Option<Result<Value, String>> {
    acp_tools::registry::v2::reencode(t, text).map(|r| r.map_err(|e| e.to_string()))
}

/// Every property name the vendored schemas give anywhere (fields, catch-all
/// fields and union discriminators), to tell unknown properties apart.
fn schema_names() -> &'static std::collections::BTreeSet<String> {
    static NAMES: std::sync::OnceLock<std::collections::BTreeSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
        let mut out = std::collections::BTreeSet::new();
        for rel in ["v1/schema.unstable.json", "v2/schema.unstable.json"] {
            let m = xtask::load::module(&root, &root.join("schema"), rel, None).expect("the vendored schema lowers");
            for d in m.defs.iter().flat_map(|d| d.walk()) {
                match &d.kind {
                    xtask::model::Kind::Struct(s) => out.extend(s.fields.iter().map(|f| f.name.clone())),
                    xtask::model::Kind::Union(u) => {
                        out.extend(u.tag.iter().map(|t| t.property.clone()));
                        if let Some(c) = &u.catch_all {
                            out.extend(c.fields.iter().map(|f| f.name.clone()));
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    })
}

/// Names the kind of each difference between our and the official re-encoding.
fn classify(input: &Value, ours: &Value, theirs: &Value, counts: &mut BTreeMap<String, usize>) {
    for p in acp_tools::diff::differences(ours, theirs) {
        let (i, o, f) = (input.pointer(&p), ours.pointer(&p), theirs.pointer(&p));
        let class = match (i, o, f) {
            (Some(Value::Null), Some(Value::Null), None) => "official drops an explicit null",
            (Some(_), Some(_), None) if i == o && !schema_names().contains(last(&p)) => {
                "official drops a property the schema does not name (ours keeps it)"
            }
            (Some(_), Some(_), None) if i == o => "official drops a field the input carried",
            (None, None, Some(v)) if is_default(v) => "official writes a default the input did not carry",
            (None, None, Some(_)) => "official writes a field the input did not carry",
            (Some(Value::Null), None, Some(v)) if is_default(v) => {
                "default-on-null: official writes the default, ours omits"
            }
            (Some(_), None, Some(_)) if i == f => "ours drops a field the official crate keeps",
            (Some(_), None, Some(v)) if is_default(v) => "default-on-error: official writes the default, ours omits",
            (Some(Value::Number(n)), Some(_), Some(Value::Number(m)))
                if i == o && (n.is_i64() || n.is_u64()) && m.is_f64() =>
            {
                "official rewrites an integer in a `number` field as a decimal (50 -> 50.0)"
            }
            (Some(_), Some(_), Some(_)) if i == o => "official changes a value",
            (Some(_), Some(_), Some(_)) if i == f => "ours changes a value",
            _ => "UNCLASSIFIED",
        };
        *counts.entry(class.to_owned()).or_default() += 1;
        eprintln!("{class} at {p}: input {i:?}, ours {o:?}, official {f:?}");
    }
}

fn is_default(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty() || o.values().all(is_default),
        Value::Null => true,
        _ => false,
    }
}

/// Runs one (type, text) through both crates and tallies the outcome.
fn compare(type_name: &str, text: &str, ours: Reencode, theirs: Reencode, counts: &mut BTreeMap<String, usize>) {
    let (Some(o), Some(f)) = (ours(type_name, text), theirs(type_name, text)) else {
        eprintln!("type {type_name} missing in one crate");
        *counts.entry("type missing in one crate".into()).or_default() += 1;
        return;
    };
    let input: Value = serde_json::from_str(text).expect("corpus input is JSON");
    let key = match (&o, &f) {
        (Ok(o), Ok(f)) if o == f => "both accept, same JSON",
        (Ok(o), Ok(f)) => {
            classify(&input, o, f, counts);
            "both accept, JSON differs (classified below)"
        }
        (Ok(_), Err(e)) => {
            eprintln!("only ours accepts {type_name} {text}: official says {e}");
            "only ours accepts"
        }
        (Err(e), Ok(_)) => {
            eprintln!("only the official crate accepts {type_name} {text}: ours says {e}");
            "only the official crate accepts"
        }
        (Err(_), Err(_)) => "both reject",
    };
    *counts.entry(key.to_owned()).or_default() += 1;
}

fn corpus(version: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(version);
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            (case["type"].as_str().unwrap().to_owned(), case["input"].to_string())
        })
        .collect()
}

#[test]
fn corpus_against_the_official_crate() {
    let mut counts = BTreeMap::new();
    for (version, ours, theirs) in [("v1", ours_v1 as Reencode, v1_official as Reencode), ("v2", ours_v2, v2_official)]
    {
        for (t, text) in corpus(version) {
            compare(&t, &text, ours, theirs, &mut counts);
        }
    }
    assert!(!counts.contains_key("UNCLASSIFIED"), "unclassified differences: {counts:#?}");
    insta::assert_yaml_snapshot!(counts);
}

#[path = "differential/instances.rs"]
mod instances;

/// Instances generated from the IR of each unstable schema, for every
/// definition both crates have, decoded by both.
#[test]
fn generated_instances_against_the_official_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf();
    let mut counts = BTreeMap::new();
    let mut ours_rejects = Vec::new();
    for (version, ours, theirs) in [("v1", ours_v1 as Reencode, v1_official as Reencode), ("v2", ours_v2, v2_official)]
    {
        // Lowered as codegen lowers it: lock-checked, with the upsert configuration.
        let lock = xtask::lock::Lock::read(&root.join("schema")).unwrap();
        let rel = format!("{version}/schema.unstable.json");
        let module = xtask::load::module(&root, &root.join("schema"), &rel, Some(&lock)).unwrap();
        let space = instances::Space::new(&module);
        // Envelopes pair a method with its params; random instances of them are
        // meaningless (the typed `rpc::Message` covers them).
        for (i, def) in module.defs.iter().enumerate().filter(|(_, d)| !d.envelope) {
            for seed in 0..8u64 {
                let mut rng = instances::Rng::new(seed * 1_000 + i as u64);
                let text = space.instance(&def.name, &mut rng, 0).to_string();
                if let Some(Err(e)) = ours(&def.name, &text) {
                    ours_rejects.push(format!("{version} {} {text}: {e}", def.name));
                }
                compare(&def.name, &text, ours, theirs, &mut counts);
            }
        }
    }
    assert!(ours_rejects.is_empty(), "valid generated instances rejected by our types:\n{}", ours_rejects.join("\n"));
    assert!(!counts.contains_key("UNCLASSIFIED"), "unclassified differences: {counts:#?}");
    insta::assert_yaml_snapshot!(counts);
}

#[test]
fn our_hot_types_are_no_larger_than_the_official_ones() {
    use agent_client_protocol_schema::v2 as official;
    use std::mem::size_of;
    let rows = [
        ("ToolCallUpdate", size_of::<acp_bindings::v2::ToolCallUpdate>(), size_of::<official::ToolCallUpdate>()),
        ("SessionUpdate", size_of::<acp_bindings::v2::SessionUpdate>(), size_of::<official::SessionUpdate>()),
    ];
    // The targets: at most 260 and 300 bytes (rare, large values are boxed:
    // `#[acp(boxed)]` patch fields, the boxed `ContentBlock` arms).
    let limits = [260, 300];
    for ((name, ours, theirs), limit) in rows.into_iter().zip(limits) {
        eprintln!("size_of v2::{name}: ours {ours} bytes, official {theirs} bytes");
        assert!(ours <= theirs, "v2::{name} is {ours} bytes, the official one {theirs}");
        assert!(ours <= limit, "v2::{name} is {ours} bytes, more than {limit}");
    }
}

/// The last segment of a JSON pointer, unescaped.
fn last(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or_default()
}

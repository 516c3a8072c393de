//! No schema makes the generator panic or hang: the vendored schemas,
//! mutated (members removed, types swapped, random subschemas and booleans
//! inserted, `$ref`s broken, reference cycles made), are lowered strictly and
//! leniently. Strict lowering gives a model or problems of one line each that
//! name the file; lenient lowering (the diff's) gives a model whenever the
//! root and `$defs` are objects; neither may take longer than a few seconds.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use xtask::lower::{lower_in, Mode};

fn vendored(rel: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema").join(rel);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// One change to a schema, applied at the `pick`-th node of a walk.
#[derive(Debug, Clone)]
enum Mutation {
    /// Remove one member of an object.
    Remove,
    /// Replace `type` with another (or a list of types).
    SwapType(Value),
    /// Replace a subschema with this one (a boolean, `{}`, a fragment).
    Insert(Value),
    /// Point a `$ref` at a definition that does not exist, or elsewhere.
    BreakRef(String),
    /// Make definition A an alias of B and B an alias of A.
    Cycle,
}

fn subschema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(true)),
        Just(json!(false)),
        Just(json!({})),
        Just(json!({"type": "string", "const": "x"})),
        Just(json!({"type": "integer", "enum": [1, 2]})),
        Just(json!({"not": {"type": "object", "required": ["type"]}})),
        Just(json!({"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "string", "title": "other"}]})),
        Just(json!({"allOf": [{"$ref": "#/$defs/Missing"}, {"type": "object"}]})),
        Just(json!({"type": "object", "properties": {"type": {"const": 7}}, "required": ["type", "nope"]})),
        Just(json!({"type": "array"})),
        Just(json!({"$ref": 5})),
        Just(json!(null)),
        Just(json!([1, 2])),
        any::<i64>().prop_map(Value::from),
        "[a-z$/#]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|arms| json!({"anyOf": arms})),
            (inner.clone(), "[a-zA-Z_]{1,6}").prop_map(|(s, k)| json!({"type": "object", "properties": {k: s}})),
            inner.prop_map(|s| json!({"type": "array", "items": s})),
        ]
    })
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::Remove),
        prop_oneof![
            Just(json!("object")),
            Just(json!("string")),
            Just(json!("integer")),
            Just(json!("null")),
            Just(json!(["string", "integer"])),
            Just(json!("nonsense")),
            Just(json!(3)),
        ]
        .prop_map(Mutation::SwapType),
        subschema().prop_map(Mutation::Insert),
        prop_oneof![Just("#/$defs/Nowhere".to_owned()), Just("#/properties/x".to_owned()), Just("".to_owned())]
            .prop_map(Mutation::BreakRef),
        Just(Mutation::Cycle),
    ]
}

/// Every object node of `v` with its path (keys and indices), depth first.
fn objects(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            out.push(path.clone());
            for (k, c) in m {
                path.push(Value::from(k.as_str()));
                objects(c, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                path.push(Value::from(i));
                objects(c, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'v>(v: &'v mut Value, path: &[Value]) -> &'v mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Value::String(k) => &mut v[k.as_str()],
        Value::Number(i) => &mut v[i.as_u64().unwrap() as usize],
        _ => unreachable!(),
    })
}

fn apply(schema: &mut Value, m: &Mutation, pick: usize) {
    let mut nodes = Vec::new();
    objects(schema, &mut Vec::new(), &mut nodes);
    // Below `$defs` only, so that most mutations reach a definition.
    nodes.retain(|p| p.len() >= 2);
    let path = &nodes[pick % nodes.len()];
    let node = at(schema, path);
    match m {
        Mutation::Remove => {
            if let Some(o) = node.as_object_mut() {
                if let Some(k) = o.keys().nth(pick % o.len().max(1)).cloned() {
                    o.remove(&k);
                }
            }
        }
        Mutation::SwapType(t) => node["type"] = t.clone(),
        Mutation::Insert(s) => *node = s.clone(),
        Mutation::BreakRef(r) => node["$ref"] = Value::from(r.as_str()),
        Mutation::Cycle => {
            let defs: Vec<String> = schema["$defs"].as_object().unwrap().keys().cloned().collect();
            let (a, b) = (&defs[pick % defs.len()], &defs[(pick / 7 + 1) % defs.len()]);
            let d = schema["$defs"].as_object_mut().unwrap();
            d.insert(a.clone(), json!({"allOf": [{"$ref": format!("#/$defs/{b}")}]}));
            d.insert(b.clone(), json!({"type": "object", "properties": {"next": {"$ref": format!("#/$defs/{a}")}}}));
        }
    }
}

/// Lowers `schema` both ways on a thread of its own; a hang fails the test.
fn lower_both(schema: Value) -> Result<(), String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let file = Path::new("mutated.json");
        let strict = lower_in(file, &schema, None, Mode::Strict);
        let lenient = lower_in(file, &schema, None, Mode::Lenient);
        let _ = tx.send((schema, strict.map(|_| ()), lenient.map(|_| ())));
    });
    let (schema, strict, lenient) = match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Timeout) => return Err("lowering took over 20 s: a hang".into()),
        Err(mpsc::RecvTimeoutError::Disconnected) => return Err("lowering panicked".into()),
    };
    if let Err(e) = strict {
        for p in e.each() {
            let text = p.to_string();
            if text.contains('\n') || !text.starts_with("mutated.json") {
                return Err(format!("a problem that is not one line naming the file: {text:?}"));
            }
        }
    }
    let objects = schema.as_object().and_then(|r| r.get("$defs")).is_some_and(Value::is_object);
    match lenient {
        Err(e) if objects => Err(format!("lenient lowering refused a schema with a `$defs` object: {e}")),
        _ => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_schemas_lower_or_fail_in_one_line_never_panic_or_hang(
        file in prop_oneof![Just("v1/schema.json"), Just("v2/schema.json"), Just("v2/schema.unstable.json")],
        edits in prop::collection::vec((mutation(), any::<usize>()), 1..6),
    ) {
        let mut schema = vendored(file);
        for (m, pick) in &edits {
            apply(&mut schema, m, *pick);
        }
        if let Err(e) = lower_both(schema) {
            return Err(TestCaseError::fail(format!("{file} after {edits:?}: {e}")));
        }
    }
}

/// The mutations reach the lowering: most mutated schemas are refused by
/// strict lowering, and the lenient lowering keeps them as opaque definitions.
#[test]
fn mutations_make_definitions_the_generator_refuses() {
    let mut schema = vendored("v2/schema.json");
    let defs: &mut Map<String, Value> = schema["$defs"].as_object_mut().unwrap();
    defs.insert("Broken".into(), json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Nowhere"}}}));
    defs.insert("Free".into(), json!(true));
    let file = Path::new("mutated.json");
    assert!(lower_in(file, &schema, None, Mode::Strict).is_err());
    let m = lower_in(file, &schema, None, Mode::Lenient).unwrap();
    let opaque: Vec<&str> =
        m.defs.iter().filter(|d| matches!(d.kind, xtask::model::Kind::Opaque(_))).map(|d| d.name.as_str()).collect();
    assert!(opaque.contains(&"Broken"), "{opaque:?}");
    lower_both(schema).unwrap();
}

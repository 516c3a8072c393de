//! The session reducer's table.

use serde_json::{json, Map, Value};

/// The session reducer's table for one build (`unstable`): the union's
/// discriminator, the collections, the rule of each update the build has, and
/// the update that rebuilds an entity of each collection (`rebuild`, for compaction).
pub(super) fn reducer(r: &crate::plan::reducer::Reducer, unstable: bool) -> Vec<(String, Value)> {
    use crate::plan::reducer::{Held, Rule};
    let build = if unstable { crate::plan::Gate::Unstable } else { crate::plan::Gate::Stable };
    let collections: Vec<Value> = r
        .collections
        .iter()
        .map(|c| match &c.holds {
            Held::Upsert(u) => json!({ "name": c.name, "upsert": u.patch }),
            Held::Kinds { kinds, .. } => {
                let of: Map<String, Value> =
                    kinds.iter().map(|k| (k.0.clone(), Value::from(k.3.patch.clone()))).collect();
                json!({ "name": c.name, "kinds": of })
            }
            Held::Whole { key, .. } => json!({ "name": c.name, "whole": key }),
            Held::One(u) => json!({ "name": c.name, "one": u.patch }),
        })
        .collect();
    let updates: Map<String, Value> = r
        .arms_in(Some(build))
        .map(|a| {
            let into = &r.collections[a.into];
            let kind_tag = |k: &Option<usize>| match (&into.holds, k) {
                (Held::Kinds { kinds, .. }, Some(k)) => Value::from(kinds[*k].0.clone()),
                _ => Value::Null,
            };
            let mut v = match &a.rule {
                Rule::Upsert { kind } => json!({ "rule": "upsert", "into": into.name, "kind": kind_tag(kind) }),
                Rule::Append { kind, key, from, to, create, .. } => json!({
                    "rule": "append", "into": into.name, "kind": kind_tag(kind),
                    "key": key.wire, "from": from.wire, "to": to.wire, "create": create,
                }),
                Rule::AppendBase64 { key, from, to, create, .. } => json!({
                    "rule": "append_base64", "into": into.name,
                    "key": key.wire, "from": from.wire, "to": [to.0.wire, to.1.wire], "create": create,
                }),
                Rule::Put { from, .. } => json!({ "rule": "put", "into": into.name, "from": from.wire }),
                Rule::Remove { from } => json!({ "rule": "remove", "into": into.name, "from": from.wire }),
            };
            v.as_object_mut().expect("an object").retain(|_, x| !x.is_null());
            (a.tag.clone(), v)
        })
        .collect();
    let mut table = vec![
        ("tag".to_owned(), Value::from(r.tag.clone())),
        ("collections".to_owned(), Value::Array(collections)),
        ("updates".to_owned(), Value::Object(updates)),
    ];
    // Compaction's arm for each collection (by kind in a `kinds` one) that
    // an update of this build fills (the plan picks one in every such build).
    if let Some(rebuild) = &r.rebuild {
        let mut by: Map<String, Value> = Map::new();
        for b in rebuild.iter().filter(|b| r.arms[b.arm].gate.in_build(unstable)) {
            let c = &r.collections[b.collection];
            let tag = Value::from(r.arms[b.arm].tag.clone());
            match (&c.holds, b.kind) {
                (Held::Kinds { kinds, .. }, Some(k)) => {
                    let of = by.entry(c.name.clone()).or_insert_with(|| Value::Object(Map::new()));
                    of.as_object_mut().expect("an object").insert(kinds[k].0.clone(), tag);
                }
                _ => {
                    by.insert(c.name.clone(), tag);
                }
            }
        }
        table.push(("rebuild".to_owned(), Value::Object(by)));
    }
    table
}

//! The message families of a schema file: the arms of its root `anyOf` (and
//! theirs, by title: `Agent/Request`, `AgentBatchCall`). The definitions the
//! diff compares do not hold them; a family removed (JSON-RPC batches, say)
//! is a wire break no payload shows.

use serde_json::Value;

use super::{fingerprint, Change, Level, Rust, RustLevel, Side};

/// Every root arm by its title path, with its JSON pointer.
fn arms(schema: &Value) -> Vec<(String, String)> {
    fn walk(node: &Value, path: &str, pointer: &str, out: &mut Vec<(String, String)>) {
        let Some(list) = node.get("anyOf").and_then(Value::as_array) else { return };
        for (i, arm) in list.iter().enumerate() {
            let label = arm
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| {
                    let r = arm.get("$ref").or_else(|| arm.get("allOf")?.get(0)?.get("$ref"))?;
                    Some(r.as_str()?.rsplit('/').next()?.to_owned())
                })
                .unwrap_or_else(|| i.to_string());
            let (p, at) = (format!("{path}/{label}"), format!("{pointer}/anyOf/{i}"));
            out.push((p.clone(), at.clone()));
            walk(arm, &p, &at, out);
        }
    }
    let mut out = Vec::new();
    walk(schema, "", "", &mut out);
    out
}

/// Who sends a family, from its title (`Agent...`, `Client...`).
fn senders(path: &str) -> Vec<String> {
    let first = path.trim_start_matches('/');
    if first.starts_with("Agent") {
        vec!["old agents".into()]
    } else if first.starts_with("Client") {
        vec!["old clients".into()]
    } else {
        vec!["old agents".into(), "old clients".into()]
    }
}

/// The message families added and removed between two schema files.
pub(super) fn changes(old: &Value, new: &Value) -> Vec<Change> {
    let (a, b) = (arms(old), arms(new));
    let mut out = Vec::new();
    let has = |list: &[(String, String)], p: &str| list.iter().any(|(q, _)| q == p);
    // A family whose parent is added or removed with it is part of that change.
    let parent_kept = |p: &str, other: &[(String, String)]| p.rfind('/').is_none_or(|i| i == 0 || has(other, &p[..i]));
    let change = |kind: &'static str, p: &str, at: &str, side: Side, level: Level, reason: String, rust: Rust| Change {
        level,
        kind,
        def: p.trim_start_matches('/').to_owned(),
        member: String::new(),
        pointer: at.to_owned(),
        side,
        breaks: if level == Level::Compatible { Vec::new() } else { senders(p) },
        reason,
        rust,
        fingerprint: fingerprint(&[kind, p, "", level.as_str()]),
        area: "messages".into(),
        convert: None,
    };
    for (p, at) in a.iter().filter(|(p, _)| !has(&b, p) && parent_kept(p, &b)) {
        let name = p.trim_start_matches('/');
        out.push(change(
            "message_family_removed",
            p,
            at,
            Side::Old,
            Level::Breaking,
            format!("the message family `{name}` was removed from the root: readers on the new schema reject what peers on the old one send as it"),
            Rust { level: RustLevel::Breaking, items: Vec::new(), note: "the message types of the family are removed".into() },
        ));
    }
    for (p, at) in b.iter().filter(|(p, _)| !has(&a, p) && parent_kept(p, &a)) {
        let name = p.trim_start_matches('/');
        out.push(change(
            "message_family_added",
            p,
            at,
            Side::New,
            Level::Compatible,
            format!("the message family `{name}` was added to the root"),
            Rust { level: RustLevel::Additive, items: Vec::new(), note: "new message types".into() },
        ));
    }
    out
}

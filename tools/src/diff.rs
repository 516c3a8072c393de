//! JSON pointers at which two JSON values differ.

use acp_bindings::runtime::rpc::escape;
use serde_json::Value;

/// Every pointer where `a` and `b` differ (a member or item present in only
/// one of them is reported at its own pointer).
pub fn differences(a: &Value, b: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(a, b, &mut String::new(), &mut out);
    out
}

fn walk(a: &Value, b: &Value, at: &mut String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let len = at.len();
                at.push('/');
                at.push_str(&escape(k));
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => walk(p, q, at, out),
                    _ => out.push(at.clone()),
                }
                at.truncate(len);
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => walk(p, q, at, out),
                    _ => out.push(at.clone()),
                }
                at.truncate(len);
            }
        }
        _ if a == b => {}
        _ => out.push(if at.is_empty() { String::new() } else { at.clone() }),
    }
}

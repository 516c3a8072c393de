//! The properties the fuzz targets check, one module each, as plain
//! functions of the input bytes that panic on a failure: `cargo fuzz` (the
//! targets in `fuzz/fuzz_targets/`, nightly) runs them under libFuzzer for
//! long campaigns, and `cargo test` runs the same functions on stable over
//! every seed and a bounded number of generated inputs
//! (`tests/properties.rs`), so CI on any machine checks them.
//!
//! An input of the typed targets is a header line naming what to decode (for
//! example `v2 UpdateSessionNotification` or `v1 Message`) and the JSON text
//! after it. A header the target does not know is skipped. Seeds are written
//! in this form by `cargo xtask fuzz` from `tests/corpus` and `tests/traces`,
//! and the dictionary (`fuzz/acp.dict`) holds the headers, ACP keys and tags,
//! so mutations move between types and messages.

pub mod convert;
pub mod json_decode;
pub mod json_encode;
pub mod lower;
pub mod patch;
pub mod peer;
pub mod schema;

use serde_json::Value;

/// Splits an input into its header line and the text after it; `None` when
/// either is not UTF-8 or there is no header line.
pub fn header(data: &[u8]) -> Option<(&str, &str)> {
    let nl = data.iter().position(|&b| b == b'\n')?;
    let head = std::str::from_utf8(&data[..nl]).ok()?;
    let text = std::str::from_utf8(&data[nl + 1..]).ok()?;
    Some((head.trim_end_matches('\r'), text))
}

/// `serde_json`'s error text without its trailing position (`" at line L
/// column C"`), for comparing errors of texts whose columns differ.
pub fn without_position(message: &str) -> &str {
    match message.rfind(" at line ") {
        Some(i) => message.get(..i).unwrap_or(message),
        None => message,
    }
}

/// Inserts a member that no envelope has at the start of a JSON object's
/// text: the envelope reader that decodes in one pass refuses an unknown
/// member, so the copy takes the usual two-pass path. `None` when `line` is
/// not an object's text.
pub fn force_usual_path(line: &str) -> Option<String> {
    let start = line.find(|c: char| !matches!(c, ' ' | '\t' | '\n' | '\r'))?;
    if line.as_bytes()[start] != b'{' {
        return None;
    }
    let rest = &line[start + 1..];
    let empty = rest.trim_start_matches([' ', '\t', '\n', '\r']).starts_with('}');
    let member = if empty { r#""x-force-usual-path":0"# } else { r#""x-force-usual-path":0,"# };
    Some(format!("{}{{{member}{rest}", &line[..start]))
}

/// `true` when `text` is JSON with an object that names a member twice (at
/// any depth): text every decode path of the bindings must refuse. Written
/// apart from the bindings' own reading (`runtime::de::json`), so that the
/// property does not check the rule with itself.
pub fn has_duplicate_members(text: &str) -> bool {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Dup(bool);
    impl<'de> Deserialize<'de> for Dup {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Dup, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Dup;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Dup, A::Error> {
                    let mut seen = std::collections::HashSet::new();
                    let mut dup = false;
                    while let Some(key) = map.next_key::<String>()? {
                        dup |= !seen.insert(key);
                        dup |= map.next_value::<Dup>()?.0;
                    }
                    Ok(Dup(dup))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Dup, A::Error> {
                    let mut dup = false;
                    while let Some(d) = seq.next_element::<Dup>()? {
                        dup |= d.0;
                    }
                    Ok(Dup(dup))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
                fn visit_i64<E>(self, _: i64) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
                fn visit_u64<E>(self, _: u64) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
                fn visit_f64<E>(self, _: f64) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
                fn visit_str<E>(self, _: &str) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
                fn visit_unit<E>(self) -> Result<Dup, E> {
                    Ok(Dup(false))
                }
            }
            d.deserialize_any(V)
        }
    }
    serde_json::from_str::<Dup>(text).is_ok_and(|d| d.0)
}

/// Why a JSON-RPC message built by a peer is not valid JSON-RPC 2.0, or
/// `None` when it is: an object with `"jsonrpc": "2.0"` that is exactly one
/// of a request (`id`, `method`, optional `params`), a notification
/// (`method`, optional `params`), a result or an error response (`id` and one
/// of `result` or `error`, the error an object with an integer `code` and a
/// string `message`). Ids are strings, integers or `null` (the last only in
/// an error response); params are objects or arrays.
pub fn jsonrpc_problem(text: &str) -> Option<String> {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Some(format!("not JSON: {e}")),
    };
    let Some(m) = v.as_object() else { return Some("not an object".into()) };
    if m.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Some("`jsonrpc` is not \"2.0\"".into());
    }
    let id_ok = |id: &Value, null: bool| match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        Value::Null => null,
        _ => false,
    };
    let params_ok = || m.get("params").is_none_or(|p| p.is_object() || p.is_array());
    let allowed = |keys: &[&str]| m.keys().all(|k| keys.contains(&k.as_str()));
    match (m.get("method"), m.get("id"), m.get("result"), m.get("error")) {
        (Some(Value::String(_)), id, None, None) => {
            if id.is_some_and(|id| !id_ok(id, false)) {
                return Some("a request's id is not a string or an integer".into());
            }
            if !params_ok() {
                return Some("params are not an object or an array".into());
            }
            (!allowed(&["jsonrpc", "id", "method", "params"])).then(|| "a request with other members".into())
        }
        (None, Some(id), Some(_), None) => {
            if !id_ok(id, false) {
                return Some("a result's id is not a string or an integer".into());
            }
            (!allowed(&["jsonrpc", "id", "result"])).then(|| "a result with other members".into())
        }
        (None, Some(id), None, Some(error)) => {
            if !id_ok(id, true) {
                return Some("an error's id is not a string, an integer or null".into());
            }
            let Some(e) = error.as_object() else { return Some("`error` is not an object".into()) };
            if !e.get("code").is_some_and(|c| c.is_i64()) {
                return Some("`error.code` is not an integer".into());
            }
            if !e.get("message").is_some_and(Value::is_string) {
                return Some("`error.message` is not a string".into());
            }
            if !e.keys().all(|k| matches!(k.as_str(), "code" | "message" | "data")) {
                return Some("`error` has other members".into());
            }
            (!allowed(&["jsonrpc", "id", "error"])).then(|| "an error with other members".into())
        }
        _ => Some("neither a request, a notification nor a response".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_usual_paths() {
        assert_eq!(header(b"v2 Message\n{}"), Some(("v2 Message", "{}")));
        assert_eq!(header(b"no header"), None);
        assert_eq!(force_usual_path(" {}").as_deref(), Some(r#" {"x-force-usual-path":0}"#));
        assert_eq!(force_usual_path(r#"{"a":1}"#).as_deref(), Some(r#"{"x-force-usual-path":0,"a":1}"#));
        assert_eq!(force_usual_path("[1]"), None);
        assert_eq!(without_position("EOF while parsing at line 1 column 2"), "EOF while parsing");
        assert!(has_duplicate_members(r#"[{"a":{"b":1,"b":2}}]"#));
        assert!(!has_duplicate_members(r#"[{"a":{"b":1,"c":{"b":2}}}]"#));
    }

    #[test]
    fn jsonrpc_checks() {
        assert_eq!(jsonrpc_problem(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#), None);
        assert_eq!(jsonrpc_problem(r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{}}"#), None);
        assert!(jsonrpc_problem(r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#).is_some());
        assert!(jsonrpc_problem(r#"{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"x"}}"#).is_some());
    }
}

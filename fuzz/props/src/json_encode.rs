//! `acp_bindings::json::to_string` (and `to_vec`, `append`) against
//! `serde_json::to_string`: the same bytes, or the same error, for every
//! value decoded: every v1 and v2 definition, every message, and any JSON
//! value (strings with every escape, numbers at their limits).
//!
//! Input: a header line (`v2 ToolCall`, `v1 Message`, `Value`) and the JSON
//! text; texts that do not decode are skipped.

use crate::header;
use acp_bindings::{v1, v2};
use acp_tools::registry::{v1 as reg1, v2 as reg2};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

fn same_bytes<T: Serialize + ?Sized>(value: &T, what: &str) {
    let ours = acp_bindings::json::to_string(value).map_err(|e| e.to_string());
    let theirs = serde_json::to_string(value).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{what}: the encoders differ");
    let vec = acp_bindings::json::to_vec(value).map_err(|e| e.to_string());
    assert_eq!(vec.map(|v| String::from_utf8(v).unwrap()), theirs, "{what}: to_vec differs");
    // `append` adds to what is there, or leaves it as it was.
    let mut out = b"prefix".to_vec();
    match acp_bindings::json::append(&mut out, value) {
        Ok(()) => {
            assert_eq!(Ok(String::from_utf8(out).unwrap()), theirs.map(|t| format!("prefix{t}")), "{what}: append")
        }
        Err(_) => assert_eq!(out, b"prefix", "{what}: a failed append left bytes behind"),
    }
}

/// Decodes with `serde_json` (the reference) and compares the encoders on the
/// value, and on the value re-read from its own encoding.
struct Encode<'a>(&'a str);

impl reg1::TypeVisitor for Encode<'_> {
    type Output = ();
    fn visit<T: DeserializeOwned + Serialize + std::fmt::Debug + Clone + PartialEq + 'static>(self) {
        typed::<T>(self.0)
    }
}

impl reg2::TypeVisitor for Encode<'_> {
    type Output = ();
    fn visit<T: DeserializeOwned + Serialize + std::fmt::Debug + Clone + PartialEq + 'static>(self) {
        typed::<T>(self.0)
    }
}

fn typed<T: DeserializeOwned + Serialize>(text: &str) {
    let Ok(value) = serde_json::from_str::<T>(text) else { return };
    let what = std::any::type_name::<T>();
    same_bytes(&value, what);
    // What was written reads back to something that writes the same bytes.
    let written = serde_json::to_string(&value).unwrap();
    let again: T = serde_json::from_str(&written).unwrap_or_else(|e| panic!("{what}: {written} does not decode: {e}"));
    assert_eq!(serde_json::to_string(&again).unwrap(), written, "{what}: encoding is not stable");
}

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Some((head, text)) = header(data) else { return };
    match head {
        "Value" => {
            if let Ok(v) = serde_json::from_str::<Value>(text) {
                same_bytes(&v, "Value");
            }
            // Any text as a string value: every byte sequence to escape.
            same_bytes(text, "str");
        }
        "v1 Message" => {
            if let Ok(m) = v1::rpc::Message::decode(text, |_| Some("session/prompt".to_owned())) {
                same_bytes(&m, "v1 Message");
            }
        }
        "v2 Message" => {
            if let Ok(m) = v2::rpc::Message::decode(text, |_| Some("session/prompt".to_owned())) {
                same_bytes(&m, "v2 Message");
            }
        }
        _ => {
            if let Some(name) = head.strip_prefix("v1 ") {
                reg1::visit(name, Encode(text));
            } else if let Some(name) = head.strip_prefix("v2 ") {
                reg2::visit(name, Encode(text));
            }
        }
    }
}

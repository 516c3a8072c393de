//! `acp_bindings::json::from_str` against `serde_json::from_str`: the same
//! value or the same error, for every v1 and v2 definition (the direct
//! decoders of the session-update stream among them), for `Message::decode`
//! (its one-pass reader against its usual path) and for plain serde types.
//!
//! An object that names a member twice fails on every path (the bindings'
//! rule for repeated names), checked with an independent scan of the text.
//!
//! Input: a header line (`v2 UpdateSessionNotification`, `v1 Message`,
//! `Value`, `String`, `f64`, ...) and the JSON text.

use crate::{force_usual_path, has_duplicate_members, header, without_position};
use acp_bindings::{v1, v2};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Both readers on a plain type: the same value (compared by its encoding)
/// or the same error text.
fn same<T: DeserializeOwned + Serialize>(text: &str) {
    let ours = acp_bindings::json::from_str::<T>(text).map(|v| serde_json::to_string(&v).unwrap());
    let theirs = serde_json::from_str::<T>(text).map(|v| serde_json::to_string(&v).unwrap());
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{} decoded differently from {text:?}", std::any::type_name::<T>()),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "different errors on {text:?}"),
        _ => panic!("{}: ours {ours:?}, serde_json {theirs:?} on {text:?}", std::any::type_name::<T>()),
    }
}

/// A definition: the crate's reader, `serde_json` and the buffered slow path
/// agree (the registry asserts the first two, and the encoders, itself).
/// A registry's `decode_fast_and_slow`: both results of one definition, re-encoded.
type FastAndSlow = fn(&str, &str) -> Option<(Result<Value, String>, Result<Value, String>)>;

fn definition(f: FastAndSlow, name: &str, text: &str) {
    let Some((fast, slow)) = f(name, text) else { return };
    // The bindings' rule: an object naming a member twice fails, on every
    // path (the registry has already held the crate's reader to serde_json).
    if has_duplicate_members(text) {
        assert!(
            fast.is_err() && slow.is_err(),
            "{name}: decoded {fast:?} / {slow:?} from {text:?}, which repeats a member"
        );
        return;
    }
    match (&fast, &slow) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "{name}: streaming and buffered decode differently from {text:?}"),
        (Err(_), Err(_)) => {}
        _ => panic!("{name}: streaming {fast:?}, buffered {slow:?} on {text:?}"),
    }
}

/// `Message::decode` in one pass against the usual path (a copy with an
/// unknown member first): the same message and encoding, or errors with the
/// same code and text (less the position, which the extra member shifts).
macro_rules! message {
    ($version:ident, $line:expr) => {{
        let line: &str = $line;
        let known = |_: &$version::RequestId| Some("session/prompt".to_owned());
        let fast = $version::rpc::Message::decode(line, known);
        if let Err(syntax) = serde_json::from_str::<serde::de::IgnoredAny>(line) {
            // Not JSON: serde_json's own error on the line, whatever path
            // (the usual path's copy, a member longer, is another text and
            // can fail at another place: `{` against `{"x":0,`).
            let e = fast.as_ref().expect_err("a line that is not JSON decoded");
            let (shown, expected) = (e.to_string(), format!("not JSON: {syntax}"));
            assert_eq!((e.code(), without_position(&shown)), (-32700, without_position(&expected)), "{line}");
        } else if let Some(usual) = force_usual_path(line) {
            let slow = $version::rpc::Message::decode(&usual, known);
            match (&fast, &slow) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, b, "{line}");
                    let (ea, eb) = (acp_bindings::json::to_string(a).unwrap(), serde_json::to_string(b).unwrap());
                    assert_eq!(ea, eb, "{line}");
                }
                (Err(a), Err(b)) => {
                    let (ta, tb) = (a.to_string(), b.to_string());
                    assert_eq!((a.code(), without_position(&ta)), (b.code(), without_position(&tb)), "{line}");
                }
                _ => panic!("{line}: one pass {fast:?}, usual {slow:?}"),
            }
        }
        if has_duplicate_members(line) {
            assert!(fast.is_err(), "{line}: decoded although a member is repeated");
        }
        if let Ok(m) = fast {
            let a = acp_bindings::json::to_string(&m).unwrap();
            assert_eq!(a, serde_json::to_string(&m).unwrap(), "{line}");
        }
    }};
}

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Some((head, text)) = header(data) else { return };
    match head {
        "v1 Message" => message!(v1, text),
        "v2 Message" => message!(v2, text),
        "Value" => same::<Value>(text),
        "String" => same::<String>(text),
        "f64" => same::<f64>(text),
        "u64" => same::<u64>(text),
        "i64" => same::<i64>(text),
        "Vec<Value>" => same::<Vec<Value>>(text),
        "Map" => same::<std::collections::BTreeMap<String, Value>>(text),
        "Option<bool>" => same::<Option<bool>>(text),
        _ => {
            if let Some(name) = head.strip_prefix("v1 ") {
                definition(acp_tools::registry::v1::decode_fast_and_slow, name, text);
            } else if let Some(name) = head.strip_prefix("v2 ") {
                definition(acp_tools::registry::v2::decode_fast_and_slow, name, text);
            }
        }
    }
}

use super::{pointer_at, DispatchErrorKind, RawMessage};

#[test]
fn envelopes_are_objects_with_jsonrpc_2_0() {
    assert!(RawMessage::parse(r#"{"jsonrpc":"2\u002e0","method":"x"}"#).is_ok(), "an escaped version string");
    let e = RawMessage::parse("[1, 2]").unwrap_err();
    assert_eq!((e.kind(), e.reply_id_json()), (DispatchErrorKind::InvalidMessage, Some("null")));
    let e = RawMessage::parse("nope").unwrap_err();
    assert_eq!((e.kind(), e.code()), (DispatchErrorKind::Parse, -32700));
    let e = RawMessage::parse(r#"{"jsonrpc":"1.0","id":"a","method":"x"}"#).unwrap_err();
    assert_eq!((e.pointer(), e.reply_id_json()), ("/jsonrpc", Some(r#""a""#)));
    let e = RawMessage::parse(r#"{"jsonrpc":"2.0","id":3,"method":7}"#).unwrap_err();
    assert_eq!((e.kind(), e.reply_id_json()), (DispatchErrorKind::InvalidMessage, Some("3")));
    // A response is never answered, even a malformed one.
    let e = RawMessage::parse(r#"{"jsonrpc":"1.0","id":3,"result":{}}"#).unwrap_err();
    assert!(!e.needs_reply());
}

fn at(text: &str, needle: &str) -> String {
    let i = text.find(needle).expect("needle") + needle.len();
    pointer_at(text, 1, i)
}

#[test]
fn positions_map_to_json_pointers() {
    let t = r#"{"a": {"b": [1, {"c~/d": 7}]}, "e": "x"}"#;
    assert_eq!(at(t, "7"), "/a/b/1/c~0~1d");
    assert_eq!(at(t, "[1"), "/a/b/0");
    assert_eq!(at(t, "7}"), "/a/b/1", "a closed object is reported by its own pointer");
    assert_eq!(at(t, r#""x""#), "/e");
    assert_eq!(at(t, r#"7}]}, "e": "x"}"#), "");
    let multi = "{\n  \"k\": [\n    true,\n    5\n  ]\n}";
    assert_eq!(pointer_at(multi, 4, 5), "/k/1");
    // Just after `[` (serde's position when the array has the wrong type):
    // the array itself, not its first item.
    assert_eq!(at(t, "{\"b\": ["), "/a/b");
    assert_eq!(at(t, "[1,"), "/a/b", "between items: no item has begun");
    assert_eq!(at("[[", "[["), "/0");
    let escaped = r#"{"a\"b": 1}"#;
    assert_eq!(at(escaped, "1"), "/a\"b");
}

//! The rule for repeated member names, on every decode path: an object that
//! names a member twice (a known field, a discriminator, an unknown property,
//! or a member inside free-form JSON such as `_meta` or `rawInput`) makes the
//! message fail, whatever the field's leniency rule; every path gives the
//! same error. The inputs are the minimal ones differential fuzzing found.

use acp_bindings::runtime::rpc::{self, DispatchErrorKind};
use acp_bindings::{v1, v2};
use serde::de::DeserializeOwned;
use serde::Serialize;

const MSG: &str = r#""sessionUpdate":"agent_message","messageId":"m1""#;

/// v2 `UpdateSessionNotification` params naming something twice, each with
/// the member named in the error.
fn v2_notifications() -> Vec<(String, &'static str)> {
    let p = |update: &str| format!(r#"{{"sessionId":"s","update":{update}}}"#);
    vec![
        // The issue's case: a content block's discriminator, under skip-invalid-items.
        (p(&format!(r#"{{{MSG},"content":[{{"type":"text","text":"hi","type":"text"}}]}}"#)), "type"),
        (p(&format!(r#"{{{MSG},"content":[{{"type":"text","text":"hi","text":"ho"}}]}}"#)), "text"),
        (p(&format!(r#"{{{MSG},"content":[{{"type":"text","text":"hi","x":1,"x":1}}]}}"#)), "x"),
        (p(r#"{"sessionUpdate":"usage_update","used":1,"size":2,"sessionUpdate":"usage_update"}"#), "sessionUpdate"),
        (p(r#"{"used":1,"sessionUpdate":"usage_update","size":2,"used":1}"#), "used"),
        (p(r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","rawInput":{"a":1,"a":2}}"#), "a"),
        (p(r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","_meta":{"k":1,"k":null}}"#), "k"),
        (p(r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","title":"t","title":null}"#), "title"),
        (p(r#"{"sessionUpdate":"some_future_update","a":1,"a":2}"#), "a"),
        (
            p(r#"{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn","stopReason":"end_turn"}"#),
            "stopReason",
        ),
        (
            p(r#"{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"main","entries":[],"type":"items"}}"#),
            "type",
        ),
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2},"sessionId":"s"}"#.to_owned(),
            "sessionId",
        ),
        (
            r#"{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"size":2},"_meta":{"a":{"b":[{"c":1,"c":1}]}}}"#
                .to_owned(),
            "c",
        ),
    ]
}

/// v1 `SessionNotification` params naming something twice.
fn v1_notifications() -> Vec<(String, &'static str)> {
    let p = |update: &str| format!(r#"{{"sessionId":"s","update":{update}}}"#);
    vec![
        (p(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","type":"text"}}"#), "type"),
        (p(r#"{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","rawInput":{"a":1,"a":2}}"#), "a"),
        (
            p(
                r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","content":[{"type":"content","content":{"type":"text","text":"a","text":"b"}}]}"#,
            ),
            "text",
        ),
        (
            p(
                r#"{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending","status":"pending"}]}"#,
            ),
            "status",
        ),
    ]
}

/// Every way to decode `text` as `T`: serde_json, the crate's reader, a
/// buffered value, the payload decoder of the peers.
fn every_path<T: DeserializeOwned + Serialize + std::fmt::Debug>(
    text: &str,
) -> Vec<(&'static str, Result<String, String>)> {
    let enc = |v: T| serde_json::to_string(&v).unwrap();
    vec![
        ("serde_json::from_str", serde_json::from_str::<T>(text).map(enc).map_err(|e| e.to_string())),
        ("json::from_str", acp_bindings::json::from_str::<T>(text).map(enc).map_err(|e| e.to_string())),
        (
            "buffered",
            acp_bindings::runtime::de::json_from_str(text)
                .and_then(|v| T::deserialize(acp_bindings::runtime::de::Buffered(v)))
                .map(enc)
                .map_err(|e| e.to_string()),
        ),
        ("rpc::decode", rpc::decode::<T>(text).map(enc).map_err(|e| e.to_string())),
    ]
}

fn all_fail_naming<T: DeserializeOwned + Serialize + std::fmt::Debug>(text: &str, key: &str) {
    for (path, r) in every_path::<T>(text) {
        let e = r.expect_err(&format!("{path} decoded {text}"));
        assert!(e.contains(&format!("duplicate field `{key}`")), "{path} on {text}: {e}");
    }
}

#[test]
fn every_payload_path_refuses_a_repeated_member() {
    for (text, key) in v2_notifications() {
        all_fail_naming::<v2::UpdateSessionNotification>(&text, key);
        let fast = acp_tools::registry::v2::decode_fast_and_slow("UpdateSessionNotification", &text).unwrap();
        assert!(fast.0.is_err() && fast.1.is_err(), "{text}");
    }
    for (text, key) in v1_notifications() {
        all_fail_naming::<v1::SessionNotification>(&text, key);
    }
    // A repeated member inside an untagged union's arm, an open enum's
    // neighbour and a typed map.
    all_fail_naming::<v2::EmbeddedResourceResource>(r#"{"uri":"a","text":"t","uri":"b"}"#, "uri");
    all_fail_naming::<v2::ContentBlock>(r#"{"type":"future","a":{"b":1,"b":1}}"#, "b");
    all_fail_naming::<v2::ExtRequest>(r#"{"a":1,"a":2}"#, "a");
}

#[test]
fn messages_and_peers_refuse_a_repeated_member_on_both_paths() {
    for (params, _) in v2_notifications() {
        let line = format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{params}}}"#);
        // The one-pass reader, and the usual path (an unknown member first).
        let usual = line.replacen('{', r#"{"x-usual":0,"#, 1);
        for l in [&line, &usual] {
            let e = v2::rpc::Message::decode(l, |_| None).unwrap_err();
            assert_eq!(e.kind(), DispatchErrorKind::InvalidPayload, "{l}: {e}");
            assert!(e.to_string().contains("duplicate field"), "{l}: {e}");
        }
        let mut client = v2::rpc::ClientPeer::new();
        assert!(matches!(client.receive(&line), v2::rpc::ClientEvent::Invalid { .. }), "{line}");
    }
    for (params, _) in v1_notifications() {
        let line = format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{params}}}"#);
        let e = v1::rpc::Message::decode(&line, |_| None).unwrap_err();
        assert!(e.to_string().contains("duplicate field"), "{line}: {e}");
    }
    // The envelope: a known member twice, an unknown one twice, a repeated
    // name inside an unknown one.
    let ok = r#""jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}"#;
    for (line, key) in [
        (format!(r#"{{{ok},"method":"session/cancel"}}"#), "method"),
        (format!(r#"{{{ok},"x":1,"x":2}}"#), "x"),
        (format!(r#"{{{ok},"x":{{"y":1,"y":1}}}}"#), "y"),
    ] {
        for e in [
            v2::rpc::Message::decode(&line, |_| None).unwrap_err(),
            v1::rpc::Message::decode(&line, |_| None).unwrap_err(),
        ] {
            assert_eq!(e.kind(), DispatchErrorKind::InvalidMessage, "{line}: {e}");
            assert!(e.to_string().contains(&format!("duplicate field `{key}`")), "{line}: {e}");
        }
        assert!(rpc::RawMessage::parse(&line).is_err(), "{line}");
    }
    assert!(rpc::RawMessage::parse(&format!("{{{ok},\"x\":1,\"y\":{{\"x\":1}}}}")).is_ok());
}

/// A user's struct with `#[derive(AcpDeserialize)]`: a repeated known field,
/// unknown property or member inside a free-form field is refused on both
/// the serde path and the crate's reader.
#[test]
fn a_users_acp_deserialize_struct_follows_the_rule() {
    use acp_bindings::AcpDeserialize;
    #[derive(Debug, Clone, PartialEq, Serialize, AcpDeserialize)]
    struct Mine {
        name: String,
        #[serde(default)]
        extra: Option<serde_json::Value>,
        #[serde(default)]
        labels: std::collections::BTreeMap<String, String>,
        #[serde(flatten)]
        additional_properties: acp_bindings::runtime::Extra,
    }
    let ok = r#"{"name":"n","extra":{"a":[{"b":1}]},"labels":{"k":"v"},"z":{"y":2}}"#;
    assert!(serde_json::from_str::<Mine>(ok).is_ok());
    for (text, key) in [
        (r#"{"name":"n","name":"m"}"#, "name"),
        (r#"{"name":"n","extra":{"a":1,"a":1}}"#, "a"),
        (r#"{"name":"n","labels":{"k":"v","k":"w"}}"#, "k"),
        (r#"{"name":"n","z":1,"z":1}"#, "z"),
        (r#"{"name":"n","z":{"y":1,"y":1}}"#, "y"),
    ] {
        for (path, r) in every_path::<Mine>(text) {
            let e = r.expect_err(&format!("{path} decoded {text}"));
            assert!(e.contains(&format!("duplicate field `{key}`")), "{path} on {text}: {e}");
        }
    }
}

//! What the fuzz targets in `fuzz/` found, each with its minimal input: the
//! peers and decoders must give an error (with a JSON pointer), never panic.

use acp_bindings::runtime::rpc::{self, DispatchErrorKind};
use acp_bindings::{v1, v2};
use serde_json::Value;

/// A member name whose escape is followed by a multi-byte character: the
/// error position falls inside that character, and the pointer of the
/// failing value was cut from the text at that byte (a panic: "byte index
/// is not a char boundary").
const ESCAPE_THEN_MULTIBYTE: &[&str] =
    &[r#"{"\ud800é":0}"#, r#"{"a\é": 1}"#, r#"{"\"é":{"\né":[0,"#, "{\"\\\u{a0}\": 1}"];

#[test]
fn pointers_of_errors_after_an_escaped_multibyte_member_name() {
    for params in ESCAPE_THEN_MULTIBYTE {
        let e = rpc::decode::<Value>(params).unwrap_err();
        assert_eq!(e.kind(), DispatchErrorKind::InvalidPayload, "{params}");
        assert!(e.pointer().is_empty() || e.pointer().starts_with('/'), "{params}: {}", e.pointer());
        let e = rpc::decode::<v2::UpdateSessionNotification>(params).unwrap_err();
        assert!(e.pointer().is_empty() || e.pointer().starts_with('/'), "{params}: {}", e.pointer());
        // The position at every byte of the text, on every line.
        for column in 0..=params.len() + 2 {
            let p = rpc::pointer_at(params, 1, column);
            assert!(p.is_empty() || p.starts_with('/'), "{params} at {column}: {p}");
        }
    }
    // A multi-line text, positions past the end of a line and of the text.
    let text = "{\"\\é\":\n [\"\\ü\", {\"\\\u{10348}\": 1}]}";
    for line in 0..4 {
        for column in 0..text.len() + 2 {
            let _ = rpc::pointer_at(text, line, column);
        }
    }
}

/// The same params in a request, a notification, a response and an error, fed
/// to each peer of each version and to `Message::decode`: an `Invalid` event
/// (with a JSON-RPC error reply where one is due), never a panic.
#[test]
fn peers_answer_every_message_form_with_such_params() {
    for params in ESCAPE_THEN_MULTIBYTE {
        let lines = [
            format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":0,"result":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":0,"error":{params}}}"#),
        ];
        for line in &lines {
            let e = v1::rpc::Message::decode(line, |_| Some("session/prompt".into())).unwrap_err();
            assert!(e.pointer().is_empty() || e.pointer().starts_with('/'), "v1 {line}: {e}");
            let e = v2::rpc::Message::decode(line, |_| Some("session/prompt".into())).unwrap_err();
            assert!(e.pointer().is_empty() || e.pointer().starts_with('/'), "v2 {line}: {e}");

            // Each peer with a request of its own waiting for id 0.
            macro_rules! peer {
                ($v:ident, $peer:ident, $event:ident, $side:ident, $request:expr) => {{
                    let mut peer = $v::rpc::$peer::new();
                    let Ok($v::rpc::Message::Request { request: $v::rpc::Request::$side(r), .. }) =
                        $v::rpc::Message::decode($request, |_| None)
                    else {
                        panic!("not a request: {}", $request)
                    };
                    peer.request(r);
                    let event = peer.receive(line);
                    let $v::rpc::$event::Invalid { error, reply } = event else {
                        panic!("{} {}: {event:?}", stringify!($v $peer), line)
                    };
                    assert!(error.pointer().is_empty() || error.pointer().starts_with('/'), "{line}: {error}");
                    if let Some(reply) = reply {
                        let reply = serde_json::to_value(&reply).unwrap();
                        assert_eq!(reply["jsonrpc"], "2.0");
                        assert!(reply["error"]["code"].is_i64(), "{reply}");
                    }
                    // A response to id 0 settles the request even with a bad
                    // payload (when its id can still be read); nothing else
                    // touches it.
                    let left = peer.pending().count();
                    if line.contains(r#""id":0"#) {
                        assert!(left <= 1, "{line}");
                    } else {
                        assert_eq!(left, 1, "{line}");
                    }
                }};
            }
            let read =
                r#"{"jsonrpc":"2.0","id":9,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}"#;
            let permission = r#"{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s","title":"Allow?","subject":{"type":"tool_call","toolCall":{"toolCallId":"t"}},"options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}}"#;
            let prompt = r#"{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}"#;
            peer!(v1, AgentPeer, AgentEvent, Client, read);
            peer!(v1, ClientPeer, ClientEvent, Agent, prompt);
            peer!(v2, AgentPeer, AgentEvent, Client, permission);
            peer!(v2, ClientPeer, ClientEvent, Agent, prompt);
        }
    }
}

/// An escaped newline in a method name (or a member name, in a pointer): the
/// error is quoted from the peer's text, and displayed it stays on one line
/// (the `convert` target: `{"method":"i\\\nitialize"}`).
#[test]
fn errors_quoting_a_peers_control_characters_display_on_one_line() {
    let lines = [
        r#"{"jsonrpc":"2.0","id":0,"method":"i\\\nitialize","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"session/\nupdate\u001b","params":{}}"#,
    ];
    for line in lines {
        let e = v2::rpc::Message::decode(line, |_| None).unwrap_err();
        let shown = e.to_string();
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        let e = v1::rpc::Message::decode(line, |_| None).unwrap_err();
        assert!(!e.to_string().chars().any(char::is_control), "{e}");
        let e = acp_bindings_convert::V2ToV1::new().convert(line).unwrap_err();
        assert!(!e.to_string().chars().any(char::is_control), "{e}");
    }
    let e = rpc::DispatchError::new(DispatchErrorKind::InvalidPayload, "/a\nb", "bad\tvalue");
    assert_eq!(e.to_string(), r"bad\tvalue (at /a\nb)");
    let e = v2::rpc::Message::decode(lines[0], |_| None).unwrap_err();
    assert_eq!(e.message(), "unknown request method `i\\\nitialize` (extension methods start with `_`)");
    assert_eq!(
        e.to_string(),
        "unknown request method `i\\\\nitialize` (extension methods start with `_`) (at /method)"
    );
}

/// A member named twice inside a skip-invalid-items list item: the message
/// fails, on both readers and through a buffered value alike (the rule for
/// repeated names; leniency does not apply). It was once dropped as a bad
/// item by one path and kept by another.
#[test]
fn a_duplicate_member_in_a_list_item_fails_the_message_on_every_path() {
    let text = r#"{"sessionId":"s","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"main","entries":[{"content":"a","priority":"medium","status":"completed"},{"content":"b","priority":"high","status":"me_optional","status":"cancelled"}]}}}"#;
    let ours = acp_bindings::json::from_str::<v2::UpdateSessionNotification>(text).unwrap_err();
    let theirs = serde_json::from_str::<v2::UpdateSessionNotification>(text).unwrap_err();
    assert_eq!(ours.to_string(), theirs.to_string());
    assert!(ours.to_string().contains("duplicate field `status`"), "{ours}");
    let buffered = acp_bindings::runtime::de::json_from_str(text).unwrap_err();
    assert!(buffered.to_string().contains("duplicate field `status`"), "{buffered}");
}

/// A property name of the schema with a newline in it: the generator's error
/// names it on one line (the `lower` target).
#[test]
fn a_schema_error_quoting_a_newline_is_one_line() {
    let schema = serde_json::json!({"$defs": {"StringFormat": {"anyOf": [
        {"not a\nkeyword": "x", "type": "string", "const": "uri"},
        {"title": "other", "type": "string"}
    ]}}});
    let e = xtask::generate::render_schema(std::path::Path::new("fuzz.json"), &schema, "fuzz").unwrap_err();
    let shown = e.to_string();
    assert!(!shown.contains('\n'), "{shown}");
    assert!(shown.starts_with("fuzz.json: #/$defs/StringFormat/anyOf/0: "), "{shown}");
    assert!(shown.contains(r"not a\nkeyword"), "{shown}");
}

/// Schemas the `lower` target's entry point once panicked or hung on (an
/// `x-method` with no Rust name, an alias cycle, an empty `enum`, a
/// fractional integer `const`, two methods with one variant name), and every
/// other bad fixture: errors of one line each, naming the file and a pointer.
#[test]
fn every_bad_schema_is_a_one_line_error_from_the_fuzzed_entry_point() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/fixtures/bad");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Ok(schema) = serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap()) else { continue };
        let e = xtask::generate::render_schema(std::path::Path::new("fuzz.json"), &schema, "fuzz")
            .expect_err(&path.display().to_string());
        // One line per problem (a file can have several), each naming the file and a pointer.
        let shown = e.to_string();
        assert!(shown.lines().all(|l| l.starts_with("fuzz.json: #")), "{}: {shown}", path.display());
        seen += 1;
    }
    assert!(seen >= 15, "{seen} bad fixtures");
}

/// A discriminator named twice (the `json_encode` target: the first, unknown,
/// chose the catch-all; the payload kept the second, `idle`, and re-encoded
/// as the `idle` variant, another message). Both are an error now, as
/// serde's internally tagged enums make it, whichever comes first, through
/// every reader.
#[test]
fn a_discriminator_named_twice_is_an_error() {
    let texts = [
        // Unknown first: the buffered path.
        r#"{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"id/e","background":[],"state":"idle"}}"#,
        // Known first: the streamed path.
        r#"{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","x":1,"state":"running"}}"#,
        r#"{"sessionId":"s","update":{"sessionUpdate":"state_update","state":"idle","state":"idle"}}"#,
        // The outer discriminator.
        r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","sessionUpdate":"plan_update","content":{"type":"text","text":"a"}}}"#,
    ];
    for text in texts {
        let theirs = serde_json::from_str::<v2::UpdateSessionNotification>(text).unwrap_err().to_string();
        assert!(theirs.contains("duplicate field"), "{text}: {theirs}");
        let ours = acp_bindings::json::from_str::<v2::UpdateSessionNotification>(text).unwrap_err().to_string();
        assert_eq!(ours, theirs, "{text}");
        let line = format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{text}}}"#);
        assert!(v2::rpc::Message::decode(&line, |_| None).is_err(), "{line}");
    }
}

/// A line that is not JSON is answered with serde_json's syntax error on it
/// (the `json_decode` target): once, a member of the wrong type before the
/// syntax error (`"method": 5` in a cut line) was reported instead, as
/// "not JSON: invalid type ...".
#[test]
fn a_line_that_is_not_json_reports_its_syntax_error() {
    for line in
        ["{", r#"{"jsonrpc":"2.0","method":5,"#, r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":1}"#, "nope"]
    {
        let syntax = serde_json::from_str::<serde::de::IgnoredAny>(line).unwrap_err().to_string();
        for e in [
            v1::rpc::Message::decode(line, |_| None).unwrap_err(),
            v2::rpc::Message::decode(line, |_| None).unwrap_err(),
        ] {
            assert_eq!(e.code(), -32700, "{line}: {e}");
            assert!(e.to_string().starts_with(&format!("not JSON: {syntax}")), "{line}: {e} against {syntax}");
        }
    }
}

/// Numbers that serde_json's default float parser rounds to a neighbour of
/// the nearest `f64` (the `json_encode` and `patch` targets): a message
/// decoded, encoded and decoded again held another number, so a proxy
/// changed what it forwarded and a patch applied differently after the
/// wire. The bindings turn on serde_json's `float_roundtrip`: every number
/// is read exactly, and what is written reads back the same.
#[test]
fn numbers_read_back_as_they_were_written() {
    let numbers = [
        "100333333333333333333333333.5",
        "2999990000000000000000000000000000000000000008214565720323784703",
        "2999999999999999999999999999999999999999999999999999999999999999",
        "1.0033333333333336e+26",
        "2.9999899999999998e+63",
    ];
    for text in numbers {
        let v: Value = serde_json::from_str(text).unwrap();
        let ours: Value = acp_bindings::json::from_str(text).unwrap();
        assert_eq!(ours, v, "{text}");
        let once = acp_bindings::json::to_string(&v).unwrap();
        let again: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(again, v, "{text} written as {once} reads back as {again}");
        assert_eq!(acp_bindings::json::to_string(&again).unwrap(), once, "{text}");
    }
    // The target's input, as a definition with an unknown property.
    let text = r#"{"type":"Schema","title":"Temperature","mm":100333333333333333333333333.5,"default":50}"#;
    let first: v2::ElicitationPropertySchema = acp_bindings::json::from_str(text).unwrap();
    let once = acp_bindings::json::to_string(&first).unwrap();
    let second: v2::ElicitationPropertySchema = acp_bindings::json::from_str(&once).unwrap();
    assert_eq!(acp_bindings::json::to_string(&second).unwrap(), once);
}

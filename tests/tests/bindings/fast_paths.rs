//! The fast decoding paths against a slow reference. Users decode with
//! `serde_json::from_str`, which takes the streaming paths (tagged unions
//! decoded in place, lenient fields read from their captured JSON text); the
//! reference decodes the same text into a `serde_json::Value` first and then
//! from that value. Both must give the same result, the same value or both an
//! error, and neither may panic, on the corpus messages mutated at every
//! property (a value of each other JSON type put in its place), truncated at
//! any byte, and on random JSON.

use acp_bindings::{v1, v2};
use proptest::prelude::*;
use serde_json::{json, Value};

type FastAndSlow = fn(&str, &str) -> Option<(Result<Value, String>, Result<Value, String>)>;

/// `(version, type name, input)` of every corpus case this build has.
fn cases() -> Vec<(&'static str, String, Value)> {
    let mut out = Vec::new();
    for version in ["v1", "v2"] {
        let dir = super::corpus_dir(version);
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|p| p.extension().is_some_and(|x| x == "json")) {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            let name = case["type"].as_str().unwrap().to_owned();
            out.push((version, name, case["input"].clone()));
        }
    }
    out
}

fn check(version: &str, type_name: &str, text: &str) -> Result<(), TestCaseError> {
    let f: FastAndSlow = if version == "v1" {
        acp_tools::registry::v1::decode_fast_and_slow
    } else {
        acp_tools::registry::v2::decode_fast_and_slow
    };
    // A type of the other build (unstable) is not in this one.
    let Some((fast, slow)) = f(type_name, text) else { return Ok(()) };
    match (&fast, &slow) {
        (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{} {}: {}", version, type_name, text),
        (Err(_), Err(_)) => {}
        _ => prop_assert!(false, "{version} {type_name}: fast {fast:?}, slow {slow:?} on {text}"),
    }
    Ok(())
}

/// Every JSON pointer in a value (the root included).
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                pointers(x, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// A value of each JSON type, and some that sit close to valid ones.
fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(18446744073709551615u64),
        json!(""),
        json!("other"),
        json!("_custom"),
        json!([]),
        json!([null, 1, "x"]),
        json!({}),
        json!({"type": "text", "text": "x"}),
        json!({"sessionUpdate": "tool_call_update"}),
    ]
}

/// Every corpus message with every property replaced by every replacement:
/// exhaustive (a few thousand decodes), not sampled.
#[test]
fn mutated_corpus_messages_decode_alike() {
    let mut n = 0;
    for (version, name, input) in cases() {
        let mut ps = Vec::new();
        pointers(&input, String::new(), &mut ps);
        for p in &ps {
            for r in replacements() {
                let mut v = input.clone();
                match v.pointer_mut(p) {
                    Some(slot) => *slot = r,
                    None => continue,
                }
                check(version, &name, &v.to_string()).unwrap();
                n += 1;
            }
            // The property removed.
            if let Some((parent, key)) = p.rsplit_once('/') {
                let mut v = input.clone();
                if let Some(Value::Object(m)) = v.pointer_mut(parent) {
                    m.remove(&key.replace("~1", "/").replace("~0", "~"));
                    check(version, &name, &v.to_string()).unwrap();
                    n += 1;
                }
            }
        }
    }
    assert!(n > 1000, "only {n} mutations");
}

/// JSON that parses as a syntax but that a `Value` rejects (a lone surrogate
/// escape, a number out of range), alone or inside a list or an object, put
/// at every property: the message fails whatever the field's rule, exactly as
/// when the value is read as a `Value` first (the streamed lenient fields read
/// a wrong-shaped value as a `Value` would).
#[test]
fn values_a_value_rejects_fail_the_message_at_every_property() {
    let broken = [r#""\ud800""#, r#"["ok", "\udc00"]"#, r#"{"k": "\ud800"}"#, "1e400", "[1e400]", r#"{"k": [1e400]}"#];
    let mut n = 0;
    for (version, name, input) in cases() {
        let mut ps = Vec::new();
        pointers(&input, String::new(), &mut ps);
        for p in ps.iter().filter(|p| !p.is_empty()) {
            let mut v = input.clone();
            *v.pointer_mut(p).unwrap() = json!("__broken__");
            let text = v.to_string();
            for b in broken {
                check(version, &name, &text.replace(r#""__broken__""#, b)).unwrap();
                n += 1;
            }
        }
    }
    assert!(n > 1000, "only {n} cases");
}

/// Every corpus message cut at every byte (each cut is broken JSON: both fail).
#[test]
fn truncated_corpus_messages_fail_alike() {
    for (version, name, input) in cases() {
        let text = input.to_string();
        for cut in (0..text.len()).filter(|i| text.is_char_boundary(*i)) {
            check(version, &name, &text[..cut]).unwrap();
        }
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|i| json!(i)),
        (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
        "[a-z_]{0,12}".prop_map(Value::String),
        // Discriminator values and property names the schemas use.
        prop::sample::select(vec![
            "text",
            "tool_call_update",
            "content",
            "diff",
            "agent_message_chunk",
            "read",
            "pending"
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-z]{1,8}",
                    prop::sample::select(vec![
                        "type",
                        "sessionId",
                        "update",
                        "sessionUpdate",
                        "toolCallId",
                        "content",
                        "text",
                        "status",
                        "kind",
                        "title",
                        "locations",
                        "path",
                        "_meta",
                        "rawInput",
                        "messageId"
                    ])
                    .prop_map(str::to_owned)
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Random JSON decoded as a random corpus type.
    #[test]
    fn random_json_decodes_alike(v in arb_json(), pick in any::<prop::sample::Index>()) {
        let cases = cases();
        let (version, name, _) = &cases[pick.index(cases.len())];
        check(version, name, &v.to_string())?;
    }

    /// A corpus message with a random value at a random property.
    #[test]
    fn corpus_messages_with_random_values_decode_alike(
        v in arb_json(),
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
    ) {
        let cases = cases();
        let (version, name, input) = &cases[pick.index(cases.len())];
        let mut ps = Vec::new();
        pointers(input, String::new(), &mut ps);
        let mut m = input.clone();
        if let Some(slot) = m.pointer_mut(&ps[at.index(ps.len())]) {
            *slot = v;
        }
        check(version, name, &m.to_string())?;
    }
}

/// `Message::decode` reads a request or notification in one pass on the
/// crate's reader (the direct decoders of the session-update stream
/// included) and falls back to capturing the members: every `session/update`
/// corpus message, mutated at every property and wrapped in envelopes of
/// either form (plain, or with its members reordered and the version
/// escaped), decodes to what `serde_json` gives for its params, or fails
/// where that fails; with another version it fails.
#[test]
fn session_update_messages_decode_as_their_params_do() {
    fn decoded<P: serde::de::DeserializeOwned + serde::Serialize>(
        params: &str,
        message: &str,
        fast: impl Fn(&str) -> Result<Value, String>,
    ) -> Result<(), String> {
        let slow = serde_json::from_str::<P>(params)
            .map_err(|e| e.to_string())
            .map(|p| json!({"jsonrpc": "2.0", "method": "session/update", "params": serde_json::to_value(p).unwrap()}));
        match (fast(message), slow) {
            (Ok(a), Ok(b)) if a == b => Ok(()),
            (Err(_), Err(_)) => Ok(()),
            (a, b) => Err(format!("one pass {a:?}, params alone {b:?} on {message}")),
        }
    }
    let mut n = 0;
    for (version, name, input) in cases() {
        if !matches!(name.as_str(), "UpdateSessionNotification" | "SessionNotification") {
            continue;
        }
        let mut ps = Vec::new();
        pointers(&input, String::new(), &mut ps);
        let mut variants = vec![input.clone()];
        for p in &ps {
            for r in replacements() {
                let mut v = input.clone();
                if let Some(slot) = v.pointer_mut(p) {
                    *slot = r;
                    variants.push(v);
                }
            }
        }
        for v in variants {
            let params = v.to_string();
            for message in [
                format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{params}}}"#),
                format!(r#"{{"params":{params},"method":"session/update","jsonrpc":"2\u002e0"}}"#),
            ] {
                let result = if version == "v1" {
                    decoded::<v1::SessionNotification>(&params, &message, |m| {
                        v1::rpc::Message::decode(m, |_| None)
                            .map_err(|e| e.to_string())
                            .and_then(|d| d.to_value().map_err(|e| e.to_string()))
                    })
                } else {
                    decoded::<v2::UpdateSessionNotification>(&params, &message, |m| {
                        v2::rpc::Message::decode(m, |_| None)
                            .map_err(|e| e.to_string())
                            .and_then(|d| d.to_value().map_err(|e| e.to_string()))
                    })
                };
                result.unwrap();
                n += 1;
            }
            // Not JSON-RPC 2.0: refused on either path.
            let wrong = format!(r#"{{"jsonrpc":"1.0","method":"session/update","params":{params}}}"#);
            let refused = if version == "v1" {
                v1::rpc::Message::decode(&wrong, |_| None).is_err()
            } else {
                v2::rpc::Message::decode(&wrong, |_| None).is_err()
            };
            assert!(refused, "{wrong}");
        }
    }
    assert!(n > 1000, "only {n} messages");
}

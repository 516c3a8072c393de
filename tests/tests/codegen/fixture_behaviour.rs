//! Wire behaviour of the Rust emitted for each fixture shape.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::fixtures::*;

/// Decodes `input` and re-encodes it; returns the value and the re-encoding.
fn decode<T: DeserializeOwned + Serialize>(input: Value) -> (T, Value) {
    let text = input.to_string();
    let value: T = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    let again = serde_json::to_value(&value).unwrap();
    (value, again)
}

/// Asserts that `input` round-trips exactly and returns the decoded value.
fn exact<T: DeserializeOwned + Serialize>(input: Value) -> T {
    let (value, again) = decode::<T>(input.clone());
    assert_eq!(again, input, "re-encoding changed the message");
    value
}

fn rejected<T: DeserializeOwned + std::fmt::Debug>(input: Value, needle: &str) {
    match serde_json::from_str::<T>(&input.to_string()) {
        Ok(v) => panic!("{input} must be rejected, decoded {v:?}"),
        Err(e) => assert!(e.to_string().contains(needle), "{input}: error `{e}` lacks `{needle}`"),
    }
}

#[test]
fn open_string_enum() {
    use open_enums::ToolKind;
    assert_eq!(exact::<ToolKind>(json!("read")), ToolKind::Read);
    // `other` is a real value here; the catch-all is titled `unknown`.
    assert_eq!(exact::<ToolKind>(json!("other")), ToolKind::Other);
    let ext = exact::<ToolKind>(json!("_acme_lint"));
    assert!(matches!(&ext, ToolKind::Unknown(v) if v.as_str() == "_acme_lint"));
    assert!(ext.is_extension() && !ext.is_future() && !ext.is_known());
    let future = exact::<ToolKind>(json!("compile"));
    assert!(future.is_future() && !future.is_extension());
    assert_eq!(future.as_str(), "compile");
    assert_eq!(future.to_string(), "compile");
    // A known spelling never yields the fallback, however it is obtained.
    assert_eq!("switch_mode".parse::<ToolKind>().unwrap(), ToolKind::SwitchMode);
    assert_eq!(ToolKind::from("read"), ToolKind::Read);
    assert_eq!(ToolKind::VALUES, &["read", "switch_mode", "other"]);
    rejected::<ToolKind>(json!(3), "ToolKind");
}

#[test]
fn closed_enums() {
    use open_enums::{Priority, Theme};
    assert_eq!(exact::<Priority>(json!("high")), Priority::High);
    rejected::<Priority>(json!("urgent"), "unknown variant `urgent`");
    assert_eq!("low".parse::<Priority>().unwrap(), Priority::Low);
    let err = "urgent".parse::<Priority>().unwrap_err();
    assert_eq!(err.to_string(), "unknown Priority value `urgent`");
    assert_eq!(exact::<Theme>(json!("dark")), Theme::Dark);
    rejected::<Theme>(json!("blue"), "unknown variant");
}

#[test]
fn open_integer_enum() {
    use open_enums::ErrorCode;
    assert_eq!(exact::<ErrorCode>(json!(-32700)), ErrorCode::ParseError);
    let other = exact::<ErrorCode>(json!(-31999));
    assert!(matches!(other, ErrorCode::Other(v) if v.get() == -31999));
    assert_eq!(other.value(), -31999);
    rejected::<ErrorCode>(json!(4_000_000_000_i64), "out of range");
}

#[test]
fn tagged_union_with_catch_all() {
    use tagged_unions::ContentBlock;
    let text = exact::<ContentBlock>(json!({"type": "text", "text": "hi"}));
    assert!(matches!(&text, ContentBlock::Text(t) if t.text == "hi"));
    assert_eq!(text.tag(), Some("text"));
    assert_eq!(exact::<ContentBlock>(json!({"type": "separator"})), ContentBlock::Separator);
    let image = exact::<ContentBlock>(json!({"type": "image", "data": "aGk=", "mimeType": "image/png"}));
    let ContentBlock::Image(img) = image else { panic!() };
    assert_eq!(img.data.decode().unwrap(), b"hi");
    // An unknown tag keeps the tag and the whole payload, nested values included.
    let unknown = json!({"type": "_acme_widget", "size": 3, "nested": {"a": [1, null]}});
    let other = exact::<ContentBlock>(unknown.clone());
    let ContentBlock::Other(v) = &other else { panic!("{other:?}") };
    assert_eq!(other.tag(), Some("_acme_widget"));
    assert_eq!(Value::Object(v.object().clone()), unknown);
    // A known tag with a malformed payload is an error, never the fallback.
    rejected::<ContentBlock>(json!({"type": "text"}), "missing field `text`");
    rejected::<ContentBlock>(json!({"type": "text", "text": 5}), "invalid `text` variant of ContentBlock");
    rejected::<ContentBlock>(json!({"text": "no tag"}), "missing field `type`");
    rejected::<ContentBlock>(json!("text"), "ContentBlock object");
}

#[test]
fn catch_all_that_requires_fields() {
    use tagged_unions::AuthMethod;
    let ok = json!({"type": "_vendor_sso", "methodId": "sso", "name": "SSO", "url": "x"});
    assert!(matches!(exact::<AuthMethod>(ok), AuthMethod::Other(_)));
    rejected::<AuthMethod>(json!({"type": "_vendor_sso", "name": "SSO"}), "missing required field `methodId`");
    rejected::<AuthMethod>(json!({"type": "_vendor_sso", "methodId": 7, "name": "SSO"}), "invalid field `methodId`");
}

#[test]
fn closed_union_with_untagged_default_arm() {
    use tagged_unions::{McpServer, Outcome};
    let stdio = exact::<McpServer>(json!({"name": "fs", "command": "mcp-fs"}));
    assert!(matches!(stdio, McpServer::Stdio(_)));
    assert_eq!(stdio.tag(), None);
    assert!(matches!(exact::<McpServer>(json!({"type": "http", "name": "w", "url": "u"})), McpServer::Http(_)));
    rejected::<McpServer>(json!({"type": "sse", "name": "w", "url": "u"}), "unknown `type` `sse` for McpServer");
    assert_eq!(exact::<Outcome>(json!({"outcome": "cancelled"})), Outcome::Cancelled);
    let selected = exact::<Outcome>(json!({"outcome": "selected", "optionId": "allow"}));
    assert!(matches!(selected, Outcome::Selected(s) if s.option_id == "allow"));
    rejected::<Outcome>(json!({"outcome": "selected"}), "missing field `optionId`");
}

#[test]
fn flattened_union_with_none_arm() {
    use flattened_unions::{IdleStateUpdate, IdleStateUpdateStopReason as R};
    let absent = exact::<IdleStateUpdate>(json!({}));
    assert_eq!(absent.stop_reason, R::None { explicit_null: false });
    let null = exact::<IdleStateUpdate>(json!({"stopReason": null}));
    assert_eq!(null.stop_reason, R::None { explicit_null: true });
    assert_eq!(exact::<IdleStateUpdate>(json!({"stopReason": "end_turn"})).stop_reason, R::EndTurn);
    let err = exact::<IdleStateUpdate>(json!({"stopReason": "error", "message": "boom", "_meta": {"k": 1}}));
    assert!(matches!(&err.stop_reason, R::Error(e) if e.message.value().map(String::as_str) == Some("boom")));
    let other = exact::<IdleStateUpdate>(json!({"stopReason": "_acme_paused", "detail": [1, 2]}));
    assert!(matches!(other.stop_reason, R::Other(_)));
    // A malformed stopReason (default-on-error) is treated as not reported.
    let (bad, again) = decode::<IdleStateUpdate>(json!({"stopReason": 42}));
    assert_eq!(bad.stop_reason, R::None { explicit_null: false });
    assert_eq!(again, json!({}));
}

#[test]
fn flattened_union_with_inline_arms_and_untagged_scope() {
    use flattened_unions::{FormMode, FormModeScope, SetConfigOptionRequest, SetConfigOptionRequestType as T};
    let b = exact::<SetConfigOptionRequest>(json!({"configId": "fast", "type": "boolean", "value": true}));
    assert!(matches!(&b.r#type, T::Boolean(v) if v.value));
    let i = exact::<SetConfigOptionRequest>(json!({"configId": "model", "type": "id", "value": "opus"}));
    assert!(matches!(&i.r#type, T::Id(v) if v.value == "opus"));
    rejected::<SetConfigOptionRequest>(
        json!({"configId": "x", "type": "boolean", "value": "yes"}),
        "invalid `boolean`",
    );
    let s = exact::<FormMode>(json!({"message": "m", "sessionId": "s1"}));
    assert!(matches!(s.scope, FormModeScope::Session(_)));
    let r = exact::<FormMode>(json!({"message": "m", "requestId": 4}));
    assert!(matches!(r.scope, FormModeScope::Request(_)));
    rejected::<FormMode>(json!({"message": "m"}), "did not match any variant of FormModeScope");
}

#[test]
fn untagged_unions() {
    use untagged_unions::{ContentValue as V, EmbeddedResourceResource as E, RequestId};
    assert_eq!(exact::<RequestId>(json!(null)), RequestId::Null(acp_bindings::runtime::ExplicitNull));
    assert_eq!(exact::<RequestId>(json!(7)), RequestId::Number(7));
    assert_eq!(exact::<RequestId>(json!("r-1")), RequestId::Str("r-1".into()));
    assert!(matches!(exact::<E>(json!({"uri": "file:///a", "text": "x"})), E::TextResourceContents(_)));
    assert!(matches!(exact::<E>(json!({"uri": "file:///a", "blob": "eA=="})), E::BlobResourceContents(_)));
    rejected::<E>(json!({"uri": "file:///a"}), "did not match any variant of EmbeddedResourceResource");
    assert_eq!(exact::<V>(json!("s")), V::String("s".into()));
    assert_eq!(exact::<V>(json!(3)), V::Integer(3));
    assert_eq!(exact::<V>(json!(2.5)), V::Number(2.5.into()));
    assert_eq!(exact::<V>(json!(3.0)), V::Number(3.0.into()), "a decimal that is whole is not an `integer`");
    assert_eq!(exact::<V>(json!(true)), V::Boolean(true));
    assert_eq!(exact::<V>(json!(["a"])), V::StringArray(vec!["a".into()]));
    assert_eq!(exact::<V>(json!({"x": 1})), V::Other(json!({"x": 1})));
}

#[test]
fn newtypes_bounds_base64_and_keyword_names() {
    use scalars_and_names::{Empty, Error, ExtRequest, Limits, Port, ProtocolVersion, SessionId};
    assert_eq!(exact::<SessionId>(json!("sess_1")).as_str(), "sess_1");
    assert_eq!(exact::<ProtocolVersion>(json!(65535)).0, 65535);
    rejected::<ProtocolVersion>(json!(65536), "65536");
    rejected::<Port>(json!(0), "0 is out of range: expected 1 to 65535 (#/$defs/Port)");
    let limits = json!({"sessionId": "s", "cols": 80, "data": "AAEC", "line": 3, "priority": 0.5, "offset": -10,
        "uri": "file:///x", "updatedAt": null});
    let l = exact::<Limits>(limits);
    assert_eq!(l.data.decode().unwrap(), vec![0, 1, 2]);
    assert!(l.updated_at.is_null());
    rejected::<Limits>(
        json!({"sessionId": "s", "cols": 0, "data": ""}),
        "out of range: expected 1 to 65535 (#/$defs/Limits/properties/cols)",
    );
    rejected::<Limits>(json!({"sessionId": "s", "cols": 1, "data": "", "offset": 11}), "out of range");
    rejected::<Limits>(json!({"sessionId": "s", "cols": 1, "data": "", "priority": 1.5}), "out of range");
    // A `number` written as an integer comes back as an integer, a decimal as a decimal.
    for priority in [json!(1), json!(0), json!(1.0), json!(0.25)] {
        let l = exact::<Limits>(json!({"sessionId": "s", "cols": 1, "data": "", "priority": priority}));
        assert_eq!(l.priority.value().map(|p| p.is_integer()), Some(priority.is_u64()));
    }
    // `line` is default-on-error: an out-of-range value becomes absent.
    let (l, again) = decode::<Limits>(json!({"sessionId": "s", "cols": 1, "data": "", "line": 0}));
    assert!(l.line.is_absent());
    assert_eq!(again, json!({"sessionId": "s", "cols": 1, "data": ""}));
    let e = exact::<Error>(json!({"type": "t", "const": null, "enum": ["a"], "override": "o", "anyOf": ["x"],
        "required": null, "properties": {"a": 1}}));
    assert_eq!(e.r#type, "t");
    assert!(e.r#const.is_null());
    assert_eq!(e.properties.get("a"), Some(&1));
    assert_eq!(exact::<ExtRequest>(json!([1, {"a": null}])).0, json!([1, {"a": null}]));
    exact::<Empty>(json!({}));
    let built = Limits::new("s", 80u16, acp_bindings::runtime::Base64String::encode(b"hi")).line(4u32);
    assert_eq!(serde_json::to_value(&built).unwrap(), json!({"sessionId": "s", "cols": 80, "data": "aGk=", "line": 4}));
}

#[test]
fn x_deserialize_keywords() {
    use x_keywords::{Kind, Update};
    let full = json!({"id": "u", "title": null, "kind": "read", "locations": [], "entries": [{"path": "a"}],
        "strictItems": [], "args": [], "env": ["A=1"], "rawInput": null, "loadSession": false, "_meta": {"a": null}});
    let u = exact::<Update>(full);
    assert!(u.title.is_null() && u.raw_input == Some(Value::Null) && u.kind.value() == Some(&Kind::Read));
    // Absent stays absent: no default is written back.
    let minimal = exact::<Update>(json!({"id": "u", "entries": [], "env": []}));
    assert!(minimal.load_session.is_none() && minimal.title.is_absent() && minimal.args.is_none());
    // default-on-error: wrong shapes become the default; the rest survives.
    let (_, again) = decode::<Update>(json!({"id": "u", "title": 5, "kind": {"x": 1}, "locations": "bad",
        "entries": 7, "env": [], "_meta": [1]}));
    assert_eq!(again, json!({"id": "u", "entries": [], "env": []}));
    // skip-invalid-items: a bad item is dropped, the rest kept.
    let (_, again) = decode::<Update>(json!({"id": "u", "entries": [{"path": "a"}, {"nope": 1}, {"path": "b"}],
        "locations": [{"path": 1}, {"path": "c"}], "strictItems": [{"x": 1}, {"path": "d"}], "env": []}));
    assert_eq!(
        again,
        json!({"id": "u", "entries": [{"path": "a"}, {"path": "b"}], "locations": [{"path": "c"}],
        "strictItems": [{"path": "d"}], "env": []})
    );
    // skip-invalid-items without default-on-error: a non-list is still an error.
    rejected::<Update>(json!({"id": "u", "entries": [], "env": [], "strictItems": 3}), "invalid type");
    // default-on-null: optional null is not written back; required null becomes [].
    let (u, again) = decode::<Update>(json!({"id": "u", "entries": [], "args": null, "env": null}));
    assert!(u.args.is_none() && u.env.is_empty());
    assert_eq!(again, json!({"id": "u", "entries": [], "env": []}));
    // Broken JSON still fails.
    assert!(serde_json::from_str::<Update>(r#"{"id": "u", "entries": [], "env": [], "title": tru}"#).is_err());
    rejected::<Update>(json!({"entries": [], "env": []}), "missing field `id`");
}

#[test]
fn methods_aliases_and_envelopes() {
    use methods_and_envelopes::*;
    assert_eq!(InitializeRequest::METHOD, "initialize");
    assert_eq!(InitializeProxyRequest::METHOD, "proxy/initialize");
    assert_eq!(InitializeProxyRequest::SIDE, "proxy");
    let p = exact::<InitializeProxyRequest>(json!({"protocolVersion": 2}));
    assert_eq!(p.0.protocol_version, 2);
    exact::<LogoutRequest>(json!({}));
    let req = exact::<ClientRequest>(json!({"id": 1, "method": "auth/logout", "params": null}));
    assert!(req.params.is_null());
    let req = exact::<ClientRequest>(json!({"id": "a", "method": "initialize", "params": {"protocolVersion": 1}}));
    assert!(matches!(req.params.value(), Some(ClientRequestParams::InitializeRequest(_))));
    let err =
        exact::<ClientResponse>(json!({"id": null, "error": {"code": -32700, "message": "parse", "data": {"x": 1}}}));
    let ClientResponse::Error(e) = err else { panic!() };
    assert!(e.id.is_none());
    assert_eq!(e.error.additional_properties.get("data"), Some(&json!({"x": 1})));
}

/// Typed dispatch and `TYPE_NAMES` generated for a fixture (the runtime path
/// is a parameter of the rpc emitter, so fixtures get the same code).
#[test]
fn typed_dispatch_on_a_fixture() {
    use methods_and_envelopes::rpc::{self, Message, ParamsForm};
    assert!(methods_and_envelopes::TYPE_NAMES.contains(&"InitializeProxyRequest"));
    assert_eq!(rpc::RequestToAgent::METHODS, &["initialize", "auth/logout"]);
    let text = r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":2}}"#;
    let m = Message::decode(text, |_| None).unwrap();
    let Message::Request { request: rpc::Request::Agent(rpc::RequestToAgent::Initialize(p)), .. } = &m else {
        panic!("{m:?}")
    };
    assert_eq!(p.protocol_version, 2);
    assert_eq!(serde_json::to_string(&m).unwrap(), text);
    // `auth/logout` has no required field: omitted params are accepted and stay omitted.
    let (req, form) = rpc::RequestToAgent::decode("auth/logout", None).unwrap();
    assert_eq!((req.method(), form), ("auth/logout", ParamsForm::Absent));
    assert_eq!(req.encode(form).unwrap(), None);
    // `initialize` requires `protocolVersion`: omitted params are an error with a pointer.
    assert!(rpc::RequestToAgent::decode("initialize", None).is_err());
    let (proxy, _) = rpc::RequestToProxy::decode("proxy/initialize", Some(&raw(r#"{"protocolVersion":1}"#))).unwrap();
    assert_eq!(proxy.method(), "proxy/initialize");
}

fn raw(text: &str) -> Box<serde_json::value::RawValue> {
    serde_json::value::RawValue::from_string(text.to_owned()).unwrap()
}

#[test]
fn string_pattern_and_min_length_are_checked_with_their_pointer() {
    use acp_bindings::runtime::Nullable;
    use string_rules::Cost;
    let c = exact::<Cost>(json!({"amount": 1.5, "currency": "EUR", "note": "paid", "tag": "_x"}));
    assert_eq!((c.currency.as_str(), c.tag.as_deref()), ("EUR", Some("_x")));
    assert_eq!(c.note, Nullable::Value("paid".to_owned()));
    // The pattern is JSON Schema's: unanchored, so `^` / `$` anchor it.
    exact::<Cost>(json!({"amount": 2.5, "currency": "USD", "tag": "abc"}));
    rejected::<Cost>(
        json!({"amount": 1, "currency": "usd"}),
        r#""usd" does not match the `pattern` "^[A-Z]{3}$" of #/$defs/Cost/properties/currency"#,
    );
    rejected::<Cost>(json!({"amount": 1, "currency": "EURO"}), "#/$defs/Cost/properties/currency");
    rejected::<Cost>(
        json!({"amount": 1, "currency": "EUR", "tag": "a"}),
        "shorter than the 2 character(s) `minLength` of #/$defs/Cost/properties/tag",
    );
    rejected::<Cost>(json!({"amount": 1, "currency": "EUR", "tag": "A1"}), "#/$defs/Cost/properties/tag");
    // minLength counts code points, not bytes.
    rejected::<Cost>(json!({"amount": 1, "currency": "EUR", "tag": "é"}), "minLength");
    // Default-on-error: a value that breaks the rule decodes as the default.
    let (c, again) = decode::<Cost>(json!({"amount": 1, "currency": "EUR", "note": ""}));
    assert_eq!((c.note, again), (Nullable::Absent, json!({"amount": 1, "currency": "EUR"})));
    let c = exact::<Cost>(json!({"amount": 1.5, "currency": "EUR", "note": null}));
    assert_eq!(c.note, Nullable::Null);
}

/// `minItems` / `maxItems` on list properties (`schema/fixtures/item_counts.json`):
/// checked after the list's own rule, the error naming the property's pointer.
#[test]
fn item_counts_are_checked_with_their_pointer() {
    use acp_bindings::runtime::Nullable;
    use item_counts::{Ballot, Pair};
    let b = exact::<Ballot>(json!({"choices": ["a"], "ranks": [1, 2, 3], "notes": ["n"], "any": []}));
    assert_eq!((b.choices.len(), b.ranks, b.notes), (1, Nullable::Value(vec![1, 2, 3]), Some(vec!["n".to_owned()])));
    rejected::<Ballot>(
        json!({"choices": []}),
        "0 item(s) where at least 1 are allowed (`minItems` of #/$defs/Ballot/properties/choices)",
    );
    rejected::<Ballot>(
        json!({"choices": ["a"], "ranks": [1, 2, 3, 4]}),
        "4 item(s) where at most 3 are allowed (`maxItems` of #/$defs/Ballot/properties/ranks)",
    );
    rejected::<Ballot>(json!({"choices": ["a"], "ranks": []}), "`minItems` of #/$defs/Ballot/properties/ranks");
    // `null` and an omitted property hold no list: nothing to count.
    assert_eq!(exact::<Ballot>(json!({"choices": ["a"], "ranks": null})).ranks, Nullable::Null);
    assert_eq!(exact::<Ballot>(json!({"choices": ["a"]})).ranks, Nullable::Absent);
    // Default-on-error: the bad items are dropped first, then a list out of range is the default.
    let (b, _) = decode::<Ballot>(json!({"choices": ["a"], "notes": [1, "kept"]}));
    assert_eq!(b.notes, Some(vec!["kept".to_owned()]));
    let (b, again) = decode::<Ballot>(json!({"choices": ["a"], "notes": [1, 2]}));
    assert_eq!((b.notes, again), (None, json!({"choices": ["a"]})));
    // A closed object (serde's derive with the rule's `deserialize_with`).
    assert_eq!(exact::<Pair>(json!({"ends": [0.5, 2.5]})).ends.len(), 2);
    rejected::<Pair>(json!({"ends": [1.0]}), "`minItems` of #/$defs/Pair/properties/ends");
    rejected::<Pair>(json!({"ends": [1.0, 2.0, 3.0]}), "`maxItems` of #/$defs/Pair/properties/ends");
    // The crate's reader (`json::from_str`) reports the same.
    let e = acp_bindings::json::from_str::<Ballot>(r#"{"choices": []}"#).unwrap_err();
    assert!(e.to_string().contains("`minItems` of #/$defs/Ballot/properties/choices"), "{e}");
}

/// Constructs of the spec's intermediate revisions (`schema/fixtures/intermediate_revisions.json`).
#[test]
fn intermediate_revision_constructs() {
    use intermediate_revisions::{Block, Holder, Level, NonEmpty, Setting, Shape};
    // A tag the `not` guard reserves: no arm accepts it; other unknown tags go to the catch-all.
    assert!(matches!(exact::<Block>(json!({"type": "text", "text": "hi"})), Block::Text(_)));
    rejected::<Block>(json!({"type": "video", "url": "x"}), "`type` `video` is reserved in Block");
    assert!(matches!(exact::<Block>(json!({"type": "_acme", "x": 1})), Block::Other(_)));
    // Unnamed untagged arms are named from their shape.
    assert_eq!(exact::<Setting>(json!("s")), Setting::String("s".into()));
    assert_eq!(exact::<Setting>(json!(3)), Setting::Integer(3));
    assert_eq!(exact::<Setting>(json!(["a"])), Setting::StringArray(vec!["a".into()]));
    assert!(matches!(exact::<Setting>(json!({"min": 1})), Setting::Min(_)));
    assert!(matches!(exact::<Setting>(json!({"max": 9})), Setting::Max(_)));
    // `not` on a definition excludes values.
    assert_eq!(exact::<NonEmpty>(json!("x")).as_str(), "x");
    rejected::<NonEmpty>(json!(""), r#""" is excluded by `not` at #/$defs/NonEmpty/not"#);
    rejected::<Level>(json!("debug"), "excluded");
    exact::<Level>(json!("info"));
    rejected::<Holder>(json!({"name": ""}), "excluded");
    // A `not` guard without a discriminator: an object that is neither arm is kept whole.
    assert!(matches!(exact::<Shape>(json!({"radius": 1.5})), Shape::Circle(_)));
    assert!(matches!(exact::<Shape>(json!({"kind": "hexagon", "n": 6})), Shape::Other(_)));
    rejected::<Shape>(json!({"n": 6}), "unknown variant of Shape is missing required field `kind`");
    rejected::<Shape>(json!("round"), "did not match any variant of Shape");
    exact::<Holder>(json!({"name": "a", "level": "warn", "shape": {"kind": "blob"}}));
    // Integer `const` arms without a title: named from the bold lead or the value.
    use intermediate_revisions::RpcCode;
    assert_eq!(exact::<RpcCode>(json!(-32700)), RpcCode::ParseError);
    assert_eq!(exact::<RpcCode>(json!(-32601)), RpcCode::MethodNotFound);
    assert_eq!(exact::<RpcCode>(json!(-32000)), RpcCode::Code32000);
    assert_eq!(exact::<RpcCode>(json!(7)), RpcCode::Code7);
    assert!(matches!(exact::<RpcCode>(json!(8)), RpcCode::Other(v) if v.get() == 8));

    // Boolean schemas and fixed values on plain properties.
    use intermediate_revisions::{Anything, Envelope, EnvelopeJsonrpc, EnvelopeKind, Role};
    let e = exact::<Envelope>(json!({"jsonrpc": "2.0", "kind": "note", "raw": [1, {"a": null}], "role": "user"}));
    assert_eq!((e.jsonrpc, e.kind, e.role), (EnvelopeJsonrpc::V20, Some(EnvelopeKind::Note), Some(Role::User)));
    exact::<Envelope>(json!({"jsonrpc": "2.0", "raw": null, "payload": {"any": ["thing"]}}));
    // `true` is any JSON value, present when required.
    rejected::<Envelope>(json!({"jsonrpc": "2.0"}), "missing field `raw`");
    // A fixed value is checked.
    rejected::<Envelope>(json!({"jsonrpc": "1.0", "raw": 1}), "1.0");
    rejected::<Envelope>(json!({"jsonrpc": "2.0", "raw": 1, "kind": "memo"}), "memo");
    // `false`: the property must be absent, whatever its value.
    rejected::<Envelope>(json!({"jsonrpc": "2.0", "raw": 1, "legacy": null}), "`legacy` is not allowed in Envelope");
    // A multi-value `enum` arm beside a catch-all: an open enum.
    assert!(matches!(exact::<Role>(json!("system")), Role::Other(v) if v.as_str() == "system"));
    assert_eq!(exact::<Anything>(json!(3.5)).0, json!(3.5));

    // Recursive definitions, boxed where they hold themselves in place.
    use intermediate_revisions::{Expr, Sum, TreeNode};
    let tree = exact::<TreeNode>(json!({
        "label": "a", "parent": {"label": "root"}, "next": null,
        "children": [{"label": "b", "children": [{"label": "c", "next": {"label": "d"}}]}]
    }));
    assert_eq!(tree.parent.as_ref().map(|p| p.label.as_str()), Some("root"));
    let built = TreeNode::new("x").parent(TreeNode::new("y"));
    assert_eq!(serde_json::to_value(&built).unwrap(), json!({"label": "x", "parent": {"label": "y"}}));
    let e = exact::<Expr>(json!({"left": 1, "right": {"left": 2, "right": 3}}));
    let Expr::Sum(sum) = e else { panic!("a sum") };
    assert!(matches!(&*sum, Sum { right, .. } if matches!(&**right, Expr::Sum(_))));

    // `not: {required: [type]}`: the no-discriminator arm only when `type` is absent.
    use intermediate_revisions::{LocalServer, ParticipantType, Party, Server};
    assert!(matches!(exact::<Server>(json!({"command": "ls"})), Server::Local(_)));
    assert!(matches!(exact::<Server>(json!({"type": "remote", "url": "u"})), Server::Remote(_)));
    rejected::<Server>(json!({"type": "pipe", "command": "ls"}), "unknown `type` `pipe` for Server");
    rejected::<LocalServer>(json!({"command": "ls", "type": "x"}), "`type` is not allowed in LocalServer");
    // `not` making one tag the default: `type` absent or `agent`.
    let Party::Agent(p) = exact::<Party>(json!({"name": "bot"})) else { panic!("the default arm") };
    assert_eq!(p.r#type, None);
    let Party::Agent(p) = exact::<Party>(json!({"type": "agent", "name": "bot"})) else { panic!("the agent arm") };
    assert_eq!(p.r#type, Some(ParticipantType::Agent));
    assert!(matches!(exact::<Party>(json!({"type": "human", "handle": "h"})), Party::Human(_)));
    rejected::<Party>(json!({"type": "robot", "name": "r"}), "unknown variant `robot`, expected `agent`");
}

/// Unions of `schema/fixtures/union_hints.json`: catch-alls whose `not` lists
/// the other arms inline, and a `discriminator` no arm fixes (a hint, ignored).
#[test]
fn untagged_unions_with_inline_guards_and_an_ignored_discriminator() {
    use union_hints::{EmbeddedResourceResource as E, McpServer, ResourceRef};
    let text = exact::<E>(json!({"uri": "file:///a", "mimeType": "text/plain", "text": "x"}));
    assert!(matches!(&text, E::TextResourceContents(t) if t.text == "x"));
    let E::BlobResourceContents(blob) = exact::<E>(json!({"uri": "file:///a", "blob": "aGk="})) else {
        panic!("the blob arm")
    };
    assert_eq!(blob.blob.decode().unwrap(), b"hi");
    // An object neither arm accepts is kept whole, nested values and key order included.
    let unknown = r#"{"uri":"file:///a","zeta":[1,{"b":null,"a":2}],"alpha":"x","mimeType":"video/mp4"}"#;
    let other: E = serde_json::from_str(unknown).unwrap();
    let E::Other(v) = &other else { panic!("{other:?}") };
    assert_eq!(v.object().get("alpha"), Some(&json!("x")));
    assert_eq!(serde_json::to_string(&other).unwrap(), unknown, "re-encoded byte for byte");
    // The catch-all's own rules still hold; a value that is not an object is no arm.
    rejected::<E>(json!({"blob": 3}), "unknown variant of EmbeddedResourceResource is missing required field `uri`");
    rejected::<E>(json!({"uri": 7}), "EmbeddedResourceResource");
    rejected::<E>(json!("file:///a"), "did not match any variant of EmbeddedResourceResource");
    rejected::<E>(json!(null), "did not match any variant of EmbeddedResourceResource");

    // A `$ref` arm, an inline string arm, and an object catch-all without rules.
    assert!(matches!(exact::<ResourceRef>(json!({"name": "n", "uri": "u"})), ResourceRef::Link(_)));
    assert_eq!(exact::<ResourceRef>(json!("file:///b")), ResourceRef::Uri("file:///b".into()));
    let other = exact::<ResourceRef>(json!({"href": "u"}));
    assert!(matches!(&other, ResourceRef::Other(v) if v.object().get("href") == Some(&json!("u"))));
    rejected::<ResourceRef>(json!(3), "did not match any variant of ResourceRef");

    // `discriminator: {propertyName: "type"}` with no arm fixing `type`: told apart by the arms.
    let stdio = exact::<McpServer>(json!({"name": "fs", "command": "mcp-fs", "args": []}));
    assert!(matches!(&stdio, McpServer::Stdio(s) if s.command == "mcp-fs"));
    let sse = exact::<McpServer>(json!({"name": "web", "url": "https://x"}));
    assert!(matches!(&sse, McpServer::Sse(s) if s.url == "https://x"));
    // `type` decides nothing: an unknown property, kept by the arm that decodes.
    let typed = exact::<McpServer>(json!({"type": "sse", "name": "fs", "command": "c", "args": ["-v"]}));
    assert!(matches!(typed, McpServer::Stdio(_)));
    rejected::<McpServer>(json!({"type": "stdio", "name": "fs"}), "did not match any variant of McpServer");
    rejected::<McpServer>(json!("fs"), "did not match any variant of McpServer");
}

/// The constructs of the specification's early revisions that once stopped
/// `codegen` (`schema/fixtures/early_revisions.json`): they generate, and
/// decode as JSON Schema means them.
#[test]
fn early_revision_constructs() {
    use early_revisions::*;
    // A definition named like a typed-dispatch item is the Rust item `MessageDef`;
    // the dispatch module keeps `rpc::Message`, and the wire is the schema's.
    let req = exact::<SendRequest>(json!({"message": {"role": "user", "text": "hi"}, "version": "1.2.3"}));
    let m: &MessageDef = &req.message;
    assert_eq!((m.role.as_str(), m.text.as_str()), ("user", "hi"));
    let line = r#"{"jsonrpc":"2.0","id":1,"method":"chat/send","params":{"message":{"role":"user","text":"hi"}}}"#;
    let decoded = rpc::Message::decode(line, |_| None).unwrap();
    assert_eq!(serde_json::to_string(&decoded).unwrap(), line);
    // `attachment` is spelled like `Attachment` but for its case: the later is `Attachment2`.
    let p = exact::<Post>(json!({
        "message": {"role": "a", "text": "b"},
        "attachments": [{"url": "u"}],
        "local": {"path": "p"},
        "label": "short"
    }));
    let (a, b): (&Attachment, &Attachment2) = (&p.attachments.as_ref().unwrap()[0], p.local.as_ref().unwrap());
    assert_eq!((a.url.as_str(), b.path.as_str()), ("u", "p"));

    // String rules on a whole definition: checked by the newtype, the error naming it.
    assert_eq!(exact::<SemVer>(json!("10.0.1")).as_str(), "10.0.1");
    rejected::<SemVer>(
        json!("1.2"),
        r#""1.2" does not match the `pattern` "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$" of #/$defs/SemVer"#,
    );
    rejected::<SendRequest>(json!({"message": {"role": "a", "text": "b"}, "version": "01.0.0"}), "#/$defs/SemVer");
    exact::<Label>(json!("éééééééé"));
    rejected::<Label>(json!(""), "shorter than the 1 character(s) `minLength` of #/$defs/Label");
    rejected::<Label>(json!("123456789"), "longer than the 8 character(s) `maxLength` of #/$defs/Label");
    // The rules hold on every path that makes one from a string.
    assert!(acp_bindings::runtime::de::str_rule_error::<__LabelRule>("").is_some());
    assert!(acp_bindings::json::from_str::<Label>("\"\"").is_err());
    assert!(acp_bindings::json::from_str::<SemVer>("\"0.1.0\"").is_ok());

    // An arm names the discriminator without a `const`: told apart by the arms, each
    // fixed value checked as a property of its arm.
    assert!(matches!(exact::<Part>(json!({"type": "text", "text": "t"})), Part::Text(_)));
    assert!(matches!(exact::<Part>(json!({"type": "image", "data": "d"})), Part::Image(_)));
    let custom = exact::<Part>(json!({"type": "chart", "custom": {"bars": 3}}));
    assert!(matches!(&custom, Part::Custom(c) if c.r#type == "chart"));
    // A known tag with the other arm's members is that other arm's, as `anyOf` allows.
    assert!(matches!(exact::<Part>(json!({"type": "text", "custom": {}})), Part::Custom(_)));
    rejected::<Part>(json!({"type": "text"}), "Part");

    // A catch-all whose `not` names the arms by their tag alone.
    assert!(matches!(exact::<Block>(json!({"type": "text", "text": "t"})), Block::TextBlock(_)));
    assert!(matches!(exact::<Block>(json!({"type": "image", "data": "d"})), Block::ImageBlock(_)));
    let other = exact::<Block>(json!({"type": "video", "url": "v", "length": 3}));
    assert!(matches!(other, Block::Other(_)));
}

/// Each renaming is a warning naming the file, the pointer and the new name.
#[test]
fn renamed_items_are_warnings() {
    let root = super::root();
    let (module, _) =
        xtask::generate::fixture(&root, &root.join("schema/fixtures/early_revisions.json")).expect("generates");
    let w = module.warnings.join("\n");
    assert!(
        w.contains(
            "schema/fixtures/early_revisions.json: #/$defs/Message: `Message` is renamed `MessageDef` in the generated \
             code: one of the generator's own items (typed dispatch, peers or reducer) is `Message`"
        ),
        "{w}"
    );
    assert!(w.contains("#/$defs/attachment: `attachment` is renamed `Attachment2`"), "{w}");
    assert!(w.contains("#/$defs/Part/anyOf/2: an arm names the discriminator `type` without a `const`"), "{w}");
}

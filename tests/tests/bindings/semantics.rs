//! Direct checks of the generated v1/v2 types for the wire rules
//! `docs/generated-types.md` states in "What the generated types mean on the wire": null vs omitted,
//! open enums and unions, the `x-deserialize-*` keywords.

use acp_bindings::Patch;
use acp_bindings::{v1, v2};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

fn exact<T: DeserializeOwned + Serialize>(input: Value) -> T {
    let value: T = serde_json::from_str(&input.to_string()).unwrap_or_else(|e| panic!("{input}: {e}"));
    assert_eq!(serde_json::to_value(&value).unwrap(), input, "re-encoding changed the message");
    value
}

fn error_of<T: DeserializeOwned + std::fmt::Debug>(input: Value) -> String {
    match serde_json::from_str::<T>(&input.to_string()) {
        Ok(v) => panic!("{input} must be rejected, decoded {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn v2_tool_call_update_keeps_null_apart_from_omitted() {
    let n = exact::<v2::UpdateSessionNotification>(json!({
        "sessionId": "sess_abc123",
        "update": {"sessionUpdate": "tool_call_update", "toolCallId": "call_001", "title": null,
                   "kind": null, "status": "completed", "content": null, "rawOutput": null}
    }));
    let v2::SessionUpdate::ToolCallUpdate(u) = n.update else { panic!("{:?}", n.update) };
    assert!(u.title.is_clear() && u.kind.is_clear() && u.content.is_clear());
    assert!(u.name.is_keep() && u.locations.is_keep() && u.raw_input.is_keep());
    assert!(u.raw_output.is_clear());
    assert_eq!(u.status, Patch::Set(v2::ToolCallStatus::Completed));
}

#[test]
fn v2_open_enums_keep_unknown_values() {
    let k = exact::<v2::ToolKind>(json!("_acme_deploy"));
    assert!(k.is_extension() && matches!(&k, v2::ToolKind::Unknown(v) if v.as_str() == "_acme_deploy"));
    assert_eq!(exact::<v2::ToolKind>(json!("other")), v2::ToolKind::Other);
    let s = exact::<v2::ToolCallStatus>(json!("queued"));
    assert!(s.is_future());
    assert_eq!("in_progress".parse::<v2::ToolCallStatus>().unwrap(), v2::ToolCallStatus::InProgress);
    let code = exact::<v2::ErrorCode>(json!(-32099));
    assert_eq!(code.value(), -32099);
    assert_eq!(exact::<v2::ErrorCode>(json!(-32002)), v2::ErrorCode::ResourceNotFound);
}

#[test]
fn v1_enums_and_unions_stay_closed() {
    assert!(error_of::<v1::ToolKind>(json!("_acme_deploy")).contains("unknown variant"));
    let e = error_of::<v1::SessionNotification>(json!({"sessionId": "s", "update": {"sessionUpdate": "_vendor_x"}}));
    assert!(e.contains("unknown `sessionUpdate` `_vendor_x` for SessionUpdate"), "{e}");
    assert_eq!(exact::<v1::ToolKind>(json!("think")), v1::ToolKind::Think);
}

#[test]
fn v2_unknown_session_update_keeps_tag_and_payload() {
    let input = json!({"sessionId": "s", "update": {"sessionUpdate": "_zed_cursor", "line": 4, "meta": {"a": [1]}}});
    let n = exact::<v2::UpdateSessionNotification>(input);
    assert_eq!(n.update.tag(), Some("_zed_cursor"));
    let v2::SessionUpdate::Other(v) = &n.update else { panic!() };
    assert_eq!(v.get("line"), Some(&json!(4)));
    // A known tag with a malformed payload is an error, not the fallback.
    let e = error_of::<v2::SessionUpdate>(json!({"sessionUpdate": "tool_call_update", "title": "x"}));
    assert!(e.contains("missing field `toolCallId`"), "{e}");
}

#[test]
fn v2_catch_all_arms_enforce_required_fields() {
    exact::<v2::AuthMethod>(json!({"type": "_sso", "methodId": "m", "name": "SSO"}));
    assert!(error_of::<v2::AuthMethod>(json!({"type": "_sso", "name": "SSO"})).contains("`methodId`"));
    exact::<v2::AvailableCommand>(json!({"type": "_macro", "name": "m", "description": "d"}));
    assert!(error_of::<v2::AvailableCommand>(json!({"type": "_macro", "name": "m"})).contains("`description`"));
    exact::<v2::PlanUpdateContent>(json!({"type": "_kanban", "planId": "main", "columns": 3}));
    assert!(error_of::<v2::PlanUpdateContent>(json!({"type": "_kanban"})).contains("`planId`"));
}

#[test]
fn v2_idle_state_update_stop_reason() {
    use v2::IdleStateUpdateStopReason as R;
    let idle = |extra: Value| {
        let mut update = json!({"sessionUpdate": "state_update", "state": "idle"});
        update.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        json!({"sessionId": "s", "update": update})
    };
    let reason = |n: v2::UpdateSessionNotification| match n.update {
        v2::SessionUpdate::StateUpdate(v2::StateUpdate::Idle(i)) => i.stop_reason,
        other => panic!("{other:?}"),
    };
    assert_eq!(reason(exact(idle(json!({})))), R::None { explicit_null: false });
    assert_eq!(reason(exact(idle(json!({"stopReason": null})))), R::None { explicit_null: true });
    assert_eq!(reason(exact(idle(json!({"stopReason": "end_turn"})))), R::EndTurn);
    assert!(matches!(reason(exact(idle(json!({"stopReason": "_paused", "until": 3})))), R::Other(_)));
}

#[test]
fn v1_initialize_response_adds_no_defaults() {
    // The official crate writes `loadSession: false` and friends; we must not.
    let r = exact::<v1::InitializeResponse>(json!({"protocolVersion": 1}));
    assert!(r.agent_capabilities.is_none());
    exact::<v1::InitializeResponse>(json!({"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": {}}}));
}

#[test]
fn v2_default_on_error_keeps_the_rest_of_the_message() {
    let input = json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "c",
        "title": 42, "kind": {"bad": true}, "status": "completed",
        "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}, {"type": "diff"}]}});
    let n: v2::UpdateSessionNotification = serde_json::from_str(&input.to_string()).unwrap();
    assert_eq!(
        serde_json::to_value(&n).unwrap(),
        json!({"sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "c",
            "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]}})
    );
}

#[test]
fn builders_write_only_what_was_set() {
    let u = v2::ToolCallUpdate::new("call_1").title("Reading").kind(v2::ToolKind::Read);
    assert_eq!(serde_json::to_value(&u).unwrap(), json!({"toolCallId": "call_1", "title": "Reading", "kind": "read"}));
    let mut cleared = u.clone();
    cleared.title = Patch::Clear;
    assert_eq!(serde_json::to_value(&cleared).unwrap()["title"], Value::Null);
    let n = v2::UpdateSessionNotification::new("sess", v2::SessionUpdate::ToolCallUpdate(u));
    assert_eq!(n.session_id.as_str(), "sess");
    assert_eq!(v2::PromptRequest::METHOD, "session/prompt");
    assert_eq!(v1::PromptRequest::METHOD, "session/prompt");
}

#[test]
fn request_ids_differ_between_versions() {
    assert_eq!(exact::<v1::RequestId>(json!(null)), v1::RequestId::Null(acp_bindings::runtime::ExplicitNull));
    assert_eq!(exact::<v2::RequestId>(json!(12)), v2::RequestId::Number(12));
    assert!(serde_json::from_str::<v2::RequestId>("null").is_err());
}

#[test]
fn json_schema_of_generated_types_says_what_the_schema_says() {
    let schema = schemars::schema_for!(v2::UpdateSessionNotification);
    let value = schema.as_value();
    let defs = value["$defs"].as_object().expect("referenced types become definitions");
    for name in ["SessionUpdate", "ToolCallUpdate", "ToolKind", "ContentBlock", "SessionId"] {
        assert!(defs.contains_key(name), "missing definition {name}: {:?}", defs.keys().collect::<Vec<_>>());
    }
    // The root is rendered from the model: its properties, with refs into `$defs`.
    assert_eq!(value["required"], json!(["sessionId", "update"]));
    assert_eq!(value["properties"]["update"]["$ref"], json!("#/$defs/SessionUpdate"));
    assert_eq!(value["x-method"], json!("session/update"));
    // Open enums keep their catch-all arm, open unions its `not` guard of the
    // known tags; the `x-` keywords are kept.
    let tool_kind = &defs["ToolKind"]["anyOf"];
    assert_eq!(tool_kind.as_array().unwrap().last().unwrap()["title"], json!("unknown"));
    let arms = defs["SessionUpdate"]["anyOf"].as_array().unwrap();
    let other = arms.last().unwrap();
    assert_eq!(other["title"], json!("other"));
    let guarded = other["not"]["anyOf"].as_array().unwrap();
    assert_eq!(guarded.len(), arms.len() - 1);
    assert_eq!(guarded[0]["properties"]["sessionUpdate"]["const"], arms[0]["properties"]["sessionUpdate"]["const"]);
    assert_eq!(defs["ToolCallUpdate"]["properties"]["title"]["x-deserialize-default-on-error"], json!(true));
    // v1 and v2 types of the same name get distinct ids.
    let both = schemars::SchemaGenerator::default().into_root_schema_for::<(v1::ToolCallUpdate, v2::ToolCallUpdate)>();
    let defs = both.as_value()["$defs"].as_object().unwrap();
    assert!(
        defs.keys().filter(|k| k.starts_with("ToolCallUpdate")).count() == 2,
        "{:?}",
        defs.keys().collect::<Vec<_>>()
    );
}

#[test]
fn required_nullable_fields_must_be_present() {
    let ok = exact::<v2::AgentResponse>(json!({"id": null, "error": {"code": -32700, "message": "Parse error"}}));
    assert!(matches!(ok, v2::AgentResponse::Error(e) if e.id.is_none()));
    let e = error_of::<v2::AgentResponseError>(json!({"error": {"code": -32700, "message": "Parse error"}}));
    assert!(e.contains("missing field `id`"), "{e}");
}

#[test]
fn closed_unions_name_their_tag_without_option_and_versions_are_constants() {
    // v1 `SessionUpdate` is closed and every arm has a tag: `tag()` is `&'static str`.
    let u: v1::SessionNotification = exact(json!({
        "sessionId": "s1",
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    }));
    let tag: &'static str = u.update.tag();
    assert_eq!(tag, "agent_message_chunk");
    let block = v1::ContentBlock::Text(v1::TextContent::new("x"));
    assert_eq!(block.tag(), "text");
    // An open union may carry any tag: `Option<&str>` borrowed from the value.
    let open: v2::UpdateSessionNotification =
        exact(json!({"sessionId": "s1", "update": {"sessionUpdate": "_zed_cursor", "line": 3}}));
    assert_eq!(open.update.tag(), Some("_zed_cursor"));
    // The protocol version each module speaks, as the schema's type.
    assert_eq!(v1::PROTOCOL_VERSION, v1::ProtocolVersion(1));
    assert_eq!(v2::PROTOCOL_VERSION, v2::ProtocolVersion(2));
    assert_eq!(serde_json::to_value(v2::PROTOCOL_VERSION).unwrap(), json!(2));
}

#[test]
fn request_ids_key_maps_of_pending_requests() {
    use std::collections::{BTreeSet, HashMap};
    let mut pending: HashMap<v2::RequestId, &str> = HashMap::new();
    pending.insert(serde_json::from_value(json!(1)).unwrap(), "session/prompt");
    pending.insert(serde_json::from_value(json!("abc")).unwrap(), "fs/read_text_file");
    assert_eq!(pending[&v2::RequestId::Number(1)], "session/prompt");
    assert_eq!(pending[&v2::RequestId::Str("abc".into())], "fs/read_text_file");
    // v1 ids (with `null`) too, and an order for sorted maps.
    let ids: BTreeSet<v1::RequestId> =
        [json!(2), json!(null), json!("x"), json!(1)].into_iter().map(|v| serde_json::from_value(v).unwrap()).collect();
    assert_eq!(ids.len(), 4);
}

#[test]
fn an_arm_converts_into_its_union() {
    // The snippets of "Writing an agent or a client" compile as written.
    let chunk = v1::ContentChunk::new(v1::TextContent::new("hi"));
    assert_eq!(chunk.content, v1::ContentBlock::Text(v1::TextContent::new("hi")));
    let n = v1::SessionNotification::new("s1", v1::ToolCall::new("call_1", "Read"));
    assert_eq!(n.update.tag(), "tool_call");
    let c = v1::ToolCallContent::from(v1::Content::new(v1::TextContent::new("x")));
    assert_eq!(c.tag(), "content");
    // A boxed arm boxes on the way in.
    let link = v2::ContentBlock::from(v2::ResourceLink::new("doc", "file:///doc.md"));
    assert!(matches!(link, v2::ContentBlock::ResourceLink(_)));
    // Untagged unions too, where the payload type is unique.
    assert_eq!(v2::RequestId::from(7i64), v2::RequestId::Number(7));
    assert_eq!(v2::RequestId::from("a".to_owned()), v2::RequestId::Str("a".into()));
}

#[test]
fn v2_raw_values_are_held_as_their_compact_text_on_every_decode_path() {
    let text = r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","rawInput": { "cmd" : ["ls", "-l"], "n": 1.50 },"rawOutput":"ok"}"#;
    let compact = r#"{"cmd":["ls","-l"],"n":1.50}"#;
    let direct: v2::SessionUpdate = acp_bindings::json::from_str(text).unwrap();
    let serde: v2::SessionUpdate = serde_json::from_str(text).unwrap();
    for (path, update) in [("direct", &direct), ("serde", &serde)] {
        let v2::SessionUpdate::ToolCallUpdate(u) = update else { panic!("{update:?}") };
        let Patch::Set(raw) = &u.raw_input else { panic!("{path}: {:?}", u.raw_input) };
        assert_eq!(*raw, json!({"cmd": ["ls", "-l"], "n": 1.5}), "{path}");
        assert_eq!(u.raw_output, Patch::Set(json!("ok").into()), "{path}");
    }
    // The bindings' reader keeps the text as it arrived, less its whitespace.
    let v2::SessionUpdate::ToolCallUpdate(u) = &direct else { unreachable!() };
    assert!(matches!(&u.raw_input, Patch::Set(raw) if raw.as_str() == compact));
    let encoded = acp_bindings::json::to_string(&direct).unwrap();
    assert!(encoded.contains(&format!(r#""rawInput":{compact}"#)), "{encoded}");
    // Folded into the state and written back by the compaction, still the text.
    let mut reducer = v2::SessionReducer::new();
    reducer.apply(direct);
    let (_, call) = reducer.tool_calls.iter().next().unwrap();
    assert_eq!(call.raw_input.as_ref().map(acp_bindings::RawJson::as_str), Some(compact));
    // A repeated member name inside is refused on both paths, as for any free-form JSON.
    let twice = r#"{"sessionUpdate":"tool_call_update","toolCallId":"c","rawInput":{"a":1,"b":{"c":1,"c":2}}}"#;
    for err in [
        acp_bindings::json::from_str::<v2::SessionUpdate>(twice).unwrap_err().to_string(),
        serde_json::from_str::<v2::SessionUpdate>(twice).unwrap_err().to_string(),
    ] {
        assert!(err.contains("duplicate field `c`"), "{err}");
    }
}

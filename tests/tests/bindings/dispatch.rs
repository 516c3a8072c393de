//! Typed JSON-RPC dispatch from `x-method`/`x-side`.

use acp_bindings::v2::rpc::{self, DispatchErrorKind, Message, ParamsForm};
use acp_bindings::{v1, v2};
use serde_json::{json, Value};

fn decode(msg: Value, method_of: Option<&str>) -> Message {
    let m =
        Message::decode(&msg.to_string(), |_| method_of.map(str::to_owned)).unwrap_or_else(|e| panic!("{msg}: {e}"));
    assert_eq!(m.to_value().unwrap(), msg, "re-encoding changed the message");
    m
}

fn reject(msg: Value, method_of: Option<&str>) -> rpc::DispatchError {
    match Message::decode(&msg.to_string(), |_| method_of.map(str::to_owned)) {
        Ok(m) => panic!("{msg} must be rejected, decoded {m:?}"),
        Err(e) => e,
    }
}

#[test]
fn requests_route_by_method_to_the_handling_side() {
    let m = decode(
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
               "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}}),
        None,
    );
    let Message::Request { request, .. } = &m else { panic!() };
    assert!(matches!(request, rpc::Request::Agent(rpc::RequestToAgent::SessionPrompt(_))));
    assert_eq!(request.method(), "session/prompt");
    assert_eq!(request.side(), Some(rpc::Side::Agent));
    let m = decode(
        json!({"jsonrpc": "2.0", "method": "session/update",
               "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "messageId": "m",
                          "content": {"type": "text", "text": "x"}}}}),
        None,
    );
    assert!(matches!(
        m,
        Message::Notification {
            notification: rpc::Notification::Client(rpc::NotificationToClient::SessionUpdate(_)),
            ..
        }
    ));
    assert_eq!(rpc::NotificationToAnySide::METHODS, &["$/cancel_request"]);
}

#[test]
fn responses_are_typed_by_their_request() {
    let m = decode(json!({"jsonrpc": "2.0", "id": "r1", "result": {"messageId": "u1"}}), Some("session/prompt"));
    let Message::Response { response, .. } = &m else { panic!() };
    assert!(matches!(response, rpc::Response::Agent(rpc::ResponseFromAgent::SessionPrompt(_))));
    let e = reject(json!({"jsonrpc": "2.0", "id": "r1", "result": {}}), None);
    assert_eq!(e.kind(), DispatchErrorKind::UnknownRequest);
    assert_eq!(e.pointer(), "/id");
}

#[test]
fn extensions_keep_raw_params_and_unknown_methods_are_errors() {
    let m = decode(json!({"jsonrpc": "2.0", "id": 7, "method": "_zed/fold", "params": {"x": [1, null]}}), None);
    let Message::Request { request: rpc::Request::Extension(e), .. } = &m else { panic!("{m:?}") };
    assert_eq!(e.params, Some(json!({"x": [1, null]})));
    decode(json!({"jsonrpc": "2.0", "method": "_zed/ping"}), None);
    let (req, _) = rpc::RequestToAgent::decode("_acme/run", None).unwrap();
    assert_eq!(req.method(), "_acme/run");
    let e = reject(json!({"jsonrpc": "2.0", "id": 1, "method": "session/frobnicate", "params": {}}), None);
    assert_eq!((e.kind(), e.pointer()), (DispatchErrorKind::UnknownMethod, "/method"));
    assert!(e.message().contains("session/frobnicate"));
    // A known method with a malformed payload names the pointer inside the params.
    let e = reject(
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": 5, "prompt": []}}),
        None,
    );
    assert_eq!((e.kind(), e.pointer()), (DispatchErrorKind::InvalidPayload, "/params/sessionId"));
}

/// v2's `minItems: 1` on `PromptRequest.prompt` and `RequestPermissionRequest.options`
/// is checked on decode, with the pointer of the property and of the rule; v1 has no
/// such rule, so its empty prompt is a prompt.
#[test]
fn v2_min_items_are_checked_on_decode() {
    let e = reject(
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
        None,
    );
    // A rule checked once the value is read is reported at the object that holds it;
    // the message names the property by its schema pointer.
    assert_eq!((e.kind(), e.pointer()), (DispatchErrorKind::InvalidPayload, "/params"));
    assert!(e.message().contains("`minItems` of #/$defs/PromptRequest/properties/prompt"), "{}", e.message());
    let e = serde_json::from_value::<v2::RequestPermissionRequest>(json!({
        "sessionId": "s", "title": "Run?", "options": []
    }))
    .unwrap_err();
    assert!(e.to_string().contains("`minItems` of #/$defs/RequestPermissionRequest/properties/options"), "{e}");
    let v1_prompt =
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}});
    let m = v1::rpc::Message::decode(&v1_prompt.to_string(), |_| None).unwrap();
    assert_eq!(m.to_value().unwrap(), v1_prompt);
}

#[test]
fn the_nine_payloads_without_required_fields_accept_null() {
    let requests = ["auth/logout", "session/list"];
    let responses = [
        "auth/login",
        "auth/logout",
        "session/close",
        "session/delete",
        "session/resume",
        "terminal/cancel",
        "tool_call/cancel",
    ];
    assert_eq!(requests.len() + responses.len(), 9);
    for method in requests {
        for params in [json!(null), json!({})] {
            decode(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}), None);
        }
        decode(json!({"jsonrpc": "2.0", "id": 1, "method": method}), None);
    }
    for method in responses {
        let m = decode(json!({"jsonrpc": "2.0", "id": 1, "result": null}), Some(method));
        assert!(matches!(m, Message::Response { form: ParamsForm::Null, .. }));
        decode(json!({"jsonrpc": "2.0", "id": 1, "result": {}}), Some(method));
    }
    // A payload with required fields does not.
    let e = reject(json!({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": null}), None);
    assert_eq!(e.kind(), DispatchErrorKind::InvalidPayload);
}

#[test]
fn only_an_error_response_may_have_a_null_id_in_v2() {
    let e = reject(json!({"jsonrpc": "2.0", "id": null, "method": "session/list", "params": {}}), None);
    assert_eq!(e.pointer(), "/id");
    let e = reject(json!({"jsonrpc": "2.0", "id": null, "result": {}}), Some("session/list"));
    assert_eq!(e.pointer(), "/id");
    let m = decode(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}), None);
    assert!(matches!(m, Message::Error { id: None, .. }));
    let e = reject(json!({"jsonrpc": "1.0", "id": 1, "method": "session/list"}), None);
    assert_eq!(e.pointer(), "/jsonrpc");
}

#[test]
fn v1_dispatch_has_its_own_methods() {
    let text = json!({"jsonrpc": "2.0", "id": 0, "method": "session/load",
        "params": {"sessionId": "s", "cwd": "/w", "mcpServers": []}})
    .to_string();
    let m = v1::rpc::Message::decode(&text, |_| None).unwrap();
    assert!(matches!(
        m,
        v1::rpc::Message::Request { request: v1::rpc::Request::Agent(v1::rpc::RequestToAgent::SessionLoad(_)), .. }
    ));
    let e = v2::rpc::Message::decode(&text, |_| None).unwrap_err();
    assert_eq!(e.kind(), DispatchErrorKind::UnknownMethod, "session/load does not exist in v2");
    assert!(v1::rpc::RequestToClient::METHODS.contains(&"fs/read_text_file"));
    assert!(!v2::rpc::RequestToClient::METHODS.contains(&"fs/read_text_file"));
}

/// `use vN::*;` and `use vN::rpc::*;` together: every name resolves to one
/// item (before the dispatch enums said their direction, `AgentRequest`,
/// `Message` and others were ambiguous).
mod both_globs {
    #![deny(warnings)]

    mod v2 {
        use acp_bindings::v2::rpc::*;
        use acp_bindings::v2::*;

        #[test]
        fn names_resolve() {
            let _: Option<(AgentRequest, ClientRequest, AgentResponse, ClientNotification)> = None;
            let _: Option<(RequestToAgent, NotificationToClient, ResponseFromAgent, NotificationToAnySide)> = None;
            let _: Option<(Message, Request, Response, Notification, StoredMessage, SessionReducer)> = None;
            let _: Option<(DispatchError, ParamsForm, ToolCallUpdate, ToolCall)> = None;
            let _: Option<(AgentPeer, AgentEvent, ClientPeer, ClientEvent, Error, RequestId)> = None;
        }
    }

    mod v1 {
        use acp_bindings::v1::rpc::*;
        use acp_bindings::v1::*;

        #[test]
        fn names_resolve() {
            let _: Option<(AgentRequest, ClientRequest, AgentResponse, ClientNotification)> = None;
            let _: Option<(RequestToAgent, RequestToClient, ResponseFromClient, NotificationToAnySide)> = None;
            let _: Option<(Message, Request, Response, Notification, DispatchError)> = None;
            let _: Option<(AgentPeer, AgentEvent, ClientPeer, ClientEvent)> = None;
            let _: ProtocolVersion = PROTOCOL_VERSION;
        }
    }
}

//! The authoring API: conversions into messages, `Message` constructors,
//! error replies, the sans-IO peers, and patch methods without imports.

use acp_bindings::{v1, v2};
use serde_json::{json, Value};

fn encoded(m: &impl serde::Serialize) -> Value {
    serde_json::to_value(m).unwrap()
}

/// The issue's wordy example, and the snippets that did not compile, as a
/// user now writes them.
#[test]
fn messages_are_built_from_payloads() {
    use v1::rpc::*;
    use v1::*;
    let wordy = Message::Response {
        id: RequestId::from(1i64),
        response: Response::Agent(ResponseFromAgent::SessionPrompt(PromptResponse::new(StopReason::EndTurn))),
        form: ParamsForm::Object,
    };
    let short = Message::response(1i64, PromptResponse::new(StopReason::EndTurn));
    assert_eq!(short, wordy);
    assert_eq!(encoded(&short), json!({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}}));
    // Payload -> side enum -> version enum, each step a `From`.
    let side: ResponseFromAgent = PromptResponse::new(StopReason::Refusal).into();
    assert_eq!(Response::from(side.clone()), Response::Agent(side));
    let _: Request = PromptRequest::new("s", vec![ContentBlock::from(TextContent::new("hi"))]).into();
    let _: Notification = CancelNotification::new("s").into();
    let _: NotificationToClient = SessionNotification::new("s", ToolCall::new("c", "Read")).into();
    let _ = ContentChunk::new(TextContent::new("hi"));
    let _ = ToolCallContent::from(Content::new(TextContent::new("x")));

    // Constructors default the params form to an object; `with_form` changes it.
    let n = Message::notification(CancelNotification::new("s"));
    assert_eq!(encoded(&n), json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}));
    let r = Message::request("r1", v1::rpc::RequestToAgent::Logout(LogoutRequest::new()));
    assert_eq!(encoded(&r), json!({"jsonrpc": "2.0", "id": "r1", "method": "logout", "params": {}}));
    assert_eq!(encoded(&r.with_form(ParamsForm::Absent)), json!({"jsonrpc": "2.0", "id": "r1", "method": "logout"}));
    let e = Message::error(RequestId::from(3i64), Error::new(ErrorCode::InternalError, "boom"));
    assert_eq!(encoded(&e), json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "boom"}}));
    let e = Message::error(None, Error::new(ErrorCode::ParseError, "?"));
    assert_eq!(encoded(&e)["id"], Value::Null);
}

#[test]
fn request_ids_key_maps_and_protocol_versions_are_exported() {
    let mut pending = std::collections::HashMap::new();
    pending.insert(v2::RequestId::from(1i64), "session/prompt");
    pending.insert(v2::RequestId::from("a".to_owned()), "initialize");
    assert_eq!(pending[&v2::RequestId::from(1i64)], "session/prompt");
    let ordered: std::collections::BTreeSet<v1::RequestId> =
        [v1::RequestId::from(2i64), v1::RequestId::from(1i64)].into_iter().collect();
    assert_eq!(ordered.len(), 2);
    assert_eq!(encoded(&v1::PROTOCOL_VERSION), json!(1));
    assert_eq!(encoded(&v2::PROTOCOL_VERSION), json!(2));
    // A closed union's tag is always there.
    let u = v1::SessionUpdate::AgentMessageChunk(v1::ContentChunk::new(v1::TextContent::new("x")));
    let tag: &'static str = u.tag();
    assert_eq!(tag, "agent_message_chunk");
}

/// The reply for each kind of bad line, straight from `Message::decode`.
#[test]
fn dispatch_errors_carry_the_id_and_the_reply() {
    use v2::rpc::{DispatchErrorKind, Message};
    let reply = |line: &str| {
        let e = Message::decode(line, |_| None).unwrap_err();
        (e.kind(), Message::error_reply(&e).map(|m| encoded(&m)))
    };
    let (kind, r) = reply(r#"{"jsonrpc":"2.0","id":"x","method":"session/nope","params":{}}"#);
    assert_eq!(kind, DispatchErrorKind::UnknownMethod);
    let r = r.unwrap();
    assert_eq!(
        (&r["id"], &r["error"]["code"], &r["error"]["data"]["pointer"]),
        (&json!("x"), &json!(-32601), &json!("/method"))
    );
    let (kind, r) = reply(r#"{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":1,"prompt":[]}}"#);
    assert_eq!(kind, DispatchErrorKind::InvalidPayload);
    let r = r.unwrap();
    assert_eq!((&r["id"], &r["error"]["code"]), (&json!(4), &json!(-32602)));
    assert_eq!(r["error"]["data"]["pointer"], "/params/sessionId");
    assert!(r["error"]["message"].as_str().unwrap().contains("at /params/sessionId"));
    let (kind, r) = reply("not json");
    assert_eq!((kind, r.unwrap()["error"]["code"].clone()), (DispatchErrorKind::Parse, json!(-32700)));
    let (kind, r) = reply(r#"{"jsonrpc":"2.0","id":null,"method":"initialize","params":{}}"#);
    assert_eq!(kind, DispatchErrorKind::InvalidMessage, "v2 request ids are never null");
    assert_eq!(r.unwrap()["id"], Value::Null);
    let (kind, r) = reply(r#"{"jsonrpc":"2.0","id":9,"method":5}"#);
    assert_eq!((kind, &r.unwrap()["id"]), (DispatchErrorKind::InvalidMessage, &json!(9)));
    // Notifications and responses are never answered.
    assert_eq!(reply(r#"{"jsonrpc":"2.0","method":"session/nope"}"#).1, None);
    assert_eq!(reply(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).1, None);
    assert_eq!(reply(r#"{"jsonrpc":"2.0","result":{}}"#).1, None);
    // The id is readable typed, whether or not a reply is due.
    let e =
        Message::decode(r#"{"jsonrpc":"2.0","id":"r","result":{}}"#, |_| Some("session/prompt".into())).unwrap_err();
    assert_eq!((e.request_id::<v2::RequestId>(), e.needs_reply()), (Some(v2::RequestId::from("r".to_owned())), false));
}

fn wire(m: &impl serde::Serialize) -> String {
    serde_json::to_string(m).unwrap()
}

/// An agent and a client peer wired to each other in memory.
#[test]
fn peers_pair_requests_and_responses() {
    use v2::rpc::*;
    let (mut agent, mut client) = (AgentPeer::new(), ClientPeer::new());
    assert!(!agent.is_initialized() && !client.is_initialized());

    let (id0, init) =
        client.request(v2::InitializeRequest::new(v2::PROTOCOL_VERSION, v2::Implementation::new("c", "1")));
    let (id1, early) = client.request(v2::NewSessionRequest::new("/"));
    assert_eq!((&id0, &id1), (&v2::RequestId::from(0i64), &v2::RequestId::from(1i64)));
    assert_eq!(client.pending().count(), 2);

    let AgentEvent::Request { id: a0, request: RequestToAgent::Initialize(_) } = agent.receive(&wire(&init)) else {
        panic!("initialize")
    };
    // Until the agent has answered `initialize`, another request is refused (-32600) and not kept.
    let AgentEvent::Invalid { error, reply: Some(reply) } = agent.receive(&wire(&early)) else {
        panic!("session/new before initialize")
    };
    assert_eq!(error.kind(), DispatchErrorKind::NotInitialized);
    assert_eq!(encoded(&reply)["error"]["code"], -32600);
    assert!(matches!(client.receive(&wire(&reply)), ClientEvent::Error { method: Some(m), .. } if m == "session/new"));
    assert_eq!(agent.unanswered().count(), 1);

    // Answering with the wrong payload, or an id nobody asked, fails and changes nothing.
    let e = agent.respond(a0.clone(), v2::NewSessionResponse::new("s")).unwrap_err();
    assert_eq!(e.kind(), DispatchErrorKind::ResponseMismatch);
    assert!(e.message().contains("`initialize`"), "{e}");
    let e = agent.respond(v2::RequestId::from(7i64), v2::NewSessionResponse::new("s")).unwrap_err();
    assert_eq!(e.kind(), DispatchErrorKind::UnknownRequest);
    assert_eq!(agent.unanswered().count(), 1);
    let info = v2::Implementation::new("a", "1");
    let r0 = agent.respond(a0, v2::InitializeResponse::new(v2::PROTOCOL_VERSION, info)).unwrap();
    assert!(agent.is_initialized());
    assert!(matches!(
        client.receive(&wire(&r0)),
        ClientEvent::Response { response: ResponseFromAgent::Initialize(_), .. }
    ));
    assert!(client.is_initialized());

    // Out of order: each answer decodes by its own request's method.
    let (id2, new) = client.request(v2::NewSessionRequest::new("/"));
    let (_, list) = client.request(v2::ListSessionsRequest::new());
    let AgentEvent::Request { id: a2, .. } = agent.receive(&wire(&new)) else { panic!("session/new") };
    let AgentEvent::Request { id: a3, .. } = agent.receive(&wire(&list)) else { panic!("session/list") };
    let r3 = agent.respond(a3, v2::ListSessionsResponse::new(vec![])).unwrap();
    let r1 = agent.respond(a2, v2::NewSessionResponse::new("s1")).unwrap();
    assert_eq!(agent.unanswered().count(), 0);
    assert!(matches!(
        client.receive(&wire(&r3)),
        ClientEvent::Response { response: ResponseFromAgent::SessionList(_), .. }
    ));
    let ClientEvent::Response { id, response: ResponseFromAgent::SessionNew(r) } = client.receive(&wire(&r1)) else {
        panic!("session/new answer")
    };
    assert_eq!((id, r.session_id.as_str()), (id2, "s1"));
    assert_eq!(client.pending().count(), 0);

    // A second answer to the same id is now unknown.
    let ClientEvent::Invalid { error, reply: None } = client.receive(&wire(&r1)) else { panic!("late answer") };
    assert_eq!((error.kind(), error.pointer()), (DispatchErrorKind::UnknownRequest, "/id"));

    // Notifications both ways, and the cancel either side handles.
    let n = agent.notify(v2::UpdateSessionNotification::new(
        "s1",
        v2::SessionUpdate::AgentMessageChunk(v2::ContentChunk::new("m", v2::TextContent::new("hi"))),
    ));
    assert!(matches!(client.receive(&wire(&n)), ClientEvent::Notification(NotificationToClient::SessionUpdate(_))));
    let c = client.notify_any(v2::CancelRequestNotification::new(v2::RequestId::from(5i64)));
    assert!(matches!(agent.receive(&wire(&c)), AgentEvent::AnySide(NotificationToAnySide::CancelRequest(_))));

    // An error answer names the request's method and ends it.
    let (pid, ask) = agent.request(v2::RequestPermissionRequest::new("s1", "Run?", vec![allow_once()]));
    let ClientEvent::Request { id, .. } = client.receive(&wire(&ask)) else { panic!() };
    let refusal = client.respond_error(id, v2::Error::new(v2::ErrorCode::RequestCancelled, "no")).unwrap();
    let AgentEvent::Error { id, method, error } = agent.receive(&wire(&refusal)) else { panic!() };
    assert_eq!((id, method.as_deref(), error.message.as_str()), (Some(pid), Some("session/request_permission"), "no"));
    assert_eq!(agent.pending().count(), 0);

    // `forget` gives up on a request: a late answer is unknown.
    let (fid, _) = client.request(v2::NewSessionRequest::new("/"));
    assert_eq!(client.forget(&fid).as_deref(), Some("session/new"));
    let late = Message::response(fid, v2::NewSessionResponse::new("late"));
    assert!(matches!(client.receive(&wire(&late)), ClientEvent::Invalid { reply: None, .. }));
}

#[test]
fn peers_reject_bad_lines_without_losing_pending_requests() {
    use v2::rpc::*;
    let mut agent = AgentPeer::initialized();
    let (pid, _) = agent.request(v2::RequestPermissionRequest::new("s", "Run?", vec![allow_once()]));
    let line = r#"{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}"#;
    assert!(matches!(agent.receive(line), AgentEvent::Request { .. }));
    // The same id again while the first is unanswered: named, not answered.
    let AgentEvent::Invalid { error, reply } = agent.receive(line) else { panic!("duplicate") };
    assert_eq!((error.kind(), reply), (DispatchErrorKind::DuplicateId, None));
    assert!(error.message().contains("\"a\""), "{error}");
    // A method the client handles, sent to the agent: method not found.
    let AgentEvent::Invalid { error, reply: Some(reply) } =
        agent.receive(r#"{"jsonrpc":"2.0","id":"b","method":"session/update","params":{}}"#)
    else {
        panic!()
    };
    assert_eq!(error.kind(), DispatchErrorKind::UnknownMethod);
    assert_eq!(encoded(&reply)["error"]["code"], -32601);
    // Other bad lines: none panics, the pending request and the unanswered one stay.
    for bad in [
        "",
        "{",
        "[]",
        "null",
        r#"{"jsonrpc":"2.0"}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":5}}}"#,
        r#"{"jsonrpc":"2.0","id":0,"result":{},"error":{}}"#,
        r#"{"jsonrpc":"2.0","id":[],"error":{"code":1,"message":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":77,"error":{"code":1,"message":"x"}}"#,
    ] {
        let event = agent.receive(bad);
        assert!(matches!(event, AgentEvent::Invalid { .. }), "{bad}: {event:?}");
        if bad.contains(r#""outcome":5"#) {
            // A malformed answer to the pending request ends it; the error names it.
            let AgentEvent::Invalid { error, .. } = event else { unreachable!() };
            assert_eq!(error.request_id::<v2::RequestId>(), Some(pid.clone()));
            assert_eq!(error.pointer(), "/result/outcome");
            let (again, _) = agent.request(v2::RequestPermissionRequest::new("s", "Run?", vec![allow_once()]));
            assert_eq!(agent.pending().map(|(id, _)| id.clone()).collect::<Vec<_>>(), [again]);
        }
    }
    assert_eq!(
        agent.unanswered().map(|(id, m)| (id.clone(), m.to_owned())).collect::<Vec<_>>(),
        [(v2::RequestId::from("a".to_owned()), "session/prompt".to_owned())]
    );
    // The peer classifies envelopes as `Message::decode` does.
    let AgentEvent::Invalid { error, .. } = agent.receive(r#"{"jsonrpc":"2.0","result":{}}"#) else { panic!() };
    assert_eq!((error.pointer(), error.message()), ("/id", "a response without an `id`"));
    // An error with the `null` id: the other side could not read a line.
    let AgentEvent::Error { id: None, method: None, error } =
        agent.receive(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"?"}}"#)
    else {
        panic!()
    };
    assert_eq!(encoded(&error.code), -32700);
}

/// The v1 peers exist too, and speak v1 (`fs/*` to the client).
#[test]
fn v1_peers() {
    use v1::rpc::*;
    let (mut agent, mut client) = (AgentPeer::initialized(), ClientPeer::initialized());
    let (_, read) = agent.request(v1::ReadTextFileRequest::new("s", "/etc/hosts"));
    let ClientEvent::Request { id, request: RequestToClient::FsReadTextFile(r) } = client.receive(&wire(&read)) else {
        panic!()
    };
    assert_eq!(r.path.as_str(), "/etc/hosts");
    let answer = client.respond(id, v1::ReadTextFileResponse::new("127.0.0.1 localhost")).unwrap();
    let AgentEvent::Response { response: ResponseFromClient::FsReadTextFile(r), .. } = agent.receive(&wire(&answer))
    else {
        panic!()
    };
    assert_eq!(r.content, "127.0.0.1 localhost");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Random lines, and real messages cut short, never panic a peer, and
    /// never touch a request sent before them.
    #[test]
    fn peers_never_panic(line in "\\PC{0,80}", cut in 0usize..200) {
        use v2::rpc::*;
        let mut client = ClientPeer::new();
        let (id, _) = client.request(v2::NewSessionRequest::new("/"));
        let real = r#"{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"s","title":"t","options":[{"optionId":"y","name":"Yes","kind":"allow_once"}]}}"#;
        let cut = &real[..cut.min(real.len())];
        for text in [line.as_str(), cut] {
            let _ = client.receive(text);
        }
        proptest::prop_assert!(client.pending().any(|(p, _)| *p == id));
    }
}

/// `then` and `is_empty` on a derived patch, and on a generated upsert,
/// with no trait imported.
mod patch_methods_without_imports {
    use acp_bindings::AcpPatch;

    #[derive(AcpPatch, Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    struct Panel {
        #[acp(key)]
        id: String,
        title: Option<String>,
    }

    #[test]
    fn inherent() {
        let p = PanelPatch::new("p".to_owned()).title("a".to_owned());
        assert!(!p.clone().then(PanelPatch::new("p".to_owned())).is_empty());
        assert!(PanelPatch::new("p".to_owned()).is_empty());
        let mut panel = Panel { id: "p".into(), title: None };
        acp_bindings::Patchable::apply(&mut panel, p);
        assert_eq!(panel.title.as_deref(), Some("a"));
        let u = acp_bindings::v2::ToolCallUpdate::new("c").title("x");
        assert!(!u.then(acp_bindings::v2::ToolCallUpdate::new("c")).is_empty());
    }
}

/// `Message`'s `Serialize` streams the payload; it must write what
/// `Message::to_value` builds, member for member and byte for byte, for every
/// message of the traces, in every params form, and through both encoders.
#[test]
fn messages_stream_what_to_value_builds() {
    fn same<M: serde::Serialize>(m: &M, value: Value, line: &str) {
        let streamed = serde_json::to_string(m).unwrap();
        assert_eq!(streamed, serde_json::to_string(&value).unwrap(), "{line}");
        assert_eq!(acp_bindings::json::to_string(m).unwrap(), streamed, "{line}");
    }
    use acp_bindings::v2::rpc::ParamsForm;
    let forms = [ParamsForm::Object, ParamsForm::Null, ParamsForm::Absent];
    let mut seen = 0;
    for trace in ["v2-prompt-turn.jsonl", "v2-rfd-chunks.jsonl"] {
        let text = std::fs::read_to_string(format!("{}/traces/{trace}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let mut methods = std::collections::HashMap::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            // The traces hold some lines that are not JSON on purpose.
            let Ok(raw) = serde_json::from_str::<Value>(line) else { continue };
            if let (Some(id), Some(m)) = (raw.get("id"), raw.get("method").and_then(Value::as_str)) {
                methods.insert(id.to_string(), m.to_owned());
            }
            let Ok(m) = v2::rpc::Message::decode(line, |id| methods.get(&serde_json::to_string(id).unwrap()).cloned())
            else {
                continue;
            };
            for form in forms {
                let m = m.clone().with_form(form);
                same(&m, m.to_value().unwrap(), line);
            }
            seen += 1;
        }
    }
    assert!(seen >= 15, "the traces decode ({seen} messages)");
    // Empty payloads in each form, extensions with and without params, v1.
    let logout = v2::rpc::Message::request("r1", v2::LogoutAuthRequest::new());
    let ext =
        |params: Option<Value>| v2::rpc::RequestToAgent::Extension(v2::rpc::ExtMethod { method: "_x".into(), params });
    for m in [
        logout,
        v2::rpc::Message::request(7i64, ext(None)),
        v2::rpc::Message::request(7i64, ext(Some(json!({"a": [1, 2.5, null]})))),
        v2::rpc::Message::response(
            7i64,
            v2::rpc::ResponseFromAgent::Extension(v2::rpc::ExtMethod { method: "_x".into(), params: None }),
        ),
        v2::rpc::Message::error(None, v2::Error::new(v2::ErrorCode::ParseError, "?")),
    ] {
        for form in forms {
            let m = m.clone().with_form(form);
            same(&m, m.to_value().unwrap(), "built");
        }
    }
    let v1_logout = v1::rpc::Message::request("r1", v1::rpc::RequestToAgent::Logout(v1::LogoutRequest::new()));
    for form in forms {
        let m = v1_logout.clone().with_form(form);
        same(&m, m.to_value().unwrap(), "v1");
    }
}

/// `Message::decode` reads a plain request or notification in one pass and
/// falls back to the usual two-pass path for anything else. Both must give
/// the same result: an unknown member, which the one-pass reader refuses and
/// the usual path ignores, forces the usual path for the comparison.
#[test]
fn single_pass_decoding_agrees_with_the_usual_path() {
    fn usual(line: &str) -> String {
        line.replacen('{', r#"{"x-force-usual-path":0,"#, 1)
    }
    fn check(line: &str) -> bool {
        let known = |_: &v2::RequestId| Some("session/prompt".to_owned());
        let fast = v2::rpc::Message::decode(line, known);
        let slow = v2::rpc::Message::decode(&usual(line), known);
        match (&fast, &slow) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{line}");
                assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap(), "{line}");
                true
            }
            (Err(a), Err(b)) => {
                // The inserted member shifts the columns in the messages.
                let text = |e: &v2::rpc::DispatchError| {
                    let t = e.to_string();
                    t.find(" at line ").map_or(t.clone(), |i| t[..i].to_owned())
                };
                assert_eq!((a.code(), text(a)), (b.code(), text(b)), "{line}");
                false
            }
            _ => panic!("{line}: one pass {fast:?}, usual {slow:?}"),
        }
    }
    let mut lines: Vec<String> = Vec::new();
    for trace in ["v2-prompt-turn.jsonl", "v2-rfd-chunks.jsonl"] {
        let text = std::fs::read_to_string(format!("{}/traces/{trace}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        lines.extend(text.lines().filter(|l| l.starts_with('{')).map(str::to_owned));
    }
    let update = r#"{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m","content":{"type":"text","text":"hi"}}}"#;
    let prompt = r#"{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}"#;
    for (head, params) in [
        (r#""jsonrpc":"2.0","method":"session/update""#, update),
        (r#""jsonrpc":"2.0","id":3,"method":"session/prompt""#, prompt),
        (r#""jsonrpc":"2.0","id":"r","method":"session/prompt""#, prompt),
    ] {
        lines.push(format!(r#"{{{head},"params":{params}}}"#));
        // Other orders, forms and spellings, each decoded both ways.
        lines.push(format!(r#"{{"params":{params},{head}}}"#));
        lines.push(format!(
            r#"{{{},"params":{params}}}"#,
            head.replace(r#""jsonrpc":"2.0","#, "") + r#","jsonrpc":"2.0""#
        ));
        lines.push(format!(r#"{{{},"params":{params}}}"#, head.replace(r#""2.0""#, r#""2\u002e0""#)));
        lines.push(format!(r#"{{{},"params":{params}}}"#, head.replace(r#""2.0""#, r#""1.0""#)));
        lines.push(format!(r#"{{{},"params":{params}}}"#, head.replace("session/", r#"session\/"#)));
        lines.push(format!(r#"{{{head},"params":null}}"#));
        lines.push(format!(r#"{{{head},"params":{{}}}}"#));
        lines.push(format!(r#"{{{head},"params":[]}}"#));
        lines.push(format!(r#"{{{head}}}"#));
        lines.push(format!(r#"{{{head},"params":{params},"params":{params}}}"#));
        lines.push(format!(r#"{{{head},"params":{params},"id":9}}"#));
        lines.push(format!(r#"{{{head},"params":{params},"result":{{}}}}"#));
        lines.push(format!(r#"{{{head},"params":{}}}"#, params.replace("\"s\"", "5")));
        lines.push(format!(r#"{{{head},"params":{params}}} trailing"#));
        lines.push(format!(r#"{{{},"params":{params}}}"#, head.replace(r#""id":3"#, r#""id":null"#)));
        lines.push(format!(r#"{{{},"params":{params}}}"#, head.replace("session/", "_acme/")));
    }
    // The comparison means something only if the one pass takes the plain lines.
    let one_pass = |line: &str| {
        acp_bindings::runtime::rpc::read_streamed::<v2::rpc::Request, v2::rpc::Notification>(line).is_some()
    };
    let plain = &lines[lines.len() - 51];
    assert!(one_pass(plain), "{plain}");
    assert!(!one_pass(&usual(plain)));
    assert!(!one_pass(&lines[lines.len() - 50]), "params first");
    let mut decoded = 0;
    for line in &lines {
        if check(line) {
            decoded += 1;
        }
    }
    assert!(decoded >= 25, "{decoded} of {} lines decoded", lines.len());
}

/// A permission option (v2's `RequestPermissionRequest.options` holds at least one).
fn allow_once() -> v2::PermissionOption {
    v2::PermissionOption::new("y", "Yes", v2::PermissionOptionKind::AllowOnce)
}

//! Issue 28's defects of the adapters, each a test that failed before the fix:
//! an unconvertible item is dropped on its own (the message, the entity and
//! the session still convert, and nothing poisons later messages), loss
//! pointers resolve in the line they name, and the policies for available
//! commands, boolean config options, auth logout and the resume snapshot.

use serde_json::{json, Value};

use super::{drive, note, req, res, upd, updates, v1_session, v2_session};

/// Every loss pointer of a report line resolves in the source message of that line.
fn pointers_resolve(messages: &[Value], report: &[String]) {
    for line in report {
        let rest = line.strip_prefix("line ").expect("a report line");
        let (n, rest) = rest.split_once(": ").unwrap();
        let pointer = rest.split(": ").next().unwrap();
        if pointer == "rejected" {
            continue;
        }
        // A whole message's loss reads `/` (its pointer is "").
        let pointer = if pointer == "/" { "" } else { pointer };
        let m = &messages[n.parse::<usize>().unwrap() - 1];
        assert!(m.pointer(pointer).is_some(), "{line}: `{pointer}` is not in {m}");
    }
}

#[test]
fn a_terminal_item_is_dropped_alone_and_does_not_poison_the_tool_call() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Build", "content": [
        {"type": "content", "content": {"type": "text", "text": "started"}},
        {"type": "terminal", "terminalId": "t1"}
    ]})));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})));
    let (out, report) = drive("v2", &m);
    pointers_resolve(&m, &report);
    let u = updates(&out);
    assert_eq!(u.len(), 2, "both updates convert: {u:?} {report:?}");
    assert_eq!(u[0]["sessionUpdate"], "tool_call");
    assert_eq!(u[0]["title"], "Build");
    assert_eq!(u[0]["content"], json!([{"type": "content", "content": {"type": "text", "text": "started"}}]));
    assert_eq!(u[1], &json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}));
    assert_eq!(report.len(), 1, "{report:?}");
    assert!(report[0].starts_with("line 5: /params/update/content/1: dropped:"), "{report:?}");
}

#[test]
fn an_sse_server_is_dropped_alone_and_the_session_exists() {
    let mut m = v1_session();
    m.truncate(2);
    m.push(req(
        1,
        "session/new",
        json!({"cwd": "/w", "mcpServers": [
            {"name": "a", "command": "a", "args": [], "env": []},
            {"type": "http", "name": "b", "url": "https://b", "headers": []},
            {"type": "sse", "name": "c", "url": "https://c", "headers": []}
        ]}),
    ));
    m.push(res(1, json!({"sessionId": "s1"})));
    let (out, report) = drive("v1", &m);
    pointers_resolve(&m, &report);
    let new = out.iter().find(|o| o["method"] == "session/new").expect("session/new converts");
    assert_eq!(new["params"]["mcpServers"].as_array().unwrap().len(), 2, "{new}");
    assert!(out.iter().any(|o| o["id"] == 1 && o["result"]["sessionId"] == "s1"), "the response converts: {out:?}");
    assert!(report.iter().any(|l| l.starts_with("line 3: /params/mcpServers/2: dropped:")), "{report:?}");
}

#[test]
fn a_tool_call_that_did_not_convert_lends_no_title() {
    // Strict: the terminal item is a loss, so the tool call is not converted;
    // the permission request must not borrow its title (it has none of its
    // own, which strict mode refuses to make up).
    let call = upd(json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Delete", "kind": "delete",
        "content": [{"type": "terminal", "terminalId": "t1"}]}));
    let ask = req(
        7,
        "session/request_permission",
        json!({"sessionId": "s1", "toolCall": {"toolCallId": "c1"}, "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]}),
    );
    let mut up = acp_bindings_convert::V1ToV2::strict();
    assert!(up.convert(&call.to_string()).is_err(), "strict: a dropped item fails the message");
    match up.convert(&ask.to_string()) {
        Err(acp_bindings_convert::AdaptError::NotConverted(e)) => {
            assert!(e.losses.iter().any(|l| l.pointer == "/params/toolCall/title"), "{e:?}")
        }
        other => panic!("the dropped tool call's title was lent: {other:?}"),
    }
    // Not strict: the tool call converts without the terminal, and lends its title.
    let (out, report) = drive("v1", &[v1_session(), vec![call, ask]].concat());
    let p = out.iter().find(|o| o["method"] == "session/request_permission").unwrap();
    assert_eq!(p["params"]["title"], "Delete", "{p}");
    assert!(report.iter().any(|l| l.contains("/params/update/content/0: dropped")), "{report:?}");
}

#[test]
fn available_commands_of_a_new_session_reach_a_v1_client_as_an_update() {
    let mut m = v2_session();
    m.truncate(3);
    m.push(res(1, json!({"sessionId": "s1", "availableCommands": [{"type": "command", "name": "web", "description": "Search the web"}]})));
    let (out, report) = drive("v2", &m);
    assert!(report.is_empty(), "{report:?}");
    let last = out.last().unwrap();
    assert_eq!(last["method"], "session/update", "{out:?}");
    assert_eq!(last["params"]["update"]["sessionUpdate"], "available_commands_update");
    assert_eq!(last["params"]["update"]["availableCommands"][0]["name"], "web");
    assert_eq!(out[out.len() - 2]["id"], 1, "after the response");
}

#[test]
fn a_v2_client_advertises_boolean_config_options_to_a_v1_agent() {
    let (out, report) = drive("v2", &v2_session()[..1]);
    assert!(report.is_empty(), "{report:?}");
    assert_eq!(out[0]["params"]["clientCapabilities"]["session"]["configOptions"]["boolean"], json!({}), "{}", out[0]);
}

#[test]
fn auth_logout_is_not_overclaimed_nor_reported_twice() {
    // A v1 agent with auth methods and no logout: v2 would promise auth/logout.
    let init = req(0, "initialize", json!({"protocolVersion": 1, "clientCapabilities": {}}));
    let methods = json!([{"id": "key", "name": "API key"}]);
    let (_, report) =
        drive("v1", &[init.clone(), res(0, json!({"protocolVersion": 1, "authMethods": methods.clone()}))]);
    assert!(
        report.iter().any(|l| l.starts_with("line 2: /result/authMethods: approximated:") && l.contains("auth/logout")),
        "{report:?}"
    );
    // With logout: nothing lost, and no empty `auth` left behind.
    let (out, report) = drive(
        "v1",
        &[
            init,
            res(
                0,
                json!({"protocolVersion": 1, "authMethods": methods, "agentCapabilities": {"auth": {"logout": {}}}}),
            ),
        ],
    );
    assert!(report.iter().all(|l| !l.contains("logout")), "{report:?}");
    assert!(out[1]["result"]["capabilities"].get("auth").is_none(), "{}", out[1]);
}

#[test]
fn the_resume_snapshot_is_not_a_loss() {
    let mut m = v2_session();
    m.push(req(2, "session/resume", json!({"sessionId": "s1", "cwd": "/w", "replayFrom": {"type": "start"}})));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle"})));
    m.push(res(2, json!({})));
    let (_, report) = drive("v2", &m);
    assert!(report.is_empty(), "{report:?}");
    // Strict accepts it too.
    let mut down = acp_bindings_convert::V2ToV1::strict();
    for msg in &m {
        down.convert(&msg.to_string()).unwrap_or_else(|e| panic!("{msg}: {e}"));
    }
    // A state update outside a resume is still reported.
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle"})));
    let (_, report) = drive("v2", &m);
    assert_eq!(report.len(), 1, "{report:?}");
}

#[test]
fn a_whole_message_that_converts_to_nothing_has_the_empty_pointer() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "requires_action"})));
    m.push(note("session/cancel", json!({"sessionId": "s1"})));
    let (_, report) = drive("v2", &m);
    pointers_resolve(&m, &report);
    assert!(report.iter().any(|l| l.starts_with("line 5: /: dropped:")), "{report:?}");
}

#[test]
fn a_content_chunk_refused_in_strict_mode_does_not_join_the_content() {
    let text = |t: &str| json!({"type": "content", "content": {"type": "text", "text": t}});
    // `_meta` has no v1 place; `title` is a property v1's update names, so
    // the unknown property is dropped: in strict mode each refuses the chunk.
    for refusing in [json!({"_meta": {"k": 1}}), json!({"title": "not v2's"})] {
        let mut down = acp_bindings_convert::V2ToV1::strict();
        for msg in v2_session() {
            down.convert(&msg.to_string()).unwrap_or_else(|e| panic!("{msg}: {e}"));
        }
        let first =
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Build", "content": [text("a")]});
        down.convert(&upd(first).to_string()).expect("the tool call converts");
        let mut refused = json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": text("b")});
        refused.as_object_mut().unwrap().extend(refusing.as_object().unwrap().clone());
        assert!(down.convert(&upd(refused).to_string()).is_err(), "strict refuses {refusing}");
        let next = json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": text("c")});
        let out = down.convert(&upd(next).to_string()).expect("the next chunk converts");
        let v = serde_json::to_value(&out.messages[0]).unwrap();
        assert_eq!(v["params"]["update"]["content"], json!([text("a"), text("c")]), "after {refusing}");
    }
}

#[test]
fn a_v1_raw_value_of_null_is_a_clear_in_v2() {
    // v2's wire says "clear" with `null`, so setting the value `null` would
    // be written as a clear and fold differently from what was converted.
    use acp_bindings::runtime::rpc::Message;
    use acp_bindings::v2::{self, rpc::Notification, rpc::NotificationToClient, SessionUpdate};
    use acp_bindings::Patch;
    let mut up = acp_bindings_convert::V1ToV2::new();
    for msg in v1_session() {
        up.convert(&msg.to_string()).unwrap_or_else(|e| panic!("{msg}: {e}"));
    }
    let mut reducer = v2::SessionReducer::new();
    let mut fold = |update: Value| -> v2::ToolCallUpdate {
        let out = up.convert(&upd(update).to_string()).expect("converts");
        let [Message::Notification {
            notification: Notification::Client(NotificationToClient::SessionUpdate(n)), ..
        }] = out.messages.as_slice()
        else {
            panic!("one session/update: {:?}", out.messages)
        };
        let SessionUpdate::ToolCallUpdate(u) = &n.update else { panic!("a tool call update: {n:?}") };
        reducer.apply(n.update.clone());
        u.clone()
    };
    let first = fold(json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read",
        "rawInput": {"path": "a", "n": 1.50}, "rawOutput": null}));
    // v1's bindings hold any JSON as a `serde_json::Value`, so the number is its value's.
    assert_eq!(first.raw_input.set_value().map(|r| r.as_str()), Some(r#"{"path":"a","n":1.5}"#));
    assert_eq!(first.raw_output, Patch::Clear);
    let second =
        fold(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "rawInput": null, "rawOutput": [1]}));
    assert_eq!(second.raw_input, Patch::Clear);
    assert_eq!(second.raw_output.set_value().map(|r| r.as_str()), Some("[1]"));
    let (_, call) = reducer.tool_calls.iter().next().expect("the tool call is folded");
    assert_eq!((call.raw_input.as_ref(), call.raw_output.as_ref().map(|r| r.as_str())), (None, Some("[1]")));
}

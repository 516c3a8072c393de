//! The v2 session reducer: every rule `docs/your-structs.md` states for
//! `SessionReducer` (upserts patch, chunks append, a whole update replaces
//! what chunks accumulated, later chunks append to it, an unknown id creates
//! the entity).

use acp_bindings::v2::{SessionReducer, SessionUpdate, StoredMessage, ToolCallStatus, ToolKind};
use serde_json::{json, Value};

fn reduce(updates: &[Value]) -> SessionReducer {
    let mut r = SessionReducer::new();
    for u in updates {
        let update: SessionUpdate = serde_json::from_value(u.clone()).unwrap_or_else(|e| panic!("{u}: {e}"));
        r.apply(update);
    }
    r
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn message_texts(r: &SessionReducer, id: &str) -> Vec<String> {
    let m = r.messages.iter().find(|(k, _)| k.as_str() == id).map(|(_, m)| m).expect("message");
    m.content().iter().map(|b| serde_json::to_value(b).unwrap()["text"].as_str().unwrap().to_owned()).collect()
}

fn tool_texts(r: &SessionReducer, id: &str) -> Vec<String> {
    let (_, call) = r.tool_calls.iter().find(|(k, _)| k.as_str() == id).expect("tool call");
    call.content
        .iter()
        .map(|c| serde_json::to_value(c).unwrap()["content"]["text"].as_str().unwrap().to_owned())
        .collect()
}

fn content(t: &str) -> Value {
    json!({"type": "content", "content": text(t)})
}

#[test]
fn rfd_chunks_then_whole_update_replaces() {
    // Chunks A, B, then an update with content [C] gives [C].
    let r = reduce(&[
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": content("A")}),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": content("B")}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": [content("C")]}),
    ]);
    assert_eq!(tool_texts(&r, "c"), ["C"]);
}

#[test]
fn rfd_update_then_chunk_appends_to_the_replacement() {
    // An update [A] then chunk B gives [A, B].
    let r = reduce(&[
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": [content("A")]}),
        json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c", "content": content("B")}),
    ]);
    assert_eq!(tool_texts(&r, "c"), ["A", "B"]);
}

#[test]
fn tool_call_fields_follow_their_rules() {
    let r = reduce(&[
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Read", "kind": "read", "status": "in_progress",
               "locations": [{"path": "/a"}], "rawInput": {"p": 1}, "_meta": {"a": 1, "b": 2}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": null, "kind": null, "status": null,
               "locations": [], "rawInput": null, "_meta": {"a": null, "c": 3}}),
    ]);
    let (_, call) = r.tool_calls.iter().next().unwrap();
    assert_eq!(call.title, None, "null unsets");
    assert_eq!(call.kind, ToolKind::Other, "kind resets to other");
    assert_eq!(call.status, ToolCallStatus::Pending, "status resets to pending");
    assert!(call.locations.is_empty(), "[] clears a list");
    assert_eq!(call.raw_input, None, "null unsets any JSON");
    assert_eq!(serde_json::to_value(&call.meta).unwrap(), json!({"b": 2, "c": 3}), "_meta is patched by key");
    let r2 = reduce(&[
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": [content("x")], "_meta": {"a": 1}}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "content": null, "_meta": null}),
    ]);
    let (_, call) = r2.tool_calls.iter().next().unwrap();
    assert!(call.content.is_empty() && call.meta.is_none(), "null clears a list and all of _meta");
}

#[test]
fn a_new_id_starts_from_the_defaults_and_omitted_fields_keep() {
    let r = reduce(&[
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"}),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Late title"}),
    ]);
    let (_, call) = r.tool_calls.iter().next().unwrap();
    assert_eq!(
        (call.kind.clone(), call.status.clone(), call.title.as_deref()),
        (ToolKind::Other, ToolCallStatus::Completed, Some("Late title"))
    );
}

#[test]
fn message_chunks_and_whole_messages() {
    let r = reduce(&[
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text("A")}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text("B")}),
        json!({"sessionUpdate": "agent_message", "messageId": "m", "content": [text("C")]}),
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text("D")}),
        json!({"sessionUpdate": "user_message_chunk", "messageId": "u", "content": text("hi")}),
        json!({"sessionUpdate": "agent_thought_chunk", "messageId": "t", "content": text("hmm")}),
        json!({"sessionUpdate": "user_message", "messageId": "u2", "content": null}),
    ]);
    assert_eq!(message_texts(&r, "m"), ["C", "D"]);
    assert_eq!(message_texts(&r, "u"), ["hi"]);
    let kinds: Vec<&str> = r
        .messages
        .iter()
        .map(|(_, m)| match m {
            StoredMessage::User(_) => "user",
            StoredMessage::Agent(_) => "agent",
            StoredMessage::Thought(_) => "thought",
        })
        .collect();
    assert_eq!(kinds, ["agent", "user", "thought", "user"], "first-seen order");
    assert!(message_texts(&r, "u2").is_empty());
}

#[test]
fn terminals_plans_session_info_usage_and_compactions() {
    let r = reduce(&[
        json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "aGVs"}),
        json!({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "bG8="}),
        json!({"sessionUpdate": "terminal_update", "terminalId": "t", "command": "make", "cwd": "/w"}),
        json!({"sessionUpdate": "terminal_update", "terminalId": "t", "cwd": null}),
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": [
            {"content": "a", "priority": "high", "status": "pending"}]}}),
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": []}}),
        json!({"sessionUpdate": "plan_update", "plan": {"type": "_kanban", "planId": "board", "columns": 3}}),
        json!({"sessionUpdate": "session_info_update", "title": "Fix", "updatedAt": "2026-01-01T00:00:00Z"}),
        json!({"sessionUpdate": "session_info_update", "updatedAt": null}),
        json!({"sessionUpdate": "usage_update", "used": 10, "size": 100, "cost": {"amount": 0.5, "currency": "USD"}}),
        json!({"sessionUpdate": "usage_update", "used": 20, "size": 100}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "k", "status": "in_progress"}),
        json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "k", "content": text("s1")}),
        json!({"sessionUpdate": "compaction_update", "compactionId": "k", "status": "completed", "error": null}),
    ]);
    let out = serde_json::to_value(&r).unwrap();
    let t = &out["terminals"]["t"];
    assert_eq!((t["command"].as_str(), t["cwd"].is_null()), (Some("make"), true));
    assert_eq!(t["output"]["data"], json!("aGVsbG8="), "output chunks append bytes");
    assert_eq!(out["plans"]["main"]["entries"], json!([]), "a plan update replaces the plan");
    assert_eq!(out["plans"]["board"]["columns"], json!(3), "an unknown plan type is kept by id");
    assert_eq!((out["sessionInfo"]["title"].as_str(), out["sessionInfo"]["updatedAt"].is_null()), (Some("Fix"), true));
    assert_eq!(
        (out["usage"]["used"].as_u64(), out["usage"]["cost"]["currency"].as_str()),
        (Some(20), Some("USD")),
        "cost is kept when omitted"
    );
    assert_eq!(out["compactions"]["k"]["status"], json!("completed"));
    assert_eq!(out["compactions"]["k"]["summary"], json!([text("s1")]));
    let keys: Vec<&String> = out.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 7);
}

#[test]
fn unknown_updates_and_rejected_updates_leave_state_alone() {
    let mut r = reduce(&[json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "T"})]);
    let before = r.clone();
    r.apply(serde_json::from_value(json!({"sessionUpdate": "_zed_cursor", "line": 1})).unwrap());
    // A patch with a missing or malformed key does not decode, so it never reaches the state.
    assert!(
        serde_json::from_value::<SessionUpdate>(json!({"sessionUpdate": "tool_call_update", "title": "x"})).is_err()
    );
    assert!(
        serde_json::from_value::<SessionUpdate>(json!({"sessionUpdate": "tool_call_update", "toolCallId": 5})).is_err()
    );
    assert_eq!(r, before);
}

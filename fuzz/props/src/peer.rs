//! The sans-IO peers (`AgentPeer` and `ClientPeer`, v1 and v2) fed arbitrary
//! lines: they never panic, never lose a pending request (a request they sent
//! leaves the pending set only when a line answers its id), never invent one,
//! and every reply they build is valid JSON-RPC 2.0; each input runs on a new
//! peer and on one of a connection already initialized.
//!
//! Input: a header line (`v1 agent`, `v1 client`, `v2 agent`, `v2 client`),
//! then one line per step:
//! - `>` and a message: the peer sends it, if it is a request of its side
//!   (so that responses have something to answer);
//! - `!`: the peer answers the oldest request it received with an error;
//! - anything else: a line received from the other side.

use std::collections::BTreeSet;

use crate::{header, jsonrpc_problem};
use serde_json::Value;

/// The id a line answers, as the peer's id type, when the line is a JSON
/// object with an `id` and no `method`.
fn answered_id<Id: serde::de::DeserializeOwned>(line: &str) -> Option<Id> {
    let v: Value = serde_json::from_str(line).ok()?;
    let m = v.as_object()?;
    if m.contains_key("method") {
        return None;
    }
    serde_json::from_value(m.get("id")?.clone()).ok()
}

fn check_reply(reply: &impl serde::Serialize, line: &str) {
    let text = serde_json::to_string(reply).expect("a reply encodes");
    if let Some(problem) = jsonrpc_problem(&text) {
        panic!("reply {text} to {line:?} is not JSON-RPC: {problem}");
    }
    let ours = acp_bindings::json::to_string(reply).expect("a reply encodes");
    assert_eq!(ours, text, "the encoders differ on a reply");
}

macro_rules! run {
    ($version:ident, $peer:ident, $event:ident, $sends:ident, $lines:expr, $fresh:expr) => {{
        use acp_bindings::$version as v;
        let mut peer = if $fresh { v::rpc::$peer::new() } else { v::rpc::$peer::initialized() };
        let ids = |p: &v::rpc::$peer| -> BTreeSet<String> {
            p.pending().map(|(id, m)| format!("{}={m}", serde_json::to_string(id).unwrap())).collect()
        };
        let unanswered = |p: &v::rpc::$peer| -> Vec<v::RequestId> {
            let mut u: Vec<_> = p.unanswered().map(|(id, _)| id.clone()).collect();
            u.sort_by_key(|id| serde_json::to_string(id).unwrap());
            u
        };
        for line in $lines {
            if let Some(sent) = line.strip_prefix('>') {
                if let Ok(v::rpc::Message::Request { request: v::rpc::Request::$sends(r), .. }) =
                    v::rpc::Message::decode(sent, |_| None)
                {
                    let before = ids(&peer);
                    let (id, message) = peer.request(r);
                    check_reply(&message, sent);
                    let after = ids(&peer);
                    assert_eq!(after.len(), before.len() + 1, "request {id:?} is not pending");
                    assert!(before.is_subset(&after), "sending lost a pending request");
                }
                continue;
            }
            if line == "!" {
                if let Some(id) = unanswered(&peer).into_iter().next() {
                    let error: v::Error =
                        serde_json::from_str(r#"{"code":-32603,"message":"fuzz"}"#).expect("an error");
                    let reply = peer.respond_error(id.clone(), error).expect("an unanswered request takes an answer");
                    check_reply(&reply, line);
                    assert!(!unanswered(&peer).contains(&id), "an answered request is still unanswered");
                }
                continue;
            }
            let (before, waiting) = (ids(&peer), unanswered(&peer));
            let event = peer.receive(line);
            let (after, now_waiting) = (ids(&peer), unanswered(&peer));
            assert!(after.is_subset(&before), "receiving {line:?} made a request pending");
            let gone: Vec<&String> = before.difference(&after).collect();
            if !gone.is_empty() {
                let id: Option<v::RequestId> = answered_id(line);
                let key = id.map(|id| serde_json::to_string(&id).unwrap());
                assert!(
                    gone.len() == 1 && key.is_some_and(|k| gone[0].starts_with(&format!("{k}="))),
                    "{line:?} lost pending requests {gone:?}"
                );
            }
            match &event {
                v::rpc::$event::Request { id, .. } => {
                    assert!(!waiting.contains(id), "a duplicate id {id:?} became a second request");
                    assert!(now_waiting.contains(id), "request {id:?} is not unanswered");
                    assert_eq!(now_waiting.len(), waiting.len() + 1);
                }
                other => {
                    assert_eq!(now_waiting, waiting, "{line:?} ({other:?}) changed the unanswered requests");
                }
            }
            if let v::rpc::$event::Invalid { reply: Some(reply), .. } = &event {
                check_reply(reply, line);
            }
            // Every error is one line of text with a pointer into the message.
            if let v::rpc::$event::Invalid { error, .. } = &event {
                let p = error.pointer();
                assert!(p.is_empty() || p.starts_with('/'), "pointer {p:?} for {line:?}");
            }
        }
    }};
}

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Some((head, text)) = header(data) else { return };
    // Twice: on a new peer (which refuses requests until `initialize` is done) and on one of a
    // connection already initialized (which decodes every request).
    for fresh in [true, false] {
        let lines = text.split('\n');
        match head {
            "v1 agent" => run!(v1, AgentPeer, AgentEvent, Client, lines, fresh),
            "v1 client" => run!(v1, ClientPeer, ClientEvent, Agent, lines, fresh),
            "v2 agent" => run!(v2, AgentPeer, AgentEvent, Client, lines, fresh),
            "v2 client" => run!(v2, ClientPeer, ClientEvent, Agent, lines, fresh),
            _ => {}
        }
    }
}

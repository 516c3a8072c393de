//! The sans-IO peers on the transcripts of `tests/transcripts/peers.json`,
//! which the TypeScript package's `Peer` runs too (`ts/test/peer.test.ts`):
//! every line received gives the event and the error reply written there,
//! every request and answer sent gives the line written there.
//!
//! `ACP_TRANSCRIPTS=bless cargo test -p acp-tests --test bindings transcripts`
//! writes what the Rust peers give into the file, for review.

use std::path::{Path, PathBuf};

use acp_bindings::runtime::rpc::{Event, Payload, Peer, Role};
use serde_json::{json, Value};

fn file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts/peers.json")
}

/// A summary of one event, as the transcripts write it.
fn event<R: Role>(e: Event<R>) -> Value
where
    <R::Version as acp_bindings::runtime::rpc::Version>::Id: serde::Serialize,
    <R::Version as acp_bindings::runtime::rpc::Version>::Error: serde::Serialize,
{
    let show = |v: &dyn erased::Ser| v.value();
    match e {
        Event::Request { id, request } => json!({ "request": request.method(), "id": show(&id) }),
        Event::Notification(n) => json!({ "notification": n.method() }),
        Event::AnySide(n) => json!({ "notification": n.method() }),
        Event::Response { id, response } => json!({ "response": response.method(), "id": show(&id) }),
        Event::Error { id, method, error } => {
            json!({ "error": method, "id": id.as_ref().map(|i| show(i)), "code": show(&error)["code"] })
        }
        Event::Invalid { error, reply } => json!({
            "invalid": error.code(),
            "pointer": error.pointer(),
            "message": error.message(),
            "id": error.request_id::<Value>(),
            "reply": reply.map(|r| serde_json::to_string(&r).unwrap()),
        }),
        other => panic!("an event the transcripts do not know: {other:?}"),
    }
}

/// `serde::Serialize` as a trait object, for the closure above.
mod erased {
    pub trait Ser {
        fn value(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}

/// Runs one transcript's steps on `peer`, returning each step's outcome.
fn run<R: Role>(mut peer: Peer<R>, steps: &[Value]) -> Vec<Value>
where
    <R::Version as acp_bindings::runtime::rpc::Version>::Id: serde::Serialize + serde::de::DeserializeOwned,
    <R::Version as acp_bindings::runtime::rpc::Version>::Error: serde::Serialize + serde::de::DeserializeOwned,
{
    let raw = |v: &Value| serde_json::value::RawValue::from_string(v.to_string()).unwrap();
    let sent = |m: Result<acp_bindings::runtime::rpc::Message<R::Version>, _>| match m {
        Ok(m) => json!({ "send": serde_json::to_string(&m).unwrap() }),
        Err(e) => {
            let e: acp_bindings::runtime::rpc::DispatchError = e;
            json!({ "refused": e.code(), "message": e.message() })
        }
    };
    let mut out = Vec::new();
    for step in steps {
        let outcome = if let Some(line) = step["receive"].as_str() {
            event(peer.receive(line))
        } else if let Some(r) = step.get("respond") {
            let id = serde_json::from_value(r["id"].clone()).unwrap();
            // The request's method, or the step's for an answer to no request.
            let method = peer.unanswered().find(|(i, _)| **i == id).map(|(_, m)| m.to_owned());
            let method = method.or_else(|| r["method"].as_str().map(str::to_owned)).expect("a method to answer");
            let (response, _) = R::Answers::decode(&method, Some(&raw(&r["result"]))).expect("the result decodes");
            sent(peer.respond(id, response))
        } else if let Some(r) = step.get("respond_error") {
            let id = serde_json::from_value(r["id"].clone()).unwrap();
            let error = serde_json::from_value(r["error"].clone()).unwrap();
            sent(peer.respond_error(id, error))
        } else if let Some(r) = step.get("request") {
            let method = r["method"].as_str().unwrap();
            let (request, _) = R::Sent::decode(method, Some(&raw(&r["params"]))).expect("the params decode");
            json!({ "send": serde_json::to_string(&peer.request(request).1).unwrap() })
        } else {
            panic!("a step the transcripts do not know: {step}")
        };
        out.push(outcome);
    }
    out
}

fn peer<R: Role>(t: &Value) -> Peer<R> {
    if t["initialized"] == json!(true) {
        Peer::initialized()
    } else {
        Peer::new()
    }
}

#[test]
fn the_peers_answer_the_transcripts() {
    let text = std::fs::read_to_string(file()).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let bless = std::env::var("ACP_TRANSCRIPTS").is_ok_and(|v| v == "bless");
    let transcripts = doc["transcripts"].as_array_mut().unwrap();
    assert!(transcripts.len() >= 4, "the transcripts are missing");
    let mut failures = Vec::new();
    for t in transcripts.iter_mut() {
        let steps: Vec<Value> = t["steps"].as_array().unwrap().clone();
        let outcomes = match (t["version"].as_str().unwrap(), t["side"].as_str().unwrap()) {
            ("v1", "agent") => run(peer::<acp_bindings::v1::rpc::AgentRole>(t), &steps),
            ("v1", "client") => run(peer::<acp_bindings::v1::rpc::ClientRole>(t), &steps),
            ("v2", "agent") => run(peer::<acp_bindings::v2::rpc::AgentRole>(t), &steps),
            ("v2", "client") => run(peer::<acp_bindings::v2::rpc::ClientRole>(t), &steps),
            other => panic!("{other:?}"),
        };
        let about = t["about"].clone();
        for (i, (step, outcome)) in t["steps"].as_array_mut().unwrap().iter_mut().zip(outcomes).enumerate() {
            if bless {
                step["expect"] = outcome;
            } else if step["expect"] != outcome {
                failures.push(format!("{about} step {i}:\n  expected {}\n  got      {outcome}", step["expect"]));
            }
        }
    }
    if bless {
        std::fs::write(file(), serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

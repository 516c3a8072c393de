//! v1 ⇄ v2 conversion: the corpus converted both ways and validated against
//! the target version's schema, one test per adapter rule (each output message
//! validated method-aware), the v1 -> v2 -> v1 round trip as a property, and
//! the loss reports snapshotted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use acp_bindings_convert::{self as convert, AdaptError, LossKind, V1ToV2, V2ToV1};
use acp_tools::registry::convert as by_name;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

// ---- schema validation, method-aware ------------------------------------------------

/// A version's stable schema: validators by definition, and the payload
/// definition of every (method, role).
struct Schema {
    doc: Value,
    payloads: HashMap<(String, &'static str), String>,
    validators: std::sync::Mutex<HashMap<String, std::sync::Arc<jsonschema::Validator>>>,
}

impl Schema {
    fn load(version: &str) -> Schema {
        let root = root();
        let rel = format!("{version}/schema.json");
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("schema").join(&rel)).unwrap()).unwrap();
        let module = xtask::load::module(&root, &root.join("schema"), &rel, None).unwrap();
        let mut payloads = HashMap::new();
        for d in &module.defs {
            if let Some(m) = &d.method {
                let role = match m.kind {
                    xtask::model::MethodKind::Request => "request",
                    xtask::model::MethodKind::Response => "response",
                    xtask::model::MethodKind::Notification => "notification",
                };
                payloads.insert((m.name.clone(), role), d.name.clone());
            }
        }
        Schema { doc, payloads, validators: Default::default() }
    }

    /// Validates `value` as the definition `name`; the errors, one line each.
    fn check(&self, name: &str, value: &Value) -> Vec<String> {
        let v = {
            let mut cache = self.validators.lock().unwrap();
            cache
                .entry(name.to_owned())
                .or_insert_with(|| {
                    // Only the definitions: the file's root is itself a union of messages.
                    let mut doc = json!({"$ref": format!("#/$defs/{name}"), "$defs": self.doc["$defs"]});
                    if let Some(s) = self.doc.get("$schema") {
                        doc["$schema"] = s.clone();
                    }
                    std::sync::Arc::new(jsonschema::validator_for(&doc).unwrap_or_else(|e| panic!("{name}: {e}")))
                })
                .clone()
        };
        v.iter_errors(value).map(|e| format!("{name} at {}: {e}", e.instance_path)).collect()
    }
}

fn schema(version: &str) -> &'static Schema {
    static V1: OnceLock<Schema> = OnceLock::new();
    static V2: OnceLock<Schema> = OnceLock::new();
    match version {
        "v1" => V1.get_or_init(|| Schema::load("v1")),
        _ => V2.get_or_init(|| Schema::load("v2")),
    }
}

/// Validates a stream of JSON-RPC messages of one version: params and results
/// against their method's definition, responses paired with their request by id.
#[derive(Default)]
struct Validator {
    /// Open requests by id (both peers may have one with the same id open).
    requests: HashMap<String, Vec<String>>,
    errors: Vec<String>,
}

impl Validator {
    fn message(&mut self, version: &str, m: &Value) {
        let s = schema(version);
        let key = |id: &Value| id.to_string();
        let check = |role: &'static str, method: &str, payload: Option<&Value>, errors: &mut Vec<String>| {
            let Some(def) = s.payloads.get(&(method.to_owned(), role)) else {
                if !method.starts_with('_') {
                    errors.push(format!("{version}: no {role} definition for `{method}`: {m}"));
                }
                return;
            };
            let empty = json!({});
            let errs = s.check(def, payload.unwrap_or(&empty));
            errors.extend(errs.into_iter().map(|e| format!("{version} {method} {role}: {e}: {m}")));
        };
        match (m.get("method").and_then(Value::as_str), m.get("id")) {
            (Some(method), Some(id)) => {
                self.requests.entry(key(id)).or_default().push(method.to_owned());
                check("request", method, m.get("params"), &mut self.errors);
            }
            (Some(method), None) => check("notification", method, m.get("params"), &mut self.errors),
            (None, Some(id)) => {
                let open = self.requests.entry(key(id)).or_default();
                if open.is_empty() {
                    self.errors.push(format!("{version}: a response to an unknown request: {m}"));
                    return;
                }
                // The request whose definition the response fits.
                let mut first = None;
                for (i, method) in open.clone().iter().enumerate() {
                    let mut errs = Vec::new();
                    if let Some(e) = m.get("error") {
                        errs.extend(s.check("Error", e).into_iter().map(|e| format!("{version} {method} error: {e}")));
                    } else {
                        check("response", method, m.get("result"), &mut errs);
                    }
                    if errs.is_empty() {
                        open.remove(i);
                        return;
                    }
                    first.get_or_insert(errs);
                }
                self.errors.extend(first.unwrap_or_default());
            }
            _ => self.errors.push(format!("{version}: not a message: {m}")),
        }
    }
}

#[path = "convert/keep.rs"]
mod keep;

// ---- the adapters, driven like a trace -------------------------------------------------

/// An adapter's typed output as JSON, as the crate's encoder writes it.
fn encoded<M: serde::Serialize>(a: &convert::Adapted<M>) -> Vec<Value> {
    a.encode().expect("typed messages encode").iter().map(|t| serde_json::from_str(t).expect("JSON")).collect()
}

/// Feeds messages to an adapter; returns every output message (validated) and
/// the losses as `line N: POINTER: KIND: detail`.
fn drive(from: &str, messages: &[Value]) -> (Vec<Value>, Vec<String>) {
    let to = if from == "v1" { "v2" } else { "v1" };
    let mut up = V1ToV2::new();
    let mut down = V2ToV1::new();
    let mut source = Validator::default();
    let mut target = Validator::default();
    let mut out = Vec::new();
    let mut report = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        source.message(from, m);
        let text = m.to_string();
        let r = if from == "v1" {
            up.convert(&text).map(|a| (encoded(&a), a.losses))
        } else {
            down.convert(&text).map(|a| (encoded(&a), a.losses))
        };
        match r {
            Ok((messages, losses)) => {
                for o in &messages {
                    target.message(to, o);
                }
                out.extend(messages);
                report.extend(losses.iter().map(|l| format!("line {}: {l}", i + 1)));
            }
            Err(AdaptError::NotConverted(e)) => report.extend(e.losses.iter().map(|l| format!("line {}: {l}", i + 1))),
            Err(AdaptError::Rejected(e)) => report.push(format!("line {}: rejected: {e}", i + 1)),
        }
    }
    assert!(source.errors.is_empty(), "the test's own {from} messages are invalid:\n{}", source.errors.join("\n"));
    assert!(target.errors.is_empty(), "converted {to} messages are invalid:\n{}", target.errors.join("\n"));
    (out, report)
}

fn req(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn res(id: u64, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn note(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn upd(update: Value) -> Value {
    note("session/update", json!({"sessionId": "s1", "update": update}))
}

fn updates(out: &[Value]) -> Vec<&Value> {
    out.iter().filter(|m| m["method"] == "session/update").map(|m| &m["params"]["update"]).collect()
}

const V1_INIT: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"ed","version":"1"},"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true}}}"#,
    r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"},"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true},"mcpCapabilities":{"http":true,"sse":true},"sessionCapabilities":{"list":{}}}}}"#,
];

fn v1_session() -> Vec<Value> {
    let mut m: Vec<Value> = V1_INIT.iter().map(|t| serde_json::from_str(t).unwrap()).collect();
    m.push(req(1, "session/new", json!({"cwd": "/w", "mcpServers": []})));
    m.push(res(
        1,
        json!({"sessionId": "s1", "modes": {"currentModeId": "ask", "availableModes": [
            {"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code", "description": "Writes code"}]}}),
    ));
    m
}

fn v2_session() -> Vec<Value> {
    vec![
        req(0, "initialize", json!({"protocolVersion": 2, "info": {"name": "ed", "version": "1"}, "capabilities": {}})),
        res(
            0,
            json!({"protocolVersion": 2, "info": {"name": "ag", "version": "1"}, "capabilities": {"session": {"prompt": {}, "mcp": {"stdio": {}}}}}),
        ),
        req(1, "session/new", json!({"cwd": "/w"})),
        res(1, json!({"sessionId": "s1"})),
    ]
}

/// The methods that cross one to one (the adapters' shared table), each a
/// request and its response or a notification, driven both ways: the method
/// is renamed where the table says, and the params and result come through.
#[test]
fn one_to_one_methods_cross_both_ways_by_the_same_table() {
    let requests = [
        ("authenticate", "auth/login", json!({"methodId": "m"}), json!({})),
        ("logout", "auth/logout", json!({}), json!({})),
        ("session/list", "session/list", json!({"cwd": "/w"}), json!({"sessions": []})),
        ("session/delete", "session/delete", json!({"sessionId": "s1"}), json!({})),
        ("session/close", "session/close", json!({"sessionId": "s1"}), json!({})),
    ];
    let notes = [
        ("session/cancel", json!({"sessionId": "s1"})),
        ("$/cancel_request", json!({"requestId": 7})),
        ("elicitation/complete", json!({"elicitationId": "e1"})),
    ];
    for (from, to) in [("v1", "v2"), ("v2", "v1")] {
        let mut m = if from == "v1" { v1_session() } else { v2_session() };
        let head = m.len();
        for (i, (v1, v2, params, result)) in requests.iter().enumerate() {
            let method = if from == "v1" { v1 } else { v2 };
            m.push(req(10 + i as u64, method, params.clone()));
            m.push(res(10 + i as u64, result.clone()));
        }
        for (method, params) in &notes {
            m.push(note(method, params.clone()));
        }
        let (out, report) = drive(from, &m);
        assert!(report.iter().all(|l| !l.contains("unconvertible")), "{from} -> {to}: {report:?}");
        let tail: Vec<&Value> =
            out.iter().filter(|o| o["id"].as_u64().is_some_and(|id| id >= 10) || o["id"].is_null()).collect();
        let tail: Vec<&Value> = tail.into_iter().filter(|o| o["method"] != "session/update").collect();
        let mut expect = Vec::new();
        for (i, (v1, v2, params, result)) in requests.iter().enumerate() {
            let method = if to == "v1" { v1 } else { v2 };
            expect.push(req(10 + i as u64, method, params.clone()));
            expect.push(res(10 + i as u64, result.clone()));
        }
        for (method, params) in &notes {
            expect.push(note(method, params.clone()));
        }
        let got: Vec<Value> = tail.into_iter().cloned().collect();
        assert_eq!(got, expect, "{from} -> {to} (after the {head} opening messages)");
    }
}

#[test]
fn v1_prompt_is_acknowledged_echoed_and_ends_with_idle() {
    let mut m = v1_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(upd(json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "yo"}})));
    m.push(res(2, json!({"stopReason": "end_turn"})));
    let (out, _) = drive("v1", &m);
    let i = out.iter().position(|o| o["method"] == "session/prompt").unwrap();
    // The request, then the acknowledgement, the echo and `running`.
    let ack = &out[i + 1];
    assert_eq!(ack["id"], 2);
    let mid = ack["result"]["messageId"].as_str().unwrap().to_owned();
    assert_eq!(
        out[i + 2]["params"]["update"],
        json!({"sessionUpdate": "user_message", "messageId": mid, "content": [{"type": "text", "text": "hi"}]})
    );
    assert_eq!(out[i + 3]["params"]["update"], json!({"sessionUpdate": "state_update", "state": "running"}));
    // The v1 response becomes `idle` with its stop reason, not a response.
    let last = out.last().unwrap();
    assert_eq!(
        last["params"]["update"],
        json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    );
    assert_eq!(out.iter().filter(|o| o["id"] == 2 && o.get("result").is_some()).count(), 1);
}

#[test]
fn a_v1_prompt_response_keeps_its_meta_and_reports_what_a_v2_idle_state_cannot_hold() {
    let mut m = v1_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(res(2, json!({"stopReason": "max_tokens", "_meta": {"trace": "t1"}, "vendorStat": 3})));
    let (out, report) = drive("v1", &m);
    assert_eq!(
        out.last().unwrap()["params"]["update"],
        json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "max_tokens", "_meta": {"trace": "t1"}})
    );
    let last = format!("line {}: ", m.len());
    let of_last: Vec<&String> = report.iter().filter(|l| l.starts_with(&last)).collect();
    assert_eq!(
        of_last,
        [&format!("{last}/result/vendorStat: dropped: a v2 idle state update has no place for other properties")]
    );
}

#[test]
fn v1_error_response_to_a_prompt_ends_the_turn_with_stop_reason_error() {
    let mut m = v1_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, "message": "boom"}}));
    let (out, _) = drive("v1", &m);
    let last = out.last().unwrap();
    assert_eq!(
        last["params"]["update"],
        json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "boom"}})
    );
}

#[test]
fn v2_prompt_ack_is_held_and_idle_becomes_the_response() {
    let mut m = v2_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(res(2, json!({"messageId": "u1"})));
    m.push(upd(
        json!({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "hi"}]}),
    ));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "running"})));
    m.push(upd(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "yo"}}),
    ));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "max_tokens"})));
    let (out, report) = drive("v2", &m);
    assert!(report.is_empty(), "{report:?}");
    let tail: Vec<&Value> = out.iter().skip_while(|o| o["method"] != "session/prompt").skip(1).collect();
    assert_eq!(tail.len(), 2, "the ack, the echo and `running` are not forwarded: {tail:?}");
    assert_eq!(tail[0]["params"]["update"]["sessionUpdate"], "agent_message_chunk");
    assert_eq!(*tail[1], res(2, json!({"stopReason": "max_tokens"})));
}

#[test]
fn v2_stop_reason_error_becomes_an_error_response() {
    let mut m = v2_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(res(2, json!({"messageId": "u1"})));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": {"code": -32000, "message": "rate limited"}})));
    let (out, _) = drive("v2", &m);
    assert_eq!(
        *out.last().unwrap(),
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "rate limited"}})
    );
}

#[test]
fn v1_chunks_without_ids_get_one_id_per_run() {
    let mut m = v1_session();
    let chunk = |kind: &str, text: &str| upd(json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}));
    m.push(chunk("agent_message_chunk", "a"));
    m.push(chunk("agent_message_chunk", "b"));
    m.push(chunk("agent_thought_chunk", "t"));
    m.push(chunk("agent_message_chunk", "c"));
    m.push(upd(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "given", "content": {"type": "text", "text": "d"}}),
    ));
    m.push(chunk("agent_message_chunk", "e"));
    let (out, report) = drive("v1", &m);
    assert!(
        report.iter().all(|r| !r.contains("line 5") && !r.contains("line 6")),
        "made-up ids are not losses: {report:?}"
    );
    let ids: Vec<&str> = updates(&out).iter().map(|u| u["messageId"].as_str().unwrap()).collect();
    assert_eq!(ids[0], ids[1], "one run");
    assert_ne!(ids[1], ids[2], "a different type ends the run");
    assert_ne!(ids[2], ids[3]);
    assert_ne!(ids[0], ids[3], "a run after another type is a new message");
    assert_eq!(ids[4], "given");
    assert_ne!(ids[5], ids[3], "a chunk with an id ends the run");
}

#[test]
fn v2_whole_messages_fan_out_only_to_unseen_messages() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "agent_message", "messageId": "a1", "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}]})));
    m.push(upd(
        json!({"sessionUpdate": "agent_message_chunk", "messageId": "a2", "content": {"type": "text", "text": "p"}}),
    ));
    m.push(upd(
        json!({"sessionUpdate": "agent_message", "messageId": "a2", "content": [{"type": "text", "text": "replaced"}]}),
    ));
    let (out, report) = drive("v2", &m);
    let chunks: Vec<&Value> =
        updates(&out).into_iter().filter(|u| u["sessionUpdate"] == "agent_message_chunk").collect();
    assert_eq!(chunks.len(), 3, "two chunks for a1, the chunk of a2: {chunks:?}");
    assert_eq!(chunks[1]["content"]["text"], "y");
    assert_eq!(chunks[1]["messageId"], "a1");
    assert_eq!(
        report,
        ["line 7: /params/update: dropped: the v1 client already has content for this message; v1 cannot replace it"]
    );
}

#[test]
fn v1_tool_calls_become_field_by_field_updates() {
    let mut m = v1_session();
    m.push(upd(
        json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Read", "kind": "read", "status": "pending"}),
    ));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]})));
    let (out, report) = drive("v1", &m);
    assert!(report.iter().all(|r| !r.starts_with("line 5") && !r.starts_with("line 6")), "{report:?}");
    let u = updates(&out);
    assert_eq!(
        *u[0],
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read", "kind": "read", "status": "pending"})
    );
    assert_eq!(
        *u[1],
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]})
    );
}

#[test]
fn v2_tool_calls_become_v1_tool_calls_with_accumulated_state() {
    let mut m = v2_session();
    // No title yet: the v1 tool call's title is made up (synthesized).
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "kind": "edit"})));
    m.push(upd(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": {"type": "content", "content": {"type": "text", "text": "a"}}})));
    m.push(upd(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": {"type": "content", "content": {"type": "text", "text": "b"}}})));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "kind": null, "title": null, "status": "cancelled"})));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c2", "title": "Run", "kind": null})));
    let (out, report) = drive("v2", &m);
    let u = updates(&out);
    assert_eq!(u[0]["sessionUpdate"], "tool_call");
    assert_eq!(u[0]["kind"], "edit");
    assert_eq!(u[0]["status"], "pending");
    assert_eq!(u[1]["sessionUpdate"], "tool_call_update");
    assert_eq!(u[2]["content"].as_array().unwrap().len(), 2, "the whole accumulated content: {}", u[2]);
    assert_eq!(u.len(), 4, "`cancelled` has no v1 form: {u:?}");
    assert_eq!(
        *u[3],
        json!({"sessionUpdate": "tool_call", "toolCallId": "c2", "title": "Run", "kind": "other", "status": "pending"})
    );
    insta::assert_snapshot!("v2_tool_calls_losses", report.join("\n"));
}

#[test]
fn v2_kind_null_resets_to_other_in_a_v1_update() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "T", "kind": "edit"})));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "kind": null, "content": null})));
    let (out, _) = drive("v2", &m);
    assert_eq!(
        *updates(&out)[1],
        json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "kind": "other", "content": []})
    );
}

#[test]
fn plans_are_the_plan_main_and_other_plans_are_approximated() {
    let mut m = v1_session();
    m.push(upd(
        json!({"sessionUpdate": "plan", "entries": [{"content": "a", "priority": "high", "status": "pending"}]}),
    ));
    let (out, _) = drive("v1", &m);
    assert_eq!(
        *updates(&out)[0],
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": [{"content": "a", "priority": "high", "status": "pending"}]}})
    );
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": []}})));
    m.push(upd(json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "side", "entries": [{"content": "b", "priority": "low", "status": "cancelled"}]}})));
    let (out, report) = drive("v2", &m);
    assert_eq!(*updates(&out)[0], json!({"sessionUpdate": "plan", "entries": []}));
    // A `cancelled` entry has no v1 form: it is dropped on its own, the plan converts.
    assert_eq!(updates(&out).len(), 2, "{out:?}");
    assert_eq!(*updates(&out)[1], json!({"sessionUpdate": "plan", "entries": []}));
    insta::assert_snapshot!("plan_losses", report.join("\n"));
}

#[test]
fn v1_modes_become_a_mode_config_option() {
    let mut m = v1_session();
    m.push(req(2, "session/set_mode", json!({"sessionId": "s1", "modeId": "code"})));
    m.push(res(2, json!({})));
    m.push(upd(json!({"sessionUpdate": "current_mode_update", "currentModeId": "code"})));
    let (out, _) = drive("v1", &m);
    let new = out.iter().find(|o| o["id"] == 1 && o.get("result").is_some()).unwrap();
    let opt = &new["result"]["configOptions"][0];
    assert_eq!(opt["configId"], convert::MODE_CONFIG_ID);
    assert_eq!(opt["category"], "mode");
    assert_eq!(opt["currentValue"], "ask");
    assert_eq!(opt["options"][1], json!({"value": "code", "name": "Code", "description": "Writes code"}));
    let set = out.iter().find(|o| o["id"] == 2 && o.get("method").is_some()).unwrap();
    assert_eq!(set["method"], "session/set_config_option");
    assert_eq!(set["params"], json!({"sessionId": "s1", "configId": "mode", "type": "id", "value": "code"}));
    let u = updates(&out);
    assert_eq!(u[0]["sessionUpdate"], "config_option_update");
    assert_eq!(u[0]["configOptions"][0]["currentValue"], "code");
}

#[test]
fn v1_load_becomes_resume_from_the_start_with_a_state_snapshot() {
    let mut m = v1_session();
    m.push(req(2, "session/load", json!({"sessionId": "s1", "cwd": "/w", "mcpServers": []})));
    m.push(res(2, json!({})));
    let (out, _) = drive("v1", &m);
    let r = out.iter().find(|o| o["id"] == 2 && o.get("method").is_some()).unwrap();
    assert_eq!(r["method"], "session/resume");
    assert_eq!(r["params"]["replayFrom"], json!({"type": "start"}));
    let n = out.len();
    assert_eq!(out[n - 2]["params"]["update"], json!({"sessionUpdate": "state_update", "state": "idle"}));
    assert_eq!(out[n - 1]["id"], 2);
    // And back: a resume from the start is a v1 load.
    let mut m = v2_session();
    m.push(req(2, "session/resume", json!({"sessionId": "s1", "cwd": "/w", "replayFrom": {"type": "start"}})));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle"})));
    m.push(res(2, json!({})));
    let (out, _) = drive("v2", &m);
    let r = out.iter().find(|o| o["id"] == 2 && o.get("method").is_some()).unwrap();
    assert_eq!(r["method"], "session/load");
    assert_eq!(r["params"], json!({"mcpServers": [], "cwd": "/w", "sessionId": "s1"}));
}

#[test]
fn initialize_states_stdio_and_reports_what_v2_cannot_say() {
    let (out, report) = drive("v1", &v1_session());
    let caps = &out[1]["result"]["capabilities"]["session"];
    assert_eq!(caps["mcp"], json!({"stdio": {}, "http": {}}));
    assert_eq!(caps["prompt"], json!({"image": {}}));
    insta::assert_snapshot!("initialize_losses", report.join("\n"));
    // Strict: every loss is an error, the message is not emitted.
    let mut strict = V1ToV2::strict();
    let e = strict.convert(V1_INIT[0]).unwrap_err();
    assert!(matches!(e, AdaptError::NotConverted(ref c) if c.losses.len() == 1), "{e:?}");
}

#[test]
fn permission_requests_take_the_accumulated_title() {
    let mut m = v1_session();
    m.push(upd(json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Delete files", "kind": "delete"})));
    m.push(req(7, "session/request_permission", json!({"sessionId": "s1", "toolCall": {"toolCallId": "c1"}, "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]})));
    let (out, report) = drive("v1", &m);
    let r = out.iter().find(|o| o["method"] == "session/request_permission").unwrap();
    assert_eq!(r["params"]["title"], "Delete files");
    assert!(report.iter().all(|l| !l.starts_with("line 6")), "{report:?}");
}

#[test]
fn bad_input_is_reported_and_the_trace_goes_on() {
    let mut m: Vec<Value> = v2_session();
    m.push(json!({"jsonrpc": "2.0", "id": 9, "method": "session/frobnicate", "params": {}}));
    m.push(upd(json!({"sessionUpdate": "_vendor_progress", "percent": 3})));
    m.push(upd(json!({"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": {"type": "text", "text": "still here"}})));
    let mut down = V2ToV1::new();
    let mut outs = Vec::new();
    let mut errs = Vec::new();
    for t in &m {
        match down.convert(&t.to_string()) {
            Ok(a) => outs.extend(encoded(&a)),
            Err(e) => errs.push(e.to_string()),
        }
    }
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("rejected: /method: unknown request method `session/frobnicate`"), "{errs:?}");
    assert_eq!(
        errs[1],
        "not converted: /params/update: unconvertible: the session update `_vendor_progress` has no v1 form"
    );
    assert_eq!(outs.last().unwrap()["params"]["update"]["content"]["text"], "still here");
}

#[path = "convert/corpus.rs"]
mod corpus;

#[path = "convert/round_trip.rs"]
mod round_trip;

#[test]
fn unstable_only_properties_of_hand_written_pairs_are_reported() {
    // These tests build the bindings with `unstable`: v1 `AgentCapabilities`
    // has `providers` there, which the hand-written rule does not carry.
    let caps: acp_bindings::v1::AgentCapabilities = serde_json::from_str(r#"{"providers":{}}"#).unwrap();
    let c = convert::to_v2(caps).unwrap();
    assert_eq!(c.losses[0].pointer, "/providers");
    assert_eq!(c.losses[0].kind, LossKind::Dropped);
}

#[test]
fn v2_states_without_a_v1_form_are_dropped_with_a_loss() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle"})));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "requires_action"})));
    let (out, report) = drive("v2", &m);
    assert_eq!(out.len(), 4, "only the session set-up: {out:?}");
    insta::assert_snapshot!("state_losses", report.join("\n"));
}

#[test]
fn the_same_id_open_in_both_directions_pairs_by_result_shape() {
    let mut m = v1_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "rm"}]})));
    m.push(upd(json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Delete", "kind": "delete"})));
    m.push(req(2, "session/request_permission", json!({"sessionId": "s1", "toolCall": {"toolCallId": "c1"}, "options": [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]})));
    m.push(res(2, json!({"outcome": {"outcome": "selected", "optionId": "y"}})));
    m.push(res(2, json!({"stopReason": "end_turn"})));
    let (out, report) = drive("v1", &m);
    assert!(report.iter().all(|r| !r.contains("rejected")), "{report:?}");
    assert_eq!(out.last().unwrap()["params"]["update"]["stopReason"], "end_turn");
    assert!(out.iter().any(|o| o["result"]["outcome"]["optionId"] == "y"));
}

#[test]
fn set_mode_answers_with_the_new_mode_current() {
    let mut m = v1_session();
    m.push(req(2, "session/set_mode", json!({"sessionId": "s1", "modeId": "code"})));
    m.push(res(2, json!({})));
    let (out, _) = drive("v1", &m);
    let r = out.last().unwrap();
    assert_eq!(r["result"]["configOptions"][0]["currentValue"], "code");
}

#[test]
fn a_content_chunk_converts_only_its_block_and_a_failed_tool_call_is_not_seen() {
    let mut m = v2_session();
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "T", "status": "cancelled"})));
    m.push(upd(json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"})));
    m.push(upd(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": {"type": "content", "content": {"type": "text", "text": "a"}}})));
    m.push(upd(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": {"type": "content", "content": {"type": "image", "data": "AA==", "mimeType": "image/png", "annotations": {"audience": ["_robot"]}}}})));
    m.push(upd(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": {"type": "content", "content": {"type": "text", "text": "b"}}})));
    let (out, report) = drive("v2", &m);
    let u = updates(&out);
    // The first update (`cancelled`) failed: the second is the v1 `tool_call`,
    // with what the first one set (its state was kept, not taken apart).
    assert_eq!(u[0]["sessionUpdate"], "tool_call");
    assert_eq!(u[0]["status"], "completed");
    assert_eq!(u[0]["title"], "T");
    assert_eq!(u[2]["content"].as_array().unwrap().len(), 2, "a and b; the unconvertible block is not there: {}", u[2]);
    insta::assert_snapshot!("content_chunk_losses", report.join("\n"));
}

#[test]
fn an_echo_before_the_acknowledgement_and_an_unknown_stop_reason() {
    let mut m = v2_session();
    m.push(req(2, "session/prompt", json!({"sessionId": "s1", "prompt": [{"type": "text", "text": "hi"}]})));
    m.push(upd(
        json!({"sessionUpdate": "user_message", "messageId": "u1", "content": [{"type": "text", "text": "hi"}]}),
    ));
    m.push(res(2, json!({"messageId": "u1"})));
    m.push(upd(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "_acme_paused"})));
    let (out, report) = drive("v2", &m);
    let tail: Vec<&Value> = out.iter().skip_while(|o| o["method"] != "session/prompt").skip(1).collect();
    assert_eq!(tail.len(), 1, "the echo is recognised by its content: {tail:?}");
    assert_eq!(*tail[0], res(2, json!({"stopReason": "end_turn"})));
    assert_eq!(report, ["line 8: /params/update/stopReason: approximated: the stop reason \"_acme_paused\" has no v1 form: the v1 turn ends with `end_turn`"]);
    // The protocol version of a converted initialize is the target's.
    assert_eq!(out[0]["params"]["protocolVersion"], 1);
}

#[test]
fn marker_objects_with_properties_and_mode_update_metadata() {
    // A v2 marker carrying `_meta` is more than v1's `true`: reported.
    let caps: acp_bindings::v2::PromptCapabilities =
        serde_json::from_str(r#"{"image":{"_meta":{"x":1}},"audio":{}}"#).unwrap();
    let c = convert::to_v1(caps).unwrap();
    assert_eq!(serde_json::to_value(&c.value).unwrap(), json!({"image": true, "audio": true}));
    assert_eq!(c.losses.len(), 1);
    assert_eq!(c.losses[0].pointer, "/image");
    // A mode change keeps the notification's and the update's `_meta`.
    let mut m = v1_session();
    m.push(note("session/update", json!({"sessionId": "s1", "_meta": {"n": 1}, "update": {"sessionUpdate": "current_mode_update", "currentModeId": "code", "_meta": {"u": 2}}})));
    let (out, _) = drive("v1", &m);
    let last = out.last().unwrap();
    assert_eq!(last["params"]["_meta"], json!({"n": 1}));
    assert_eq!(last["params"]["update"]["_meta"], json!({"u": 2}));
}

/// Found by the `convert` fuzz target: an unknown v1 property named like a v2
/// property (`info` on a v1 `initialize`) was carried over beside the v2
/// member of that name, and the message's `info` became the v1 extension's
/// (invalid in v2: no `version`). Unknown properties the target names are
/// dropped with a loss at their pointer; the others still pass through.
#[test]
fn unknown_properties_the_target_names_are_dropped_not_written_twice() {
    let (out, report) = drive(
        "v1",
        &[req(
            0,
            "initialize",
            json!({"protocolVersion": 1, "info": {"name": "zed", "2version": "1"}, "capabilities": 7, "x-kept": 1}),
        )],
    );
    let params = &out[0]["params"];
    assert_eq!(params["info"], json!({"name": "unknown", "version": "0.0.0"}), "{params}");
    assert!(params.get("capabilities").is_none(), "{params}");
    assert_eq!(params["x-kept"], 1, "{params}");
    for key in ["info", "capabilities"] {
        assert!(
            report.iter().any(|l| l.contains(&format!("/params/{key}")) && l.contains("dropped")),
            "{key}: {report:?}"
        );
    }

    // v2 -> v1 through the adapter's own rules: a content chunk of a new tool
    // call with an unknown `title` becomes a v1 `tool_call` with one title.
    let mut m = v2_session();
    m.push(upd(json!({
        "sessionUpdate": "tool_call_content_chunk", "toolCallId": "t1",
        "content": {"type": "content", "content": {"type": "text", "text": "a"}}, "title": 5
    })));
    let (out, report) = drive("v2", &m);
    let call = out.iter().rev().find(|o| o["params"]["update"]["sessionUpdate"] == "tool_call").expect("a tool call");
    assert!(call["params"]["update"]["title"].is_string(), "{call}");
    assert!(report.iter().any(|l| l.contains("/params/update/title") && l.contains("dropped")), "{report:?}");
}

#[test]
fn loss_pointers_escape_keys_and_write_indexes() {
    let mut cx = convert::Cx::at_pointer("/params", false);
    cx.enter("update");
    cx.enter_owned("a/b~c".to_owned());
    cx.enter_index(0);
    cx.enter_index(1207);
    assert_eq!(cx.pointer(), "/params/update/a~1b~0c/0/1207");
    cx.leave();
    cx.leave();
    cx.leave();
    assert_eq!(cx.pointer(), "/params/update");
    assert_eq!(convert::Cx::new(false).pointer(), "");
}

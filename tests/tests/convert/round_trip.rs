//! v1 -> v2 -> v1 is the identity on generated v1 values (proptest).

use super::*;
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    "[a-z ]{0,12}"
}

/// v1 session updates that v2 can represent (message ids given, tool
/// calls created with their kind and status, v1 statuses only).
fn update() -> impl Strategy<Value = Value> {
    let chunk = (prop::sample::select(vec!["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]), text(), 0..3u8)
        .prop_map(|(k, t, id)| json!({"sessionUpdate": k, "content": {"type": "text", "text": t}, "messageId": format!("m{id}")}));
    let kind =
        prop::sample::select(vec!["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]);
    let status = prop::sample::select(vec!["pending", "in_progress", "completed", "failed"]);
    let tool_call = (0..3u8, text(), kind.clone(), status.clone())
        .prop_map(|(id, t, k, s)| json!({"sessionUpdate": "tool_call", "toolCallId": format!("c{id}"), "title": t, "kind": k, "status": s}));
    let tool_update =
        (0..3u8, proptest::option::of(text()), proptest::option::of(status), proptest::option::of(text())).prop_map(
            |(id, t, s, c)| {
                let mut u = json!({"sessionUpdate": "tool_call_update", "toolCallId": format!("c{id}")});
                if let Some(t) = t {
                    u["title"] = json!(t);
                }
                if let Some(s) = s {
                    u["status"] = json!(s);
                }
                if let Some(c) = c {
                    u["content"] = json!([{"type": "content", "content": {"type": "text", "text": c}}]);
                }
                u
            },
        );
    let plan = prop::collection::vec((text(), prop::sample::select(vec!["high", "medium", "low"])), 0..3).prop_map(|es| {
        json!({"sessionUpdate": "plan", "entries": es.into_iter().map(|(c, p)| json!({"content": c, "priority": p, "status": "pending"})).collect::<Vec<_>>()})
    });
    prop_oneof![chunk, tool_call, tool_update, plan]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn v1_to_v2_to_v1_is_the_identity(updates in prop::collection::vec(update(), 1..12)) {
        // A tool call is created before it is updated (v1 requires it).
        let mut created = std::collections::HashSet::new();
        let updates: Vec<Value> = updates.into_iter().filter(|u| {
            let id = u["toolCallId"].as_str().map(str::to_owned);
            match (u["sessionUpdate"].as_str(), id) {
                (Some("tool_call"), Some(id)) => created.insert(id),
                (Some("tool_call_update"), Some(id)) => created.contains(&id),
                _ => true,
            }
        }).collect();
        let mut up = V1ToV2::strict();
        let mut down = V2ToV1::strict();
        let mut back = Vec::new();
        for u in &updates {
            let m = note("session/update", json!({"sessionId": "s", "update": u}));
            let v2 = up.convert(&m.to_string()).unwrap();
            for o in v2.encode().unwrap() {
                back.extend(encoded(&down.convert(&o).unwrap()));
            }
        }
        let got: Vec<Value> = back.iter().map(|m| m["params"]["update"].clone()).collect();
        prop_assert_eq!(got, updates);
    }
}

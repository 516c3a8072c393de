//! Compaction (`SessionReducer::compact`): folding the compacted stream gives
//! the state folding the original gave, for the traces and for generated
//! streams (chunks, whole updates, patches and clears, kinds replacing each
//! other, unknown arms and members, `_meta` by key, base64 terminal output),
//! after a trip through the wire (each compacted update encoded and decoded).
//!
//! `tests/reducer/compaction.json` holds generated cases with the crate's
//! state and compacted stream: this test checks them against the crate
//! (`ACP_BLESS=1` rewrites the file), and the TypeScript and Python reducers'
//! own tests check themselves against the same file.

use std::path::{Path, PathBuf};

use acp_bindings::v2::{SessionReducer, SessionUpdate};
use proptest::prelude::*;
use serde_json::{json, Value};

/// A small deterministic generator (xorshift64*), so that a seed names a stream.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A patch property: omitted (`None`), `null`, or the value.
fn patch(rng: &mut Rng, out: &mut serde_json::Map<String, Value>, name: &str, value: impl FnOnce(&mut Rng) -> Value) {
    match rng.below(5) {
        0 | 1 => {}
        2 => {
            out.insert(name.into(), Value::Null);
        }
        _ => {
            let v = value(rng);
            out.insert(name.into(), v);
        }
    }
}

fn text(rng: &mut Rng) -> Value {
    json!(format!("text {}", rng.below(1000)))
}

/// A content block: text mostly, a resource link, an unknown type kept whole.
fn block(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!({"type": "resource_link", "name": "main.rs", "uri": "file:///src/main.rs"}),
        1 => json!({"type": "_acme_sketch", "strokes": rng.below(9)}),
        _ => json!({"type": "text", "text": text(rng)}),
    }
}

fn blocks(rng: &mut Rng) -> Value {
    Value::Array((0..rng.below(3)).map(|_| block(rng)).collect())
}

fn tool_content(rng: &mut Rng) -> Value {
    json!({"type": "content", "content": block(rng)})
}

/// `_meta` by key: members set and removed (`null`), now and then not an object.
fn meta(rng: &mut Rng) -> Value {
    if rng.chance(10) {
        return json!(5);
    }
    let mut m = serde_json::Map::new();
    for k in ["a", "b", "acme.dev/pinned"] {
        match rng.below(4) {
            0 => {}
            1 => {
                m.insert(k.into(), Value::Null);
            }
            2 => {
                m.insert(k.into(), json!(rng.below(10)));
            }
            _ => {
                m.insert(k.into(), json!({"deep": text(rng)}));
            }
        }
    }
    Value::Object(m)
}

const BASE64: [&str; 4] = ["aGVsbG8K", "d29ybGQ=", "G1szMm0=", "not base64!"];

/// One `session/update` payload of any arm the reducer knows, one it does
/// not track, or one the schema does not know.
fn update(rng: &mut Rng) -> Value {
    let mut u = serde_json::Map::new();
    let tag = *rng.pick(&[
        "tool_call_update",
        "tool_call_update",
        "tool_call_content_chunk",
        "user_message",
        "agent_message",
        "agent_thought",
        "user_message_chunk",
        "agent_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "plan_update",
        "terminal_update",
        "terminal_output_chunk",
        "session_info_update",
        "usage_update",
        "compaction_update",
        "compaction_summary_chunk",
        "state_update",
        "_zed_cursor",
    ]);
    u.insert("sessionUpdate".into(), json!(tag));
    members(rng, tag, &mut u);
    if rng.chance(10) {
        u.insert("x_acme_extra".into(), json!({"kept": true}));
    }
    Value::Object(u)
}

/// The members of an update of the arm `tag`.
fn members(rng: &mut Rng, tag: &str, u: &mut serde_json::Map<String, Value>) {
    let tool_id = |rng: &mut Rng| json!(rng.pick(&["call_1", "call_2", "call_3"]));
    // Message ids shared by the kinds: a whole update of another kind replaces the entity.
    let message_id = |rng: &mut Rng| json!(rng.pick(&["msg_1", "msg_2", "msg_3"]));
    match tag {
        "tool_call_update" => {
            u.insert("toolCallId".into(), tool_id(rng));
            patch(rng, u, "name", text);
            patch(rng, u, "title", text);
            patch(rng, u, "kind", |r| json!(r.pick(&["read", "edit", "other", "_acme_kind"])));
            patch(rng, u, "status", |r| json!(r.pick(&["pending", "in_progress", "completed", "failed"])));
            patch(rng, u, "content", |r| Value::Array((0..r.below(3)).map(|_| tool_content(r)).collect()));
            patch(rng, u, "locations", |r| json!([{"path": "/src/lib.rs", "line": r.below(90)}]));
            patch(rng, u, "rawInput", |r| json!({"query": text(r)}));
            patch(rng, u, "rawOutput", text);
            patch(rng, u, "capabilities", |_| json!({"cancel": {}}));
            patch(rng, u, "_meta", meta);
        }
        "tool_call_content_chunk" => {
            u.insert("toolCallId".into(), tool_id(rng));
            u.insert("content".into(), tool_content(rng));
        }
        "user_message" | "agent_message" | "agent_thought" => {
            u.insert("messageId".into(), message_id(rng));
            patch(rng, u, "content", blocks);
            patch(rng, u, "_meta", meta);
        }
        "user_message_chunk" | "agent_message_chunk" | "agent_thought_chunk" => {
            u.insert("messageId".into(), message_id(rng));
            u.insert("content".into(), block(rng));
        }
        "plan_update" => {
            let entries: Vec<Value> = (0..rng.below(3))
                .map(|_| json!({"content": text(rng), "priority": "high", "status": rng.pick(&["pending", "completed"])}))
                .collect();
            u.insert(
                "plan".into(),
                json!({"type": "items", "planId": rng.pick(&["main", "side"]), "entries": entries}),
            );
        }
        "terminal_update" => {
            u.insert("terminalId".into(), json!(rng.pick(&["term_1", "term_2"])));
            patch(rng, u, "command", |_| json!("cargo test"));
            patch(rng, u, "cwd", |_| json!("/home/user/project"));
            patch(rng, u, "output", |r| json!({"data": r.pick(&BASE64)}));
            patch(rng, u, "exitStatus", |r| json!({"exitCode": r.below(3), "signal": null}));
            patch(rng, u, "size", |_| json!({"cols": 80, "rows": 24}));
            patch(rng, u, "_meta", meta);
        }
        "terminal_output_chunk" => {
            u.insert("terminalId".into(), json!(rng.pick(&["term_1", "term_2"])));
            u.insert("data".into(), json!(rng.pick(&BASE64)));
        }
        "session_info_update" => {
            patch(rng, u, "title", text);
            patch(rng, u, "updatedAt", |_| json!("2026-11-29T04:00:00Z"));
            patch(rng, u, "_meta", meta);
        }
        "usage_update" => {
            u.insert("used".into(), json!(rng.below(200_000)));
            u.insert("size".into(), json!(200_000));
            patch(rng, u, "cost", |r| json!({"amount": r.below(100), "currency": "USD"}));
            patch(rng, u, "_meta", meta);
        }
        "compaction_update" => {
            u.insert("compactionId".into(), json!(rng.pick(&["cmp_1", "cmp_2"])));
            u.insert("status".into(), json!(rng.pick(&["in_progress", "completed", "failed"])));
            patch(rng, u, "summary", blocks);
            patch(rng, u, "error", text);
            patch(rng, u, "_meta", meta);
        }
        "compaction_summary_chunk" => {
            u.insert("compactionId".into(), json!(rng.pick(&["cmp_1", "cmp_2"])));
            u.insert("content".into(), block(rng));
        }
        "state_update" => {
            u.insert("state".into(), json!("idle"));
        }
        _ => {
            u.insert("line".into(), json!(rng.below(40)));
        }
    }
}

/// The stream of `seed`: up to 50 updates.
fn stream(seed: u64) -> Vec<Value> {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(50);
    (0..n).map(|_| update(&mut rng)).collect()
}

fn decode(u: &Value) -> SessionUpdate {
    serde_json::from_value(u.clone()).unwrap_or_else(|e| panic!("a generated update does not decode: {u}: {e}"))
}

fn fold<'a>(updates: impl IntoIterator<Item = &'a Value>) -> SessionReducer {
    let mut r = SessionReducer::new();
    for u in updates {
        r.apply(decode(u));
    }
    r
}

/// The entities a state holds: what a compacted stream has one update for.
fn entities(s: &SessionReducer) -> usize {
    s.tool_calls.len()
        + s.messages.len()
        + s.plans.len()
        + s.terminals.len()
        + usize::from(s.session_info.is_some())
        + usize::from(s.usage.is_some())
        + s.compactions.len()
}

/// Compacts the fold of `updates` and checks the compacted stream, through
/// the wire, folds to the same state; returns the state and the stream as JSON.
fn check(updates: &[Value], what: &str) -> (Value, Vec<Value>) {
    let state = fold(updates);
    let compacted: Vec<Value> = state.compact().iter().map(|u| serde_json::to_value(u).unwrap()).collect();
    let again = fold(&compacted);
    let json = serde_json::to_value(&state).unwrap();
    assert_eq!(serde_json::to_value(&again).unwrap(), json, "{what}: the compacted stream folds to another state");
    assert_eq!(again, state, "{what}");
    assert_eq!(compacted.len(), entities(&state), "{what}: one update per entity");
    assert!(compacted.len() <= updates.len(), "{what}: longer than the stream");
    // Compacting what compaction wrote changes nothing.
    let twice: Vec<Value> = again.compact().iter().map(|u| serde_json::to_value(u).unwrap()).collect();
    assert_eq!(twice, compacted, "{what}: compaction is not idempotent");
    (json, compacted)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The seeds of the shared cases.
const SHARED: std::ops::RangeInclusive<u64> = 1..=40;

#[test]
fn compacted_generated_streams_fold_to_the_same_state_and_the_shared_cases_hold() {
    let cases: Vec<Value> = SHARED
        .map(|seed| {
            let updates = stream(seed);
            let (state, compacted) = check(&updates, &format!("seed {seed}"));
            json!({"seed": seed, "stream": updates, "state": state, "compacted": compacted})
        })
        .collect();
    // The cases exercise what they are for.
    let all: Vec<&Value> = cases.iter().flat_map(|c| c["stream"].as_array().unwrap()).collect();
    for tag in ["agent_message_chunk", "tool_call_content_chunk", "terminal_output_chunk", "_zed_cursor"] {
        assert!(all.iter().any(|u| u["sessionUpdate"] == tag), "no {tag} in the shared cases");
    }
    let (streamed, compacted) = cases.iter().fold((0, 0), |(s, c), case| {
        (s + case["stream"].as_array().unwrap().len(), c + case["compacted"].as_array().unwrap().len())
    });
    assert!(compacted * 2 < streamed, "{compacted} compacted updates for {streamed}");
    let file = root().join("tests/reducer/compaction.json");
    // One case a line.
    let comment = "Generated by tests/tests/bindings/compaction.rs (ACP_BLESS=1 rewrites it): v2 session/update \
        streams, the state the crate's SessionReducer folds each into, and the stream SessionReducer::compact \
        writes. The TypeScript and Python reducers' tests check themselves against it.";
    let lines: Vec<String> = cases.iter().map(|c| serde_json::to_string(c).unwrap()).collect();
    let text = format!("{{\"$comment\": {},\n\"cases\": [\n{}\n]}}\n", json!(comment), lines.join(",\n"));
    if std::env::var_os("ACP_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, &text).unwrap();
    }
    let stored = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        stored == text,
        "{} is not what the crate gives: run with ACP_BLESS=1 and review the change",
        file.display()
    );
}

#[test]
fn compacted_traces_fold_to_the_same_state() {
    let mut n = 0;
    for entry in std::fs::read_dir(root().join("tests/traces")).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().contains("v2") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let updates: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["method"] == "session/update")
            .map(|m| m["params"]["update"].clone())
            .filter(|u| serde_json::from_value::<SessionUpdate>(u.clone()).is_ok())
            .collect();
        assert!(!updates.is_empty(), "{} has no update", path.display());
        check(&updates, &path.display().to_string());
        n += 1;
    }
    assert!(n >= 2, "only {n} v2 traces");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn compacted_streams_fold_to_the_same_state(seed in any::<u64>()) {
        check(&stream(seed), &format!("seed {seed}"));
    }
}

/// A `_meta` member removed by key leaves the others in their order (as the
/// TypeScript and Python reducers keep it), in the state and in its compaction.
#[test]
fn a_meta_member_removed_keeps_the_others_order() {
    let updates = [
        json!({"sessionUpdate": "session_info_update", "_meta": {"a": 1, "pinned": 2}}),
        json!({"sessionUpdate": "session_info_update", "_meta": {"b": 3}}),
        json!({"sessionUpdate": "session_info_update", "_meta": {"a": null}}),
    ];
    let (state, compacted) = check(&updates, "meta");
    assert_eq!(serde_json::to_string(&state["sessionInfo"]["_meta"]).unwrap(), r#"{"pinned":2,"b":3}"#);
    assert_eq!(
        serde_json::to_string(&compacted[0]).unwrap(),
        r#"{"sessionUpdate":"session_info_update","_meta":{"pinned":2,"b":3}}"#
    );
}

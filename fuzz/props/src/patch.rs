//! The laws of `#[derive(AcpPatch)]` patches, on states and patches decoded
//! from arbitrary JSON: the v2 upserts (`ToolCall`, message and session
//! states) and a user's own struct with every field rule (nested, by key,
//! boxed, skipped, skip-invalid-items).
//!
//! - `a.apply(a.diff(&b))` reaches `b` (up to the key, which a patch never
//!   changes), also when the diff crosses the wire, for the states patches
//!   reach (`from_patch`); for any decoded states, a second diff changes
//!   nothing more;
//! - `p.then(q)` applied is `p` applied then `q` applied;
//! - `then` is associative: `(p.then(q)).then(r) == p.then(q.then(r))`;
//! - a patch decoded from JSON encodes and decodes to itself.
//!
//! Input: a header line naming the state type, then up to five JSON lines:
//! states `a` and `b`, patches `p`, `q` and `r` (a line that does not decode
//! leaves out the laws that need it).

use std::fmt::Debug;

use crate::header;
use acp_bindings::{v2, AcpPatch, PatchOps, Patchable};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Normal,
    Insert,
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cursor {
    pub line: u32,
    pub column: Option<u32>,
}

/// A user's extension struct with every field rule of the derive.
#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(patch = "EditorStateUpdate")]
#[serde(rename_all = "camelCase")]
pub struct EditorState {
    #[acp(key)]
    pub buffer_id: String,
    pub title: Option<String>,
    pub mode: Mode,
    pub files: Vec<String>,
    #[acp(by_key)]
    #[serde(rename = "_meta")]
    pub meta: Option<Map<String, Value>>,
    #[acp(nested)]
    pub cursor: Cursor,
    #[acp(boxed)]
    pub payload: Value,
    #[acp(skip_invalid_items)]
    pub tags: Vec<u32>,
    #[acp(skip)]
    #[serde(skip)]
    pub cached_len: usize,
}

fn laws<S>(lines: &[&str])
where
    S: Patchable + Clone + PartialEq + Debug + DeserializeOwned + Serialize,
    S::Patch: Clone + PartialEq + Debug + DeserializeOwned + Serialize,
{
    let decoded = |i: usize| lines.get(i).and_then(|t| serde_json::from_str::<S>(t).ok());
    let patch = |i: usize| lines.get(i).and_then(|t| serde_json::from_str::<S::Patch>(t).ok());
    // The states patches reach: an entity made from a patch. (A state
    // decoded from JSON can hold what no patch makes, `null` under a by-key
    // map: `null` there removes the key, as in JSON Merge Patch.)
    let reached = |i: usize| patch(i).map(S::from_patch);
    let (p, q, r) = (patch(2), patch(3), patch(4));
    let name = std::any::type_name::<S>();
    if let (Some(a), Some(b)) = (reached(0), reached(1)) {
        let d = a.diff(&b);
        let mut x = a.clone();
        x.apply(d.clone());
        // Equal up to the key, which a patch names and never changes.
        assert!(x.diff(&b).is_empty(), "{name}: apply(diff(a, b), a) is not b\na = {a:?}\nb = {b:?}\ngot {x:?}");
        let text = serde_json::to_string(&d).expect("a diff encodes");
        let received: S::Patch =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: the diff {text} does not decode: {e}"));
        let mut y = a.clone();
        y.apply(received);
        assert_eq!(y, x, "{name}: the diff {text} applies differently after the wire");
        assert!(a.diff(&a).is_empty(), "{name}: a state differs from itself");
    }
    if let (Some(a), Some(b)) = (decoded(0), decoded(1)) {
        // Any two decoded states: the diff gets as close as patches can,
        // so a second diff changes nothing more.
        let mut x = a.clone();
        x.apply(a.diff(&b));
        let mut y = x.clone();
        y.apply(x.diff(&b));
        assert_eq!(y, x, "{name}: a second diff towards b still changes the state\na = {a:?}\nb = {b:?}");
        assert!(a.diff(&a).is_empty(), "{name}: a decoded state differs from itself: {a:?}");
    }
    let a = decoded(0);
    for p in [&p, &q, &r].into_iter().flatten() {
        let text = serde_json::to_string(p).expect("a patch encodes");
        let back: S::Patch =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: the patch {text} does not decode: {e}"));
        assert_eq!(&back, p, "{name}: the patch {text} does not decode to itself");
    }
    if let (Some(p), Some(q)) = (&p, &q) {
        if let Some(a) = &a {
            let mut one = a.clone();
            one.apply(p.clone().then(q.clone()));
            let mut two = a.clone();
            two.apply(p.clone());
            two.apply(q.clone());
            assert_eq!(one, two, "{name}: apply(p.then(q)) is not apply(p), apply(q)\np = {p:?}\nq = {q:?}");
        }
        if let Some(r) = &r {
            let left = p.clone().then(q.clone()).then(r.clone());
            let right = p.clone().then(q.clone().then(r.clone()));
            assert_eq!(left, right, "{name}: then is not associative\np = {p:?}\nq = {q:?}\nr = {r:?}");
        }
    }
}

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Some((head, text)) = header(data) else { return };
    let lines: Vec<&str> = text.split('\n').take(5).collect();
    match head {
        "ToolCall" => laws::<v2::ToolCall>(&lines),
        "UserMessageState" => laws::<v2::UserMessageState>(&lines),
        "AgentMessageState" => laws::<v2::AgentMessageState>(&lines),
        "AgentThoughtState" => laws::<v2::AgentThoughtState>(&lines),
        "TerminalState" => laws::<v2::TerminalState>(&lines),
        "SessionInfoState" => laws::<v2::SessionInfoState>(&lines),
        "UsageState" => laws::<v2::UsageState>(&lines),
        "CompactionState" => laws::<v2::CompactionState>(&lines),
        "SubagentState" => laws::<v2::SubagentState>(&lines),
        "SessionMessageState" => laws::<v2::SessionMessageState>(&lines),
        "EditorState" => laws::<EditorState>(&lines),
        _ => {}
    }
}

//! The stream of the session-update benches and the work each row does on
//! it, shared by `session_update.rs` (criterion, timings) and
//! `instructions.rs` (instruction counts under valgrind).

#![allow(dead_code)] // each bench uses its own subset

use std::collections::HashMap;
use std::hint::black_box;

use serde::de::IgnoredAny;
use serde_json::{json, Value};

use super::{direct, reference};

pub type Ours = acp_bindings::v2::UpdateSessionNotification;
pub type Official = agent_client_protocol_schema::v2::UpdateSessionNotification;

/// A tool-call-heavy stream: `tool_call_update` patches (with explicit nulls),
/// `tool_call_content_chunk`s, message and thought chunks, and a few others.
pub fn stream() -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..400 {
        let id = format!("call_{i:04}");
        let update = |u: Value| json!({"sessionId": "sess_abc123", "update": u}).to_string();
        out.push(update(json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "title": format!("Reading src/module_{i}.rs"),
            "kind": "read", "status": "pending", "locations": [{"path": format!("/work/src/module_{i}.rs"), "line": 12}],
            "rawInput": {"path": format!("/work/src/module_{i}.rs"), "limit": 200}})));
        out.push(update(json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "in_progress", "title": null, "rawOutput": null})));
        for c in 0..3 {
            out.push(update(json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": id,
                "content": {"type": "content", "content": {"type": "text", "text": format!("line {c} of the output of tool call {i}: fn main() {{ println!(\"hello\"); }}")}}})));
        }
        out.push(update(json!({"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed", "kind": null,
            "content": [{"type": "content", "content": {"type": "text", "text": "Found 3 matches"}},
                        {"type": "diff", "changes": [{"operation": "modify", "path": format!("/work/src/module_{i}.rs")}]}],
            "locations": null, "_meta": {"traceId": format!("t-{i}")}})));
        for m in 0..3 {
            out.push(update(json!({"sessionUpdate": "agent_message_chunk", "messageId": format!("msg_{i}"),
                "content": {"type": "text", "text": format!("Chunk {m}: the agent explains what it found in module {i}. ")}})));
        }
        out.push(update(json!({"sessionUpdate": "agent_thought_chunk", "messageId": format!("thought_{i}"),
            "content": {"type": "text", "text": "Considering the next step."}})));
        if i % 20 == 0 {
            out.push(update(
                json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": [
                {"content": "Read the modules", "priority": "high", "status": "completed"},
                {"content": "Write the fix", "priority": "medium", "status": "in_progress"}]}}),
            ));
            out.push(update(json!({"sessionUpdate": "usage_update", "used": 1000 + i, "size": 200000})));
            out.push(update(json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})));
            out.push(update(
                json!({"sessionUpdate": "session_info_update", "title": "Fix the parser", "updatedAt": null}),
            ));
        }
    }
    out
}

/// The large messages, by name: one `session/update` notification each.
///
/// - `image`: an agent message chunk holding a 4 MB image block (3 MB of
///   bytes, base64);
/// - `text`: a 2 MB text block dense with escapes (quotes, backslashes,
///   newlines, tabs, a control character every line) and non-ASCII text;
/// - `diff`: a tool call's 500 KB diff, a git patch of source lines (quotes
///   and newlines escaped).
pub fn large(name: &str) -> String {
    let update = |u: Value| json!({"sessionId": "sess_abc123", "update": u}).to_string();
    match name {
        "image" => {
            // Bytes that do not compress: a linear congruential sequence.
            let mut x: u32 = 12345;
            let bytes: Vec<u8> = (0..3 * 1024 * 1024)
                .map(|_| {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (x >> 16) as u8
                })
                .collect();
            let data = acp_bindings::runtime::Base64String::encode(bytes);
            update(json!({"sessionUpdate": "agent_message_chunk", "messageId": "msg_1",
                "content": {"type": "image", "mimeType": "image/png", "data": data.as_str()}}))
        }
        "text" => {
            let mut text = String::new();
            let mut i = 0;
            while text.len() < 2 * 1024 * 1024 {
                text.push_str(&format!(
                    "{i}\t\"quoted\" C:\\path\\to\\file \u{1} caf\u{e9} \u{1F600} {{\"k\": [1, 2]}}\n"
                ));
                i += 1;
            }
            update(json!({"sessionUpdate": "agent_message_chunk", "messageId": "msg_1",
                "content": {"type": "text", "text": text}}))
        }
        "diff" => {
            let mut patch = String::from(
                "diff --git /work/src/big.rs /work/src/big.rs\n--- /work/src/big.rs\n+++ /work/src/big.rs\n",
            );
            let mut i = 0;
            while patch.len() < 500 * 1024 {
                patch.push_str(&format!("@@ -{i},3 +{i},3 @@\n     let a = parse(\"{i}\");\n-    println!(\"{{}}\", a);\n+    eprintln!(\"{{a:?}}\\n\");\n"));
                i += 3;
            }
            update(json!({"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed",
                "content": [{"type": "diff", "changes": [{"operation": "modify", "path": "/work/src/big.rs"}],
                    "patch": {"format": "git_patch", "text": patch}}]}))
        }
        other => panic!("no large message `{other}` (image, text, diff)"),
    }
}

/// The large messages' rows: `large-<message>-<work>`, one message a pass.
pub const LARGE: &[&str] = &["image", "text", "diff"];

/// What a large row does, by its last part, with what the ratios compare.
pub const LARGE_WORK: &[(&str, &str)] = &[
    ("ours", "`acp_bindings::json::from_str`"),
    ("serde", "`serde_json::from_str` of our types"),
    ("official", "`serde_json::from_str` of the official crate's type"),
    ("IgnoredAny", "`IgnoredAny`: the parse floor"),
    ("encode", "`acp_bindings::json::to_string`"),
    ("encode-official", "`serde_json::to_string` of the official crate's value"),
];

/// Tool-call patches only: each call created, patched with nulls, filled, completed.
pub fn tool_call_patches() -> Vec<Value> {
    let mut out = Vec::new();
    for i in 0..1000 {
        let id = format!("call_{i:04}");
        out.push(json!({"toolCallId": id, "title": format!("Edit src/m{i}.rs"), "kind": "edit", "status": "pending",
            "rawInput": {"path": format!("src/m{i}.rs")}}));
        out.push(json!({"toolCallId": id, "status": "in_progress", "title": null, "_meta": {"progress": 0.5}}));
        out.push(json!({"toolCallId": id, "content": [{"type": "content", "content": {"type": "text", "text": "patched 3 lines"}}],
            "locations": [{"path": format!("src/m{i}.rs"), "line": 3}]}));
        out.push(json!({"toolCallId": id, "status": "completed", "kind": null, "rawOutput": {"ok": true}, "_meta": {"progress": null}}));
    }
    out
}

pub fn fold_ours(updates: Vec<acp_bindings::v2::ToolCallUpdate>) -> acp_bindings::v2::SessionReducer {
    let mut r = acp_bindings::v2::SessionReducer::new();
    for u in updates {
        r.apply(acp_bindings::v2::SessionUpdate::ToolCallUpdate(u));
    }
    r
}

pub fn fold_official(
    updates: Vec<agent_client_protocol_schema::v2::ToolCallUpdate>,
) -> HashMap<agent_client_protocol_schema::v2::ToolCallId, agent_client_protocol_schema::v2::ToolCallUpdate> {
    let mut map: HashMap<_, agent_client_protocol_schema::v2::ToolCallUpdate> = HashMap::new();
    for u in updates {
        match map.get_mut(&u.tool_call_id) {
            Some(existing) => existing.apply_update(u),
            None => {
                map.insert(u.tool_call_id.clone(), u);
            }
        }
    }
    map
}

/// The stream as JSON-RPC `session/update` notifications (a v2 trace).
pub fn messages(lines: &[String]) -> Vec<String> {
    lines.iter().map(|l| format!(r#"{{"jsonrpc":"2.0","method":"session/update","params":{l}}}"#)).collect()
}

/// Decodes each v2 message with typed dispatch and encodes it again.
pub fn roundtrip_v2(msgs: &[String]) -> usize {
    msgs.iter()
        .map(|m| {
            let d = acp_bindings::v2::rpc::Message::decode(m, |_| None).expect("decodes");
            acp_bindings::json::to_string(&d).expect("encodes").len()
        })
        .sum()
}

/// Decodes each v2 message, converts it to v1 (`V2ToV1`), encodes the output.
pub fn convert_to_v1(msgs: &[String]) -> usize {
    let mut a = acp_bindings_convert::V2ToV1::new();
    let mut n = 0;
    for m in msgs {
        // Losses (`cancelled`, clears) are reported, not failures.
        if let Ok(out) = a.convert(m) {
            n += out.messages.iter().map(|o| acp_bindings::json::to_string(o).expect("encodes").len()).sum::<usize>();
        }
    }
    n
}

/// Decodes each line with `f` and drops the value before the next line, as
/// a consumer of a stream does; returns how many lines were decoded. The
/// timed decode rows all use this. Collecting the values into a `Vec`
/// instead made each run allocate and free one to two megabytes, and the
/// result then depended on glibc's heap policy, not on the decoder: the same
/// binary measured `ours` at 1.6 or 2.7 ms and the hand-written reference at
/// 1.3 or 2.0 ms depending on `MALLOC_TRIM_THRESHOLD_` (whether the freed
/// heap top goes back to the kernel and comes back page by page).
pub fn each<T>(lines: &[String], f: impl Fn(&str) -> T) -> usize {
    // The value is kept from being optimised away through a reference: a
    // `black_box` of the value itself moved it (720 bytes for a `Message`),
    // a copy no consumer makes, counted against the decoder.
    lines
        .iter()
        .map(|l| {
            let v = f(l);
            black_box(&v);
        })
        .count()
}

/// One line with the crate's own reader (`acp_bindings::json::from_str`).
pub fn ours_fast(line: &str) -> Ours {
    acp_bindings::json::from_str(line).expect("the stream decodes")
}

/// One line with `serde_json::from_str`.
pub fn serde<T: serde::de::DeserializeOwned>(line: &str) -> T {
    serde_json::from_str(line).expect("the stream decodes")
}

/// One line with the hand-written, non-serde reference decoder.
pub fn direct_one(line: &str) -> reference::owned::Notification {
    direct::notification(line).expect("the stream decodes")
}

/// Every line with `serde_json::from_str`, kept (the inputs of the encode rows).
pub fn decode<T: serde::de::DeserializeOwned>(lines: &[String]) -> Vec<T> {
    lines.iter().map(|l| serde(l)).collect()
}

pub fn encode<T: serde::Serialize>(items: &[T]) -> usize {
    items.iter().map(|i| serde_json::to_string(i).expect("encodes").len()).sum()
}

/// [`encode`] with the crate's own encoder (`acp_bindings::json`, the same bytes).
pub fn encode_fast<T: serde::Serialize>(items: &[T]) -> usize {
    items.iter().map(|i| acp_bindings::json::to_string(i).expect("encodes").len()).sum()
}

/// The rows [`count`] runs, by name, with what each does once per pass.
pub const ROWS: &[(&str, &str)] = &[
    ("decode", "v2 `rpc::Message::decode` of each line as a JSON-RPC message"),
    ("ours", "`acp_bindings::json::from_str` of each `UpdateSessionNotification`"),
    ("serde", "`serde_json::from_str` of the same type"),
    ("official", "`serde_json::from_str` of the official crate's type"),
    ("reference", "the hand-written reference parser (no serde, no ACP rules)"),
    ("IgnoredAny", "`serde::de::IgnoredAny` of each notification: the parse floor"),
    ("IgnoredAny-messages", "`IgnoredAny` of each line as a JSON-RPC message"),
    ("receive", "v2 `ClientPeer::receive` of each line: a client reading the agent's stream"),
    ("encode", "`acp_bindings::json::to_string` of each decoded notification"),
    ("encode-serde", "`serde_json::to_string` of the same values"),
    ("encode-official", "`serde_json::to_string` of the official crate's values"),
    ("roundtrip", "`Message::decode`, then `json::to_string`, of each message"),
    ("convert", "`V2ToV1`: decode, convert to v1, encode each message"),
    ("reducer", "`SessionReducer` folding the tool-call patches (with their clone)"),
    ("reducer-official", "the official crate's `apply_update` over a `HashMap` (with the clone)"),
    ("reducer-fold", "`SessionReducer` folding the tool-call patches (cloned before the count)"),
    ("reducer-official-fold", "the official crate's fold (cloned before the count)"),
    ("replay", "`acp_tools::replay::replay` of the long replay's file, a line at a time"),
    ("replay-decode", "`Message::decode` of the long replay's lines, in memory"),
];

/// The copies of the patches the `-fold` rows build before counting: as
/// many as the longer of `instructions.rs`' two runs has passes, so that both
/// runs build the same (a copy not folded is never dropped).
const FOLD_COPIES: usize = 6;

/// The turns of the long replay the `replay` rows read: a tenth of the 100 MB
/// one (`tools/bench/long-replay.py`), 2,500 lines and 10 MB.
pub const LONG_REPLAY_ROW_TURNS: usize = 50;

/// The long replay of `turns` turns, written by `tools/bench/long-replay.py`
/// into `target/bench/` once (the benchmarks and the documented command read
/// the same messages).
pub fn long_replay(turns: usize) -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the repository");
    let dir = root.join("target/bench");
    let path = dir.join(format!("long-replay-{turns}.jsonl"));
    if !path.exists() {
        std::fs::create_dir_all(&dir).expect("target/bench");
        let partial = dir.join(format!("long-replay-{turns}.jsonl.partial"));
        let status = std::process::Command::new("python3")
            .arg(root.join("tools/bench/long-replay.py"))
            .arg(&partial)
            .args(["--turns", &turns.to_string()])
            .status()
            .expect("python3 runs tools/bench/long-replay.py");
        assert!(status.success(), "tools/bench/long-replay.py failed");
        std::fs::rename(&partial, &path).expect("the long replay is written");
    }
    path
}

/// One line as a v2 JSON-RPC message, with typed dispatch.
fn decode_message(line: &str) -> acp_bindings::v2::rpc::Message {
    acp_bindings::v2::rpc::Message::decode(line, |_| None).expect("the stream decodes")
}

/// One line received by a client peer; the stream is notifications only.
fn receive_notification(
    peer: &mut acp_bindings::v2::rpc::ClientPeer,
    line: &str,
) -> acp_bindings::v2::rpc::ClientEvent {
    let event = peer.receive(line);
    assert!(matches!(event, acp_bindings::v2::rpc::ClientEvent::Notification(_)), "{event:?}");
    event
}

/// Tool-call patches decoded as `T` (the reducer rows' input).
fn patches<T: serde::de::DeserializeOwned>() -> Vec<T> {
    tool_call_patches().into_iter().map(|p| serde_json::from_value(p).expect("decodes")).collect()
}

/// `ACP_BENCH_COUNT=<row>:<passes>`: runs one of [`ROWS`] `passes` times over
/// the stream and exits, without criterion, printing `<row>: <passes> passes
/// over <n> messages`. For counting instructions under valgrind
/// (`instructions.rs`), which runs each row with two numbers of passes: the
/// difference leaves out building the stream and the row's own setup
/// (decoding the values an encode row writes). `ACP_BENCH_FILTER=TEXT` keeps
/// only the lines that contain TEXT.
pub fn count(spec: &str) {
    let (row, passes) = spec.split_once(':').unwrap_or((spec, "1"));
    let Ok(passes) = passes.parse::<usize>() else {
        eprintln!("ACP_BENCH_COUNT: `{spec}`: the passes after `:` must be a whole number");
        std::process::exit(2);
    };
    let large = row
        .strip_prefix("large-")
        .and_then(|r| LARGE.iter().find_map(|m| r.strip_prefix(&format!("{m}-")).map(|w| (*m, w))));
    let mut lines = match large {
        Some((message, _)) => vec![self::large(message)],
        None => stream(),
    };
    if let Ok(only) = std::env::var("ACP_BENCH_FILTER") {
        lines.retain(|l| l.contains(&only));
    }
    let msgs = messages(&lines);
    let mut n = lines.len();
    let row = match large {
        Some((_, work)) => match work {
            "ours" | "serde" | "official" | "IgnoredAny" | "encode" | "encode-official" => work,
            other => {
                eprintln!("ACP_BENCH_COUNT: `{other}` is no work of a large row");
                std::process::exit(2);
            }
        },
        None => row,
    };
    let work: Box<dyn Fn() -> usize> = match row {
        "decode" => Box::new(|| each(&msgs, decode_message)),
        "ours" => Box::new(|| each(&lines, ours_fast)),
        "serde" => Box::new(|| each(&lines, serde::<Ours>)),
        "official" => Box::new(|| each(&lines, serde::<Official>)),
        "reference" => Box::new(|| each(&lines, direct_one)),
        "IgnoredAny" => Box::new(|| each(&lines, serde::<IgnoredAny>)),
        "IgnoredAny-messages" => Box::new(|| each(&msgs, serde::<IgnoredAny>)),
        "receive" => Box::new(|| {
            let peer = std::cell::RefCell::new(acp_bindings::v2::rpc::ClientPeer::default());
            each(&msgs, |m| receive_notification(&mut peer.borrow_mut(), m))
        }),
        "encode" => {
            let values: Vec<Ours> = decode(&lines);
            Box::new(move || encode_fast(&values))
        }
        "encode-serde" => {
            let values: Vec<Ours> = decode(&lines);
            Box::new(move || encode(&values))
        }
        "encode-official" => {
            let values: Vec<Official> = decode(&lines);
            Box::new(move || encode(&values))
        }
        "roundtrip" => Box::new(|| roundtrip_v2(&msgs)),
        "convert" => Box::new(|| convert_to_v1(&msgs)),
        // The reducer rows count tool-call patches, not lines.
        "reducer" => {
            let ours: Vec<acp_bindings::v2::ToolCallUpdate> = patches();
            n = ours.len();
            Box::new(move || fold_ours(ours.clone()).tool_calls.len())
        }
        "reducer-official" => {
            let official: Vec<agent_client_protocol_schema::v2::ToolCallUpdate> = patches();
            n = official.len();
            Box::new(move || fold_official(official.clone()).len())
        }
        "reducer-fold" => {
            let copies = fold_copies::<acp_bindings::v2::ToolCallUpdate>(passes, &mut n);
            Box::new(move || fold_ours(copies.borrow_mut().pop().expect("a copy")).tool_calls.len())
        }
        "reducer-official-fold" => {
            let copies = fold_copies::<agent_client_protocol_schema::v2::ToolCallUpdate>(passes, &mut n);
            Box::new(move || fold_official(copies.borrow_mut().pop().expect("a copy")).len())
        }
        "replay" | "replay-decode" => {
            let path = long_replay(LONG_REPLAY_ROW_TURNS);
            let text = std::fs::read_to_string(&path).expect("the long replay");
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            n = lines.len();
            if row == "replay" {
                Box::new(move || acp_tools::replay::replay(&path).expect("replays").applied)
            } else {
                Box::new(move || each(&lines, decode_message))
            }
        }
        other => {
            let names: Vec<&str> = ROWS.iter().map(|(r, _)| *r).collect();
            eprintln!("ACP_BENCH_COUNT: unknown row `{other}` ({})", names.join(", "));
            std::process::exit(2);
        }
    };
    let mut out = 0;
    for _ in 0..passes {
        out = black_box(work());
    }
    println!("{row}: {passes} passes over {n} messages (a pass gave {out})");
    // What the row kept is not dropped: the copies a `-fold` row did not fold
    // would be dropped in the shorter run only.
    let _: &mut dyn Fn() -> usize = Box::leak(work);
}

/// [`FOLD_COPIES`] copies of the tool-call patches as `T`, one for each pass
/// of a `-fold` row (`n` set to the patches of one).
fn fold_copies<T: serde::de::DeserializeOwned + Clone>(
    passes: usize,
    n: &mut usize,
) -> std::cell::RefCell<Vec<Vec<T>>> {
    if passes > FOLD_COPIES {
        eprintln!("ACP_BENCH_COUNT: a -fold row has {FOLD_COPIES} copies of its input, not {passes}");
        std::process::exit(2);
    }
    let one: Vec<T> = patches();
    *n = one.len();
    std::cell::RefCell::new(vec![one; FOLD_COPIES])
}

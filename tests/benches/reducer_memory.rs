//! Memory of a long trace folded into state: 100,000 v2 tool-call updates over
//! 10,000 tool calls, folded by `SessionReducer` and by the official crate's
//! `ToolCallUpdate::apply_update` over a `HashMap`. Reports the heap bytes
//! held afterwards per stored tool call (a counting global allocator), and
//! the time each fold takes.
//!
//! `cargo bench -p acp-tests --bench reducer_memory`

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use serde_json::{json, Value};

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const IDS: usize = 10_000;
const UPDATES: usize = 100_000;

/// Ten updates per tool call: created, retitled, in progress, three content
/// replacements, locations, raw output, metadata, completed.
fn trace() -> Vec<Value> {
    let mut out = Vec::with_capacity(UPDATES);
    for round in 0..UPDATES / IDS {
        for i in 0..IDS {
            let id = format!("call_{i:05}");
            out.push(match round {
                0 => json!({"toolCallId": id, "title": format!("Read src/m{i}.rs"), "kind": "read", "status": "pending",
                            "rawInput": {"path": format!("src/m{i}.rs")}}),
                1 => json!({"toolCallId": id, "title": format!("Reading src/m{i}.rs")}),
                2 => json!({"toolCallId": id, "status": "in_progress"}),
                3..=5 => json!({"toolCallId": id, "content": [{"type": "content", "content": {"type": "text", "text": format!("{round} lines read")}}]}),
                6 => json!({"toolCallId": id, "locations": [{"path": format!("/work/src/m{i}.rs"), "line": 3}]}),
                7 => json!({"toolCallId": id, "rawOutput": {"ok": true, "bytes": i}}),
                8 => json!({"toolCallId": id, "_meta": {"progress": 1.0}}),
                _ => json!({"toolCallId": id, "status": "completed"}),
            });
        }
    }
    out
}

fn live() -> isize {
    LIVE.load(Ordering::Relaxed)
}

fn main() {
    let trace = trace();
    let ours: Vec<acp_bindings::v2::ToolCallUpdate> =
        trace.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();
    let official: Vec<agent_client_protocol_schema::v2::ToolCallUpdate> =
        trace.iter().map(|v| serde_json::from_value(v.clone()).unwrap()).collect();

    // Ours: the reducer consumes the updates; what it holds afterwards.
    let before = live();
    let input: isize = {
        let probe = ours.clone();
        let n = live() - before;
        drop(probe);
        n
    };
    let input_ours = ours.clone();
    let t = Instant::now();
    let before = live() - input;
    let mut reducer = acp_bindings::v2::SessionReducer::new();
    for u in input_ours {
        reducer.apply(acp_bindings::v2::SessionUpdate::ToolCallUpdate(u));
    }
    let ours_bytes = live() - before;
    let ours_time = t.elapsed();
    black_box(&reducer);
    assert_eq!(reducer.tool_calls.len(), IDS);

    let input_official = official.clone();
    let official_input: isize = {
        let probe = official.clone();
        let n = live();
        drop(probe);
        n - live()
    };
    let t = Instant::now();
    let before = live() - official_input;
    let mut map: HashMap<
        agent_client_protocol_schema::v2::ToolCallId,
        agent_client_protocol_schema::v2::ToolCallUpdate,
    > = HashMap::new();
    for u in input_official {
        match map.get_mut(&u.tool_call_id) {
            Some(existing) => existing.apply_update(u),
            None => {
                map.insert(u.tool_call_id.clone(), u);
            }
        }
    }
    let official_bytes = live() - before;
    let official_time = t.elapsed();
    black_box(&map);
    assert_eq!(map.len(), IDS);

    println!("{UPDATES} tool-call updates over {IDS} tool calls (the updates themselves: {input} bytes decoded, ours)");
    println!(
        "  SessionReducer:                   {:>6} bytes per stored tool call, fold {:.1} ms",
        ours_bytes / IDS as isize,
        ours_time.as_secs_f64() * 1000.0
    );
    println!(
        "  official apply_update + HashMap:  {:>6} bytes per stored tool call, fold {:.1} ms",
        official_bytes / IDS as isize,
        official_time.as_secs_f64() * 1000.0
    );
    println!("  ratio ours / official: {:.2}", ours_bytes as f64 / official_bytes as f64);
}

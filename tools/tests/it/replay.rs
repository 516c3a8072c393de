//! `acp-tools replay` on a trace with the RFD chunk sequences.

use std::path::Path;
use std::process::Command;

#[test]
fn replay_prints_the_final_state_and_reports_rejected_lines() {
    let trace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/traces/v2-rfd-chunks.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_acp-tools"))
        .args(["replay", "--protocol", "v2"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "a rejected line makes the exit code 1");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains(":6: rejected at /params/update: "), "{stderr}");
    assert!(stderr.contains("toolCallId"), "{stderr}");
    let state: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = |call: &str| -> Vec<String> {
        state["toolCalls"][call]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["content"]["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(text("call_1"), ["C"], "chunks A, B then an update [C] gives [C]");
    assert_eq!(text("call_2"), ["A", "B"], "an update [A] then chunk B gives [A, B]");
    assert_eq!(state["toolCalls"]["call_1"]["title"], "Build");
    assert_eq!(state["toolCalls"]["call_2"]["kind"], "other", "every field present, defaults included");
    assert_eq!(state["messages"]["m1"]["content"][0]["text"], "Hi");
    let order: Vec<&String> = state["toolCalls"].as_object().unwrap().keys().collect();
    assert_eq!(order.len(), 2);
    let o = Command::new(env!("CARGO_BIN_EXE_acp-tools"))
        .args(["replay", "--protocol", "v1"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

fn acp_tools(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_acp-tools")).args(args).output().unwrap()
}

/// A long replay as editors see on `session/load`: many chunks of a few
/// messages and tool calls, tool-call patches, a plan replaced again and again.
fn long_trace(session: &str, turns: usize) -> String {
    let mut out = String::new();
    let mut line = |update: serde_json::Value| {
        let n = serde_json::json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}});
        out.push_str(&n.to_string());
        out.push('\n');
    };
    for turn in 0..turns {
        let (msg, call) = (format!("msg_{turn}"), format!("call_{turn}"));
        line(
            serde_json::json!({"sessionUpdate": "user_message_chunk", "messageId": format!("user_{turn}"), "content": {"type": "text", "text": "Fix the build"}}),
        );
        for word in 0..40 {
            line(
                serde_json::json!({"sessionUpdate": "agent_message_chunk", "messageId": msg, "content": {"type": "text", "text": format!("word {word} ")}}),
            );
        }
        line(
            serde_json::json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "Run tests", "kind": "execute", "status": "pending"}),
        );
        for part in 0..10 {
            line(
                serde_json::json!({"sessionUpdate": "tool_call_content_chunk", "toolCallId": call, "content": {"type": "content", "content": {"type": "text", "text": format!("part {part}")}}}),
            );
        }
        line(
            serde_json::json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed", "title": null}),
        );
        line(
            serde_json::json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": [{"content": format!("turn {turn}"), "priority": "high", "status": "completed"}]}}),
        );
    }
    out
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `replay --compact` writes the stream that rebuilds the state: replayed, it
/// gives the same state, in far fewer lines; a trace of two sessions is refused.
#[test]
fn replay_compact_writes_a_stream_that_replays_to_the_same_state() {
    let dir = scratch("compact");
    let trace = dir.join("long.jsonl");
    std::fs::write(&trace, long_trace("sess_1", 200)).unwrap();
    let trace = trace.to_str().unwrap();
    let state = acp_tools(&["replay", "--protocol", "v2", trace]);
    assert!(state.status.success(), "{}", String::from_utf8_lossy(&state.stderr));
    let compact = acp_tools(&["replay", "--protocol", "v2", "--compact", trace]);
    assert!(compact.status.success(), "{}", String::from_utf8_lossy(&compact.stderr));
    let lines = String::from_utf8(compact.stdout.clone()).unwrap();
    // 200 user messages, 200 agent messages, 200 tool calls, one plan.
    assert_eq!(lines.lines().count(), 601, "one update per entity");
    assert!(lines.lines().all(|l| l.contains(r#""sessionId":"sess_1""#)));
    let compacted = dir.join("compacted.jsonl");
    std::fs::write(&compacted, &compact.stdout).unwrap();
    let again = acp_tools(&["replay", "--protocol", "v2", compacted.to_str().unwrap()]);
    assert!(again.status.success());
    assert_eq!(again.stdout, state.stdout, "the compacted stream replays to the same state");
    // CRLF line ends read as LF ones.
    let crlf = dir.join("crlf.jsonl");
    std::fs::write(&crlf, long_trace("sess_1", 3).replace('\n', "\r\n")).unwrap();
    let lf = dir.join("lf.jsonl");
    std::fs::write(&lf, long_trace("sess_1", 3)).unwrap();
    let (a, b) = (
        acp_tools(&["replay", "--protocol", "v2", crlf.to_str().unwrap()]),
        acp_tools(&["replay", "--protocol", "v2", lf.to_str().unwrap()]),
    );
    assert!(a.status.success() && a.stdout == b.stdout);

    let two = dir.join("two.jsonl");
    std::fs::write(&two, long_trace("sess_a", 1) + &long_trace("sess_b", 1)).unwrap();
    let o = acp_tools(&["replay", "--protocol", "v2", "--compact", two.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty(), "nothing half written");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("the trace updates 2 sessions (sess_a, sess_b); --compact writes the stream of one"),
        "{stderr}"
    );
}

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

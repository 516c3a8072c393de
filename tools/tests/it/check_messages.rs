//! `acp-tools check-messages` on traces and single files.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_acp-tools")).arg("check-messages").args(args).output().unwrap()
}

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/traces")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("acp-check-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_v2_trace_reports_every_message_and_continues_after_errors() {
    let trace = traces().join("v2-prompt-turn.jsonl");
    let o = run(&["--protocol", "v2", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 15, "{out}");
    assert!(lines[5].ends_with(":6: exact"), "responses are typed by their request: {out}");
    // `_meta` is default-on-error: a malformed one is dropped, so the message differs.
    assert!(lines[9].ends_with(":10: differs /params/update/_meta"), "{out}");
    assert!(lines[10].contains(":11: rejected at /method: unknown request method `session/frobnicate`"), "{out}");
    assert!(lines[11].contains(":12: rejected at (root): malformed JSON"), "{out}");
    assert!(lines[12].contains(":13: rejected at /id: a response whose request is not known"), "{out}");
    assert!(lines[13].ends_with(":14: exact"), "{out}");
    assert_eq!(lines[14], "10 exact, 1 differs, 3 rejected");
}

#[test]
fn a_clean_v1_trace_exits_0() {
    let trace = traces().join("v1-tool-call.jsonl");
    let o = run(&["--protocol", "v1", trace.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).ends_with("6 exact, 0 differs, 0 rejected\n"), "{}", stdout(&o));
}

#[test]
fn a_message_of_the_wrong_version_is_rejected() {
    let trace = traces().join("v1-tool-call.jsonl");
    let o = run(&["--protocol", "v2", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains(":1: rejected at /params: missing field `info`"), "v2 initialize needs `info`: {out}");
    // v1's `tool_call` is an unknown tag to v2's open SessionUpdate: kept whole.
    assert!(out.contains(":3: exact"), "{out}");
    assert!(out.contains(":4: rejected at /method: unknown request method `fs/read_text_file`"), "{out}");
}

#[test]
fn lone_responses_and_bare_payloads() {
    let response = scratch("resp.json", r#"{"jsonrpc":"2.0","id":4,"result":{"messageId":"m1"}}"#);
    let o = run(&["--protocol", "v2", "--method", "session/prompt", response.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert!(stdout(&o).starts_with(&format!("{}: exact\n", response.display())));
    let o = run(&["--protocol", "v2", response.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "without --method the request is unknown");
    let block = scratch("block.json", r#"{"type":"_acme_widget","size":3}"#);
    let o = run(&["--protocol", "v2", "--type", "ContentBlock", block.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    let bad = scratch("bad.json", r#"{"type":"text","text":7}"#);
    let o = run(&["--protocol", "v2", "--type", "ContentBlock", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("rejected at /text: invalid `text` variant of ContentBlock"), "{}", stdout(&o));
    for p in [response, block, bad] {
        std::fs::remove_file(p).unwrap();
    }
}

#[test]
fn unreadable_files_are_exit_2() {
    let o = run(&["--protocol", "v2", "/nonexistent/trace.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/trace.jsonl"));
}

//! `acp-tools convert` (`cargo xtask convert`): output, loss lines, `--losses-json`, exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_acp-tools")).arg("convert").args(args).output().unwrap()
}

fn trace(name: &str) -> String {
    let p: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests/traces").join(name);
    p.to_string_lossy().into_owned()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_lossy_trace_converts_with_exit_0_and_one_line_per_loss() {
    let o = run(&["--from", "v1", "--to", "v2", &trace("v1-tool-call.jsonl")]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for line in out.lines() {
        let m: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(m["jsonrpc"], "2.0");
    }
    assert_eq!(out.lines().count(), 4, "initialize, its response and two tool-call updates: {out}");
    let err = text(&o.stderr);
    assert!(
        err.contains("line 1: /params/clientCapabilities/fs: dropped: v2 has no client file-system methods (fs/*)"),
        "{err}"
    );
    assert!(err.contains("line 4: /method: unconvertible: the method `fs/read_text_file` has no v2 form"), "{err}");
    assert!(
        err.contains("line 5: /: unconvertible: the response to a `fs/read_text_file` request that was not converted"),
        "{err}"
    );
}

#[test]
fn strict_mode_exits_1_and_emits_only_lossless_messages() {
    let o = run(&["--from", "v1", "--to", "v2", "--strict", &trace("v1-tool-call.jsonl")]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o.stdout).lines().count(), 2, "only the two tool-call updates are lossless");
}

#[test]
fn losses_json_has_line_pointer_kind_detail() {
    let dir = std::env::temp_dir().join(format!("acp-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("losses.json");
    let o =
        run(&["--from", "v2", "--to", "v1", "--losses-json", file.to_str().unwrap(), &trace("v2-prompt-turn.jsonl")]);
    // The trace has malformed and unknown messages: rejected, so exit 1.
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let items = v.as_array().unwrap();
    let stderr = text(&o.stderr);
    assert_eq!(items.len(), stderr.lines().count(), "the same reports: {stderr}");
    assert!(items.iter().any(|i| i["line"] == 12 && i["kind"] == "rejected" && i["pointer"] == ""), "{v}");
    assert!(
        items.iter().any(|i| i["line"] == 9 && i["kind"] == "unconvertible" && i["pointer"] == "/params/update"),
        "{v}"
    );
    for i in items {
        let keys: Vec<&str> = i.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["line", "pointer", "kind", "detail"]);
    }
    // The held acknowledgement came out as the v1 prompt response, at the end.
    let out = text(&o.stdout);
    assert_eq!(out.lines().last().unwrap(), r#"{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}"#);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_and_unreadable_files_exit_2() {
    let o = run(&["--from", "v1", "--to", "v1", &trace("v1-tool-call.jsonl")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--from and --to must name different versions"));
    let o = run(&["--from", "v1", "--to", "v2", "/nonexistent/trace.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).starts_with("error: /nonexistent/trace.jsonl:"));
    let o = run(&["--from", "v3", "--to", "v2", &trace("v1-tool-call.jsonl")]);
    assert_eq!(o.status.code(), Some(2));
}

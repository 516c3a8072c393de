//! The example agent and client (`examples/`) run against each other over
//! stdio, as a user runs them; and the example agent fed bad lines directly.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// An example's executable: `cargo test` builds the package's examples next
/// to the test binaries (`target/<profile>/examples/`) before running tests.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps/<test>");
    let path = dir.join("examples").join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo build -p acp-bindings --features v2 --examples`",
        path.display()
    );
    path
}

#[test]
fn example_client_and_agent_complete_a_prompt_turn() {
    let out =
        Command::new(example("client")).arg(example("agent")).arg("--demo-errors").output().expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed: {}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    // Answers arrive in the order the agent read the lines; the rest is the turn.
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "initialized: example-agent 0.1.0",
            "error -32601 for `_example/unknown`: `_example/unknown` is not supported",
            "error -32700 for a line the agent could not read: not JSON: expected ident at line 1 column 2",
            "session: session-1",
            "prompt acknowledged as user-1",
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "permission: Read README.md -> Allow",
            "tool call call-1:  [completed]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ],
        "stderr:\n{stderr}"
    );
    assert!(stderr.contains("agent: unusable line: not JSON"), "{stderr}");
}

/// Every bad line gets the reply JSON-RPC asks for (or none), and the agent
/// keeps serving: the last request is still answered.
#[test]
fn example_agent_answers_bad_lines_and_keeps_going() {
    let mut child = Command::new(example("agent"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the agent starts");
    let input = [
        // Before `initialize`, a request is refused with -32600 and the connection stays as it was.
        r#"{"jsonrpc":"2.0","id":0,"method":"session/new","params":{"cwd":"/"}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"t","version":"1"}}}"#,
        "{oops",
        r#"[1, 2]"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"initialize","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"session/frobnicate","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":7}}"#,
        r#"{"jsonrpc":"2.0","method":"session/frobnicate","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":{"no":1},"method":"session/new","params":{"cwd":"/"}}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"session/request_permission","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"/"}}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for line in input {
        writeln!(stdin, "{line}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let replies: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let summary: Vec<(serde_json::Value, serde_json::Value)> = replies
        .iter()
        .map(|r| (r["id"].clone(), r.get("error").map_or_else(|| r["result"].clone(), |e| e["code"].clone())))
        .collect();
    use serde_json::json;
    assert_eq!(
        summary,
        [
            (json!(0), json!(-32600)),                     // before initialize
            (json!(10), replies[1]["result"].clone()),     // initialize
            (json!(null), json!(-32700)),                  // not JSON
            (json!(null), json!(-32600)),                  // a batch: not an ACP message
            (json!(1), json!(-32600)),                     // wrong jsonrpc version: answered with its id
            (json!(2), json!(-32601)),                     // unknown method
            (json!(3), json!(-32602)),                     // invalid params
            (json!(null), json!(-32600)),                  // an id of the wrong type
            (json!(4), json!(-32601)),                     // a method the client handles, sent to the agent
            (json!(5), json!({"sessionId": "session-1"})), // still serving
        ],
        "{replies:#?}"
    );
    // The invalid params error names where it is.
    assert_eq!(replies[6]["error"]["data"]["pointer"], "/params/cwd");
    assert_eq!(replies[1]["result"]["protocolVersion"], 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown notification method `session/frobnicate`"), "{stderr}");
    assert!(stderr.contains("an answer to request 99, which is not waiting for one"), "{stderr}");
}

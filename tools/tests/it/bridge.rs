//! `acp-bridge` end to end: the project's example client and agent of one
//! version talk through the bridge to those of the other, in both
//! directions, with whole transcripts checked; bad input, exit statuses and
//! `--losses-json`.

use crate::common;
use common::example;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

fn bridge() -> &'static str {
    env!("CARGO_BIN_EXE_acp-bridge")
}

fn run_client(client: &str, args: &[&str]) -> Output {
    Command::new(example(client)).arg(bridge()).args(args).output().expect("the client runs")
}

fn lines(o: &Output) -> (Vec<String>, String) {
    let stdout = String::from_utf8_lossy(&o.stdout).lines().map(str::to_owned).collect();
    (stdout, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_v2_client_completes_a_turn_with_a_v1_agent() {
    let agent = example("agent_v1");
    let o = run_client("client", &["--client", "v2", "--agent", "v1", "--", agent.to_str().unwrap()]);
    let (out, err) = lines(&o);
    assert!(o.status.success(), "{}\n{out:?}\n{err}", o.status);
    assert_eq!(
        out,
        [
            "initialized: example-agent-v1 0.1.0",
            "session: session-1",
            // The v2 side of a v1 prompt turn: acknowledged, echoed, running.
            "prompt acknowledged as converted-1",
            "update `user_message`",
            "update `state_update`",
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "permission: Read README.md -> Allow",
            "tool call call-1:  [completed]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            "turn ended: end_turn",
        ],
        "{err}"
    );
    // Losses on stderr, by side and line.
    assert!(err.contains("line 1 (agent): /result/agentCapabilities/sessionCapabilities: approximated:"), "{err}");
    assert!(!err.contains("rejected"), "{err}");
}

#[test]
fn a_v1_client_completes_a_turn_with_a_v2_agent() {
    let agent = example("agent");
    let o = run_client("client_v1", &["--client", "v1", "--agent", "v2", "--", agent.to_str().unwrap()]);
    let (out, err) = lines(&o);
    assert!(o.status.success(), "{}\n{out:?}\n{err}", o.status);
    assert_eq!(
        out,
        [
            "initialized: example-agent (protocol 1)",
            "session: session-1",
            "agent: Let me look at README.md.",
            "tool call call-1: Read README.md [pending]",
            "permission: call-1 -> Allow",
            "tool call call-1: [completed]",
            "agent: README.md starts with \"# ACP bindings toolkit\".",
            // The v2 agent's `idle` is the v1 response to the prompt.
            "turn ended: end_turn",
        ],
        "{err}"
    );
    assert!(err.contains("line 1 (client): /params/clientInfo: synthesized:"), "{err}");
    assert!(!err.contains("rejected") && !err.contains("unusable line"), "{err}");
}

#[test]
fn the_same_version_on_both_sides_passes_through() {
    let agent = example("agent");
    let o = run_client("client", &["--client", "v2", "--agent", "v2", "--", agent.to_str().unwrap()]);
    let (out, err) = lines(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out.first().map(String::as_str), Some("initialized: example-agent 0.1.0"));
    assert_eq!(out.last().map(String::as_str), Some("turn ended: end_turn"));
    assert!(err.is_empty(), "{err}");
}

/// A line the client's bindings cannot read gets the error reply the peers
/// give, the bridge keeps going, and when the client closes its input the
/// agent's is closed too and the bridge exits with the agent's status.
#[test]
fn bad_client_input_is_answered_and_closing_stdin_ends_the_agent() {
    let agent = example("agent_v1");
    let scratch = std::env::temp_dir().join(format!("acp-bridge-losses-{}.json", std::process::id()));
    let mut child = Command::new(bridge())
        .args(["--client", "v2", "--agent", "v1", "--losses-json", scratch.to_str().unwrap(), "--"])
        .arg(&agent)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bridge starts");
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut next = || {
        let mut l = String::new();
        output.read_line(&mut l).unwrap();
        serde_json::from_str::<serde_json::Value>(&l).unwrap_or_else(|e| panic!("{e}: {l:?}"))
    };
    writeln!(input, "this is not JSON").unwrap();
    input.flush().unwrap();
    let reply = next();
    assert_eq!(reply["id"], serde_json::Value::Null, "{reply}");
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    // An unknown method of the client's version: -32601 with its id.
    writeln!(input, r#"{{"jsonrpc":"2.0","id":5,"method":"session/frobnicate","params":{{}}}}"#).unwrap();
    input.flush().unwrap();
    let reply = next();
    assert_eq!((reply["id"].as_i64(), reply["error"]["code"].as_i64()), (Some(5), Some(-32601)), "{reply}");
    // Still running: an initialize is answered (by the v1 agent, in v2).
    writeln!(input, r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":2,"info":{{"name":"t","version":"1"}}}}}}"#).unwrap();
    input.flush().unwrap();
    let reply = next();
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["result"]["protocolVersion"], 2, "{reply}");
    assert_eq!(reply["result"]["info"]["name"], "example-agent-v1", "{reply}");
    drop(input);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("line 1 (client): /: rejected:"), "{err}");
    assert!(err.contains("line 2 (client): /method: rejected:"), "{err}");
    // The same reports as JSON, written when the agent exited.
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&scratch).unwrap()).unwrap();
    std::fs::remove_file(&scratch).unwrap();
    let reports = json.as_array().unwrap();
    assert!(reports.iter().any(|r| r["line"] == 1 && r["from"] == "client" && r["kind"] == "rejected"), "{json}");
    assert!(reports.iter().any(|r| r["from"] == "agent" && r["kind"] == "approximated"), "{json}");
}

#[test]
fn the_bridge_exits_with_the_agent_status() {
    let o = Command::new(bridge())
        .args(["--client", "v2", "--agent", "v1", "--", "sh", "-c", "exit 3"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(3));
    // The agent exits while the client still holds its end open: the bridge exits too.
    let mut child = Command::new(bridge())
        .args(["--client", "v2", "--agent", "v1", "--", "sh", "-c", "exit 4"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let _open = child.stdin.take();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(10), "the bridge did not exit with its agent");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(4));
    let o = Command::new(bridge()).args(["--client", "v2", "--agent", "v1", "--", "/no/such/agent"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot start the agent `/no/such/agent`"));
    let o = Command::new(bridge()).args(["--client", "v3", "--agent", "v1", "--", "true"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "a bad version is a usage error");
}

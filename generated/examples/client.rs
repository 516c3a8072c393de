//! A complete ACP v2 client on the bindings' sans-IO peer.
//!
//! It starts an agent as a child process (the path given as the first
//! argument, or the example agent built beside it), talks to it over the
//! child's stdin and stdout (one JSON-RPC message per line), runs one prompt
//! turn, grants the permission the agent asks for, prints what happens, and
//! exits when the turn has ended.
//!
//! `cargo build -p acp-bindings --features v2 --examples && target/debug/examples/client`
//! (add `--demo-errors` to also send a line that is not JSON and an
//! extension request the agent does not know, and see both answered).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use acp_bindings::v2::rpc::{
    ClientEvent, ClientPeer, ExtMethod, Message, NotificationToClient, RequestToAgent, RequestToClient,
    ResponseFromAgent,
};
use acp_bindings::v2::{
    CancelledPermissionOutcome, ClientCapabilities, ContentBlock, Error, ErrorCode, Implementation, InitializeRequest,
    NewSessionRequest, PermissionOptionKind, PromptRequest, RequestPermissionOutcome, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionUpdate, StateUpdate, TextContent, PROTOCOL_VERSION,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1).collect::<Vec<_>>();
    let demo_errors = args.iter().any(|a| a == "--demo-errors");
    args.retain(|a| a != "--demo-errors");
    // `client [AGENT [ARGS...]]`: the arguments after the agent are its own.
    let agent_path = match args.first() {
        Some(path) => PathBuf::from(path),
        None => std::env::current_exe()?.with_file_name(format!("agent{}", std::env::consts::EXE_SUFFIX)),
    };
    let agent_args = args.get(1..).unwrap_or_default();
    let build = "cargo build -p acp-bindings --features v2 --examples";
    let mut child = Command::new(&agent_path)
        .args(agent_args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the agent {}: {e} (build it with `{build}`)", agent_path.display()))?;
    let mut to_agent = child.stdin.take().ok_or("no stdin")?;
    let from_agent = BufReader::new(child.stdout.take().ok_or("no stdout")?);

    let mut peer = ClientPeer::new();
    let info = Implementation::new("example-client", env!("CARGO_PKG_VERSION"));
    let initialize = InitializeRequest::new(PROTOCOL_VERSION, info).capabilities(ClientCapabilities::new());
    send(&mut to_agent, peer.request(initialize).1)?;
    if demo_errors {
        // An extension request the agent does not implement: answered with -32601.
        let ext = ExtMethod { method: "_example/unknown".into(), params: Some(serde_json::json!({})) };
        send(&mut to_agent, peer.request(RequestToAgent::Extension(ext)).1)?;
        // Outside the peer: a line no client should send, answered with -32700 and the `null` id.
        write_line(&mut to_agent, "this is not JSON")?;
    }

    let mut ended = false;
    for line in from_agent.lines() {
        let line = line?;
        let event = peer.receive(&line);
        match event {
            ClientEvent::Response { response, .. } => match response {
                ResponseFromAgent::Initialize(r) => {
                    println!("initialized: {} {}", r.info.name, r.info.version);
                    let cwd = std::env::current_dir()?.display().to_string();
                    send(&mut to_agent, peer.request(NewSessionRequest::new(cwd)).1)?;
                }
                ResponseFromAgent::SessionNew(r) => {
                    println!("session: {}", r.session_id.as_str());
                    let prompt = vec![ContentBlock::from(TextContent::new("What does README.md say?"))];
                    send(&mut to_agent, peer.request(PromptRequest::new(r.session_id, prompt)).1)?;
                }
                ResponseFromAgent::SessionPrompt(ack) => println!("prompt acknowledged as {}", ack.message_id.as_str()),
                other => println!("answer to `{}`", other.method()),
            },
            ClientEvent::Notification(NotificationToClient::SessionUpdate(n)) => {
                ended = show_update(n.update);
                if ended {
                    break;
                }
            }
            ClientEvent::Request { id, request: RequestToClient::SessionRequestPermission(ask) } => {
                let outcome = choose(&ask);
                send(&mut to_agent, peer.respond(id, RequestPermissionResponse::new(outcome))?)?;
            }
            ClientEvent::Request { id, request } => {
                let error = Error::new(ErrorCode::MethodNotFound, format!("`{}` is not supported", request.method()));
                send(&mut to_agent, peer.respond_error(id, error)?)?;
            }
            ClientEvent::Error { method, error, .. } => {
                let about = method.map_or_else(|| "a line the agent could not read".to_owned(), |m| format!("`{m}`"));
                println!("error {} for {about}: {}", serde_json::to_string(&error.code)?, error.message);
            }
            ClientEvent::Invalid { error, reply } => {
                eprintln!("client: unusable line from the agent: {error}");
                if let Some(reply) = reply {
                    send(&mut to_agent, reply)?;
                }
            }
            _ => {}
        }
    }
    drop(to_agent); // the agent sees the end of its input and exits
    let status = child.wait()?;
    if !ended {
        return Err(format!("the agent stopped before the turn ended ({status})").into());
    }
    Ok(())
}

/// Prints a session update; `true` when it ends the prompt turn.
fn show_update(update: SessionUpdate) -> bool {
    match update {
        SessionUpdate::AgentMessageChunk(chunk) => match chunk.content {
            ContentBlock::Text(t) => println!("agent: {}", t.text),
            other => println!("agent sent a {} block", other.tag().unwrap_or("new kind of")),
        },
        SessionUpdate::ToolCallUpdate(call) => {
            let title = call.title.set_value().map(String::as_str).unwrap_or("");
            let status = call.status.set_value().map(|s| s.as_str()).unwrap_or("");
            println!("tool call {}: {title} [{status}]", call.tool_call_id.as_str());
        }
        SessionUpdate::StateUpdate(StateUpdate::Idle(idle)) => {
            println!("turn ended: {}", idle.stop_reason.tag().unwrap_or("without a stop reason"));
            return true;
        }
        other => println!("update `{}`", other.tag().unwrap_or("unknown")),
    }
    false
}

/// The answer to a permission request: the first "allow once" option, or cancelled.
fn choose(ask: &acp_bindings::v2::RequestPermissionRequest) -> RequestPermissionOutcome {
    match ask.options.iter().find(|o| o.kind == PermissionOptionKind::AllowOnce) {
        Some(option) => {
            println!("permission: {} -> {}", ask.title, option.name);
            RequestPermissionOutcome::from(SelectedPermissionOutcome::new(option.option_id.clone()))
        }
        None => RequestPermissionOutcome::from(CancelledPermissionOutcome::new()),
    }
}

fn write_line(to: &mut impl Write, line: &str) -> Result<()> {
    writeln!(to, "{line}")?;
    Ok(to.flush()?)
}

fn send(to: &mut impl Write, message: Message) -> Result<()> {
    write_line(to, &acp_bindings::json::to_string(&message)?)
}

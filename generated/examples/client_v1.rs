//! A complete ACP v1 client on the bindings' sans-IO peer: the v1 twin of
//! `client.rs`, for the v1 ⇄ v2 bridge (`acp-bridge`) to be tried end to end.
//!
//! `client_v1 AGENT [ARGS...]` starts the agent, runs one prompt turn, grants
//! the permission asked for, prints what happens, and exits when the v1
//! response to `session/prompt` ends the turn.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use acp_bindings::v1::rpc::{
    ClientEvent, ClientPeer, Message, NotificationToClient, RequestToClient, ResponseFromAgent,
};
use acp_bindings::v1::{
    ContentBlock, Error, ErrorCode, InitializeRequest, NewSessionRequest, PermissionOptionKind, PromptRequest,
    RequestPermissionOutcome, RequestPermissionResponse, SelectedPermissionOutcome, SessionUpdate, TextContent,
    PROTOCOL_VERSION,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (program, rest) = match args.split_first() {
        Some((p, rest)) => (p.clone(), rest.to_vec()),
        None => {
            let exe = std::env::current_exe()?;
            (exe.with_file_name(format!("agent_v1{}", std::env::consts::EXE_SUFFIX)).display().to_string(), Vec::new())
        }
    };
    let mut child = Command::new(&program)
        .args(&rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the agent {program}: {e}"))?;
    let mut to_agent = child.stdin.take().ok_or("no stdin")?;
    let from_agent = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut peer = ClientPeer::new();
    send(&mut to_agent, peer.request(InitializeRequest::new(PROTOCOL_VERSION)).1)?;
    let mut ended = false;
    for line in from_agent.lines() {
        let line = line?;
        match peer.receive(&line) {
            ClientEvent::Response { response, .. } => match response {
                ResponseFromAgent::Initialize(r) => {
                    let name = r.agent_info.into_option().map_or_else(|| "an agent".to_owned(), |i| i.name);
                    println!("initialized: {name} (protocol {})", r.protocol_version.0);
                    let cwd = std::env::current_dir()?.display().to_string();
                    send(&mut to_agent, peer.request(NewSessionRequest::new(cwd, Vec::new())).1)?;
                }
                ResponseFromAgent::SessionNew(r) => {
                    println!("session: {}", r.session_id.as_str());
                    let prompt = vec![ContentBlock::from(TextContent::new("What does README.md say?"))];
                    send(&mut to_agent, peer.request(PromptRequest::new(r.session_id, prompt)).1)?;
                }
                ResponseFromAgent::SessionPrompt(r) => {
                    println!("turn ended: {}", r.stop_reason.as_str());
                    ended = true;
                    break;
                }
                other => println!("answer to `{}`", other.method()),
            },
            ClientEvent::Notification(NotificationToClient::SessionUpdate(n)) => match n.update {
                SessionUpdate::AgentMessageChunk(chunk) => match chunk.content {
                    ContentBlock::Text(t) => println!("agent: {}", t.text),
                    _ => println!("agent sent a block"),
                },
                SessionUpdate::ToolCall(call) => {
                    let status = call.status.as_ref().map(|s| s.as_str()).unwrap_or("");
                    println!("tool call {}: {} [{status}]", call.tool_call_id.as_str(), call.title);
                }
                SessionUpdate::ToolCallUpdate(u) => {
                    let status = u.status.value().map(|s| s.as_str()).unwrap_or("");
                    println!("tool call {}: [{status}]", u.tool_call_id.as_str());
                }
                other => println!("update `{}`", other.tag()),
            },
            ClientEvent::Request { id, request: RequestToClient::SessionRequestPermission(ask) } => {
                let allow = ask.options.iter().find(|o| o.kind == PermissionOptionKind::AllowOnce);
                let outcome = match allow {
                    Some(option) => {
                        println!("permission: {} -> {}", ask.tool_call.tool_call_id.as_str(), option.name);
                        RequestPermissionOutcome::from(SelectedPermissionOutcome::new(option.option_id.clone()))
                    }
                    None => return Err("no option allows the tool call".into()),
                };
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
    drop(to_agent);
    let status = child.wait()?;
    if !ended {
        return Err(format!("the agent stopped before the turn ended ({status})").into());
    }
    Ok(())
}

fn send(to: &mut impl Write, message: Message) -> Result<()> {
    writeln!(to, "{}", acp_bindings::json::to_string(&message)?)?;
    Ok(to.flush()?)
}

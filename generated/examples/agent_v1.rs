//! A complete ACP v1 agent on the bindings' sans-IO peer: the v1 twin of
//! `agent.rs`, for the v1 ⇄ v2 bridge (`acp-bridge`) to be tried end to end.
//!
//! A prompt is answered with a message chunk and a tool call that needs the
//! client's permission; once it is granted the tool call completes, and the
//! turn ends with the v1 response to `session/prompt` (its stop reason).

use std::io::{self, BufRead, Write};

use acp_bindings::v1::rpc::{AgentEvent, AgentPeer, Message, RequestToAgent, ResponseFromClient};
use acp_bindings::v1::{
    ContentChunk, Error, ErrorCode, Implementation, InitializeResponse, NewSessionResponse, PermissionOption,
    PermissionOptionKind, PromptResponse, RequestId, RequestPermissionOutcome, RequestPermissionRequest, SessionId,
    SessionNotification, SessionUpdate, StopReason, TextContent, ToolCall, ToolCallStatus, ToolCallUpdate, ToolKind,
    PROTOCOL_VERSION,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Sessions made, and the prompt waiting for the client's permission.
#[derive(Default)]
struct Agent {
    sessions: u32,
    waiting: Option<(SessionId, RequestId)>,
}

fn main() -> Result<()> {
    let mut peer = AgentPeer::new();
    let mut agent = Agent::default();
    let mut out = io::stdout().lock();
    for line in io::stdin().lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let event = peer.receive(&line);
        for message in agent.handle(&mut peer, event)? {
            writeln!(out, "{}", acp_bindings::json::to_string(&message)?)?;
        }
        out.flush()?;
    }
    Ok(())
}

fn text(session: &SessionId, text: &str) -> SessionNotification {
    let chunk = ContentChunk::new(TextContent::new(text));
    SessionNotification::new(session.clone(), SessionUpdate::AgentMessageChunk(chunk))
}

impl Agent {
    fn handle(&mut self, peer: &mut AgentPeer, event: AgentEvent) -> Result<Vec<Message>> {
        Ok(match event {
            AgentEvent::Request { id, request } => match request {
                RequestToAgent::Initialize(_) => {
                    let info = Implementation::new("example-agent-v1", env!("CARGO_PKG_VERSION"));
                    vec![peer.respond(id, InitializeResponse::new(PROTOCOL_VERSION).agent_info(info))?]
                }
                RequestToAgent::SessionNew(_) => {
                    self.sessions += 1;
                    vec![peer.respond(id, NewSessionResponse::new(format!("session-{}", self.sessions)))?]
                }
                RequestToAgent::SessionPrompt(prompt) => {
                    // v1: the turn runs in notifications and ends with this request's response.
                    let session = prompt.session_id;
                    let call =
                        ToolCall::new("call-1", "Read README.md").kind(ToolKind::Read).status(ToolCallStatus::Pending);
                    let options = vec![
                        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
                        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
                    ];
                    let ask = RequestPermissionRequest::new(session.clone(), ToolCallUpdate::new("call-1"), options);
                    let (_, ask) = peer.request(ask);
                    self.waiting = Some((session.clone(), id));
                    vec![
                        peer.notify(text(&session, "Let me look at README.md.")),
                        peer.notify(SessionNotification::new(session.clone(), SessionUpdate::ToolCall(call))),
                        ask,
                    ]
                }
                other => {
                    let error = Error::new(ErrorCode::MethodNotFound, format!("`{}` is not supported", other.method()));
                    vec![peer.respond_error(id, error)?]
                }
            },
            AgentEvent::Response { response: ResponseFromClient::SessionRequestPermission(answer), .. } => {
                let Some((session, prompt)) = self.waiting.take() else { return Ok(Vec::new()) };
                let allowed =
                    matches!(&answer.outcome, RequestPermissionOutcome::Selected(s) if s.option_id.as_str() == "allow");
                let (status, said) = if allowed {
                    (ToolCallStatus::Completed, "README.md starts with \"# ACP bindings toolkit\".")
                } else {
                    (ToolCallStatus::Failed, "I was not allowed to read README.md.")
                };
                let done = ToolCallUpdate::new("call-1").status(status);
                vec![
                    peer.notify(SessionNotification::new(session.clone(), SessionUpdate::ToolCallUpdate(done))),
                    peer.notify(text(&session, said)),
                    peer.respond(prompt, PromptResponse::new(StopReason::EndTurn))?,
                ]
            }
            AgentEvent::Invalid { error, reply } => {
                eprintln!("agent: unusable line: {error}");
                reply.into_iter().collect()
            }
            _ => Vec::new(),
        })
    }
}

//! A complete ACP v2 agent on the bindings' sans-IO peer.
//!
//! It reads one JSON-RPC message per line on stdin and writes one per line on
//! stdout. A prompt is acknowledged at once (v2), answered with a message
//! chunk and a tool call that needs the client's permission, and the turn
//! ends with an `idle` state update carrying the stop reason. Lines it cannot
//! use are answered as JSON-RPC asks (the peer builds the reply).
//!
//! Run it under the example client:
//! `cargo build -p acp-bindings --features v2 --examples && target/debug/examples/client`.

use std::io::{self, BufRead, Write};

use acp_bindings::v2::rpc::{AgentEvent, AgentPeer, Message, RequestToAgent, ResponseFromClient};
use acp_bindings::v2::{
    ContentChunk, Error, ErrorCode, IdleStateUpdate, IdleStateUpdateStopReason, Implementation, InitializeResponse,
    NewSessionResponse, PermissionOption, PermissionOptionKind, PromptRequest, PromptResponse,
    RequestPermissionOutcome, RequestPermissionRequest, SessionId, SessionUpdate, StateUpdate, TextContent,
    ToolCallPermissionSubject, ToolCallStatus, ToolCallUpdate, ToolKind, UpdateSessionNotification, PROTOCOL_VERSION,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The agent's state besides the connection's: sessions made, and the turn
/// waiting for the client's permission.
#[derive(Default)]
struct Agent {
    sessions: u32,
    waiting: Option<SessionId>,
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

fn update(session: &SessionId, update: impl Into<SessionUpdate>) -> UpdateSessionNotification {
    UpdateSessionNotification::new(session.clone(), update)
}

impl Agent {
    /// The messages to send for one event.
    fn handle(&mut self, peer: &mut AgentPeer, event: AgentEvent) -> Result<Vec<Message>> {
        Ok(match event {
            AgentEvent::Request { id, request } => match request {
                RequestToAgent::Initialize(_) => {
                    let info = Implementation::new("example-agent", env!("CARGO_PKG_VERSION"));
                    vec![peer.respond(id, InitializeResponse::new(PROTOCOL_VERSION, info))?]
                }
                RequestToAgent::SessionNew(_) => {
                    self.sessions += 1;
                    vec![peer.respond(id, NewSessionResponse::new(format!("session-{}", self.sessions)))?]
                }
                RequestToAgent::SessionPrompt(prompt) => self.prompt(peer, id, prompt)?,
                other => {
                    // Known to the protocol, not implemented by this agent.
                    let error = Error::new(ErrorCode::MethodNotFound, format!("`{}` is not supported", other.method()));
                    vec![peer.respond_error(id, error)?]
                }
            },
            AgentEvent::Response { response: ResponseFromClient::SessionRequestPermission(answer), .. } => {
                let Some(session) = self.waiting.take() else { return Ok(Vec::new()) };
                let allowed =
                    matches!(&answer.outcome, RequestPermissionOutcome::Selected(s) if s.option_id.as_str() == "allow");
                let (status, text) = if allowed {
                    (ToolCallStatus::Completed, "README.md starts with \"# ACP bindings toolkit\".")
                } else {
                    (ToolCallStatus::Failed, "I was not allowed to read README.md.")
                };
                vec![
                    peer.notify(update(&session, ToolCallUpdate::new("call-1").status(status))),
                    peer.notify(update(
                        &session,
                        SessionUpdate::AgentMessageChunk(ContentChunk::new("reply-1", TextContent::new(text))),
                    )),
                    peer.notify(update(
                        &session,
                        StateUpdate::from(IdleStateUpdate::new(IdleStateUpdateStopReason::EndTurn)),
                    )),
                ]
            }
            // Notifications (`session/cancel`), other answers and errors need nothing here.
            AgentEvent::Invalid { error, reply } => {
                eprintln!("agent: unusable line: {error}");
                reply.into_iter().collect()
            }
            _ => Vec::new(),
        })
    }

    /// v2 acknowledges a prompt at once; the turn goes on in notifications.
    fn prompt(
        &mut self,
        peer: &mut AgentPeer,
        id: acp_bindings::v2::RequestId,
        prompt: PromptRequest,
    ) -> Result<Vec<Message>> {
        let session = prompt.session_id.clone();
        let ack = peer.respond(id, PromptResponse::new("user-1"))?;
        // A chunk could be the user's, the agent's or a thought: the arm says which.
        let chunk = SessionUpdate::AgentMessageChunk(ContentChunk::new(
            "reply-1",
            TextContent::new("Let me look at README.md."),
        ));
        let call =
            ToolCallUpdate::new("call-1").title("Read README.md").kind(ToolKind::Read).status(ToolCallStatus::Pending);
        let options = vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ];
        // The permission is about the tool call (its subject), which v1 requires too.
        let subject = ToolCallPermissionSubject::new(ToolCallUpdate::new("call-1"));
        let ask = RequestPermissionRequest::new(session.clone(), "Read README.md", options).subject(subject);
        let (_, ask) = peer.request(ask);
        self.waiting = Some(session.clone());
        Ok(vec![ack, peer.notify(update(&session, chunk)), peer.notify(update(&session, call)), ask])
    }
}

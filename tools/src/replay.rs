//! `replay`: fold a v2 trace's `session/update` notifications with the
//! session reducer and print the final state, or (`--compact`) the shortest
//! stream of `session/update` notifications that rebuilds it.

use std::path::Path;

use acp_bindings::runtime::rpc::OneLine;
use acp_bindings::v2::rpc::{Message, Notification, NotificationToClient};
use acp_bindings::v2::SessionReducer;

/// The outcome of a replay.
pub struct Replay {
    /// The final state.
    pub state: SessionReducer,
    /// `location: error` for every line that was rejected (state unchanged by it).
    pub rejected: Vec<String>,
    /// How many updates were applied.
    pub applied: usize,
    /// The sessions the updates named, in first-seen order.
    pub sessions: Vec<String>,
}

/// Replays a `.jsonl` trace (one JSON-RPC message a line), reading it a line
/// at a time; other messages are skipped, malformed ones are reported and
/// leave the state unchanged.
pub fn replay(path: &Path) -> std::io::Result<Replay> {
    let mut out = Replay { state: SessionReducer::new(), rejected: Vec::new(), applied: 0, sessions: Vec::new() };
    let mut pending = crate::pairing::Pending::default();
    crate::lines::each_line(path, |number, line| {
        if line.trim().is_empty() {
            return;
        }
        let decoded = Message::decode(line, |id| pending.answer(id));
        if let Ok(Message::Request { id, request, .. }) = &decoded {
            pending.request(id, request.method());
        }
        match decoded {
            Ok(Message::Notification {
                notification: Notification::Client(NotificationToClient::SessionUpdate(n)),
                ..
            }) => {
                if !out.sessions.iter().any(|s| s.as_str() == n.session_id.as_str()) {
                    out.sessions.push(n.session_id.as_str().to_owned());
                }
                out.state.apply(n.update);
                out.applied += 1;
            }
            Ok(_) => {}
            Err(e) => out.rejected.push(format!(
                "{}:{number}: rejected at {}: {}",
                path.display(),
                OneLine(if e.pointer().is_empty() { "(root)" } else { e.pointer() }),
                OneLine(e.message())
            )),
        }
    })?;
    Ok(out)
}

/// Writes the replay's state as `session/update` notifications, one JSON text
/// each through `line`: the stream [`SessionReducer::compact`] writes, in the
/// session the trace's updates named. An error, before any line, when they
/// named several (the state mixes them, and a stream belongs to one session).
pub fn compacted(replay: &Replay, mut line: impl FnMut(&str)) -> Result<(), String> {
    let session = match replay.sessions.as_slice() {
        [] => return Ok(()),
        [one] => one,
        many => {
            return Err(format!(
                "the trace updates {} sessions ({}); --compact writes the stream of one",
                many.len(),
                many.join(", ")
            ))
        }
    };
    for update in replay.state.compact() {
        let n = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": { "sessionId": session, "update": update },
        });
        line(&serde_json::to_string(&n).map_err(|e| e.to_string())?);
    }
    Ok(())
}

//! `replay`: fold a v2 trace's `session/update` notifications with the
//! session reducer and print the final state.

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
}

/// Replays a `.jsonl` trace (one JSON-RPC message a line); other messages are
/// skipped, malformed ones are reported and leave the state unchanged.
pub fn replay(path: &Path) -> std::io::Result<Replay> {
    let text = std::fs::read_to_string(path)?;
    let mut out = Replay { state: SessionReducer::new(), rejected: Vec::new(), applied: 0 };
    let mut pending = crate::pairing::Pending::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
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
                out.state.apply(n.update);
                out.applied += 1;
            }
            Ok(_) => {}
            Err(e) => out.rejected.push(format!(
                "{}:{}: rejected at {}: {}",
                path.display(),
                i + 1,
                OneLine(if e.pointer().is_empty() { "(root)" } else { e.pointer() }),
                OneLine(e.message())
            )),
        }
    }
    Ok(out)
}

//! Pairing responses with the requests they answer: JSON-RPC responses carry
//! only an id, and the bindings type a response by its request's method.

use std::collections::HashMap;

use serde::Serialize;

/// Methods of requests still waiting for their response, by request id.
#[derive(Debug, Default)]
pub struct Pending {
    by_id: HashMap<String, String>,
}

impl Pending {
    /// Remembers a request.
    pub fn request(&mut self, id: &impl Serialize, method: &str) {
        self.by_id.insert(key(id), method.to_owned());
    }

    /// The method of the request a response with this id answers (each id
    /// is answered once).
    pub fn answer(&mut self, id: &impl Serialize) -> Option<String> {
        self.by_id.remove(&key(id))
    }
}

/// A request id of either version, keyed by its JSON text (`1` and `"1"` differ).
fn key(id: &impl Serialize) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

//! `convert`: a trace of one protocol version as the other, with every loss reported.

use std::io::Write;
use std::path::Path;

use acp_bindings::runtime::rpc::Side;
use acp_bindings::{v1, v2};
use acp_bindings_convert::{AdaptError, Adapted, V1ToV2, V2ToV1};
use serde::Serialize;

/// One reported line of a conversion: a loss, or a rejected message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The 1-based line of the source trace.
    pub line: usize,
    /// JSON pointer into that line's message.
    pub pointer: String,
    /// `dropped`, `approximated`, `synthesized`, `unconvertible`, or `rejected`
    /// (the source version's bindings reject the message).
    pub kind: String,
    /// What happened.
    pub detail: String,
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = if self.pointer.is_empty() { "/" } else { &self.pointer };
        let (p, detail) = (acp_bindings::runtime::rpc::OneLine(p), acp_bindings::runtime::rpc::OneLine(&self.detail));
        write!(f, "line {}: {p}: {}: {detail}", self.line, self.kind)
    }
}

/// What a whole trace gave.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The converted messages, one JSON text each.
    pub messages: Vec<String>,
    /// Every loss and rejection, in trace order.
    pub reports: Vec<Report>,
    /// Source messages that produced no output because they were rejected or unconvertible.
    pub failed: usize,
    /// Source messages rejected by the source version's bindings.
    pub rejected: usize,
}

/// The direction of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// v1 in, v2 out.
    V1ToV2,
    /// v2 in, v1 out.
    V2ToV1,
}

/// An adapter of either direction (used here and by the bridge).
pub(crate) enum Adapter {
    Up(V1ToV2),
    Down(V2ToV1),
}

impl Adapter {
    /// The adapter for messages of version `from`.
    pub(crate) fn new(from: Direction, strict: bool) -> Adapter {
        match (from, strict) {
            (Direction::V1ToV2, false) => Adapter::Up(V1ToV2::new()),
            (Direction::V1ToV2, true) => Adapter::Up(V1ToV2::strict()),
            (Direction::V2ToV1, false) => Adapter::Down(V2ToV1::new()),
            (Direction::V2ToV1, true) => Adapter::Down(V2ToV1::strict()),
        }
    }

    /// Converts one message (JSON text).
    pub(crate) fn convert(&mut self, text: &str) -> Result<Adapted<Message>, AdaptError> {
        let (messages, losses) = match self {
            Adapter::Up(a) => {
                let a = a.convert(text)?;
                (a.messages.into_iter().map(Message::V2).collect(), a.losses)
            }
            Adapter::Down(a) => {
                let a = a.convert(text)?;
                (a.messages.into_iter().map(Message::V1).collect(), a.losses)
            }
        };
        Ok(Adapted { messages, losses })
    }
}

/// A converted message of either version.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Message {
    V1(v1::rpc::Message),
    V2(v2::rpc::Message),
}

/// What a message is, for routing it.
pub(crate) enum Role {
    /// A request or notification, and the side that handles its method.
    Call(Option<Side>),
    /// A response or error, and the id of the request it answers (JSON text;
    /// `None` for an error with a `null` id).
    Answer(Option<String>),
}

impl Message {
    /// One line of JSON, written by the bindings' encoder.
    pub(crate) fn text(&self) -> String {
        match self {
            Message::V1(m) => acp_bindings::json::to_string(m),
            Message::V2(m) => acp_bindings::json::to_string(m),
        }
        .expect("a typed message encodes")
    }

    pub(crate) fn role(&self) -> Role {
        fn id<T: Serialize>(id: &T) -> String {
            serde_json::to_string(id).expect("a request id encodes")
        }
        match self {
            Message::V1(v1::rpc::Message::Request { request, .. }) => Role::Call(request.side()),
            Message::V1(v1::rpc::Message::Notification { notification, .. }) => Role::Call(notification.side()),
            Message::V1(v1::rpc::Message::Response { id: i, .. }) => Role::Answer(Some(id(i))),
            Message::V1(v1::rpc::Message::Error { id: i, .. }) => Role::Answer(i.as_ref().map(id)),
            Message::V2(v2::rpc::Message::Request { request, .. }) => Role::Call(request.side()),
            Message::V2(v2::rpc::Message::Notification { notification, .. }) => Role::Call(notification.side()),
            Message::V2(v2::rpc::Message::Response { id: i, .. }) => Role::Answer(Some(id(i))),
            Message::V2(v2::rpc::Message::Error { id: i, .. }) => Role::Answer(i.as_ref().map(id)),
            #[allow(unreachable_patterns)]
            _ => Role::Call(None),
        }
    }
}

/// Converts a trace (one JSON-RPC message a line; blank lines are skipped).
pub fn convert_text(text: &str, direction: Direction, strict: bool) -> Outcome {
    let mut adapter = Adapter::new(direction, strict);
    let mut out = Outcome::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let line_no = i + 1;
        let r = adapter.convert(line);
        let loss = |l: acp_bindings_convert::Loss| Report {
            line: line_no,
            pointer: l.pointer,
            kind: l.kind.as_str().to_owned(),
            detail: l.detail,
        };
        match r {
            Ok(a) => {
                out.messages.extend(a.messages.iter().map(Message::text));
                out.reports.extend(a.losses.into_iter().map(loss));
            }
            Err(AdaptError::Rejected(e)) => {
                out.failed += 1;
                out.rejected += 1;
                out.reports.push(Report {
                    line: line_no,
                    pointer: e.pointer().to_owned(),
                    kind: "rejected".into(),
                    detail: e.message().to_owned(),
                });
            }
            Err(AdaptError::NotConverted(e)) => {
                out.failed += 1;
                out.reports.extend(e.losses.into_iter().map(loss));
            }
        }
    }
    out
}

/// `acp-tools convert`: prints the converted trace on stdout and each report on
/// stderr; writes the reports to `losses_json` when given. Returns the exit code:
/// 0 converted (losses or not), 1 in strict mode with any loss or when a message
/// was rejected, 2 for an unreadable file or an unwritable report.
pub fn run(trace: &Path, direction: Direction, strict: bool, losses_json: Option<&Path>) -> u8 {
    let text = match std::fs::read_to_string(trace) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", trace.display());
            return 2;
        }
    };
    let out = convert_text(&text, direction, strict);
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    for m in &out.messages {
        if writeln!(lock, "{m}").is_err() {
            return 2;
        }
    }
    for r in &out.reports {
        eprintln!("{r}");
    }
    if let Some(path) = losses_json {
        let json = serde_json::to_string_pretty(&out.reports).expect("reports serialize");
        // Written beside the target and renamed: never half-written.
        let tmp = path.with_extension("tmp-acp-convert");
        if let Err(e) = std::fs::write(&tmp, json + "\n").and_then(|_| std::fs::rename(&tmp, path)) {
            let _ = std::fs::remove_file(&tmp);
            eprintln!("error: {}: {e}", path.display());
            return 2;
        }
    }
    let lossy = out.reports.iter().any(|r| r.kind != "rejected");
    if out.rejected > 0 || (strict && lossy) {
        1
    } else {
        0
    }
}

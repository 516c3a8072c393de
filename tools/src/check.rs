//! `check-messages`: decode captured ACP messages with the generated types,
//! re-encode them, and report `exact`, `differs` (with JSON pointers) or
//! `rejected` (with the error and its pointer) for each.

use std::fmt;
use std::path::Path;

use acp_bindings::runtime::rpc::{DispatchError, OneLine};
use serde_json::Value;

use crate::diff::differences;
use crate::pairing::Pending;

/// The protocol version to check against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// ACP v1.
    V1,
    /// ACP v2.
    V2,
}

/// What to decode each message as.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The method of the request a lone response answers.
    pub method: Option<String>,
    /// Decode bare payloads as this definition instead of JSON-RPC messages.
    pub type_name: Option<String>,
}

/// The verdict on one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Decoded and re-encoded to the same JSON.
    Exact,
    /// Decoded, but re-encoding differs at these pointers.
    Differs(Vec<String>),
    /// Not decoded.
    Rejected {
        /// What was wrong.
        error: String,
        /// Where, as a JSON pointer into the message.
        pointer: String,
    },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Exact => f.write_str("exact"),
            Outcome::Differs(p) => {
                let shown: Vec<&str> = p.iter().map(|s| if s.is_empty() { "(root)" } else { s.as_str() }).collect();
                write!(f, "differs {}", shown.join(" "))
            }
            Outcome::Rejected { error, pointer } => {
                let at = if pointer.is_empty() { "(root)" } else { pointer };
                write!(f, "rejected at {}: {}", OneLine(at), OneLine(error))
            }
        }
    }
}

fn rejected(e: DispatchError) -> Outcome {
    Outcome::Rejected { error: e.message().to_owned(), pointer: e.pointer().to_owned() }
}

/// Tallies of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Messages that re-encoded exactly.
    pub exact: usize,
    /// Messages that re-encoded differently.
    pub differs: usize,
    /// Messages that did not decode.
    pub rejected: usize,
}

impl Summary {
    fn add(&mut self, o: &Outcome) {
        match o {
            Outcome::Exact => self.exact += 1,
            Outcome::Differs(_) => self.differs += 1,
            Outcome::Rejected { .. } => self.rejected += 1,
        }
    }

    /// `true` when everything was exact.
    pub fn clean(&self) -> bool {
        self.differs == 0 && self.rejected == 0
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} exact, {} differs, {} rejected", self.exact, self.differs, self.rejected)
    }
}

/// Checks messages of one trace (or one file); remembers requests by id so
/// that responses are typed by the request they answer.
pub struct Checker {
    protocol: Protocol,
    options: Options,
    pending: Pending,
}

impl Checker {
    /// A checker for one trace.
    pub fn new(protocol: Protocol, options: Options) -> Self {
        Checker { protocol, options, pending: Pending::default() }
    }

    /// Checks one message given as JSON text.
    pub fn check(&mut self, text: &str) -> Outcome {
        let original: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => return Outcome::Rejected { error: format!("malformed JSON: {e}"), pointer: String::new() },
        };
        let result = match &self.options.type_name {
            Some(t) => self.bare(t, text),
            None => self.message(text),
        };
        match result {
            Ok(again) if again == original => Outcome::Exact,
            Ok(again) => Outcome::Differs(differences(&original, &again)),
            Err(outcome) => outcome,
        }
    }

    fn bare(&self, type_name: &str, text: &str) -> Result<Value, Outcome> {
        let result = match self.protocol {
            Protocol::V1 => crate::registry::v1::reencode(type_name, text),
            Protocol::V2 => crate::registry::v2::reencode(type_name, text),
        };
        match result {
            Some(r) => r.map_err(rejected),
            None => Err(Outcome::Rejected {
                error: format!("no definition `{type_name}` in {:?} (check --protocol and --unstable)", self.protocol),
                pointer: String::new(),
            }),
        }
    }

    fn message(&mut self, text: &str) -> Result<Value, Outcome> {
        let fallback = self.options.method.clone();
        let pending = &mut self.pending;
        macro_rules! run {
            ($v:ident) => {{
                use acp_bindings::$v::rpc::Message;
                let message =
                    Message::decode(text, |id| pending.answer(id).or_else(|| fallback.clone())).map_err(rejected)?;
                if let Message::Request { id, request, .. } = &message {
                    pending.request(id, request.method());
                }
                message.to_value().map_err(|e| Outcome::Rejected { error: e.to_string(), pointer: String::new() })
            }};
        }
        match self.protocol {
            Protocol::V1 => run!(v1),
            Protocol::V2 => run!(v2),
        }
    }
}

/// Checks one file: `.json` holds one message, `.jsonl` a trace (one message a
/// line). Calls `report(location, outcome)` for each message.
pub fn check_file(
    path: &Path,
    protocol: Protocol,
    options: &Options,
    mut report: impl FnMut(&str, &Outcome),
) -> std::io::Result<Summary> {
    let mut summary = Summary::default();
    let mut checker = Checker::new(protocol, options.clone());
    let shown = path.display();
    if path.extension().is_some_and(|e| e == "jsonl") {
        // A trace is read a line at a time: any length, in the memory of one line.
        crate::lines::each_line(path, |number, line| {
            if line.trim().is_empty() {
                return;
            }
            let outcome = checker.check(line);
            report(&format!("{shown}:{number}"), &outcome);
            summary.add(&outcome);
        })?;
    } else {
        let text = std::fs::read_to_string(path)?;
        let outcome = checker.check(&text);
        report(&shown.to_string(), &outcome);
        summary.add(&outcome);
    }
    Ok(summary)
}

//! The v1 ⇄ v2 adapters (`V1ToV2`, `V2ToV1`) fed a stream of messages: they
//! never panic, on any line; while every line so far is valid in the source
//! version's schema, every message they write is valid in the target's.
//! Every loss has a JSON pointer (whether it points into its own line is
//! issue 28's: a tool call's remembered content is reported at its old
//! pointer today).
//!
//! Input: a header line (`v1` converts v1 to v2, `v2` the other way), then
//! one message per line.

use crate::header;
use crate::schema::Stream;
use acp_bindings_convert::{AdaptError, V1ToV2, V2ToV1};
use serde_json::Value;

/// The property, for one input (the fuzz target's body; a failure panics).
pub fn check(data: &[u8]) {
    let Some((head, text)) = header(data) else { return };
    let (from, to) = match head {
        "v1" => ("v1", "v2"),
        "v2" => ("v2", "v1"),
        _ => return,
    };
    let (mut up, mut down) = (V1ToV2::new(), V2ToV1::new());
    let (mut source, mut target) = (Stream::new(from), Stream::new(to));
    let mut valid = true;
    for line in text.split('\n') {
        let parsed: Option<Value> = serde_json::from_str(line).ok();
        valid &= parsed.as_ref().is_some_and(|m| source.message(m).is_empty());
        // The typed output, as the crate's encoder writes it.
        let r = if from == "v1" {
            up.convert(line).map(|a| (a.encode(), a.losses))
        } else {
            down.convert(line).map(|a| (a.encode(), a.losses))
        };
        let (messages, losses) = match r {
            Ok((texts, losses)) => {
                let texts = texts.expect("typed messages encode");
                let values: Vec<Value> =
                    texts.iter().map(|t| serde_json::from_str(t).expect("the encoder writes JSON")).collect();
                (values, losses)
            }
            Err(AdaptError::NotConverted(e)) => (Vec::new(), e.losses),
            Err(AdaptError::Rejected(e)) => {
                assert!(!e.to_string().contains('\n'), "a rejection of more than one line: {e}");
                continue;
            }
        };
        for m in &messages {
            let problems = target.message(m);
            if valid {
                assert!(
                    problems.is_empty(),
                    "{from} line {line}\nbecame the invalid {to} message {m}:\n{}",
                    problems.join("\n")
                );
            }
        }
        for l in &losses {
            assert!(l.pointer.is_empty() || l.pointer.starts_with('/'), "loss {l} of {line} has no JSON pointer");
        }
    }
}

//! The stateful adapters: one connection's messages in, the other version's out.
//!
//! [`V1ToV2`] and [`V2ToV1`] are each fed the messages of one connection in
//! order, both directions interleaved as a captured trace has them (requests
//! and notifications of both peers, and the responses to them). Each message
//! gives zero or more messages of the other version and its losses, whose
//! pointers point into the source message. The state they keep is what the
//! protocol needs:
//!
//! - the method of every open request (responses are typed by it);
//! - per session, the prompt turn; the message id of the current run of v1
//!   chunks; the tool calls (a v2 `SessionReducer` in `V2ToV1`, titles in
//!   `V1ToV2`); the v1 modes.
//!
//! Which method becomes which is one table, read by both adapters
//! (`adapter/methods.rs`): the methods that cross one to one, whose params
//! and results convert by their own conversions. The choices below handle
//! the others, and some of those first.
//!
//! Choices the specification leaves open, made here:
//!
//! - **v1 -> v2 prompt.** Right after the v1 `session/prompt` request come the
//!   v2 acknowledgement (`{messageId}`), a `user_message` echoing the prompt
//!   with that id, and `state_update` `running`. The v1 response's
//!   `stopReason` becomes `state_update` `idle` with that stop reason; a v1
//!   error response to the prompt becomes `idle` with stop reason `error`
//!   carrying the error (the acknowledgement was already sent).
//! - **v2 -> v1 prompt.** The acknowledgement is held, the `user_message`
//!   echoing the prompt and `running` are not forwarded (v1 has no form for
//!   them and its client already has the prompt); `idle` with a stop reason
//!   becomes the v1 prompt response; stop reason `error` becomes a JSON-RPC
//!   error response.
//! - **Message ids of v1 chunks without one.** One id per run of chunks of
//!   the same type; any other update ends the run.
//! - **Whole-message updates (v2 -> v1)** become v1 chunks (one per content
//!   block) only if the v1 side has not seen content for that message;
//!   otherwise they are a `dropped` loss.
//! - **Tool calls.** v1 `tool_call` and `tool_call_update` both become v2
//!   `tool_call_update`, field by field. In v2 -> v1 the first update of an
//!   id becomes a v1 `tool_call` with the accumulated state (a made-up title
//!   is `synthesized`); a `tool_call_content_chunk` becomes a
//!   `tool_call_update` carrying the whole accumulated content; `kind: null`
//!   resets to `other`.
//! - **Plans.** v1 `plan` <-> v2 `plan_update` of the plan `main`
//!   (`type: "items"`); a v2 plan under another id is `approximated`.
//! - **Modes.** v1 modes <-> a v2 config option of category `mode` with the
//!   id [`MODE_CONFIG_ID`]; `session/set_mode` <-> `session/set_config_option`;
//!   `current_mode_update` -> `config_option_update` with the whole option list.
//! - **Loading.** `session/load` -> `session/resume` with
//!   `replayFrom: {type: "start"}`; its response is preceded by the
//!   `state_update` snapshot v2 requires (`idle`). In v2 -> v1 a resume with
//!   `replayFrom` becomes `session/load`, one without stays `session/resume`.
//! - **`session/request_permission` (v1 -> v2)**: the title is the tool call's
//!   accumulated title.
//! - **Notices and compactions (v2 -> v1)** reach a v1 client only if its
//!   `initialize` advertised `session.notices` / `session.compaction`;
//!   otherwise they are `dropped`.

// Targets are built with `new`/`default` and then assigned: their unstable
// shapes have more fields, and this code compiles in both builds.
#![allow(clippy::field_reassign_with_default)]

/// The adapters' maps are keyed by ids the peers choose (sessions, tool
/// calls, messages, requests) and are looked up on every update: foldhash is
/// several times faster than SipHash on such short keys and is seeded at
/// random per map, so a peer cannot choose ids that collide.
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
type HashSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

use serde_json::json;

use super::{ConvertError, Cx, Fail, Loss, LossKind, Properties, ToV1, ToV2, Unknown};
use acp_bindings::runtime::rpc::{DispatchError, ParamsForm};
use acp_bindings::runtime::Nullable;
use acp_bindings::{v1, v2};

/// The id of the v2 config option that carries v1 modes.
pub const MODE_CONFIG_ID: &str = "mode";

/// What one source message became: typed messages of the target version
/// ([`v2::rpc::Message`] from [`V1ToV2`], [`v1::rpc::Message`] from
/// [`V2ToV1`]), to be encoded with [`acp_bindings::json::to_string`] (or
/// [`Adapted::encode`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Adapted<M> {
    /// The target version's messages, in order (none when the message is held
    /// or has no target form that loses nothing).
    pub messages: Vec<M>,
    /// The losses, with pointers into the source message.
    pub losses: Vec<Loss>,
}

impl<M> Default for Adapted<M> {
    fn default() -> Self {
        Adapted { messages: Vec::new(), losses: Vec::new() }
    }
}

impl<M: serde::Serialize> Adapted<M> {
    /// The messages as JSON text, one line each, written by the crate's
    /// encoder.
    pub fn encode(&self) -> Result<Vec<String>, serde_json::Error> {
        self.messages.iter().map(acp_bindings::json::to_string).collect()
    }
}

/// One message's output: the target messages and the losses.
type Out<M> = Result<(Vec<M>, Vec<Loss>), AdaptError>;

/// Why a message produced no output.
#[derive(Debug, Clone, PartialEq)]
pub enum AdaptError {
    /// The source version's bindings reject the message.
    Rejected(DispatchError),
    /// The message is unconvertible (or, in strict mode, has a loss).
    NotConverted(ConvertError),
}

impl std::fmt::Display for AdaptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AdaptError::Rejected(e) => {
                write!(f, "rejected: {}: {e}", if e.pointer().is_empty() { "/" } else { e.pointer() })
            }
            AdaptError::NotConverted(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for AdaptError {}

fn id_key<T: serde::Serialize>(id: &T) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// The open requests of a connection, by the side that handles them and their
/// id: the two peers number their requests independently, so the same id can
/// be open in both directions at once. A response is paired with the request
/// of its id; when both directions have one open, with the one whose result
/// type the response decodes as (if both decode, it cannot be paired and is
/// rejected).
#[derive(Debug)]
struct Open<P> {
    map: HashMap<(String, String), P>,
}

impl<P> Default for Open<P> {
    fn default() -> Self {
        Open { map: HashMap::default() }
    }
}

/// What a pending request remembers: its method.
trait Method {
    fn method(&self) -> &str;
}

impl<P: Method> Open<P> {
    fn insert(&mut self, side: Option<acp_bindings::runtime::rpc::Side>, id: String, p: P) {
        self.map.insert((format!("{side:?}"), id), p);
    }

    /// The open requests with this id: (side, method).
    fn candidates(&self, id: &str) -> Vec<(String, String)> {
        let mut c: Vec<(String, String)> = self
            .map
            .iter()
            .filter(|((_, i), _)| i == id)
            .map(|((s, _), p)| (s.clone(), p.method().to_owned()))
            .collect();
        c.sort();
        c
    }

    fn take(&mut self, side: &str, id: &str) -> Option<P> {
        self.map.remove(&(side.to_owned(), id.to_owned()))
    }

    /// The request an error response answers: the only one open with its id
    /// (an error cannot tell the directions apart; with two, neither is closed).
    fn take_only(&mut self, id: &str) -> Option<P> {
        match self.candidates(id).as_slice() {
            [(side, _)] => self.take(side, id),
            _ => None,
        }
    }

    /// The method of the request a response with `id` answers, for the
    /// decoder's first try; `cands` keeps every open request with that id
    /// (for [`Open::pair`]).
    fn lookup(&self, id: String, cands: &mut Vec<(String, String)>) -> Option<String> {
        *cands = self.candidates(&id);
        cands.first().map(|(_, m)| m.clone())
    }

    /// Decodes a message, pairing a response with its request; `side` is set
    /// to the side of the paired request (for [`Open::take`]).
    fn decode<M>(
        &self,
        text: &str,
        side: &mut Option<String>,
        decode: impl Fn(&str, &mut dyn FnMut(String) -> Option<String>) -> Result<M, DispatchError>,
    ) -> Result<M, DispatchError> {
        let mut cands = Vec::new();
        let first = decode(text, &mut |id| self.lookup(id, &mut cands));
        self.pair(text, first, cands, side, decode)
    }

    /// [`Open::decode`] after its first try, `first`, which looked up
    /// `cands`: with two candidates the message is decoded again for each.
    fn pair<M>(
        &self,
        text: &str,
        first: Result<M, DispatchError>,
        cands: Vec<(String, String)>,
        side: &mut Option<String>,
        decode: impl Fn(&str, &mut dyn FnMut(String) -> Option<String>) -> Result<M, DispatchError>,
    ) -> Result<M, DispatchError> {
        if cands.len() < 2 {
            *side = cands.into_iter().next().map(|(s, _)| s);
            return first;
        }
        // The same id is open in both directions: the response belongs to the
        // request whose result it decodes as.
        let mut fits = Vec::new();
        let mut first_error = None;
        for (side, method) in &cands {
            match decode(text, &mut |_| Some(method.clone())) {
                Ok(m) => fits.push((m, side.clone())),
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match fits.len() {
            1 => {
                let (m, s) = fits.pop().expect("one");
                *side = Some(s);
                Ok(m)
            }
            0 => Err(first_error.expect("a failed candidate")),
            _ => Err(DispatchError::new(
                acp_bindings::runtime::rpc::DispatchErrorKind::UnknownRequest,
                "/id",
                "both peers have a request with this id open and the response fits either: it cannot be paired",
            )),
        }
    }
}

/// Runs a conversion in a fresh context whose pointers start at `base`.
#[inline]
fn run<T>(
    strict: bool,
    base: impl Into<std::borrow::Cow<'static, str>>,
    f: impl FnOnce(&mut Cx) -> Result<T, Fail>,
) -> Result<(T, Vec<Loss>), AdaptError> {
    let mut cx = Cx::at_pointer(base, strict);
    // Matched here rather than through `Cx::finish`, so the value is moved
    // once (the stream's updates are a few hundred bytes each).
    match f(&mut cx) {
        Ok(value) => Ok((value, cx.take_losses())),
        Err(_) => Err(not_converted(&mut cx)),
    }
}

/// The error of a conversion that failed in `cx`, with its losses.
fn not_converted(cx: &mut Cx) -> AdaptError {
    AdaptError::NotConverted(ConvertError { losses: cx.take_losses() })
}

/// A value's own conversion to v1 that becomes one message, `wrap(value)`.
/// The value is passed on, not held by a closure, and the converted value
/// goes straight into the message and the message into its `Vec`: a closure
/// and a returned `(value, losses)` each copied the value (a few hundred
/// bytes) once more on the stream's commonest updates.
#[inline(always)]
fn one_message<S: ToV1, M>(strict: bool, base: &'static str, s: S, wrap: impl FnOnce(S::V1) -> M) -> Out<M> {
    let mut cx = Cx::at_pointer(base, strict);
    match s.to_v1(&mut cx) {
        Ok(value) => {
            let messages = vec![wrap(value)];
            Ok((messages, cx.take_losses()))
        }
        Err(_) => Err(not_converted(&mut cx)),
    }
}

/// A value's own conversion to v1, pushed onto `to` (not returned first,
/// which copied it); the losses are returned.
#[inline(always)]
fn push_to_v1<S: ToV1>(strict: bool, base: &'static str, s: S, to: &mut Vec<S::V1>) -> Result<Vec<Loss>, AdaptError> {
    let mut cx = Cx::at_pointer(base, strict);
    match s.to_v1(&mut cx) {
        Ok(value) => {
            to.push(value);
            Ok(cx.take_losses())
        }
        Err(_) => Err(not_converted(&mut cx)),
    }
}

/// [`Cx::extras_for`] outside a conversion: the unknown properties of the
/// source object at `base` that `target` can keep, and the losses.
fn extras<T: Properties, E: Unknown>(
    strict: bool,
    base: &'static str,
    target: &T,
    extra: E,
) -> Result<(E, Vec<Loss>), AdaptError> {
    // The common case needs no context.
    if extra.none() {
        return Ok((extra, Vec::new()));
    }
    run(strict, base, |cx| cx.extras_for(target, extra))
}

/// A response to a request that produced no output.
fn unanswered(method: &str) -> AdaptError {
    AdaptError::NotConverted(ConvertError {
        losses: vec![Loss {
            pointer: String::new(),
            kind: LossKind::Unconvertible,
            detail: format!("the response to a `{method}` request that was not converted"),
        }],
    })
}

/// A message kind this build's adapter does not know (the message enums are
/// non-exhaustive).
fn unknown_message() -> AdaptError {
    AdaptError::NotConverted(ConvertError {
        losses: vec![Loss { pointer: String::new(), kind: LossKind::Unconvertible, detail: "unknown message".into() }],
    })
}

/// An error response in the target version: its id (at `/id`, `null` kept)
/// and error (at `/error`) converted by their functions, then put together.
fn error_response<I, E, J, F, M>(
    strict: bool,
    (id, error): (Option<I>, E),
    convert_id: impl FnOnce(I, &mut Cx) -> Result<J, Fail>,
    convert_error: impl FnOnce(E, &mut Cx) -> Result<F, Fail>,
    message: impl FnOnce(Option<J>, F) -> M,
) -> Result<Adapted<M>, AdaptError> {
    let ((id, error), losses) = run(strict, "", |cx| {
        let id = match id {
            Some(i) => Some(cx.at("id", |cx| convert_id(i, cx))?),
            None => None,
        };
        Ok((id, cx.at("error", |cx| convert_error(error, cx))?))
    })?;
    Ok(Adapted { messages: vec![message(id, error)], losses })
}

fn unconvertible_method(method: &str, target: &str) -> AdaptError {
    AdaptError::NotConverted(ConvertError {
        losses: vec![Loss {
            pointer: "/method".into(),
            kind: LossKind::Unconvertible,
            detail: format!("the method `{method}` has no {target} form"),
        }],
    })
}

fn conv_at<S: ToV2, T>(
    strict: bool,
    base: &'static str,
    p: S,
    wrap: impl FnOnce(S::V2) -> T,
) -> Result<(T, Vec<Loss>), AdaptError> {
    let (v, l) = run(strict, base, |cx| p.to_v2(cx))?;
    Ok((wrap(v), l))
}

fn conv1<S: ToV1, T>(
    strict: bool,
    base: &'static str,
    p: S,
    wrap: impl FnOnce(S::V1) -> T,
) -> Result<(T, Vec<Loss>), AdaptError> {
    let (v, l) = run(strict, base, |cx| p.to_v1(cx))?;
    Ok((wrap(v), l))
}

mod down;
mod methods;
mod up;
pub use down::V2ToV1;
pub use up::V1ToV2;

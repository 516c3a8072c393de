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

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::{ConvertError, Cx, Fail, Loss, LossKind, Properties, ToV1, ToV2, Unknown};
use crate::runtime::rpc::{DispatchError, ParamsForm};
use crate::runtime::Nullable;
use crate::{v1, v2};

/// The id of the v2 config option that carries v1 modes.
pub const MODE_CONFIG_ID: &str = "mode";

/// What one source message became.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Adapted {
    /// The target version's messages, in order (none when the message is held
    /// or has no target form that loses nothing).
    pub messages: Vec<Value>,
    /// The losses, with pointers into the source message.
    pub losses: Vec<Loss>,
}

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
        Open { map: HashMap::new() }
    }
}

/// What a pending request remembers: its method.
trait Method {
    fn method(&self) -> &str;
}

impl<P: Method> Open<P> {
    fn insert(&mut self, side: Option<crate::runtime::rpc::Side>, id: String, p: P) {
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

    /// Decodes a message, pairing a response with its request. Returns the
    /// side of the paired request (for [`Open::take`]).
    fn decode<M>(
        &self,
        text: &str,
        decode: impl Fn(&str, &mut dyn FnMut(String) -> Option<String>) -> Result<M, DispatchError>,
    ) -> Result<(M, Option<String>), AdaptError> {
        let seen: std::cell::RefCell<Vec<(String, String)>> = Default::default();
        let first = decode(text, &mut |id| {
            let c = self.candidates(&id);
            let m = c.first().map(|(_, m)| m.clone());
            *seen.borrow_mut() = c;
            m
        });
        let cands = seen.into_inner();
        if cands.len() < 2 {
            return first.map(|m| (m, cands.first().map(|(s, _)| s.clone()))).map_err(AdaptError::Rejected);
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
                let (m, side) = fits.pop().expect("one");
                Ok((m, Some(side)))
            }
            0 => Err(AdaptError::Rejected(first_error.expect("a failed candidate"))),
            _ => Err(AdaptError::Rejected(DispatchError::new(
                crate::runtime::rpc::DispatchErrorKind::UnknownRequest,
                "/id",
                "both peers have a request with this id open and the response fits either: it cannot be paired",
            ))),
        }
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn response(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn update(session: &str, update: Value) -> Value {
    notification("session/update", json!({"sessionId": session, "update": update}))
}

/// Runs a conversion in a fresh context whose pointers start at `base`.
fn run<T>(strict: bool, base: &str, f: impl FnOnce(&mut Cx) -> Result<T, Fail>) -> Result<(T, Vec<Loss>), AdaptError> {
    let mut cx = Cx::at_pointer(base, strict);
    let r = f(&mut cx);
    cx.finish(r).map(|c| (c.value, c.losses)).map_err(AdaptError::NotConverted)
}

/// [`Cx::extras_for`] outside a conversion: the unknown properties of the
/// source object at `base` that `target` can keep, and the losses.
fn extras<T: Properties, E: Unknown>(
    strict: bool,
    base: &str,
    target: &T,
    extra: E,
) -> Result<(E, Vec<Loss>), AdaptError> {
    run(strict, base, |cx| cx.extras_for(target, extra))
}

// =====================================================================================
// v1 -> v2
// =====================================================================================

#[derive(Debug, Clone)]
struct Pending1 {
    method: String,
    session: Option<String>,
    /// The mode a `session/set_mode` asks for.
    mode: Option<v1::SessionModeId>,
    /// The request produced no output: its response has none either.
    failed: bool,
}

#[derive(Debug, Clone, Default)]
struct Session1 {
    /// The current run of chunks: its update type and message id.
    run: Option<(&'static str, String)>,
    /// Tool-call titles by id.
    titles: HashMap<String, String>,
    /// v1 modes: the current one and the available ones.
    modes: Option<v1::SessionModeState>,
    /// The v2 config options the session has (without the mode option).
    options: Vec<v2::SessionConfigOption>,
}

/// Converts one v1 connection's messages to v2 (see the module docs).
#[derive(Debug, Default)]
pub struct V1ToV2 {
    strict: bool,
    pending: Open<Pending1>,
    sessions: HashMap<String, Session1>,
    ids: u64,
}

impl Method for Pending1 {
    fn method(&self) -> &str {
        &self.method
    }
}

impl V1ToV2 {
    /// An adapter that reports losses and goes on.
    pub fn new() -> Self {
        Self::default()
    }

    /// An adapter for which any loss is an error.
    pub fn strict() -> Self {
        V1ToV2 { strict: true, ..Self::default() }
    }

    fn fresh_id(&mut self) -> String {
        self.ids += 1;
        format!("converted-{}", self.ids)
    }

    /// Converts one v1 message (JSON text).
    pub fn convert(&mut self, text: &str) -> Result<Adapted, AdaptError> {
        let (msg, side) = self.pending.decode(text, |t, f| v1::rpc::Message::decode(t, |id| f(id_key(id))))?;
        let side = side.unwrap_or_default();
        let strict = self.strict;
        match msg {
            v1::rpc::Message::Request { id, request, form } => {
                let key = id_key(&id);
                let (method, side) = (request.method().to_owned(), request.side());
                let session = session_of_v1_request(&request);
                let mode = match &request {
                    v1::rpc::Request::Agent(v1::rpc::RequestToAgent::SessionSetMode(p)) => Some(p.mode_id.clone()),
                    _ => None,
                };
                let r = self.request(id, request, form);
                self.pending.insert(side, key, Pending1 { method, session, mode, failed: r.is_err() });
                let (out, losses) = r?;
                Ok(Adapted { messages: out, losses })
            }
            v1::rpc::Message::Notification { notification, form } => {
                let (out, losses) = self.notification(notification, form)?;
                Ok(Adapted { messages: out, losses })
            }
            v1::rpc::Message::Response { id, response, form } => {
                let pending = self.pending.take(&side, &id_key(&id)).expect("decoded against an open request");
                if pending.failed {
                    return Err(unanswered(&pending.method));
                }
                let (out, losses) = self.response(id, response, form, pending)?;
                Ok(Adapted { messages: out, losses })
            }
            v1::rpc::Message::Error { id, error } => {
                let pending = id.as_ref().and_then(|i| self.pending.take_only(&id_key(i)));
                if let Some(p) = pending.as_ref().filter(|p| p.failed) {
                    return Err(unanswered(&p.method));
                }
                if let Some(p) = pending.filter(|p| p.method == "session/prompt") {
                    // The acknowledgement was sent: the turn ends with `error`.
                    let (e, losses) = run(strict, "/error", |cx| error.to_v2(cx))?;
                    let session = p.session.unwrap_or_default();
                    let idle = json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": "error", "error": to_value(&e)});
                    return Ok(Adapted { messages: vec![update(&session, idle)], losses });
                }
                let ((id, e), losses) = run(strict, "", |cx| {
                    let id = match id {
                        Some(i) => Some(cx.at("id", |cx| i.to_v2(cx))?),
                        None => None,
                    };
                    Ok((id, cx.at("error", |cx| error.to_v2(cx))?))
                })?;
                let m = v2::rpc::Message::Error { id, error: e };
                Ok(Adapted { messages: vec![m.to_value().unwrap_or(Value::Null)], losses })
            }
            #[allow(unreachable_patterns)]
            _ => Err(AdaptError::NotConverted(ConvertError {
                losses: vec![Loss {
                    pointer: String::new(),
                    kind: LossKind::Unconvertible,
                    detail: "unknown message".into(),
                }],
            })),
        }
    }

    #[allow(unreachable_patterns)]
    fn request(
        &mut self,
        id: v1::RequestId,
        request: v1::rpc::Request,
        form: ParamsForm,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{Request as A, RequestToAgent as AA, RequestToClient as AC};
        use v2::rpc::{Request as B, RequestToAgent as BA, RequestToClient as BC};
        let strict = self.strict;
        let (id2, mut losses) = run(strict, "/id", |cx| id.to_v2(cx))?;
        let mut after = Vec::new();
        let (req, more) = match request {
            A::Agent(AA::SessionPrompt(p)) => {
                let session = p.session_id.as_str().to_owned();
                let (p, l) = run(strict, "/params", |cx| p.to_v2(cx))?;
                // The echo carries the converted prompt.
                let prompt = to_value(&p.prompt);
                // The acknowledgement, the echo of the prompt, and `running`.
                let message_id = self.fresh_id();
                after.push(response(to_value(&id2), json!({"messageId": message_id})));
                after.push(update(
                    &session,
                    json!({"sessionUpdate": "user_message", "messageId": message_id, "content": prompt}),
                ));
                after.push(update(&session, json!({"sessionUpdate": "state_update", "state": "running"})));
                self.session(&session).run = None;
                (B::Agent(BA::SessionPrompt(p)), l)
            }
            A::Agent(AA::SessionLoad(p)) => {
                let (p, l) = run(strict, "/params", |cx| {
                    let mut r = v2::ResumeSessionRequest::new(
                        cx.at("sessionId", |cx| p.session_id.to_v2(cx))?,
                        v2::AbsolutePath(super::id(p.cwd)),
                    );
                    r.additional_directories = p
                        .additional_directories
                        .map(|d| d.into_iter().map(|s| v2::AbsolutePath(super::id(s))).collect());
                    r.mcp_servers = Some(cx.at("mcpServers", |cx| p.mcp_servers.to_v2(cx))?);
                    r.replay_from = Nullable::Value(v2::ReplayFrom::Start(v2::ReplayFromStart::default()));
                    r.meta = p.meta;
                    r.additional_properties = cx.extras_for(&r, p.additional_properties)?;
                    Ok(r)
                })?;
                (B::Agent(BA::SessionResume(p)), l)
            }
            A::Agent(AA::SessionSetMode(p)) => {
                let (p, l) = run(strict, "/params", |cx| {
                    let value = json!({"sessionId": p.session_id.as_str(), "configId": MODE_CONFIG_ID, "type": "id", "value": p.mode_id.as_str()});
                    let mut r: v2::SetSessionConfigOptionRequest = super::redecode(cx, value, "the mode")?;
                    r.meta = p.meta;
                    // A request beside a flattened union keeps unknown properties in its arm.
                    if let v2::SetSessionConfigOptionRequestType::Id(id) = &mut r.r#type {
                        id.additional_properties = cx.extras_for(&*id, p.additional_properties)?;
                    }
                    Ok(r)
                })?;
                (B::Agent(BA::SessionSetConfigOption(p)), l)
            }
            A::Client(AC::SessionRequestPermission(mut p)) => {
                // The title is the tool call's accumulated title: converted as
                // if the update carried it, then taken out of the update again
                // (the update itself did not change the title).
                let known = match p.tool_call.title {
                    Nullable::Absent => self
                        .sessions
                        .get(p.session_id.as_str())
                        .and_then(|s| s.titles.get(p.tool_call.tool_call_id.as_str()))
                        .cloned(),
                    _ => None,
                };
                let borrowed = known.is_some();
                if let Some(t) = known {
                    p.tool_call.title = Nullable::Value(t);
                }
                let (mut r, l) = run(strict, "/params", |cx| p.to_v2(cx))?;
                if borrowed {
                    if let Nullable::Value(v2::RequestPermissionSubject::ToolCall(s)) = &mut r.subject {
                        s.tool_call.title = crate::patch::Patch::Keep;
                    }
                }
                (B::Client(BC::SessionRequestPermission(r)), l)
            }
            A::Agent(AA::Initialize(p)) => conv(strict, p, |p| B::Agent(BA::Initialize(p)))?,
            A::Agent(AA::Authenticate(p)) => conv(strict, p, |p| B::Agent(BA::AuthLogin(p)))?,
            A::Agent(AA::Logout(p)) => conv(strict, p, |p| B::Agent(BA::AuthLogout(p)))?,
            A::Agent(AA::SessionNew(p)) => conv(strict, p, |p| B::Agent(BA::SessionNew(p)))?,
            A::Agent(AA::SessionList(p)) => conv(strict, p, |p| B::Agent(BA::SessionList(p)))?,
            A::Agent(AA::SessionDelete(p)) => conv(strict, p, |p| B::Agent(BA::SessionDelete(p)))?,
            A::Agent(AA::SessionResume(p)) => conv(strict, p, |p| B::Agent(BA::SessionResume(p)))?,
            A::Agent(AA::SessionClose(p)) => conv(strict, p, |p| B::Agent(BA::SessionClose(p)))?,
            A::Agent(AA::SessionSetConfigOption(p)) => conv(strict, p, |p| B::Agent(BA::SessionSetConfigOption(p)))?,
            A::Client(AC::ElicitationCreate(p)) => conv(strict, p, |p| B::Client(BC::ElicitationCreate(p)))?,
            A::Extension(e) => (B::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v2")),
        };
        losses.extend(more);
        let m = v2::rpc::Message::Request { id: id2, request: req, form };
        let mut out = vec![m.to_value().unwrap_or(Value::Null)];
        out.extend(after);
        Ok((out, losses))
    }

    fn session(&mut self, id: &str) -> &mut Session1 {
        self.sessions.entry(id.to_owned()).or_default()
    }

    #[allow(unreachable_patterns)]
    fn notification(
        &mut self,
        n: v1::rpc::Notification,
        form: ParamsForm,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{
            Notification as A, NotificationToAgent as AA, NotificationToAnySide as AS, NotificationToClient as AC,
        };
        use v2::rpc::{
            Notification as B, NotificationToAgent as BA, NotificationToAnySide as BS, NotificationToClient as BC,
        };
        let strict = self.strict;
        let (n, losses) = match n {
            A::Client(AC::SessionUpdate(n)) => return self.session_update(n),
            A::Agent(AA::SessionCancel(p)) => conv(strict, p, |p| B::Agent(BA::SessionCancel(p)))?,
            A::Protocol(AS::CancelRequest(p)) => conv(strict, p, |p| B::Protocol(BS::CancelRequest(p)))?,
            A::Client(AC::ElicitationComplete(p)) => conv(strict, p, |p| B::Client(BC::ElicitationComplete(p)))?,
            A::Extension(e) => (B::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v2")),
        };
        let m = v2::rpc::Message::Notification { notification: n, form };
        Ok((vec![m.to_value().unwrap_or(Value::Null)], losses))
    }

    fn session_update(&mut self, n: v1::SessionNotification) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        let strict = self.strict;
        let session = n.session_id.as_str().to_owned();
        // The message id of a chunk without one: one per run of chunks of a type.
        let chunk_tag = match &n.update {
            v1::SessionUpdate::UserMessageChunk(_) => Some("user_message_chunk"),
            v1::SessionUpdate::AgentMessageChunk(_) => Some("agent_message_chunk"),
            v1::SessionUpdate::AgentThoughtChunk(_) => Some("agent_thought_chunk"),
            _ => None,
        };
        let mut n = n;
        match chunk_tag {
            Some(tag) => {
                let needs = match &n.update {
                    v1::SessionUpdate::UserMessageChunk(c)
                    | v1::SessionUpdate::AgentMessageChunk(c)
                    | v1::SessionUpdate::AgentThoughtChunk(c) => !matches!(c.message_id, Nullable::Value(_)),
                    _ => false,
                };
                if needs {
                    let current = self.sessions.get(&session).and_then(|s| s.run.clone());
                    let id = match current {
                        Some((t, id)) if t == tag => id,
                        _ => {
                            let id = self.fresh_id();
                            self.session(&session).run = Some((tag, id.clone()));
                            id
                        }
                    };
                    if let v1::SessionUpdate::UserMessageChunk(c)
                    | v1::SessionUpdate::AgentMessageChunk(c)
                    | v1::SessionUpdate::AgentThoughtChunk(c) = &mut n.update
                    {
                        c.message_id = Nullable::Value(v1::MessageId(super::id(id)));
                    }
                } else {
                    self.session(&session).run = None;
                }
            }
            None => self.session(&session).run = None,
        }
        // Titles of tool calls, for permission requests: recorded once the
        // update converted (a tool call the v2 side never saw lends nothing).
        let title = match &n.update {
            v1::SessionUpdate::ToolCall(t) => Some((t.tool_call_id.as_str().to_owned(), t.title.clone())),
            v1::SessionUpdate::ToolCallUpdate(u) => match &u.title {
                Nullable::Value(t) => Some((u.tool_call_id.as_str().to_owned(), t.clone())),
                _ => None,
            },
            _ => None,
        };
        // A mode change: the whole option list, with the mode option current.
        if let v1::SessionUpdate::CurrentModeUpdate(m) = &n.update {
            let s = self.session(&session);
            let Some(modes) = s.modes.as_mut() else {
                return Err(AdaptError::NotConverted(ConvertError {
                    losses: vec![Loss {
                        pointer: "/params/update".into(),
                        kind: LossKind::Unconvertible,
                        detail: "a mode change in a session whose modes are not known (no session/new or session/load response seen)".into(),
                    }],
                }));
            };
            modes.current_mode_id = m.current_mode_id.clone();
            let (options, why) = config_options_with_modes(&s.options, s.modes.as_ref());
            let mut u = json!({"sessionUpdate": "config_option_update", "configOptions": to_value(&options)});
            if let Nullable::Value(meta) = &m.meta {
                u["_meta"] = Value::Object((**meta).clone());
            }
            // The update's and the notification's other properties go with them.
            for (k, v) in m.additional_properties.iter() {
                if u.get(k).is_none() {
                    u[k.as_str()] = v.clone();
                }
            }
            let mut params = json!({"sessionId": session, "update": u});
            if let Nullable::Value(meta) = &n.meta {
                params["_meta"] = Value::Object((**meta).clone());
            }
            for (k, v) in n.additional_properties.iter() {
                if params.get(k).is_none() {
                    params[k.as_str()] = v.clone();
                }
            }
            let losses = modes_loss(self.strict, "/params/update", why)?;
            return Ok((vec![notification("session/update", params)], losses));
        }
        let (mut u, mut losses) = run(strict, "/params", |cx| {
            let mut out = v2::UpdateSessionNotification::new(
                cx.at("sessionId", |cx| n.session_id.to_v2(cx))?,
                cx.at("update", |cx| n.update.to_v2(cx))?,
            );
            out.meta = n.meta;
            out.additional_properties = cx.extras_for(&out, n.additional_properties)?;
            Ok(out)
        })?;
        if let Some((id, t)) = title {
            self.session(&session).titles.insert(id, t);
        }
        // v2 replaces the whole option list: the session's options, and the modes.
        if let v2::SessionUpdate::ConfigOptionUpdate(c) = &mut u.update {
            let s = self.session(&session);
            s.options = c.config_options.clone();
            let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
            c.config_options = all;
            losses.extend(modes_loss(strict, "/params/update", why)?);
        }
        let m = v2::rpc::Message::Notification {
            notification: v2::rpc::Notification::Client(v2::rpc::NotificationToClient::SessionUpdate(u)),
            form: ParamsForm::Object,
        };
        Ok((vec![m.to_value().unwrap_or(Value::Null)], losses))
    }

    #[allow(unreachable_patterns)]
    fn response(
        &mut self,
        id: v1::RequestId,
        r: v1::rpc::Response,
        form: ParamsForm,
        pending: Pending1,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{Response as A, ResponseFromAgent as AA, ResponseFromClient as AC};
        use v2::rpc::{Response as B, ResponseFromAgent as BA, ResponseFromClient as BC};
        let strict = self.strict;
        let (id2, mut losses) = run(strict, "/id", |cx| id.to_v2(cx))?;
        let mut before = Vec::new();
        let (r, more) = match r {
            A::Agent(AA::SessionPrompt(p)) => {
                // Acknowledged already: the stop reason ends the turn.
                let session = pending.session.unwrap_or_default();
                let mut idle =
                    json!({"sessionUpdate": "state_update", "state": "idle", "stopReason": to_value(&p.stop_reason)});
                if let Nullable::Value(meta) = &p.meta {
                    idle["_meta"] = Value::Object((**meta).clone());
                }
                // Unknown properties go with it (the idle state keeps them).
                for (k, v) in p.additional_properties.iter() {
                    if idle.get(k).is_none() {
                        idle[k.as_str()] = v.clone();
                    }
                }
                {
                    use super::UnstableFields;
                    losses.extend(run(strict, "/result", |cx| p.check_unstable(cx))?.1);
                }
                return Ok((vec![update(&session, idle)], losses));
            }
            A::Agent(AA::SessionNew(p)) => {
                let session = p.session_id.as_str().to_owned();
                let modes = match &p.modes {
                    Nullable::Value(m) => Some(m.clone()),
                    _ => None,
                };
                let (mut out, l) = run(strict, "/result", |cx| {
                    let mut p = p;
                    p.modes = Nullable::Absent;
                    p.to_v2(cx)
                })?;
                let s = self.session(&session);
                s.options = out.config_options.clone().unwrap_or_default();
                s.modes = modes;
                let mut l = l;
                if s.modes.is_some() {
                    let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
                    out.config_options = Some(all);
                    l.extend(modes_loss(strict, "/result/modes", why)?);
                }
                (B::Agent(BA::SessionNew(out)), l)
            }
            A::Agent(AA::SessionLoad(p)) => {
                // A v2 resume response follows a `state_update` snapshot.
                let session = pending.session.unwrap_or_default();
                before.push(update(&session, json!({"sessionUpdate": "state_update", "state": "idle"})));
                let modes = match &p.modes {
                    Nullable::Value(m) => Some(m.clone()),
                    _ => None,
                };
                let (options, l) = run(strict, "/result", |cx| match p.config_options {
                    Nullable::Value(o) => cx.at("configOptions", |cx| o.to_v2(cx)),
                    _ => Ok(Vec::new()),
                })?;
                let s = self.session(&session);
                s.options = options;
                s.modes = modes;
                let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
                let mut l = l;
                l.extend(modes_loss(strict, "/result/modes", why)?);
                let mut r = v2::ResumeSessionResponse::default();
                if !all.is_empty() {
                    r.config_options = Some(all);
                }
                r.meta = p.meta;
                let (unknown, kept) = extras(strict, "/result", &r, p.additional_properties)?;
                r.additional_properties = unknown;
                l.extend(kept);
                (B::Agent(BA::SessionResume(r)), l)
            }
            A::Agent(AA::SessionSetMode(p)) => {
                // The mode asked for is now the current one.
                let session = pending.session.unwrap_or_default();
                let s = self.session(&session);
                if let (Some(m), Some(modes)) = (pending.mode, s.modes.as_mut()) {
                    modes.current_mode_id = m;
                }
                let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
                let mut r = v2::SetSessionConfigOptionResponse::new(all);
                r.meta = p.meta;
                let (unknown, mut l) = extras(strict, "/result", &r, p.additional_properties)?;
                r.additional_properties = unknown;
                l.extend(modes_loss(strict, "/result", why)?);
                (B::Agent(BA::SessionSetConfigOption(r)), l)
            }
            A::Agent(AA::SessionSetConfigOption(p)) => {
                // The whole option list: the session's options, and the modes.
                let session = pending.session.unwrap_or_default();
                let (mut r, l) = conv_at(strict, "/result", p, |p| p)?;
                let s = self.session(&session);
                s.options = r.config_options.clone();
                let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
                r.config_options = all;
                let mut l = l;
                l.extend(modes_loss(strict, "/result", why)?);
                (B::Agent(BA::SessionSetConfigOption(r)), l)
            }
            A::Agent(AA::Initialize(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::Initialize(p)))?,
            A::Agent(AA::Authenticate(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::AuthLogin(p)))?,
            A::Agent(AA::Logout(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::AuthLogout(p)))?,
            A::Agent(AA::SessionList(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::SessionList(p)))?,
            A::Agent(AA::SessionDelete(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::SessionDelete(p)))?,
            A::Agent(AA::SessionResume(mut p)) => {
                let session = pending.session.unwrap_or_default();
                before.push(update(&session, json!({"sessionUpdate": "state_update", "state": "idle"})));
                // Modes become the mode option, as for session/load.
                let modes = match std::mem::take(&mut p.modes) {
                    Nullable::Value(m) => Some(m),
                    _ => None,
                };
                let (mut r, mut l) = conv_at(strict, "/result", p, |p| p)?;
                let s = self.session(&session);
                s.options = r.config_options.clone().unwrap_or_default();
                s.modes = modes;
                if s.modes.is_some() {
                    let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
                    r.config_options = Some(all);
                    l.extend(modes_loss(strict, "/result/modes", why)?);
                }
                (B::Agent(BA::SessionResume(r)), l)
            }
            A::Agent(AA::SessionClose(p)) => conv_at(strict, "/result", p, |p| B::Agent(BA::SessionClose(p)))?,
            A::Client(AC::SessionRequestPermission(p)) => {
                conv_at(strict, "/result", p, |p| B::Client(BC::SessionRequestPermission(p)))?
            }
            A::Client(AC::ElicitationCreate(p)) => {
                conv_at(strict, "/result", p, |p| B::Client(BC::ElicitationCreate(p)))?
            }
            A::Extension(e) => (B::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v2")),
        };
        losses.extend(more);
        let m = v2::rpc::Message::Response { id: id2, response: r, form };
        before.push(m.to_value().unwrap_or(Value::Null));
        Ok((before, losses))
    }
}

fn session_of_v1_request(r: &v1::rpc::Request) -> Option<String> {
    use v1::rpc::{Request as A, RequestToAgent as AA};
    match r {
        A::Agent(AA::SessionPrompt(p)) => Some(p.session_id.as_str().to_owned()),
        A::Agent(AA::SessionLoad(p)) => Some(p.session_id.as_str().to_owned()),
        A::Agent(AA::SessionResume(p)) => Some(p.session_id.as_str().to_owned()),
        A::Agent(AA::SessionSetMode(p)) => Some(p.session_id.as_str().to_owned()),
        A::Agent(AA::SessionSetConfigOption(p)) => Some(p.session_id.as_str().to_owned()),
        _ => None,
    }
}

/// The v2 config options of a session plus the mode option made from v1
/// modes. The second value says why the modes could not be added (no
/// available mode, or the agent has a mode option of its own), for a loss.
fn config_options_with_modes(
    options: &[v2::SessionConfigOption],
    modes: Option<&v1::SessionModeState>,
) -> (Vec<v2::SessionConfigOption>, Option<&'static str>) {
    let mut out: Vec<v2::SessionConfigOption> = options.to_vec();
    let Some(m) = modes else {
        return (out, None);
    };
    if m.available_modes.is_empty() {
        return (out, Some("no available modes: a v2 select option needs at least one value"));
    }
    let has_mode = options.iter().any(|o| {
        o.config_id.as_str() == MODE_CONFIG_ID
            || matches!(o.category, Nullable::Value(v2::SessionConfigOptionCategory::Mode))
    });
    if has_mode {
        return (out, Some("the agent has a mode config option of its own; its v1 modes are not added as another"));
    }
    let values: Vec<Value> = m
        .available_modes
        .iter()
        .map(|mode| {
            let mut o = json!({"value": mode.id.as_str(), "name": mode.name});
            if let Nullable::Value(d) = &mode.description {
                o["description"] = Value::from(d.clone());
            }
            if let Nullable::Value(meta) = &mode.meta {
                o["_meta"] = Value::Object((**meta).clone());
            }
            o
        })
        .collect();
    let mut option = json!({
        "configId": MODE_CONFIG_ID,
        "name": "Mode",
        "category": "mode",
        "type": "select",
        "currentValue": m.current_mode_id.as_str(),
        "options": values,
    });
    if let Nullable::Value(meta) = &m.meta {
        option["_meta"] = Value::Object((**meta).clone());
    }
    match serde_json::from_value(option) {
        Ok(o) => out.push(o),
        Err(_) => return (out, Some("the modes do not make a valid v2 select option")),
    }
    (out, None)
}

/// Records the loss of v1 modes that could not become a v2 option.
fn modes_loss(strict: bool, at: &str, why: Option<&'static str>) -> Result<Vec<Loss>, AdaptError> {
    match why {
        None => Ok(Vec::new()),
        Some(w) => run(strict, at, |cx| cx.dropped(w)).map(|(_, l)| l),
    }
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

fn unconvertible_method(method: &str, target: &str) -> AdaptError {
    AdaptError::NotConverted(ConvertError {
        losses: vec![Loss {
            pointer: "/method".into(),
            kind: LossKind::Unconvertible,
            detail: format!("the method `{method}` has no {target} form"),
        }],
    })
}

fn conv<S: ToV2, T>(strict: bool, p: S, wrap: impl FnOnce(S::V2) -> T) -> Result<(T, Vec<Loss>), AdaptError> {
    conv_at(strict, "/params", p, wrap)
}

fn conv_at<S: ToV2, T>(
    strict: bool,
    base: &str,
    p: S,
    wrap: impl FnOnce(S::V2) -> T,
) -> Result<(T, Vec<Loss>), AdaptError> {
    let (v, l) = run(strict, base, |cx| p.to_v2(cx))?;
    Ok((wrap(v), l))
}

fn conv1<S: ToV1, T>(
    strict: bool,
    base: &str,
    p: S,
    wrap: impl FnOnce(S::V1) -> T,
) -> Result<(T, Vec<Loss>), AdaptError> {
    let (v, l) = run(strict, base, |cx| p.to_v1(cx))?;
    Ok((wrap(v), l))
}

// =====================================================================================
// v2 -> v1
// =====================================================================================

#[derive(Debug, Clone)]
struct Pending2 {
    method: String,
    session: Option<String>,
    /// The session a `session/new` or `session/resume` sets up (known for a
    /// resume from its request): its snapshot `state_update` may come before
    /// the response, and its available commands follow it.
    target: Option<String>,
    /// The request produced no output: its response has none either.
    failed: bool,
}

#[derive(Debug, Default)]
struct Session2 {
    reducer: v2::SessionReducer,
    /// Tool calls the v1 side has seen (a `tool_call` was sent).
    tool_calls: HashSet<String>,
    /// Messages the v1 side has content for.
    seen_messages: HashSet<String>,
    /// The content of each tool call as the v1 side has it (v1 updates carry it whole).
    v1_content: HashMap<String, Vec<v1::ToolCallContent>>,
    /// The held prompt: its request id (JSON) and the acknowledged message id.
    prompt: Option<(Value, Option<String>, Value)>,
}

/// Converts one v2 connection's messages to v1 (see the module docs).
#[derive(Debug, Default)]
pub struct V2ToV1 {
    strict: bool,
    pending: Open<Pending2>,
    sessions: HashMap<String, Session2>,
    /// What the v1 client advertised in `initialize` (`session.notices`, `session.compaction`).
    notices: bool,
    compaction: bool,
}

impl Method for Pending2 {
    fn method(&self) -> &str {
        &self.method
    }
}

impl V2ToV1 {
    /// An adapter that reports losses and goes on.
    pub fn new() -> Self {
        Self::default()
    }

    /// An adapter for which any loss is an error.
    pub fn strict() -> Self {
        V2ToV1 { strict: true, ..Self::default() }
    }

    /// Sets what the v1 client advertised (`session.notices`,
    /// `session.compaction`) when its `initialize` does not pass through this
    /// adapter (a proxy in front of a v1 client). Without it, and until an
    /// `initialize` is converted, notices and compactions are `dropped`.
    pub fn client_capabilities(&mut self, notices: bool, compaction: bool) {
        self.notices = notices;
        self.compaction = compaction;
    }

    fn session(&mut self, id: &str) -> &mut Session2 {
        self.sessions.entry(id.to_owned()).or_default()
    }

    /// Converts one v2 message (JSON text).
    pub fn convert(&mut self, text: &str) -> Result<Adapted, AdaptError> {
        let (msg, side) = self.pending.decode(text, |t, f| v2::rpc::Message::decode(t, |id| f(id_key(id))))?;
        let side = side.unwrap_or_default();
        let strict = self.strict;
        match msg {
            v2::rpc::Message::Request { id, request, form } => {
                let key = id_key(&id);
                let (method, side) = (request.method().to_owned(), request.side());
                let session = session_of_v2_request(&request);
                let target = match &request {
                    v2::rpc::Request::Agent(v2::rpc::RequestToAgent::SessionResume(p)) => {
                        Some(p.session_id.as_str().to_owned())
                    }
                    _ => None,
                };
                let prompt = match &request {
                    v2::rpc::Request::Agent(v2::rpc::RequestToAgent::SessionPrompt(p)) => Some(to_value(&p.prompt)),
                    _ => None,
                };
                let id_json = to_value(&id);
                let r = self.request(id, request, form);
                // A prompt the v1 side received is held until its turn ends.
                if let (Some(content), Some(s), true) = (prompt, &session, r.is_ok()) {
                    self.session(s).prompt = Some((id_json, None, content));
                }
                self.pending.insert(side, key, Pending2 { method, session, target, failed: r.is_err() });
                let (out, losses) = r?;
                Ok(Adapted { messages: out, losses })
            }
            v2::rpc::Message::Notification { notification, form } => {
                let (out, losses) = self.notification(notification, form)?;
                Ok(Adapted { messages: out, losses })
            }
            v2::rpc::Message::Response { id, response, form } => {
                let pending = self.pending.take(&side, &id_key(&id)).expect("decoded against an open request");
                if pending.failed {
                    return Err(unanswered(&pending.method));
                }
                let (out, losses) = self.response(id, response, form, pending)?;
                Ok(Adapted { messages: out, losses })
            }
            v2::rpc::Message::Error { id, error } => {
                if let Some(p) = id.as_ref().and_then(|i| self.pending.take_only(&id_key(i))) {
                    if p.failed {
                        return Err(unanswered(&p.method));
                    }
                    // An error answers a held prompt: its turn is over.
                    if let Some(s) = p.session.as_ref().filter(|_| p.method == "session/prompt") {
                        self.session(s).prompt = None;
                    }
                }
                let ((id, e), losses) = run(strict, "", |cx| {
                    let id = match id {
                        Some(i) => Some(cx.at("id", |cx| i.to_v1(cx))?),
                        None => None,
                    };
                    Ok((id, cx.at("error", |cx| error.to_v1(cx))?))
                })?;
                let m = v1::rpc::Message::Error { id, error: e };
                Ok(Adapted { messages: vec![m.to_value().unwrap_or(Value::Null)], losses })
            }
            #[allow(unreachable_patterns)]
            _ => Err(AdaptError::NotConverted(ConvertError {
                losses: vec![Loss {
                    pointer: String::new(),
                    kind: LossKind::Unconvertible,
                    detail: "unknown message".into(),
                }],
            })),
        }
    }

    #[allow(unreachable_patterns)]
    fn request(
        &mut self,
        id: v2::RequestId,
        request: v2::rpc::Request,
        form: ParamsForm,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{Request as A, RequestToAgent as AA, RequestToClient as AC};
        use v2::rpc::{Request as B, RequestToAgent as BA, RequestToClient as BC};
        let strict = self.strict;
        let (id1, mut losses) = run(strict, "/id", |cx| id.to_v1(cx))?;
        let (req, more) = match request {
            B::Agent(BA::Initialize(p)) => {
                // A v2 client takes notices and compactions without advertising
                // them; its v1 form advertises both, so they pass.
                self.notices = true;
                self.compaction = true;
                let (mut r, l) = run(strict, "/params", |cx| p.to_v1(cx))?;
                let caps = r.client_capabilities.get_or_insert_with(Default::default);
                let mut session = v1::ClientSessionCapabilities::default();
                session.notices = Nullable::Value(v1::NoticeCapabilities::default());
                session.compaction = Nullable::Value(v1::CompactionCapabilities::default());
                // A v2 client takes boolean config options without a capability;
                // the boolean-config-option RFD has a layer that down-converts
                // v2 client capabilities advertise them to v1 by default.
                let mut options = v1::SessionConfigOptionsCapabilities::default();
                options.boolean = Nullable::Value(v1::BooleanConfigOptionCapabilities::default());
                session.config_options = Nullable::Value(options);
                caps.session = Nullable::Value(session);
                (A::Agent(AA::Initialize(r)), l)
            }
            B::Agent(BA::SessionResume(p)) if matches!(p.replay_from, Nullable::Value(v2::ReplayFrom::Start(_))) => {
                // A resume that replays from the start is what session/load does.
                let (r, l) = run(strict, "/params", |cx| {
                    if let Nullable::Value(v2::ReplayFrom::Start(start)) = &p.replay_from {
                        if !start.meta.is_absent() || !start.additional_properties.is_empty() {
                            cx.loss_at(
                                "replayFrom",
                                LossKind::Dropped,
                                "session/load has no place for `replayFrom`'s `_meta` or other properties",
                            )?;
                        }
                    }
                    let mcp = match p.mcp_servers {
                        Some(m) => cx.at("mcpServers", |cx| m.to_v1(cx))?,
                        None => Vec::new(),
                    };
                    let mut r = v1::LoadSessionRequest::new(
                        mcp,
                        String::from(&*p.cwd.0),
                        cx.at("sessionId", |cx| p.session_id.to_v1(cx))?,
                    );
                    r.additional_directories =
                        p.additional_directories.map(|d| d.into_iter().map(|a| String::from(&*a.0)).collect());
                    r.meta = p.meta;
                    r.additional_properties = cx.extras_for(&r, p.additional_properties)?;
                    Ok(r)
                })?;
                (A::Agent(AA::SessionLoad(r)), l)
            }
            B::Agent(BA::AuthLogin(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::Authenticate(p)))?,
            B::Agent(BA::AuthLogout(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::Logout(p)))?,
            B::Agent(BA::SessionNew(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionNew(p)))?,
            B::Agent(BA::SessionList(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionList(p)))?,
            B::Agent(BA::SessionDelete(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionDelete(p)))?,
            B::Agent(BA::SessionResume(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionResume(p)))?,
            B::Agent(BA::SessionClose(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionClose(p)))?,
            B::Agent(BA::SessionSetConfigOption(p)) => {
                conv1(strict, "/params", p, |p| A::Agent(AA::SessionSetConfigOption(p)))?
            }
            B::Agent(BA::SessionPrompt(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionPrompt(p)))?,
            B::Client(BC::SessionRequestPermission(p)) => {
                conv1(strict, "/params", p, |p| A::Client(AC::SessionRequestPermission(p)))?
            }
            B::Client(BC::ElicitationCreate(p)) => {
                conv1(strict, "/params", p, |p| A::Client(AC::ElicitationCreate(p)))?
            }
            B::Extension(e) => (A::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v1")),
        };
        losses.extend(more);
        let m = v1::rpc::Message::Request { id: id1, request: req, form };
        Ok((vec![m.to_value().unwrap_or(Value::Null)], losses))
    }

    #[allow(unreachable_patterns)]
    fn notification(
        &mut self,
        n: v2::rpc::Notification,
        form: ParamsForm,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{
            Notification as A, NotificationToAgent as AA, NotificationToAnySide as AS, NotificationToClient as AC,
        };
        use v2::rpc::{
            Notification as B, NotificationToAgent as BA, NotificationToAnySide as BS, NotificationToClient as BC,
        };
        let strict = self.strict;
        let (n, losses) = match n {
            B::Client(BC::SessionUpdate(n)) => return self.session_update(n),
            B::Agent(BA::SessionCancel(p)) => conv1(strict, "/params", p, |p| A::Agent(AA::SessionCancel(p)))?,
            B::Protocol(BS::CancelRequest(p)) => conv1(strict, "/params", p, |p| A::Protocol(AS::CancelRequest(p)))?,
            B::Client(BC::ElicitationComplete(p)) => {
                conv1(strict, "/params", p, |p| A::Client(AC::ElicitationComplete(p)))?
            }
            B::Extension(e) => (A::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v1")),
        };
        let m = v1::rpc::Message::Notification { notification: n, form };
        Ok((vec![m.to_value().unwrap_or(Value::Null)], losses))
    }

    fn session_update(&mut self, n: v2::UpdateSessionNotification) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        let strict = self.strict;
        let session = n.session_id.as_str().to_owned();
        let (notices, compaction) = (self.notices, self.compaction);
        let wrap = |u: v1::SessionUpdate,
                    sid: &v2::SessionId,
                    meta: &Nullable<Box<crate::runtime::JsonObject>>,
                    extra: &crate::runtime::Extra|
         -> Value {
            let mut out = v1::SessionNotification::new(v1::SessionId(sid.0.clone()), u);
            out.meta = meta.clone();
            out.additional_properties = extra.clone();
            let m = v1::rpc::Message::Notification {
                notification: v1::rpc::Notification::Client(v1::rpc::NotificationToClient::SessionUpdate(out)),
                form: ParamsForm::Object,
            };
            m.to_value().unwrap_or(Value::Null)
        };
        let sid = n.session_id.clone();
        let meta = n.meta.clone();
        let extra = &n.additional_properties.clone();
        match n.update {
            v2::SessionUpdate::StateUpdate(state) => {
                let held = self.sessions.get(&session).is_some_and(|s| s.prompt.is_some());
                // The snapshot v2 requires before the response to session/new
                // or session/resume: v1 says the same by answering, and the
                // spec says it is not a new completion. Nothing to send, no loss.
                let setting_up = self.pending.map.values().any(|p| {
                    !p.failed
                        && (p.method == "session/resume" || p.method == "session/new")
                        && p.target.as_deref().is_none_or(|t| t == session)
                });
                if setting_up && !held {
                    return Ok((Vec::new(), Vec::new()));
                }
                let mut turn_losses = Vec::new();
                // The whole message converts to nothing: its pointer is "".
                let dropped = |what: &str| -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
                    run(strict, "", |cx| cx.dropped(what)).map(|(_, l)| (Vec::new(), l))
                };
                let (stop, turn_meta) = match state {
                    // The v1 client knows its prompt is running: it sent it.
                    v2::StateUpdate::Running(r) if held => {
                        if r.background.is_absent() {
                            return Ok((Vec::new(), Vec::new()));
                        }
                        return run(strict, "/params/update/background", |cx| cx.dropped("v1 has no background work"))
                            .map(|(_, l)| (Vec::new(), l));
                    }
                    v2::StateUpdate::Idle(idle)
                        if held && !matches!(idle.stop_reason, v2::IdleStateUpdateStopReason::None { .. }) =>
                    {
                        if !idle.background.is_absent() {
                            turn_losses.extend(
                                run(strict, "/params/update/background", |cx| cx.dropped("v1 has no background work"))?
                                    .1,
                            );
                        }
                        (idle.stop_reason, idle.meta)
                    }
                    v2::StateUpdate::Idle(_) if held => {
                        return dropped("an idle state without a stop reason does not end a v1 prompt turn")
                    }
                    v2::StateUpdate::Idle(_) | v2::StateUpdate::Running(_) => {
                        return dropped("v1 has no session state outside the response to a prompt")
                    }
                    v2::StateUpdate::RequiresAction(_) => {
                        return dropped(
                            "v1 has no requires_action state (the v1 client sees the request that needs it)",
                        )
                    }
                    #[allow(unreachable_patterns)]
                    _ => return dropped("this session state has no v1 form"),
                };
                // The prompt is released only once its v1 answer is built: a
                // failed conversion leaves it held for a later `idle`.
                let req_id = self.sessions.get(&session).and_then(|s| s.prompt.as_ref()).map(|(r, _, _)| r.clone());
                let Some(req_id) = req_id else {
                    unreachable!("held");
                };
                let out = match stop {
                    v2::IdleStateUpdateStopReason::Error(e) => {
                        let (err, losses) = run(strict, "/params/update", |cx| {
                            if !e.additional_properties.is_empty() {
                                cx.dropped("a v1 error response has no place for the stop reason's other properties")?;
                            }
                            cx.at("error", |cx| match e.error {
                                Nullable::Value(err) => err.to_v1(cx),
                                _ => {
                                    cx.loss(
                                        LossKind::Synthesized,
                                        "a v1 error response needs an error; the turn's `error` stop reason has none",
                                    )?;
                                    Ok(v1::Error::new(
                                        v1::ErrorCode::InternalError,
                                        "the prompt turn ended with an error",
                                    ))
                                }
                            })
                        })?;
                        if !turn_meta.is_absent() {
                            turn_losses.extend(
                                run(strict, "/params/update/_meta", |cx| {
                                    cx.dropped("a v1 error response has no `_meta`")
                                })?
                                .1,
                            );
                        }
                        turn_losses.extend(losses);
                        (json!({"jsonrpc": "2.0", "id": req_id, "error": to_value(&err)}), turn_losses)
                    }
                    v2::IdleStateUpdateStopReason::None { .. } => unreachable!("matched above"),
                    other => {
                        let r: Value = to_value(&other);
                        let reason = r.get("stopReason").cloned().unwrap_or(r);
                        // An unknown v2 stop reason still ends the v1 turn, as `end_turn`.
                        let (reason, losses) = run(strict, "/params/update/stopReason", |cx| {
                            match serde_json::from_value::<v1::StopReason>(reason.clone()) {
                                Ok(r) => Ok(r),
                                Err(_) => {
                                    cx.loss(
                                        LossKind::Approximated,
                                        format!(
                                            "the stop reason {reason} has no v1 form: the v1 turn ends with `end_turn`"
                                        ),
                                    )?;
                                    Ok(v1::StopReason::EndTurn)
                                }
                            }
                        })?;
                        let mut result = json!({"stopReason": to_value(&reason)});
                        if let Nullable::Value(m) = turn_meta {
                            result["_meta"] = Value::Object(*m);
                        }
                        turn_losses.extend(losses);
                        (response(req_id, result), turn_losses)
                    }
                };
                self.session(&session).prompt = None;
                Ok((vec![out.0], out.1))
            }
            v2::SessionUpdate::UserMessage(m) => self.whole_message(
                &sid,
                &meta,
                "user",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                extra,
                wrap,
            ),
            v2::SessionUpdate::AgentMessage(m) => self.whole_message(
                &sid,
                &meta,
                "agent",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                extra,
                wrap,
            ),
            v2::SessionUpdate::AgentThought(m) => self.whole_message(
                &sid,
                &meta,
                "thought",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                extra,
                wrap,
            ),
            v2::SessionUpdate::ToolCallUpdate(mut u) => {
                let key = u.tool_call_id.as_str().to_owned();
                // The first update of a tool call is converted from the state:
                // content items with no v1 form are dropped before the state
                // keeps them, at their pointer in this line. A later update
                // converts itself, which drops such items in place.
                let mut dropped = Vec::new();
                let known = self.sessions.get(&session).is_some_and(|s| s.tool_calls.contains(&key));
                if let (crate::patch::Patch::Set(items), false) = (&mut u.content, known) {
                    keep_convertible(strict, "/params/update/content", items, &mut dropped)?;
                }
                let s = self.session(&session);
                s.reducer.apply(v2::SessionUpdate::ToolCallUpdate(u.clone()));
                if !s.tool_calls.contains(&key) {
                    // The first update of an id: a v1 `tool_call` with the state.
                    let state = s.reducer.tool_calls.get(&u.tool_call_id).cloned().expect("applied");
                    let (t, losses) = run(strict, "/params/update", |cx| {
                        let mut t = tool_call_from_state(state, cx)?;
                        t.additional_properties = cx.extras_for(&t, u.additional_properties)?;
                        Ok(t)
                    })?;
                    s.v1_content.insert(key.clone(), t.content.clone().unwrap_or_default());
                    s.tool_calls.insert(key);
                    dropped.extend(losses);
                    return Ok((vec![wrap(v1::SessionUpdate::ToolCall(t), &sid, &meta, extra)], dropped));
                }
                let (u, losses) = run(strict, "/params/update", |cx| u.to_v1(cx))?;
                if let Nullable::Value(c) = &u.content {
                    s.v1_content.insert(key, c.clone());
                }
                dropped.extend(losses);
                Ok((vec![wrap(v1::SessionUpdate::ToolCallUpdate(u), &sid, &meta, extra)], dropped))
            }
            v2::SessionUpdate::ToolCallContentChunk(c) => {
                let id = c.tool_call_id.clone();
                let key = id.as_str().to_owned();
                let s = self.session(&session);
                s.reducer.apply(v2::SessionUpdate::ToolCallContentChunk(c.clone()));
                if !s.tool_calls.contains(&key) {
                    let state = s.reducer.tool_calls.get(&id).cloned().expect("applied");
                    let (t, losses) = run(strict, "/params/update", |cx| {
                        if !c.meta.is_absent() {
                            cx.loss_at(
                                "_meta",
                                LossKind::Dropped,
                                "a v1 tool call has no place for a content chunk's `_meta`",
                            )?;
                        }
                        let mut t = tool_call_from_state(state, cx)?;
                        t.additional_properties = cx.extras_for(&t, c.additional_properties)?;
                        Ok(t)
                    })?;
                    s.v1_content.insert(key.clone(), t.content.clone().unwrap_or_default());
                    s.tool_calls.insert(key);
                    return Ok((vec![wrap(v1::SessionUpdate::ToolCall(t), &sid, &meta, extra)], losses));
                }
                // v1 replaces content whole: the update carries all of it, the
                // new block converted once and appended to what v1 already has.
                let (block, mut losses) = run(strict, "/params/update/content", |cx| c.content.to_v1(cx))?;
                if !c.meta.is_absent() {
                    losses.extend(
                        run(strict, "/params/update/_meta", |cx| {
                            cx.dropped("a v1 tool-call update has no place for a content chunk's `_meta`")
                        })?
                        .1,
                    );
                }
                let content = s.v1_content.entry(key).or_default();
                content.push(block);
                let mut u = v1::ToolCallUpdate::new(v1::ToolCallId(id.0.clone()));
                u.content = Nullable::Value(content.clone());
                let (unknown, kept) = extras(strict, "/params/update", &u, c.additional_properties)?;
                u.additional_properties = unknown;
                losses.extend(kept);
                Ok((vec![wrap(v1::SessionUpdate::ToolCallUpdate(u), &sid, &meta, extra)], losses))
            }
            update => {
                // Chunks mark their message as seen by the v1 side.
                if let v2::SessionUpdate::UserMessageChunk(c)
                | v2::SessionUpdate::AgentMessageChunk(c)
                | v2::SessionUpdate::AgentThoughtChunk(c) = &update
                {
                    let id = c.message_id.as_str().to_owned();
                    self.session(&session).seen_messages.insert(id);
                }
                let gated = match &update {
                    v2::SessionUpdate::Notice(_) => !notices,
                    v2::SessionUpdate::CompactionUpdate(_) | v2::SessionUpdate::CompactionSummaryChunk(_) => {
                        !compaction
                    }
                    _ => false,
                };
                if gated {
                    let (_, losses) = run(strict, "/params/update", |cx| {
                        cx.dropped("the v1 client did not advertise the capability this update needs")
                    })?;
                    return Ok((Vec::new(), losses));
                }
                let (u, losses) = run(strict, "/params/update", |cx| update.to_v1(cx))?;
                Ok((vec![wrap(u, &sid, &meta, extra)], losses))
            }
        }
    }

    /// A whole-message update as v1 chunks, if the v1 side has no content for it yet.
    fn whole_message(
        &mut self,
        sid: &v2::SessionId,
        meta: &Nullable<Box<crate::runtime::JsonObject>>,
        kind: &str,
        (id, content, has_more): (v2::MessageId, crate::patch::Patch<Vec<v2::ContentBlock>>, bool),
        extra: &crate::runtime::Extra,
        wrap: impl Fn(
            v1::SessionUpdate,
            &v2::SessionId,
            &Nullable<Box<crate::runtime::JsonObject>>,
            &crate::runtime::Extra,
        ) -> Value,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        let strict = self.strict;
        let s = self.session(sid.as_str());
        // The echo of a prompt the v1 client sent itself.
        // It may come before the acknowledgement that names its id: then it is
        // recognised by its content (the prompt as sent) and its id kept.
        let echo = kind == "user"
            && match s.prompt.as_mut() {
                Some((_, Some(m), _)) => m.as_str() == id.as_str(),
                Some((_, m @ None, sent)) => {
                    let same = matches!(&content, crate::patch::Patch::Set(b) if to_value(b) == *sent);
                    if same {
                        *m = Some(id.as_str().to_owned());
                    }
                    same
                }
                None => false,
            };
        if echo {
            s.seen_messages.insert(id.as_str().to_owned());
            return Ok((Vec::new(), Vec::new()));
        }
        let blocks = match content {
            crate::patch::Patch::Set(b) => b,
            crate::patch::Patch::Keep if has_more => {
                let (_, l) = run(strict, "/params/update", |cx| {
                    cx.dropped("v1 message chunks carry no message-level `_meta` or other properties")
                })?;
                return Ok((Vec::new(), l));
            }
            crate::patch::Patch::Keep => return Ok((Vec::new(), Vec::new())),
            _ => {
                let (_, l) =
                    run(strict, "/params/update/content", |cx| cx.dropped("v1 cannot clear a message's content"))?;
                return Ok((Vec::new(), l));
            }
        };
        if !s.seen_messages.insert(id.as_str().to_owned()) {
            let (_, l) = run(strict, "/params/update", |cx| {
                cx.dropped("the v1 client already has content for this message; v1 cannot replace it")
            })?;
            return Ok((Vec::new(), l));
        }
        let mut out = Vec::new();
        let mut losses = Vec::new();
        if has_more {
            let (_, l) = run(strict, "/params/update", |cx| {
                cx.dropped("v1 message chunks carry no message-level `_meta` or other properties")
            })?;
            losses.extend(l);
        }
        for (i, b) in blocks.into_iter().enumerate() {
            let (chunk, l) = run(strict, &format!("/params/update/content/{i}"), |cx| {
                let mut c = v1::ContentChunk::new(b.to_v1(cx)?);
                c.message_id = Nullable::Value(v1::MessageId(id.0.clone()));
                Ok(c)
            })?;
            losses.extend(l);
            let u = match kind {
                "user" => v1::SessionUpdate::UserMessageChunk(chunk),
                "agent" => v1::SessionUpdate::AgentMessageChunk(chunk),
                _ => v1::SessionUpdate::AgentThoughtChunk(chunk),
            };
            out.push(wrap(u, sid, meta, extra));
        }
        Ok((out, losses))
    }

    #[allow(unreachable_patterns)]
    fn response(
        &mut self,
        id: v2::RequestId,
        r: v2::rpc::Response,
        form: ParamsForm,
        pending: Pending2,
    ) -> Result<(Vec<Value>, Vec<Loss>), AdaptError> {
        use v1::rpc::{Response as A, ResponseFromAgent as AA, ResponseFromClient as AC};
        use v2::rpc::{Response as B, ResponseFromAgent as BA, ResponseFromClient as BC};
        let strict = self.strict;
        let (id1, mut losses) = run(strict, "/id", |cx| id.to_v1(cx))?;
        let mut after = Vec::new();
        let (r, more) = match r {
            B::Agent(BA::SessionPrompt(p)) => {
                // Held: the v1 response carries the stop reason, sent when the turn ends.
                let session = pending.session.unwrap_or_default();
                let s = self.session(&session);
                if let Some((_, m, _)) = s.prompt.as_mut() {
                    *m = Some(p.message_id.as_str().to_owned());
                }
                if !p.meta.is_absent() || !p.additional_properties.is_empty() {
                    losses.extend(
                        run(strict, "/result", |cx| {
                            cx.dropped("the v1 prompt response comes from the turn's end: the acknowledgement's `_meta` and other properties have no place")
                        })?
                        .1,
                    );
                }
                return Ok((Vec::new(), losses));
            }
            // A resume that replays from the start went to the v1 side as session/load
            // (only those are recorded with their session).
            B::Agent(BA::SessionResume(mut p)) if pending.session.is_some() => {
                let session = pending.session.clone().unwrap_or_default();
                after.extend(commands_update(strict, &session, p.available_commands.take(), &mut losses)?);
                let (r, l) = run(strict, "/result", |cx| {
                    let mut r = v1::LoadSessionResponse::default();
                    r.config_options = match p.config_options {
                        Some(o) => Nullable::Value(cx.at("configOptions", |cx| o.to_v1(cx))?),
                        None => Nullable::Absent,
                    };
                    r.meta = p.meta;
                    r.additional_properties = cx.extras_for(&r, p.additional_properties)?;
                    Ok(r)
                })?;
                (A::Agent(AA::SessionLoad(r)), l)
            }
            B::Agent(BA::Initialize(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::Initialize(p)))?,
            B::Agent(BA::AuthLogin(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::Authenticate(p)))?,
            B::Agent(BA::AuthLogout(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::Logout(p)))?,
            B::Agent(BA::SessionNew(mut p)) => {
                let session = p.session_id.as_str().to_owned();
                after.extend(commands_update(strict, &session, p.available_commands.take(), &mut losses)?);
                conv1(strict, "/result", p, |p| A::Agent(AA::SessionNew(p)))?
            }
            B::Agent(BA::SessionList(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::SessionList(p)))?,
            B::Agent(BA::SessionDelete(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::SessionDelete(p)))?,
            B::Agent(BA::SessionResume(mut p)) => {
                let session = pending.target.clone().unwrap_or_default();
                after.extend(commands_update(strict, &session, p.available_commands.take(), &mut losses)?);
                conv1(strict, "/result", p, |p| A::Agent(AA::SessionResume(p)))?
            }
            B::Agent(BA::SessionClose(p)) => conv1(strict, "/result", p, |p| A::Agent(AA::SessionClose(p)))?,
            B::Agent(BA::SessionSetConfigOption(p)) => {
                conv1(strict, "/result", p, |p| A::Agent(AA::SessionSetConfigOption(p)))?
            }
            B::Client(BC::SessionRequestPermission(p)) => {
                conv1(strict, "/result", p, |p| A::Client(AC::SessionRequestPermission(p)))?
            }
            B::Client(BC::ElicitationCreate(p)) => {
                conv1(strict, "/result", p, |p| A::Client(AC::ElicitationCreate(p)))?
            }
            B::Extension(e) => (A::Extension(e), Vec::new()),
            other => return Err(unconvertible_method(other.method(), "v1")),
        };
        losses.extend(more);
        let m = v1::rpc::Message::Response { id: id1, response: r, form };
        let mut out = vec![m.to_value().unwrap_or(Value::Null)];
        out.extend(after);
        Ok((out, losses))
    }
}

/// Keeps the items of a v2 list that have a v1 form; each other item is
/// removed and reported as `dropped` at `base/i`, its index in the source line
/// (in strict mode it fails the message).
fn keep_convertible<T: ToV1 + Clone>(
    strict: bool,
    base: &str,
    items: &mut Vec<T>,
    losses: &mut Vec<Loss>,
) -> Result<(), AdaptError> {
    let mut i = 0;
    let mut index = 0;
    while i < items.len() {
        let at = format!("{base}/{index}");
        index += 1;
        match run(strict, &at, |cx| items[i].clone().to_v1(cx)) {
            Ok(_) => i += 1,
            Err(AdaptError::NotConverted(e)) if !strict => {
                let why = e
                    .losses
                    .iter()
                    .find(|l| l.kind == LossKind::Unconvertible)
                    .map_or_else(|| "it has no v1 form".to_owned(), |l| l.detail.clone());
                losses.push(Loss {
                    pointer: at,
                    kind: LossKind::Dropped,
                    detail: format!("left out on its own: {why}"),
                });
                items.remove(i);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The available commands of a v2 `session/new` or `session/resume` result,
/// which v1 carries in an `available_commands_update` notification: sent
/// right after the v1 response (commands with no v1 form dropped on their
/// own, with losses at `/result/availableCommands/N`).
fn commands_update(
    strict: bool,
    session: &str,
    commands: Option<Vec<v2::AvailableCommand>>,
    losses: &mut Vec<Loss>,
) -> Result<Option<Value>, AdaptError> {
    let Some(commands) = commands else { return Ok(None) };
    let (commands, l) = run(strict, "/result/availableCommands", |cx| commands.to_v1(cx))?;
    losses.extend(l);
    let u = v1::SessionUpdate::AvailableCommandsUpdate(v1::AvailableCommandsUpdate::new(commands));
    let n = v1::SessionNotification::new(v1::SessionId(super::id(session.to_owned())), u);
    let m = v1::rpc::Message::Notification {
        notification: v1::rpc::Notification::Client(v1::rpc::NotificationToClient::SessionUpdate(n)),
        form: ParamsForm::Object,
    };
    Ok(Some(m.to_value().unwrap_or(Value::Null)))
}

fn session_of_v2_request(r: &v2::rpc::Request) -> Option<String> {
    use v2::rpc::{Request as B, RequestToAgent as BA};
    match r {
        B::Agent(BA::SessionPrompt(p)) => Some(p.session_id.as_str().to_owned()),
        B::Agent(BA::SessionResume(p)) if matches!(p.replay_from, Nullable::Value(v2::ReplayFrom::Start(_))) => {
            Some(p.session_id.as_str().to_owned())
        }
        _ => None,
    }
}

/// A v1 `tool_call` from the accumulated v2 state of a tool call.
fn tool_call_from_state(t: v2::ToolCall, cx: &mut Cx) -> Result<v1::ToolCall, Fail> {
    let title = match t.title {
        Some(title) => title,
        None => {
            cx.loss_at("title", LossKind::Synthesized, "a v1 tool call needs a title; the v2 tool call has none yet")?;
            t.name.clone().unwrap_or_else(|| "Tool call".to_owned())
        }
    };
    let mut out = v1::ToolCall::new(cx.at("toolCallId", |cx| t.tool_call_id.to_v1(cx))?, title);
    out.name = match t.name {
        Some(n) => Nullable::Value(n),
        None => Nullable::Absent,
    };
    out.kind = Some(cx.at("kind", |cx| t.kind.to_v1(cx))?);
    out.status = Some(cx.at("status", |cx| t.status.to_v1(cx))?);
    if !t.content.is_empty() {
        out.content = Some(cx.at("content", |cx| t.content.to_v1(cx))?);
    }
    if !t.locations.is_empty() {
        out.locations = Some(cx.at("locations", |cx| t.locations.to_v1(cx))?);
    }
    if !t.raw_input.is_null() {
        out.raw_input = Some(t.raw_input);
    }
    if !t.raw_output.is_null() {
        out.raw_output = Some(t.raw_output);
    }
    if t.capabilities.is_some() {
        cx.loss_at("capabilities", LossKind::Dropped, "v1 tool calls have no capabilities")?;
    }
    if let Some(m) = t.meta {
        out.meta = Nullable::Value(m);
    }
    Ok(out)
}

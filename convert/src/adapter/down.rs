//! `V2ToV1`: a v2 connection's messages as v1 (the choices are in the parent module's docs).

use super::*;

mod updates;

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
    /// The accumulated state of tool calls the v1 side has not seen yet
    /// because their first update did not convert (the first it sees is a
    /// `tool_call` with that state).
    unseen_calls: HashMap<v2::ToolCallId, v2::ToolCall>,
    /// Messages the v1 side has content for.
    seen_messages: HashSet<v2::MessageId>,
    /// The last message added to `seen_messages` (a run of chunks is one
    /// message's: its id is not hashed again for each chunk).
    last_seen: Option<v2::MessageId>,
    /// The tool calls the v1 side has seen (a `tool_call` was sent), with
    /// their content as it has it (v1 updates carry the content whole).
    v1_content: HashMap<v2::ToolCallId, Vec<v1::ToolCallContent>>,
    /// The held prompt: its request id, the acknowledged message id and the
    /// prompt as sent (to recognise its echo).
    prompt: Option<(v2::RequestId, Option<String>, Vec<v2::ContentBlock>)>,
}

/// Converts one v2 connection's messages to v1 (see the module docs).
#[derive(Debug, Default)]
pub struct V2ToV1 {
    strict: bool,
    pending: Open<Pending2>,
    sessions: Sessions,
    /// What the v1 client advertised in `initialize` (`session.notices`, `session.compaction`).
    notices: bool,
    compaction: bool,
}

/// The sessions of a connection, by id. The last one used is found without
/// hashing its id: a stream is mostly one session's updates.
#[derive(Debug, Default)]
struct Sessions {
    all: Vec<Session2>,
    index: HashMap<v2::SessionId, usize>,
    last: Option<(v2::SessionId, usize)>,
}

impl Sessions {
    /// The session `id`, made empty if it is new.
    fn get_mut(&mut self, id: &str) -> &mut Session2 {
        if let Some((last, i)) = &self.last {
            if last.as_str() == id {
                return &mut self.all[*i];
            }
        }
        let key = v2::SessionId(id.into());
        let i = match self.index.get(&key) {
            Some(i) => *i,
            None => {
                self.all.push(Session2::default());
                self.index.insert(key.clone(), self.all.len() - 1);
                self.all.len() - 1
            }
        };
        self.last = Some((key, i));
        &mut self.all[i]
    }

    fn get(&self, id: &str) -> Option<&Session2> {
        match &self.last {
            Some((last, i)) if last.as_str() == id => Some(&self.all[*i]),
            _ => self.index.get(&v2::SessionId(id.into())).map(|i| &self.all[*i]),
        }
    }
}

impl Session2 {
    /// The first the v1 side sees of tool call `id`: a v1 `tool_call` with
    /// the state accumulated for it, which is then no longer kept (later
    /// updates convert themselves). `first` records losses of the source
    /// update itself; `unknown` are its unknown properties. A conversion that
    /// fails leaves the state for the next update.
    fn first_tool_call(
        &mut self,
        strict: bool,
        state: v2::ToolCall,
        first: impl FnOnce(&mut Cx) -> Result<(), Fail>,
        unknown: acp_bindings::runtime::Extra,
    ) -> Result<(v1::ToolCall, Vec<Loss>), AdaptError> {
        let id = state.tool_call_id.clone();
        // Outside strict mode a conversion fails only on an unconvertible
        // value outside a list (whose items are dropped on their own): of a
        // tool call's state, its kind and status. They convert before the
        // state is taken apart, so a failure still has the state to keep.
        // In strict mode any loss fails, so the state is copied first.
        let kept = strict.then(|| state.clone());
        let mut slot = Some(state);
        let r = run(strict, "/params/update", |cx| {
            first(cx)?;
            let head = updates::ToolCallHead::of(slot.as_ref().expect("the state is not taken yet"), cx)?;
            let state = slot.take().expect("the state is not taken yet");
            let mut t = updates::tool_call_from_state(state, head, cx)?;
            t.additional_properties = cx.extras_for(&t, unknown)?;
            Ok(t)
        });
        let (t, losses) = match r {
            Ok(r) => r,
            Err(e) => {
                if let Some(state) = kept.or(slot) {
                    self.unseen_calls.insert(id, state);
                }
                return Err(e);
            }
        };
        self.v1_content.insert(id, t.content.clone().unwrap_or_default());
        Ok((t, losses))
    }
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
        self.sessions.get_mut(id)
    }

    fn session_if_known(&self, id: &str) -> Option<&Session2> {
        self.sessions.get(id)
    }

    /// Converts one v2 message (JSON text) to typed v1 messages.
    pub fn convert(&mut self, text: &str) -> Result<Adapted<v1::rpc::Message>, AdaptError> {
        let decode =
            |t: &str, f: &mut dyn FnMut(String) -> Option<String>| v2::rpc::Message::decode(t, |id| f(id_key(id)));
        let mut cands = Vec::new();
        let first = decode(text, &mut |id| self.pending.lookup(id, &mut cands));
        // The stream's bulk goes straight to its conversion: matched in place,
        // the decoded message is not moved through the pairing first (each
        // move of a few hundred freshly written bytes showed in the profile).
        let first = match first {
            Ok(v2::rpc::Message::Notification {
                notification: v2::rpc::Notification::Client(v2::rpc::NotificationToClient::SessionUpdate(n)),
                ..
            }) => {
                let (messages, losses) = self.session_update(n)?;
                return Ok(Adapted { messages, losses });
            }
            first => first,
        };
        let mut side = None;
        let msg = self.pending.pair(text, first, cands, &mut side, decode).map_err(AdaptError::Rejected)?;
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
                    v2::rpc::Request::Agent(v2::rpc::RequestToAgent::SessionPrompt(p)) => Some(p.prompt.clone()),
                    _ => None,
                };
                let held_id = id.clone();
                let r = self.request(id, request, form);
                // A prompt the v1 side received is held until its turn ends.
                if let (Some(content), Some(s), true) = (prompt, &session, r.is_ok()) {
                    self.session(s).prompt = Some((held_id, None, content));
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
                error_response(strict, (id, error), ToV1::to_v1, ToV1::to_v1, |id, error| v1::rpc::Message::Error {
                    id,
                    error,
                })
            }
            #[allow(unreachable_patterns)]
            _ => Err(unknown_message()),
        }
    }

    #[allow(unreachable_patterns)]
    fn request(&mut self, id: v2::RequestId, request: v2::rpc::Request, form: ParamsForm) -> Out<v1::rpc::Message> {
        use v1::rpc::{Request as A, RequestToAgent as AA};
        use v2::rpc::{Request as B, RequestToAgent as BA};
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
            other => methods::request_to_v1(strict, other)?,
        };
        losses.extend(more);
        Ok((vec![v1::rpc::Message::Request { id: id1, request: req, form }], losses))
    }

    #[allow(unreachable_patterns)]
    fn notification(&mut self, n: v2::rpc::Notification, form: ParamsForm) -> Out<v1::rpc::Message> {
        use v2::rpc::{Notification as B, NotificationToClient as BC};
        let strict = self.strict;
        let (n, losses) = match n {
            B::Client(BC::SessionUpdate(n)) => return self.session_update(n),
            other => methods::notification_to_v1(strict, other)?,
        };
        Ok((vec![v1::rpc::Message::Notification { notification: n, form }], losses))
    }

    #[allow(unreachable_patterns)]
    fn response(
        &mut self,
        id: v2::RequestId,
        r: v2::rpc::Response,
        form: ParamsForm,
        pending: Pending2,
    ) -> Out<v1::rpc::Message> {
        use v1::rpc::{Response as A, ResponseFromAgent as AA};
        use v2::rpc::{Response as B, ResponseFromAgent as BA};
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
            B::Agent(BA::SessionNew(mut p)) => {
                let session = p.session_id.as_str().to_owned();
                after.extend(commands_update(strict, &session, p.available_commands.take(), &mut losses)?);
                methods::response_to_v1(strict, B::Agent(BA::SessionNew(p)))?
            }
            B::Agent(BA::SessionResume(mut p)) => {
                let session = pending.target.clone().unwrap_or_default();
                after.extend(commands_update(strict, &session, p.available_commands.take(), &mut losses)?);
                methods::response_to_v1(strict, B::Agent(BA::SessionResume(p)))?
            }
            other => methods::response_to_v1(strict, other)?,
        };
        losses.extend(more);
        let mut out = vec![v1::rpc::Message::Response { id: id1, response: r, form }];
        out.extend(after);
        Ok((out, losses))
    }
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
) -> Result<Option<v1::rpc::Message>, AdaptError> {
    let Some(commands) = commands else { return Ok(None) };
    let (commands, l) = run(strict, "/result/availableCommands", |cx| commands.to_v1(cx))?;
    losses.extend(l);
    let u = v1::SessionUpdate::AvailableCommandsUpdate(v1::AvailableCommandsUpdate::new(commands));
    let n = v1::SessionNotification::new(v1::SessionId(crate::id(session.to_owned())), u);
    Ok(Some(notification(n)))
}

/// A `session/update` notification.
#[inline]
fn notification(n: v1::SessionNotification) -> v1::rpc::Message {
    v1::rpc::Message::Notification {
        notification: v1::rpc::Notification::Client(v1::rpc::NotificationToClient::SessionUpdate(n)),
        form: ParamsForm::Object,
    }
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

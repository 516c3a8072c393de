//! `V2ToV1`: a v2 connection's messages as v1 (the choices are in the parent module's docs).

use super::*;

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
        unknown: crate::runtime::Extra,
    ) -> Result<(v1::ToolCall, Vec<Loss>), AdaptError> {
        let id = state.tool_call_id.clone();
        let kept = state.clone();
        let r = run(strict, "/params/update", |cx| {
            first(cx)?;
            let mut t = tool_call_from_state(state, cx)?;
            t.additional_properties = cx.extras_for(&t, unknown)?;
            Ok(t)
        });
        let (t, losses) = match r {
            Ok(r) => r,
            Err(e) => {
                self.unseen_calls.insert(id, kept);
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
        let mut side = None;
        let msg = self.pending.decode(text, &mut side, |t, f| v2::rpc::Message::decode(t, |id| f(id_key(id))))?;
        let side = side.unwrap_or_default();
        let strict = self.strict;
        match msg {
            // The stream's bulk, straight to its conversion.
            v2::rpc::Message::Notification {
                notification: v2::rpc::Notification::Client(v2::rpc::NotificationToClient::SessionUpdate(n)),
                ..
            } => {
                let (out, losses) = self.session_update(n)?;
                Ok(Adapted { messages: out, losses })
            }
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
                let ((id, e), losses) = run(strict, "", |cx| {
                    let id = match id {
                        Some(i) => Some(cx.at("id", |cx| i.to_v1(cx))?),
                        None => None,
                    };
                    Ok((id, cx.at("error", |cx| error.to_v1(cx))?))
                })?;
                Ok(Adapted { messages: vec![v1::rpc::Message::Error { id, error: e }], losses })
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
    fn request(&mut self, id: v2::RequestId, request: v2::rpc::Request, form: ParamsForm) -> Out<v1::rpc::Message> {
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
        Ok((vec![v1::rpc::Message::Request { id: id1, request: req, form }], losses))
    }

    #[allow(unreachable_patterns)]
    fn notification(&mut self, n: v2::rpc::Notification, form: ParamsForm) -> Out<v1::rpc::Message> {
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
        Ok((vec![v1::rpc::Message::Notification { notification: n, form }], losses))
    }

    fn session_update(&mut self, n: v2::UpdateSessionNotification) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let (notices, compaction) = (self.notices, self.compaction);
        let wrap = |u: v1::SessionUpdate,
                    sid: &v2::SessionId,
                    meta: &Nullable<Box<crate::runtime::JsonObject>>,
                    extra: &crate::runtime::Extra|
         -> v1::rpc::Message {
            let mut out = v1::SessionNotification::new(v1::SessionId(sid.0.clone()), u);
            if !meta.is_absent() {
                out.meta = meta.clone();
            }
            if !extra.is_empty() {
                out.additional_properties = extra.clone();
            }
            notification(out)
        };
        let v2::UpdateSessionNotification { session_id: sid, update, meta, additional_properties: extra, .. } = n;
        let session = sid.as_str();
        match update {
            v2::SessionUpdate::StateUpdate(state) => {
                let held = self.session_if_known(session).is_some_and(|s| s.prompt.is_some());
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
                let dropped = |what: &str| -> Out<v1::rpc::Message> {
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
                let req_id = self.session_if_known(session).and_then(|s| s.prompt.as_ref()).map(|(r, _, _)| r.clone());
                let Some(req_id) = req_id else {
                    unreachable!("held");
                };
                // The prompt's id was converted when the request was.
                let req_id = run(strict, "", |cx| req_id.to_v1(cx))?.0;
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
                        (v1::rpc::Message::Error { id: Some(req_id), error: err }, turn_losses)
                    }
                    v2::IdleStateUpdateStopReason::None { .. } => unreachable!("matched above"),
                    other => {
                        use v2::IdleStateUpdateStopReason as B;
                        // An unknown v2 stop reason still ends the v1 turn, as `end_turn`.
                        let (reason, losses) = run(strict, "/params/update/stopReason", |cx| {
                            Ok(match other {
                                B::EndTurn => v1::StopReason::EndTurn,
                                B::MaxTokens => v1::StopReason::MaxTokens,
                                B::MaxTurnRequests => v1::StopReason::MaxTurnRequests,
                                B::Refusal => v1::StopReason::Refusal,
                                B::Cancelled => v1::StopReason::Cancelled,
                                other => {
                                    let name = serde_json::to_value(&other)
                                        .ok()
                                        .and_then(|v| v.get("stopReason").cloned())
                                        .unwrap_or_default();
                                    cx.loss(
                                        LossKind::Approximated,
                                        format!(
                                            "the stop reason {name} has no v1 form: the v1 turn ends with `end_turn`"
                                        ),
                                    )?;
                                    v1::StopReason::EndTurn
                                }
                            })
                        })?;
                        let mut result = v1::PromptResponse::new(reason);
                        result.meta = turn_meta;
                        turn_losses.extend(losses);
                        let response = v1::rpc::Response::Agent(v1::rpc::ResponseFromAgent::SessionPrompt(result));
                        (v1::rpc::Message::Response { id: req_id, response, form: ParamsForm::Object }, turn_losses)
                    }
                };
                self.session(session).prompt = None;
                Ok((vec![out.0], out.1))
            }
            v2::SessionUpdate::UserMessage(m) => self.whole_message(
                &sid,
                &meta,
                "user",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                &extra,
                wrap,
            ),
            v2::SessionUpdate::AgentMessage(m) => self.whole_message(
                &sid,
                &meta,
                "agent",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                &extra,
                wrap,
            ),
            v2::SessionUpdate::AgentThought(m) => self.whole_message(
                &sid,
                &meta,
                "thought",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                &extra,
                wrap,
            ),
            v2::SessionUpdate::ToolCallUpdate(mut u) => {
                let s = self.session(session);
                if let Some(content) = s.v1_content.get_mut(&u.tool_call_id) {
                    // The v1 side has the tool call: the update converts
                    // itself (items with no v1 form are dropped in place).
                    let (u, losses) = run(strict, "/params/update", |cx| u.to_v1(cx))?;
                    if let Nullable::Value(c) = &u.content {
                        content.clone_from(c);
                    }
                    return Ok((vec![wrap(v1::SessionUpdate::ToolCallUpdate(u), &sid, &meta, &extra)], losses));
                }
                // The first update the v1 side sees: content items with no v1
                // form are dropped before the state keeps them, at their
                // pointer in this line.
                let mut losses = Vec::new();
                if let crate::patch::Patch::Set(items) = &mut u.content {
                    keep_convertible(strict, "/params/update/content", items, &mut losses)?;
                }
                let unknown = std::mem::take(&mut u.additional_properties);
                let state = match s.unseen_calls.remove(&u.tool_call_id) {
                    Some(mut state) => {
                        crate::patch::Patchable::apply(&mut state, u);
                        state
                    }
                    None => crate::patch::Patchable::from_patch(u),
                };
                let (t, l) = s.first_tool_call(strict, state, |_| Ok(()), unknown)?;
                losses.extend(l);
                Ok((vec![wrap(v1::SessionUpdate::ToolCall(t), &sid, &meta, &extra)], losses))
            }
            v2::SessionUpdate::ToolCallContentChunk(mut c) => {
                let s = self.session(session);
                let chunk_meta = !c.meta.is_absent();
                let Some(content) = s.v1_content.get_mut(&c.tool_call_id) else {
                    // The first the v1 side sees of the tool call.
                    let unknown = std::mem::take(&mut c.additional_properties);
                    let id = c.tool_call_id;
                    let mut state = s
                        .unseen_calls
                        .remove(&id)
                        .unwrap_or_else(|| crate::patch::Patchable::from_patch(v2::ToolCallUpdate::new(id)));
                    state.content.push(c.content);
                    let (t, losses) = s.first_tool_call(
                        strict,
                        state,
                        |cx| match chunk_meta {
                            true => cx.loss_at(
                                "_meta",
                                LossKind::Dropped,
                                "a v1 tool call has no place for a content chunk's `_meta`",
                            ),
                            false => Ok(()),
                        },
                        unknown,
                    )?;
                    return Ok((vec![wrap(v1::SessionUpdate::ToolCall(t), &sid, &meta, &extra)], losses));
                };
                // v1 replaces content whole: the update carries all of it, the
                // new block converted once and appended to what v1 already has.
                let (block, mut losses) = run(strict, "/params/update/content", |cx| c.content.to_v1(cx))?;
                if chunk_meta {
                    losses.extend(
                        run(strict, "/params/update/_meta", |cx| {
                            cx.dropped("a v1 tool-call update has no place for a content chunk's `_meta`")
                        })?
                        .1,
                    );
                }
                content.push(block);
                let mut u = v1::ToolCallUpdate::new(v1::ToolCallId(c.tool_call_id.0));
                u.content = Nullable::Value(content.clone());
                let (unknown, kept) = extras(strict, "/params/update", &u, c.additional_properties)?;
                u.additional_properties = unknown;
                losses.extend(kept);
                Ok((vec![wrap(v1::SessionUpdate::ToolCallUpdate(u), &sid, &meta, &extra)], losses))
            }
            update => {
                // Chunks mark their message as seen by the v1 side.
                if let v2::SessionUpdate::UserMessageChunk(c)
                | v2::SessionUpdate::AgentMessageChunk(c)
                | v2::SessionUpdate::AgentThoughtChunk(c) = &update
                {
                    let s = self.session(session);
                    if s.last_seen.as_ref() != Some(&c.message_id) {
                        s.seen_messages.insert(c.message_id.clone());
                        s.last_seen = Some(c.message_id.clone());
                    }
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
                Ok((vec![wrap(u, &sid, &meta, &extra)], losses))
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
        ) -> v1::rpc::Message,
    ) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let s = self.session(sid.as_str());
        // The echo of a prompt the v1 client sent itself.
        // It may come before the acknowledgement that names its id: then it is
        // recognised by its content (the prompt as sent) and its id kept.
        let echo = kind == "user"
            && match s.prompt.as_mut() {
                Some((_, Some(m), _)) => m.as_str() == id.as_str(),
                Some((_, m @ None, sent)) => {
                    let same = matches!(&content, crate::patch::Patch::Set(b) if b == sent);
                    if same {
                        *m = Some(id.as_str().to_owned());
                    }
                    same
                }
                None => false,
            };
        if echo {
            s.seen_messages.insert(id.clone());
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
        if !s.seen_messages.insert(id.clone()) {
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
            let (chunk, l) = run(strict, format!("/params/update/content/{i}"), |cx| {
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
    ) -> Out<v1::rpc::Message> {
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
        let mut out = vec![v1::rpc::Message::Response { id: id1, response: r, form }];
        out.extend(after);
        Ok((out, losses))
    }
}

/// Keeps the items of a v2 list that have a v1 form; each other item is
/// removed and reported as `dropped` at `base/i`, its index in the source line
/// (in strict mode it fails the message).
fn keep_convertible<T: ToV1 + Clone>(
    strict: bool,
    base: &'static str,
    items: &mut Vec<T>,
    losses: &mut Vec<Loss>,
) -> Result<(), AdaptError> {
    // `Cx::or_drop` decides and words the loss, as it does for every list.
    let (keep, found) = run(strict, base, |cx| {
        let mut keep = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            cx.enter_index(i);
            let r = cx.or_drop(|cx| item.clone().to_v1(cx).map(drop));
            cx.leave();
            keep.push(r?.is_some());
        }
        Ok(keep)
    })?;
    // Only the drops: a kept item reports its own losses when it converts.
    let dropped: Vec<String> =
        keep.iter().enumerate().filter(|(_, k)| !**k).map(|(i, _)| format!("{base}/{i}")).collect();
    losses.extend(found.into_iter().filter(|l| l.kind == LossKind::Dropped && dropped.contains(&l.pointer)));
    let mut keep = keep.into_iter();
    items.retain(|_| keep.next().unwrap_or(true));
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
) -> Result<Option<v1::rpc::Message>, AdaptError> {
    let Some(commands) = commands else { return Ok(None) };
    let (commands, l) = run(strict, "/result/availableCommands", |cx| commands.to_v1(cx))?;
    losses.extend(l);
    let u = v1::SessionUpdate::AvailableCommandsUpdate(v1::AvailableCommandsUpdate::new(commands));
    let n = v1::SessionNotification::new(v1::SessionId(crate::convert::id(session.to_owned())), u);
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

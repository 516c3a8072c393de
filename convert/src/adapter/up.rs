//! `V1ToV2`: a v1 connection's messages as v2 (the choices are in the parent module's docs).

use super::*;

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

    /// Converts one v1 message (JSON text) to typed v2 messages.
    pub fn convert(&mut self, text: &str) -> Result<Adapted<v2::rpc::Message>, AdaptError> {
        let mut side = None;
        let msg = self
            .pending
            .decode(text, &mut side, |t, f| v1::rpc::Message::decode(t, |id| f(id_key(id))))
            .map_err(AdaptError::Rejected)?;
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
                    let idle = v2::IdleStateUpdate::new(v2::IdleStateUpdateStopReason::Error(
                        v2::ErrorStopReason::new().error(e),
                    ));
                    let m = update(&session, v2::SessionUpdate::StateUpdate(v2::StateUpdate::Idle(idle)));
                    return Ok(Adapted { messages: vec![m], losses });
                }
                error_response(strict, (id, error), ToV2::to_v2, ToV2::to_v2, |id, error| v2::rpc::Message::Error {
                    id,
                    error,
                })
            }
            #[allow(unreachable_patterns)]
            _ => Err(unknown_message()),
        }
    }

    #[allow(unreachable_patterns)]
    fn request(&mut self, id: v1::RequestId, request: v1::rpc::Request, form: ParamsForm) -> Out<v2::rpc::Message> {
        use v1::rpc::{Request as A, RequestToAgent as AA, RequestToClient as AC};
        use v2::rpc::{Request as B, RequestToAgent as BA, RequestToClient as BC};
        let strict = self.strict;
        let (id2, mut losses) = run(strict, "/id", |cx| id.to_v2(cx))?;
        let mut after = Vec::new();
        let (req, more) = match request {
            A::Agent(AA::SessionPrompt(p)) => {
                let session = p.session_id.as_str().to_owned();
                let (p, l) = run(strict, "/params", |cx| p.to_v2(cx))?;
                // The acknowledgement, the echo of the (converted) prompt, and `running`.
                let message_id = v2::MessageId(crate::id(self.fresh_id()));
                after.push(v2::rpc::Message::Response {
                    id: id2.clone(),
                    response: v2::rpc::Response::Agent(v2::rpc::ResponseFromAgent::SessionPrompt(
                        v2::PromptResponse::new(message_id.clone()),
                    )),
                    form: ParamsForm::Object,
                });
                let echo = v2::UserMessage::new(message_id).content(p.prompt.clone());
                after.push(update(&session, v2::SessionUpdate::UserMessage(echo)));
                let running = v2::StateUpdate::Running(v2::RunningStateUpdate::new());
                after.push(update(&session, v2::SessionUpdate::StateUpdate(running)));
                self.session(&session).run = None;
                (B::Agent(BA::SessionPrompt(p)), l)
            }
            A::Agent(AA::SessionLoad(p)) => {
                let (p, l) = run(strict, "/params", |cx| {
                    let mut r = v2::ResumeSessionRequest::new(
                        cx.at("sessionId", |cx| p.session_id.to_v2(cx))?,
                        v2::AbsolutePath(crate::id(p.cwd)),
                    );
                    r.additional_directories = p
                        .additional_directories
                        .map(|d| d.into_iter().map(|s| v2::AbsolutePath(crate::id(s))).collect());
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
                    let mut r: v2::SetSessionConfigOptionRequest = crate::redecode(cx, value, "the mode")?;
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
                        s.tool_call.title = acp_bindings::patch::Patch::Keep;
                    }
                }
                (B::Client(BC::SessionRequestPermission(r)), l)
            }
            other => methods::request_to_v2(strict, other)?,
        };
        losses.extend(more);
        let mut out = vec![v2::rpc::Message::Request { id: id2, request: req, form }];
        out.extend(after);
        Ok((out, losses))
    }

    fn session(&mut self, id: &str) -> &mut Session1 {
        self.sessions.entry(id.to_owned()).or_default()
    }

    #[allow(unreachable_patterns)]
    fn notification(&mut self, n: v1::rpc::Notification, form: ParamsForm) -> Out<v2::rpc::Message> {
        use v1::rpc::{Notification as A, NotificationToClient as AC};
        let strict = self.strict;
        let (n, losses) = match n {
            A::Client(AC::SessionUpdate(n)) => return self.session_update(n),
            other => methods::notification_to_v2(strict, other)?,
        };
        Ok((vec![v2::rpc::Message::Notification { notification: n, form }], losses))
    }

    /// The message id of a chunk without one: one per run of chunks of a
    /// type (any other update ends the run).
    fn chunk_message_id(&mut self, session: &str, update: &mut v1::SessionUpdate) {
        let chunk_tag = match &*update {
            v1::SessionUpdate::UserMessageChunk(_) => Some("user_message_chunk"),
            v1::SessionUpdate::AgentMessageChunk(_) => Some("agent_message_chunk"),
            v1::SessionUpdate::AgentThoughtChunk(_) => Some("agent_thought_chunk"),
            _ => None,
        };
        match chunk_tag {
            Some(tag) => {
                let needs = match &*update {
                    v1::SessionUpdate::UserMessageChunk(c)
                    | v1::SessionUpdate::AgentMessageChunk(c)
                    | v1::SessionUpdate::AgentThoughtChunk(c) => !matches!(c.message_id, Nullable::Value(_)),
                    _ => false,
                };
                if needs {
                    let current = self.sessions.get(session).and_then(|s| s.run.clone());
                    let id = match current {
                        Some((t, id)) if t == tag => id,
                        _ => {
                            let id = self.fresh_id();
                            self.session(session).run = Some((tag, id.clone()));
                            id
                        }
                    };
                    if let v1::SessionUpdate::UserMessageChunk(c)
                    | v1::SessionUpdate::AgentMessageChunk(c)
                    | v1::SessionUpdate::AgentThoughtChunk(c) = update
                    {
                        c.message_id = Nullable::Value(v1::MessageId(crate::id(id)));
                    }
                } else {
                    self.session(session).run = None;
                }
            }
            None => self.session(session).run = None,
        }
    }

    fn session_update(&mut self, n: v1::SessionNotification) -> Out<v2::rpc::Message> {
        let strict = self.strict;
        let session = n.session_id.as_str().to_owned();
        let mut n = n;
        self.chunk_message_id(&session, &mut n.update);
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
            // The update's and the notification's `_meta` and other properties go with them.
            let m = m.clone();
            let (out, mut losses) = run(strict, "/params", |cx| {
                let mut u = v2::ConfigOptionUpdate::new(options);
                u.meta = m.meta;
                u.additional_properties = cx.at("update", |cx| cx.extras_for(&u, m.additional_properties))?;
                let sid = cx.at("sessionId", |cx| n.session_id.to_v2(cx))?;
                let mut out = v2::UpdateSessionNotification::new(sid, v2::SessionUpdate::ConfigOptionUpdate(u));
                out.meta = n.meta;
                out.additional_properties = cx.extras_for(&out, n.additional_properties)?;
                Ok(out)
            })?;
            losses.extend(modes_loss(strict, "/params/update", why)?);
            return Ok((vec![notification(out)], losses));
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
        Ok((vec![notification(u)], losses))
    }

    /// A v1 `session/new` response: the modes become the mode option.
    fn new_session_response(
        &mut self,
        p: v1::NewSessionResponse,
    ) -> Result<(v2::rpc::Response, Vec<Loss>), AdaptError> {
        let strict = self.strict;
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
        Ok((v2::rpc::Response::Agent(v2::rpc::ResponseFromAgent::SessionNew(out)), l))
    }

    /// A v1 `session/load` response as a v2 resume response (the modes
    /// become the mode option).
    fn load_response(
        &mut self,
        session: &str,
        p: v1::LoadSessionResponse,
    ) -> Result<(v2::rpc::Response, Vec<Loss>), AdaptError> {
        let strict = self.strict;
        let modes = match &p.modes {
            Nullable::Value(m) => Some(m.clone()),
            _ => None,
        };
        let (options, l) = run(strict, "/result", |cx| match p.config_options {
            Nullable::Value(o) => cx.at("configOptions", |cx| o.to_v2(cx)),
            _ => Ok(Vec::new()),
        })?;
        let s = self.session(session);
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
        Ok((v2::rpc::Response::Agent(v2::rpc::ResponseFromAgent::SessionResume(r)), l))
    }

    /// A v1 `session/resume` response: the modes become the mode option, as for session/load.
    fn resume_response(
        &mut self,
        session: &str,
        mut p: v1::ResumeSessionResponse,
    ) -> Result<(v2::rpc::Response, Vec<Loss>), AdaptError> {
        let strict = self.strict;
        let modes = match std::mem::take(&mut p.modes) {
            Nullable::Value(m) => Some(m),
            _ => None,
        };
        let (mut r, mut l) = conv_at(strict, "/result", p, |p| p)?;
        let s = self.session(session);
        s.options = r.config_options.clone().unwrap_or_default();
        s.modes = modes;
        if s.modes.is_some() {
            let (all, why) = config_options_with_modes(&s.options, s.modes.as_ref());
            r.config_options = Some(all);
            l.extend(modes_loss(strict, "/result/modes", why)?);
        }
        Ok((v2::rpc::Response::Agent(v2::rpc::ResponseFromAgent::SessionResume(r)), l))
    }

    #[allow(unreachable_patterns)]
    fn response(
        &mut self,
        id: v1::RequestId,
        r: v1::rpc::Response,
        form: ParamsForm,
        pending: Pending1,
    ) -> Out<v2::rpc::Message> {
        use v1::rpc::{Response as A, ResponseFromAgent as AA};
        use v2::rpc::{Response as B, ResponseFromAgent as BA};
        let strict = self.strict;
        let (id2, mut losses) = run(strict, "/id", |cx| id.to_v2(cx))?;
        let mut before = Vec::new();
        let (r, more) = match r {
            A::Agent(AA::SessionPrompt(p)) => {
                // Acknowledged already: the stop reason ends the turn.
                let session = pending.session.unwrap_or_default();
                let (m, l) = prompt_end(strict, &session, p)?;
                losses.extend(l);
                return Ok((vec![m], losses));
            }
            A::Agent(AA::SessionNew(p)) => self.new_session_response(p)?,
            A::Agent(AA::SessionLoad(p)) => {
                // A v2 resume response follows a `state_update` snapshot.
                let session = pending.session.unwrap_or_default();
                before.push(snapshot(&session));
                self.load_response(&session, p)?
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
            A::Agent(AA::SessionResume(p)) => {
                let session = pending.session.unwrap_or_default();
                before.push(snapshot(&session));
                self.resume_response(&session, p)?
            }
            other => methods::response_to_v2(strict, other)?,
        };
        losses.extend(more);
        before.push(v2::rpc::Message::Response { id: id2, response: r, form });
        Ok((before, losses))
    }
}

/// The end of a v1 prompt turn (its response) as a v2 `idle` state update.
fn prompt_end(strict: bool, session: &str, p: v1::PromptResponse) -> Result<(v2::rpc::Message, Vec<Loss>), AdaptError> {
    let mut losses = {
        use crate::UnstableFields;
        run(strict, "/result", |cx| p.check_unstable(cx))?.1
    };
    let (idle, l) = run(strict, "/result", |cx| {
        let mut idle = v2::IdleStateUpdate::new(stop_reason(&p.stop_reason));
        idle.meta = p.meta;
        // A v2 idle state keeps no unknown properties.
        for (key, _) in p.additional_properties.iter() {
            cx.enter_owned(key.clone());
            let r = cx.dropped("a v2 idle state update has no place for other properties");
            cx.leave();
            r?;
        }
        Ok(idle)
    })?;
    losses.extend(l);
    let m = update(session, v2::SessionUpdate::StateUpdate(v2::StateUpdate::Idle(idle)));
    Ok((m, losses))
}

/// A `session/update` notification.
fn notification(n: v2::UpdateSessionNotification) -> v2::rpc::Message {
    v2::rpc::Message::Notification {
        notification: v2::rpc::Notification::Client(v2::rpc::NotificationToClient::SessionUpdate(n)),
        form: ParamsForm::Object,
    }
}

/// A `session/update` notification of `session` carrying `u`.
fn update(session: &str, u: v2::SessionUpdate) -> v2::rpc::Message {
    notification(v2::UpdateSessionNotification::new(v2::SessionId(crate::id(session.to_owned())), u))
}

/// The `state_update` snapshot (`idle`, no stop reason) v2 sends before a
/// `session/resume` response.
fn snapshot(session: &str) -> v2::rpc::Message {
    let idle = v2::IdleStateUpdate::new(v2::IdleStateUpdateStopReason::None { explicit_null: false });
    update(session, v2::SessionUpdate::StateUpdate(v2::StateUpdate::Idle(idle)))
}

/// A v1 stop reason as the stop reason of a v2 idle state (v1's are all v2's).
fn stop_reason(r: &v1::StopReason) -> v2::IdleStateUpdateStopReason {
    use v2::IdleStateUpdateStopReason as B;
    match r {
        v1::StopReason::EndTurn => B::EndTurn,
        v1::StopReason::MaxTokens => B::MaxTokens,
        v1::StopReason::MaxTurnRequests => B::MaxTurnRequests,
        v1::StopReason::Refusal => B::Refusal,
        v1::StopReason::Cancelled => B::Cancelled,
        // `v1::StopReason` is closed, and this crate is built with the
        // bindings' own features (`lib.rs` asserts it): no other value exists.
        _ => unreachable!("a v1 stop reason these conversions were not built for"),
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
    let values: Vec<serde_json::Value> = m
        .available_modes
        .iter()
        .map(|mode| {
            let mut o = json!({"value": mode.id.as_str(), "name": mode.name});
            if let Nullable::Value(d) = &mode.description {
                o["description"] = serde_json::Value::from(d.clone());
            }
            if let Nullable::Value(meta) = &mode.meta {
                o["_meta"] = serde_json::Value::Object((**meta).clone());
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
        option["_meta"] = serde_json::Value::Object((**meta).clone());
    }
    match serde_json::from_value(option) {
        Ok(o) => out.push(o),
        Err(_) => return (out, Some("the modes do not make a valid v2 select option")),
    }
    (out, None)
}

/// Records the loss of v1 modes that could not become a v2 option.
fn modes_loss(strict: bool, at: &'static str, why: Option<&'static str>) -> Result<Vec<Loss>, AdaptError> {
    match why {
        None => Ok(Vec::new()),
        Some(w) => run(strict, at, |cx| cx.dropped(w)).map(|(_, l)| l),
    }
}

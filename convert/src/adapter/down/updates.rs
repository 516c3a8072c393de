//! `V2ToV1`'s `session/update` handling: the prompt turn's end, whole messages
//! as chunks, tool calls from their accumulated state, and the updates that
//! convert on their own.

use super::*;

/// The parts of a `session/update` notification every v1 notification made
/// from it carries: the session id, the `_meta` and the unknown properties.
/// They move into the last notification made from it ([`Envelope::wrap`]);
/// only a message that becomes several copies them ([`Envelope::wrap_copy`]).
struct Envelope {
    sid: v2::SessionId,
    meta: Nullable<Box<acp_bindings::runtime::JsonObject>>,
    extra: acp_bindings::runtime::Extra,
}

impl Envelope {
    /// The v1 `session/update` notification carrying `u`, the last one made
    /// from this envelope.
    #[inline]
    fn wrap(self, u: v1::SessionUpdate) -> v1::rpc::Message {
        let mut out = v1::SessionNotification::new(v1::SessionId(self.sid.0), u);
        out.meta = self.meta;
        out.additional_properties = self.extra;
        notification(out)
    }

    /// A v1 `session/update` notification carrying `u`, when more follow.
    fn wrap_copy(&self, u: v1::SessionUpdate) -> v1::rpc::Message {
        Envelope { sid: self.sid.clone(), meta: self.meta.clone(), extra: self.extra.clone() }.wrap(u)
    }
}

impl V2ToV1 {
    pub(super) fn session_update(&mut self, n: v2::UpdateSessionNotification) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let (notices, compaction) = (self.notices, self.compaction);
        // Fields moved out one by one and the update matched in place: a
        // destructuring `let` copied the whole update first.
        let env = Envelope { sid: n.session_id, meta: n.meta, extra: n.additional_properties };
        match n.update {
            v2::SessionUpdate::StateUpdate(state) => self.state_update(state, env.sid.as_str()),
            v2::SessionUpdate::UserMessage(m) => self.whole_message(
                "user",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                env,
            ),
            v2::SessionUpdate::AgentMessage(m) => self.whole_message(
                "agent",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                env,
            ),
            v2::SessionUpdate::AgentThought(m) => self.whole_message(
                "thought",
                (m.message_id, m.content, !m.meta.is_keep() || !m.additional_properties.is_empty()),
                env,
            ),
            // The stream's most common updates, converted without the
            // general `SessionUpdate` conversion around them.
            v2::SessionUpdate::AgentMessageChunk(c) => self.chunk(c, v1::SessionUpdate::AgentMessageChunk, env),
            v2::SessionUpdate::AgentThoughtChunk(c) => self.chunk(c, v1::SessionUpdate::AgentThoughtChunk, env),
            v2::SessionUpdate::UserMessageChunk(c) => self.chunk(c, v1::SessionUpdate::UserMessageChunk, env),
            v2::SessionUpdate::ToolCallUpdate(u) => self.tool_call_update(u, env),
            v2::SessionUpdate::ToolCallContentChunk(c) => self.tool_call_content_chunk(c, env),
            update => {
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
                Ok((vec![env.wrap(u)], losses))
            }
        }
    }

    /// A message chunk, which marks its message as seen by the v1 side (a
    /// whole-message update of it later cannot replace what v1 shows).
    fn chunk(
        &mut self,
        c: v2::ContentChunk,
        variant: impl FnOnce(v1::ContentChunk) -> v1::SessionUpdate,
        env: Envelope,
    ) -> Out<v1::rpc::Message> {
        let s = self.session(env.sid.as_str());
        if s.last_seen.as_ref() != Some(&c.message_id) {
            s.seen_messages.insert(c.message_id.clone());
            s.last_seen = Some(c.message_id.clone());
        }
        one_message(self.strict, "/params/update", c, |c| env.wrap(variant(c)))
    }

    /// A `state_update`: the end of a held prompt turn becomes its v1 response;
    /// the snapshot before a session/new or resume response is dropped
    /// silently; any other state has no v1 form.
    fn state_update(&mut self, state: v2::StateUpdate, session: &str) -> Out<v1::rpc::Message> {
        let strict = self.strict;
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
                        run(strict, "/params/update/background", |cx| cx.dropped("v1 has no background work"))?.1,
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
                return dropped("v1 has no requires_action state (the v1 client sees the request that needs it)")
            }
            #[allow(unreachable_patterns)]
            _ => return dropped("this session state has no v1 form"),
        };
        self.end_turn(session, stop, turn_meta, turn_losses)
    }

    /// The v1 answer to the held prompt of `session`: its response with the
    /// stop reason, or an error response for stop reason `error`.
    fn end_turn(
        &mut self,
        session: &str,
        stop: v2::IdleStateUpdateStopReason,
        turn_meta: Nullable<Box<acp_bindings::runtime::JsonObject>>,
        mut turn_losses: Vec<Loss>,
    ) -> Out<v1::rpc::Message> {
        let strict = self.strict;
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
                            Ok(v1::Error::new(v1::ErrorCode::InternalError, "the prompt turn ended with an error"))
                        }
                    })
                })?;
                if !turn_meta.is_absent() {
                    turn_losses.extend(
                        run(strict, "/params/update/_meta", |cx| cx.dropped("a v1 error response has no `_meta`"))?.1,
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
                                format!("the stop reason {name} has no v1 form: the v1 turn ends with `end_turn`"),
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

    /// A `tool_call_update`: the first the v1 side sees of a tool call becomes
    /// a v1 `tool_call` with the accumulated state; a later one converts itself.
    fn tool_call_update(&mut self, mut u: v2::ToolCallUpdate, env: Envelope) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let s = self.session(env.sid.as_str());
        if let Some(content) = s.v1_content.get_mut(&u.tool_call_id) {
            // The v1 side has the tool call: the update converts
            // itself (items with no v1 form are dropped in place).
            return one_message(strict, "/params/update", u, |u| {
                if let Nullable::Value(c) = &u.content {
                    content.clone_from(c);
                }
                env.wrap(v1::SessionUpdate::ToolCallUpdate(u))
            });
        }
        // The first update the v1 side sees: content items with no v1
        // form are dropped before the state keeps them, at their
        // pointer in this line.
        let mut losses = Vec::new();
        if let acp_bindings::patch::Patch::Set(items) = &mut u.content {
            keep_convertible(strict, "/params/update/content", items, &mut losses)?;
        }
        let unknown = std::mem::take(&mut u.additional_properties);
        let state = match s.unseen_calls.remove(&u.tool_call_id) {
            Some(mut state) => {
                acp_bindings::patch::Patchable::apply(&mut state, u);
                state
            }
            None => acp_bindings::patch::Patchable::from_patch(u),
        };
        let (t, l) = s.first_tool_call(strict, state, |_| Ok(()), unknown)?;
        losses.extend(l);
        Ok((vec![env.wrap(v1::SessionUpdate::ToolCall(t))], losses))
    }

    /// A `tool_call_content_chunk`: a v1 `tool_call_update` carrying all the
    /// content the v1 side has of the tool call (or its first `tool_call`).
    fn tool_call_content_chunk(&mut self, mut c: v2::ToolCallContentChunk, env: Envelope) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let s = self.session(env.sid.as_str());
        let chunk_meta = !c.meta.is_absent();
        let Some(content) = s.v1_content.get_mut(&c.tool_call_id) else {
            // The first the v1 side sees of the tool call.
            let unknown = std::mem::take(&mut c.additional_properties);
            let id = c.tool_call_id;
            let mut state = s
                .unseen_calls
                .remove(&id)
                .unwrap_or_else(|| acp_bindings::patch::Patchable::from_patch(v2::ToolCallUpdate::new(id)));
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
            return Ok((vec![env.wrap(v1::SessionUpdate::ToolCall(t))], losses));
        };
        // v1 replaces content whole: the update carries all of it, the
        // new block converted once and appended to what v1 already has.
        // What can fail in strict mode comes first, so a failed chunk leaves
        // the content as the v1 side has it.
        let meta = match chunk_meta {
            true => {
                run(strict, "/params/update/_meta", |cx| {
                    cx.dropped("a v1 tool-call update has no place for a content chunk's `_meta`")
                })?
                .1
            }
            false => Vec::new(),
        };
        let mut u = v1::ToolCallUpdate::new(v1::ToolCallId(c.tool_call_id.0));
        let (unknown, kept) = extras(strict, "/params/update", &u, c.additional_properties)?;
        u.additional_properties = unknown;
        let mut losses = push_to_v1(strict, "/params/update/content", c.content, content)?;
        losses.extend(meta);
        losses.extend(kept);
        u.content = Nullable::Value(content.clone());
        Ok((vec![env.wrap(v1::SessionUpdate::ToolCallUpdate(u))], losses))
    }
    /// A whole-message update as v1 chunks, if the v1 side has no content for it yet.
    fn whole_message(
        &mut self,
        kind: &str,
        (id, content, has_more): (v2::MessageId, acp_bindings::patch::Patch<Vec<v2::ContentBlock>>, bool),
        env: Envelope,
    ) -> Out<v1::rpc::Message> {
        let strict = self.strict;
        let s = self.session(env.sid.as_str());
        // The echo of a prompt the v1 client sent itself.
        // It may come before the acknowledgement that names its id: then it is
        // recognised by its content (the prompt as sent) and its id kept.
        let echo = kind == "user"
            && match s.prompt.as_mut() {
                Some((_, Some(m), _)) => m.as_str() == id.as_str(),
                Some((_, m @ None, sent)) => {
                    let same = matches!(&content, acp_bindings::patch::Patch::Set(b) if b == sent);
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
            acp_bindings::patch::Patch::Set(b) => b,
            acp_bindings::patch::Patch::Keep if has_more => {
                let (_, l) = run(strict, "/params/update", |cx| {
                    cx.dropped("v1 message chunks carry no message-level `_meta` or other properties")
                })?;
                return Ok((Vec::new(), l));
            }
            acp_bindings::patch::Patch::Keep => return Ok((Vec::new(), Vec::new())),
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
        let mut updates = Vec::with_capacity(blocks.len());
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
            updates.push(match kind {
                "user" => v1::SessionUpdate::UserMessageChunk(chunk),
                "agent" => v1::SessionUpdate::AgentMessageChunk(chunk),
                _ => v1::SessionUpdate::AgentThoughtChunk(chunk),
            });
        }
        let last = updates.pop();
        let mut out: Vec<_> = updates.into_iter().map(|u| env.wrap_copy(u)).collect();
        out.extend(last.map(|u| env.wrap(u)));
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

/// The parts of a v1 `tool_call` whose conversion can fail outside strict
/// mode, converted from the state before it is taken apart.
/// (The title is decided here too, so the losses keep the order of the
/// v1 tool call's properties.)
pub(super) struct ToolCallHead {
    /// The title made up for a tool call that has none yet.
    made_up_title: Option<String>,
    kind: v1::ToolKind,
    status: v1::ToolCallStatus,
}

impl ToolCallHead {
    pub(super) fn of(t: &v2::ToolCall, cx: &mut Cx) -> Result<ToolCallHead, Fail> {
        let made_up_title = match &t.title {
            Some(_) => None,
            None => {
                cx.loss_at(
                    "title",
                    LossKind::Synthesized,
                    "a v1 tool call needs a title; the v2 tool call has none yet",
                )?;
                Some(t.name.clone().unwrap_or_else(|| "Tool call".to_owned()))
            }
        };
        Ok(ToolCallHead {
            made_up_title,
            kind: cx.at("kind", |cx| t.kind.clone().to_v1(cx))?,
            status: cx.at("status", |cx| t.status.clone().to_v1(cx))?,
        })
    }
}

/// A v1 `tool_call` from the accumulated v2 state of a tool call, whose
/// kind and status are converted already. Outside strict mode it does not fail.
pub(super) fn tool_call_from_state(t: v2::ToolCall, head: ToolCallHead, cx: &mut Cx) -> Result<v1::ToolCall, Fail> {
    let title = head.made_up_title.or(t.title).unwrap_or_default();
    let mut out = v1::ToolCall::new(cx.at("toolCallId", |cx| t.tool_call_id.to_v1(cx))?, title);
    out.name = match t.name {
        Some(n) => Nullable::Value(n),
        None => Nullable::Absent,
    };
    out.kind = Some(head.kind);
    out.status = Some(head.status);
    if !t.content.is_empty() {
        out.content = Some(cx.at("content", |cx| t.content.to_v1(cx))?);
    }
    if !t.locations.is_empty() {
        out.locations = Some(cx.at("locations", |cx| t.locations.to_v1(cx))?);
    }
    out.raw_input = t.raw_input.map(Into::into);
    out.raw_output = t.raw_output.map(Into::into);
    if t.capabilities.is_some() {
        cx.loss_at("capabilities", LossKind::Dropped, "v1 tool calls have no capabilities")?;
    }
    if let Some(m) = t.meta {
        out.meta = Nullable::Value(m);
    }
    Ok(out)
}

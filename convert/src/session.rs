//! Hand-written rules: `session/update`, the prompt response and the JSON-RPC
//! envelope unions.
//!
//! These are the stateless parts. What needs the state of a connection (a
//! tool call's accumulated title and content, the message ids of chunk runs,
//! the prompt turn, modes as a config option) is in the adapters.

// Targets are built with `new`/`default` and then assigned: their unstable
// shapes have more fields, and this code compiles in both builds.
#![allow(clippy::field_reassign_with_default)]

use super::{Cx, Fail, LossKind, ToV1, ToV2, UnstableFields};
use acp_bindings::patch::Patch;
use acp_bindings::runtime::Nullable;
use acp_bindings::{v1, v2};

type R<T> = Result<T, Fail>;

/// The plan id a v1 plan has in v2.
pub const MAIN_PLAN: &str = "main";

/// A v1 `tool_call` (creation, with a required title) as a v2 `tool_call_update`.
pub(crate) fn tool_call_to_v2(t: v1::ToolCall, cx: &mut Cx) -> R<v2::ToolCallUpdate> {
    let mut u = v2::ToolCallUpdate::new(t.tool_call_id.to_v2(cx)?);
    u.title = Patch::Set(t.title);
    u.name = match t.name {
        Nullable::Value(n) => Patch::Set(n),
        Nullable::Null => Patch::Clear,
        Nullable::Absent => Patch::Keep,
    };
    if let Some(k) = t.kind {
        u.kind = Patch::Set(cx.at("kind", |cx| k.to_v2(cx))?);
    }
    if let Some(s) = t.status {
        u.status = Patch::Set(cx.at("status", |cx| s.to_v2(cx))?);
    }
    if let Some(c) = t.content {
        u.content = Patch::Set(cx.at("content", |cx| c.to_v2(cx))?);
    }
    if let Some(l) = t.locations {
        u.locations = Patch::Set(cx.at("locations", |cx| l.to_v2(cx))?);
    }
    u.raw_input = t.raw_input.map_or(Patch::Keep, raw_set);
    u.raw_output = t.raw_output.map_or(Patch::Keep, raw_set);
    u.meta = match t.meta {
        Nullable::Value(m) => Patch::Set(m),
        _ => Patch::Keep,
    };
    u.additional_properties = cx.extras_for(&u, t.additional_properties)?;
    Ok(u)
}

/// A v1 tool call's any-JSON value as a v2 patch (here and in the generated
/// rules): a value sets, and `null` clears (it is what v2's wire says for
/// `null`, so setting the value `null` would not survive an encode and decode).
pub(crate) fn raw_set(v: serde_json::Value) -> Patch<acp_bindings::RawJson> {
    if v.is_null() {
        Patch::Clear
    } else {
        Patch::Set(v.into())
    }
}

/// A v1 plan as a v2 `plan_update` of the plan `main` (`type: "items"`).
pub(crate) fn plan_to_v2(p: v1::Plan, cx: &mut Cx) -> R<v2::PlanUpdate> {
    let entries = cx.at("entries", |cx| p.entries.to_v2(cx))?;
    let mut items = v2::PlanItems::new(v2::PlanId(super::id(MAIN_PLAN.to_owned())), entries);
    items.additional_properties = cx.extras_for(&items, p.additional_properties)?;
    let mut out = v2::PlanUpdate::new(v2::PlanUpdateContent::Items(items));
    out.meta = p.meta;
    Ok(out)
}

/// A v2 `plan_update` as a v1 plan (v1 has one plan per session).
pub(crate) fn plan_to_v1(p: v2::PlanUpdate, cx: &mut Cx) -> R<v1::Plan> {
    match p.plan {
        v2::PlanUpdateContent::Items(items) => {
            if items.plan_id.as_str() != MAIN_PLAN {
                cx.loss_at(
                    "plan",
                    LossKind::Approximated,
                    format!("v1 has one plan per session: the plan `{}` replaces the v1 plan", items.plan_id.as_str()),
                )?;
            }
            let entries = cx.at("plan", |cx| cx.at("entries", |cx| items.entries.to_v1(cx)))?;
            if !items.meta.is_absent() {
                cx.at("plan", |cx| cx.loss_at("_meta", LossKind::Dropped, "a v1 plan has one `_meta`: the update's"))?;
            }
            let mut out = v1::Plan::new(entries);
            out.meta = p.meta;
            out.additional_properties = cx.extras_for(&out, items.additional_properties)?;
            for (k, v) in p.additional_properties.iter() {
                if out.additional_properties.get(k).is_none() {
                    out.additional_properties.insert(k.clone(), v.clone());
                }
            }
            Ok(out)
        }
        #[allow(unreachable_patterns)]
        _ => {
            Err(cx.at("plan", |cx| cx.unconvertible("v1 plans are lists of entries; this plan content has no v1 form")))
        }
    }
}

impl ToV2 for v1::SessionUpdate {
    type V2 = v2::SessionUpdate;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::SessionUpdate> {
        use v1::SessionUpdate as A;
        use v2::SessionUpdate as B;
        Ok(match self {
            A::UserMessageChunk(c) => B::UserMessageChunk(c.to_v2(cx)?),
            A::AgentMessageChunk(c) => B::AgentMessageChunk(c.to_v2(cx)?),
            A::AgentThoughtChunk(c) => B::AgentThoughtChunk(c.to_v2(cx)?),
            A::ToolCall(t) => B::ToolCallUpdate(tool_call_to_v2(t, cx)?),
            A::ToolCallUpdate(u) => B::ToolCallUpdate(u.to_v2(cx)?),
            A::Plan(p) => B::PlanUpdate(plan_to_v2(p, cx)?),
            A::AvailableCommandsUpdate(u) => B::AvailableCommandsUpdate(u.to_v2(cx)?),
            A::ConfigOptionUpdate(u) => B::ConfigOptionUpdate(u.to_v2(cx)?),
            A::SessionInfoUpdate(u) => B::SessionInfoUpdate(u.to_v2(cx)?),
            A::UsageUpdate(u) => B::UsageUpdate(u.to_v2(cx)?),
            A::Notice(n) => B::Notice(n.to_v2(cx)?),
            A::CompactionUpdate(u) => B::CompactionUpdate(u.to_v2(cx)?),
            A::CompactionSummaryChunk(c) => B::CompactionSummaryChunk(c.to_v2(cx)?),
            A::CurrentModeUpdate(_) => {
                return Err(cx.unconvertible(
                    "a mode change becomes a v2 config_option_update with the whole option list, which needs \
                     the session's modes (V1ToV2 keeps them)",
                ))
            }
            _ => return Err(cx.unconvertible("this session update has no v2 rule in this build")),
        })
    }
}

impl ToV1 for v2::SessionUpdate {
    type V1 = v1::SessionUpdate;
    #[allow(unreachable_patterns)]
    fn to_v1(self, cx: &mut Cx) -> R<v1::SessionUpdate> {
        use v1::SessionUpdate as A;
        use v2::SessionUpdate as B;
        let needs_state = |cx: &mut Cx, what: &str| -> Fail {
            cx.unconvertible(format!("{what} has no stateless v1 form (V2ToV1 converts it with the session's state)"))
        };
        Ok(match self {
            B::UserMessageChunk(c) => A::UserMessageChunk(c.to_v1(cx)?),
            B::AgentMessageChunk(c) => A::AgentMessageChunk(c.to_v1(cx)?),
            B::AgentThoughtChunk(c) => A::AgentThoughtChunk(c.to_v1(cx)?),
            B::ToolCallUpdate(u) => A::ToolCallUpdate(u.to_v1(cx)?),
            B::PlanUpdate(p) => A::Plan(plan_to_v1(p, cx)?),
            B::AvailableCommandsUpdate(u) => A::AvailableCommandsUpdate(u.to_v1(cx)?),
            B::ConfigOptionUpdate(u) => A::ConfigOptionUpdate(u.to_v1(cx)?),
            B::SessionInfoUpdate(u) => A::SessionInfoUpdate(u.to_v1(cx)?),
            B::UsageUpdate(u) => A::UsageUpdate(u.to_v1(cx)?),
            B::Notice(n) => A::Notice(n.to_v1(cx)?),
            B::CompactionUpdate(u) => A::CompactionUpdate(u.to_v1(cx)?),
            B::CompactionSummaryChunk(c) => A::CompactionSummaryChunk(c.to_v1(cx)?),
            B::UserMessage(_) | B::AgentMessage(_) | B::AgentThought(_) => {
                return Err(needs_state(cx, "a whole-message update"))
            }
            B::ToolCallContentChunk(_) => return Err(needs_state(cx, "a tool-call content chunk")),
            B::StateUpdate(_) => return Err(needs_state(cx, "a state update")),
            B::TerminalUpdate(_) | B::TerminalOutputChunk(_) => {
                return Err(cx.unconvertible("v1 has no agent-run terminals"))
            }
            B::Other(u) => {
                return Err(cx.unconvertible(format!(
                    "the session update `{}` has no v1 form",
                    u.get("sessionUpdate").and_then(|t| t.as_str()).unwrap_or("")
                )))
            }
            _ => return Err(cx.unconvertible("this session update has no v1 rule in this build")),
        })
    }
}

// ---- session/prompt response ----------------------------------------------------------------

impl ToV2 for v1::PromptResponse {
    type V2 = v2::PromptResponse;
    fn to_v2(self, cx: &mut Cx) -> R<v2::PromptResponse> {
        self.check_unstable(cx)?;
        cx.loss_at(
            "stopReason",
            LossKind::Dropped,
            "a v2 prompt response only acknowledges; the stop reason ends the turn in a state_update (V1ToV2 sends it)",
        )?;
        let mut out = v2::PromptResponse::new(v2::MessageId(super::id(cx.fresh_id())));
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::PromptResponse {
    type V1 = v1::PromptResponse;
    fn to_v1(self, cx: &mut Cx) -> R<v1::PromptResponse> {
        Err(cx.unconvertible(
            "a v1 prompt response carries the stop reason, which v2 sends later in a state_update (V2ToV1 holds the \
             response until then)",
        ))
    }
}

// ---- the JSON-RPC envelope unions ---------------------------------------------------------------
//
// The schema's `AgentRequest`, `ClientResponse`, ... are untagged unions of
// whole JSON-RPC messages. Method names change between the versions and a
// response's type depends on its request, so messages convert with the
// adapters, which pair them.

macro_rules! envelope {
    ($($name:ident),*) => {$(
        impl ToV2 for v1::$name {
            type V2 = v2::$name;
            fn to_v2(self, cx: &mut Cx) -> R<v2::$name> {
                Err(cx.unconvertible(concat!(
                    "a whole JSON-RPC message (`", stringify!($name), "`) converts with V1ToV2, which renames methods and pairs responses"
                )))
            }
        }
        impl ToV1 for v2::$name {
            type V1 = v1::$name;
            fn to_v1(self, cx: &mut Cx) -> R<v1::$name> {
                Err(cx.unconvertible(concat!(
                    "a whole JSON-RPC message (`", stringify!($name), "`) converts with V2ToV1, which renames methods and pairs responses"
                )))
            }
        }
    )*};
}

envelope!(AgentRequest, ClientRequest, AgentResponse, ClientResponse, AgentNotification, ClientNotification);

//! Hand-written rules: permission requests.

// Targets are built with `new`/`default` and then assigned: their unstable
// shapes have more fields, and this code compiles in both builds.
#![allow(clippy::field_reassign_with_default)]

use super::{Cx, Fail, LossKind, ToV1, ToV2, UnstableFields};
use acp_bindings::runtime::Nullable;
use acp_bindings::{v1, v2};

type R<T> = Result<T, Fail>;

/// The title a v2 permission request shows when the v1 tool call has none.
pub(crate) const PERMISSION_TITLE: &str = "Permission requested";

// v1 asks about `toolCall` (a tool-call update); v2 asks with a required
// `title`, an optional `description`, and the tool call as its `subject`.
impl ToV2 for v1::RequestPermissionRequest {
    type V2 = v2::RequestPermissionRequest;
    fn to_v2(self, cx: &mut Cx) -> R<v2::RequestPermissionRequest> {
        self.check_unstable(cx)?;
        let session_id = self.session_id.to_v2(cx)?;
        let title = match &self.tool_call.title {
            Nullable::Value(t) => t.clone(),
            _ => {
                // The adapters use the tool call's accumulated title instead.
                cx.at("toolCall", |cx| {
                    cx.loss_at(
                        "title",
                        LossKind::Synthesized,
                        format!("v2 requires a title; the tool call carries none, so `{PERMISSION_TITLE}` is used"),
                    )
                })?;
                PERMISSION_TITLE.to_owned()
            }
        };
        let tool_call = cx.at("toolCall", |cx| self.tool_call.to_v2(cx))?;
        let options = cx.at("options", |cx| {
            let o = self.options.to_v2(cx)?;
            super::min_items(cx, o, 1)
        })?;
        let mut out = v2::RequestPermissionRequest::new(session_id, title, options);
        out.subject =
            Nullable::Value(v2::RequestPermissionSubject::ToolCall(v2::ToolCallPermissionSubject::new(tool_call)));
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::RequestPermissionRequest {
    type V1 = v1::RequestPermissionRequest;
    fn to_v1(self, cx: &mut Cx) -> R<v1::RequestPermissionRequest> {
        self.check_unstable(cx)?;
        let session_id = self.session_id.to_v1(cx)?;
        let subject = match self.subject {
            Nullable::Value(v2::RequestPermissionSubject::ToolCall(s)) => s,
            Nullable::Value(v2::RequestPermissionSubject::Command(_)) => {
                return Err(
                    cx.at("subject", |cx| cx.unconvertible("v1 asks permission only for a tool call, not a command"))
                )
            }
            Nullable::Value(v2::RequestPermissionSubject::Other(_)) => {
                return Err(cx.at("subject", |cx| cx.unconvertible("an unknown permission subject has no v1 form")))
            }
            _ => {
                return Err(cx.at("subject", |cx| {
                    cx.unconvertible("v1 asks permission about a tool call; this request names none")
                }))
            }
        };
        if !subject.meta.is_absent() || !subject.additional_properties.is_empty() {
            cx.loss_at(
                "subject",
                LossKind::Dropped,
                "a v1 permission request has no place for the subject's `_meta` or other properties",
            )?;
        }
        let mut tool_call = cx.at("subject", |cx| cx.at("toolCall", |cx| subject.tool_call.to_v1(cx)))?;
        // v1 shows the tool call's title: the request's title goes there when
        // the tool call has none, otherwise it is dropped.
        match &tool_call.title {
            Nullable::Value(t) if *t == self.title => {}
            Nullable::Value(_) => cx.loss_at("title", LossKind::Dropped, "v1 shows the tool call's own title")?,
            _ => {
                // It sets the title of the client's stored tool call too.
                cx.loss_at("title", LossKind::Approximated, "v1 shows the request's title as the tool call's title")?;
                tool_call.title = Nullable::Value(self.title)
            }
        }
        if let Nullable::Value(_) = self.description {
            cx.loss_at("description", LossKind::Dropped, "v1 permission requests have no description")?;
        }
        let options = cx.at("options", |cx| self.options.to_v1(cx))?;
        let mut out = v1::RequestPermissionRequest::new(session_id, tool_call, options);
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

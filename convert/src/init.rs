//! Hand-written rules: `initialize`, capabilities, authentication methods,
//! MCP servers and config-option selection.

// Targets are built with `new`/`default` and then assigned: their unstable
// shapes have more fields, and this code compiles in both builds.
#![allow(clippy::field_reassign_with_default)]

use super::{Cx, Fail, LossKind, ToV1, ToV2, UnstableFields};
use acp_bindings::runtime::Nullable;
use acp_bindings::{v1, v2};

type R<T> = Result<T, Fail>;

/// A v1 boolean marker as a v2 marker object.
fn marker<T: Default>(b: Option<bool>) -> Nullable<T> {
    if b == Some(true) {
        Nullable::Value(T::default())
    } else {
        Nullable::Absent
    }
}

/// A v2 marker object as a v1 boolean.
fn flag<T: serde::Serialize>(m: &Nullable<T>, key: &'static str, cx: &mut Cx) -> R<Option<bool>> {
    let Nullable::Value(v) = m else {
        return Ok(None);
    };
    // A marker with `_meta` or other properties says more than v1's `true`.
    if serde_json::to_value(v).ok().and_then(|j| j.as_object().map(|o| !o.is_empty())).unwrap_or(false) {
        cx.loss_at(
            key,
            LossKind::Dropped,
            "a v1 capability is a boolean: the marker object's properties have no place",
        )?;
    }
    Ok(Some(true))
}

/// The peer's name and version, which v2 requires and v1 may omit.
fn info_to_v2(info: Nullable<v1::Implementation>, key: &'static str, cx: &mut Cx) -> R<v2::Implementation> {
    match info {
        Nullable::Value(i) => cx.at(key, |cx| i.to_v2(cx)),
        _ => {
            cx.loss_at(
                key,
                LossKind::Synthesized,
                "v2 requires `info`; the v1 peer sent none, so `unknown` 0.0.0 is used",
            )?;
            Ok(v2::Implementation::new("unknown", "0.0.0"))
        }
    }
}

// ---- initialize ----------------------------------------------------------------------

/// The protocol version of a converted `initialize`: the target's own. A
/// source that named another version than its own is `approximated`.
fn protocol_version(v: u16, own: u16, target: u16, cx: &mut Cx) -> R<u16> {
    if v != own {
        cx.loss_at(
            "protocolVersion",
            LossKind::Approximated,
            format!("a v{own} message naming protocol version {v}: the converted message names {target}"),
        )?;
    }
    Ok(target)
}

impl ToV2 for v1::InitializeRequest {
    type V2 = v2::InitializeRequest;
    fn to_v2(self, cx: &mut Cx) -> R<v2::InitializeRequest> {
        self.check_unstable(cx)?;
        let info = info_to_v2(self.client_info, "clientInfo", cx)?;
        let version = protocol_version(self.protocol_version.0, 1, 2, cx)?;
        let mut out = v2::InitializeRequest::new(v2::ProtocolVersion(version), info);
        out.capabilities = cx.at("clientCapabilities", |cx| self.client_capabilities.to_v2(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::InitializeRequest {
    type V1 = v1::InitializeRequest;
    fn to_v1(self, cx: &mut Cx) -> R<v1::InitializeRequest> {
        self.check_unstable(cx)?;
        let version = protocol_version(self.protocol_version.0, 2, 1, cx)?;
        let mut out = v1::InitializeRequest::new(v1::ProtocolVersion(version));
        out.client_info = Nullable::Value(cx.at("info", |cx| self.info.to_v1(cx))?);
        out.client_capabilities = cx.at("capabilities", |cx| self.capabilities.to_v1(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV2 for v1::InitializeResponse {
    type V2 = v2::InitializeResponse;
    fn to_v2(self, cx: &mut Cx) -> R<v2::InitializeResponse> {
        self.check_unstable(cx)?;
        let info = info_to_v2(self.agent_info, "agentInfo", cx)?;
        let version = protocol_version(self.protocol_version.0, 1, 2, cx)?;
        let mut out = v2::InitializeResponse::new(v2::ProtocolVersion(version), info);
        // v1 requires stdio MCP servers of every agent: a v1 agent always
        // gets `capabilities.session` with `mcp.stdio`.
        let mut caps = self.agent_capabilities.unwrap_or_default();
        // v2 has no logout capability: an agent that lists auth methods
        // promises auth/logout. A v1 `auth.logout` says the same, so it goes
        // without a loss (and an `auth` left empty goes with it).
        let mut logout = false;
        if let Some(auth) = caps.auth.as_mut() {
            logout = matches!(auth.logout, Nullable::Value(_));
            if let Nullable::Value(l) = std::mem::take(&mut auth.logout) {
                if serde_json::to_value(&l).is_ok_and(|v| v != serde_json::json!({})) {
                    cx.at("agentCapabilities", |cx| {
                        cx.at("auth", |cx| {
                            cx.loss_at(
                                "logout",
                                LossKind::Dropped,
                                "v2 implies logout from `authMethods`: the capability's own properties have no place",
                            )
                        })
                    })?;
                }
            }
            if serde_json::to_value(&*auth).is_ok_and(|v| v == serde_json::json!({})) {
                caps.auth = None;
            }
        }
        out.capabilities = Some(cx.at("agentCapabilities", |cx| caps.to_v2(cx))?);
        out.auth_methods = cx.at("authMethods", |cx| self.auth_methods.to_v2(cx))?;
        if out.auth_methods.as_ref().is_some_and(|m| !m.is_empty()) && !logout {
            cx.loss_at(
                "authMethods",
                LossKind::Approximated,
                "a v2 agent that lists auth methods promises auth/logout, which this v1 agent does not advertise \
                 (`agentCapabilities.auth.logout`): a v2 client's auth/logout reaches it as `logout` and may fail",
            )?;
        }
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::InitializeResponse {
    type V1 = v1::InitializeResponse;
    fn to_v1(self, cx: &mut Cx) -> R<v1::InitializeResponse> {
        self.check_unstable(cx)?;
        let version = protocol_version(self.protocol_version.0, 2, 1, cx)?;
        let mut out = v1::InitializeResponse::new(v1::ProtocolVersion(version));
        out.agent_info = Nullable::Value(cx.at("info", |cx| self.info.to_v1(cx))?);
        out.agent_capabilities = cx.at("capabilities", |cx| self.capabilities.to_v1(cx))?;
        out.auth_methods = cx.at("authMethods", |cx| self.auth_methods.to_v1(cx))?;
        // A v2 agent that lists auth methods supports auth/logout: v1 says so
        // with `auth.logout`.
        if out.auth_methods.as_ref().is_some_and(|m| !m.is_empty()) {
            let caps = out.agent_capabilities.get_or_insert_with(Default::default);
            let auth = caps.auth.get_or_insert_with(Default::default);
            if auth.logout.is_absent() {
                auth.logout = Nullable::Value(v1::LogoutCapabilities::default());
            }
        }
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- capabilities ----------------------------------------------------------------------

impl ToV2 for v1::AgentCapabilities {
    type V2 = v2::AgentCapabilities;
    fn to_v2(self, cx: &mut Cx) -> R<v2::AgentCapabilities> {
        self.check_unstable(cx)?;
        if self.load_session == Some(true) {
            // session/load becomes session/resume with replayFrom start, which
            // v2's session capability promises anyway.
        }
        let mut session = match self.session_capabilities {
            Some(s) => cx.at("sessionCapabilities", |cx| s.to_v2(cx))?,
            None => {
                // v2's `session` promises list, resume and close.
                for m in ["list", "resume", "close"] {
                    cx.loss_at(
                        "sessionCapabilities",
                        LossKind::Approximated,
                        format!("v2 `session` promises session/{m}, which this v1 agent does not advertise"),
                    )?;
                }
                v2::SessionCapabilities::default()
            }
        };
        let prompt = self.prompt_capabilities.unwrap_or_default();
        session.prompt = Nullable::Value(cx.at("promptCapabilities", |cx| prompt.to_v2(cx))?);
        let mcp = self.mcp_capabilities.unwrap_or_default();
        session.mcp = Nullable::Value(cx.at("mcpCapabilities", |cx| mcp.to_v2(cx))?);
        let mut out = v2::AgentCapabilities::default();
        out.session = Nullable::Value(session);
        out.auth = match self.auth {
            Some(a) => Nullable::Value(cx.at("auth", |cx| a.to_v2(cx))?),
            None => Nullable::Absent,
        };
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::AgentCapabilities {
    type V1 = v1::AgentCapabilities;
    fn to_v1(self, cx: &mut Cx) -> R<v1::AgentCapabilities> {
        self.check_unstable(cx)?;
        let mut out = v1::AgentCapabilities::default();
        if let Nullable::Value(mut s) = self.session {
            let prompt = std::mem::take(&mut s.prompt);
            let mcp = std::mem::take(&mut s.mcp);
            cx.enter("session");
            out.prompt_capabilities = match prompt {
                Nullable::Value(p) => Some(cx.at("prompt", |cx| p.to_v1(cx))?),
                _ => None,
            };
            out.mcp_capabilities = match mcp {
                Nullable::Value(m) => Some(cx.at("mcp", |cx| m.to_v1(cx))?),
                _ => None,
            };
            out.session_capabilities = Some(s.to_v1(cx)?);
            cx.leave();
            // A v2 agent resumes with a replay from the start, which is what
            // session/load asks for.
            out.load_session = Some(true);
        }
        out.auth = match self.auth {
            Nullable::Value(a) => Some(cx.at("auth", |cx| a.to_v1(cx))?),
            _ => None,
        };
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV2 for v1::SessionCapabilities {
    type V2 = v2::SessionCapabilities;
    fn to_v2(self, cx: &mut Cx) -> R<v2::SessionCapabilities> {
        self.check_unstable(cx)?;
        for (m, has) in
            [("list", !self.list.is_absent()), ("resume", !self.resume.is_absent()), ("close", !self.close.is_absent())]
        {
            if !has {
                cx.loss(
                    LossKind::Approximated,
                    format!("v2 `session` promises session/{m}, which this v1 agent does not advertise"),
                )?;
            }
        }
        let mut out = v2::SessionCapabilities::default();
        out.delete = cx.at("delete", |cx| self.delete.to_v2(cx))?;
        out.additional_directories = cx.at("additionalDirectories", |cx| self.additional_directories.to_v2(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::SessionCapabilities {
    type V1 = v1::SessionCapabilities;
    fn to_v1(self, cx: &mut Cx) -> R<v1::SessionCapabilities> {
        self.check_unstable(cx)?;
        if !self.prompt.is_absent() {
            cx.loss_at("prompt", LossKind::Dropped, "v1 advertises prompt capabilities beside the session's")?;
        }
        if !self.mcp.is_absent() {
            cx.loss_at("mcp", LossKind::Dropped, "v1 advertises MCP capabilities beside the session's")?;
        }
        let mut out = v1::SessionCapabilities::default();
        // v2 `session` promises list, resume and close.
        out.list = Nullable::Value(v1::SessionListCapabilities::default());
        out.resume = Nullable::Value(v1::SessionResumeCapabilities::default());
        out.close = Nullable::Value(v1::SessionCloseCapabilities::default());
        out.delete = cx.at("delete", |cx| self.delete.to_v1(cx))?;
        out.additional_directories = cx.at("additionalDirectories", |cx| self.additional_directories.to_v1(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV2 for v1::PromptCapabilities {
    type V2 = v2::PromptCapabilities;
    fn to_v2(self, cx: &mut Cx) -> R<v2::PromptCapabilities> {
        self.check_unstable(cx)?;
        let mut out = v2::PromptCapabilities::default();
        out.image = marker(self.image);
        out.audio = marker(self.audio);
        out.embedded_context = marker(self.embedded_context);
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::PromptCapabilities {
    type V1 = v1::PromptCapabilities;
    fn to_v1(self, cx: &mut Cx) -> R<v1::PromptCapabilities> {
        self.check_unstable(cx)?;
        let mut out = v1::PromptCapabilities::default();
        out.image = flag(&self.image, "image", cx)?;
        out.audio = flag(&self.audio, "audio", cx)?;
        out.embedded_context = flag(&self.embedded_context, "embeddedContext", cx)?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV2 for v1::McpCapabilities {
    type V2 = v2::McpCapabilities;
    fn to_v2(self, cx: &mut Cx) -> R<v2::McpCapabilities> {
        self.check_unstable(cx)?;
        if self.sse == Some(true) {
            cx.loss_at("sse", LossKind::Dropped, "v2 has no SSE MCP transport")?;
        }
        let mut out = v2::McpCapabilities::default();
        // Every v1 agent supports stdio MCP servers.
        out.stdio = Nullable::Value(v2::McpStdioCapabilities::default());
        out.http = marker(self.http);
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::McpCapabilities {
    type V1 = v1::McpCapabilities;
    fn to_v1(self, cx: &mut Cx) -> R<v1::McpCapabilities> {
        self.check_unstable(cx)?;
        // stdio is implied in v1.
        if self.stdio.is_absent() {
            cx.loss(
                LossKind::Approximated,
                "every v1 agent takes stdio MCP servers; this v2 agent does not say it does",
            )?;
        }
        let mut out = v1::McpCapabilities::default();
        out.http = flag(&self.http, "http", cx)?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV2 for v1::ClientCapabilities {
    type V2 = v2::ClientCapabilities;
    fn to_v2(self, cx: &mut Cx) -> R<v2::ClientCapabilities> {
        self.check_unstable(cx)?;
        if let Some(fs) = &self.fs {
            if fs.read_text_file == Some(true) || fs.write_text_file == Some(true) {
                cx.loss_at("fs", LossKind::Dropped, "v2 has no client file-system methods (fs/*)")?;
            }
        }
        if self.terminal == Some(true) {
            cx.loss_at("terminal", LossKind::Dropped, "v2 has no client-run terminals (terminal/*)")?;
        }
        if let Nullable::Value(s) = &self.session {
            if !s.compaction.is_absent() || !s.config_options.is_absent() || !s.notices.is_absent() {
                cx.loss_at(
                    "session",
                    LossKind::Dropped,
                    "v2 clients need no session capabilities (v2 agents send notices, compactions and config options to every client)",
                )?;
            }
        }
        let mut out = v2::ClientCapabilities::default();
        if let Some(a) = self.auth {
            let mut auth = v2::ClientAuthCapabilities::default();
            auth.terminal = marker(a.terminal);
            auth.meta = a.meta;
            auth.additional_properties = cx.extras_for(&auth, a.additional_properties)?;
            out.auth = Nullable::Value(auth);
        }
        out.elicitation = cx.at("elicitation", |cx| self.elicitation.to_v2(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::ClientCapabilities {
    type V1 = v1::ClientCapabilities;
    fn to_v1(self, cx: &mut Cx) -> R<v1::ClientCapabilities> {
        self.check_unstable(cx)?;
        let mut out = v1::ClientCapabilities::default();
        if let Nullable::Value(a) = self.auth {
            let mut auth = v1::AuthCapabilities::default();
            auth.terminal = cx.at("auth", |cx| flag(&a.terminal, "terminal", cx))?;
            auth.meta = a.meta;
            auth.additional_properties = cx.extras_for(&auth, a.additional_properties)?;
            out.auth = Some(auth);
        }
        out.elicitation = cx.at("elicitation", |cx| self.elicitation.to_v1(cx))?;
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- authentication methods --------------------------------------------------------------

impl ToV2 for v1::AuthMethod {
    type V2 = v2::AuthMethod;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::AuthMethod> {
        Ok(match self {
            v1::AuthMethod::Terminal(t) => v2::AuthMethod::Terminal(t.to_v2(cx)?),
            v1::AuthMethod::Agent(mut a) => {
                // The tag-less v1 arm kept a `type` among its unknown properties; v2 writes its own.
                a.additional_properties.remove("type");
                v2::AuthMethod::Agent(a.to_v2(cx)?)
            }
            _ => return Err(cx.unconvertible("this authentication method has no v2 form")),
        })
    }
}

impl ToV1 for v2::AuthMethod {
    type V1 = v1::AuthMethod;
    #[allow(unreachable_patterns)]
    fn to_v1(self, cx: &mut Cx) -> R<v1::AuthMethod> {
        Ok(match self {
            v2::AuthMethod::Terminal(t) => v1::AuthMethod::Terminal(t.to_v1(cx)?),
            v2::AuthMethod::Agent(a) => v1::AuthMethod::Agent(a.to_v1(cx)?),
            v2::AuthMethod::Other(u) => {
                super::redecode(cx, serde_json::Value::Object(u.into_object()), "the unknown authentication method")?
            }
            _ => return Err(cx.unconvertible("this authentication method has no v1 form")),
        })
    }
}

impl ToV2 for v1::AuthMethodTerminal {
    type V2 = v2::AuthMethodTerminal;
    fn to_v2(self, cx: &mut Cx) -> R<v2::AuthMethodTerminal> {
        self.check_unstable(cx)?;
        let mut out = v2::AuthMethodTerminal::new(self.id.to_v2(cx)?, self.name);
        out.description = self.description;
        out.args = self.args;
        // A map of variables becomes a list of name/value pairs.
        out.env = self.env.map(|m| m.into_iter().map(|(k, v)| v2::EnvVariable::new(k, v)).collect());
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

impl ToV1 for v2::AuthMethodTerminal {
    type V1 = v1::AuthMethodTerminal;
    fn to_v1(self, cx: &mut Cx) -> R<v1::AuthMethodTerminal> {
        self.check_unstable(cx)?;
        let mut out = v1::AuthMethodTerminal::new(self.method_id.to_v1(cx)?, self.name);
        out.description = self.description;
        out.args = self.args;
        if let Some(env) = self.env {
            let mut map = std::collections::BTreeMap::new();
            cx.enter("env");
            for (i, e) in env.into_iter().enumerate() {
                cx.enter_index(i);
                if !e.meta.is_absent() || !e.additional_properties.is_empty() {
                    cx.loss(LossKind::Dropped, "v1 environment variables are a plain map: the entry's `_meta` and other properties have no place")?;
                }
                if map.insert(e.name.clone(), e.value).is_some() {
                    cx.loss(LossKind::Approximated, format!("`{}` appears twice; the v1 map keeps the last", e.name))?;
                }
                cx.leave();
            }
            cx.leave();
            out.env = Some(map);
        }
        out.meta = self.meta;
        out.additional_properties = cx.extras_for(&out, self.additional_properties)?;
        Ok(out)
    }
}

// ---- MCP servers --------------------------------------------------------------------------

impl ToV2 for v1::McpServer {
    type V2 = v2::McpServer;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::McpServer> {
        Ok(match self {
            v1::McpServer::Http(h) => v2::McpServer::Http(h.to_v2(cx)?),
            v1::McpServer::Stdio(mut s) => {
                s.additional_properties.remove("type");
                v2::McpServer::Stdio(s.to_v2(cx)?)
            }
            v1::McpServer::Sse(_) => return Err(cx.unconvertible("v2 has no SSE MCP transport")),
            _ => return Err(cx.unconvertible("this MCP server transport has no v2 form")),
        })
    }
}

impl ToV1 for v2::McpServer {
    type V1 = v1::McpServer;
    #[allow(unreachable_patterns)]
    fn to_v1(self, cx: &mut Cx) -> R<v1::McpServer> {
        Ok(match self {
            v2::McpServer::Http(h) => v1::McpServer::Http(h.to_v1(cx)?),
            v2::McpServer::Stdio(s) => v1::McpServer::Stdio(s.to_v1(cx)?),
            v2::McpServer::Other(u) => {
                super::redecode(cx, serde_json::Value::Object(u.into_object()), "the unknown MCP transport")?
            }
            _ => return Err(cx.unconvertible("this MCP server transport has no v1 form")),
        })
    }
}

// ---- session/set_config_option: v2 requires `type: "id"` ---------------------------------

impl ToV2 for v1::SetSessionConfigOptionRequest {
    type V2 = v2::SetSessionConfigOptionRequest;
    #[allow(unreachable_patterns)]
    fn to_v2(self, cx: &mut Cx) -> R<v2::SetSessionConfigOptionRequest> {
        self.check_unstable(cx)?;
        let ty = match self.r#type {
            v1::SetSessionConfigOptionRequestType::ValueId(mut v) => {
                v.additional_properties.remove("type");
                let mut id = v2::SetSessionConfigOptionRequestTypeId::new(v.value.to_v2(cx)?);
                id.additional_properties = cx.extras_for(&id, v.additional_properties)?;
                v2::SetSessionConfigOptionRequestType::Id(id)
            }
            v1::SetSessionConfigOptionRequestType::Boolean(b) => {
                v2::SetSessionConfigOptionRequestType::Boolean(b.to_v2(cx)?)
            }
            _ => return Err(cx.unconvertible("this config value has no v2 form")),
        };
        let mut out = v2::SetSessionConfigOptionRequest::new(self.session_id.to_v2(cx)?, self.config_id.to_v2(cx)?, ty);
        out.meta = self.meta;
        Ok(out)
    }
}

impl ToV1 for v2::SetSessionConfigOptionRequest {
    type V1 = v1::SetSessionConfigOptionRequest;
    #[allow(unreachable_patterns)]
    fn to_v1(self, cx: &mut Cx) -> R<v1::SetSessionConfigOptionRequest> {
        self.check_unstable(cx)?;
        let ty = match self.r#type {
            v2::SetSessionConfigOptionRequestType::Id(v) => {
                let mut id = v1::SetSessionConfigOptionRequestTypeValueId::new(v.value.to_v1(cx)?);
                id.additional_properties = cx.extras_for(&id, v.additional_properties)?;
                v1::SetSessionConfigOptionRequestType::ValueId(id)
            }
            v2::SetSessionConfigOptionRequestType::Boolean(b) => {
                v1::SetSessionConfigOptionRequestType::Boolean(b.to_v1(cx)?)
            }
            v2::SetSessionConfigOptionRequestType::Other(u) => {
                super::redecode(cx, serde_json::Value::Object(u.into_object()), "the unknown config value type")?
            }
            _ => return Err(cx.unconvertible("this config value has no v1 form")),
        };
        let mut out = v1::SetSessionConfigOptionRequest::new(self.session_id.to_v1(cx)?, self.config_id.to_v1(cx)?, ty);
        out.meta = self.meta;
        Ok(out)
    }
}

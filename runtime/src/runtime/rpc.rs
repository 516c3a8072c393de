//! JSON-RPC plumbing shared by the generated `rpc` modules: the raw envelope,
//! dispatch errors with JSON pointers, and how `params`/`result` were written.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::ser::{Error as _, SerializeMap};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// Which side of a connection handles a method (`x-side`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Handled by the agent.
    Agent,
    /// Handled by the client.
    Client,
    /// Handled by either side (`$/` protocol notifications).
    Protocol,
    /// Handled by a proxy.
    Proxy,
}

/// How a message carried its `params` (or a response its `result`), so that a
/// payload with no required field re-encodes the way it arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ParamsForm {
    /// An object (the usual form).
    #[default]
    Object,
    /// `null`.
    Null,
    /// The member was omitted.
    Absent,
}

/// A request or notification whose method starts with `_`: an extension,
/// kept with its raw params.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtMethod {
    /// The method name.
    pub method: String,
    /// The params exactly as received (`None` when the member was omitted).
    pub params: Option<Value>,
}

/// Why a `(method, params)` pair or a message could not be decoded.
///
/// Besides the class of error and the JSON pointer of the offending value, it
/// remembers whether the line deserves a JSON-RPC error reply and to which id:
/// [`DispatchError::needs_reply`], [`DispatchError::request_id`],
/// [`DispatchError::code`] and [`DispatchError::error_object`] (the generated
/// [`Message::error_reply`] builds the whole reply).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchError {
    kind: DispatchErrorKind,
    pointer: String,
    message: String,
    /// The JSON text of the message's id, when it had a non-null one.
    id: Option<String>,
    /// Whether JSON-RPC asks for an error reply.
    reply: bool,
}

/// The class of a [`DispatchError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchErrorKind {
    /// The line is not JSON at all (JSON-RPC `-32700`, parse error).
    Parse,
    /// A method this version (or this side of a connection) does not handle,
    /// and that does not start with `_` (JSON-RPC `-32601`).
    UnknownMethod,
    /// The params or result do not decode as the method's payload (JSON-RPC
    /// `-32602` for request params).
    InvalidPayload,
    /// The message is not a valid JSON-RPC 2.0 message of this version
    /// (JSON-RPC `-32600`).
    InvalidMessage,
    /// A response whose request is not known, or an answer to a request that
    /// is not waiting for one.
    UnknownRequest,
    /// A request whose id is already in use by another request still waiting
    /// for its answer.
    DuplicateId,
    /// An answer whose type is not the response of the request it answers.
    ResponseMismatch,
    /// A request other than `initialize` before the connection is
    /// initialized (JSON-RPC `-32600`).
    NotInitialized,
}

impl DispatchErrorKind {
    /// The JSON-RPC error code for this class of error: `-32700` parse error,
    /// `-32600` invalid request (a request before `initialize` too), `-32601` method not found, `-32602` invalid
    /// params, `-32603` internal error for the classes that only a local
    /// caller can cause ([`UnknownRequest`](Self::UnknownRequest),
    /// [`ResponseMismatch`](Self::ResponseMismatch)).
    pub fn code(self) -> i64 {
        match self {
            DispatchErrorKind::Parse => -32700,
            DispatchErrorKind::InvalidMessage | DispatchErrorKind::DuplicateId | DispatchErrorKind::NotInitialized => {
                -32600
            }
            DispatchErrorKind::UnknownMethod => -32601,
            DispatchErrorKind::InvalidPayload => -32602,
            DispatchErrorKind::UnknownRequest | DispatchErrorKind::ResponseMismatch => -32603,
        }
    }
}

impl DispatchError {
    #[doc(hidden)]
    pub fn new(kind: DispatchErrorKind, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        DispatchError { kind, pointer: pointer.into(), message: message.into(), id: None, reply: false }
    }

    /// The error, about the message with the id `id` (raw JSON; `null` is no id).
    #[doc(hidden)]
    #[must_use]
    pub fn with_id(mut self, id: &RawValue) -> Self {
        self.id = (id.get() != "null").then(|| id.get().to_owned());
        self
    }

    /// The error, answered to the request with the id `id` (raw JSON).
    #[doc(hidden)]
    #[must_use]
    pub fn replying_to(self, id: &RawValue) -> Self {
        self.with_id(id).replying_to_null()
    }

    /// The error, answered (with the message's id when it is known, else `null`).
    #[doc(hidden)]
    #[must_use]
    pub fn replying_to_null(mut self) -> Self {
        self.reply = true;
        self
    }

    /// The class of error.
    pub fn kind(&self) -> DispatchErrorKind {
        self.kind
    }

    /// JSON pointer (into the message) of the offending value; empty for the whole message.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// What was wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// `true` when JSON-RPC asks for an error reply: the line was a request
    /// (answered with its id) or could not be read as any message (answered
    /// with the `null` id). Notifications and responses are never answered.
    pub fn needs_reply(&self) -> bool {
        self.reply
    }

    /// The id of the message the error is about, decoded as `T` (the
    /// version's `RequestId`): the request to answer, or the pending request
    /// a malformed response answered. `None` when the line had no readable
    /// non-null id or the id does not decode as `T`.
    ///
    /// ```
    /// use acp_bindings::v2::{rpc::Message, RequestId};
    /// let line = r#"{"jsonrpc":"2.0","id":7,"method":"session/frobnicate","params":{}}"#;
    /// let err = Message::decode(line, |_| None).unwrap_err();
    /// assert_eq!(err.request_id::<RequestId>(), Some(RequestId::from(7i64)));
    /// assert_eq!(err.code(), -32601);
    /// ```
    pub fn request_id<T: DeserializeOwned>(&self) -> Option<T> {
        self.id.as_deref().and_then(|text| serde_json::from_str(text).ok())
    }

    /// The JSON text of the id the error reply goes to: the request's id,
    /// `null`, or `None` when no reply is due.
    pub fn reply_id_json(&self) -> Option<&str> {
        match (self.reply, &self.id) {
            (false, _) => None,
            (true, Some(text)) => Some(text),
            (true, None) => Some("null"),
        }
    }

    /// The JSON-RPC error code to answer with ([`DispatchErrorKind::code`]).
    pub fn code(&self) -> i64 {
        self.kind.code()
    }

    /// The JSON-RPC error object to answer with: `code`, `message` (this
    /// error's text) and, when the error points into the message, `data`
    /// holding `{"pointer": ...}`.
    pub fn error_object(&self) -> Value {
        let mut object = serde_json::Map::new();
        object.insert("code".into(), self.code().into());
        object.insert("message".into(), self.to_string().into());
        if !self.pointer.is_empty() {
            let mut data = serde_json::Map::new();
            data.insert("pointer".into(), self.pointer.clone().into());
            object.insert("data".into(), Value::Object(data));
        }
        Value::Object(object)
    }

    /// Re-roots a payload error under `prefix` (`/params/...`); other errors
    /// already point into the message.
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        if self.kind == DispatchErrorKind::InvalidPayload {
            self.pointer = format!("{prefix}{}", self.pointer);
        }
        self
    }
}

/// Displays a text with its control characters escaped (`\n`, `\u{1b}`),
/// on one line: for printing a [`DispatchError`]'s [`message`] or
/// [`pointer`] apart, as its `Display` does.
///
/// [`message`]: DispatchError::message
/// [`pointer`]: DispatchError::pointer
///
/// ```
/// use acp_bindings::runtime::rpc::OneLine;
/// assert_eq!(OneLine("a\nb\u{1b}").to_string(), r"a\nb\u{1b}");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OneLine<'a>(pub &'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        one_line(f, self.0)
    }
}

/// Writes `text` with its control characters escaped (`\n`, `\u{1b}`): a
/// message or pointer quotes the peer's text (a method name, a member name
/// with an escaped newline), and a displayed error stays on one line.
fn one_line(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    let mut rest = text;
    while let Some(i) = rest.find(char::is_control) {
        f.write_str(&rest[..i])?;
        let c = rest[i..].chars().next().unwrap_or_default();
        write!(f, "{}", c.escape_default())?;
        rest = &rest[i + c.len_utf8()..];
    }
    f.write_str(rest)
}

/// One line: the message, then the pointer (control characters escaped).
impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        one_line(f, &self.message)?;
        if !self.pointer.is_empty() {
            f.write_str(" (at ")?;
            one_line(f, &self.pointer)?;
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl std::error::Error for DispatchError {}

/// Escapes one JSON pointer segment (RFC 6901: `~` as `~0`, `/` as `~1`).
///
/// The one pointer helper of the bindings and the tools built on them (the
/// generator, which must not depend on the code it generates, has its own).
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Decodes `text` as `T`; an error names the JSON pointer of the failing value.
pub fn decode<T: DeserializeOwned>(text: &str) -> Result<T, DispatchError> {
    serde_json::from_str::<T>(text).map_err(|e| {
        let pointer = if e.line() > 0 { pointer_at(text, e.line(), e.column()) } else { String::new() };
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        DispatchError::new(DispatchErrorKind::InvalidPayload, pointer, message)
    })
}

enum Frame {
    Object {
        key: Option<String>,
        expecting_key: bool,
    },
    /// `started`: an item has begun at `index` (before that, a position is
    /// the array's own: `[` just read, as when the array has the wrong type).
    Array {
        index: usize,
        started: bool,
    },
}

/// The JSON pointer of the innermost value open at `line:column` (serde_json's
/// 1-based error position) in `text`. An object or array that was closed
/// before the position is reported by its own pointer, and so is one whose
/// first member or item has not begun.
pub fn pointer_at(text: &str, line: usize, column: usize) -> String {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let end = start.saturating_add(column).min(text.len());
    let bytes = &text.as_bytes()[..end];
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if let Some(Frame::Array { started: started @ false, .. }) = stack.last_mut() {
            *started = !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b']' | b',');
        }
        match bytes[i] {
            b'"' => {
                let from = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { key, expecting_key: expecting @ true }) = stack.last_mut() {
                    // Byte offsets: an escape's second byte can be the first
                    // of a multi-byte character, so `i` need not sit on a
                    // character boundary of `text` (nor `end`, serde_json's
                    // column counts bytes). Cut the bytes, never the `str`.
                    let raw = String::from_utf8_lossy(&text.as_bytes()[from..i.min(text.len())]);
                    *key = Some(
                        serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.into_owned()),
                    );
                    *expecting = false;
                }
            }
            b'{' => stack.push(Frame::Object { key: None, expecting_key: true }),
            b'[' => stack.push(Frame::Array { index: 0, started: false }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { key, expecting_key }) => {
                    *key = None;
                    *expecting_key = true;
                }
                Some(Frame::Array { index, started }) => {
                    *index += 1;
                    *started = false;
                }
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut out = String::new();
    for f in &stack {
        match f {
            Frame::Object { key: Some(k), .. } => {
                out.push('/');
                out.push_str(&escape(k));
            }
            Frame::Array { index, started: true } => out.push_str(&format!("/{index}")),
            Frame::Array { started: false, .. } => {}
            Frame::Object { key: None, .. } => {}
        }
    }
    out
}

/// What an omitted or `null` payload means for a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullMode {
    /// The payload has no required field: omitted or `null` is the empty payload.
    Empty,
    /// The payload is any JSON: omitted or `null` is `null`.
    Value,
    /// The payload needs an object.
    Refuse,
}

/// Decodes a method payload according to its [`NullMode`] and makes it a message enum's arm
/// with `arm` (the variant that holds it).
pub fn payload<T: DeserializeOwned, S>(
    method: &str,
    raw: Option<&RawValue>,
    mode: NullMode,
    arm: impl FnOnce(T) -> S,
) -> Result<(S, ParamsForm), DispatchError> {
    let form = match raw {
        None => ParamsForm::Absent,
        Some(r) if r.get().trim() == "null" => ParamsForm::Null,
        Some(_) => ParamsForm::Object,
    };
    match (form, raw, mode) {
        (ParamsForm::Object, Some(r), _) => decode(r.get()).map(|v| (arm(v), form)),
        (_, _, NullMode::Empty) => decode("{}").map(|v| (arm(v), form)),
        (_, _, NullMode::Value) => decode("null").map(|v| (arm(v), form)),
        _ => Err(DispatchError::new(
            DispatchErrorKind::InvalidPayload,
            "",
            format!(
                "`{method}` needs a payload object, found {}",
                if form == ParamsForm::Null { "null" } else { "none" }
            ),
        )),
    }
}

/// The raw params of an extension method.
pub fn ext(method: &str, raw: Option<&RawValue>) -> Result<ExtMethod, DispatchError> {
    let params = match raw {
        None => None,
        Some(r) => Some(decode::<Value>(r.get())?),
    };
    Ok(ExtMethod { method: method.to_owned(), params })
}

/// The error for a method that is not defined.
pub fn unknown_method(method: &str, kind: &str) -> DispatchError {
    DispatchError::new(
        DispatchErrorKind::UnknownMethod,
        "/method",
        format!("unknown {kind} method `{method}` (extension methods start with `_`)"),
    )
}

/// Writes a payload the way it arrived: an empty payload that came as `null`
/// or omitted goes back that way.
pub fn encode_payload<T: Serialize>(payload: &T, form: ParamsForm) -> Result<Option<Value>, serde_json::Error> {
    let value = serde_json::to_value(payload)?;
    let empty = value.is_null() || value.as_object().is_some_and(|m| m.is_empty());
    Ok(match form {
        ParamsForm::Absent if empty => None,
        ParamsForm::Null if empty => Some(Value::Null),
        _ => Some(value),
    })
}

/// Writes a payload as the member `key` of a message being serialized, as
/// [`encode_payload`] would: the usual object form streams straight into the
/// serializer (no `Value` is built); the `null` and omitted forms, which
/// depend on whether the payload is empty, go through [`encode_payload`]. A
/// `required` member (a response's `result`) is `null` rather than omitted.
pub fn write_payload<M: SerializeMap, T: Serialize>(
    map: &mut M,
    key: &'static str,
    payload: &T,
    form: ParamsForm,
    required: bool,
) -> Result<(), M::Error> {
    if form == ParamsForm::Object {
        return map.serialize_entry(key, payload);
    }
    let value = encode_payload(payload, form).map_err(M::Error::custom)?;
    write_raw_payload(map, key, value.as_ref(), required)
}

/// [`write_payload`] for an extension's params, kept as received.
pub fn write_raw_payload<M: SerializeMap>(
    map: &mut M,
    key: &'static str,
    params: Option<&Value>,
    required: bool,
) -> Result<(), M::Error> {
    match params {
        Some(v) => map.serialize_entry(key, v),
        None if required => map.serialize_entry(key, &Value::Null),
        None => Ok(()),
    }
}

/// A JSON-RPC 2.0 message before dispatch: every member kept raw.
///
/// [`RawMessage::parse`] reads the envelope of one line without typing its
/// payload: the generated `rpc::Message::decode` and the `rpc` peers start
/// from it, and a tool that routes lines without decoding them (a proxy, a
/// logger) can use it alone.
///
/// Every member is read under the bindings' rule for repeated names: a
/// member named twice, a known one or not, is an error, and so is an object
/// naming a member twice inside a member this type does not keep.
#[derive(Debug, Default)]
pub struct RawMessage<'a> {
    /// Must be `"2.0"`.
    pub jsonrpc: Option<&'a RawValue>,
    /// The id, raw (its type depends on the protocol version).
    pub id: Option<&'a RawValue>,
    /// The method of a request or notification.
    pub method: Option<std::borrow::Cow<'a, str>>,
    /// The params, raw; `Some("null")` when the member was `null`.
    pub params: Option<&'a RawValue>,
    /// The result of a success response.
    pub result: Option<&'a RawValue>,
    /// The error of an error response.
    pub error: Option<&'a RawValue>,
}

mod envelope;

impl<'a> RawMessage<'a> {
    /// Parses the envelope and checks `jsonrpc`.
    ///
    /// A line that is not JSON is a [`DispatchErrorKind::Parse`] error, JSON
    /// that is not a JSON-RPC 2.0 message an
    /// [`DispatchErrorKind::InvalidMessage`] one; both are answered with the
    /// `null` id, or with the message's own id when it is a request.
    pub fn parse(text: &'a str) -> Result<Self, DispatchError> {
        let not_json = |e: serde_json::Error| {
            DispatchError::new(DispatchErrorKind::Parse, "", format!("not JSON: {e}")).replying_to_null()
        };
        // serde would read an array as a struct too (a JSON-RPC batch, which ACP does not use).
        if !text.trim_start().starts_with('{') {
            return Err(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Err(e) => not_json(e),
                Ok(_) => DispatchError::new(DispatchErrorKind::InvalidMessage, "", "a JSON-RPC message is an object")
                    .replying_to_null(),
            });
        }
        let raw: RawMessage<'a> = match serde_json::from_str(text) {
            Ok(raw) => raw,
            Err(e) => {
                // Text that is not JSON is reported by its syntax error, even
                // when the envelope met a member of the wrong type first.
                if let Err(syntax) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
                    return Err(not_json(syntax));
                }
                // The member at fault by its pointer (`/method`), the message without serde's position.
                let pointer = if e.line() > 0 { pointer_at(text, e.line(), e.column()) } else { String::new() };
                let message = e.to_string();
                let message = message.rfind(" at line ").map_or(message.as_str(), |i| &message[..i]);
                let message = format!("not a JSON-RPC message: {message}");
                // Answer with the id when the object has a readable one.
                let members = serde_json::from_str::<std::collections::HashMap<String, &RawValue>>(text).ok();
                let id = members.as_ref().and_then(|m| m.get("id")).copied();
                let err = DispatchError::new(DispatchErrorKind::InvalidMessage, pointer, message);
                return Err(match id {
                    Some(id) => err.replying_to(id),
                    None => err.replying_to_null(),
                });
            }
        };
        // Usually the exact text `"2.0"`; a string spelled with escapes is decoded.
        let version_ok = raw
            .jsonrpc
            .is_some_and(|v| v.get() == "\"2.0\"" || serde_json::from_str::<String>(v.get()).is_ok_and(|s| s == "2.0"));
        if !version_ok {
            return Err(raw.invalid("/jsonrpc", "`jsonrpc` must be \"2.0\""));
        }
        Ok(raw)
    }

    /// What the message is, by its members: a request, a notification, a
    /// success or an error response; anything else is an
    /// [`DispatchErrorKind::InvalidMessage`] error.
    pub fn envelope(&self) -> Result<Envelope<'_>, DispatchError> {
        match (self.method.as_deref(), self.id, self.result, self.error) {
            (Some(method), Some(id), None, None) => Ok(Envelope::Request { id, method, params: self.params }),
            (Some(method), None, None, None) => Ok(Envelope::Notification { method, params: self.params }),
            (None, Some(id), Some(result), None) => Ok(Envelope::Response { id, result }),
            (None, Some(id), None, Some(error)) => Ok(Envelope::Error { id, error }),
            (None, None, _, _) => Err(self.invalid("/id", "a response without an `id`")),
            _ => {
                Err(self
                    .invalid("", "not a request, notification or response: check `method`, `id`, `result` and `error`"))
            }
        }
    }

    /// `true` when the message has the shape of a response (`result` or
    /// `error`, no `method`).
    pub fn is_response(&self) -> bool {
        self.method.is_none() && (self.result.is_some() || self.error.is_some())
    }

    /// An [`DispatchErrorKind::InvalidMessage`] error about this message,
    /// answered as JSON-RPC asks: a message shaped like a response is never
    /// answered, anything else is answered with its id (or `null`).
    pub fn invalid(&self, pointer: &str, message: &str) -> DispatchError {
        let err = DispatchError::new(DispatchErrorKind::InvalidMessage, pointer, message);
        match (self.is_response(), self.id) {
            (true, _) => err,
            (false, Some(id)) if id.get() != "null" => err.replying_to(id),
            (false, _) => err.replying_to_null(),
        }
    }
}

/// The kind of a JSON-RPC message with its members, raw ([`RawMessage::envelope`]).
#[derive(Debug, Clone, Copy)]
pub enum Envelope<'a> {
    /// A request: `method` and `id`.
    Request {
        /// The id, raw.
        id: &'a RawValue,
        /// The method.
        method: &'a str,
        /// The params, raw (`None` when omitted).
        params: Option<&'a RawValue>,
    },
    /// A notification: `method`, no `id`.
    Notification {
        /// The method.
        method: &'a str,
        /// The params, raw (`None` when omitted).
        params: Option<&'a RawValue>,
    },
    /// A success response: `id` and `result`.
    Response {
        /// The id, raw.
        id: &'a RawValue,
        /// The result, raw.
        result: &'a RawValue,
    },
    /// An error response: `id` (maybe `null`) and `error`.
    Error {
        /// The id, raw.
        id: &'a RawValue,
        /// The error object, raw.
        error: &'a RawValue,
    },
}

/// Decodes the id of a message as `T`: an id of the wrong type makes the
/// message invalid (a request with such an id is answered with the `null` id:
/// the caller adds [`DispatchError::replying_to_null`]).
pub fn request_id<T: DeserializeOwned>(raw: &RawValue) -> Result<T, DispatchError> {
    serde_json::from_str(raw.get()).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_owned(),
            None => message,
        };
        DispatchError::new(DispatchErrorKind::InvalidMessage, "/id", format!("invalid request id: {message}"))
    })
}

mod streamed;
pub use streamed::{read_streamed, read_streamed_with, Streamed, StreamedMessage};

mod message;
pub use message::{EncodePayload, Message, Payload, Version};

mod peer;
pub use peer::{Event, NoNotification, Peer, Role, SidePayload};

#[cfg(test)]
mod tests;

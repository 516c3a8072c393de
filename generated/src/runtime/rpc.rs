//! JSON-RPC plumbing shared by the generated `rpc` modules: the raw envelope,
//! dispatch errors with JSON pointers, and how `params`/`result` were written.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchError {
    kind: DispatchErrorKind,
    pointer: String,
    message: String,
}

/// The class of a [`DispatchError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchErrorKind {
    /// A method this version does not define (and that does not start with `_`).
    UnknownMethod,
    /// The params or result do not decode as the method's payload.
    InvalidPayload,
    /// The message is not a valid JSON-RPC 2.0 message of this version.
    InvalidMessage,
    /// A response whose request is not known.
    UnknownRequest,
}

impl DispatchError {
    #[doc(hidden)]
    pub fn new(kind: DispatchErrorKind, pointer: impl Into<String>, message: impl Into<String>) -> Self {
        DispatchError { kind, pointer: pointer.into(), message: message.into() }
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

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{} (at {})", self.message, self.pointer)
        }
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
    Object { key: Option<String>, expecting_key: bool },
    Array { index: usize },
}

/// The JSON pointer of the innermost value open at `line:column` (serde_json's
/// 1-based error position) in `text`. An object or array that was closed
/// before the position is reported by its own pointer.
pub fn pointer_at(text: &str, line: usize, column: usize) -> String {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let end = (start + column).min(text.len());
    let bytes = &text.as_bytes()[..end];
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let from = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object { key, expecting_key: expecting @ true }) = stack.last_mut() {
                    let raw = &text[from..i.min(text.len())];
                    *key =
                        Some(serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned()));
                    *expecting = false;
                }
            }
            b'{' => stack.push(Frame::Object { key: None, expecting_key: true }),
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { key, expecting_key }) => {
                    *key = None;
                    *expecting_key = true;
                }
                Some(Frame::Array { index }) => *index += 1,
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
            Frame::Array { index } => out.push_str(&format!("/{index}")),
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

/// Decodes a method payload according to its [`NullMode`].
pub fn payload<T: DeserializeOwned>(
    method: &str,
    raw: Option<&RawValue>,
    mode: NullMode,
) -> Result<(T, ParamsForm), DispatchError> {
    let form = match raw {
        None => ParamsForm::Absent,
        Some(r) if r.get().trim() == "null" => ParamsForm::Null,
        Some(_) => ParamsForm::Object,
    };
    match (form, raw, mode) {
        (ParamsForm::Object, Some(r), _) => decode(r.get()).map(|v| (v, form)),
        (_, _, NullMode::Empty) => decode("{}").map(|v| (v, form)),
        (_, _, NullMode::Value) => decode("null").map(|v| (v, form)),
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

/// A JSON-RPC 2.0 message before dispatch: every member kept raw.
#[derive(Debug, Deserialize)]
pub struct RawMessage<'a> {
    /// Must be `"2.0"`.
    #[serde(default)]
    pub jsonrpc: Option<String>,
    /// The id, raw (its type depends on the protocol version).
    #[serde(default, borrow, deserialize_with = "present")]
    pub id: Option<&'a RawValue>,
    /// The method of a request or notification.
    #[serde(default)]
    pub method: Option<String>,
    /// The params, raw; `Some("null")` when the member was `null`.
    #[serde(default, borrow, deserialize_with = "present")]
    pub params: Option<&'a RawValue>,
    /// The result of a success response.
    #[serde(default, borrow, deserialize_with = "present")]
    pub result: Option<&'a RawValue>,
    /// The error of an error response.
    #[serde(default, borrow, deserialize_with = "present")]
    pub error: Option<&'a RawValue>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

impl<'a> RawMessage<'a> {
    /// Parses the envelope and checks `jsonrpc`.
    pub fn parse(text: &'a str) -> Result<Self, DispatchError> {
        let raw: RawMessage<'a> = serde_json::from_str(text).map_err(|e| {
            DispatchError::new(DispatchErrorKind::InvalidMessage, "", format!("not a JSON-RPC message: {e}"))
        })?;
        if raw.jsonrpc.as_deref() != Some("2.0") {
            return Err(DispatchError::new(DispatchErrorKind::InvalidMessage, "/jsonrpc", "`jsonrpc` must be \"2.0\""));
        }
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::pointer_at;

    fn at(text: &str, needle: &str) -> String {
        let i = text.find(needle).expect("needle") + needle.len();
        pointer_at(text, 1, i)
    }

    #[test]
    fn positions_map_to_json_pointers() {
        let t = r#"{"a": {"b": [1, {"c~/d": 7}]}, "e": "x"}"#;
        assert_eq!(at(t, "7"), "/a/b/1/c~0~1d");
        assert_eq!(at(t, "[1"), "/a/b/0");
        assert_eq!(at(t, "7}"), "/a/b/1", "a closed object is reported by its own pointer");
        assert_eq!(at(t, r#""x""#), "/e");
        assert_eq!(at(t, r#"7}]}, "e": "x"}"#), "");
        let multi = "{\n  \"k\": [\n    true,\n    5\n  ]\n}";
        assert_eq!(pointer_at(multi, 4, 5), "/k/1");
        let escaped = r#"{"a\"b": 1}"#;
        assert_eq!(at(escaped, "1"), "/a\"b");
    }
}

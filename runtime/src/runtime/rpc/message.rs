//! One JSON-RPC message with its payload typed, for any protocol version:
//! [`Message`] is written once here, generic over what a version supplies
//! ([`Version`]: its request id and error types and its three payload
//! enums); each version's `rpc` module names it (`v2::rpc::Message` is
//! `Message<v2::rpc::Protocol>`).

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::ser::SerializeMap;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{DispatchError, DispatchErrorKind, ParamsForm, Streamed};

/// What a protocol version supplies to [`Message`]: the generated module's
/// `Protocol` implements it (a type without values, as a name for the version).
pub trait Version: Debug + Clone + PartialEq {
    /// The request id (`RequestId`).
    type Id: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    /// The error object of an error response (`Error`).
    type Error: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    /// Any request of the version, whichever side handles it (`Request`).
    type Request: EncodePayload + Streamed;
    /// Any notification of the version (`Notification`).
    type Notification: EncodePayload + Streamed;
    /// Any success response of the version, typed by its request's method (`Response`).
    type Response: EncodePayload;
}

/// An enum of the payloads of one kind, a version's (`Request`,
/// `Notification`, `Response`) or a side's (`RequestToAgent`, ...): what
/// [`Message`] and the peers read of it. The generated enums have the same
/// methods inherently.
pub trait Payload: Sized + Clone + Debug + PartialEq {
    /// The wire method name.
    fn method(&self) -> &str;

    /// Decodes the payload of `method` (for a response: of the request's
    /// method) from its `params` or `result` member, absent as `None`.
    fn decode(method: &str, raw: Option<&RawValue>) -> Result<(Self, ParamsForm), DispatchError>;
}

/// A version's enum of the payloads of one kind: what [`Message`] writes of it.
pub trait EncodePayload: Payload {
    /// Encodes the payload; `form` says how an empty payload is written.
    fn encode(&self, form: ParamsForm) -> Result<Option<Value>, serde_json::Error>;

    /// Writes the payload as the member `key` of a message being serialized,
    /// as [`EncodePayload::encode`] would; `required` writes `null` for an absent one.
    fn write_payload<M: SerializeMap>(
        &self,
        map: &mut M,
        key: &'static str,
        form: ParamsForm,
        required: bool,
    ) -> Result<(), M::Error>;
}

/// A JSON-RPC 2.0 message of version `V`, with its payload typed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message<V: Version> {
    /// A request.
    Request {
        /// The request id.
        id: V::Id,
        /// The typed params.
        request: V::Request,
        /// How `params` was written.
        form: ParamsForm,
    },
    /// A notification.
    Notification {
        /// The typed params.
        notification: V::Notification,
        /// How `params` was written.
        form: ParamsForm,
    },
    /// A success response.
    Response {
        /// The id of the request it answers.
        id: V::Id,
        /// The typed result.
        response: V::Response,
        /// How `result` was written.
        form: ParamsForm,
    },
    /// An error response; only it may carry a `null` id.
    Error {
        /// The id of the request it answers, `None` for `null`.
        id: Option<V::Id>,
        /// The error.
        error: V::Error,
    },
}

impl<V: Version> Message<V> {
    /// Decodes one message. `request_method` gives the method of the
    /// request a response answers (responses are typed by it).
    pub fn decode(text: &str, request_method: impl FnOnce(&V::Id) -> Option<String>) -> Result<Self, DispatchError> {
        let mut request_method = Some(request_method);
        Self::decode_with(text, &mut |id| request_method.take().and_then(|f| f(id)))
    }

    /// [`Message::decode`] with the callback as a trait object: a build has
    /// one copy of the decoder per version whatever closures its callers
    /// pass, compiled and inlined the same way for each.
    fn decode_with(
        text: &str,
        request_method: &mut dyn FnMut(&V::Id) -> Option<String>,
    ) -> Result<Self, DispatchError> {
        use super::{decode, request_id, Envelope, RawMessage};
        // The common case in one pass; anything else, and every error, the
        // usual way below (the same result).
        let streamed = super::read_streamed_with::<V::Request, V::Notification, Self>(
            text,
            &mut |id, request| {
                let id = request_id::<V::Id>(id).ok()?;
                Some(Message::Request { id, request, form: ParamsForm::Object })
            },
            &mut |notification| Message::Notification { notification, form: ParamsForm::Object },
        );
        if let Some(message) = streamed {
            return Ok(message);
        }
        let raw = RawMessage::parse(text)?;
        match raw.envelope()? {
            Envelope::Request { id: id_raw, method, params } => {
                let id: V::Id = request_id(id_raw).map_err(DispatchError::replying_to_null)?;
                let (request, form) =
                    V::Request::decode(method, params).map_err(|e| e.under("/params").replying_to(id_raw))?;
                Ok(Message::Request { id, request, form })
            }
            Envelope::Notification { method, params } => {
                let (notification, form) = V::Notification::decode(method, params).map_err(|e| e.under("/params"))?;
                Ok(Message::Notification { notification, form })
            }
            Envelope::Response { id: id_raw, result } => {
                let id: V::Id = request_id(id_raw)?;
                let method = request_method(&id).ok_or_else(|| {
                    DispatchError::new(
                        DispatchErrorKind::UnknownRequest,
                        "/id",
                        "a response whose request is not known",
                    )
                    .with_id(id_raw)
                })?;
                let (response, form) =
                    V::Response::decode(&method, Some(result)).map_err(|e| e.under("/result").with_id(id_raw))?;
                Ok(Message::Response { id, response, form })
            }
            Envelope::Error { id: id_raw, error } => {
                let id: Option<V::Id> = request_id(id_raw)?;
                let error: V::Error = decode(error.get()).map_err(|e| e.under("/error").with_id(id_raw))?;
                Ok(Message::Error { id, error })
            }
        }
    }

    /// The message as JSON.
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        let (method, id, params, result, error) = match self {
            Message::Request { id, request, form } => (
                Some(Value::from(request.method())),
                Some(serde_json::to_value(id)?),
                request.encode(*form)?,
                None,
                None,
            ),
            Message::Notification { notification, form } => {
                (Some(Value::from(notification.method())), None, notification.encode(*form)?, None, None)
            }
            Message::Response { id, response, form } => (
                None,
                Some(serde_json::to_value(id)?),
                None,
                Some(response.encode(*form)?.unwrap_or(Value::Null)),
                None,
            ),
            Message::Error { id, error } => {
                (None, Some(serde_json::to_value(id)?), None, None, Some(serde_json::to_value(error)?))
            }
        };
        let mut map = serde_json::Map::new();
        map.insert("jsonrpc".into(), "2.0".into());
        for (k, v) in [("id", id), ("method", method), ("params", params), ("result", result), ("error", error)] {
            if let Some(v) = v {
                map.insert(k.into(), v);
            }
        }
        Ok(Value::Object(map))
    }

    /// A request with the usual `params` form (an object).
    ///
    /// `request` is the payload (`PromptRequest`), a side's enum
    /// (`RequestToAgent`) or a `Request`.
    pub fn request(id: impl Into<V::Id>, request: impl Into<V::Request>) -> Self {
        Message::Request { id: id.into(), request: request.into(), form: ParamsForm::Object }
    }

    /// A notification with the usual `params` form (an object).
    pub fn notification(notification: impl Into<V::Notification>) -> Self {
        Message::Notification { notification: notification.into(), form: ParamsForm::Object }
    }

    /// A success response with the usual `result` form (an object).
    pub fn response(id: impl Into<V::Id>, response: impl Into<V::Response>) -> Self {
        Message::Response { id: id.into(), response: response.into(), form: ParamsForm::Object }
    }

    /// An error response; `None` is the `null` id (the request's id could not be read).
    pub fn error(id: impl Into<Option<V::Id>>, error: V::Error) -> Self {
        Message::Error { id: id.into(), error }
    }

    /// The message with `params` (or `result`) written in `form`: an empty
    /// payload can go out as `null` or be omitted. No effect on an error
    /// response.
    #[must_use]
    pub fn with_form(mut self, form: ParamsForm) -> Self {
        match &mut self {
            Message::Request { form: f, .. }
            | Message::Notification { form: f, .. }
            | Message::Response { form: f, .. } => *f = form,
            Message::Error { .. } => {}
        }
        self
    }

    /// The error response JSON-RPC asks for when a line could not be
    /// decoded: `None` when the line was a notification or a response (never
    /// answered); otherwise an error with [`DispatchError::code`] (`-32601`
    /// unknown method, `-32602` invalid params, `-32600` invalid request,
    /// `-32700` not JSON), the error's text as `message`, its JSON pointer in
    /// `data.pointer`, and the request's id (`null` when it could not be read).
    pub fn error_reply(error: &DispatchError) -> Option<Self> {
        let id_json = error.reply_id_json()?;
        let id: Option<V::Id> = serde_json::from_str(id_json).ok().flatten();
        let object: V::Error = serde_json::from_value(error.error_object()).ok()?;
        Some(Message::Error { id, error: object })
    }

    /// The id of a request or response.
    pub fn id(&self) -> Option<&V::Id> {
        match self {
            Message::Request { id, .. } | Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            Message::Notification { .. } => None,
        }
    }
}

/// The members in the order [`Message::to_value`] gives them (`jsonrpc`,
/// `id`, `method`, then `params`, `result` or `error`), streamed: the payload
/// is serialized in place, not built as a `Value` first.
impl<V: Version> Serialize for Message<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Message::Request { id, request, form } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("method", request.method())?;
                request.write_payload(&mut map, "params", *form, false)?;
            }
            Message::Notification { notification, form } => {
                map.serialize_entry("method", notification.method())?;
                notification.write_payload(&mut map, "params", *form, false)?;
            }
            Message::Response { id, response, form } => {
                map.serialize_entry("id", id)?;
                response.write_payload(&mut map, "result", *form, true)?;
            }
            Message::Error { id, error } => {
                map.serialize_entry("id", id)?;
                map.serialize_entry("error", error)?;
            }
        }
        map.end()
    }
}

//! The `Message` enum each version's `rpc` module gets: one JSON-RPC
//! message with its payload typed, decoded in one pass when it can be, and
//! serialized in place.

use proc_macro2::TokenStream;
use quote::quote;

/// The `Message` enum of a version: its type, decoding, JSON forms and
/// constructors, and its streamed `Serialize`.
pub(super) fn message(rt: &TokenStream) -> TokenStream {
    let (decode, to_value, ctors, serialize) =
        (message_decode(rt), message_to_value(), message_constructors(), message_serialize());
    quote! {
        /// A JSON-RPC 2.0 message of this version, with its payload typed.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Message {
            /// A request.
            Request {
                /// The request id (never `null` in v2).
                id: super::RequestId,
                /// The typed params.
                request: Request,
                /// How `params` was written.
                form: ParamsForm,
            },
            /// A notification.
            Notification {
                /// The typed params.
                notification: Notification,
                /// How `params` was written.
                form: ParamsForm,
            },
            /// A success response.
            Response {
                /// The id of the request it answers.
                id: super::RequestId,
                /// The typed result.
                response: Response,
                /// How `result` was written.
                form: ParamsForm,
            },
            /// An error response; only it may carry a `null` id.
            Error {
                /// The id of the request it answers, `None` for `null`.
                id: ::core::option::Option<super::RequestId>,
                /// The error.
                error: super::Error,
            },
        }

        impl Message {
            #decode
            #to_value
            #ctors
        }

        #serialize
    }
}

/// `Message::decode`: the streamed fast path, then every case and error.
fn message_decode(rt: &TokenStream) -> TokenStream {
    quote! {
            /// Decodes one message. `request_method` gives the method of the
            /// request a response answers (responses are typed by it).
            pub fn decode(
                text: &str,
                request_method: impl ::core::ops::FnOnce(&super::RequestId) -> ::core::option::Option<::std::string::String>,
            ) -> ::core::result::Result<Self, DispatchError> {
                let mut request_method = ::core::option::Option::Some(request_method);
                Self::decode_with(text, &mut |id| request_method.take().and_then(|f| f(id)))
            }

            /// [`Message::decode`] with the callback as a trait object: a
            /// build has one copy of the decoder whatever closures its
            /// callers pass, compiled and inlined the same way for each.
            fn decode_with(
                text: &str,
                request_method: &mut dyn ::core::ops::FnMut(&super::RequestId) -> ::core::option::Option<::std::string::String>,
            ) -> ::core::result::Result<Self, DispatchError> {
                use #rt::rpc::{decode, request_id, DispatchErrorKind, Envelope, RawMessage};
                // The common case in one pass; anything else, and every
                // error, the usual way below (the same result).
                let streamed = #rt::rpc::read_streamed_with::<Request, Notification, Message>(
                    text,
                    &mut |id, request| {
                        let id = request_id::<super::RequestId>(id).ok()?;
                        ::core::option::Option::Some(Message::Request { id, request, form: ParamsForm::Object })
                    },
                    &mut |notification| Message::Notification { notification, form: ParamsForm::Object },
                );
                if let ::core::option::Option::Some(message) = streamed {
                    return ::core::result::Result::Ok(message);
                }
                let raw = RawMessage::parse(text)?;
                match raw.envelope()? {
                    Envelope::Request { id: id_raw, method, params } => {
                        let id: super::RequestId = request_id(id_raw).map_err(DispatchError::replying_to_null)?;
                        let (request, form) = Request::decode(method, params).map_err(|e| e.under("/params").replying_to(id_raw))?;
                        ::core::result::Result::Ok(Message::Request { id, request, form })
                    }
                    Envelope::Notification { method, params } => {
                        let (notification, form) = Notification::decode(method, params).map_err(|e| e.under("/params"))?;
                        ::core::result::Result::Ok(Message::Notification { notification, form })
                    }
                    Envelope::Response { id: id_raw, result } => {
                        let id: super::RequestId = request_id(id_raw)?;
                        let method = request_method(&id).ok_or_else(|| DispatchError::new(
                            DispatchErrorKind::UnknownRequest, "/id", "a response whose request is not known",
                        ).with_id(id_raw))?;
                        let (response, form) = Response::decode(&method, ::core::option::Option::Some(result)).map_err(|e| e.under("/result").with_id(id_raw))?;
                        ::core::result::Result::Ok(Message::Response { id, response, form })
                    }
                    Envelope::Error { id: id_raw, error } => {
                        let id: ::core::option::Option<super::RequestId> = request_id(id_raw)?;
                        let error: super::Error = decode(error.get()).map_err(|e| e.under("/error").with_id(id_raw))?;
                        ::core::result::Result::Ok(Message::Error { id, error })
                    }
                }
            }

    }
}

/// `Message::to_value`.
fn message_to_value() -> TokenStream {
    quote! {
            /// The message as JSON.
            pub fn to_value(&self) -> ::core::result::Result<::serde_json::Value, ::serde_json::Error> {
                let (method, id, params, result, error) = match self {
                    Message::Request { id, request, form } => (
                        ::core::option::Option::Some(::serde_json::Value::from(request.method())),
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        request.encode(*form)?,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    ),
                    Message::Notification { notification, form } => (
                        ::core::option::Option::Some(::serde_json::Value::from(notification.method())),
                        ::core::option::Option::None,
                        notification.encode(*form)?,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    ),
                    Message::Response { id, response, form } => (
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        ::core::option::Option::None,
                        ::core::option::Option::Some(response.encode(*form)?.unwrap_or(::serde_json::Value::Null)),
                        ::core::option::Option::None,
                    ),
                    Message::Error { id, error } => (
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(error)?),
                    ),
                };
                let mut map = ::serde_json::Map::new();
                map.insert("jsonrpc".into(), "2.0".into());
                for (k, v) in [("id", id), ("method", method), ("params", params), ("result", result), ("error", error)] {
                    if let ::core::option::Option::Some(v) = v {
                        map.insert(k.into(), v);
                    }
                }
                ::core::result::Result::Ok(::serde_json::Value::Object(map))
            }

    }
}

/// `Message`'s constructors and accessors.
fn message_constructors() -> TokenStream {
    quote! {
            /// A request with the usual `params` form (an object).
            ///
            /// `request` is the payload (`PromptRequest`), a side's enum
            /// (`RequestToAgent`) or a `Request`.
            pub fn request(id: impl ::core::convert::Into<super::RequestId>, request: impl ::core::convert::Into<Request>) -> Self {
                Message::Request { id: id.into(), request: request.into(), form: ParamsForm::Object }
            }

            /// A notification with the usual `params` form (an object).
            pub fn notification(notification: impl ::core::convert::Into<Notification>) -> Self {
                Message::Notification { notification: notification.into(), form: ParamsForm::Object }
            }

            /// A success response with the usual `result` form (an object).
            pub fn response(id: impl ::core::convert::Into<super::RequestId>, response: impl ::core::convert::Into<Response>) -> Self {
                Message::Response { id: id.into(), response: response.into(), form: ParamsForm::Object }
            }

            /// An error response; `None` is the `null` id (the request's id could not be read).
            pub fn error(id: impl ::core::convert::Into<::core::option::Option<super::RequestId>>, error: super::Error) -> Self {
                Message::Error { id: id.into(), error }
            }

            /// The message with `params` (or `result`) written in `form`: an
            /// empty payload can go out as `null` or be omitted. No effect on
            /// an error response.
            #[must_use]
            pub fn with_form(mut self, form: ParamsForm) -> Self {
                match &mut self {
                    Message::Request { form: f, .. } | Message::Notification { form: f, .. } | Message::Response { form: f, .. } => *f = form,
                    Message::Error { .. } => {}
                }
                self
            }

            /// The error response JSON-RPC asks for when a line could not be
            /// decoded: `None` when the line was a notification or a response
            /// (never answered); otherwise an error with
            /// [`DispatchError::code`] (`-32601` unknown method, `-32602`
            /// invalid params, `-32600` invalid request, `-32700` not JSON),
            /// the error's text as `message`, its JSON pointer in
            /// `data.pointer`, and the request's id (`null` when it could not
            /// be read).
            pub fn error_reply(error: &DispatchError) -> ::core::option::Option<Self> {
                let id_json = error.reply_id_json()?;
                let id: ::core::option::Option<super::RequestId> = ::serde_json::from_str(id_json).ok().flatten();
                let object: super::Error = ::serde_json::from_value(error.error_object()).ok()?;
                ::core::option::Option::Some(Message::Error { id, error: object })
            }

            /// The id of a request or response.
            pub fn id(&self) -> ::core::option::Option<&super::RequestId> {
                match self {
                    Message::Request { id, .. } | Message::Response { id, .. } => ::core::option::Option::Some(id),
                    Message::Error { id, .. } => id.as_ref(),
                    Message::Notification { .. } => ::core::option::Option::None,
                }
            }
    }
}

/// The streamed `Serialize` of `Message`.
fn message_serialize() -> TokenStream {
    quote! {
        /// The members in the order [`Message::to_value`] gives them
        /// (`jsonrpc`, `id`, `method`, then `params`, `result` or `error`),
        /// streamed: the payload is serialized in place, not built as a
        /// `Value` first.
        impl ::serde::Serialize for Message {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                use ::serde::ser::SerializeMap as _;
                let mut map = serializer.serialize_map(::core::option::Option::None)?;
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
    }
}

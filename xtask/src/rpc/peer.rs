//! IR -> the sans-IO peers of an `rpc` module (`AgentPeer`, `ClientPeer`).
//!
//! A peer is one end of a connection: it allocates the ids of the requests it
//! sends, remembers which method each one was so the answer decodes as the
//! right type, remembers the requests it received until they are answered,
//! and turns every incoming line into a typed event. It never reads or
//! writes: the caller moves the lines, so the same peer serves blocking and
//! async code.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::enum_name;
use crate::model::{MethodKind, Side};

/// One `#[doc]` attribute per line, as every other generated item has.
fn lines(text: String) -> TokenStream {
    crate::emit::docs(&Some(text))
}

/// The sides that get a peer: the two ends of an ACP connection. (A proxy
/// stands between them and speaks both; it is left to two peers.)
pub use crate::plan::PEER_SIDES as SIDES;

fn other(side: Side) -> Side {
    match side {
        Side::Agent => Side::Client,
        _ => Side::Agent,
    }
}

use crate::plan::item_names::peer_names as item_names;

/// The names a peer's items use, shared by the pieces of [`peer`].
struct PeerNames {
    peer: Ident,
    event: Ident,
    /// What this side handles: requests, notifications, and its answers.
    handled: Ident,
    handled_notes: Ident,
    answers: Ident,
    /// What this side sends: requests, notifications, and the answers it gets.
    sent: Ident,
    sent_notes: Ident,
    answered: Ident,
}

/// The peer and its event enum for `side`. `any_side` says whether the module
/// has `$/` notifications (`NotificationToAnySide`).
pub fn peer(side: Side, any_side: bool, rt: &TokenStream) -> TokenStream {
    let o = other(side);
    let [peer, event] = item_names(side).map(|n| format_ident!("{n}"));
    let name = |s: Side, k: MethodKind| -> Ident { format_ident!("{}", enum_name(s, k)) };
    let n = PeerNames {
        peer,
        event,
        handled: name(side, MethodKind::Request),
        handled_notes: name(side, MethodKind::Notification),
        answers: name(side, MethodKind::Response),
        sent: name(o, MethodKind::Request),
        sent_notes: name(o, MethodKind::Notification),
        answered: name(o, MethodKind::Response),
    };
    let types = peer_types(&n, side, any_side);
    let sending = peer_sending(&n, side, any_side);
    let receive = peer_receive(&n, any_side, rt);
    let helpers = peer_helpers(&n);
    let peer = &n.peer;
    quote! {
        #types
        impl #peer {
            #sending
            #receive
            #helpers
        }
    }
}

/// The peer struct and its event enum.
fn peer_types(n: &PeerNames, side: Side, any_side: bool) -> TokenStream {
    let PeerNames { peer, event, handled, handled_notes, answered, .. } = n;
    let (me, them) = (side.as_str(), other(side).as_str());
    let peer_doc = lines(format!(
        "The {me}'s end of a connection, without IO.\n\n\
         It allocates the ids of the requests the {me} sends ([`{peer}::request`]), remembers each\n\
         until it is answered so that the answer decodes as the right type, remembers the requests\n\
         the {me} receives until [`{peer}::respond`] answers them, and turns every line the {them}\n\
         sends into an [`{event}`]. It never reads or writes: the caller moves the lines (one JSON\n\
         text per line on stdio), so the same peer works in blocking and async code.\n\n\
         Bad input never panics and leaves the pending requests as they were: a line that is not\n\
         JSON-RPC, a method the {me} does not handle, malformed params, an answer to an unknown id\n\
         or a request reusing an id still in flight is an [`{event}::Invalid`] naming the problem,\n\
         with the error reply to send when JSON-RPC asks for one. (A malformed answer to a pending\n\
         request ends that request, and the error names its id.)"
    ));
    let event_doc = format!(" What one line from the {them} means to the {me} ([`{peer}::receive`]).");
    let request_doc =
        format!(" A request for the {me}; answer it with [`{peer}::respond`] or [`{peer}::respond_error`].");
    let any_variant = any_side.then(|| {
        quote! {
            /// A notification either side handles (`$/cancel_request`).
            AnySide(NotificationToAnySide),
        }
    });
    quote! {
        #peer_doc
        #[derive(Debug, Clone, Default)]
        pub struct #peer {
            next_id: i64,
            /// Requests sent and not yet answered: id -> method.
            sent: ::std::collections::HashMap<super::RequestId, ::std::string::String>,
            /// Requests received and not yet answered: id -> method.
            received: ::std::collections::HashMap<super::RequestId, ::std::string::String>,
        }

        #[doc = #event_doc]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum #event {
            #[doc = #request_doc]
            Request {
                /// The id to answer.
                id: super::RequestId,
                /// The typed params.
                request: #handled,
            },
            /// A notification for this side.
            Notification(#handled_notes),
            #any_variant
            /// The answer to a request this side sent.
            Response {
                /// The id of the request.
                id: super::RequestId,
                /// The typed result (decoded by the request's method).
                response: #answered,
            },
            /// An error answer: to a request this side sent (`method` names
            /// it), or with the `null` id (`id` and `method` are `None`): the
            /// other side could not read something this side sent.
            Error {
                /// The id of the request.
                id: ::core::option::Option<super::RequestId>,
                /// The method of the request.
                method: ::core::option::Option<::std::string::String>,
                /// The error.
                error: super::Error,
            },
            /// A line that could not be used, and the error response to send
            /// when JSON-RPC asks for one (the line was a request, or not a
            /// message at all). A malformed answer to a pending request ends
            /// that request: the error names its id
            /// ([`DispatchError::request_id`]).
            Invalid {
                /// What was wrong, with the JSON pointer.
                error: DispatchError,
                /// The reply to send, if any.
                reply: ::core::option::Option<Message>,
            },
        }

    }
}

/// The peer's constructor and what the caller sends through it: requests,
/// notifications, answers, and the bookkeeping of pending requests.
fn peer_sending(n: &PeerNames, side: Side, any_side: bool) -> TokenStream {
    let PeerNames { peer, sent, sent_notes, answers, .. } = n;
    let them = other(side).as_str();
    let any_notify = any_side.then(|| {
        quote! {
            /// A notification either side handles (`$/cancel_request`).
            pub fn notify_any(&self, notification: impl ::core::convert::Into<NotificationToAnySide>) -> Message {
                Message::notification(notification.into())
            }
        }
    });
    let notify_doc = format!(" A notification to the {them}.");
    let request_fn_doc = lines(format!(
        "A request to the {them}: allocates its id (integers counting up from 0, skipping ids still\n\
         pending) and remembers it until [`{peer}::receive`] sees the answer. Returns the id and the\n\
         message to send."
    ));
    quote! {
            /// A peer with nothing pending; its first request gets id 0.
            pub fn new() -> Self {
                Self::default()
            }

            #request_fn_doc
            pub fn request(&mut self, request: impl ::core::convert::Into<#sent>) -> (super::RequestId, Message) {
                let request = request.into();
                let id = loop {
                    let id = super::RequestId::from(self.next_id);
                    self.next_id = self.next_id.wrapping_add(1);
                    if !self.sent.contains_key(&id) {
                        break id;
                    }
                };
                self.sent.insert(id.clone(), request.method().to_owned());
                (id.clone(), Message::request(id, request))
            }

            #[doc = #notify_doc]
            pub fn notify(&self, notification: impl ::core::convert::Into<#sent_notes>) -> Message {
                Message::notification(notification.into())
            }

            #any_notify

            /// Answers a request received with [`Self::receive`]. Fails, and
            /// changes nothing, when no request with `id` is waiting for an
            /// answer ([`DispatchErrorKind::UnknownRequest`]) or `response`
            /// is the answer to another method ([`DispatchErrorKind::ResponseMismatch`]).
            pub fn respond(
                &mut self,
                id: super::RequestId,
                response: impl ::core::convert::Into<#answers>,
            ) -> ::core::result::Result<Message, DispatchError> {
                let response = response.into();
                let method = self.waiting(&id)?;
                if method != response.method() {
                    return ::core::result::Result::Err(DispatchError::new(
                        DispatchErrorKind::ResponseMismatch,
                        "",
                        ::std::format!("request {} is `{method}`; this answers `{}`", Self::show(&id), response.method()),
                    ));
                }
                self.received.remove(&id);
                ::core::result::Result::Ok(Message::response(id, response))
            }

            /// Answers a request received with [`Self::receive`] with an
            /// error. Fails, and changes nothing, when no request with `id`
            /// is waiting for an answer.
            pub fn respond_error(
                &mut self,
                id: super::RequestId,
                error: super::Error,
            ) -> ::core::result::Result<Message, DispatchError> {
                self.waiting(&id)?;
                self.received.remove(&id);
                ::core::result::Result::Ok(Message::error(id, error))
            }

            /// The requests this side sent that are waiting for an answer, with their methods.
            pub fn pending(&self) -> impl ::core::iter::Iterator<Item = (&super::RequestId, &str)> + '_ {
                self.sent.iter().map(|(id, m)| (id, m.as_str()))
            }

            /// The requests this side received and has not answered, with their methods.
            pub fn unanswered(&self) -> impl ::core::iter::Iterator<Item = (&super::RequestId, &str)> + '_ {
                self.received.iter().map(|(id, m)| (id, m.as_str()))
            }

            /// Stops waiting for the answer to a request this side sent (after
            /// a timeout, say); a late answer is then an
            /// [`DispatchErrorKind::UnknownRequest`]. Returns its method.
            pub fn forget(&mut self, id: &super::RequestId) -> ::core::option::Option<::std::string::String> {
                self.sent.remove(id)
            }

    }
}

/// `receive`: one line from the other side as an event.
fn peer_receive(n: &PeerNames, any_side: bool, rt: &TokenStream) -> TokenStream {
    let PeerNames { event, handled, handled_notes, answered, .. } = n;
    let streamed = peer_receive_streamed(n, rt);
    let any_receive = any_side.then(|| {
        quote! {
            if NotificationToAnySide::METHODS.contains(&method) {
                return match NotificationToAnySide::decode(method, params) {
                    ::core::result::Result::Ok((n, _)) => #event::AnySide(n),
                    ::core::result::Result::Err(e) => Self::invalid(e.under("/params")),
                };
            }
        }
    });
    quote! {
            /// What one line from the other side means. Never panics; bad
            /// input is an `Invalid` event and leaves every pending request as it was.
            pub fn receive(&mut self, line: &str) -> #event {
                use #rt::rpc::{decode, request_id, Envelope, RawMessage, StreamedMessage};
                #streamed
                let raw = match RawMessage::parse(line) {
                    ::core::result::Result::Ok(raw) => raw,
                    ::core::result::Result::Err(e) => return Self::invalid(e),
                };
                let envelope = match raw.envelope() {
                    ::core::result::Result::Ok(envelope) => envelope,
                    ::core::result::Result::Err(e) => return Self::invalid(e),
                };
                match envelope {
                    Envelope::Request { id: id_raw, method, params } => {
                        let id: super::RequestId = match request_id(id_raw) {
                            ::core::result::Result::Ok(id) => id,
                            ::core::result::Result::Err(e) => return Self::invalid(e.replying_to_null()),
                        };
                        if let ::core::option::Option::Some(first) = self.received.get(&id) {
                            // No reply: an error with this id would read as the answer to the first request.
                            let message = ::std::format!("request id {} is already in use by an unanswered `{first}` request", Self::show(&id));
                            return Self::invalid(DispatchError::new(DispatchErrorKind::DuplicateId, "/id", message).with_id(id_raw));
                        }
                        match #handled::decode(method, params) {
                            ::core::result::Result::Ok((request, _)) => {
                                self.received.insert(id.clone(), method.to_owned());
                                #event::Request { id, request }
                            }
                            ::core::result::Result::Err(e) => Self::invalid(e.under("/params").replying_to(id_raw)),
                        }
                    }
                    Envelope::Notification { method, params } => {
                        #any_receive
                        match #handled_notes::decode(method, params) {
                            ::core::result::Result::Ok((n, _)) => #event::Notification(n),
                            ::core::result::Result::Err(e) => Self::invalid(e.under("/params")),
                        }
                    }
                    Envelope::Response { id: id_raw, result } => {
                        let id: super::RequestId = match request_id(id_raw) {
                            ::core::result::Result::Ok(id) => id,
                            ::core::result::Result::Err(e) => return Self::invalid(e),
                        };
                        let ::core::option::Option::Some(method) = self.sent.get(&id) else {
                            return Self::invalid(Self::unknown(&id, id_raw));
                        };
                        let decoded = #answered::decode(method, ::core::option::Option::Some(result));
                        self.sent.remove(&id);
                        match decoded {
                            ::core::result::Result::Ok((response, _)) => #event::Response { id, response },
                            ::core::result::Result::Err(e) => Self::invalid(e.under("/result").with_id(id_raw)),
                        }
                    }
                    Envelope::Error { id: id_raw, error } => {
                        let id: ::core::option::Option<super::RequestId> = match request_id(id_raw) {
                            ::core::result::Result::Ok(id) => id,
                            ::core::result::Result::Err(e) => return Self::invalid(e),
                        };
                        if let ::core::option::Option::Some(id) = &id {
                            if !self.sent.contains_key(id) {
                                return Self::invalid(Self::unknown(id, id_raw));
                            }
                        }
                        let error: super::Error = match decode(error.get()) {
                            ::core::result::Result::Ok(error) => error,
                            ::core::result::Result::Err(e) => {
                                if let ::core::option::Option::Some(id) = &id {
                                    self.sent.remove(id);
                                }
                                return Self::invalid(e.under("/error").with_id(id_raw));
                            }
                        };
                        let method = id.as_ref().and_then(|id| self.sent.remove(id));
                        #event::Error { id, method, error }
                    }
                }
            }

    }
}

/// The start of `receive`: a plain request or notification in one pass.
fn peer_receive_streamed(n: &PeerNames, rt: &TokenStream) -> TokenStream {
    let PeerNames { event, handled, handled_notes, .. } = n;
    quote! {
                // A plain request or notification in one pass; anything else,
                // a reused id and every error the usual way below.
                match #rt::rpc::read_streamed::<#handled, #handled_notes>(line) {
                    ::core::option::Option::Some(StreamedMessage::Request { id, request }) => {
                        if let ::core::result::Result::Ok(id) = request_id::<super::RequestId>(id) {
                            if !self.received.contains_key(&id) {
                                self.received.insert(id.clone(), request.method().to_owned());
                                return #event::Request { id, request };
                            }
                        }
                    }
                    ::core::option::Option::Some(StreamedMessage::Notification(n)) => return #event::Notification(n),
                    ::core::option::Option::None => {}
                }
    }
}

/// The peer's private helpers: the `Invalid` event, the errors it names.
fn peer_helpers(n: &PeerNames) -> TokenStream {
    let event = &n.event;
    quote! {
            fn invalid(error: DispatchError) -> #event {
                let reply = Message::error_reply(&error);
                #event::Invalid { error, reply }
            }

            fn unknown(id: &super::RequestId, id_raw: &::serde_json::value::RawValue) -> DispatchError {
                let message = ::std::format!("an answer to request {}, which is not waiting for one", Self::show(id));
                DispatchError::new(DispatchErrorKind::UnknownRequest, "/id", message).with_id(id_raw)
            }

            fn waiting(&self, id: &super::RequestId) -> ::core::result::Result<&str, DispatchError> {
                self.received.get(id).map(::std::string::String::as_str).ok_or_else(|| {
                    let message = ::std::format!("no request {} is waiting for an answer", Self::show(id));
                    DispatchError::new(DispatchErrorKind::UnknownRequest, "", message)
                })
            }

            fn show(id: &super::RequestId) -> ::std::string::String {
                ::serde_json::to_string(id).unwrap_or_default()
            }
    }
}

//! The sans-IO peers, written once for every version and both sides:
//! [`Peer`] over a [`Role`], which a version's `rpc` module implements for
//! the agent's end and the client's (`AgentPeer` is `Peer<AgentRole>`).
//!
//! A peer is one end of a connection: it allocates the ids of the requests it
//! sends, remembers which method each one was so the answer decodes as the
//! right type, remembers the requests it received until they are answered,
//! and turns every incoming line into a typed [`Event`]. It never reads or
//! writes: the caller moves the lines (one JSON text per line on stdio), so
//! the same peer works in blocking and async code.

use std::collections::HashMap;
use std::fmt::Debug;
use std::hash::Hash;

use serde_json::value::RawValue;

use super::{DispatchError, DispatchErrorKind, Message, ParamsForm, Payload, Streamed, Version};

/// A side's enum of the payloads of one kind (`RequestToAgent`,
/// `ResponseFromClient`, ...): a [`Payload`] that also says which methods
/// it has (its `METHODS`).
pub trait SidePayload: Payload {
    /// Whether the enum has a variant for `method`.
    fn handles(method: &str) -> bool;
}

/// One end of a connection of a version: the payloads it handles, answers
/// and sends. A version's `rpc` module has `AgentRole` and `ClientRole`
/// (types without values, as names for the sides).
pub trait Role: Debug + Clone + PartialEq {
    /// The version the messages are of.
    type Version: Version<Id: Eq + Hash + From<i64>>;
    /// The requests this side handles (`RequestToAgent`).
    type Handled: SidePayload + Streamed;
    /// The notifications this side handles (`NotificationToAgent`).
    type HandledNotifications: SidePayload + Streamed;
    /// The notifications either side handles (`NotificationToAnySide`,
    /// the `$/` methods; [`NoNotification`] where the version has none).
    type AnySide: SidePayload + Into<<Self::Version as Version>::Notification>;
    /// The answers this side sends (`ResponseFromAgent`).
    type Answers: SidePayload + Into<<Self::Version as Version>::Response>;
    /// The requests this side sends (`RequestToClient`).
    type Sent: SidePayload + Into<<Self::Version as Version>::Request>;
    /// The notifications this side sends (`NotificationToClient`).
    type SentNotifications: Into<<Self::Version as Version>::Notification>;
    /// The answers this side gets (`ResponseFromClient`).
    type Answered: SidePayload;
}

/// The id type of role `R`'s version.
type Id<R> = <<R as Role>::Version as Version>::Id;
/// The error object of role `R`'s version.
type ErrorObject<R> = <<R as Role>::Version as Version>::Error;

/// The notifications of a version without `$/` methods: none, never a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoNotification {}

impl Payload for NoNotification {
    fn method(&self) -> &str {
        match *self {}
    }
    fn decode(method: &str, _: Option<&RawValue>) -> Result<(Self, ParamsForm), DispatchError> {
        Err(super::unknown_method(method, "notification"))
    }
}

impl SidePayload for NoNotification {
    fn handles(_: &str) -> bool {
        false
    }
}

/// One end of a connection, without IO.
///
/// It allocates the ids of the requests its side sends ([`Peer::request`]),
/// remembers each until it is answered so that the answer decodes as the
/// right type, remembers the requests its side receives until
/// [`Peer::respond`] answers them, and turns every line the other side sends
/// into an [`Event`]. It never reads or writes: the caller moves the lines
/// (one JSON text per line on stdio), so the same peer works in blocking and
/// async code.
///
/// It checks what the protocol asks of the side it is: a request or
/// notification of a method the other side handles is an unknown method
/// (`-32601`), as is one neither side handles (extension methods, `_` and a
/// name, pass); until the connection is initialized (the agent has answered
/// `initialize`, the client has that answer) a request other than
/// `initialize` is refused with `-32600`
/// ([`DispatchErrorKind::NotInitialized`]) and changes nothing, while
/// notifications pass. [`Peer::initialized`] takes over a connection already
/// initialized.
///
/// Bad input never panics and leaves the pending requests as they were: a
/// line that is not JSON-RPC, a method this side does not handle, malformed
/// params, an answer to an unknown id or a request reusing an id still in
/// flight is an [`Event::Invalid`] naming the problem, with the error reply
/// to send when JSON-RPC asks for one. (A malformed answer to a pending
/// request ends that request, and the error names its id.)
pub struct Peer<R: Role> {
    /// The version has `initialize` and the connection is not initialized yet.
    gated: bool,
    next_id: i64,
    /// Requests sent and not yet answered: id -> method.
    sent: HashMap<Id<R>, String>,
    /// Requests received and not yet answered: id -> method.
    received: HashMap<Id<R>, String>,
}

impl<R: Role> Default for Peer<R> {
    fn default() -> Self {
        let gated = R::Handled::handles(INITIALIZE) || R::Sent::handles(INITIALIZE);
        Peer { gated, next_id: 0, sent: HashMap::new(), received: HashMap::new() }
    }
}

/// What one line from the other side means to a [`Peer`] ([`Peer::receive`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event<R: Role> {
    /// A request for this side; answer it with [`Peer::respond`] or [`Peer::respond_error`].
    Request {
        /// The id to answer.
        id: Id<R>,
        /// The typed params.
        request: R::Handled,
    },
    /// A notification for this side.
    Notification(R::HandledNotifications),
    /// A notification either side handles (`$/cancel_request`).
    AnySide(R::AnySide),
    /// The answer to a request this side sent.
    Response {
        /// The id of the request.
        id: Id<R>,
        /// The typed result (decoded by the request's method).
        response: R::Answered,
    },
    /// An error answer: to a request this side sent (`method` names it), or
    /// with the `null` id (`id` and `method` are `None`): the other side
    /// could not read something this side sent.
    Error {
        /// The id of the request.
        id: Option<Id<R>>,
        /// The method of the request.
        method: Option<String>,
        /// The error.
        error: ErrorObject<R>,
    },
    /// A line that could not be used, and the error response to send when
    /// JSON-RPC asks for one (the line was a request, or not a message at
    /// all). A malformed answer to a pending request ends that request: the
    /// error names its id ([`DispatchError::request_id`]).
    Invalid {
        /// What was wrong, with the JSON pointer.
        error: DispatchError,
        /// The reply to send, if any.
        reply: Option<Message<R::Version>>,
    },
}

/// The peer's constructor and what the caller sends through it: requests,
/// notifications, answers, and the bookkeeping of pending requests.
impl<R: Role> Peer<R> {
    /// A peer with nothing pending, of a connection not yet initialized; its
    /// first request gets id 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// A peer of a connection already initialized (taken over mid-stream, a
    /// replay, a test that starts after `initialize`): it refuses no request
    /// for coming before `initialize`.
    pub fn initialized() -> Self {
        Peer { gated: false, ..Self::default() }
    }

    /// Whether the connection is initialized: the agent has answered
    /// `initialize` successfully, or the client has received that answer
    /// (always, for a version without `initialize`).
    pub fn is_initialized(&self) -> bool {
        !self.gated
    }

    /// A request to the other side: allocates its id (integers counting up
    /// from 0, skipping ids still pending) and remembers it until
    /// [`Peer::receive`] sees the answer. Returns the id and the message to send.
    pub fn request(&mut self, request: impl Into<R::Sent>) -> (Id<R>, Message<R::Version>) {
        let request = request.into();
        let id = loop {
            let id = <Id<R> as From<i64>>::from(self.next_id);
            self.next_id = self.next_id.wrapping_add(1);
            if !self.sent.contains_key(&id) {
                break id;
            }
        };
        self.sent.insert(id.clone(), request.method().to_owned());
        (id.clone(), Message::request(id, request))
    }

    /// A notification to the other side.
    pub fn notify(&self, notification: impl Into<R::SentNotifications>) -> Message<R::Version> {
        Message::notification(notification.into())
    }

    /// A notification either side handles (`$/cancel_request`).
    pub fn notify_any(&self, notification: impl Into<R::AnySide>) -> Message<R::Version> {
        Message::notification(notification.into())
    }

    /// Answers a request received with [`Peer::receive`]. Fails, and changes
    /// nothing, when no request with `id` is waiting for an answer
    /// ([`DispatchErrorKind::UnknownRequest`]) or `response` is the answer to
    /// another method ([`DispatchErrorKind::ResponseMismatch`]).
    pub fn respond(
        &mut self,
        id: Id<R>,
        response: impl Into<R::Answers>,
    ) -> Result<Message<R::Version>, DispatchError> {
        let response = response.into();
        let method = self.waiting(&id)?;
        if method != response.method() {
            let message = format!("request {} is `{method}`; this answers `{}`", show(&id), response.method());
            return Err(DispatchError::new(DispatchErrorKind::ResponseMismatch, "", message));
        }
        self.received.remove(&id);
        if response.method() == INITIALIZE {
            self.gated = false;
        }
        Ok(Message::response(id, response))
    }

    /// Answers a request received with [`Peer::receive`] with an error.
    /// Fails, and changes nothing, when no request with `id` is waiting for
    /// an answer.
    pub fn respond_error(&mut self, id: Id<R>, error: ErrorObject<R>) -> Result<Message<R::Version>, DispatchError> {
        self.waiting(&id)?;
        self.received.remove(&id);
        Ok(Message::error(id, error))
    }

    /// The requests this side sent that are waiting for an answer, with their methods.
    pub fn pending(&self) -> impl Iterator<Item = (&Id<R>, &str)> + '_ {
        self.sent.iter().map(|(id, m)| (id, m.as_str()))
    }

    /// The requests this side received and has not answered, with their methods.
    pub fn unanswered(&self) -> impl Iterator<Item = (&Id<R>, &str)> + '_ {
        self.received.iter().map(|(id, m)| (id, m.as_str()))
    }

    /// Stops waiting for the answer to a request this side sent (after a
    /// timeout, say); a late answer is then an
    /// [`DispatchErrorKind::UnknownRequest`]. Returns its method.
    pub fn forget(&mut self, id: &Id<R>) -> Option<String> {
        self.sent.remove(id)
    }

    /// What one line from the other side means. Never panics; bad input is
    /// an `Invalid` event and leaves every pending request as it was.
    pub fn receive(&mut self, line: &str) -> Event<R> {
        use super::{decode, request_id, Envelope, RawMessage, StreamedMessage};
        // A plain request or notification in one pass.
        match super::read_streamed::<R::Handled, R::HandledNotifications>(line) {
            Some(StreamedMessage::Request { id, request }) if !self.gated || request.method() == INITIALIZE => {
                if let Ok(id) = request_id::<Id<R>>(id) {
                    if !self.received.contains_key(&id) {
                        self.received.insert(id.clone(), request.method().to_owned());
                        return Event::Request { id, request };
                    }
                }
            }
            Some(StreamedMessage::Notification(n)) => return Event::Notification(n),
            Some(StreamedMessage::Request { .. }) | None => {}
        }
        let raw = match RawMessage::parse(line) {
            Ok(raw) => raw,
            Err(e) => return Self::invalid(e),
        };
        let envelope = match raw.envelope() {
            Ok(envelope) => envelope,
            Err(e) => return Self::invalid(e),
        };
        match envelope {
            Envelope::Request { id: id_raw, method, params } => {
                let id: Id<R> = match request_id(id_raw) {
                    Ok(id) => id,
                    Err(e) => return Self::invalid(e.replying_to_null()),
                };
                if let Some(first) = self.received.get(&id) {
                    let message =
                        format!("request id {} is already in use by an unanswered `{first}` request", show(&id));
                    return Self::invalid(
                        DispatchError::new(DispatchErrorKind::DuplicateId, "/id", message).with_id(id_raw),
                    );
                }
                // The agent answers `initialize`; the client waits for that answer.
                if self.gated && !(R::Handled::handles(INITIALIZE) && method == INITIALIZE) {
                    let message = if R::Handled::handles(INITIALIZE) {
                        format!("`{method}` before `initialize`: the connection is not initialized")
                    } else {
                        format!("`{method}` before the answer to `initialize`: the connection is not initialized")
                    };
                    let error = DispatchError::new(DispatchErrorKind::NotInitialized, "/method", message);
                    return Self::invalid(error.replying_to(id_raw));
                }
                match R::Handled::decode(method, params) {
                    Ok((request, _)) => {
                        self.received.insert(id.clone(), method.to_owned());
                        Event::Request { id, request }
                    }
                    Err(e) => Self::invalid(e.under("/params").replying_to(id_raw)),
                }
            }
            Envelope::Notification { method, params } => {
                if R::AnySide::handles(method) {
                    return match R::AnySide::decode(method, params) {
                        Ok((n, _)) => Event::AnySide(n),
                        Err(e) => Self::invalid(e.under("/params")),
                    };
                }
                match R::HandledNotifications::decode(method, params) {
                    Ok((n, _)) => Event::Notification(n),
                    Err(e) => Self::invalid(e.under("/params")),
                }
            }
            Envelope::Response { id: id_raw, result } => {
                let id: Id<R> = match request_id(id_raw) {
                    Ok(id) => id,
                    Err(e) => return Self::invalid(e),
                };
                let Some(method) = self.sent.get(&id) else {
                    return Self::invalid(unknown(&id, id_raw));
                };
                let decoded = R::Answered::decode(method, Some(result));
                self.sent.remove(&id);
                match decoded {
                    Ok((response, _)) => {
                        if response.method() == INITIALIZE {
                            self.gated = false;
                        }
                        Event::Response { id, response }
                    }
                    Err(e) => Self::invalid(e.under("/result").with_id(id_raw)),
                }
            }
            Envelope::Error { id: id_raw, error } => {
                let id: Option<Id<R>> = match request_id(id_raw) {
                    Ok(id) => id,
                    Err(e) => return Self::invalid(e),
                };
                if let Some(id) = &id {
                    if !self.sent.contains_key(id) {
                        return Self::invalid(unknown(id, id_raw));
                    }
                }
                let error: ErrorObject<R> = match decode(error.get()) {
                    Ok(error) => error,
                    Err(e) => {
                        if let Some(id) = &id {
                            self.sent.remove(id);
                        }
                        return Self::invalid(e.under("/error").with_id(id_raw));
                    }
                };
                let method = id.as_ref().and_then(|id| self.sent.remove(id));
                Event::Error { id, method, error }
            }
        }
    }

    /// The `Invalid` event of `error`, with the reply JSON-RPC asks for.
    fn invalid(error: DispatchError) -> Event<R> {
        let reply = Message::error_reply(&error);
        Event::Invalid { error, reply }
    }

    /// The method of the received request `id`, or the error that none is waiting.
    fn waiting(&self, id: &Id<R>) -> Result<&str, DispatchError> {
        self.received.get(id).map(String::as_str).ok_or_else(|| {
            let message = format!("no request {} is waiting for an answer", show(id));
            DispatchError::new(DispatchErrorKind::UnknownRequest, "", message)
        })
    }
}

/// The method that initializes a connection.
const INITIALIZE: &str = "initialize";

/// The error of an answer to a request that is not pending.
fn unknown<I: serde::Serialize>(id: &I, id_raw: &RawValue) -> DispatchError {
    let message = format!("an answer to request {}, which is not waiting for one", show(id));
    DispatchError::new(DispatchErrorKind::UnknownRequest, "/id", message).with_id(id_raw)
}

/// An id as JSON, for messages.
fn show<I: serde::Serialize>(id: &I) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

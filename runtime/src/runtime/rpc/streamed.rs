//! The single-pass reader: a plain request or notification read in one
//! pass, its params decoded as they stream by ([`read_streamed`]), the
//! common case of `Message::decode` and of the peers' `receive`.

use std::fmt;

use serde_json::value::RawValue;

use crate::json::fast::Bail;

/// A payload enum that decodes its payload straight from the stream once the
/// method is known (the generated request and notification enums).
pub trait Streamed: Sized {
    /// Decodes the payload of `method` in the usual object form; an error for
    /// anything else (an extension, an unknown method, `null` params).
    fn decode_from<'de, D: serde::Deserializer<'de>>(method: &str, deserializer: D) -> Result<Self, D::Error>;

    /// Reads the payload of `method` with its direct decoder
    /// ([`crate::json::fast`]), for the methods that have one (the
    /// session-update stream); bails for every other.
    fn read_direct<'de>(method: &str, r: &mut crate::json::fast::Reader<'de>) -> Result<Self, Bail> {
        let _ = (method, r);
        Err(Bail)
    }
}

/// What [`read_streamed`] found: a request or a notification with its payload.
pub enum StreamedMessage<'a, Q, N> {
    /// A request: the id's JSON text and the decoded params.
    Request {
        /// The id as it was written.
        id: &'a RawValue,
        /// The decoded params.
        request: Q,
    },
    /// A notification's decoded params.
    Notification(N),
}

/// Reads a request or a notification in one pass, its params decoded as they
/// stream by: the common case of `Message::decode`, which otherwise captures
/// every member first ([`RawMessage::parse`](super::RawMessage::parse)) and reads the params again.
///
/// It takes only the plain form: `jsonrpc` `"2.0"` without escapes, `id` (for
/// a request) and `method` before `params`, params as an object, a method of
/// the version's own (no extension), no other member, no member twice. For
/// anything else, including every error, it returns `None` and the caller
/// decodes the message the usual way, which gives the error with its pointer.
/// So it never changes a result: it decodes the same params text with the
/// same `Deserialize` impl.
///
/// The methods with a direct decoder (the session-update stream, see
/// [`crate::json::fast`]) are read first on the crate's reader, envelope
/// and params, without serde; any other message goes on to `serde_json`.
/// (Reading every method's params on the reader would compile a second
/// decoder of every payload for messages that come once per session.)
#[inline]
pub fn read_streamed<Q: Streamed, N: Streamed>(text: &str) -> Option<StreamedMessage<'_, Q, N>> {
    read_streamed_with(text, &mut |id, request| Some(StreamedMessage::Request { id, request }), &mut |n| {
        StreamedMessage::Notification(n)
    })
}

/// [`read_streamed`] with the message built where its payload was decoded:
/// by `request` from a request's id and payload (`None` sends the message
/// the usual way), by `notification` from a notification's. The payload is
/// hundreds of bytes; built here, it is moved once, into the message,
/// instead of once per call it would return through.
#[inline(always)]
pub fn read_streamed_with<'a, Q: Streamed, N: Streamed, M>(
    text: &'a str,
    request: &mut impl FnMut(&'a RawValue, Q) -> Option<M>,
    notification: &mut impl FnMut(N) -> M,
) -> Option<M> {
    if let Ok(message) = read_direct(text, request, notification) {
        return message;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let message =
        serde::Deserializer::deserialize_map(&mut de, StreamedVisitor::<Q, N>(std::marker::PhantomData)).ok()?;
    de.end().ok()?;
    match message {
        StreamedMessage::Request { id, request: payload } => request(id, payload),
        StreamedMessage::Notification(payload) => Some(notification(payload)),
    }
}

/// The plain form of [`read_streamed`] on the crate's reader, for a method
/// with a direct decoder; bails on anything else. The same rules as
/// [`StreamedVisitor`]: names and the version without escapes, `jsonrpc`
/// `"2.0"`, `id` and `method` before `params`, no other member, none twice.
#[inline(always)]
fn read_direct<'a, Q: Streamed, N: Streamed, M>(
    text: &'a str,
    request: &mut impl FnMut(&'a RawValue, Q) -> Option<M>,
    notification: &mut impl FnMut(N) -> M,
) -> Result<Option<M>, Bail> {
    let mut r = crate::json::fast::Reader::new(text);
    let head = head(&mut r)?;
    Ok(match head.id {
        Some(id) => {
            let payload = Q::read_direct(head.method, &mut r)?;
            tail(&mut r, head.version)?;
            request(id, payload)
        }
        None => {
            let payload = N::read_direct(head.method, &mut r)?;
            tail(&mut r, head.version)?;
            Some(notification(payload))
        }
    })
}

/// The members of a plain envelope before `params`.
struct Head<'a> {
    version: bool,
    id: Option<&'a RawValue>,
    method: &'a str,
}

// The usual names, and the version with its value, compared as words
// before any is read as text.
const VERSION: crate::json::fast::Known = crate::json::fast::Known::new("jsonrpc", b"\"jsonrpc\":\"2.0\"");
const METHOD: crate::json::fast::Known = crate::json::fast::Known::new("method", b"\"method\":");
const PARAMS: crate::json::fast::Known = crate::json::fast::Known::new("params", b"\"params\":");
const ID: crate::json::fast::Known = crate::json::fast::Known::new("id", b"\"id\":");

/// Reads a plain envelope up to its `params`, leaving the reader at their
/// value; bails on anything but `jsonrpc` `"2.0"`, `id` and `method`, once
/// each, before them.
#[inline]
fn head<'a>(r: &mut crate::json::fast::Reader<'a>) -> Result<Head<'a>, Bail> {
    let mut more = r.open()?;
    let (mut version, mut id, mut method) = (false, None::<&RawValue>, None::<&str>);
    while more {
        let key = if r.known_key(&VERSION) {
            if version {
                return Err(Bail);
            }
            version = true;
            more = r.next_member()?;
            continue;
        } else if r.known_key(&METHOD) {
            "method"
        } else if r.known_key(&PARAMS) {
            "params"
        } else if r.known_key(&ID) {
            "id"
        } else {
            r.key()?
        };
        match key {
            "jsonrpc" if !version => version = version_2(r)?,
            "id" if id.is_none() => id = Some(r.serde::<&RawValue>()?),
            "method" if method.is_none() => match r.str()? {
                std::borrow::Cow::Borrowed(m) => method = Some(m),
                std::borrow::Cow::Owned(_) => return Err(Bail),
            },
            "params" => return Ok(Head { version, id, method: method.ok_or(Bail)? }),
            _ => return Err(Bail),
        }
        more = r.next_member()?;
    }
    Err(Bail)
}

/// `"2.0"` without escapes, or a bail.
fn version_2(r: &mut crate::json::fast::Reader<'_>) -> Result<bool, Bail> {
    match r.str()? {
        std::borrow::Cow::Borrowed("2.0") => Ok(true),
        _ => Err(Bail),
    }
}

/// The members after `params`: only `jsonrpc`, if it was not before; then
/// the end of the text.
#[inline]
fn tail(r: &mut crate::json::fast::Reader<'_>, mut version: bool) -> Result<(), Bail> {
    let mut more = r.next_member()?;
    while more {
        if version {
            return Err(Bail);
        }
        if !r.known_key(&VERSION) {
            match r.key()? {
                "jsonrpc" => {
                    version_2(r)?;
                }
                _ => return Err(Bail),
            }
        }
        version = true;
        more = r.next_member()?;
    }
    if version && r.end() {
        Ok(())
    } else {
        Err(Bail)
    }
}

struct StreamedVisitor<Q, N>(std::marker::PhantomData<(Q, N)>);

/// Decodes params with [`Streamed::decode_from`].
struct Params<'m, T>(&'m str, std::marker::PhantomData<T>);

impl<'de, T: Streamed> serde::de::DeserializeSeed<'de> for Params<'_, T> {
    type Value = T;
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::decode_from(self.0, deserializer)
    }
}

impl<'de, Q: Streamed, N: Streamed> serde::de::Visitor<'de> for StreamedVisitor<Q, N> {
    type Value = StreamedMessage<'de, Q, N>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON-RPC request or notification")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let not_plain = || <A::Error as serde::de::Error>::custom("not the plain form");
        let (mut version, mut id, mut method) = (false, None::<&'de RawValue>, None::<&'de str>);
        let mut payload = None;
        // Borrowed keys and strings: an escaped one is not the plain form.
        while let Some(key) = map.next_key::<&'de str>()? {
            match key {
                "jsonrpc" if !version => {
                    if map.next_value::<&'de str>()? != "2.0" {
                        return Err(not_plain());
                    }
                    version = true;
                }
                "id" if id.is_none() && payload.is_none() => id = Some(map.next_value()?),
                "method" if method.is_none() => method = Some(map.next_value()?),
                "params" if payload.is_none() => {
                    let m = method.ok_or_else(not_plain)?;
                    payload = Some(match id {
                        Some(id) => StreamedMessage::Request {
                            id,
                            request: map.next_value_seed(Params(m, std::marker::PhantomData))?,
                        },
                        None => {
                            StreamedMessage::Notification(map.next_value_seed(Params(m, std::marker::PhantomData))?)
                        }
                    });
                }
                _ => return Err(not_plain()),
            }
        }
        match payload {
            Some(p) if version => Ok(p),
            _ => Err(not_plain()),
        }
    }
}

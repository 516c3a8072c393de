//! Direct decoders and encoders. The encoders ([`ToJson`]: what
//! [`super::to_string`] runs for the bindings' structs and unions) are
//! described in `json/encode.rs`; the rest of this page is about decoding.
//!
//! Direct decoders: the generated code that [`super::from_str`] runs for the
//! payloads of the session-update stream, instead of serde's visitors.
//!
//! Hidden plumbing for the generated code (and the `AcpPatch` derive), not an
//! API: nothing here is stable.
//!
//! A type with a direct decoder implements [`FromJson`]: `read` takes the
//! object from the [`Reader`] member by member, matching each name against
//! the known ones and reading each value by its field's rule, with no
//! `MapAccess`, key visitor or seed in between; a list of items is read item
//! by item instead of being captured and parsed again. A name is first
//! compared, as one or two words, with the decoder's known names written as
//! `"name":` ([`Known`], [`members_known`]), from the one after the last
//! found: peers write members in the schema's order, so the text of a name
//! is rarely scanned. Anything the direct
//! decoder does not serve (an escaped member name, a discriminator that is
//! not the first member or that no variant has, a duplicate or missing
//! member, a value a rule would replace by its default or drop, and every
//! syntax or type error) makes it *bail*: the type's serde visitor then reads
//! the same object through the same reader, and what that one fails on goes
//! to `serde_json` ([`from_str`](super::from_str)'s fallback). So a direct
//! decoder only has to be right where it succeeds, and the tests hold it to
//! giving exactly what `serde_json::from_str` gives there.
//!
//! How `from_str` reaches it through serde: the type's `Deserialize` asks for
//! a struct named [`STRUCT`]. Every other deserializer ignores struct names
//! (`serde_json`, `serde_json::Value`, serde's buffered content) and calls
//! `visit_map` as before; the reader instead passes its text to the visitor's
//! `visit_borrowed_str` and the position beside it, in a per-thread slot
//! (`hand_over`) that only [`visit`] empties, and takes back the position
//! after the object. A `visit_borrowed_str` call without a handed-over
//! position is refused as a string where an object belongs, as before.
//!
//! `Message::decode` and the peers reach the decoders without serde: the
//! one-pass message reader (`runtime::rpc::read_streamed`) reads a plain
//! notification or request of a method that has one on the [`Reader`]
//! (`Streamed::read_direct`).

use std::borrow::Cow;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, MapAccess, Unexpected, Visitor};
use serde::Deserializer;
use serde_json::Value;

use crate::runtime::de::{Object, Scalar, Shape};

pub(crate) use super::de::compact;
pub use super::de::Reader;
pub use super::encode::{
    close_object, extra, key, members_via_serde, raw, serialize, string, Error, SerdeSide, ToJson, ToJsonMembers,
    ViaMembers, ViaSerde, ViaSerdeMembers, ViaToJson, ENCODE,
};
use super::handoff::{hand_over, take_back};
pub use super::handoff::{take_raw_text, Bail, Known, Tags, RAW_JSON, STRUCT};

/// The visitor's side (its `visit_borrowed_str`): reads a `T` from `text` at
/// the handed-over position, or refuses a string where no position was. When
/// the direct decoder bails, the same object is read by `visitor` (the
/// type's serde visitor) through the reader, so a message the direct decoder
/// does not serve (an unknown variant, a flattened union) still takes the
/// reader, not `serde_json`.
#[inline]
pub fn visit<'de, V: de::Visitor<'de>, E: de::Error>(text: &'de str, visitor: V) -> Result<V::Value, E>
where
    V::Value: FromJson<'de>,
{
    let Some((at, depth)) = take_back() else {
        return Err(E::invalid_type(Unexpected::Str(text), &visitor));
    };
    let mut r = Reader::at(text, at, depth);
    match V::Value::read(&mut r) {
        Ok(v) => {
            let (at, depth) = r.position();
            hand_over(at, depth);
            Ok(v)
        }
        Err(Bail) => {
            r = Reader::at(text, at, depth);
            let result = de::Deserializer::deserialize_map(&mut r, visitor).map_err(|_| E::custom(""));
            if result.is_ok() {
                let (at, depth) = r.position();
                hand_over(at, depth);
            }
            result
        }
    }
}

/// What the reader alone decodes from `text` as a `T`: `None` where it
/// declines (where [`super::from_str`] hands the text to `serde_json`). For
/// tests that a type's usual messages take the reader.
pub fn reader_only<'de, T: Deserialize<'de>>(text: &'de str) -> Option<T> {
    let mut r = Reader::new(text);
    T::deserialize(&mut r).ok().filter(|_| r.end())
}

/// What `T`'s direct decoder alone reads from `text`: `None` where it bails
/// (where the reader runs the serde visitors instead). For tests that a
/// type's usual messages take the direct decoder.
pub fn direct_only<'de, T: FromJson<'de>>(text: &'de str) -> Option<T> {
    let mut r = Reader::at(text, 0, 0);
    let v = T::read(&mut r).ok()?;
    (r.position() == (text.len(), 0)).then_some(v)
}

/// A type the direct decoders can read.
///
/// The provided methods read the value with its `Deserialize` impl through
/// the reader (`read`) and bail on an object whose first members were
/// already taken (`rest`); the generated objects override both.
pub trait FromJson<'de>: Deserialize<'de> {
    /// Reads one value.
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        r.serde()
    }

    /// Reads the members left in an object that [`Reader::open`] opened
    /// (`more`: a member follows) and whose first member was taken by the
    /// union around it (its discriminator).
    #[inline]
    fn rest(r: &mut Reader<'de>, more: bool) -> Result<Self, Bail> {
        let _ = (r, more);
        Err(Bail)
    }
}

/// A string decoded by its [`Scalar`] impl: the direct decoder of string
/// enums and string newtypes, whose `Deserialize` accepts exactly the
/// strings `Scalar` does (it bails where that one refuses).
#[inline]
pub fn scalar<'de, T: Scalar>(r: &mut Reader<'de>) -> Result<T, Bail> {
    from_text(r.str()?).ok_or(Bail)
}

/// A string's value for a [`Scalar`], as the visitors' `visit_str` and
/// `visit_string` give it.
#[inline]
fn from_text<T: Scalar>(text: Cow<'_, str>) -> Option<T> {
    match text {
        Cow::Borrowed(s) => T::from_str(s),
        Cow::Owned(s) => T::from_string(s),
    }
}

/// The default-on-error rule for a scalar field (`runtime::de::lenient_scalar`),
/// direct for a string and `null`: a string the type refuses is the
/// default, as there; any other value runs the rule through the reader.
#[inline]
pub fn lenient_scalar<'de, F: Shape>(r: &mut Reader<'de>) -> Result<F, Bail>
where
    F::Inner: Scalar,
{
    match r.peek_byte()? {
        b'"' => Ok(from_text(r.str()?).map(F::wrap).unwrap_or_default()),
        b'n' => {
            r.null()?;
            Ok(F::null().unwrap_or_default())
        }
        _ => crate::runtime::de::lenient_scalar(r).map_err(|_| Bail),
    }
}

/// `x-deserialize-default-on-error` for a value read by serde
/// ([`crate::runtime::de::lenient`]), without capturing it first: the value
/// is decoded where it stands, and only when that fails is it read again
/// from its start by the rule itself (captured, then the default or an
/// error). A lenient field of a large value (a diff's patch text) is so
/// read once, not scanned and then parsed.
pub fn lenient<'de, F: Shape>(r: &mut Reader<'de>) -> Result<F, Bail>
where
    F::Inner: serde::de::DeserializeOwned,
{
    if r.null()? {
        return Ok(F::null().unwrap_or_default());
    }
    let mark = r.mark();
    match <F::Inner as Deserialize>::deserialize(&mut *r) {
        Ok(v) => Ok(F::wrap(v)),
        Err(_) => {
            // Nothing a direct decoder inside handed back is pending any more.
            take_back();
            r.reset(mark);
            crate::runtime::de::lenient(&mut *r).map_err(|_| Bail)
        }
    }
}

macro_rules! by_serde {
    ($($t:ty),* $(,)?) => {$(
        impl<'de> FromJson<'de> for $t {}
    )*};
}

by_serde! {
    bool, u16, u32, u64, i32, i64, f64,
    crate::runtime::Number, crate::runtime::Base64String, crate::runtime::ExplicitNull,
}

// Free-form JSON: read under the rule for repeated names, as the visitors
// read it (the fields' rules, `runtime::read::Any` and the object rules).
impl<'de> FromJson<'de> for Value {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        r.seed(crate::runtime::de::Json)
    }
}

impl<'de> FromJson<'de> for crate::runtime::JsonObject {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        crate::runtime::de::json_object(r).map_err(|_| Bail)
    }
}

impl<'de> FromJson<'de> for String {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        r.str().map(std::borrow::Cow::into_owned)
    }
}

impl<'de, T: FromJson<'de>> FromJson<'de> for Option<T> {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        if r.null()? {
            Ok(None)
        } else {
            T::read(r).map(Some)
        }
    }
}

impl<'de, T: FromJson<'de>> FromJson<'de> for crate::runtime::Nullable<T> {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        if r.null()? {
            Ok(crate::runtime::Nullable::Null)
        } else {
            T::read(r).map(crate::runtime::Nullable::Value)
        }
    }
}

impl<'de, T: FromJson<'de>> FromJson<'de> for crate::Patch<T> {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        if r.null()? {
            Ok(crate::Patch::Clear)
        } else {
            T::read(r).map(crate::Patch::Set)
        }
    }
}

impl<'de, T: FromJson<'de>> FromJson<'de> for Box<T> {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        T::read(r).map(Box::new)
    }

    #[inline]
    fn rest(r: &mut Reader<'de>, more: bool) -> Result<Self, Bail> {
        T::rest(r, more).map(Box::new)
    }
}

impl<'de, T: FromJson<'de>> FromJson<'de> for Vec<T> {
    fn read(r: &mut Reader<'de>) -> Result<Self, Bail> {
        let mut out = Vec::new();
        let mut more = r.open_array()?;
        while more {
            out.push(T::read(r)?);
            more = r.next_item()?;
        }
        Ok(out)
    }
}

/// A member's name as [`members_known`] found it.
#[derive(Debug, Clone, Copy)]
pub enum Member<'de> {
    /// The known name at this position in the decoder's list.
    At(usize),
    /// Another name, or a known one written otherwise (with an escape,
    /// with whitespace before the `:`).
    Name(&'de str),
}

/// The member loop of a generated direct decoder: each member's name (as
/// [`Member`]) and the reader, positioned at its value, go to `member`,
/// which reads the value into the decoder's slots; errors leave through this
/// one call, so the decoder drops its slots at one place. The names are
/// known, and peers write them in the schema's order: each name is first compared, as words, with the
/// known names from the one after the last found, and only when none is
/// there read and given by text. Always inlined: how the hot reader
/// functions are inlined must not depend on how the crate is split into
/// codegen units (a move of code to another module cost 6% of the decode).
#[inline(always)]
pub fn members_known<'de>(
    r: &mut Reader<'de>,
    mut more: bool,
    keys: &'static [Known],
    mut member: impl FnMut(&mut Reader<'de>, Member<'de>) -> Result<(), Bail>,
) -> Result<(), Bail> {
    let mut next = 0;
    while more {
        let mut at = next;
        let found = loop {
            match keys.get(at) {
                Some(k) if r.known_key(k) => break Some(at),
                Some(_) => at += 1,
                None => break None,
            }
        };
        let m = match found {
            Some(at) => {
                next = at + 1;
                if r.tags.forbids(keys[at].name, r.depth()) {
                    return Err(Bail);
                }
                Member::At(at)
            }
            None => {
                let key = r.key()?;
                if r.tags.forbids(key, r.depth()) {
                    return Err(Bail);
                }
                Member::Name(key)
            }
        };
        member(r, m)?;
        more = r.next_member()?;
    }
    Ok(())
}

/// Reads the payload of a union's arm (`rest`, the arm's own decoder) after
/// its discriminator `key`: the payload's members may not repeat `key` (nor
/// the discriminator of a union around this one in the same object).
#[inline]
pub fn arm<'de, T>(
    r: &mut Reader<'de>,
    more: bool,
    key: &'static str,
    rest: impl FnOnce(&mut Reader<'de>, bool) -> Result<T, Bail>,
) -> Result<T, Bail> {
    let saved = r.tags;
    let depth = r.depth();
    let mut tags = if saved.len != 0 && saved.depth == depth { saved } else { Tags { depth, ..Tags::NONE } };
    if usize::from(tags.len) == tags.keys.len() {
        return Err(Bail);
    }
    tags.keys[usize::from(tags.len)] = key;
    tags.len += 1;
    r.tags = tags;
    let out = rest(r, more);
    r.tags = saved;
    out
}

/// Fills a decoder's slot; a member seen twice bails (serde_json's visitors
/// refuse it).
#[inline]
pub fn put<T>(slot: &mut Option<T>, value: Result<T, Bail>) -> Result<(), Bail> {
    if slot.is_some() {
        return Err(Bail);
    }
    *slot = Some(value?);
    Ok(())
}

/// Keeps a member the decoder does not name, as the visitors keep it: its
/// value read as free-form JSON ([`crate::runtime::de::json`]); a name kept
/// already bails (the visitors refuse it).
#[inline]
pub fn keep<'de>(r: &mut Reader<'de>, rest: &mut crate::runtime::Extra, key: &str) -> Result<(), Bail> {
    if rest.get(key).is_some() {
        return Err(Bail);
    }
    let value = r.seed(crate::runtime::de::Json)?;
    rest.insert(key.to_owned(), value);
    Ok(())
}

/// The end of a variant that carries nothing but its discriminator: any
/// member left bails (the visitor reads it as free-form JSON, under the rule
/// for repeated names, and ignores it).
#[inline]
pub fn skip_members(_r: &mut Reader<'_>, more: bool) -> Result<(), Bail> {
    if more {
        return Err(Bail);
    }
    Ok(())
}

/// `Deserialize` for an [`Object`] that also has a direct decoder: the
/// crate's reader (`acp_bindings::json::from_str`) recognises the struct name
/// [`STRUCT`] and hands its text to the direct decoder, which gives back to
/// [`Object::visit`] whatever it does not serve; any other deserializer reads
/// the members with [`Object::visit`].
#[inline]
pub fn direct_object<'de, D: Deserializer<'de>, T: Object + FromJson<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_struct(STRUCT, T::FIELDS, DirectVisitor::<T>(PhantomData))
}

struct DirectVisitor<T>(PhantomData<T>);

impl<'de, T: Object + FromJson<'de>> Visitor<'de> for DirectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {} object", T::NAME)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::visit(map)
    }

    #[inline]
    fn visit_borrowed_str<E: serde::de::Error>(self, text: &'de str) -> Result<T, E> {
        visit(text, self)
    }
}

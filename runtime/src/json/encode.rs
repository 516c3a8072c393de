//! Direct encoders: the generated code that [`super::to_string`] (and the
//! other encoding functions) runs for the bindings' structs and unions,
//! instead of serde's `Serializer` calls.
//!
//! Hidden plumbing for the generated code and the derives, not an API:
//! nothing here is stable.
//!
//! A type with a direct encoder implements [`ToJson`]: it appends its JSON
//! to a `Vec<u8>`, with each known key written as one pre-quoted byte string
//! (`"sessionId":`), the fields in their order, the unknown properties
//! (`additional_properties`) after them, and its values written the same way
//! down to strings and numbers. An object also implements [`ToJsonMembers`],
//! its members alone, which a tagged union writes after its discriminator.
//! The bytes are `serde_json::to_string`'s: the derives write the members
//! serde's derive would write, in its order, and every leaf is written by
//! the encoder's own string and number writers.
//!
//! How `to_string` reaches it through serde: the type's `Serialize` (see
//! [`serialize`]) asks for a newtype struct named [`ENCODE`] around a
//! wrapper. Every other serializer (`serde_json`, `serde_json::Value`,
//! serde's flattening and tagging serializers, self-describing formats)
//! writes a newtype struct as its content, so the wrapper serializes the
//! value the way serde's derive would ([`SerdeSide`]), as before. The
//! bindings' encoder instead lends its buffer through a per-thread slot and
//! hands the wrapper a serializer that accepts only `()`: the wrapper takes
//! the buffer out of the slot, writes the value into it directly, and puts
//! it back. The slot is filled only between those two steps, so a
//! serializer of another kind met while the direct encoder writes (a user's
//! `Serialize` impl inside a field) never sees it.
//!
//! A field whose type has no direct encoder is written through serde with
//! the bindings' encoder ([`ViaSerde`]): the derives call `put_json` on a
//! reference to each field, which picks [`ViaToJson`] when the type has a
//! direct encoder and [`ViaSerde`] otherwise (method resolution tries the
//! value before its reference).

use std::cell::Cell;

use serde::ser::{self, Impossible, Serialize, Serializer};
pub use serde_json::Error;
use serde_json::{Map, Number, Value};

use super::text::{write_key, write_str};

/// The newtype-struct name the direct-encodable types' `Serialize` impls
/// ask for: the bindings' encoder answers it by lending its buffer.
pub const ENCODE: &str = "$acp_bindings::json::fast::encode";

thread_local! {
    /// The encoder's buffer, lent to the one [`Direct`] it is serializing.
    static LENT: Cell<Option<Vec<u8>>> = const { Cell::new(None) };
}

/// A type the direct encoders write.
pub trait ToJson {
    /// Appends the JSON text of `self` to `out`.
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

/// A type written as a JSON object: its members alone, for a tagged union
/// that writes its discriminator first.
pub trait ToJsonMembers {
    /// Appends each member as `"name":value,` (every member followed by a
    /// comma, which [`close_object`] turns into the closing brace).
    fn write_members(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

/// The serde side of a type with a direct encoder: what its `Serialize`
/// writes for any serializer but the bindings' encoder.
pub trait SerdeSide {
    /// Serializes `self` as serde's derive would.
    fn serialize_serde<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// The `Serialize` of a type with a direct encoder: the direct encoder under
/// the bindings' encoder, [`SerdeSide`] under any other serializer.
#[inline]
pub fn serialize<T, S>(value: &T, serializer: S) -> Result<S::Ok, S::Error>
where
    T: ToJson + SerdeSide + ?Sized,
    S: Serializer,
{
    serializer.serialize_newtype_struct(ENCODE, &Direct(value))
}

/// The content of the [`ENCODE`] newtype struct.
struct Direct<'a, T: ?Sized>(&'a T);

impl<T: ToJson + SerdeSide + ?Sized> Serialize for Direct<'_, T> {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match LENT.take() {
            Some(buf) => {
                // Put back even when a `Serialize` impl inside panics.
                let mut lent = PutBack(buf);
                self.0.write_json(&mut lent.0).map_err(ser::Error::custom)?;
                drop(lent);
                serializer.serialize_unit()
            }
            None => self.0.serialize_serde(serializer),
        }
    }
}

/// The lent buffer while [`Direct`] writes: back in the slot when dropped.
struct PutBack(Vec<u8>);

impl Drop for PutBack {
    fn drop(&mut self) {
        LENT.set(Some(std::mem::take(&mut self.0)));
    }
}

/// The encoder's buffer while it is lent: taken back from the slot when
/// dropped, so a panic inside a `Serialize` impl loses none of it.
struct TakeBack<'a>(&'a mut Vec<u8>);

impl Drop for TakeBack<'_> {
    fn drop(&mut self) {
        if let Some(buf) = LENT.take() {
            *self.0 = buf;
        }
    }
}

/// The encoder's side of [`ENCODE`]: lends `out` to `value` (a [`Direct`])
/// and takes it back.
#[inline]
pub(super) fn lend<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    LENT.set(Some(std::mem::take(out)));
    let _back = TakeBack(out);
    value.serialize(Sink)
}

/// The serializer [`lend`] hands to [`Direct`]: it takes the `()` that says
/// the value was written, and nothing else.
struct Sink;

fn not_direct() -> Error {
    ser::Error::custom("the bindings' direct-encoder marker was used by a type without a direct encoder")
}

macro_rules! refuse {
    ($($name:ident($($arg:ty),*);)*) => {
        $(fn $name(self, $(_: $arg),*) -> Result<(), Error> { Err(not_direct()) })*
    };
}

impl Serializer for Sink {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    refuse! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64);
        serialize_f32(f32); serialize_f64(f64); serialize_char(char); serialize_str(&str);
        serialize_bytes(&[u8]); serialize_none(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(not_direct())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<(), Error> {
        Err(not_direct())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(not_direct())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_direct())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_direct())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_direct())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_direct())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_direct())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(not_direct())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_direct())
    }
}

/// A field's value written by its type's direct encoder (picked by method
/// resolution when the type has one; see [`ViaSerde`]).
pub trait ViaToJson {
    /// Appends the value's JSON.
    fn put_json(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: ToJson + ?Sized> ViaToJson for T {
    #[inline]
    fn put_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.write_json(out)
    }
}

/// A field's value written through serde by the bindings' encoder: what
/// `(&field).put_json(out)` resolves to when the field's type has no direct
/// encoder.
pub trait ViaSerde {
    /// Appends the value's JSON.
    fn put_json(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: Serialize + ?Sized> ViaSerde for &T {
    #[inline]
    fn put_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        super::append(out, *self)
    }
}

/// A union payload's members written by its type's [`ToJsonMembers`].
pub trait ViaMembers {
    /// Appends the members, each followed by a comma.
    fn put_members(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: ToJsonMembers + ?Sized> ViaMembers for T {
    #[inline]
    fn put_members(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.write_members(out)
    }
}

/// A union payload without [`ToJsonMembers`]: encoded through serde, then
/// its braces taken off (what `runtime::ser::tagged` writes for it).
pub trait ViaSerdeMembers {
    /// Appends the members, each followed by a comma.
    fn put_members(&self, out: &mut Vec<u8>) -> Result<(), Error>;
}

impl<T: Serialize + ?Sized> ViaSerdeMembers for &T {
    #[inline]
    fn put_members(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        members_via_serde(*self, out)
    }
}

/// The members of `value`, encoded through serde and its braces taken off
/// (`null` and `{}` give none; anything but an object is an error, as in
/// `runtime::ser::tagged`).
pub fn members_via_serde<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), Error> {
    let at = out.len();
    super::append(out, value)?;
    match &out[at..] {
        b"{}" | b"null" => out.truncate(at),
        [b'{', .., b'}'] => {
            out.remove(at);
            *out.last_mut().expect("the object's closing brace") = b',';
        }
        _ => {
            out.truncate(at);
            return Err(ser::Error::custom("a union variant payload must serialize as a JSON object"));
        }
    }
    Ok(())
}

/// Closes an object whose members were written each followed by a comma:
/// the last comma becomes the `}` (an object without members gets one).
#[inline]
pub fn close_object(out: &mut Vec<u8>) {
    close(out, b'}');
}

#[inline]
fn close(out: &mut Vec<u8>, end: u8) {
    match out.last_mut() {
        Some(last) if *last == b',' => *last = end,
        _ => out.push(end),
    }
}

/// Appends bytes known at compile time (a pre-quoted key, a discriminator).
#[inline]
pub fn raw(out: &mut Vec<u8>, bytes: &'static [u8]) {
    out.extend_from_slice(bytes);
}

/// Appends `"key":` for a key known only at run time.
#[inline]
pub fn key(out: &mut Vec<u8>, key: &str) {
    write_key(out, key);
}

/// Appends a string value, quoted and escaped.
#[inline]
pub fn string(out: &mut Vec<u8>, s: &str) {
    write_str(out, s);
}

/// Appends the unknown properties kept in `extra` as members.
#[inline]
pub fn extra(out: &mut Vec<u8>, extra: &crate::runtime::Extra) -> Result<(), Error> {
    for (k, v) in extra.iter() {
        write_key(out, k);
        v.write_json(out)?;
        out.push(b',');
    }
    Ok(())
}

impl ToJson for str {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_str(out, self);
        Ok(())
    }
}

impl ToJson for String {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_str(out, self);
        Ok(())
    }
}

impl ToJson for crate::runtime::SmolStr {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        write_str(out, self);
        Ok(())
    }
}

impl ToJson for bool {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.extend_from_slice(if *self { b"true" } else { b"false" });
        Ok(())
    }
}

/// Numbers go through the bindings' encoder, which writes them with
/// `serde_json`'s own formatter.
macro_rules! via_encoder {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            #[inline]
            fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
                self.serialize(&mut super::Encoder { out })
            }
        }
    )*};
}

via_encoder!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, Number);

impl<T: ToJson + ?Sized> ToJson for &T {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_json(out)
    }
}

impl<T: ToJson + ?Sized> ToJson for Box<T> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_json(out)
    }
}

impl<T: ToJsonMembers + ?Sized> ToJsonMembers for Box<T> {
    #[inline]
    fn write_members(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        (**self).write_members(out)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            Some(v) => v.write_json(out),
            None => {
                out.extend_from_slice(b"null");
                Ok(())
            }
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.push(b'[');
        for item in self {
            item.write_json(out)?;
            out.push(b',');
        }
        close(out, b']');
        Ok(())
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        self.as_slice().write_json(out)
    }
}

impl ToJson for Value {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            Value::Null => out.extend_from_slice(b"null"),
            Value::Bool(b) => return b.write_json(out),
            Value::Number(n) => return n.write_json(out),
            Value::String(s) => write_str(out, s),
            Value::Array(items) => return items.write_json(out),
            Value::Object(map) => return map.write_json(out),
        }
        Ok(())
    }
}

impl ToJson for Map<String, Value> {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.push(b'{');
        for (k, v) in self {
            write_key(out, k);
            v.write_json(out)?;
            out.push(b',');
        }
        close_object(out);
        Ok(())
    }
}

impl ToJson for crate::runtime::Extra {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.push(b'{');
        extra(out, self)?;
        close_object(out);
        Ok(())
    }
}

impl<T: ToJson> ToJson for crate::runtime::Nullable<T> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            crate::runtime::Nullable::Value(v) => v.write_json(out),
            crate::runtime::Nullable::Absent | crate::runtime::Nullable::Null => {
                out.extend_from_slice(b"null");
                Ok(())
            }
        }
    }
}

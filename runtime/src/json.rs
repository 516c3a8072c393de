//! JSON text for the bindings: compact encoding, byte for byte what
//! `serde_json::to_string` writes, in about a third of the instructions of
//! the official crate's `serde_json::to_string` on the session-update stream; and
//! decoding ([`from_str`]), with what `serde_json::from_str` gives, faster
//! (about 40% less time on the session-update stream).
//!
//! [`to_string`], [`to_vec`], [`to_writer`] and [`append`] take any
//! `Serialize` value. Numbers are written by `serde_json`'s own compact
//! formatter and everything else the way it writes it, so the output is the
//! same bytes: the tests compare the two on every decoded corpus message (and
//! its mutations) and on strings with every byte at every position.
//!
//! The bindings' structs and unions have direct encoders (`json::fast::ToJson`,
//! written by `#[derive(AcpSerialize)]` and the union, enum and string
//! derives): their `Serialize` hands this encoder its value whole, and it is
//! written with each known key as bytes quoted when the bindings were
//! compiled, the fields in their order and each value by its own direct
//! encoder, without serde's calls between. Under any other serializer the
//! same `Serialize` makes serde's calls, as serde's derive would.
//!
//! Where the time goes is not where one would guess. ACP messages are many
//! short strings (keys, identifiers, tags) in small objects, so `serde_json`'s
//! cost is per call, not per byte: its serializer's small methods are not
//! inlined into the crate that serializes, and each short string costs a
//! `memcpy` call. This encoder's small methods are `#[inline]`, strings are
//! scanned eight bytes at a time for the bytes JSON escapes (`"`, `\` and the
//! controls below U+0020) and copied, up to 16 bytes, as two overlapping
//! words; the text is built in a per-thread scratch buffer (kept between
//! calls up to 1 MiB) and allocated once at its final size.
//!
//! Errors are [`serde_json::Error`]s, the ones `serde_json` gives for the
//! same value (a map key that is not a string, a non-finite float key, an
//! error from a `Serialize` impl), so code can switch without changing its
//! error handling. A failed encode writes nothing: [`append`] truncates what
//! it began, [`to_writer`] encodes into a buffer first.
//!
//! [`from_str`] takes any `Deserialize` type. Its reader is strict: it accepts
//! only JSON that `serde_json` accepts and makes the visitor calls
//! `serde_json` makes for the same text (strings borrowed when they have no
//! escape, else handed over owned: the same text; numbers read by
//! `serde_json` itself unless they are plain small integers asked for as
//! integers; `serde_json`'s raw-value protocol). On any failure (bad JSON, a wrong type, or the few
//! requests it leaves to `serde_json`: bytes, 128-bit integers, numbers as
//! map keys, a struct written as an array, an enum variant with content,
//! nesting deeper than 100) the text is decoded again by
//! `serde_json::from_str`, and its value or error is returned. So errors are
//! `serde_json`'s own, with their line and column, and what the reader
//! declines costs time, never a different result (a `Deserialize` impl with
//! side effects, which the bindings' are not, would run twice then). The
//! tests decode every corpus message, its mutations and random JSON both
//! ways.
//!
//! The payloads of the session-update stream (everything reachable from a
//! `session/update` notification, in v1 and v2) are read by generated direct
//! decoders instead of serde's visitors: one loop over an object's members,
//! the discriminator of a tagged union read first, lists of items read item
//! by item. Whatever they do not serve (a discriminator that is not the first
//! member or that no variant has, an escaped member name, a duplicate or a
//! value a field's rule would replace or drop) goes to the type's visitor on
//! the same reader, with the same result. Decoding a stream of v2 session
//! updates this way takes about 0.3 times what the official crate takes.
//!
//! ```
//! use acp_bindings::v2::{ContentBlock, TextContent};
//! let block = ContentBlock::from(TextContent::new("say \"hi\"\n"));
//! let text = acp_bindings::json::to_string(&block).unwrap();
//! assert_eq!(text, serde_json::to_string(&block).unwrap());
//! assert_eq!(text, r#"{"type":"text","text":"say \"hi\"\n"}"#);
//! ```

use std::cell::RefCell;
use std::io;

mod de;
mod encode;
mod handoff;
mod text;
use self::text::{write_key, write_str, NUMBER, RAW_VALUE};
#[doc(hidden)]
pub mod fast;

pub use self::de::from_str;

use serde::ser::{self, Impossible, Serialize};
use serde_json::ser::Formatter;
use serde_json::Error;

/// Encodes `value` as compact JSON text (the bytes of `serde_json::to_string`).
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    with_buffer(|buf| {
        append(buf, value)?;
        // SAFETY: the encoder writes only whole `str`s (strings, keys, raw
        // JSON text) and ASCII (punctuation, escapes, the formatter's
        // numbers), and `append` truncates a failed encode at a boundary
        // between those pieces, so `buf` is UTF-8. (Checking it again cost 3%
        // of the encode.)
        Ok(unsafe { String::from_utf8_unchecked(buf.clone()) })
    })
}

/// Encodes `value` as compact JSON bytes (the bytes of `serde_json::to_vec`).
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    with_buffer(|buf| {
        append(buf, value)?;
        Ok(buf.clone())
    })
}

/// Encodes `value` and writes it to `writer` with one `write_all`; nothing is
/// written when encoding fails.
pub fn to_writer<W: io::Write, T: Serialize + ?Sized>(mut writer: W, value: &T) -> Result<(), Error> {
    with_buffer(|buf| {
        append(buf, value)?;
        writer.write_all(buf).map_err(Error::io)
    })
}

/// Appends the encoding of `value` to `out`; on error `out` is left as it was.
pub fn append<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<(), Error> {
    let start = out.len();
    let result = value.serialize(&mut Encoder { out });
    if result.is_err() {
        out.truncate(start);
    }
    result
}

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with an empty scratch buffer that keeps its capacity between
/// calls on this thread (a nested call, from inside a `Serialize` impl, gets a
/// fresh one), so the result is allocated once at its final size instead of
/// grown. A buffer grown past 1 MiB by a huge message is not kept.
fn with_buffer<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    BUFFER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            let r = f(&mut buf);
            if buf.capacity() > 1 << 20 {
                *buf = Vec::new();
            }
            r
        }
        Err(_) => f(&mut Vec::new()),
    })
}

/// The serializer: appends to a `Vec<u8>`.
struct Encoder<'a> {
    out: &'a mut Vec<u8>,
}

/// Formats with `serde_json`'s compact formatter, which cannot fail on a `Vec`.
#[inline]
fn fmt(r: io::Result<()>) {
    r.expect("writing to a Vec does not fail");
}

macro_rules! numbers {
    ($($method:ident $t:ty => $write:ident;)*) => {$(
        #[inline]
        fn $method(self, v: $t) -> Result<(), Error> {
            fmt(serde_json::ser::CompactFormatter.$write(self.out, v));
            Ok(())
        }
    )*};
}

impl<'a, 'b> ser::Serializer for &'a mut Encoder<'b> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, 'b>;
    type SerializeTuple = Compound<'a, 'b>;
    type SerializeTupleStruct = Compound<'a, 'b>;
    type SerializeTupleVariant = Compound<'a, 'b>;
    type SerializeMap = Compound<'a, 'b>;
    type SerializeStruct = Compound<'a, 'b>;
    type SerializeStructVariant = Compound<'a, 'b>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.out.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }

    numbers! {
        serialize_i8 i8 => write_i8;
        serialize_i16 i16 => write_i16;
        serialize_i32 i32 => write_i32;
        serialize_i64 i64 => write_i64;
        serialize_i128 i128 => write_i128;
        serialize_u8 u8 => write_u8;
        serialize_u16 u16 => write_u16;
        serialize_u32 u32 => write_u32;
        serialize_u64 u64 => write_u64;
        serialize_u128 u128 => write_u128;
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if v.is_finite() {
            fmt(serde_json::ser::CompactFormatter.write_f32(self.out, v));
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if v.is_finite() {
            fmt(serde_json::ser::CompactFormatter.write_f64(self.out, v));
        } else {
            self.out.extend_from_slice(b"null");
        }
        Ok(())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_str(self.out, v);
        Ok(())
    }

    #[inline]
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        fmt(serde_json::ser::CompactFormatter.write_byte_array(self.out, v));
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<(), Error> {
        if name == encode::ENCODE {
            return encode::lend(self.out, value);
        }
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.push(b':');
        value.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, 'b>, Error> {
        self.out.push(b'[');
        Ok(Compound::open(self, len, b']'))
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, 'b>, Error> {
        self.serialize_seq(Some(len))
    }

    #[inline]
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Compound<'a, 'b>, Error> {
        self.serialize_seq(Some(len))
    }

    #[inline]
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>, Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":[");
        Ok(Compound::open(self, Some(len), b']').in_variant())
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, 'b>, Error> {
        self.out.push(b'{');
        Ok(Compound::open(self, len, b'}'))
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, 'b>, Error> {
        if name == RAW_VALUE || name == NUMBER {
            return Ok(Compound { enc: self, state: State::Raw, close: 0, variant: false });
        }
        self.serialize_map(Some(len))
    }

    #[inline]
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, 'b>, Error> {
        self.out.push(b'{');
        write_str(self.out, variant);
        self.out.extend_from_slice(b":{");
        Ok(Compound::open(self, Some(len), b'}').in_variant())
    }

    #[inline]
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.serialize_str(&value.to_string())
    }
}

#[derive(PartialEq, Eq)]
enum State {
    /// Opened with a length of zero: already closed, as `serde_json` does.
    Empty,
    First,
    Rest,
    /// A `RawValue` or `arbitrary_precision` number: the one field's text is
    /// written as it is.
    Raw,
}

/// An array or object being written.
#[doc(hidden)]
pub struct Compound<'a, 'b> {
    enc: &'a mut Encoder<'b>,
    state: State,
    close: u8,
    /// Inside `{"variant": ...}`: one more `}` at the end.
    variant: bool,
}

impl<'a, 'b> Compound<'a, 'b> {
    #[inline]
    fn open(enc: &'a mut Encoder<'b>, len: Option<usize>, close: u8) -> Self {
        let state = if len == Some(0) {
            enc.out.push(close);
            State::Empty
        } else {
            State::First
        };
        Compound { enc, state, close, variant: false }
    }

    #[inline]
    fn in_variant(mut self) -> Self {
        self.variant = true;
        self
    }

    #[inline]
    fn separator(&mut self) {
        if self.state == State::First {
            self.state = State::Rest;
        } else {
            self.enc.out.push(b',');
        }
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.separator();
        value.serialize(&mut *self.enc)
    }

    #[inline]
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        if self.state == State::Raw {
            return if key == RAW_VALUE || key == NUMBER {
                value.serialize(RawText(self.enc.out))
            } else {
                Err(ser::Error::custom("expected RawValue"))
            };
        }
        self.separator();
        write_key(self.enc.out, key);
        value.serialize(&mut *self.enc)
    }

    #[inline]
    fn finish(self) -> Result<(), Error> {
        match self.state {
            State::First | State::Rest => self.enc.out.push(self.close),
            State::Empty | State::Raw => {}
        }
        if self.variant {
            self.enc.out.push(b'}');
        }
        Ok(())
    }
}

/// The element-list traits (arrays, tuples, tuple variants) share one body.
macro_rules! elements {
    ($($tr:ident::$method:ident),*) => {$(
        impl ser::$tr for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }
            #[inline]
            fn end(self) -> Result<(), Error> {
                self.finish()
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The struct traits (structs, struct variants) share one body.
macro_rules! fields {
    ($($tr:ident),*) => {$(
        impl ser::$tr for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            #[inline]
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
                self.entry(key, value)
            }
            #[inline]
            fn end(self) -> Result<(), Error> {
                self.finish()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.separator();
        key.serialize(KeyEncoder(self.enc.out))
    }
    /// The `:` is the key's: [`KeyEncoder`] writes it.
    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(&mut *self.enc)
    }
    #[inline]
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

/// Map keys: strings, and what `serde_json` quotes into one (integers,
/// booleans, finite floats, chars, unit variants), each with the `:` after it.
struct KeyEncoder<'a>(&'a mut Vec<u8>);

macro_rules! quoted {
    ($($method:ident $t:ty => $write:ident;)*) => {$(
        #[inline]
        fn $method(self, v: $t) -> Result<(), Error> {
            self.0.push(b'"');
            fmt(serde_json::ser::CompactFormatter.$write(self.0, v));
            self.0.extend_from_slice(b"\":");
            Ok(())
        }
    )*};
}

/// Serializer methods that only fail, with `$error`.
macro_rules! refuse {
    ($error:ident: $($method:ident ($($arg:ty),*) -> $r:ty;)*) => {$(
        #[inline]
        fn $method(self, $(_: $arg),*) -> Result<$r, Error> {
            Err($error())
        }
    )*};
}

impl ser::Serializer for KeyEncoder<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        write_key(self.0, v);
        Ok(())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_key(self.0, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<(), Error> {
        write_key(self.0, variant);
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    quoted! {
        serialize_bool bool => write_bool;
        serialize_i8 i8 => write_i8;
        serialize_i16 i16 => write_i16;
        serialize_i32 i32 => write_i32;
        serialize_i64 i64 => write_i64;
        serialize_i128 i128 => write_i128;
        serialize_u8 u8 => write_u8;
        serialize_u16 u16 => write_u16;
        serialize_u32 u32 => write_u32;
        serialize_u64 u64 => write_u64;
        serialize_u128 u128 => write_u128;
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.0.push(b'"');
        fmt(serde_json::ser::CompactFormatter.write_f32(self.0, v));
        self.0.extend_from_slice(b"\":");
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if !v.is_finite() {
            return Err(ser::Error::custom("float key must be finite (got NaN or +/-inf)"));
        }
        self.0.push(b'"');
        fmt(serde_json::ser::CompactFormatter.write_f64(self.0, v));
        self.0.extend_from_slice(b"\":");
        Ok(())
    }

    #[inline]
    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.serialize_str(&value.to_string())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    refuse! { key_must_be_a_string:
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(usize) -> Impossible<(), Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_map(Option<usize>) -> Impossible<(), Error>;
        serialize_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
    }
}

/// The text of a `RawValue` (or an `arbitrary_precision` number), written as it is.
struct RawText<'a>(&'a mut Vec<u8>);

#[inline]
fn expected_raw() -> Error {
    ser::Error::custom("expected RawValue")
}

impl ser::Serializer for RawText<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.extend_from_slice(v.as_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(expected_raw())
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> Result<(), Error> {
        Err(expected_raw())
    }

    #[inline]
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(expected_raw())
    }

    refuse! { expected_raw:
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Error>;
        serialize_tuple(usize) -> Impossible<(), Error>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
        serialize_map(Option<usize>) -> Impossible<(), Error>;
        serialize_struct(&'static str, usize) -> Impossible<(), Error>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Error>;
    }
}

#[cfg(test)]
mod tests;

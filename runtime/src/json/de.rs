//! The decoding half of [`super`]: [`from_str`] and its reader. The module
//! docs there give the contract (the value or error `serde_json::from_str`
//! gives); here is how it is kept. Every failure of the reader, including a
//! visitor's, makes [`from_str`] decode the text again with `serde_json`, so
//! only the reader's successes must match `serde_json`'s: it is at least as
//! strict (same grammar, a lower nesting limit, no lone surrogates even where
//! `serde_json` skips them) and it declines what it does not serve.

use serde::de::value::{BorrowedStrDeserializer, StringDeserializer};
use serde::de::{self, DeserializeSeed, Visitor};
use serde::Deserialize;
use serde_json::Error;

use super::handoff::Bail;
use super::text::{copy_run, next_escape, RAW_VALUE};

mod access;
mod raw;
use self::access::{Items, Members, Raw};
pub(crate) use self::raw::compact;

/// Decodes `text` as a `T`: the value or error `serde_json::from_str` gives,
/// usually faster (see the [module docs](crate::json)).
///
/// ```
/// use acp_bindings::v2::ContentBlock;
/// let text = r#"{"type":"text","text":"say \"hi\""}"#;
/// let block: ContentBlock = acp_bindings::json::from_str(text).unwrap();
/// assert_eq!(block, serde_json::from_str::<ContentBlock>(text).unwrap());
/// ```
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, Error> {
    let mut reader = Reader::new(text);
    // The result is passed on whole, not taken apart and rebuilt (which
    // would move the value once more; rustc still moves it once, out of
    // `result`, because of the branch).
    let mut result = T::deserialize(&mut reader);
    if !(result.is_ok() && reader.end()) {
        result = serde_json::from_str(text);
    }
    result
}

/// A place in the text the reader can come back to ([`Reader::mark`]).
#[derive(Clone, Copy)]
pub(super) struct Mark {
    at: usize,
    depth: u32,
    tags: super::handoff::Tags,
}

/// How deep objects and arrays may nest before the reader declines (and
/// `serde_json`, whose limit is higher, decides).
const MAX_DEPTH: u32 = 100;

/// The reader's own failures carry no message: they only send the text to
/// `serde_json`. Errors raised by visitors are kept only until then too.
#[cold]
fn decline() -> Error {
    de::Error::custom("")
}

/// The reader: the text, the position, and how deep objects and arrays nest
/// there. It is the `Deserializer` of [`from_str`] and, through
/// [`super::fast`], the cursor of the generated direct decoders.
#[doc(hidden)]
pub struct Reader<'de> {
    text: &'de str,
    at: usize,
    depth: u32,
    /// The discriminators already read in the object being read (by the
    /// direct decoders of the unions around its payload): a member of the
    /// same name makes the direct decoder bail ([`super::fast::arm`]).
    pub(super) tags: super::handoff::Tags,
}

impl<'de> Reader<'de> {
    pub(crate) fn new(text: &'de str) -> Self {
        Reader { text, at: 0, depth: 0, tags: super::handoff::Tags::NONE }
    }

    /// How deep objects and arrays nest at the position.
    #[inline]
    pub(super) fn depth(&self) -> u32 {
        self.depth
    }

    #[inline]
    fn bytes(&self) -> &'de [u8] {
        self.text.as_bytes()
    }

    /// Whether only whitespace is left.
    pub(crate) fn end(&mut self) -> bool {
        self.skip_ws();
        self.at == self.bytes().len()
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.bytes().get(self.at) {
            if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    fn peek(&mut self) -> Result<u8, Error> {
        // No whitespace (compact JSON): one compare, no loop.
        match self.bytes().get(self.at) {
            Some(&b) if b > b' ' => Ok(b),
            _ => {
                self.skip_ws();
                self.bytes().get(self.at).copied().ok_or_else(decline)
            }
        }
    }

    #[inline]
    fn eat(&mut self, b: u8) -> Result<(), Error> {
        if self.peek()? == b {
            self.at += 1;
            Ok(())
        } else {
            Err(decline())
        }
    }

    #[inline]
    fn literal(&mut self, word: &[u8]) -> Result<(), Error> {
        if self.bytes().get(self.at..self.at + word.len()) == Some(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(decline())
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(decline());
        }
        Ok(())
    }

    /// A string, the opening quote already seen: borrowed when it has no
    /// escape, else unescaped into a `String`. This and the reader's other
    /// small steps are always inlined: left to the compiler, whether they
    /// are changed with how the crate falls into codegen units, and the
    /// decode with them (by 6% when code moved to another module).
    #[inline(always)]
    fn string(&mut self) -> Result<Text<'de>, Error> {
        self.at += 1;
        let start = self.at;
        let stop = next_escape(self.bytes(), start);
        match self.bytes().get(stop) {
            Some(b'"') => {
                self.at = stop + 1;
                Ok(Text::Borrowed(&self.text[start..stop]))
            }
            Some(b'\\') => self.escaped(start, stop).map(Text::Owned),
            _ => Err(decline()),
        }
    }

    /// A string with an escape at `at` (its text from `start`): unescaped
    /// into bytes (the runs between escapes copied by [`copy_run`], each
    /// short escape pushed as its byte), which are UTF-8 by construction.
    #[cold]
    fn escaped(&mut self, start: usize, mut at: usize) -> Result<String, Error> {
        let bytes = self.bytes();
        let mut out: Vec<u8> = Vec::with_capacity(at - start + 64);
        out.extend_from_slice(&bytes[start..at]);
        loop {
            match bytes.get(at) {
                Some(b'"') => {
                    self.at = at + 1;
                    // SAFETY: `out` holds runs of the input text (a `str`)
                    // cut at ASCII bytes, ASCII bytes, and chars encoded as UTF-8.
                    return Ok(unsafe { String::from_utf8_unchecked(out) });
                }
                Some(b'\\') => {
                    let b = match bytes.get(at + 1) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        Some(b'u') => {
                            let high = self.hex4(at + 2)?;
                            at += 4;
                            let code = match high {
                                0xD800..=0xDBFF => {
                                    if bytes.get(at + 2..at + 4) != Some(b"\\u") {
                                        return Err(decline());
                                    }
                                    let low = self.hex4(at + 4)?;
                                    if !(0xDC00..=0xDFFF).contains(&low) {
                                        return Err(decline());
                                    }
                                    at += 6;
                                    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                                }
                                0xDC00..=0xDFFF => return Err(decline()),
                                _ => high,
                            };
                            let c = char::from_u32(code).ok_or_else(decline)?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                            at += 2;
                            continue;
                        }
                        _ => return Err(decline()),
                    };
                    out.push(b);
                    at += 2;
                }
                Some(_) => {
                    let stop = copy_run(bytes, at, &mut out);
                    if stop == at {
                        // A control character.
                        return Err(decline());
                    }
                    at = stop;
                }
                None => return Err(decline()),
            }
        }
    }

    fn hex4(&self, at: usize) -> Result<u32, Error> {
        let digits = self.bytes().get(at..at + 4).ok_or_else(decline)?;
        let mut v = 0;
        for &d in digits {
            v = v * 16 + (d as char).to_digit(16).ok_or_else(decline)?;
        }
        Ok(v)
    }

    /// The extent of a number, checked against JSON's grammar
    /// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    fn number_text(&mut self) -> Result<&'de str, Error> {
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.bytes().get(r.at).is_some_and(u8::is_ascii_digit) {
                r.at += 1;
            }
            r.at - from
        };
        if self.bytes().get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes().get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(decline()),
        }
        if self.bytes().get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(decline());
            }
        }
        if matches!(self.bytes().get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes().get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(decline());
            }
        }
        Ok(&self.text[start..self.at])
    }

    /// A number asked for as a number (`u32`, `f64`, ...): plain integers of
    /// up to 18 digits directly (`visit_u64`, as `serde_json` calls it for
    /// them), anything else read by `serde_json` itself, so floats, negatives
    /// and large values get its exact calls.
    fn number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let text = self.number_text()?;
        if text.len() <= 18 && text.bytes().all(|b| b.is_ascii_digit()) {
            let v = text.bytes().fold(0u64, |v, d| v * 10 + u64::from(d - b'0'));
            return visitor.visit_u64(v);
        }
        Self::by_serde_json(text, visitor)
    }

    /// A number where one is asked for; anything else is declined (serde_json
    /// refuses it with a type error).
    fn deserialize_number<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'-' | b'0'..=b'9' => self.number(visitor),
            _ => Err(decline()),
        }
    }

    /// A number read by `serde_json` from its text, with `deserialize_any`.
    /// Numbers met by `deserialize_any` (in a `Value`, a `runtime::Number`)
    /// always come here: a build in which some crate turns on serde_json's
    /// `arbitrary_precision` hands them over as a map, and this keeps that.
    fn by_serde_json<V: Visitor<'de>>(text: &'de str, visitor: V) -> Result<V::Value, Error> {
        let mut de = serde_json::Deserializer::from_str(text);
        let v = de::Deserializer::deserialize_any(&mut de, visitor)?;
        de.end()?;
        Ok(v)
    }

    /// Skips one value, as strictly as `serde_json` skips one.
    fn skip(&mut self) -> Result<(), Error> {
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => {
                self.enter()?;
                self.at += 1;
                if self.peek()? == b'}' {
                    self.at += 1;
                } else {
                    loop {
                        if self.peek()? != b'"' {
                            return Err(decline());
                        }
                        self.string()?;
                        self.eat(b':')?;
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.at += 1,
                            b'}' => {
                                self.at += 1;
                                break;
                            }
                            _ => return Err(decline()),
                        }
                    }
                }
                self.depth -= 1;
                Ok(())
            }
            b'[' => {
                self.enter()?;
                self.at += 1;
                if self.peek()? == b']' {
                    self.at += 1;
                } else {
                    loop {
                        self.skip()?;
                        match self.peek()? {
                            b',' => self.at += 1,
                            b']' => {
                                self.at += 1;
                                break;
                            }
                            _ => return Err(decline()),
                        }
                    }
                }
                self.depth -= 1;
                Ok(())
            }
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => self.number_text().map(drop),
        }
    }

    /// An object's members, the `{` next.
    fn map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        self.at += 1;
        let value = visitor.visit_map(Members { reader: self, first: true })?;
        // serde_json refuses an object with members the visitor did not take.
        self.eat(b'}')?;
        self.depth -= 1;
        Ok(value)
    }

    /// An array's items, the `[` next.
    fn seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        self.at += 1;
        let value = visitor.visit_seq(Items { reader: self, first: true })?;
        // serde_json refuses an array with items the visitor did not take.
        self.eat(b']')?;
        self.depth -= 1;
        Ok(value)
    }
}

/// The cursor API of the generated direct decoders ([`super::fast`]): each
/// method reads one piece of JSON as strictly as the `Deserializer` does,
/// and fails with [`Bail`] where that one would decline.
impl<'de> Reader<'de> {
    /// A reader of `text` at `at`, inside `depth` objects and arrays.
    pub(super) fn at(text: &'de str, at: usize, depth: u32) -> Self {
        Reader { text, at, depth, tags: super::handoff::Tags::NONE }
    }

    /// The position and nesting depth.
    pub(super) fn position(&self) -> (usize, u32) {
        (self.at, self.depth)
    }

    /// Where the reader is (position, depth, the discriminators read), to
    /// come back to with [`Self::reset`] when a value read here fails.
    #[inline]
    pub(super) fn mark(&self) -> Mark {
        Mark { at: self.at, depth: self.depth, tags: self.tags }
    }

    /// Back to `mark`: the value after it is read again from its start.
    #[inline]
    pub(super) fn reset(&mut self, mark: Mark) {
        (self.at, self.depth, self.tags) = (mark.at, mark.depth, mark.tags);
    }

    /// Hands the object that starts here to a generated visitor that reads it
    /// directly ([`super::fast`]): the visitor gets the text, the position
    /// travels beside it, and the position after the object comes back.
    #[inline]
    fn direct<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        if self.peek()? != b'{' {
            return Err(decline());
        }
        super::handoff::hand_over(self.at, self.depth);
        // Passed on whole, as in `from_str`.
        // (`visit` hands a position back exactly when it succeeds; a value
        // without one, which no generated visitor gives, leaves the reader
        // past the end, where every read and `end` fail.)
        let result = visitor.visit_borrowed_str::<Error>(self.text);
        self.at = match super::handoff::take_back() {
            Some((at, depth)) if depth == self.depth => at,
            _ => self.text.len() + 1,
        };
        result
    }

    /// Opens an object: `Ok(true)` when it has members (the first key is
    /// next), `Ok(false)` when it is empty (and already closed).
    #[inline(always)]
    pub fn open(&mut self) -> Result<bool, Bail> {
        if self.peek().map_err(bail)? != b'{' {
            return Err(Bail);
        }
        self.enter().map_err(bail)?;
        self.at += 1;
        self.more(b'}')
    }

    /// Whether a container just opened has items; an empty one is closed.
    #[inline(always)]
    fn more(&mut self, close: u8) -> Result<bool, Bail> {
        if self.peek().map_err(bail)? == close {
            self.at += 1;
            self.depth -= 1;
            Ok(false)
        } else {
            Ok(true)
        }
    }

    /// A member's name and its `:`. A name with an escape bails (the
    /// `Deserializer` reads it).
    #[inline(always)]
    pub fn key(&mut self) -> Result<&'de str, Bail> {
        if self.peek().map_err(bail)? != b'"' {
            return Err(Bail);
        }
        let key = match self.string().map_err(bail)? {
            Text::Borrowed(k) => k,
            Text::Owned(_) => return Err(Bail),
        };
        self.eat(b':').map_err(bail)?;
        Ok(key)
    }

    /// The member name `key` and its `:`, if the text has them right here
    /// (no whitespace, no escape): consumed, `true`. Two word compares for
    /// a name of up to 14 bytes, no scan for the closing quote.
    #[inline(always)]
    pub fn known_key(&mut self, key: &super::handoff::Known) -> bool {
        let bytes = self.bytes();
        let (at, len) = (self.at, usize::from(key.len));
        let hit = if at + 16 <= bytes.len() && len <= 16 {
            let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("eight bytes"));
            if len <= 8 {
                word(at) & key.mask == key.lo
            } else {
                word(at) == key.lo && word(at + len - 8) == key.hi
            }
        } else {
            bytes.get(at..at + len) == Some(key.bytes)
        };
        if hit {
            self.at = at + len;
        }
        hit
    }

    /// After a member: `Ok(true)` for a `,` (another member follows),
    /// `Ok(false)` for the closing `}`.
    #[inline(always)]
    pub fn next_member(&mut self) -> Result<bool, Bail> {
        self.separator(b'}')
    }

    #[inline(always)]
    fn separator(&mut self, close: u8) -> Result<bool, Bail> {
        match self.peek().map_err(bail)? {
            b',' => {
                self.at += 1;
                Ok(true)
            }
            c if c == close => {
                self.at += 1;
                self.depth -= 1;
                Ok(false)
            }
            _ => Err(Bail),
        }
    }

    /// Opens an array: `Ok(true)` when it has items.
    #[inline(always)]
    pub fn open_array(&mut self) -> Result<bool, Bail> {
        if self.peek().map_err(bail)? != b'[' {
            return Err(Bail);
        }
        self.enter().map_err(bail)?;
        self.at += 1;
        self.more(b']')
    }

    /// After an item: `Ok(true)` for a `,`, `Ok(false)` for the closing `]`.
    #[inline(always)]
    pub fn next_item(&mut self) -> Result<bool, Bail> {
        self.separator(b']')
    }

    /// Whether the next value is `null` (consumed if it is).
    #[inline(always)]
    pub fn null(&mut self) -> Result<bool, Bail> {
        if self.peek().map_err(bail)? == b'n' {
            self.literal(b"null").map_err(bail)?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// The next byte after whitespace (not consumed).
    #[inline]
    pub fn peek_byte(&mut self) -> Result<u8, Bail> {
        self.peek().map_err(bail)
    }

    /// A string: borrowed when it has no escape.
    #[inline(always)]
    pub fn str(&mut self) -> Result<std::borrow::Cow<'de, str>, Bail> {
        if self.peek().map_err(bail)? != b'"' {
            return Err(Bail);
        }
        Ok(match self.string().map_err(bail)? {
            Text::Borrowed(s) => std::borrow::Cow::Borrowed(s),
            Text::Owned(s) => std::borrow::Cow::Owned(s),
        })
    }

    /// Skips one value, as strictly as `serde_json` skips one.
    #[inline]
    pub fn skip_value(&mut self) -> Result<(), Bail> {
        self.skip().map_err(bail)
    }

    /// One value read by its `Deserialize` impl through this reader.
    #[inline]
    pub fn serde<T: Deserialize<'de>>(&mut self) -> Result<T, Bail> {
        T::deserialize(self).map_err(bail)
    }

    /// One value read by a seed through this reader.
    #[inline]
    pub fn seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Bail> {
        seed.deserialize(self).map_err(bail)
    }
}

/// Drops a reader error: a direct decoder that bails is decoded again.
#[inline]
fn bail(_: Error) -> Bail {
    Bail
}

/// A string's text.
enum Text<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl<'de> Text<'de> {
    #[inline]
    fn visit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Text::Borrowed(s) => visitor.visit_borrowed_str(s),
            Text::Owned(s) => visitor.visit_string(s),
        }
    }
}

/// Deserializer methods that read a number where one is asked for.
macro_rules! numbers {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.deserialize_number(visitor)
        }
    )*};
}

/// Deserializer methods the reader leaves to serde_json.
macro_rules! declined {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
            Err(decline())
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'"' => self.string()?.visit(visitor),
            b'{' => self.map(visitor),
            b'[' => self.seq(visitor),
            b't' => self.literal(b"true").and_then(|()| visitor.visit_bool(true)),
            b'f' => self.literal(b"false").and_then(|()| visitor.visit_bool(false)),
            b'n' => self.literal(b"null").and_then(|()| visitor.visit_unit()),
            _ => {
                let text = self.number_text()?;
                Reader::by_serde_json(text, visitor)
            }
        }
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'"' => self.string()?.visit(visitor),
            _ => Err(decline()),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek()? == b'n' {
            self.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b't' | b'f' => self.deserialize_any(visitor),
            _ => Err(decline()),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'n' => self.deserialize_any(visitor),
            _ => Err(decline()),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    #[inline]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'{' => self.map(visitor),
            _ => Err(decline()),
        }
    }

    #[inline]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == super::handoff::STRUCT {
            return self.direct(visitor);
        }
        // serde_json also reads a struct from an array; this reader declines.
        self.deserialize_map(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek()? {
            b'[' => self.seq(visitor),
            _ => Err(decline()),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == super::handoff::RAW_JSON {
            return self.raw_json_visit(visitor);
        }
        if name == RAW_VALUE {
            // serde_json's raw-value protocol: one entry, its token, then the
            // value's text (without the whitespace around it).
            self.skip_ws();
            let start = self.at;
            self.skip()?;
            return visitor.visit_map(Raw { text: Some(&self.text[start..self.at]) });
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // A unit variant as a string; the `{"variant": ...}` form is declined.
        match self.peek()? {
            b'"' => match self.string()? {
                Text::Borrowed(s) => visitor.visit_enum(BorrowedStrDeserializer::new(s)),
                Text::Owned(s) => visitor.visit_enum(StringDeserializer::new(s)),
            },
            _ => Err(decline()),
        }
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip()?;
        visitor.visit_unit()
    }

    numbers! {
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_i8
        deserialize_i16 deserialize_i32 deserialize_i64 deserialize_f32 deserialize_f64
    }

    // 128-bit integers and bytes: declined (serde_json reads them).
    declined! { deserialize_i128 deserialize_u128 deserialize_bytes deserialize_byte_buf }
}

#[cfg(test)]
mod tests;

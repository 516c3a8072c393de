//! Deserialization helpers called from generated code.
//!
//! The ACP `x-deserialize-*` keywords need a field's value captured before it
//! is decoded (a malformed value must be replaced by the default, not abort
//! the message). These helpers capture it as its JSON text ([`Raw`]: borrowed
//! from the input when serde_json reads a string or a slice, so nothing is
//! allocated) and decode that text; only a deserializer that is not
//! serde_json's makes them buffer a [`serde_json::Value`]. Broken JSON syntax
//! still fails the message, as it would have when buffering.

use serde::de::{DeserializeOwned, Error, Unexpected};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{Extra, JsonObject, Nullable, Number};

/// How a field's Rust type represents "no value" and "a value".
pub trait Shape: Default {
    /// The type a present, non-null value decodes to.
    type Inner;
    /// The representation of an explicit `null`, if the shape has one.
    fn null() -> Option<Self>;
    /// Wraps a decoded value.
    fn wrap(inner: Self::Inner) -> Self;
}

impl<T> Shape for Option<T> {
    type Inner = T;
    fn null() -> Option<Self> {
        Some(None)
    }
    fn wrap(inner: T) -> Self {
        Some(inner)
    }
}

impl<T> Shape for Nullable<T> {
    type Inner = T;
    fn null() -> Option<Self> {
        Some(Nullable::Null)
    }
    fn wrap(inner: T) -> Self {
        Nullable::Value(inner)
    }
}

impl<T> Shape for Vec<T> {
    type Inner = Vec<T>;
    fn null() -> Option<Self> {
        None
    }
    fn wrap(inner: Vec<T>) -> Self {
        inner
    }
}

// ---- values captured as JSON text -------------------------------------------

/// serde_json's name for a raw value (`serde_json::value::RawValue`): a
/// serde_json deserializer asked for a newtype struct of this name hands over
/// the value's JSON text instead of its contents. Any other deserializer
/// ignores the name and the value is buffered as a [`Value`].
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// A value captured without decoding it: its JSON text, borrowed from the
/// input when possible, or (from a deserializer that is not serde_json's) a
/// buffered [`Value`].
pub enum Raw<'de> {
    /// Borrowed from the input (`serde_json::from_str` / `from_slice`).
    Borrowed(&'de str),
    /// Copied (serde_json reading from an `io::Read` or a `Value`).
    Owned(String),
    /// Buffered (any other deserializer).
    Value(Value),
}

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_TOKEN, RawVisitor)
    }
}

struct RawVisitor;

impl<'de> serde::de::Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    // serde_json: one entry, the token and the value's text.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Raw<'de>, A::Error> {
        map.next_key::<serde::de::IgnoredAny>()?;
        map.next_value_seed(RawText)
    }

    // Any other deserializer.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Raw<'de>, D::Error> {
        Value::deserialize(d).map(Raw::Value)
    }
}

/// The text of a raw value, borrowed when the input allows.
struct RawText;

impl<'de> serde::de::DeserializeSeed<'de> for RawText {
    type Value = Raw<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Raw<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for RawText {
    type Value = Raw<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a raw JSON value")
    }
    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Raw<'de>, E> {
        Ok(Raw::Borrowed(v))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Raw<'de>, E> {
        Ok(Raw::Owned(v.to_owned()))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Raw<'de>, E> {
        Ok(Raw::Owned(v))
    }
}

/// What decoding a captured value gave: the value, a value of the wrong shape
/// (the lenient rules replace it), or broken JSON (always an error, as when
/// the value was buffered).
enum Decoded<T> {
    Ok(T),
    Wrong(serde_json::Error),
    Broken(serde_json::Error),
}

/// Decodes captured JSON text. On failure (the rare path) the text is read
/// once more as a [`Value`]: what a `Value` rejects (a lone surrogate escape,
/// a number out of range: the capture lets those through) fails the message,
/// exactly as buffering the value did; anything else is a wrong shape.
fn decode_text<T: DeserializeOwned>(text: &str) -> Decoded<T> {
    match serde_json::from_str(text) {
        Ok(v) => Decoded::Ok(v),
        Err(e) => match serde_json::from_str::<Value>(text) {
            Err(broken) => Decoded::Broken(broken),
            Ok(_) => Decoded::Wrong(e),
        },
    }
}

impl Raw<'_> {
    fn text(&self) -> Option<&str> {
        match self {
            Raw::Borrowed(s) => Some(s),
            Raw::Owned(s) => Some(s),
            Raw::Value(_) => None,
        }
    }

    fn is_null(&self) -> bool {
        match self {
            Raw::Value(v) => v.is_null(),
            _ => self.text().is_some_and(|t| t == "null"),
        }
    }

    /// Decodes the captured value as `T`.
    fn decode<T: DeserializeOwned>(self) -> Decoded<T> {
        match self {
            Raw::Borrowed(s) => decode_text(s),
            Raw::Owned(s) => decode_text(&s),
            // Another deserializer (not serde_json's) buffered the value: decoded
            // from its text too, so each field type has one decoding path to
            // compile (a `Value` is never broken JSON: any failure is a wrong shape).
            Raw::Value(v) => decode_text(&v.to_string()),
        }
    }
}

/// `x-deserialize-default-on-error`: a value of the wrong shape becomes the default.
pub fn lenient<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: DeserializeOwned,
{
    let raw = Raw::deserialize(deserializer)?;
    if raw.is_null() {
        return Ok(F::null().unwrap_or_default());
    }
    match raw.decode::<F::Inner>() {
        Decoded::Ok(v) => Ok(F::wrap(v)),
        Decoded::Wrong(_) => Ok(F::default()),
        Decoded::Broken(e) => Err(D::Error::custom(e)),
    }
}

/// A JSON object field with the default-on-error rule, streamed: an object
/// decodes as it goes by (every value as a [`Value`]), `null` gives `null`,
/// anything else `wrong` once it has been read the way a [`Value`] reads it
/// (broken JSON still fails). Nothing is captured and read twice.
pub fn lenient_object<'de, D: Deserializer<'de>, R>(
    deserializer: D,
    null: R,
    wrong: R,
    wrap: impl FnOnce(JsonObject) -> R,
) -> Result<R, D::Error> {
    deserializer.deserialize_any(ObjectVisitor { null, wrong, wrap })
}

/// The default-on-error rule for an optional JSON object field of a
/// generated struct (`_meta`): [`lenient_object`] into its [`Shape`].
pub fn lenient_meta<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: From<JsonObject>,
{
    lenient_object(deserializer, F::null().unwrap_or_default(), F::default(), |m| F::wrap(m.into()))
}

struct ObjectVisitor<R, W> {
    null: R,
    wrong: R,
    wrap: W,
}

impl<'de, R, W: FnOnce(JsonObject) -> R> serde::de::Visitor<'de> for ObjectVisitor<R, W> {
    type Value = R;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<R, A::Error> {
        let mut object = JsonObject::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            object.insert(k, v);
        }
        Ok((self.wrap)(object))
    }

    fn visit_unit<E: Error>(self) -> Result<R, E> {
        Ok(self.null)
    }

    fn visit_none<E: Error>(self) -> Result<R, E> {
        Ok(self.null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<R, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(self.wrong)
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<R, E> {
        Ok(self.wrong)
    }
}

/// `x-deserialize-default-on-error` with `x-deserialize-skip-invalid-items`.
///
/// Streams the list: each item's JSON text is captured as it goes by and
/// decoded from it, a failing item is dropped; the list itself is never
/// captured. A value that is not a list is the field's default, unless its
/// JSON is broken.
pub fn lenient_items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    deserializer.deserialize_any(ListVisitor::<F, T> { strict: false, marker: std::marker::PhantomData })
}

/// `x-deserialize-skip-invalid-items` alone: a list item that fails to decode
/// is dropped; a value that is not a list is still an error.
pub fn items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    deserializer.deserialize_any(ListVisitor::<F, T> { strict: true, marker: std::marker::PhantomData })
}

/// The visitor of [`lenient_items`] and [`items`].
struct ListVisitor<F, T> {
    /// A value that is not a list (or `null`, where the shape has none) is an
    /// error instead of the default.
    strict: bool,
    marker: std::marker::PhantomData<fn() -> (F, T)>,
}

impl<F: Shape, T> ListVisitor<F, T> {
    /// A value of another JSON type.
    fn other<E: Error>(&self, found: Unexpected<'_>) -> Result<F, E> {
        if self.strict {
            Err(E::invalid_type(found, &"an array"))
        } else {
            Ok(F::default())
        }
    }
}

impl<'de, F: Shape<Inner = Vec<T>>, T: DeserializeOwned> serde::de::Visitor<'de> for ListVisitor<F, T> {
    type Value = F;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<F, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(256));
        while let Some(item) = seq.next_element::<Raw<'de>>()? {
            match item.decode::<T>() {
                Decoded::Ok(v) => out.push(v),
                Decoded::Wrong(_) => {}
                Decoded::Broken(e) => return Err(A::Error::custom(e)),
            }
        }
        Ok(F::wrap(out))
    }

    fn visit_unit<E: Error>(self) -> Result<F, E> {
        match F::null() {
            Some(null) => Ok(null),
            None => self.other(Unexpected::Unit),
        }
    }

    fn visit_none<E: Error>(self) -> Result<F, E> {
        self.visit_unit()
    }

    // A wrong shape: its content is still read as a `Value` would read it, so
    // that broken JSON fails the message whatever the shape.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<F, A::Error> {
        while map.next_entry::<String, Value>()?.is_some() {}
        self.other(Unexpected::Map)
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<F, E> {
        self.other(Unexpected::Bool(v))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<F, E> {
        self.other(Unexpected::Signed(v))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<F, E> {
        self.other(Unexpected::Unsigned(v))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<F, E> {
        self.other(Unexpected::Float(v))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<F, E> {
        self.other(Unexpected::Str(v))
    }
}

/// Decodes a captured value strictly: `T` or the error (for `nested` patch
/// fields and `_meta`, which decide themselves what a wrong shape means).
pub fn decode_raw<T: DeserializeOwned>(raw: Raw<'_>) -> Result<T, (bool, serde_json::Error)> {
    match raw.decode::<T>() {
        Decoded::Ok(v) => Ok(v),
        Decoded::Wrong(e) => Err((false, e)),
        Decoded::Broken(e) => Err((true, e)),
    }
}

/// Whether a captured value is `null`.
pub fn raw_is_null(raw: &Raw<'_>) -> bool {
    raw.is_null()
}

/// `x-deserialize-default-on-null` on a required list: `null` means empty.
pub fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A required field that may be `null`: present is required, `null` is `None`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

/// An optional field of any JSON: a present `null` is kept as `Some(Value::Null)`.
pub fn any<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Where a checked value's rule is in the schema, for its error (bounds,
/// `minLength` / `pattern`, a definition's `not`). The generator writes one
/// hidden implementation per checked property or definition.
pub trait Pointer {
    /// The JSON pointer of the property or definition (`#/$defs/TerminalSize/properties/cols`).
    const POINTER: &'static str;
}

fn out_of_range<T: std::fmt::Display>(value: T, min: &str, max: &str, pointer: &str) -> serde_json::Error {
    serde_json::Error::custom(format_args!("{value} is out of range: expected {min} to {max} ({pointer})"))
}

fn check_int<T: Copy + Into<i128> + std::fmt::Display>(
    v: T,
    min: i128,
    max: i128,
    pointer: &str,
) -> Result<T, serde_json::Error> {
    let wide: i128 = v.into();
    if wide < min || wide > max {
        return Err(out_of_range(v, &min.to_string(), &max.to_string(), pointer));
    }
    Ok(v)
}

fn check_float(n: Number, min: u64, max: u64, pointer: &str) -> Result<Number, serde_json::Error> {
    let (min, max, v) = (f64::from_bits(min), f64::from_bits(max), n.as_f64());
    if !(v >= min && v <= max) {
        return Err(out_of_range(n, &min.to_string(), &max.to_string(), pointer));
    }
    Ok(n)
}

/// A string property's `minLength` and `pattern`, checked on decode. The
/// generator writes one hidden implementation per constrained property.
pub trait StrRule: Pointer {
    /// `minLength`, in Unicode code points (0: none).
    const MIN_LENGTH: usize;
    /// `pattern`, if any.
    fn pattern() -> Option<&'static Pattern>;
}

/// A JSON Schema `pattern`, compiled on first use. As in JSON Schema it is
/// not anchored: `^` and `$` in the pattern anchor it. The generator compiles
/// every pattern when it reads the schema, so compiling here cannot fail.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    regex: std::sync::OnceLock<regex_lite::Regex>,
}

impl Pattern {
    /// A pattern, not compiled yet.
    pub const fn new(source: &'static str) -> Pattern {
        Pattern { source, regex: std::sync::OnceLock::new() }
    }

    /// The pattern as the schema writes it.
    pub fn as_str(&self) -> &'static str {
        self.source
    }

    /// Whether `text` matches somewhere (JSON Schema's unanchored rule).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| regex_lite::Regex::new(self.source).expect("the generator checks every pattern"))
            .is_match(text)
    }
}

fn check_str<R: StrRule>(v: String) -> Result<String, serde_json::Error> {
    if R::MIN_LENGTH > 0 && v.chars().count() < R::MIN_LENGTH {
        return Err(serde_json::Error::custom(format_args!(
            "{v:?} is shorter than the {} character(s) `minLength` of {} asks for",
            R::MIN_LENGTH,
            R::POINTER
        )));
    }
    if let Some(p) = R::pattern() {
        if !p.is_match(&v) {
            return Err(serde_json::Error::custom(format_args!(
                "{v:?} does not match the `pattern` {:?} of {}",
                p.as_str(),
                R::POINTER
            )));
        }
    }
    Ok(v)
}

/// A required string property with `minLength` / `pattern`.
pub fn checked_str<'de, D: Deserializer<'de>, R: StrRule>(deserializer: D) -> Result<String, D::Error> {
    check_str::<R>(String::deserialize(deserializer)?).map_err(D::Error::custom)
}

/// An optional or nullable string property with `minLength` / `pattern`;
/// `LENIENT` applies default-on-error (a value that breaks the rule decodes
/// as the default).
pub fn opt_checked_str<'de, D, F, R, const LENIENT: bool>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = String>,
    R: StrRule,
{
    let value = Value::deserialize(deserializer)?;
    let decoded = match value {
        Value::Null => F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a string")),
        Value::String(s) => check_str::<R>(s).map(F::wrap),
        other => Err(serde_json::Error::invalid_type(unexpected(&other), &"a string")),
    };
    finish::<D, F>(decoded, LENIENT)
}

/// A required integer with `minimum`/`maximum` beyond its format's range.
pub fn int_in_range<'de, D, T, const MIN: i128, const MAX: i128, P: Pointer>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy + Into<i128> + std::fmt::Display,
{
    check_int(T::deserialize(deserializer)?, MIN, MAX, P::POINTER).map_err(D::Error::custom)
}

/// An optional integer with bounds; `LENIENT` applies default-on-error.
pub fn opt_int_in_range<'de, D, F, const MIN: i128, const MAX: i128, const LENIENT: bool, P: Pointer>(
    deserializer: D,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: DeserializeOwned + Copy + Into<i128> + std::fmt::Display,
{
    let value = Value::deserialize(deserializer)?;
    let decoded = if value.is_null() {
        F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"an integer"))
    } else {
        F::Inner::deserialize(value).and_then(|v| check_int(v, MIN, MAX, P::POINTER)).map(F::wrap)
    };
    finish::<D, F>(decoded, LENIENT)
}

/// A required number with bounds, given as `f64::to_bits`.
pub fn float_in_range<'de, D, const MIN: u64, const MAX: u64, P: Pointer>(deserializer: D) -> Result<Number, D::Error>
where
    D: Deserializer<'de>,
{
    check_float(Number::deserialize(deserializer)?, MIN, MAX, P::POINTER).map_err(D::Error::custom)
}

/// An optional number with bounds; `LENIENT` applies default-on-error.
pub fn opt_float_in_range<'de, D, F, const MIN: u64, const MAX: u64, const LENIENT: bool, P: Pointer>(
    deserializer: D,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Number>,
{
    let value = Value::deserialize(deserializer)?;
    let decoded = if value.is_null() {
        F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a number"))
    } else {
        Number::deserialize(value).and_then(|v| check_float(v, MIN, MAX, P::POINTER)).map(F::wrap)
    };
    finish::<D, F>(decoded, LENIENT)
}

fn finish<'de, D: Deserializer<'de>, F: Default>(
    decoded: Result<F, serde_json::Error>,
    lenient: bool,
) -> Result<F, D::Error> {
    match decoded {
        Ok(v) => Ok(v),
        Err(_) if lenient => Ok(F::default()),
        Err(e) => Err(D::Error::custom(e)),
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Unexpected::Signed(i),
            (_, Some(u), _) => Unexpected::Unsigned(u),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

// ---- unions ---------------------------------------------------------------

/// The discriminator of a tagged union object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag<'a> {
    /// The discriminator property is absent.
    Missing,
    /// The discriminator property is `null`.
    Null,
    /// The discriminator is a string.
    Str(&'a str),
    /// The discriminator has another JSON type.
    Invalid,
}

/// Reads the discriminator `key` of `object`.
pub fn tag<'a>(object: &'a JsonObject, key: &str) -> Tag<'a> {
    match object.get(key) {
        None => Tag::Missing,
        Some(Value::Null) => Tag::Null,
        Some(Value::String(s)) => Tag::Str(s),
        Some(_) => Tag::Invalid,
    }
}

/// Buffers any JSON value for an untagged union decoder.
pub fn value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Value::deserialize(deserializer)
}

/// Refuses a discriminator value the catch-all's `not` guard excludes
/// although no arm has it (reserved for a future arm): no arm accepts it.
pub fn check_reserved<E: Error>(object: &JsonObject, union: &str, key: &str, reserved: &[&str]) -> Result<(), E> {
    match object.get(key).and_then(Value::as_str) {
        Some(t) if reserved.contains(&t) => Err(E::custom(format_args!(
            "`{key}` `{t}` is reserved in {union} for a variant this schema does not define yet: no arm accepts it"
        ))),
        _ => Ok(()),
    }
}

/// Checks the fields a catch-all arm requires and the types of the ones it names.
pub fn check_catch_all<E: Error>(object: &JsonObject, union: &str, required: &[&str]) -> Result<(), E> {
    for key in required {
        if !object.contains_key(*key) {
            return Err(E::custom(format_args!("unknown variant of {union} is missing required field `{key}`")));
        }
    }
    Ok(())
}

/// Checks that a property of a catch-all arm, when present, has the type the schema gives it.
pub fn check_catch_all_field<T: DeserializeOwned, E: Error>(
    object: &JsonObject,
    union: &str,
    key: &str,
) -> Result<(), E> {
    match object.get(key) {
        Some(v) => T::deserialize(v)
            .map(drop)
            .map_err(|e| E::custom(format_args!("invalid field `{key}` in unknown variant of {union}: {e}"))),
        None => Ok(()),
    }
}

/// Tries one arm of an untagged union on a buffered value.
pub fn try_arm<T: DeserializeOwned>(value: &Value, errors: &mut Vec<String>, arm: &str) -> Option<T> {
    match T::deserialize(value) {
        Ok(v) => Some(v),
        Err(e) => {
            errors.push(format!("{arm}: {e}"));
            None
        }
    }
}

/// The error when no arm of an untagged union matched.
pub fn no_arm<E: Error>(union: &str, errors: &[String]) -> E {
    E::custom(format_args!("data did not match any variant of {union} ({})", errors.join("; ")))
}

/// The error when no arm that accepts any discriminator value matched: for
/// an absent discriminator the arms' errors, otherwise the unknown-tag error
/// (`tag_error`) with them.
pub fn no_open_arm<E: Error>(union: &str, tag_error: &str, missing: bool, errors: &[String]) -> E {
    if missing {
        no_arm(union, errors)
    } else {
        E::custom(format_args!("{tag_error}; no arm that accepts other values matched ({})", errors.join("; ")))
    }
}

/// The error for a discriminator that a closed union does not know.
pub fn unknown_tag<E: Error>(union: &str, key: &str, tag: Tag<'_>, expected: &'static [&'static str]) -> E {
    match tag {
        Tag::Str(t) => {
            E::custom(format_args!("unknown `{key}` `{t}` for {union}, expected one of {}", expected.join(", ")))
        }
        Tag::Missing => E::custom(format_args!("missing field `{key}` for {union}")),
        Tag::Null | Tag::Invalid => E::custom(format_args!("invalid `{key}` for {union}: expected a string")),
    }
}

// ---- streaming tagged unions -------------------------------------------------

/// Stores a field's value for a generated `Deserialize`; a second occurrence
/// of the key is an error, as with serde's derive.
pub fn once<T, E: Error>(slot: &mut Option<T>, key: &'static str, value: T) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(key));
    }
    *slot = Some(value);
    Ok(())
}

/// A required field's value for a generated `Deserialize`: missing is an error.
pub fn required<T, E: Error>(slot: Option<T>, key: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(key))
}

/// The loop of a generated `Deserialize` visitor that keeps unknown
/// properties (the structs' and the `keep_unknown` patches'): each key is
/// looked up with `index` (a known property's position), a known one is read
/// by `read`, and any other is kept, with its value, in the returned [`Extra`].
pub fn fields<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
    index: impl Fn(&str) -> Option<usize> + Copy,
    mut read: impl FnMut(usize, &mut A) -> Result<(), A::Error>,
) -> Result<Extra, A::Error> {
    let mut rest = Extra::new();
    while let Some(key) = map.next_key_seed(KeySeed(index))? {
        match key {
            Ok(i) => read(i, map)?,
            Err(unknown) => {
                rest.insert(unknown, map.next_value()?);
            }
        }
    }
    Ok(rest)
}

/// A property name: a known property's position, or the name of another.
struct KeySeed<F>(F);

impl<'de, F: Fn(&str) -> Option<usize>> serde::de::DeserializeSeed<'de> for KeySeed<F> {
    type Value = Result<usize, String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<F: Fn(&str) -> Option<usize>> serde::de::Visitor<'_> for KeySeed<F> {
    type Value = Result<usize, String>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a property name")
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((self.0)(v).ok_or_else(|| v.to_owned()))
    }
}

/// The strings a string definition's `not` excludes.
pub trait Excludes: Pointer {
    /// The excluded values.
    const EXCLUDED: &'static [&'static str];
}

/// [`id_str`], refusing the values `X` excludes.
pub fn id_str_excluding<'de, D: Deserializer<'de>, X: Excludes>(d: D) -> Result<crate::runtime::SmolStr, D::Error> {
    let v = id_str(d)?;
    if X::EXCLUDED.contains(&v.as_str()) {
        return Err(D::Error::custom(format_args!("{v:?} is excluded by `not` at {}", X::POINTER)));
    }
    Ok(v)
}

/// A tagged union decoded without buffering the common case: when the
/// discriminator is a known string, the payload is decoded from the rest of the
/// object as it streams by (only entries before the discriminator are
/// buffered). Unknown, missing, `null` or malformed discriminators fall back to
/// [`Tagged::from_object`] with the whole object buffered.
pub trait Tagged: Sized {
    /// The union's name, for messages.
    const NAME: &'static str;
    /// The discriminator property.
    const KEY: &'static str;
    /// `true` for a discriminator value with a variant of its own.
    fn is_known(tag: &str) -> bool;
    /// Decodes the known variant `tag` from the rest of the object.
    fn known<'de, D: Deserializer<'de>>(tag: &str, payload: D) -> Result<Self, D::Error>;
    /// Decodes from the whole buffered object: an absent, unknown or odd
    /// discriminator (a known one is always decoded by [`Tagged::known`]).
    fn from_object<E: Error>(object: JsonObject) -> Result<Self, E>;
}

/// `Deserialize` for a [`Tagged`] union.
pub fn tagged<'de, D: Deserializer<'de>, T: Tagged>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_map(TaggedVisitor::<T>(std::marker::PhantomData))
}

/// Wraps a payload error with the variant it belongs to.
pub fn in_variant<E: Error>(union: &str, tag: &str, e: impl std::fmt::Display) -> E {
    E::custom(format_args!("invalid `{tag}` variant of {union}: {e}"))
}

struct TaggedVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Tagged> serde::de::Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {} object", T::NAME)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut before: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.as_str() != T::KEY {
                let value: Value = map.next_value()?;
                before.push((key.into_owned(), value));
                continue;
            }
            let tag = match map.next_value::<TagValue<'de>>()? {
                TagValue::Str(t) if T::is_known(t.as_str()) => {
                    let rest = Chained { before: before.into_iter(), value: None, live: map };
                    return T::known(t.as_str(), MapDeserializer(rest));
                }
                TagValue::Str(t) => Value::String(t.into_owned()),
                TagValue::Other(v) => v,
            };
            let mut object: JsonObject = before.into_iter().collect();
            object.insert(T::KEY.to_owned(), tag);
            while let Some((k, v)) = map.next_entry::<String, Value>()? {
                object.insert(k, v);
            }
            return T::from_object(object);
        }
        T::from_object(before.into_iter().collect())
    }
}

/// A discriminator value: a string (borrowed when possible) or anything else.
enum TagValue<'de> {
    Str(Key<'de>),
    Other(Value),
}

impl<'de> Deserialize<'de> for TagValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = TagValue<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a discriminator")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Str(Key::Borrowed(v)))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Str(Key::Owned(v.to_owned())))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Str(Key::Owned(v)))
            }
            fn visit_bool<E: Error>(self, v: bool) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::Bool(v)))
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::from(v)))
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::from(v)))
            }
            fn visit_f64<E: Error>(self, v: f64) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::from(v)))
            }
            fn visit_unit<E: Error>(self) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::Null))
            }
            fn visit_none<E: Error>(self) -> Result<TagValue<'de>, E> {
                Ok(TagValue::Other(Value::Null))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<TagValue<'de>, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<TagValue<'de>, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(TagValue::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<TagValue<'de>, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(TagValue::Other)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// An object key, borrowed from the input when possible.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(s) => s,
            Key::Owned(s) => s,
        }
    }
    fn into_owned(self) -> String {
        match self {
            Key::Borrowed(s) => s.to_owned(),
            Key::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a property name")
            }
            fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key::Borrowed(v))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v.to_owned()))
            }
            fn visit_string<E: Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key::Owned(v))
            }
        }
        deserializer.deserialize_str(V)
    }
}

/// The entries buffered before the discriminator, then the rest of the live map.
struct Chained<A> {
    before: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
    live: A,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for Chained<A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if let Some((k, v)) = self.before.next() {
            self.value = Some(v);
            return seed.deserialize(serde::de::value::StringDeserializer::<A::Error>::new(k)).map(Some);
        }
        self.live.next_key_seed(seed)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(v).map_err(A::Error::custom),
            None => self.live.next_value_seed(seed),
        }
    }
}

/// A deserializer over the rest of an object (the payload of a known variant).
struct MapDeserializer<A>(A);

impl<'de, A: serde::de::MapAccess<'de>> Deserializer<'de> for MapDeserializer<A> {
    type Error = A::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

// ---- lenient scalars without buffering ----------------------------------------

/// A value decodable from one JSON scalar. A lenient scalar field reads the
/// value as it streams by: a value of another JSON type is skipped and the
/// field takes its default, with nothing buffered.
pub trait Scalar: Sized {
    /// From a JSON string.
    fn from_str(_: &str) -> Option<Self> {
        None
    }
    /// From an owned JSON string.
    fn from_string(v: String) -> Option<Self> {
        Self::from_str(&v)
    }
    /// From `true`/`false`.
    fn from_bool(_: bool) -> Option<Self> {
        None
    }
    /// From a negative integer.
    fn from_i64(_: i64) -> Option<Self> {
        None
    }
    /// From a non-negative integer.
    fn from_u64(_: u64) -> Option<Self> {
        None
    }
    /// From a number with a fraction or exponent.
    fn from_f64(_: f64) -> Option<Self> {
        None
    }
}

impl Scalar for String {
    fn from_str(v: &str) -> Option<Self> {
        Some(v.to_owned())
    }
    fn from_string(v: String) -> Option<Self> {
        Some(v)
    }
}

impl Scalar for bool {
    fn from_bool(v: bool) -> Option<Self> {
        Some(v)
    }
}

impl Scalar for Number {
    fn from_i64(v: i64) -> Option<Self> {
        Some(v.into())
    }
    fn from_u64(v: u64) -> Option<Self> {
        Some(v.into())
    }
    fn from_f64(v: f64) -> Option<Self> {
        Some(v.into())
    }
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            fn from_u64(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
        }
    )*};
}
int_scalar!(i32, i64, u16, u32, u64);

/// `x-deserialize-default-on-error` for a scalar field, streamed.
pub fn lenient_scalar<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: Scalar,
{
    deserializer.deserialize_any(ScalarVisitor::<F>(std::marker::PhantomData))
}

struct ScalarVisitor<F>(std::marker::PhantomData<F>);

impl<F: Shape> ScalarVisitor<F>
where
    F::Inner: Scalar,
{
    fn take(v: Option<F::Inner>) -> F {
        v.map(F::wrap).unwrap_or_default()
    }
}

impl<'de, F: Shape> serde::de::Visitor<'de> for ScalarVisitor<F>
where
    F::Inner: Scalar,
{
    type Value = F;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_str(v)))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_string(v)))
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_bool(v)))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_i64(v)))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_u64(v)))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<F, E> {
        Ok(Self::take(F::Inner::from_f64(v)))
    }
    fn visit_unit<E: Error>(self) -> Result<F, E> {
        Ok(F::null().unwrap_or_default())
    }
    fn visit_none<E: Error>(self) -> Result<F, E> {
        Ok(F::null().unwrap_or_default())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<F, D::Error> {
        d.deserialize_any(self)
    }
    // A wrong shape, read as a `Value` would read it (not skipped): a lone
    // surrogate escape or a number out of range inside it still fails the
    // message, as the JSON rules ask. Only this rare path pays for it.
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<F, A::Error> {
        while seq.next_element::<Value>()?.is_some() {}
        Ok(F::default())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<F, A::Error> {
        while map.next_entry::<String, Value>()?.is_some() {}
        Ok(F::default())
    }
}

/// A string newtype's [`SmolStr`](crate::runtime::SmolStr): up to 23 bytes
/// stored inline (no allocation, the usual identifier), longer ones in one
/// shared allocation.
pub fn id_str<'de, D: Deserializer<'de>>(deserializer: D) -> Result<crate::runtime::SmolStr, D::Error> {
    struct V;
    impl serde::de::Visitor<'_> for V {
        type Value = crate::runtime::SmolStr;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(crate::runtime::SmolStr::new(v))
        }
    }
    deserializer.deserialize_str(V)
}

// ---- the buffered reference ----------------------------------------------------

/// A deserializer over a buffered [`Value`] that, unlike serde_json's, does
/// not hand out JSON text for a raw value: every lenient field then takes the
/// buffered path ([`Raw::Value`]). The tests decode each message through it
/// as the slow reference of the fast paths; it is not meant for other use.
#[doc(hidden)]
pub struct Buffered(pub Value);

impl<'de> serde::de::IntoDeserializer<'de, serde_json::Error> for Buffered {
    type Deserializer = Buffered;
    fn into_deserializer(self) -> Buffered {
        self
    }
}

impl<'de> Deserializer<'de> for Buffered {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        use serde::de::value::{MapDeserializer, SeqDeserializer};
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(a) => {
                let mut seq = SeqDeserializer::new(a.into_iter().map(Buffered));
                let v = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(v)
            }
            Value::Object(m) => {
                let mut map = MapDeserializer::new(m.into_iter().map(|(k, v)| (k, Buffered(v))));
                let v = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(v)
            }
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        use serde::de::value::{MapAccessDeserializer, MapDeserializer, StringDeserializer};
        match self.0 {
            Value::String(s) => visitor.visit_enum(StringDeserializer::<serde_json::Error>::new(s)),
            Value::Object(m) if m.len() == 1 => {
                let map = MapDeserializer::new(m.into_iter().map(|(k, v)| (k, Buffered(v))));
                visitor.visit_enum(MapAccessDeserializer::new(map))
            }
            other => Err(serde_json::Error::invalid_type(unexpected(&other), &"an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

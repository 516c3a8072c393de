//! Deserialization helpers called from generated code.
//!
//! The ACP `x-deserialize-*` keywords need a field's value buffered before it
//! is decoded (a malformed value must be replaced by the default, not abort
//! the message), so these helpers decode through [`serde_json::Value`]. Broken
//! JSON syntax still fails, because buffering the value itself fails.

use serde::de::{DeserializeOwned, Error, Unexpected};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::{JsonObject, Nullable};

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

fn decode_shape<F: Shape>(value: Value) -> Result<F, serde_json::Error>
where
    F::Inner: DeserializeOwned,
{
    if value.is_null() {
        return F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a value"));
    }
    F::Inner::deserialize(value).map(F::wrap)
}

fn keep_valid<T: DeserializeOwned>(items: Vec<Value>) -> Vec<T> {
    items.into_iter().filter_map(|item| T::deserialize(item).ok()).collect()
}

/// `x-deserialize-default-on-error`: a value of the wrong shape becomes the default.
pub fn lenient<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(decode_shape(value).unwrap_or_default())
}

/// `x-deserialize-default-on-error` with `x-deserialize-skip-invalid-items`.
pub fn lenient_items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => F::null().unwrap_or_default(),
        Value::Array(items) => F::wrap(keep_valid(items)),
        _ => F::default(),
    })
}

/// `x-deserialize-skip-invalid-items` alone: a list item that fails to decode
/// is dropped; a value that is not a list is still an error.
pub fn items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    match Value::deserialize(deserializer)? {
        Value::Null => F::null().ok_or_else(|| D::Error::invalid_type(Unexpected::Unit, &"an array")),
        Value::Array(items) => Ok(F::wrap(keep_valid(items))),
        other => Err(D::Error::invalid_type(unexpected(&other), &"an array")),
    }
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

fn out_of_range<T: std::fmt::Display>(value: T, min: &str, max: &str) -> serde_json::Error {
    serde_json::Error::custom(format_args!("{value} is out of range: expected {min} to {max}"))
}

fn check_int<T: Copy + Into<i128> + std::fmt::Display>(v: T, min: i128, max: i128) -> Result<T, serde_json::Error> {
    let wide: i128 = v.into();
    if wide < min || wide > max {
        return Err(out_of_range(v, &min.to_string(), &max.to_string()));
    }
    Ok(v)
}

fn check_float(v: f64, min: u64, max: u64) -> Result<f64, serde_json::Error> {
    let (min, max) = (f64::from_bits(min), f64::from_bits(max));
    if !(v >= min && v <= max) {
        return Err(out_of_range(v, &min.to_string(), &max.to_string()));
    }
    Ok(v)
}

/// A required integer with `minimum`/`maximum` beyond its format's range.
pub fn int_in_range<'de, D, T, const MIN: i128, const MAX: i128>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy + Into<i128> + std::fmt::Display,
{
    check_int(T::deserialize(deserializer)?, MIN, MAX).map_err(D::Error::custom)
}

/// An optional integer with bounds; `LENIENT` applies default-on-error.
pub fn opt_int_in_range<'de, D, F, const MIN: i128, const MAX: i128, const LENIENT: bool>(
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
        F::Inner::deserialize(value).and_then(|v| check_int(v, MIN, MAX)).map(F::wrap)
    };
    finish::<D, F>(decoded, LENIENT)
}

/// A required number with bounds, given as `f64::to_bits`.
pub fn float_in_range<'de, D, const MIN: u64, const MAX: u64>(deserializer: D) -> Result<f64, D::Error>
where
    D: Deserializer<'de>,
{
    check_float(f64::deserialize(deserializer)?, MIN, MAX).map_err(D::Error::custom)
}

/// An optional number with bounds; `LENIENT` applies default-on-error.
pub fn opt_float_in_range<'de, D, F, const MIN: u64, const MAX: u64, const LENIENT: bool>(
    deserializer: D,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = f64>,
{
    let value = Value::deserialize(deserializer)?;
    let decoded = if value.is_null() {
        F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a number"))
    } else {
        f64::deserialize(value).and_then(|v| check_float(v, MIN, MAX)).map(F::wrap)
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

/// Buffers a JSON object for a union decoder.
pub fn object<'de, D: Deserializer<'de>>(deserializer: D, what: &'static str) -> Result<JsonObject, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::Object(map) => Ok(map),
        other => Err(D::Error::invalid_type(unexpected(&other), &what)),
    }
}

/// Buffers any JSON value for an untagged union decoder.
pub fn value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Value::deserialize(deserializer)
}

/// Decodes the payload of a known union variant.
pub fn payload<T: DeserializeOwned, E: Error>(object: JsonObject, union: &str, tag: &str) -> Result<T, E> {
    T::deserialize(Value::Object(object))
        .map_err(|e| E::custom(format_args!("invalid `{tag}` variant of {union}: {e}")))
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

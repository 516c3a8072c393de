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

mod buffered;
mod checked;
mod json;
mod lenient;
mod object;
mod scalar;
mod union;

pub use self::buffered::*;
pub use self::checked::*;
pub use self::json::*;
pub use self::lenient::*;
pub use self::object::*;
pub use self::scalar::*;
pub use self::union::*;
/// `serde_json`'s types, for the code the derives write in crates that may not name `serde_json`.
pub use serde_json::{Error as JsonError, Value as JsonValue};

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
    json(deserializer).map(Some)
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

/// Reads the value of the key just read into `slot`, with the field type's
/// own `Deserialize` (a generated visitor's read of a field without a rule);
/// a repeated key is an error ([`once`]).
#[inline]
pub fn put<'de, A: serde::de::MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    key: &'static str,
) -> Result<(), A::Error> {
    let value = map.next_value()?;
    once(slot, key, value)
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
                // A repeated name is refused, as a repeated known one is.
                if rest.get(&unknown).is_some() {
                    return Err(duplicate(&unknown));
                }
                rest.insert(unknown, map.next_value_seed(Json)?);
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
        return Err(D::Error::custom(crate::runtime::messages::excluded_by_not(&format_args!("{v:?}"), &X::POINTER)));
    }
    Ok(v)
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
            Ok(smol(v))
        }
    }
    deserializer.deserialize_str(V)
}

/// A [`SmolStr`](crate::runtime::SmolStr) of `v`: `new_inline` up to 23
/// bytes (compiled into this crate; `new` is a call into smol_str that also
/// copies through `memcpy`, about 5 ns more per identifier).
#[inline]
pub fn smol(v: &str) -> crate::runtime::SmolStr {
    if v.len() <= crate::runtime::SmolStr::INLINE_CAP {
        crate::runtime::SmolStr::new_inline(v)
    } else {
        crate::runtime::SmolStr::new(v)
    }
}

use std::fmt;

use serde::ser::{Serialize, Serializer};

use super::json_object::JsonObject;

/// A string enum value this version of the bindings does not know.
///
/// It can only be obtained by decoding or parsing, never for a spelling that
/// is a known variant: those always decode to the known variant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnknownString(Box<str>);

impl UnknownString {
    #[doc(hidden)]
    pub fn __new(value: impl Into<Box<str>>) -> Self {
        UnknownString(value.into())
    }

    /// The value exactly as it was on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `true` for implementation-specific extension values (starting with `_`).
    pub fn is_extension(&self) -> bool {
        self.0.starts_with('_')
    }

    /// `true` for values reserved for future ACP versions (not starting with `_`).
    pub fn is_future(&self) -> bool {
        !self.is_extension()
    }
}

impl fmt::Display for UnknownString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for UnknownString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// An integer enum value this version of the bindings does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UnknownInteger(i64);

impl UnknownInteger {
    #[doc(hidden)]
    pub fn __new(value: i64) -> Self {
        UnknownInteger(value)
    }

    /// The value exactly as it was on the wire.
    pub fn get(&self) -> i64 {
        self.0
    }
}

impl fmt::Display for UnknownInteger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Serialize for UnknownInteger {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.0)
    }
}

/// A variant of an open tagged union that this version of the bindings does not
/// know: the whole JSON object, tag included, kept as it was received so that
/// it can be stored, replayed or forwarded unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownVariant {
    object: Box<JsonObject>,
}

impl UnknownVariant {
    #[doc(hidden)]
    pub fn __new(object: JsonObject) -> Self {
        UnknownVariant { object: Box::new(object) }
    }

    /// The whole object, including the discriminator.
    pub fn object(&self) -> &JsonObject {
        &self.object
    }

    /// Takes the whole object, including the discriminator.
    pub fn into_object(self) -> JsonObject {
        *self.object
    }

    /// One property of the object.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.object.get(key)
    }

    #[doc(hidden)]
    pub fn __tag(&self, key: &str) -> &str {
        self.object.get(key).and_then(|v| v.as_str()).unwrap_or("")
    }
}

impl Serialize for UnknownVariant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.object.serialize(serializer)
    }
}

/// The error of `FromStr` on a closed enum: the value is not one it knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseEnumError {
    enum_name: &'static str,
    value: String,
}

impl ParseEnumError {
    #[doc(hidden)]
    pub fn new(enum_name: &'static str, value: &str) -> Self {
        ParseEnumError { enum_name, value: value.to_owned() }
    }

    /// The value that was not recognised.
    pub fn value(&self) -> &str {
        &self.value
    }
}

impl fmt::Display for ParseEnumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} value `{}`", self.enum_name, self.value)
    }
}

impl std::error::Error for ParseEnumError {}

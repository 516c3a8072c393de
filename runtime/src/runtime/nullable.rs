use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// An optional field that may also be explicitly `null` on the wire.
///
/// ACP distinguishes three states for many optional fields: the field was
/// omitted, it was `null`, or it carried a value. Decoding and re-encoding a
/// message keeps the state it had: an omitted field stays omitted and a `null`
/// stays `null`. For most fields omitted and `null` mean the same thing; use
/// [`Nullable::value`] or [`Nullable::into_option`] to read them as an `Option`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Nullable<T> {
    /// The field was not present.
    #[default]
    Absent,
    /// The field was present and `null`.
    Null,
    /// The field carried a value.
    Value(T),
}

impl<T> Nullable<T> {
    /// `true` when the field was omitted (it is then skipped when encoding).
    pub const fn is_absent(&self) -> bool {
        matches!(self, Nullable::Absent)
    }

    /// `true` when the field was an explicit `null`.
    pub const fn is_null(&self) -> bool {
        matches!(self, Nullable::Null)
    }

    /// `true` when the field carried a value.
    pub const fn is_value(&self) -> bool {
        matches!(self, Nullable::Value(_))
    }

    /// The value, treating omitted and `null` alike.
    pub const fn value(&self) -> Option<&T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// A mutable reference to the value, if there is one.
    pub fn value_mut(&mut self) -> Option<&mut T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value as an `Option`, treating omitted and `null` alike.
    pub fn into_option(self) -> Option<T> {
        match self {
            Nullable::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Borrows the value.
    pub const fn as_ref(&self) -> Nullable<&T> {
        match self {
            Nullable::Absent => Nullable::Absent,
            Nullable::Null => Nullable::Null,
            Nullable::Value(v) => Nullable::Value(v),
        }
    }

    /// Maps the value, keeping `Absent` and `Null`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Nullable<U> {
        match self {
            Nullable::Absent => Nullable::Absent,
            Nullable::Null => Nullable::Null,
            Nullable::Value(v) => Nullable::Value(f(v)),
        }
    }
}

impl<T> From<T> for Nullable<T> {
    fn from(value: T) -> Self {
        Nullable::Value(value)
    }
}

impl<T> From<Option<T>> for Nullable<T> {
    /// `None` becomes [`Nullable::Absent`]: builders never invent a `null`.
    fn from(value: Option<T>) -> Self {
        match value {
            Some(v) => Nullable::Value(v),
            None => Nullable::Absent,
        }
    }
}

impl<T: Serialize> Serialize for Nullable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // `Absent` fields carry `skip_serializing_if`; anywhere else the
            // closest encoding of "no value" is `null`.
            Nullable::Absent | Nullable::Null => serializer.serialize_none(),
            Nullable::Value(v) => serializer.serialize_some(v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Nullable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Only reached when the field is present: omission is `Default`.
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Nullable::Value(v),
            None => Nullable::Null,
        })
    }
}

/// A value that can only be JSON `null` (a schema of `{"type": "null"}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ExplicitNull;

impl Serialize for ExplicitNull {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl<'de> Deserialize<'de> for ExplicitNull {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ExplicitNull;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("null")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<ExplicitNull, E> {
                Ok(ExplicitNull)
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<ExplicitNull, E> {
                Ok(ExplicitNull)
            }
        }
        deserializer.deserialize_option(V)
    }
}

//! [`Number`]: a JSON `number` as it was written.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// The value of a schema `number` property, kept as it was written: an
/// integer stays an integer (`50` is re-encoded `50`, not `50.0`), a decimal
/// is an `f64` (re-encoded by serde_json's shortest form, as `f64` would be).
///
/// Build one from any Rust integer or float (`Number::from(50)`,
/// `Number::from(0.5)`, or a builder setter taking `impl Into<Number>`); read
/// it with [`Number::as_f64`]. Equality is by value: `50` equals `50.0`.
#[derive(Clone, Copy)]
pub struct Number(Repr);

#[derive(Clone, Copy)]
enum Repr {
    PosInt(u64),
    NegInt(i64),
    Float(f64),
}

impl Number {
    /// The value as an `f64` (large integers round to the nearest `f64`).
    pub fn as_f64(self) -> f64 {
        match self.0 {
            Repr::PosInt(u) => u as f64,
            Repr::NegInt(i) => i as f64,
            Repr::Float(f) => f,
        }
    }

    /// The value as an `i64`, if it was written as an integer that fits.
    pub fn as_i64(self) -> Option<i64> {
        match self.0 {
            Repr::PosInt(u) => i64::try_from(u).ok(),
            Repr::NegInt(i) => Some(i),
            Repr::Float(_) => None,
        }
    }

    /// The value as a `u64`, if it was written as a non-negative integer.
    pub fn as_u64(self) -> Option<u64> {
        match self.0 {
            Repr::PosInt(u) => Some(u),
            _ => None,
        }
    }

    /// Whether it was written (or built) as an integer.
    pub fn is_integer(self) -> bool {
        !matches!(self.0, Repr::Float(_))
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (self.0, other.0) {
            (Repr::PosInt(a), Repr::PosInt(b)) => a == b,
            (Repr::NegInt(a), Repr::NegInt(b)) => a == b,
            (Repr::PosInt(_), Repr::NegInt(_)) | (Repr::NegInt(_), Repr::PosInt(_)) => false,
            _ => self.as_f64() == other.as_f64(),
        }
    }
}

impl PartialEq<f64> for Number {
    fn eq(&self, other: &f64) -> bool {
        self.as_f64() == *other
    }
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Repr::PosInt(u) => write!(f, "{u}"),
            Repr::NegInt(i) => write!(f, "{i}"),
            Repr::Float(x) => write!(f, "{x:?}"),
        }
    }
}

macro_rules! from_unsigned {
    ($($t:ty)*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number {
                Number(Repr::PosInt(v.into()))
            }
        }
    )*};
}
macro_rules! from_signed {
    ($($t:ty)*) => {$(
        impl From<$t> for Number {
            fn from(v: $t) -> Number {
                let v = i64::from(v);
                Number(if v < 0 { Repr::NegInt(v) } else { Repr::PosInt(v as u64) })
            }
        }
    )*};
}
from_unsigned!(u8 u16 u32 u64);
from_signed!(i8 i16 i32 i64);

impl From<f64> for Number {
    fn from(v: f64) -> Number {
        Number(Repr::Float(v))
    }
}

impl From<f32> for Number {
    fn from(v: f32) -> Number {
        Number(Repr::Float(v.into()))
    }
}

impl From<Number> for f64 {
    fn from(n: Number) -> f64 {
        n.as_f64()
    }
}

impl Serialize for Number {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Repr::PosInt(u) => serializer.serialize_u64(u),
            Repr::NegInt(i) => serializer.serialize_i64(i),
            Repr::Float(f) => serializer.serialize_f64(f),
        }
    }
}

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Number, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number::from(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number::from(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number::from(v))
            }
        }
        deserializer.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::Number;

    #[test]
    fn integers_stay_integers_and_decimals_stay_decimals() {
        for text in ["50", "-3", "0", "18446744073709551615", "0.5", "50.0", "-2.25", "1e300"] {
            let n: Number = serde_json::from_str(text).unwrap();
            let again = serde_json::to_string(&n).unwrap();
            let want = serde_json::to_string(&serde_json::from_str::<serde_json::Value>(text).unwrap()).unwrap();
            assert_eq!(again, want, "{text}");
        }
        assert_eq!(Number::from(50), Number::from(50.0));
        assert!(Number::from(50).is_integer() && !Number::from(50.0).is_integer());
        assert!(serde_json::from_str::<Number>("\"5\"").is_err());
    }
}

//! Lenient scalars read in place: a value of another JSON type is skipped
//! (read as a `Value` would read it) and the field takes its default.

use super::*;

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
        while seq.next_element_seed(Json)?.is_some() {}
        Ok(F::default())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<F, A::Error> {
        json_members(map)?;
        Ok(F::default())
    }
}

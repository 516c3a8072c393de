//! Field readers as types, for the generated visitors.
//!
//! A generated `Deserialize` reads a field that has a decoding rule with
//! `map.next_value_seed(Field::<Reader, FieldType>::new())`. The seed's type
//! depends only on the rule and the field's type, so the hundreds of `_meta`
//! and lenient fields of the schemas share a few instantiations instead of one
//! wrapper type (and one copy of the rule's code) per field: less code for the
//! compiler, the same decoding as the functions in [`super::de`].

use std::marker::PhantomData;

use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer};
use serde_json::Value;

use super::de::{self, Scalar, Shape};
use super::{JsonObject, Nullable};

/// Reads a value of type `T` with one of the rules of [`super::de`].
pub trait Reader<T> {
    /// Reads the value.
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;
}

/// The seed that reads a `T` with the reader `M`.
pub struct Field<M, T>(PhantomData<fn() -> (M, T)>);

impl<M, T> Field<M, T> {
    /// The seed.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Field(PhantomData)
    }
}

impl<'de, M: Reader<T>, T> DeserializeSeed<'de> for Field<M, T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        M::read(deserializer)
    }
}

/// [`de::lenient`]: a value of the wrong shape is the field's default.
pub struct Lenient;

impl<F: Shape> Reader<F> for Lenient
where
    F::Inner: DeserializeOwned,
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::lenient(d)
    }
}

/// [`de::lenient_meta`]: an object field (`_meta`), streamed.
pub struct LenientMeta;

impl<F: Shape> Reader<F> for LenientMeta
where
    F::Inner: From<JsonObject>,
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::lenient_meta(d)
    }
}

/// [`de::lenient_scalar`]: a scalar read in place.
pub struct LenientScalar;

impl<F: Shape> Reader<F> for LenientScalar
where
    F::Inner: Scalar,
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::lenient_scalar(d)
    }
}

/// [`de::lenient_items`]: a list whose bad items are dropped, the default
/// for a value that is not a list.
pub struct LenientItems;

/// [`de::items`]: a list whose bad items are dropped; a value that is not a
/// list is an error.
pub struct Items;

macro_rules! list_readers {
    ($($shape:ident),*) => {$(
        impl<T: DeserializeOwned> Reader<$shape<Vec<T>>> for LenientItems {
            fn read<'de, D: Deserializer<'de>>(d: D) -> Result<$shape<Vec<T>>, D::Error> {
                de::lenient_items(d)
            }
        }
        impl<T: DeserializeOwned> Reader<$shape<Vec<T>>> for Items {
            fn read<'de, D: Deserializer<'de>>(d: D) -> Result<$shape<Vec<T>>, D::Error> {
                de::items(d)
            }
        }
    )*};
}

list_readers!(Option, Nullable);

impl<T: DeserializeOwned> Reader<Vec<T>> for LenientItems {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        de::lenient_items(d)
    }
}

impl<T: DeserializeOwned> Reader<Vec<T>> for Items {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
        de::items(d)
    }
}

/// [`de::any`]: an optional any-JSON field keeps a present `null`.
pub struct Any;

impl Reader<Option<Value>> for Any {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
        de::any(d)
    }
}

/// [`de::present`]: a required field that may be `null`.
pub struct Present;

impl<T: DeserializeOwned> Reader<Option<T>> for Present {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<T>, D::Error> {
        de::present(d)
    }
}

/// [`de::null_as_default`]: `null` means the default.
pub struct NullAsDefault;

impl<T: DeserializeOwned + Default> Reader<T> for NullAsDefault {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        de::null_as_default(d)
    }
}

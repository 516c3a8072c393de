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

/// Declares reader types: `Name [generics] FieldType => function;` makes a
/// unit struct `Name` implementing [`Reader<FieldType>`] with `function`.
/// Also used by `patch::de` for the derive's helpers.
/// `=> function, direct` also names the direct decoders' reading of the rule
/// (a function of the reader); without it they run `function` through their
/// reader.
macro_rules! readers {
    ($($(#[$doc:meta])* $marker:ident [$($g:tt)*] $t:ty => $f:expr $(, $direct:expr)?;)*) => {$(
        $(#[$doc])*
        pub struct $marker;
        impl<$($g)*> $crate::runtime::read::Reader<$t> for $marker {
            fn read<'de, D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<$t, D::Error> {
                $f(d)
            }
        }
        impl<'de, $($g)*> $crate::runtime::read::Rule<'de, $t> for $marker {
            $(
                #[inline]
                fn read(r: &mut $crate::json::fast::Reader<'de>) -> ::core::result::Result<$t, $crate::json::fast::Bail> {
                    $direct(r)
                }
            )?
        }
    )*};
}
pub(crate) use readers;

readers! {
    /// [`de::lenient`]: a value of the wrong shape is the field's default.
    Lenient [F: Shape<Inner: DeserializeOwned>] F => de::lenient, crate::json::fast::lenient;
    /// [`de::lenient_meta`]: an object field (`_meta`), streamed.
    LenientMeta [F: Shape<Inner: From<JsonObject>>] F => de::lenient_meta;
    /// [`de::lenient_scalar`]: a scalar read in place.
    LenientScalar [F: Shape<Inner: Scalar>] F => de::lenient_scalar, crate::json::fast::lenient_scalar;
    /// [`de::any`]: an optional any-JSON field keeps a present `null`.
    Any [] Option<Value> => de::any;
    /// [`de::FreeJson`]: free-form JSON (a `Value`, a JSON object, a map by
    /// name) under the rule for repeated member names. `#[derive(AcpDeserialize)]`
    /// gives it to a field of such a type that names no rule.
    Json [T: de::FreeJson] T => <T as de::FreeJson>::read;
    /// [`de::present`]: a required field that may be `null`.
    Present [T: DeserializeOwned] Option<T> => de::present;
    /// [`de::null_as_default`]: `null` means the default.
    NullAsDefault [T: DeserializeOwned + Default] T => de::null_as_default;
}

/// [`de::lenient_items`]: a list whose bad items are dropped, the default
/// for a value that is not a list.
pub struct LenientItems;

/// [`de::items`]: a list whose bad items are dropped; a value that is not a
/// list is an error.
pub struct Items;

macro_rules! list_readers {
    ($($list:ty),*) => {$(
        impl<T: DeserializeOwned> Reader<$list> for LenientItems {
            fn read<'de, D: Deserializer<'de>>(d: D) -> Result<$list, D::Error> {
                de::lenient_items(d)
            }
        }
        impl<T: DeserializeOwned> Reader<$list> for Items {
            fn read<'de, D: Deserializer<'de>>(d: D) -> Result<$list, D::Error> {
                de::items(d)
            }
        }
        crate::runtime::read::list_rules!(LenientItems $list);
        crate::runtime::read::list_rules!(Items $list);
    )*};
}

/// The direct decoders' reading of a list rule (`M`, a reader of the list
/// shape `$list` of `T`): an array is read item by item (a bad item bails,
/// and the rule's visitor drops it); anything else runs the rule.
macro_rules! list_rules {
    ($m:ident $list:ty) => {
        impl<'de, T: for<'a> $crate::json::fast::FromJson<'a>> $crate::runtime::read::Rule<'de, $list> for $m {
            #[inline]
            fn read(
                r: &mut $crate::json::fast::Reader<'de>,
            ) -> ::core::result::Result<$list, $crate::json::fast::Bail> {
                if r.peek_byte()? == b'[' {
                    return <::std::vec::Vec<T> as $crate::json::fast::FromJson<'de>>::read(r)
                        .map(<$list as $crate::runtime::de::Shape>::wrap);
                }
                <Self as $crate::runtime::read::Reader<$list>>::read(r).map_err(|_| $crate::json::fast::Bail)
            }
        }
    };
}
pub(crate) use list_rules;

list_readers!(Vec<T>, Option<Vec<T>>, Nullable<Vec<T>>);

/// The field type's own `Deserialize` (and, in a direct decoder, its own
/// `FromJson`): the inner reader of a rule that wraps another, such as
/// [`ItemCount`], for a list with no rule of its own.
pub struct Plain;

impl<T: DeserializeOwned> Reader<T> for Plain {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::deserialize(d)
    }
}

impl<'de, T: for<'a> crate::json::fast::FromJson<'a>> Rule<'de, T> for Plain {
    #[inline]
    fn read(r: &mut crate::json::fast::Reader<'de>) -> Result<T, crate::json::fast::Bail> {
        <T as crate::json::fast::FromJson<'de>>::read(r)
    }
}

/// Reads a `T` with the reader `M`: the `deserialize_with` function of a
/// field with a rule in a struct whose `Deserialize` serde's derive writes
/// (`deserialize_with = "runtime::read::with::<Lenient, _, _>"`).
pub fn with<'de, M: Reader<T>, T, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    M::read(deserializer)
}

/// [`de::checked_str`]: a required string with `minLength` / `maxLength` /
/// `pattern` (`R`, the property's hidden rule type).
pub struct CheckedStr<R>(PhantomData<fn() -> R>);

impl<R: de::StrRule> Reader<String> for CheckedStr<R> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        de::checked_str::<D, R>(d)
    }
}
impl<'de, R: de::StrRule> Rule<'de, String> for CheckedStr<R> {}

/// [`de::opt_checked_str`]: an optional or nullable string with
/// `minLength` / `maxLength` / `pattern`; `LENIENT` applies default-on-error.
pub struct OptCheckedStr<R, const LENIENT: bool>(PhantomData<fn() -> R>);

impl<F: Shape<Inner = String>, R: de::StrRule, const LENIENT: bool> Reader<F> for OptCheckedStr<R, LENIENT> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::opt_checked_str::<D, F, R, LENIENT>(d)
    }
}
impl<'de, F: Shape<Inner = String>, R: de::StrRule, const LENIENT: bool> Rule<'de, F> for OptCheckedStr<R, LENIENT> {}

/// [`de::int_in_range`]: a required integer with `minimum` / `maximum`
/// (`P` names where they are, for the error).
pub struct IntInRange<const MIN: i128, const MAX: i128, P>(PhantomData<fn() -> P>);

impl<T, const MIN: i128, const MAX: i128, P: de::Pointer> Reader<T> for IntInRange<MIN, MAX, P>
where
    T: DeserializeOwned + Copy + Into<i128> + std::fmt::Display,
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        de::int_in_range::<D, T, MIN, MAX, P>(d)
    }
}
impl<'de, T, const MIN: i128, const MAX: i128, P: de::Pointer> Rule<'de, T> for IntInRange<MIN, MAX, P> where
    T: DeserializeOwned + Copy + Into<i128> + std::fmt::Display
{
}

/// [`de::opt_int_in_range`]: an optional or nullable integer with bounds;
/// `LENIENT` applies default-on-error.
pub struct OptIntInRange<const MIN: i128, const MAX: i128, const LENIENT: bool, P>(PhantomData<fn() -> P>);

impl<F, const MIN: i128, const MAX: i128, const LENIENT: bool, P: de::Pointer> Reader<F>
    for OptIntInRange<MIN, MAX, LENIENT, P>
where
    F: Shape<Inner: DeserializeOwned + Copy + Into<i128> + std::fmt::Display>,
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::opt_int_in_range::<D, F, MIN, MAX, LENIENT, P>(d)
    }
}
impl<'de, F, const MIN: i128, const MAX: i128, const LENIENT: bool, P: de::Pointer> Rule<'de, F>
    for OptIntInRange<MIN, MAX, LENIENT, P>
where
    F: Shape<Inner: DeserializeOwned + Copy + Into<i128> + std::fmt::Display>,
{
}

/// [`de::float_in_range`]: a required number with bounds, given as
/// `f64::to_bits`.
pub struct FloatInRange<const MIN: u64, const MAX: u64, P>(PhantomData<fn() -> P>);

impl<const MIN: u64, const MAX: u64, P: de::Pointer> Reader<super::Number> for FloatInRange<MIN, MAX, P> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<super::Number, D::Error> {
        de::float_in_range::<D, MIN, MAX, P>(d)
    }
}
impl<'de, const MIN: u64, const MAX: u64, P: de::Pointer> Rule<'de, super::Number> for FloatInRange<MIN, MAX, P> {}

/// [`de::opt_float_in_range`]: an optional or nullable number with bounds;
/// `LENIENT` applies default-on-error.
pub struct OptFloatInRange<const MIN: u64, const MAX: u64, const LENIENT: bool, P>(PhantomData<fn() -> P>);

impl<F: Shape<Inner = super::Number>, const MIN: u64, const MAX: u64, const LENIENT: bool, P: de::Pointer> Reader<F>
    for OptFloatInRange<MIN, MAX, LENIENT, P>
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        de::opt_float_in_range::<D, F, MIN, MAX, LENIENT, P>(d)
    }
}
impl<'de, F: Shape<Inner = super::Number>, const MIN: u64, const MAX: u64, const LENIENT: bool, P: de::Pointer>
    Rule<'de, F> for OptFloatInRange<MIN, MAX, LENIENT, P>
{
}

/// How many items a field's list holds, if it holds one: the shapes a
/// `minItems` / `maxItems` property takes (`Vec<T>`, `Option<Vec<T>>`, `Nullable<Vec<T>>`).
pub trait ListLen: Default {
    /// The number of items; `None` when the field holds no list.
    fn list_len(&self) -> Option<usize>;
}

impl<T> ListLen for Vec<T> {
    fn list_len(&self) -> Option<usize> {
        Some(self.len())
    }
}

impl<T> ListLen for Option<Vec<T>> {
    fn list_len(&self) -> Option<usize> {
        self.as_ref().map(Vec::len)
    }
}

impl<T> ListLen for Nullable<Vec<T>> {
    fn list_len(&self) -> Option<usize> {
        match self {
            Nullable::Value(v) => Some(v.len()),
            _ => None,
        }
    }
}

/// `minItems` / `maxItems`: the list read by the reader `M` (the field's
/// other rule, or [`Plain`]) must hold at least `MIN` and at most `MAX`
/// items (`usize::MAX`: no most). A list out of range is an error naming the
/// property (`P`), or, with `LENIENT` (default-on-error), the field's default.
pub struct ItemCount<const MIN: usize, const MAX: usize, const LENIENT: bool, P, M>(PhantomData<fn() -> (P, M)>);

impl<const MIN: usize, const MAX: usize, const LENIENT: bool, P: de::Pointer, M> ItemCount<MIN, MAX, LENIENT, P, M> {
    /// The value when its count is in range, the default when `LENIENT`, or
    /// the error.
    fn check<F: ListLen>(value: F) -> Result<F, serde_json::Error> {
        let Some(n) = value.list_len() else { return Ok(value) };
        if (MIN..=MAX).contains(&n) {
            return Ok(value);
        }
        if LENIENT {
            return Ok(F::default());
        }
        Err(if n < MIN {
            serde::de::Error::custom(crate::runtime::messages::too_few_items(&n, &MIN, &P::POINTER))
        } else {
            serde::de::Error::custom(crate::runtime::messages::too_many_items(&n, &MAX, &P::POINTER))
        })
    }
}

impl<F: ListLen, const MIN: usize, const MAX: usize, const LENIENT: bool, P: de::Pointer, M: Reader<F>> Reader<F>
    for ItemCount<MIN, MAX, LENIENT, P, M>
{
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
        Self::check(M::read(d)?).map_err(serde::de::Error::custom)
    }
}

impl<'de, F, const MIN: usize, const MAX: usize, const LENIENT: bool, P, M> Rule<'de, F>
    for ItemCount<MIN, MAX, LENIENT, P, M>
where
    F: ListLen,
    P: de::Pointer,
    M: Rule<'de, F>,
{
    /// The inner rule's direct reading, then the count; a list out of range
    /// bails (the visitor reports it, or gives the default).
    #[inline]
    fn read(r: &mut crate::json::fast::Reader<'de>) -> Result<F, crate::json::fast::Bail> {
        Self::check(<M as Rule<'de, F>>::read(r)?).map_err(|_| crate::json::fast::Bail)
    }
}

/// How a generated direct decoder reads a field that has a decoding rule
/// (`M` is the rule's reader type, `runtime::read::Field::<M, T>` in the
/// visitor). The provided method runs the rule itself through the reader;
/// the list rules read the items directly.
pub trait Rule<'de, T>: Reader<T> {
    /// Reads the field.
    #[inline]
    fn read(r: &mut crate::json::fast::Reader<'de>) -> Result<T, crate::json::fast::Bail> {
        <Self as Reader<T>>::read(r).map_err(|_| crate::json::fast::Bail)
    }
}

/// [`de::put`] with the reader `M` of the field's rule: the
/// visitor's side of a rule, as [`Rule`] is the direct decoder's.
#[inline]
pub fn put_with<'de, M: Reader<T>, A: serde::de::MapAccess<'de>, T>(
    map: &mut A,
    slot: &mut Option<T>,
    key: &'static str,
) -> Result<(), A::Error> {
    let value = map.next_value_seed(Field::<M, T>::new())?;
    de::once(slot, key, value)
}

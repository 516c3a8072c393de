//! The `Deserialize` of a struct that keeps the properties it does not name
//! (every generated struct but a few, and the `keep_unknown` patches of
//! `#[derive(AcpPatch)]`): the generated code says what the struct is
//! ([`Object`]: its name, its properties and how its members are read), and
//! [`object`] is its `Deserialize` (or, for a struct with a direct decoder,
//! `json::fast::direct_object`).

use std::marker::PhantomData;

use serde::de::{MapAccess, Visitor};
use serde::Deserializer;

/// A struct that keeps the properties it does not name, as its generated
/// code describes it.
pub trait Object: Sized {
    /// The struct's name, in errors (`a {NAME} object`).
    const NAME: &'static str;
    /// Its properties (what a format that asks for them is told).
    const FIELDS: &'static [&'static str];
    /// Reads the struct from the members of an object: each known one by its
    /// field's rule, any other kept, with its value, in `additional_properties`
    /// (the loop is [`super::fields`]).
    fn visit<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

/// `Deserialize` for an [`Object`].
#[inline]
pub fn object<'de, D: Deserializer<'de>, T: Object>(deserializer: D) -> Result<T, D::Error> {
    deserializer.deserialize_struct(T::NAME, T::FIELDS, ObjectVisitor::<T>(PhantomData))
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Object> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {} object", T::NAME)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::visit(map)
    }
}

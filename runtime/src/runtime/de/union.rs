//! Unions: tagged unions streamed when the discriminator is known, the
//! buffered fallbacks, untagged arms and catch-all checks.

use super::*;

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
    json(deserializer)
}

/// Refuses a discriminator value the catch-all's `not` guard excludes
/// although no arm has it (reserved for a future arm): no arm accepts it.
pub fn check_reserved<E: Error>(object: &JsonObject, union: &str, key: &str, reserved: &[&str]) -> Result<(), E> {
    match object.get(key).and_then(Value::as_str) {
        Some(t) if reserved.contains(&t) => Err(E::custom(crate::runtime::messages::reserved_tag(&key, &t, &union))),
        _ => Ok(()),
    }
}

/// Checks the fields a catch-all arm requires and the types of the ones it names.
pub fn check_catch_all<E: Error>(object: &JsonObject, union: &str, required: &[&str]) -> Result<(), E> {
    for key in required {
        if !object.contains_key(*key) {
            return Err(E::custom(crate::runtime::messages::catch_all_missing_field(&union, key)));
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
            .map_err(|e| E::custom(crate::runtime::messages::catch_all_invalid_field(&key, &union, &e))),
        None => Ok(()),
    }
}

/// Tries one arm of an untagged union on a buffered value.
pub fn try_arm<T: DeserializeOwned>(value: &Value, errors: &mut Vec<String>, arm: &str) -> Option<T> {
    match T::deserialize(value) {
        Ok(v) => Some(v),
        Err(e) => {
            errors.push(crate::runtime::messages::arm_error(&arm, &e).to_string());
            None
        }
    }
}

/// The error when no arm of an untagged union matched.
pub fn no_arm<E: Error>(union: &str, errors: &[String]) -> E {
    E::custom(crate::runtime::messages::no_arm_matched(&union, &errors.join("; ")))
}

/// The error when no arm that accepts any discriminator value matched: for
/// an absent discriminator the arms' errors, otherwise the unknown-tag error
/// (`tag_error`) with them.
pub fn no_open_arm<E: Error>(union: &str, tag_error: &str, missing: bool, errors: &[String]) -> E {
    if missing {
        no_arm(union, errors)
    } else {
        E::custom(crate::runtime::messages::no_open_arm_matched(&tag_error, &errors.join("; ")))
    }
}

/// The error for a discriminator that a closed union does not know.
pub fn unknown_tag<E: Error>(union: &str, key: &str, tag: Tag<'_>, expected: &'static [&'static str]) -> E {
    match tag {
        Tag::Str(t) => E::custom(crate::runtime::messages::unknown_tag(&key, &t, &union, &expected.join(", "))),
        Tag::Missing => E::custom(crate::runtime::messages::missing_tag(&key, &union)),
        Tag::Null | Tag::Invalid => E::custom(crate::runtime::messages::invalid_tag(&key, &union)),
    }
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

/// An arm of [`Tagged::known`]: the payload of the known variant `tag`
/// decoded from the rest of the object and made a `T` by `variant` (the
/// variant's constructor), an error naming the variant.
#[inline]
pub fn variant<'de, T: Tagged, P: serde::Deserialize<'de>, D: Deserializer<'de>>(
    payload: D,
    tag: &str,
    variant: impl FnOnce(P) -> T,
) -> Result<T, D::Error> {
    P::deserialize(payload).map(variant).map_err(|e| in_variant(T::NAME, tag, e))
}

/// Wraps a payload error with the variant it belongs to.
pub fn in_variant<E: Error>(union: &str, tag: &str, e: impl std::fmt::Display) -> E {
    E::custom(crate::runtime::messages::invalid_variant(&tag, &union, &e))
}

struct TaggedVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Tagged> serde::de::Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a {} object", T::NAME)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut before = Before::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.as_str() != T::KEY {
                before.push(key.into_owned(), || map.next_value_seed(Json))?;
                continue;
            }
            let before = before.members;
            let tag = match map.next_value::<TagValue<'de>>()? {
                TagValue::Str(t) if T::is_known(t.as_str()) => {
                    let rest = Chained { before: before.into_iter(), value: None, live: map, key: T::KEY };
                    return T::known(t.as_str(), MapDeserializer(rest));
                }
                TagValue::Str(t) => Value::String(t.into_owned()),
                TagValue::Other(v) => v,
            };
            let mut object: JsonObject = before.into_iter().collect();
            object.insert(T::KEY.to_owned(), tag);
            while let Some((k, v)) = next_json_entry(&mut map)? {
                insert_once(&mut object, k, v)?;
            }
            return T::from_object(object);
        }
        T::from_object(before.members.into_iter().collect())
    }
}

/// The members read before the discriminator, in order, and their names
/// (so that a repeated one is found in `log n`). The discriminator usually
/// comes first, so this is usually empty.
#[derive(Default)]
struct Before {
    members: Vec<(String, Value)>,
    names: std::collections::BTreeSet<String>,
}

impl Before {
    fn push<E: Error>(&mut self, key: String, value: impl FnOnce() -> Result<Value, E>) -> Result<(), E> {
        if !self.names.insert(key.clone()) {
            return Err(duplicate(&key));
        }
        self.members.push((key, value()?));
        Ok(())
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
                json(serde::de::value::SeqAccessDeserializer::new(seq)).map(TagValue::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<TagValue<'de>, A::Error> {
                json(serde::de::value::MapAccessDeserializer::new(map)).map(TagValue::Other)
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
/// The members before the discriminator (buffered), then the rest of the
/// object as it streams. The discriminator named twice is an error (as
/// serde's internally tagged enums say it): the variant was chosen by the
/// first, and a payload keeping the second would re-encode as another
/// variant.
struct Chained<A> {
    before: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
    live: A,
    key: &'static str,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for Chained<A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if let Some((k, v)) = self.before.next() {
            self.value = Some(v);
            return seed.deserialize(serde::de::value::StringDeserializer::<A::Error>::new(k)).map(Some);
        }
        match self.live.next_key::<Key<'de>>()? {
            None => Ok(None),
            Some(k) if k.as_str() == self.key => Err(A::Error::duplicate_field(self.key)),
            Some(Key::Borrowed(k)) => {
                seed.deserialize(serde::de::value::BorrowedStrDeserializer::<A::Error>::new(k)).map(Some)
            }
            Some(Key::Owned(k)) => seed.deserialize(serde::de::value::StringDeserializer::<A::Error>::new(k)).map(Some),
        }
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

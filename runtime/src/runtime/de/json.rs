//! Free-form JSON (`serde_json::Value`, JSON objects, typed maps) read under
//! the bindings' one rule for member names: an object that names a member
//! twice is refused, at any depth.
//!
//! `serde_json::Value`'s own `Deserialize` keeps the last of two members of
//! the same name, while a struct's derive refuses a repeated field; a value
//! read both ways (buffered for an untagged union, streamed for a tagged
//! one, captured for a lenient field) would then decode differently. Every
//! place the bindings read free-form JSON goes through [`json`] instead, so
//! that every decode path sees the same members and gives the same error.
//! Scalars are read exactly as `Value` reads them.

use serde::de::{DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Number, Value};

/// The error for a member named twice: the text serde's derive gives for a
/// repeated field (`duplicate field `name``), for every name.
pub fn duplicate<E: Error>(key: &str) -> E {
    E::custom(crate::runtime::messages::duplicate_field(&key))
}

/// Reads any JSON value, refusing a repeated member name at any depth.
#[inline]
pub fn json<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    deserializer.deserialize_any(JsonVisitor)
}

/// Reads a JSON object (a `serde_json::Map`), refusing a repeated member
/// name at any depth.
pub fn json_object<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map<String, Value>, D::Error> {
    deserializer.deserialize_map(ObjectVisitor)
}

/// Reads the JSON text `text` with [`json`]: `serde_json::from_str::<Value>`
/// under the rule for repeated names.
pub fn json_from_str(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = json(&mut de)?;
    de.end()?;
    Ok(value)
}

/// [`json`] as a seed, for `next_value_seed` / `next_element_seed`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl<'de> DeserializeSeed<'de> for Json {
    type Value = Value;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        json(deserializer)
    }
}

/// Reads the next entry of `map` as a name and a [`json`] value (the caller
/// checks the name, with [`insert_once`]).
pub fn next_json_entry<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<(String, Value)>, A::Error> {
    match map.next_key::<String>()? {
        Some(k) => Ok(Some((k, map.next_value_seed(Json)?))),
        None => Ok(None),
    }
}

/// Inserts a member into an object being read; a name already there is an
/// error ([`duplicate`]).
#[inline]
pub fn insert_once<E: Error>(object: &mut Map<String, Value>, key: String, value: Value) -> Result<(), E> {
    use serde_json::map::Entry;
    match object.entry(key) {
        Entry::Vacant(v) => {
            v.insert(value);
            Ok(())
        }
        Entry::Occupied(o) => Err(duplicate(o.key())),
    }
}

/// Reads the members of an object into a `serde_json::Map` with
/// [`insert_once`].
pub fn json_members<'de, A: MapAccess<'de>>(mut map: A) -> Result<Map<String, Value>, A::Error> {
    let mut object = Map::new();
    while let Some((k, v)) = next_json_entry(&mut map)? {
        insert_once(&mut object, k, v)?;
    }
    Ok(object)
}

/// Skips a value of any JSON, refusing a repeated member name in it as
/// [`json`] does (a member the bindings ignore is held to the same rule as
/// one they keep).
pub fn skip<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    json(deserializer).map(drop)
}

/// A field type that holds free-form JSON (a `Value`, a JSON object, a map
/// by name) and is read under the rule for repeated names: the shapes
/// [`crate::runtime::read::Json`] reads, through `Option`, `Nullable`, `Box`
/// and `Patch`. A map's values are read by their own `Deserialize`.
pub trait FreeJson: Sized {
    /// Reads the value.
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

impl FreeJson for Value {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        json(deserializer)
    }
}

impl FreeJson for Map<String, Value> {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        json_object(deserializer)
    }
}

impl<T: serde::de::DeserializeOwned> FreeJson for std::collections::BTreeMap<String, T> {
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

impl<T: serde::de::DeserializeOwned, S: std::hash::BuildHasher + Default> FreeJson
    for std::collections::HashMap<String, T, S>
{
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

impl<T: FreeJson> FreeJson for Box<T> {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::read(deserializer).map(Box::new)
    }
}

impl<T: FreeJson> FreeJson for Option<T> {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Optional::<T>::deserialize(deserializer)?.0)
    }
}

impl<T: FreeJson> FreeJson for crate::runtime::Nullable<T> {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Optional::<T>::deserialize(deserializer)?.0 {
            Some(v) => crate::runtime::Nullable::Value(v),
            None => crate::runtime::Nullable::Null,
        })
    }
}

impl<T: FreeJson> FreeJson for crate::Patch<T> {
    #[inline]
    fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Optional::<T>::deserialize(deserializer)?.0 {
            Some(v) => crate::Patch::Set(v),
            None => crate::Patch::Clear,
        })
    }
}

/// `Option<T>` read the way serde reads an `Option` (`null` is `None`), the
/// value by [`FreeJson`].
struct Optional<T>(Option<T>);

impl<'de, T: FreeJson> Deserialize<'de> for Optional<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: FreeJson> Visitor<'de> for V<T> {
            type Value = Optional<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("option")
            }
            fn visit_none<E: Error>(self) -> Result<Optional<T>, E> {
                Ok(Optional(None))
            }
            fn visit_unit<E: Error>(self) -> Result<Optional<T>, E> {
                Ok(Optional(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Optional<T>, D::Error> {
                T::read(d).map(|v| Optional(Some(v)))
            }
        }
        deserializer.deserialize_option(V(std::marker::PhantomData))
    }
}

/// A map by name whose names may not repeat.
struct MapVisitor<M, T>(std::marker::PhantomData<fn() -> (M, T)>);

impl<'de, T: serde::de::DeserializeOwned, M: Default + Extend<(String, T)> + MapLike> Visitor<'de>
    for MapVisitor<M, T>
{
    type Value = M;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<M, A::Error> {
        let mut out = M::default();
        while let Some(k) = map.next_key::<String>()? {
            if out.has(&k) {
                return Err(duplicate(&k));
            }
            let v: T = map.next_value()?;
            out.extend(std::iter::once((k, v)));
        }
        Ok(out)
    }
}

/// A map's lookup by name, for [`MapVisitor`].
trait MapLike {
    fn has(&self, key: &str) -> bool;
}

impl<T> MapLike for std::collections::BTreeMap<String, T> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
}

impl<T, S: std::hash::BuildHasher> MapLike for std::collections::HashMap<String, T, S> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }

    #[inline]
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    #[inline]
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    #[inline]
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_i128<E: Error>(self, v: i128) -> Result<Value, E> {
        Number::deserialize(serde::de::value::I128Deserializer::new(v)).map(Value::Number)
    }

    fn visit_u128<E: Error>(self, v: u128) -> Result<Value, E> {
        Number::deserialize(serde::de::value::U128Deserializer::new(v)).map(Value::Number)
    }

    #[inline]
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    #[inline]
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    #[inline]
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        json(d)
    }

    #[inline]
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element_seed(Json)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        json_members(map).map(Value::Object)
    }
}

struct ObjectVisitor;

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        json_members(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_names_are_refused_at_any_depth_and_scalars_read_as_value_reads_them() {
        for text in [r#"{"a":1,"a":1}"#, r#"[{"b":{"c":0,"d":[{"e":1,"e":2}]}}]"#, r#"{"x":{"":1,"":1}}"#] {
            let e = json(&mut serde_json::Deserializer::from_str(text)).unwrap_err();
            assert!(e.to_string().starts_with("duplicate field `"), "{text}: {e}");
            assert!(serde_json::from_str::<Value>(text).is_ok(), "serde_json's Value keeps the last");
        }
        for text in [r#"{"a":1,"b":[1.5,-2,18446744073709551615,"s\u00e9",null,true,{}]}"#, "1e400", "-0", "[]"] {
            let ours = json(&mut serde_json::Deserializer::from_str(text)).map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{text}");
        }
        let e = json_object(&mut serde_json::Deserializer::from_str("[1]")).unwrap_err();
        assert!(e.to_string().starts_with("invalid type: sequence, expected a map"), "{e}");
    }
}

//! The buffered reference decoder used by the tests of the fast paths.

use super::checked::unexpected;
use super::*;

/// A deserializer over a buffered [`Value`] that, unlike serde_json's, does
/// not hand out JSON text for a raw value: every lenient field then takes the
/// buffered path ([`Raw::Value`]). The tests decode each message through it
/// as the slow reference of the fast paths; it is not meant for other use.
#[doc(hidden)]
pub struct Buffered(pub Value);

impl<'de> serde::de::IntoDeserializer<'de, serde_json::Error> for Buffered {
    type Deserializer = Buffered;
    fn into_deserializer(self) -> Buffered {
        self
    }
}

impl<'de> Deserializer<'de> for Buffered {
    type Error = serde_json::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        use serde::de::value::{MapDeserializer, SeqDeserializer};
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_string(s),
            Value::Array(a) => {
                let mut seq = SeqDeserializer::new(a.into_iter().map(Buffered));
                let v = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(v)
            }
            Value::Object(m) => {
                let mut map = MapDeserializer::new(m.into_iter().map(|(k, v)| (k, Buffered(v))));
                let v = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(v)
            }
        }
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, serde_json::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        use serde::de::value::{MapAccessDeserializer, MapDeserializer, StringDeserializer};
        match self.0 {
            Value::String(s) => visitor.visit_enum(StringDeserializer::<serde_json::Error>::new(s)),
            Value::Object(m) if m.len() == 1 => {
                let map = MapDeserializer::new(m.into_iter().map(|(k, v)| (k, Buffered(v))));
                visitor.visit_enum(MapAccessDeserializer::new(map))
            }
            other => Err(serde_json::Error::invalid_type(unexpected(&other), &"an enum")),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

//! `Deserialize` for [`RawMessage`]: the six members of a JSON-RPC envelope
//! kept raw, any other read and dropped, every name at most once.

use std::borrow::Cow;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::RawMessage;
use crate::runtime::de;

const FIELDS: &[&str] = &["jsonrpc", "id", "method", "params", "result", "error"];

impl<'de: 'a, 'a> Deserialize<'de> for RawMessage<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("RawMessage", FIELDS, EnvelopeVisitor(std::marker::PhantomData))
    }
}

struct EnvelopeVisitor<'a>(std::marker::PhantomData<RawMessage<'a>>);

/// A member name, borrowed from the text when it has no escape.
struct Name<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Name<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct N<'a>(#[serde(borrow)] Cow<'a, str>);
        N::deserialize(deserializer).map(|n| Name(n.0))
    }
}

impl<'de: 'a, 'a> Visitor<'de> for EnvelopeVisitor<'a> {
    type Value = RawMessage<'a>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct RawMessage")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawMessage<'a>, A::Error> {
        let mut m = RawMessage::default();
        let mut others: std::collections::BTreeSet<Cow<'de, str>> = std::collections::BTreeSet::new();
        while let Some(Name(key)) = map.next_key::<Name<'de>>()? {
            match &*key {
                "jsonrpc" => de::once(&mut m.jsonrpc, "jsonrpc", map.next_value::<&'de RawValue>()?)?,
                "id" => de::once(&mut m.id, "id", map.next_value::<&'de RawValue>()?)?,
                "method" => de::once(&mut m.method, "method", map.next_value::<Name<'de>>()?.0)?,
                "params" => de::once(&mut m.params, "params", map.next_value::<&'de RawValue>()?)?,
                "result" => de::once(&mut m.result, "result", map.next_value::<&'de RawValue>()?)?,
                "error" => de::once(&mut m.error, "error", map.next_value::<&'de RawValue>()?)?,
                _ => {
                    // A member the envelope does not keep: read under the rule
                    // all the same, and dropped.
                    if others.contains(&key) {
                        return Err(de::duplicate(&key));
                    }
                    map.next_value_seed(de::Json)?;
                    others.insert(key);
                }
            }
        }
        Ok(m)
    }
}

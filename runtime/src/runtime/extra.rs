//! [`Extra`]: the properties of an object that its schema does not name.

use std::fmt;

use serde::ser::{Serialize, Serializer};
use serde_json::Value;

use super::json_object::JsonObject;

/// The properties of a decoded object that its schema does not name, in the
/// order they came. They are written back after the known properties, so a
/// proxy, recorder or forwarder built on the bindings passes on what a newer
/// peer sent (Protocol Buffers' rule for unknown fields).
///
/// One pointer wide, and nothing is allocated for an object without unknown
/// properties (the usual message).
#[derive(Clone, Default, PartialEq)]
pub struct Extra(Option<Box<JsonObject>>);

impl Extra {
    /// No properties.
    pub const fn new() -> Extra {
        Extra(None)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(|m| m.is_empty())
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |m| m.len())
    }

    /// The value of one, by name.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref()?.get(key)
    }

    /// Adds or replaces one (a replaced property keeps its place); returns
    /// the value it replaced.
    pub fn insert(&mut self, key: String, value: Value) -> Option<Value> {
        self.0.get_or_insert_with(Default::default).insert(key, value)
    }

    /// Removes one, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        remove_keeping_order(self.0.as_mut()?, key)
    }

    /// The properties in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|m| m.iter())
    }

    /// `self`'s properties, then `later`'s (a property in both takes `later`'s
    /// value): the unknown properties of two patches composed into one.
    pub fn then(mut self, later: Extra) -> Extra {
        for (k, v) in later.into_object() {
            self.insert(k, v);
        }
        self
    }

    /// The properties as a JSON object.
    pub fn into_object(self) -> JsonObject {
        self.0.map(|m| *m).unwrap_or_default()
    }
}

impl From<JsonObject> for Extra {
    fn from(m: JsonObject) -> Extra {
        Extra(if m.is_empty() { None } else { Some(Box::new(m)) })
    }
}

impl fmt::Debug for Extra {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// Removes `key` from `map`, the other members keeping their order
/// (`Map::remove` is a swap remove with `preserve_order`: it moves the last
/// member into the removed one's place).
pub(crate) fn remove_keeping_order(map: &mut serde_json::Map<String, Value>, key: &str) -> Option<Value> {
    #[cfg(feature = "preserve_order")]
    return map.shift_remove(key);
    #[cfg(not(feature = "preserve_order"))]
    return map.remove(key);
}

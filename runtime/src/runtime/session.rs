//! What a generated session reducer is made of: an insertion-ordered map of
//! entities, the upsert of a patch into it or into a single slot, and the
//! append of base64 text. The reducer itself (its collections and the rule
//! of each update) is generated from the reviewed configuration, for Rust
//! and TypeScript alike.

use std::hash::Hash;

use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::Base64String;
use crate::patch::Patchable;

/// A map that remembers the order in which keys were first seen.
///
/// Keys are hashed with foldhash, seeded per process (`std`'s SipHash cost a
/// tenth of the reducer's instructions per tool-call patch, for keys that are
/// a peer's short ids). Each value is boxed: an entity (a tool call is 368
/// bytes) stays where it was made while the map grows, so growing moves a key
/// and a pointer per entry instead of the entity (moving them cost the
/// reducer a tenth of its instructions per tool-call patch, most of it glibc
/// copying the entries' reallocated block).
#[derive(Debug, Clone)]
pub struct Ordered<K, V>(IndexMap<K, Box<V>, foldhash::fast::RandomState>);

impl<K: Hash + Eq, V: PartialEq> PartialEq for Ordered<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(other.0.iter()).all(|(a, b)| a == b)
    }
}

impl<K, V> Default for Ordered<K, V> {
    fn default() -> Self {
        Ordered(IndexMap::with_hasher(foldhash::fast::RandomState::default()))
    }
}

impl<K: Eq + Hash, V> Ordered<K, V> {
    /// The value for `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        self.0.get(key).map(|v| &**v)
    }

    /// The value for `key`, mutably.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.0.get_mut(key).map(|v| &mut **v)
    }

    /// The value for `key`, created with `make` if it is new.
    pub fn entry(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        self.0.entry(key).or_insert_with(|| Box::new(make()))
    }

    /// Inserts or replaces, keeping the first-seen position.
    pub fn insert(&mut self, key: K, value: V) {
        match self.0.entry(key) {
            indexmap::map::Entry::Occupied(mut old) => **old.get_mut() = value,
            indexmap::map::Entry::Vacant(new) => {
                new.insert(Box::new(value));
            }
        }
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        self.0.shift_remove(key).map(|v| *v)
    }

    /// Entries in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(k, v)| (k, &**v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Serialize, V: Serialize> Serialize for Ordered<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Patches the entity with the patch's key, or creates it from the patch
/// (the key is cloned only then).
pub fn upsert<K: Eq + Hash + Clone, S: Patchable>(
    map: &mut Ordered<K, S>,
    key: impl Fn(&S::Patch) -> &K,
    patch: S::Patch,
) {
    match map.0.get_mut(key(&patch)) {
        Some(entity) => entity.apply(patch),
        None => {
            let k = key(&patch).clone();
            map.0.insert(k, Box::new(S::from_patch(patch)));
        }
    }
}

/// The patch that creates `state` from nothing: applied to a new entity
/// (`from_patch`) it gives a state equal to `state`. It holds the key and
/// required fields and every field not at its default (a compacted stream
/// writes each entity as this one patch).
pub fn creating_patch<S: Patchable>(state: &S) -> S::Patch {
    // `diff` of a state with itself keeps everything but the key and the
    // required fields: the entity those alone create is the base.
    S::from_patch(state.diff(state)).diff(state)
}

/// Patches the one state of a keyless upsert, or creates it.
pub fn upsert_one<S: Patchable>(slot: &mut Option<S>, patch: S::Patch) {
    match slot {
        Some(s) => s.apply(patch),
        None => *slot = Some(S::from_patch(patch)),
    }
}

/// Appends base64 text: both sides decoded and the joined bytes encoded, or,
/// when either side does not decode, the two texts joined.
pub fn append_base64(stored: &mut Base64String, more: &Base64String) {
    match (stored.decode(), more.decode()) {
        (Ok(mut a), Ok(b)) => {
            a.extend(b);
            *stored = Base64String::encode(a);
        }
        _ => *stored = Base64String::from_encoded(format!("{}{}", stored.as_str(), more.as_str())),
    }
}

/// The string property `name` of a value's JSON object (a value stored whole
/// under it), `None` when it has none.
pub fn string_property(value: &impl Serialize, name: &str) -> Option<String> {
    let value = serde_json::to_value(value).ok()?;
    value.get(name)?.as_str().map(str::to_owned)
}

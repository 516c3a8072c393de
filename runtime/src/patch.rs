//! Tri-state patches: the semantics of ACP v2 upserts, for the generated
//! upserts and for users' own extension structs (`#[derive(AcpPatch)]`).
//!
//! On the wire a patch field is omitted (keep the stored value), `null`
//! (clear it) or a value (set it). Lists are replaced whole; `[]` and `null`
//! both clear. Fields that are not optional reset to their default on `null`.

use std::fmt;

use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde::ser::{Serialize, Serializer};
use serde_json::{Map, Value};

/// The value of a nested patch field when the field is not `nested`: no such patch exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoPatch {}

impl Serialize for NoPatch {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        match *self {}
    }
}

/// The per-key object of a by-key field after a clear: "remove every key,
/// then set these". Only [`PatchOps::then`] produces it (a single ACP message
/// cannot say it); it encodes as the object of keys it sets.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ReplaceAll(pub Box<Map<String, Value>>);

impl Serialize for ReplaceAll {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A stored JSON object map that a by-key field patches.
pub trait MetaMap: Clone + PartialEq {
    /// The map.
    fn map(&self) -> &Map<String, Value>;
    /// The map, mutably.
    fn map_mut(&mut self) -> &mut Map<String, Value>;
    /// Wraps a map.
    fn from_map(map: Map<String, Value>) -> Self;
    /// Wraps a boxed map (a by-key patch's): the box itself where the stored
    /// map is boxed too, so that moving a patch's map in allocates nothing.
    #[allow(clippy::boxed_local)] // the box is what the implementation for a boxed map keeps
    fn from_boxed(map: Box<Map<String, Value>>) -> Self {
        Self::from_map(*map)
    }
}

impl MetaMap for Map<String, Value> {
    fn map(&self) -> &Map<String, Value> {
        self
    }
    fn map_mut(&mut self) -> &mut Map<String, Value> {
        self
    }
    fn from_map(map: Map<String, Value>) -> Self {
        map
    }
}

impl MetaMap for Box<Map<String, Value>> {
    fn map(&self) -> &Map<String, Value> {
        self
    }
    fn map_mut(&mut self) -> &mut Map<String, Value> {
        self
    }
    fn from_map(map: Map<String, Value>) -> Self {
        Box::new(map)
    }
    fn from_boxed(map: Box<Map<String, Value>>) -> Self {
        map
    }
}

/// The patch of a by-key (`_meta`) field.
pub type ByKey = Patch<Box<Map<String, Value>>, ReplaceAll>;

/// One field of a patch.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Patch<T, P = NoPatch> {
    /// Omitted: the stored value is kept.
    #[default]
    Keep,
    /// `null`: the stored value is cleared (`None`, empty, or the type's default).
    Clear,
    /// A value: the stored value is replaced.
    Set(T),
    /// An object for a `nested` field: the stored value is patched field by field.
    Patch(P),
}

impl<T, P> Patch<T, P> {
    /// `true` for [`Patch::Keep`] (the field is skipped when encoding).
    pub fn is_keep(&self) -> bool {
        matches!(self, Patch::Keep)
    }

    /// `true` for [`Patch::Clear`].
    pub fn is_clear(&self) -> bool {
        matches!(self, Patch::Clear)
    }

    /// The value of a [`Patch::Set`].
    pub fn set_value(&self) -> Option<&T> {
        match self {
            Patch::Set(v) => Some(v),
            _ => None,
        }
    }
}

impl<T, P> From<T> for Patch<T, P> {
    fn from(value: T) -> Self {
        Patch::Set(value)
    }
}

impl<T: Serialize, P: Serialize> Serialize for Patch<T, P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Patch::Keep | Patch::Clear => serializer.serialize_none(),
            Patch::Set(v) => v.serialize(serializer),
            Patch::Patch(p) => p.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T, NoPatch> {
    /// Strict decoding: `null` clears, a value sets, a malformed value is an error.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Patch::Set(v),
            None => Patch::Clear,
        })
    }
}

/// A patch field decodes like any other field shape: `null` is `Clear`, a
/// value is `Set`, and the default (omitted, or malformed under the
/// default-on-error rule) is `Keep`.
impl<T> crate::runtime::de::Shape for Patch<T> {
    type Inner = T;
    fn null() -> Option<Self> {
        Some(Patch::Clear)
    }
    fn wrap(inner: T) -> Self {
        Patch::Set(inner)
    }
}

/// Decoding helpers used by the derive (`deserialize_with`).
#[doc(hidden)]
pub mod de {
    use super::*;

    use crate::runtime::de as field;

    /// The default-on-error rule for a patch field: `null` clears, a value
    /// sets, a malformed value is `Keep` (the bindings' rule for
    /// `x-deserialize-default-on-error`, through [`Patch`]'s `Shape`).
    pub fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Patch<T>, D::Error> {
        field::lenient(d)
    }

    /// [`lenient`] for a field marked `#[acp(scalar)]`: the value is read in
    /// place (a string, number or boolean), a value of another JSON type is
    /// `Keep`; nothing is captured.
    pub fn lenient_scalar<'de, D: Deserializer<'de>, T: crate::runtime::de::Scalar>(
        d: D,
    ) -> Result<Patch<T>, D::Error> {
        field::lenient_scalar(d)
    }

    /// A field marked `#[acp(any_json)]`: `null` clears, any other JSON sets
    /// (there is no wrong shape); read in place.
    pub fn any_json<'de, D: Deserializer<'de>, T: From<Value>>(d: D) -> Result<Patch<T>, D::Error> {
        Ok(match field::json(d)? {
            Value::Null => Patch::Clear,
            v => Patch::Set(T::from(v)),
        })
    }

    /// A list patch with `x-deserialize-skip-invalid-items`: bad items dropped,
    /// a value that is not a list is `Keep`.
    pub fn lenient_items<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Patch<Vec<T>>, D::Error> {
        field::lenient_items(d)
    }

    /// A list patch with `x-deserialize-skip-invalid-items` under
    /// `#[acp(strict)]`: bad items are still dropped (the field asks for it),
    /// but a value that is not a list or `null` is an error.
    pub fn strict_items<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Patch<Vec<T>>, D::Error> {
        field::items(d)
    }

    /// A nested field: an object patches field by field; `null` clears.
    pub fn nested<'de, D: Deserializer<'de>, T, P: DeserializeOwned>(
        d: D,
        lenient: bool,
    ) -> Result<Patch<T, P>, D::Error> {
        let raw = field::Raw::deserialize(d)?;
        if field::raw_is_null(&raw) {
            return Ok(Patch::Clear);
        }
        match field::decode_raw::<P>(raw) {
            Ok(p) => Ok(Patch::Patch(p)),
            Err((false, _)) if lenient => Ok(Patch::Keep),
            Err((_, e)) => Err(serde::de::Error::custom(e)),
        }
    }

    /// A by-key (`_meta`) field with the default-on-error rule: an object
    /// patches per key, `null` clears, anything else keeps.
    pub fn lenient_by_key<'de, D: Deserializer<'de>>(d: D) -> Result<ByKey, D::Error> {
        field::lenient_object(d, Patch::Clear, Patch::Keep, |m| Patch::Set(Box::new(m)))
    }

    /// A by-key field, strict: anything but an object or `null` is an error.
    pub fn strict_by_key<'de, D: Deserializer<'de>>(d: D) -> Result<ByKey, D::Error> {
        Ok(match <Option<Map<String, Value>> as field::FreeJson>::read(d)? {
            None => Patch::Clear,
            Some(m) => Patch::Set(Box::new(m)),
        })
    }

    /// [`nested`] with the default-on-error rule.
    pub fn nested_lenient<'de, D: Deserializer<'de>, T, P: DeserializeOwned>(d: D) -> Result<Patch<T, P>, D::Error> {
        nested(d, true)
    }

    /// [`nested`], strict.
    pub fn nested_strict<'de, D: Deserializer<'de>, T, P: DeserializeOwned>(d: D) -> Result<Patch<T, P>, D::Error> {
        nested(d, false)
    }

    // The helpers above as reader types, for the code the derive writes: a
    // field is read with `runtime::de::put_with::<Helper, _, _>` (under
    // `#[acp(keep_unknown)]`) or `runtime::read::with::<Helper, _, _>`.
    crate::runtime::read::readers! {
        /// [`lenient`].
        Lenient [T: DeserializeOwned] Patch<T> => lenient;
        /// [`lenient_scalar`].
        LenientScalar [T: crate::runtime::de::Scalar] Patch<T> => lenient_scalar, crate::json::fast::lenient_scalar;
        /// [`any_json`].
        AnyJson [T: From<Value>] Patch<T> => any_json;
        /// [`nested_lenient`].
        NestedLenient [T, P: DeserializeOwned] Patch<T, P> => nested_lenient;
        /// [`nested_strict`].
        NestedStrict [T, P: DeserializeOwned] Patch<T, P> => nested_strict;
        /// [`lenient_by_key`].
        LenientByKey [] ByKey => lenient_by_key;
        /// [`strict_by_key`].
        StrictByKey [] ByKey => strict_by_key;
    }

    /// [`lenient_items`].
    pub struct LenientItems;
    impl<T: DeserializeOwned> crate::runtime::read::Reader<Patch<Vec<T>>> for LenientItems {
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Patch<Vec<T>>, D::Error> {
            lenient_items(d)
        }
    }
    crate::runtime::read::list_rules!(LenientItems Patch<Vec<T>>);

    /// [`strict_items`].
    pub struct StrictItems;
    impl<T: DeserializeOwned> crate::runtime::read::Reader<Patch<Vec<T>>> for StrictItems {
        fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Patch<Vec<T>>, D::Error> {
            strict_items(d)
        }
    }
    crate::runtime::read::list_rules!(StrictItems Patch<Vec<T>>);
}

/// A stored entity that ACP patches (an upsert's state).
///
/// Implemented by `#[derive(AcpPatch)]`. [`Patchable::apply`] is what other
/// libraries call *merge*: it folds a wire patch into the stored value.
///
/// # ACP upserts and JSON Merge Patch (RFC 7396)
///
/// Where the two agree:
/// - an omitted member leaves the stored value unchanged;
/// - `null` clears the member;
/// - any other value replaces the member, and a list is replaced whole
///   (neither appends to or patches lists item by item).
///
/// Where ACP differs:
/// - objects are replaced, not merged: a new `rawInput` or `capabilities`
///   object replaces the stored one entirely, where RFC 7396 would merge it
///   member by member. The one exception is the top-level `_meta` of an
///   upsert (`#[acp(by_key)]`), merged one level deep: each key it names is
///   set (or removed by `null`), with no deeper merge;
/// - `null` does not always remove: a field that is not optional resets to
///   its default (`kind: null` is `other`, `status: null` is `pending`), and a
///   list field holds no items after `null` or `[]` alike;
/// - the key (`toolCallId`, `messageId`, ...) identifies the stored entity and
///   is never patched; the first patch for a new key starts from the
///   defaults ([`Patchable::from_patch`]);
/// - a member of the wrong shape counts as omitted (no change), never as a
///   clear and never as an error for the whole message.
///
/// Patches also compose ([`PatchOps::then`]): applying `a.then(b)` is the
/// same as applying `a`, then `b`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not implement `Patchable`",
    label = "`#[acp(nested)]` needs a type that derives `AcpPatch`",
    note = "add `#[derive(AcpPatch)]` to `{Self}`, or remove `#[acp(nested)]` to replace the whole value"
)]
pub trait Patchable: Sized {
    /// The wire patch type.
    type Patch: PatchOps;
    /// Applies a patch in place (merges it into the stored value; see the
    /// trait's documentation for how this relates to JSON Merge Patch).
    #[doc(alias = "merge")]
    #[doc(alias = "merge_patch")]
    fn apply(&mut self, patch: Self::Patch);
    /// A new entity: the defaults, then the patch.
    fn from_patch(patch: Self::Patch) -> Self;
    /// The smallest patch turning `self` into `newer`.
    fn diff(&self, newer: &Self) -> Self::Patch;
}

/// Operations every patch type has.
///
/// Patches made by `#[derive(AcpPatch)]` also have `then` and `is_empty` as
/// inherent methods, so calling them needs no import of this trait.
pub trait PatchOps: Sized {
    /// One patch with the effect of `self` then `later`.
    #[doc(alias = "merge")]
    #[doc(alias = "compose")]
    fn then(self, later: Self) -> Self;
    /// `true` when the patch changes nothing but the key.
    fn is_empty(&self) -> bool;
}

// ---- field rules used by the derive ---------------------------------------

/// What a field does on `Clear` and how patches compose, by field kind.
#[doc(hidden)]
pub mod field {
    use super::*;

    /// `Option<T>`: clear is `None`.
    pub fn apply_option<T>(slot: &mut Option<T>, p: Patch<T>) {
        match p {
            Patch::Keep => {}
            Patch::Clear => *slot = None,
            Patch::Set(v) => *slot = Some(v),
            Patch::Patch(n) => match n {},
        }
    }

    /// A `boxed` field's patch with the value unboxed, to apply.
    pub fn unboxed<T>(p: Patch<Box<T>>) -> Patch<T> {
        match p {
            Patch::Keep => Patch::Keep,
            Patch::Clear => Patch::Clear,
            Patch::Set(v) => Patch::Set(*v),
            Patch::Patch(n) => match n {},
        }
    }

    /// A diffed patch with the value boxed, for a `boxed` field.
    pub fn boxed<T>(p: Patch<T>) -> Patch<Box<T>> {
        match p {
            Patch::Keep => Patch::Keep,
            Patch::Clear => Patch::Clear,
            Patch::Set(v) => Patch::Set(Box::new(v)),
            Patch::Patch(n) => match n {},
        }
    }

    /// A value with a default (lists included): clear is the default.
    pub fn apply_value<T: Default>(slot: &mut T, p: Patch<T>) {
        match p {
            Patch::Keep => {}
            Patch::Clear => *slot = T::default(),
            Patch::Set(v) => *slot = v,
            Patch::Patch(n) => match n {},
        }
    }

    /// `_meta` by key: an object patches per top-level key (`null` removes the
    /// key, any other value replaces it); `null` clears all.
    pub fn apply_by_key<M: MetaMap>(slot: &mut Option<M>, p: ByKey) {
        let changes = match p {
            Patch::Keep => return,
            Patch::Clear => {
                *slot = None;
                return;
            }
            Patch::Set(changes) => changes,
            Patch::Patch(ReplaceAll(changes)) => {
                *slot = None;
                changes
            }
        };
        let Some(stored) = slot else {
            // Nothing stored: the patch's members are the map, less those it
            // removes (`null`), in their order; moved, not inserted one by one.
            let mut map = changes;
            map.retain(|_, v| !v.is_null());
            *slot = Some(M::from_boxed(map));
            return;
        };
        let map = stored.map_mut();
        for (k, v) in *changes {
            if v.is_null() {
                crate::runtime::remove_keeping_order(map, &k);
            } else {
                map.insert(k, v);
            }
        }
    }

    /// A nested entity: an object patches it, `null` resets it to its default.
    pub fn apply_nested<T: Patchable + Default>(slot: &mut T, p: Patch<T, T::Patch>) {
        match p {
            Patch::Keep => {}
            Patch::Clear => *slot = T::default(),
            Patch::Set(v) => *slot = v,
            Patch::Patch(inner) => slot.apply(inner),
        }
    }

    /// The diff of a plain field: `Keep` when equal, else clear or set.
    pub fn diff_option<T: Clone + PartialEq>(old: &Option<T>, new: &Option<T>) -> Patch<T> {
        match (old, new) {
            _ if old == new => Patch::Keep,
            (_, None) => Patch::Clear,
            (_, Some(v)) => Patch::Set(v.clone()),
        }
    }

    /// The diff of a value with a default.
    pub fn diff_value<T: Clone + PartialEq + Default>(old: &T, new: &T) -> Patch<T> {
        if old == new {
            Patch::Keep
        } else if *new == T::default() {
            Patch::Clear
        } else {
            Patch::Set(new.clone())
        }
    }

    /// The diff of a by-key map: the changed keys, `null` for removed ones.
    pub fn diff_by_key<M: MetaMap>(old: &Option<M>, new: &Option<M>) -> ByKey {
        match (old, new) {
            _ if old == new => Patch::Keep,
            (_, None) => Patch::Clear,
            // Stored values are never `null` (a `null` key removes it), so the
            // whole new map is a per-key patch of the empty one.
            (None, Some(n)) => Patch::Set(Box::new(n.map().clone())),
            (Some(o), Some(n)) => {
                let (o, n) = (o.map(), n.map());
                let mut changes = Map::new();
                for (k, v) in n.iter() {
                    if o.get(k) != Some(v) {
                        changes.insert(k.clone(), v.clone());
                    }
                }
                for k in o.keys() {
                    if !n.contains_key(k) {
                        changes.insert(k.clone(), Value::Null);
                    }
                }
                Patch::Set(Box::new(changes))
            }
        }
    }

    /// The diff of a nested entity.
    pub fn diff_nested<T: Patchable + Clone + PartialEq + Default>(old: &T, new: &T) -> Patch<T, T::Patch> {
        if old == new {
            Patch::Keep
        } else {
            Patch::Patch(old.diff(new))
        }
    }

    /// Composes two patches of a plain field: the later one wins unless it keeps.
    pub fn then<T>(earlier: Patch<T>, later: Patch<T>) -> Patch<T> {
        match later {
            Patch::Keep => earlier,
            other => other,
        }
    }

    /// Composes two by-key patches: per-key changes merge, a later clear wins,
    /// and changes after a clear rebuild the map from empty.
    pub fn then_by_key(earlier: ByKey, later: ByKey) -> ByKey {
        match (earlier, later) {
            (e, Patch::Keep) => e,
            (Patch::Set(mut a), Patch::Set(b)) => {
                a.extend(*b);
                Patch::Set(a)
            }
            (Patch::Clear, Patch::Set(b)) => Patch::Patch(ReplaceAll(b)),
            (Patch::Patch(ReplaceAll(mut a)), Patch::Set(b)) => {
                a.extend(*b);
                Patch::Patch(ReplaceAll(a))
            }
            (_, later) => later,
        }
    }

    /// Composes two nested patches: patches merge field by field.
    pub fn then_nested<T: Patchable + Default>(
        earlier: Patch<T, T::Patch>,
        later: Patch<T, T::Patch>,
    ) -> Patch<T, T::Patch> {
        match (earlier, later) {
            (e, Patch::Keep) => e,
            (Patch::Patch(a), Patch::Patch(b)) => Patch::Patch(a.then(b)),
            (Patch::Set(mut v), Patch::Patch(b)) => {
                v.apply(b);
                Patch::Set(v)
            }
            (Patch::Clear, Patch::Patch(b)) => {
                let mut v = T::default();
                v.apply(b);
                Patch::Set(v)
            }
            (_, later) => later,
        }
    }

    /// The operations of a nested field, keyed by its patch type: `P:
    /// Nested<T>` holds exactly when `T: Patchable<Patch = P>`. The derive's
    /// patch struct is generic over the patch type of each nested field and
    /// bounds its impls by this trait, so that a field type that is not
    /// `Patchable` fails once, at the single `where T: Patchable` bound the
    /// derive writes on the field's span, instead of at every use.
    pub trait Nested<T>: Sized {
        /// [`apply_nested`].
        fn apply(slot: &mut T, p: Patch<T, Self>);
        /// [`diff_nested`].
        fn diff(old: &T, new: &T) -> Patch<T, Self>;
        /// [`then_nested`].
        fn then(earlier: Patch<T, Self>, later: Patch<T, Self>) -> Patch<T, Self>;
    }

    impl<T: Patchable + Clone + PartialEq + Default> Nested<T> for <T as Patchable>::Patch {
        fn apply(slot: &mut T, p: Patch<T, Self>) {
            apply_nested(slot, p)
        }
        fn diff(old: &T, new: &T) -> Patch<T, Self> {
            diff_nested(old, new)
        }
        fn then(earlier: Patch<T, Self>, later: Patch<T, Self>) -> Patch<T, Self> {
            then_nested(earlier, later)
        }
    }
}

impl<T: fmt::Display, P> fmt::Display for Patch<T, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Patch::Keep => f.write_str("keep"),
            Patch::Clear => f.write_str("clear"),
            Patch::Set(v) => write!(f, "set {v}"),
            Patch::Patch(_) => f.write_str("patch"),
        }
    }
}

// The direct encoder (`json::fast::ToJson`) of the patch types: a patch
// writes what it sets, `Keep` and `Clear` write `null` (a `Keep` field is
// skipped by its struct before it is reached).
use crate::json::fast::ToJson;

impl<T: ToJson, P: ToJson> ToJson for Patch<T, P> {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), crate::json::fast::Error> {
        match self {
            Patch::Set(v) => v.write_json(out),
            Patch::Patch(p) => p.write_json(out),
            Patch::Keep | Patch::Clear => {
                out.extend_from_slice(b"null");
                Ok(())
            }
        }
    }
}

impl ToJson for NoPatch {
    fn write_json(&self, _: &mut Vec<u8>) -> Result<(), crate::json::fast::Error> {
        match *self {}
    }
}

impl ToJson for ReplaceAll {
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), crate::json::fast::Error> {
        self.0.write_json(out)
    }
}

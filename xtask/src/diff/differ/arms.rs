//! What one side's union reader makes of what an arm of the other side's
//! union writes: the arm it reads it as, the catch-all, or a rejection.
//!
//! Arms are compared by their key (the tag, or the Rust name of an untagged
//! arm), which cannot see an arm that became tagged or untagged, nor an
//! object that an untagged arm of the other side also accepts. This module
//! answers those by reading: it builds what a writer's arm always puts in
//! its objects (the discriminator, the properties its payload requires and
//! their one-value types) and runs the reader's choice of arm on it, as a
//! JSON Schema reader of `anyOf` would: the arm named by the discriminator,
//! else the catch-all, else the first untagged arm whose payload accepts the
//! object.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::model::{EnumValue, Union, Variant};

/// What an arm's objects always carry.
#[derive(Debug, Default)]
pub(super) struct Written {
    /// Properties with a one-value type (the discriminator among them).
    consts: BTreeMap<String, String>,
    /// Every property the arm's objects always carry.
    required: BTreeSet<String>,
}

/// What a reader does with an object of the other side's arm.
#[derive(Debug, Clone, Copy)]
pub(super) enum Read<'v> {
    /// Read as this arm.
    Arm(&'v Variant),
    /// Kept whole as unknown (an open union's catch-all).
    CatchAll,
    /// Not accepted: the holder of the union fails.
    Rejected,
}

impl<'a> Differ<'a> {
    fn defs(&self, side: Side) -> &BTreeMap<&'a str, &'a Def> {
        match side {
            Side::Old => &self.old,
            Side::New => &self.new,
        }
    }

    /// The object definition a payload type names on one side (through
    /// aliases and newtypes).
    fn struct_of(&self, t: &Type, side: Side) -> Option<&'a crate::model::Struct> {
        let mut t = t.clone();
        for _ in 0..8 {
            let Type::Ref(n) = &t else { return None };
            let d = self.defs(side).get(n.as_str())?;
            match &d.kind {
                Kind::Struct(s) => return Some(s),
                Kind::Alias(a) => t = Type::Ref(a.clone()),
                Kind::Newtype(inner) => t = inner.clone(),
                _ => return None,
            }
        }
        None
    }

    /// The one string value a type allows (a one-value closed enum), if so
    /// (through at most eight aliases: a cycle of them allows nothing).
    fn one_value(&self, t: &Type, side: Side) -> Option<String> {
        let Type::Ref(mut n) = t.clone() else { return None };
        for _ in 0..8 {
            match &self.defs(side).get(n.as_str())?.kind {
                Kind::Enum(e) if e.fallback.is_none() && e.variants.len() == 1 => {
                    return match &e.variants[0].value {
                        EnumValue::Str(s) => Some(s.clone()),
                        _ => None,
                    };
                }
                Kind::Alias(a) => n = a.clone(),
                _ => return None,
            }
        }
        None
    }

    /// What the objects of arm `v` of union `u` on `side` always carry;
    /// `None` when its payload is not an object the model describes.
    pub(super) fn written(&self, u: &Union, v: &Variant, side: Side) -> Option<Written> {
        let mut w = Written::default();
        if let (Some(t), Some(tag)) = (&u.tag, &v.tag) {
            w.consts.insert(t.property.clone(), tag.clone());
            w.required.insert(t.property.clone());
        }
        match &v.payload {
            Payload::Unit => {}
            Payload::NoTag => {}
            Payload::Type(t) => {
                let s = self.struct_of(t, side)?;
                for f in s.fields.iter().filter(|f| f.required) {
                    w.required.insert(f.name.clone());
                    if let Some(c) = self.one_value(&f.ty, side) {
                        w.consts.insert(f.name.clone(), c);
                    }
                }
            }
        }
        Some(w)
    }

    /// Whether an untagged arm's payload on `side` accepts an object that
    /// carries `w`: every property it requires is there, and every
    /// one-value property it declares has its value when present.
    fn accepts(&self, v: &Variant, w: &Written, side: Side) -> bool {
        match &v.payload {
            Payload::Type(t) => {
                let Some(s) = self.struct_of(t, side) else { return false };
                s.fields.iter().all(|f| {
                    let present = w.required.contains(&f.name);
                    if f.required && !present {
                        return false;
                    }
                    match (self.one_value(&f.ty, side), w.consts.get(&f.name)) {
                        (Some(want), Some(got)) => &want == got,
                        _ => true,
                    }
                }) && (s.additional != crate::model::Additional::False
                    || w.required.iter().all(|n| s.fields.iter().any(|f| &f.name == n)))
            }
            Payload::Unit | Payload::NoTag => true,
        }
    }

    /// What the reader of union `u` on `side` does with an object that
    /// carries `w`.
    pub(super) fn read<'v>(&self, u: &'v Union, w: &Written, side: Side) -> Read<'v> {
        let untagged = |v: &&Variant| v.tag.is_none();
        match &u.tag {
            Some(t) => {
                if let Some(value) = w.consts.get(&t.property) {
                    if let Some(v) = u.variants.iter().find(|v| v.tag.as_deref() == Some(value.as_str())) {
                        return Read::Arm(v);
                    }
                    if u.catch_all.is_some() {
                        return Read::CatchAll;
                    }
                    // An untagged arm that does not name the discriminator takes any value of it.
                    return u
                        .variants
                        .iter()
                        .filter(untagged)
                        .find(|v| !matches!(v.payload, Payload::NoTag) && self.accepts(v, w, side))
                        .map_or(Read::Rejected, Read::Arm);
                }
                u.variants.iter().filter(untagged).find(|v| self.accepts(v, w, side)).map_or(Read::Rejected, Read::Arm)
            }
            None => u
                .variants
                .iter()
                .find(|v| self.accepts(v, w, side))
                .map_or(if u.catch_all.is_some() { Read::CatchAll } else { Read::Rejected }, Read::Arm),
        }
    }
}

//! One item for a definition whose unstable shape only adds to its stable
//! shape: the fields and union arms only the unstable schema has are gated
//! one by one (`#[cfg(feature = "unstable")]` on the field, the variant and
//! each place that names them) instead of writing the whole item twice.
//!
//! The rule ([`merge`]): the two shapes, descriptions and pointers aside,
//! are the same but for fields and arms the unstable shape adds, the stable
//! ones keep their order, an added field is optional (so `new` and `Default`
//! are the same in both builds), an added arm of a tagged union has a
//! discriminator value (so `tag()`, the missing-discriminator path and the
//! closed union's order stay as they are in the stable build), an added arm's
//! payload type is no other arm's (so the `From` impls are the same in both
//! builds), and every decision the plan took about the common parts is the same
//! in both files (representation, read rule and boxing of each field, boxed
//! arms, direct decoding, order, scalar); a field's `default` may differ
//! (it is documentation: the docs give both). The same holds for every inline
//! item (the inline items of both shapes, in order, with the same names).
//! Anything else (a field whose type changed, a removed arm) keeps the two
//! whole copies, each behind its cfg.
//!
//! The item is rendered from the unstable shape with the stable shape's
//! descriptions for what both have (as an item equal in both is), and its
//! `schemars` fragment is each build's own.

use std::collections::{BTreeMap, BTreeSet};

use super::Decisions;
use crate::model::*;

/// The element key of a struct's flattened union, for its description.
pub const FLATTEN: &str = "(flatten)";

/// What the plan records for the items rendered once ([`merge`]), by
/// (definition name, element): the element is a field's wire name or a union
/// arm's variant name, and `""` for the definition itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// The fields and arms only the unstable build has.
    pub unstable_only: BTreeSet<(String, String)>,
    /// The stable schema's description of everything both builds have.
    pub stable_docs: BTreeMap<(String, String), Option<String>>,
    /// The stable schema's `default` of a field whose `default` (documented,
    /// never applied) differs in the unstable schema.
    pub stable_defaults: BTreeMap<(String, String), Option<serde_json::Value>>,
}

/// The merge of `stable` and `unstable` (the same definition in the two
/// schema files, with the plan's decisions about each file), or `None` when
/// the shapes differ in another way than added fields and arms and changed
/// `default`s.
pub fn merge(stable: &Def, unstable: &Def, sd: &Decisions, ud: &Decisions) -> Option<Merged> {
    let mut out = Merged::default();
    merge_into(stable, unstable, sd, ud, &mut out)?;
    Some(out)
}

fn merge_into(s: &Def, u: &Def, sd: &Decisions, ud: &Decisions, out: &mut Merged) -> Option<()> {
    let same = |a: &Def, b: &Def| {
        (&a.name, &a.rust_name, &a.method, a.envelope, &a.excluded)
            == (&b.name, &b.rust_name, &b.method, b.envelope, &b.excluded)
    };
    if !same(s, u) || s.upsert.is_some() || u.upsert.is_some() || s.inline.len() != u.inline.len() {
        return None;
    }
    let flags_equal = [
        (&sd.scalars, &ud.scalars),
        (&sd.ordered, &ud.ordered),
        (&sd.direct, &ud.direct),
        (&sd.recursive, &ud.recursive),
    ]
    .iter()
    .all(|(a, b)| a.contains(&s.name) == b.contains(&u.name));
    if !flags_equal {
        return None;
    }
    out.stable_docs.insert((s.name.clone(), String::new()), s.docs.clone());
    match (&s.kind, &u.kind) {
        (Kind::Struct(a), Kind::Struct(b)) => structs(s, a, b, sd, ud, out)?,
        (Kind::Union(a), Kind::Union(b)) => unions(s, a, b, sd, ud, out)?,
        (Kind::Enum(a), Kind::Enum(_)) if own(s) == own(u) => {
            for v in &a.variants {
                out.stable_docs.insert((s.name.clone(), v.rust_name.clone()), v.docs.clone());
            }
            if let Some(f) = &a.fallback {
                out.stable_docs.insert((s.name.clone(), f.rust_name.clone()), f.docs.clone());
            }
        }
        _ => {
            let (a, b) = (own(s), own(u));
            if a != b {
                return None;
            }
        }
    }
    for (a, b) in s.inline.iter().zip(&u.inline) {
        merge_into(a, b, sd, ud, out)?;
    }
    Some(())
}

/// The definition's own shape: without descriptions, pointers, references
/// and inline items (compared on their own).
fn own(d: &Def) -> Def {
    let mut d = d.without_docs();
    d.inline.clear();
    d.refs.clear();
    d
}

/// A field without its description and pointer, to compare shapes.
fn bare_field(f: &Field) -> Field {
    Field { docs: None, pointer: String::new(), ..f.clone() }
}

/// `Some` when `a`'s keys all appear in `b`, in the same order.
fn subsequence<'a>(a: &[&'a str], b: &[&'a str]) -> Option<()> {
    let mut rest = b.iter();
    a.iter().all(|k| rest.any(|x| x == k)).then_some(())
}

fn structs(def: &Def, a: &Struct, b: &Struct, sd: &Decisions, ud: &Decisions, out: &mut Merged) -> Option<()> {
    let bare = |s: &Struct| Struct { fields: Vec::new(), ..s.clone() };
    let (mut x, mut y) = (bare(a), bare(b));
    if let (Some(f), Some(g)) = (&mut x.flatten, &mut y.flatten) {
        (f.docs, g.docs) = (None, None);
    }
    if x != y {
        return None;
    }
    if let Some(fl) = &a.flatten {
        out.stable_docs.insert((def.name.clone(), FLATTEN.to_owned()), fl.docs.clone());
    }
    let (ka, kb): (Vec<&str>, Vec<&str>) =
        (a.fields.iter().map(|f| f.name.as_str()).collect(), b.fields.iter().map(|f| f.name.as_str()).collect());
    subsequence(&ka, &kb)?;
    for g in &b.fields {
        let key = (def.name.clone(), g.name.clone());
        match a.fields.iter().find(|f| f.name == g.name) {
            Some(f) => {
                // The `default` only documents the field (it is never applied
                // nor written): a changed one is told in the docs.
                let strip = |f: &Field| Field { default: None, ..bare_field(f) };
                if strip(f) != strip(g) || sd.fields.get(f) != ud.fields.get(g) {
                    return None;
                }
                if f.default != g.default {
                    out.stable_defaults.insert(key.clone(), f.default.clone());
                }
                out.stable_docs.insert(key, f.docs.clone());
            }
            None if g.required => return None,
            None => {
                out.unstable_only.insert(key);
            }
        }
    }
    Some(())
}

fn unions(def: &Def, a: &Union, b: &Union, sd: &Decisions, ud: &Decisions, out: &mut Merged) -> Option<()> {
    let strip_catch = |c: &Option<CatchAll>| {
        c.clone().map(|c| CatchAll {
            docs: None,
            tag_docs: None,
            pointer: String::new(),
            fields: c.fields.iter().map(bare_field).collect(),
            ..c
        })
    };
    if a.tag != b.tag || strip_catch(&a.catch_all) != strip_catch(&b.catch_all) {
        return None;
    }
    let (ka, kb): (Vec<&str>, Vec<&str>) = (
        a.variants.iter().map(|v| v.rust_name.as_str()).collect(),
        b.variants.iter().map(|v| v.rust_name.as_str()).collect(),
    );
    subsequence(&ka, &kb)?;
    let boxed = |d: &Decisions, v: &Variant| d.boxed_arms.contains(&(def.name.clone(), v.rust_name.clone()));
    for w in &b.variants {
        let key = (def.name.clone(), w.rust_name.clone());
        match a.variants.iter().find(|v| v.rust_name == w.rust_name) {
            Some(v) => {
                let strip = |v: &Variant| Variant { docs: None, pointer: String::new(), ..v.clone() };
                if strip(v) != strip(w) || boxed(sd, v) != boxed(ud, w) {
                    return None;
                }
                out.stable_docs.insert(key, v.docs.clone());
            }
            None if w.payload == Payload::NoTag || (a.tag.is_some() && w.tag.is_none()) => return None,
            // Its payload type is another arm's: a `From` impl would go.
            None if matches!(&w.payload, Payload::Type(_))
                && b.variants.iter().any(|o| o.rust_name != w.rust_name && o.payload == w.payload) =>
            {
                return None
            }
            None => {
                out.unstable_only.insert(key);
            }
        }
    }
    if let Some(c) = &a.catch_all {
        out.stable_docs.insert((def.name.clone(), c.rust_name.clone()), c.docs.clone());
    }
    Some(())
}

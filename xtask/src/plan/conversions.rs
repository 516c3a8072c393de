//! Which values convert into their enum with `From`: the rule is
//! [`converts`], written once here and applied to union arms
//! ([`arms_without_from`], giving [`super::Decisions::no_from`], which the
//! Rust emitter renders as `no_from`) and to the dispatch enums' payloads
//! (`payloads::converting_payloads`, giving
//! [`super::Payloads::converting_into`]).
//!
//! The rule: a value converts into the enum only when no other member of the
//! same build holds the same type, and so the conversion does not appear or
//! disappear with the `unstable` feature (which would make a feature remove
//! an impl a user relies on).

use std::collections::{BTreeMap, BTreeSet};

use super::Decisions;
use crate::model::{follow_aliases, Def, Kind, Payload, Type};

/// A type with every alias it names followed to the definition it stands for.
fn resolved(t: &Type, aliases: &BTreeMap<String, String>) -> Type {
    let mut t = t.clone();
    fn follow(t: &mut Type, aliases: &BTreeMap<String, String>) {
        match t {
            Type::Ref(r) => *r = follow_aliases(r, |n| aliases.get(n).map(String::as_str)).to_owned(),
            Type::Array { items, .. } => follow(items, aliases),
            Type::Tuple(items) => items.iter_mut().for_each(|i| follow(&mut i.ty, aliases)),
            Type::Map { values, .. } => follow(values, aliases),
            _ => {}
        }
    }
    follow(&mut t, aliases);
    t
}

/// The rule of `From`: member `i` of an enum of `n` members converts into it
/// when, in every build that has it (`in_build(member, unstable)`), it
/// stands for a type (`key(member, unstable)`: `None` for one that never
/// converts, as any JSON) that no other member of that build stands for.
pub fn converts<K: PartialEq>(
    n: usize,
    i: usize,
    in_build: impl Fn(usize, bool) -> bool,
    key: impl Fn(usize, bool) -> Option<K>,
) -> bool {
    [false, true].into_iter().filter(|&u| in_build(i, u)).all(|u| {
        let Some(k) = key(i, u) else { return false };
        (0..n).filter(|&o| in_build(o, u) && key(o, u).as_ref() == Some(&k)).count() == 1
    })
}

/// The union arms, as (union, variant's Rust name), that must be told to
/// have no `From`: the union derive sees the payload types as spelled, in
/// one build, and leaves out a conversion from a type two arms spell alike
/// by itself. An arm whose type is another arm's once aliases are followed
/// although spelled apart, or another arm's that only one of the builds has,
/// gets none either.
pub fn arms_without_from(defs: &[Def], decisions: &Decisions) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for def in defs.iter().flat_map(|d| d.walk()) {
        let Kind::Union(u) = &def.kind else { continue };
        let spelled: Vec<Option<&Type>> = u
            .variants
            .iter()
            .map(|v| match &v.payload {
                Payload::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        let resolved: Vec<Option<Type>> = spelled.iter().map(|t| t.map(|t| resolved(t, &decisions.aliases))).collect();
        fn unique<T: PartialEq>(keys: &[Option<T>], k: &Option<T>) -> bool {
            keys.iter().filter(|o| *o == k).count() == 1
        }
        let unstable_only = |name: &str| decisions.merged.unstable_only.contains(&(def.name.clone(), name.to_owned()));
        let in_build = |i: usize, unstable: bool| unstable || !unstable_only(&u.variants[i].rust_name);
        let n = u.variants.len();
        for (i, v) in u.variants.iter().enumerate() {
            let (r, s) = (&resolved[i], &spelled[i]);
            if r.is_none() || converts(n, i, in_build, |o, _| resolved[o].clone()) {
                continue;
            }
            // The derive leaves out by itself a conversion from a type two arms
            // of one build spell alike.
            let gates_differ = u
                .variants
                .iter()
                .zip(&resolved)
                .any(|(o, k)| k == r && unstable_only(&o.rust_name) != unstable_only(&v.rust_name));
            if unique(&spelled, s) || gates_differ {
                out.insert((def.name.clone(), v.rust_name.clone()));
            }
        }
    }
    out
}

//! The v1 ⇄ v2 converter generator: pairs the definitions of the two schema
//! models, classifies each pair by shape, and emits the conversions of the
//! pairs whose own shape agrees (field by field, value by value, arm by arm).
//!
//! Shapes are compared on the schema model with everything that does not
//! change the wire value removed: descriptions, titles, pointers, direction,
//! `x-method`, the upsert rules and the `x-deserialize-*` keywords (they say
//! how a reader recovers from bad input, not what a good value is).
//!
//! Property order does not count either.
//!
//! - *identical*: the definition and everything it references, transitively,
//!   have the same shape;
//! - *reference-only*: its own shape is the same, but a type it references
//!   differs (its conversion is generated and calls that type's conversion);
//! - *shape*: its own shape differs: a hand-written rule in
//!   `convert/src/` converts it.
//!
//! `schema/conversions.json` (reviewed) names the pairs whose names differ
//! (`renamed`) and the pairs that must not be converted by shape
//! (`excluded`, with the reason): those get hand-written rules too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::{Def, Kind, Payload, Type};

mod emit;
mod file;

pub use file::{generate, statuses, Status, Summary};

/// `schema/conversions.json`: the reviewed part of the pairing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    /// v1 name -> v2 name, for definitions renamed without a wire change.
    #[serde(default)]
    pub renamed: BTreeMap<String, String>,
    /// Renamed properties: v1 definition -> v1 wire name -> v2 wire name.
    #[serde(default)]
    pub fields: BTreeMap<String, BTreeMap<String, String>>,
    /// Pairs (by v1 name) converted by hand-written rules, with the reason:
    /// their shapes differ in a way the generator does not state as a rule,
    /// or they must not be converted by shape.
    #[serde(default)]
    pub hand_written: BTreeMap<String, String>,
    /// Pairs whose conversion is generated but whose messages the adapters
    /// forward only when the other side's capabilities allow, with the reason.
    #[serde(default)]
    pub gated: BTreeMap<String, String>,
    /// The v1 capability properties the adapters read: definition ->
    /// property -> what reads it. `cargo xtask diff` reports a change to
    /// their descriptions as `dangerous`.
    #[serde(default)]
    pub capabilities: BTreeMap<String, BTreeMap<String, String>>,
}

impl Config {
    /// The property renames v2 -> v1: v2 definition -> v2 wire name -> v1 wire name.
    fn reverse_fields(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        self.fields
            .iter()
            .map(|(def, m)| {
                let v2name = self.renamed.get(def).cloned().unwrap_or_else(|| def.clone());
                (v2name, m.iter().map(|(a, b)| (b.clone(), a.clone())).collect())
            })
            .collect()
    }

    /// Reads the configuration; a missing file is an empty configuration.
    pub fn read(path: &Path, label: &Path) -> Result<Config> {
        if !path.is_file() {
            return Ok(Config::default());
        }
        let json = crate::load::read_json(path, label)?;
        serde_json::from_value(json).map_err(|e| Error::Schema {
            file: label.to_path_buf(),
            pointer: String::new(),
            message: e.to_string(),
        })
    }
}

/// How a pair's shapes relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Same shape, and so is everything it references.
    Identical,
    /// Same own shape; a referenced type differs.
    RefOnly,
    /// The own shape differs.
    Shape,
}

/// One v1 definition and the v2 definition it converts to.
#[derive(Debug, Clone)]
pub struct Pair<'m> {
    pub v1: &'m Def,
    pub v2: &'m Def,
    pub class: Class,
    /// Named in `hand_written`, with the reason.
    pub excluded: Option<String>,
}

impl Pair<'_> {
    /// Whether the conversion is generated.
    pub fn generated(&self) -> bool {
        self.class != Class::Shape && self.excluded.is_none()
    }
}

/// The pairing of two models.
#[derive(Debug, Clone)]
pub struct Pairing<'m> {
    pub pairs: Vec<Pair<'m>>,
    /// v1 definitions without a v2 counterpart.
    pub v1_only: Vec<&'m Def>,
    /// v2 definitions without a v1 counterpart.
    pub v2_only: Vec<&'m Def>,
}

/// Pairs the definitions of a v1 and a v2 model (one build's view of each).
pub fn pair<'m>(v1: &'m [&'m Def], v2: &'m [&'m Def], config: &Config) -> Pairing<'m> {
    let by_name =
        |defs: &'m [&'m Def]| -> BTreeMap<&'m str, &'m Def> { defs.iter().map(|d| (d.name.as_str(), *d)).collect() };
    let (m1, m2) = (by_name(v1), by_name(v2));
    let target = |name: &str| config.renamed.get(name).map(String::as_str).unwrap_or(name).to_owned();
    // Own-shape equality, with v1 reference names mapped through the renames.
    let own_equal = |a: &Def, b: &Def| {
        let mut a = a.wire_shape();
        rename_refs(&mut a, &config.renamed);
        a.name = b.name.clone();
        a.rust_name = b.rust_name.clone();
        a == b.wire_shape()
    };
    let mut own: BTreeMap<&str, bool> = BTreeMap::new();
    let mut pairs_raw = Vec::new();
    let mut v1_only = Vec::new();
    for d in v1 {
        match m2.get(target(&d.name).as_str()) {
            Some(e) => {
                own.insert(d.name.as_str(), own_equal(d, e));
                pairs_raw.push((*d, *e));
            }
            None => v1_only.push(*d),
        }
    }
    let paired: BTreeSet<&str> = pairs_raw.iter().map(|(_, e)| e.name.as_str()).collect();
    let v2_only = v2.iter().filter(|d| !paired.contains(d.name.as_str())).copied().collect();
    // Identical: own shape equal for the definition and every definition it
    // reaches (a reference to an unpaired definition is a difference).
    let identical = |name: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![name.to_owned()];
        while let Some(n) = stack.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if own.get(n.as_str()) != Some(&true) {
                return false;
            }
            if let Some(d) = m1.get(n.as_str()) {
                stack.extend(d.walk().into_iter().flat_map(|x| x.refs.iter().cloned()));
            }
        }
        true
    };
    let pairs = pairs_raw
        .into_iter()
        .map(|(a, b)| {
            let class = if !own[a.name.as_str()] {
                Class::Shape
            } else if identical(&a.name) {
                Class::Identical
            } else {
                Class::RefOnly
            };
            Pair { v1: a, v2: b, class, excluded: config.hand_written.get(&a.name).cloned() }
        })
        .collect();
    Pairing { pairs, v1_only, v2_only }
}

fn rename_refs(d: &mut Def, renamed: &BTreeMap<String, String>) {
    fn ty(t: &mut Type, renamed: &BTreeMap<String, String>) {
        match t {
            Type::Ref(r) => {
                if let Some(n) = renamed.get(r) {
                    *r = n.clone();
                }
            }
            Type::Array { items, .. } => ty(items, renamed),
            Type::Tuple(items) => items.iter_mut().for_each(|i| ty(&mut i.ty, renamed)),
            Type::Map { values, .. } => ty(values, renamed),
            _ => {}
        }
    }
    match &mut d.kind {
        Kind::Struct(s) => s.fields.iter_mut().for_each(|f| ty(&mut f.ty, renamed)),
        Kind::Union(u) => {
            for v in &mut u.variants {
                if let Payload::Type(t) = &mut v.payload {
                    ty(t, renamed);
                }
            }
        }
        Kind::Newtype(t) => ty(t, renamed),
        Kind::Alias(a) => {
            if let Some(n) = renamed.get(a) {
                *a = n.clone();
            }
        }
        Kind::Enum(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    for r in &mut d.refs {
        if let Some(n) = renamed.get(r) {
            *r = n.clone();
        }
    }
    d.refs.sort();
    for i in &mut d.inline {
        rename_refs(i, renamed);
    }
}

/// What differs between two definitions' own shapes, one line per difference.
pub fn differences(a: &Def, b: &Def) -> Vec<String> {
    let (a, b) = (a.wire_shape(), b.wire_shape());
    let mut out = Vec::new();
    match (&a.kind, &b.kind) {
        (Kind::Struct(x), Kind::Struct(y)) => {
            for f in &x.fields {
                match y.fields.iter().find(|g| g.name == f.name) {
                    None => out.push(format!("-{}", f.name)),
                    Some(g) => {
                        let mut f2 = f.clone();
                        f2.pointer = g.pointer.clone();
                        if f2 != *g {
                            let what = if f.ty != g.ty {
                                format!("{} -> {}", f.ty.describe(), g.ty.describe())
                            } else {
                                let say = |f: &crate::model::Field| {
                                    format!(
                                        "{}{}",
                                        if f.required { "required" } else { "optional" },
                                        if f.nullable { ", nullable" } else { "" }
                                    )
                                };
                                format!("{} -> {}", say(f), say(g))
                            };
                            out.push(format!("~{} {}", f.name, what));
                        }
                    }
                }
            }
            for g in &y.fields {
                if !x.fields.iter().any(|f| f.name == g.name) {
                    out.push(format!("+{}{}", g.name, if g.required { "!" } else { "" }));
                }
            }
            if x.flatten.is_some() || y.flatten.is_some() {
                out.push("flatten".into());
            }
            if x.additional != y.additional {
                out.push(format!("additional {:?} -> {:?}", x.additional, y.additional));
            }
        }
        (Kind::Enum(x), Kind::Enum(y)) => {
            for v in &x.variants {
                if !y.variants.iter().any(|w| w.value == v.value) {
                    out.push(format!("-{}", v.value));
                }
            }
            for w in &y.variants {
                if !x.variants.iter().any(|v| v.value == w.value) {
                    out.push(format!("+{}", w.value));
                }
            }
            if x.fallback.is_some() != y.fallback.is_some() {
                out.push(format!("open {} -> {}", x.fallback.is_some(), y.fallback.is_some()));
            }
        }
        (Kind::Union(x), Kind::Union(y)) => {
            let key = |v: &crate::model::Variant| v.tag.clone().unwrap_or_else(|| v.rust_name.clone());
            for v in &x.variants {
                match y.variants.iter().find(|w| key(w) == key(v)) {
                    None => out.push(format!("-{}", key(v))),
                    Some(w) if w.payload != v.payload => {
                        let say = |p: &Payload| match p {
                            Payload::Unit => "no payload".to_owned(),
                            Payload::NoTag => "no tag".to_owned(),
                            Payload::Type(t) => t.describe(),
                        };
                        out.push(format!("~{} {} -> {}", key(v), say(&v.payload), say(&w.payload)))
                    }
                    Some(_) => {}
                }
            }
            for w in &y.variants {
                if !x.variants.iter().any(|v| key(v) == key(w)) {
                    out.push(format!("+{}", key(w)));
                }
            }
            if x.catch_all.is_some() != y.catch_all.is_some() {
                out.push(format!("open {} -> {}", x.catch_all.is_some(), y.catch_all.is_some()));
            }
            if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
                out.push("tag".into());
            }
        }
        _ => out.push(format!("kind {:?} -> {:?}", std::mem::discriminant(&a.kind), std::mem::discriminant(&b.kind))),
    }
    if a.inline != b.inline {
        out.push(format!("inline {} -> {}", a.inline.len(), b.inline.len()));
    }
    out
}

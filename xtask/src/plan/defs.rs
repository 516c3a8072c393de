//! Decisions about a whole set of definitions (one schema file's), which
//! the emitter renders: which are decoded from one JSON string, which have
//! a total order, which aliases are `pub type`s, which get
//! a direct decoder, which are boxed where they are held, and each field's
//! representation ([`Fields`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::Fields;
use crate::model::*;

/// The plan's decisions about one schema file's definitions (nested ones
/// included), by definition name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Decisions {
    /// Each definition's Rust item name (nested ones included), by schema
    /// name: the schema name, or the name lowering made when it cannot
    /// stand in Rust. Every reference is written with it.
    pub names: BTreeMap<String, String>,
    /// Decodable from one JSON string (string enums and string newtypes).
    pub scalars: BTreeSet<String>,
    /// Values with a total order and a hash: `Eq, Hash, PartialOrd, Ord`
    /// (string and integer enums, and what is made only of those, strings,
    /// integers and booleans).
    pub ordered: BTreeSet<String>,
    /// Aliases without a method, emitted as `pub type`: name -> the definition named.
    pub aliases: BTreeMap<String, String>,
    /// Given a direct decoder: what the payloads of the policy's
    /// `direct_methods` reach ([`is_direct_method`]).
    pub direct: BTreeSet<String>,
    /// Who writes each definition's decoder ([`Decoder`]), by name.
    pub decoders: BTreeMap<String, Decoder>,
    /// Who writes each definition's encoder ([`Encoder`]), by name.
    pub encoders: BTreeMap<String, Encoder>,
    /// On a cycle of values held in place: boxed wherever
    /// a struct field or a union arm holds one.
    pub recursive: BTreeSet<String>,
    /// Union arms whose payload is boxed, as (union, variant's Rust name):
    /// by the policy (`boxed_arms` in `schema/rust.json`: rare and large
    /// payloads), or because the payload is on a cycle.
    pub boxed_arms: BTreeSet<(String, String)>,
    /// The decoding rule of an integer newtype's value whose bounds are
    /// tighter than its Rust type's, by definition name.
    pub values: BTreeMap<String, super::ReadRule>,
    /// Union arms, as (union, variant's Rust name), given no `From`
    /// conversion into their union ([`super::conversions::arms_without_from`];
    /// set with the gates, once the plan has merged the builds).
    pub no_from: BTreeSet<(String, String)>,
    /// Each struct field's representation.
    #[serde(skip)]
    pub fields: Fields,
    /// What is gated in the items rendered once for both builds (set by
    /// [`super::Plan::version`] on the unstable file's decisions, which render them).
    #[serde(skip)]
    pub merged: super::Merged,
}

impl Decisions {
    /// The decisions about `defs` (top-level definitions of one schema file).
    pub fn of<'a>(defs: impl IntoIterator<Item = &'a Def>) -> Decisions {
        let defs: Vec<&Def> = defs.into_iter().collect();
        let all: Vec<&Def> = defs.iter().flat_map(|d| d.walk()).collect();
        let objects: BTreeSet<String> =
            all.iter().filter(|d| matches!(d.kind, Kind::Struct(_) | Kind::Union(_))).map(|d| d.name.clone()).collect();
        let recursive = recursive_defs(&all);
        let scalars = all.iter().filter(|d| is_string_scalar(d)).map(|d| d.name.clone()).collect();
        // An integer newtype's value, and a string newtype's with string rules, is read
        // as a required field at the definition's pointer.
        let values = all
            .iter()
            .filter_map(|d| match &d.kind {
                Kind::Newtype(t @ (Type::Integer { .. } | Type::String { .. })) => {
                    let rule = super::ReadRule::of(&super::value_field(d, t), &scalars);
                    (!rule.is_plain()).then(|| (d.name.clone(), rule))
                }
                _ => None,
            })
            .collect();
        Decisions {
            names: all.iter().map(|d| (d.name.clone(), d.rust_name.clone())).collect(),
            fields: Fields::of(defs, &super::Sets { objects: &objects, recursive: &recursive, scalars: &scalars }),
            scalars,
            ordered: ordered_defs(&all),
            aliases: all
                .iter()
                .filter_map(|d| match &d.kind {
                    Kind::Alias(a) if d.method.is_none() => Some((d.name.clone(), a.clone())),
                    _ => None,
                })
                .collect(),
            direct: direct_defs(&all),
            decoders: all.iter().map(|d| (d.name.clone(), Decoder::of(d))).collect(),
            encoders: all.iter().map(|d| (d.name.clone(), Encoder::of(Decoder::of(d)))).collect(),
            boxed_arms: boxed_arms(&all, &recursive),
            values,
            recursive,
            merged: super::Merged::default(),
            no_from: BTreeSet::new(),
        }
    }
}

/// Who writes a definition's decoder (its serde visitor and, for the
/// definitions in [`Decisions::direct`], its direct decoder).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decoder {
    /// `#[derive(serde::Deserialize)]`: a struct that keeps no property its
    /// schema does not name (`additionalProperties: false`, a typed rest, or a
    /// flattened union whose arms keep them).
    SerdeDerive,
    /// `#[derive(AcpDeserialize)]`: a struct that keeps unknown properties;
    /// `acp-bindings-codegen` writes its visitor and its direct decoder.
    AcpDeserialize,
    /// An upsert's wire patch: `#[derive(AcpPatch)]` on its state struct writes it.
    AcpPatch,
    /// A `pub type` alias: the definition it names decodes.
    Alias,
    /// `#[derive(AcpUnion)]`: a union; `acp-bindings-codegen` writes its
    /// serializer, visitors and direct decoder.
    AcpUnion,
    /// `#[derive(AcpEnum)]`: a string or integer enum, written as unions are.
    AcpEnum,
    /// `#[derive(AcpString)]`: a string newtype (an identifier).
    AcpString,
    /// Written by the emitter: newtypes, method aliases, any JSON.
    Emitted,
}

/// Who writes a definition's encoder: its `Serialize` and, where it has
/// one, its direct encoder (`json::fast::ToJson`, which
/// `acp_bindings::json::to_string` runs instead of serde's calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoder {
    /// `#[derive(serde::Serialize)]`, no direct encoder: a struct with a
    /// typed rest or a flattened union, which serde's derive writes through
    /// its flattening serializer.
    SerdeDerive,
    /// `#[derive(AcpSerialize)]`: a struct that keeps unknown properties
    /// (also an upsert's wire patch); `acp-bindings-codegen` writes its
    /// `Serialize` (serde's derive, field for field) and its direct encoder
    /// (each key pre-quoted, the unknown properties after the known ones).
    AcpSerialize,
    /// `#[derive(AcpUnion)]`: its `Serialize` and direct encoder.
    AcpUnion,
    /// `#[derive(AcpEnum)]`: its `Serialize` and, for a string enum, a
    /// direct encoder writing each known value as pre-quoted bytes.
    AcpEnum,
    /// `#[derive(AcpString)]`: its `Serialize` and direct encoder.
    AcpString,
    /// A `pub type` alias: the definition it names encodes.
    Alias,
    /// Written by the emitter (serde's derive or a `Serialize` impl): no
    /// direct encoder; a direct encoder holding one writes it through serde.
    Emitted,
}

impl Encoder {
    /// The encoder that goes with a definition's decoder.
    fn of(decoder: Decoder) -> Encoder {
        match decoder {
            Decoder::AcpDeserialize | Decoder::AcpPatch => Encoder::AcpSerialize,
            Decoder::SerdeDerive => Encoder::SerdeDerive,
            Decoder::AcpUnion => Encoder::AcpUnion,
            Decoder::AcpEnum => Encoder::AcpEnum,
            Decoder::AcpString => Encoder::AcpString,
            Decoder::Alias => Encoder::Alias,
            Decoder::Emitted => Encoder::Emitted,
        }
    }
}

impl Decoder {
    fn of(d: &Def) -> Decoder {
        match &d.kind {
            Kind::Struct(_) if d.upsert.is_some() => Decoder::AcpPatch,
            Kind::Struct(s) if super::Rest::of(s) == super::Rest::Extra => Decoder::AcpDeserialize,
            Kind::Struct(_) => Decoder::SerdeDerive,
            Kind::Alias(_) if d.method.is_none() => Decoder::Alias,
            Kind::Union(_) => Decoder::AcpUnion,
            Kind::Enum(_) => Decoder::AcpEnum,
            Kind::Newtype(Type::String { .. }) => Decoder::AcpString,
            _ => Decoder::Emitted,
        }
    }
}

/// Whether payloads of `method` (and everything they reach) get a direct
/// decoder: the policy's `direct_methods` (`schema/rust.json`; the
/// session-update notification, the stream of a prompt turn).
pub fn is_direct_method(method: &str) -> bool {
    crate::policy::policy().direct_methods.iter().any(|d| d.method == method)
}

/// The definitions (inline ones included) that get a direct decoder.
pub(crate) fn direct_defs(all: &[&Def]) -> BTreeSet<String> {
    let by_name: BTreeMap<&str, &Def> = all.iter().map(|d| (d.name.as_str(), *d)).collect();
    let mut todo: Vec<&Def> =
        all.iter().filter(|d| d.method.as_ref().is_some_and(|m| is_direct_method(&m.name))).copied().collect();
    let mut out = BTreeSet::new();
    while let Some(d) = todo.pop() {
        for w in d.walk() {
            if out.insert(w.name.clone()) {
                todo.extend(w.refs.iter().filter_map(|r| by_name.get(r.as_str())));
            }
        }
    }
    out
}

/// The definitions that hold themselves in place, directly or through a
/// cycle of references: a struct field (optional or not) or a union arm of
/// the definition's own type, a newtype or alias of it, a flattened union.
/// Lists and maps hold their items on the heap and break no cycle's need. A
/// Rust type cannot contain itself, so such a definition is boxed wherever a
/// struct field or a union arm holds it (`Option<Box<Node>>`), which breaks
/// every cycle.
pub(crate) fn recursive_defs(all: &[&Def]) -> std::collections::BTreeSet<String> {
    let edges: BTreeMap<&str, Vec<&str>> = all
        .iter()
        .map(|d| {
            fn held<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
                if let Type::Ref(r) = t {
                    out.push(r.as_str());
                }
            }
            let mut out = Vec::new();
            match &d.kind {
                Kind::Struct(s) => {
                    s.fields.iter().for_each(|f| held(&f.ty, &mut out));
                    if let Some(fl) = &s.flatten {
                        out.push(fl.union.as_str());
                    }
                }
                Kind::Union(u) => {
                    for v in &u.variants {
                        if let Payload::Type(t) = &v.payload {
                            held(t, &mut out);
                        }
                    }
                }
                Kind::Newtype(t) => held(t, &mut out),
                Kind::Alias(a) => out.push(a.as_str()),
                Kind::Enum(_) | Kind::Any | Kind::Opaque(_) => {}
            }
            (d.name.as_str(), out)
        })
        .collect();
    let mut recursive = std::collections::BTreeSet::new();
    for d in all {
        // Does `d` reach itself?
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<&str> = edges.get(d.name.as_str()).cloned().unwrap_or_default();
        while let Some(n) = todo.pop() {
            if n == d.name {
                recursive.insert(d.name.clone());
                break;
            }
            if seen.insert(n) {
                todo.extend(edges.get(n).into_iter().flatten());
            }
        }
    }
    recursive
}

/// The definitions whose values have a total order and a hash: string and
/// integer enums and newtypes, and newtypes, aliases and closed unions made of
/// those, strings, integers, booleans, lists and maps of them. Numbers
/// (`f64`), any JSON and objects (which keep unknown properties) have none.
pub(crate) fn ordered_defs(all: &[&Def]) -> std::collections::BTreeSet<String> {
    fn ty(t: &Type, set: &std::collections::BTreeSet<String>) -> bool {
        match t {
            Type::String { .. } | Type::Char | Type::Base64 | Type::Integer { .. } | Type::Boolean | Type::Null => true,
            Type::Number { .. } | Type::Any | Type::Object => false,
            Type::Ref(r) => set.contains(r),
            Type::Array { items, .. } => ty(items, set),
            Type::Tuple(items) => items.iter().all(|i| ty(&i.ty, set)),
            Type::Map { values, .. } => ty(values, set),
        }
    }
    let mut set = std::collections::BTreeSet::new();
    loop {
        let before = set.len();
        for d in all {
            let ok = match &d.kind {
                Kind::Enum(_) => true,
                Kind::Newtype(t) => ty(t, &set),
                Kind::Alias(a) => set.contains(a),
                Kind::Union(u) => {
                    u.catch_all.is_none()
                        && u.variants.iter().all(|v| match &v.payload {
                            Payload::Type(t) => ty(t, &set),
                            Payload::Unit | Payload::NoTag => true,
                        })
                }
                Kind::Struct(_) | Kind::Any | Kind::Opaque(_) => false,
            };
            if ok {
                set.insert(d.name.clone());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// A definition decodable from one JSON string.
pub(crate) fn is_string_scalar(d: &Def) -> bool {
    matches!(&d.kind, Kind::Enum(e) if e.repr == EnumRepr::String)
        || matches!(&d.kind, Kind::Newtype(Type::String { .. }))
}

/// The union arms whose payload is boxed ([`Decisions::boxed_arms`]).
fn boxed_arms(all: &[&Def], recursive: &BTreeSet<String>) -> BTreeSet<(String, String)> {
    let policy = &crate::policy::policy().boxed_arms;
    let mut out = BTreeSet::new();
    for def in all {
        let Kind::Union(u) = &def.kind else { continue };
        for v in &u.variants {
            let by_policy = v.tag.as_deref().is_some_and(|t| policy.iter().any(|b| b.union == def.name && b.arm == t));
            let on_cycle = matches!(&v.payload, Payload::Type(Type::Ref(r)) if recursive.contains(r));
            if by_policy || on_cycle {
                out.insert((def.name.clone(), v.rust_name.clone()));
            }
        }
    }
    out
}

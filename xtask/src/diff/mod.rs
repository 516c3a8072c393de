//! `cargo xtask diff OLD NEW`: what changed between two schema revisions, in
//! protocol terms, classified by who it breaks.
//!
//! The diff compares schema models ([`crate::model`]), not JSON: definitions,
//! properties, enum values and union arms, requiredness, nullability, types
//! (with formats, bounds and patterns), openness, the `x-deserialize-*`
//! keywords, methods and sides, upsert rules and descriptions.
//!
//! Either peer may upgrade first, so each change is judged in both orders
//! and the worse verdict is reported, naming the peers that have not upgraded
//! and stop working with an upgraded one:
//!
//! - old senders, new readers: a peer on the old schema sends, a peer on the
//!   new schema reads (a property the new schema requires is missing);
//! - new senders, old readers: the reverse (a value the old schema does not
//!   know arrives).
//!
//! Levels: `breaking` (a conforming peer fails to decode or misreads what the
//! other sends in normal use), `dangerous` (decoding succeeds but data is
//! dropped, degraded or read differently), `compatible`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

mod report;
mod sides;
pub use report::{github, line_of, markdown, read_accepted};
pub use sides::{diff_sides, load_side, resolve_side};

use crate::model::{Additional, Def, Field, Kind, Module, Payload, Peer, Type};

/// Every change kind a report can hold (the `kind` of [`Change`]).
pub const KINDS: &[&str] = &[
    "additional_properties_changed",
    "array_rules_changed",
    "bounds_changed",
    "capability_description_changed",
    "definition_added",
    "definition_removed",
    "definition_renamed",
    "description_changed",
    "enum_openness_changed",
    "enum_value_added",
    "enum_value_removed",
    "field_added",
    "field_nullability_changed",
    "field_removed",
    "field_requiredness_changed",
    "field_type_changed",
    "format_changed",
    "leniency_changed",
    "method_added",
    "method_changed",
    "method_removed",
    "min_items_changed",
    "not_understood",
    "patch_description_changed",
    "patch_semantics_changed",
    "string_rule_changed",
    "type_changed",
    "union_arm_added",
    "union_arm_changed",
    "union_arm_removed",
    "union_openness_changed",
    "union_tag_changed",
];

/// How bad a change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    Compatible,
    Dangerous,
    Breaking,
}

impl Level {
    /// The spelling in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Compatible => "compatible",
            Level::Dangerous => "dangerous",
            Level::Breaking => "breaking",
        }
    }
}

/// Which schema a change's pointer points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Old,
    New,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The worse verdict of the two upgrade orders.
    pub level: Level,
    /// What changed (`field_added`, `enum_value_removed`, ...).
    pub kind: &'static str,
    /// The definition it is in.
    pub def: String,
    /// JSON pointer into the schema file of `side`.
    pub pointer: String,
    /// The side `pointer` points into (`old` for removals).
    pub side: Side,
    /// The peers that have not upgraded and stop working (`old clients`).
    pub breaks: Vec<String>,
    /// Why, in one line.
    pub reason: String,
    /// What it does to the generated Rust.
    pub rust: String,
    /// Stable across unrelated edits (no pointer or description in it).
    pub fingerprint: String,
    /// The first method that carries the definition (`session/update`), or
    /// `types` for a definition no method reaches.
    pub area: String,
    /// What the revision does to the v1 ⇄ v2 conversion of the definition,
    /// when both sides hold both versions (see [`ConversionChange`]).
    pub convert: Option<String>,
}

/// A v1 ⇄ v2 pair whose conversion changes between the two revisions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConversionChange {
    /// The v1 definition (none: only v2 has it on one side).
    pub v1: Option<String>,
    /// The v2 definition.
    pub v2: Option<String>,
    /// In a few words: `newly possible`, `no longer possible`, `becomes
    /// lossy`, `becomes lossless`, `needs a hand-written rule`, `changes`.
    pub effect: &'static str,
    /// How it converted on the old side.
    pub was: String,
    /// How it converts on the new side.
    pub now: String,
}

impl ConversionChange {
    fn label(&self) -> String {
        match (&self.v1, &self.v2) {
            (Some(a), Some(b)) if a == b => format!("`{a}`"),
            (Some(a), Some(b)) => format!("`{a}` ⇄ `{b}`"),
            (Some(a), None) => format!("`{a}` (v1)"),
            (None, Some(b)) => format!("`{b}` (v2)"),
            (None, None) => String::new(),
        }
    }
}

/// The whole diff of two schema files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub old: String,
    pub new: String,
    pub summary: Summary,
    pub changes: Vec<Change>,
    /// v1 ⇄ v2 conversions of this file's definitions that change (empty
    /// when a side is a lone file: the other version is unknown).
    pub conversions: Vec<ConversionChange>,
}

/// Counts by level.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub breaking: usize,
    pub dangerous: usize,
    pub compatible: usize,
}

fn peer(p: Peer) -> &'static str {
    match p {
        Peer::Agent => "agents",
        Peer::Client => "clients",
        Peer::Proxy => "proxies",
        Peer::Conductor => "conductors",
    }
}

/// FNV-1a, 64 bits: a stable fingerprint.
fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A change judged in both upgrade orders.
struct Verdict {
    /// Old senders, new readers.
    old_to_new: Level,
    /// New senders, old readers.
    new_to_old: Level,
}

impl Verdict {
    fn same(l: Level) -> Verdict {
        Verdict { old_to_new: l, new_to_old: l }
    }
}

/// An upsert's state, key and the rules of the properties both sides have.
type UpsertRules = (String, Option<String>, Vec<(String, String)>);

struct Differ<'a> {
    /// Definitions renamed without a wire change: old name -> new name.
    renames: BTreeMap<String, String>,
    old: BTreeMap<&'a str, &'a Def>,
    new: BTreeMap<&'a str, &'a Def>,
    changes: Vec<Change>,
    /// Capability properties the adapters read (`capabilities` of `schema/conversions.json`).
    capabilities: &'a BTreeMap<String, BTreeMap<String, String>>,
}

impl<'a> Differ<'a> {
    /// Who sends and reads a definition (from both models).
    fn peers(&self, name: &str) -> (Vec<Peer>, Vec<Peer>) {
        let mut s = BTreeSet::new();
        let mut r = BTreeSet::new();
        for d in [self.old.get(name), self.new.get(name)].into_iter().flatten() {
            s.extend(d.direction.sent_by.iter().copied());
            r.extend(d.direction.read_by.iter().copied());
        }
        (s.into_iter().collect(), r.into_iter().collect())
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        def: &str,
        kind: &'static str,
        subject: &str,
        (side, pointer): (Side, &str),
        v: Verdict,
        reason: String,
        rust: &str,
    ) {
        debug_assert!(KINDS.contains(&kind), "change kind `{kind}` missing from KINDS");
        let (senders, readers) = self.peers(def);
        let mut breaks = BTreeSet::new();
        if v.old_to_new > Level::Compatible {
            breaks.extend(senders.iter().map(|p| format!("old {}", peer(*p))));
        }
        if v.new_to_old > Level::Compatible {
            breaks.extend(readers.iter().map(|p| format!("old {}", peer(*p))));
        }
        let level = v.old_to_new.max(v.new_to_old);
        let area = [self.new.get(def), self.old.get(def)]
            .into_iter()
            .flatten()
            .find_map(|d| d.direction.uses.first().map(|u| u.method.clone()))
            .unwrap_or_else(|| "types".into());
        self.changes.push(Change {
            area,
            level,
            kind,
            def: def.to_owned(),
            pointer: pointer.to_owned(),
            side,
            breaks: breaks.into_iter().collect(),
            reason,
            rust: rust.to_owned(),
            fingerprint: fingerprint(&[kind, def, subject, level.as_str()]),
            convert: None,
        });
    }

    /// The level at which a reader on one side rejects a value of definition
    /// `name` it does not know: `dangerous` when every property that holds
    /// it in that side's model absorbs the failure
    /// (`x-deserialize-default-on-error` on the property, or
    /// `x-deserialize-skip-invalid-items` on a list of it), else `breaking`.
    fn reader_level(&self, name: &str, side: Side) -> Level {
        let defs = match side {
            Side::Old => &self.old,
            Side::New => &self.new,
        };
        let mut holders = 0;
        for d in defs.values() {
            let refers = |t: &Type| matches!(t, Type::Ref(r) if r == name);
            let names = |t: &Type| {
                let mut v = Vec::new();
                t.refs(&mut v);
                v.contains(&name)
            };
            match &d.kind {
                Kind::Struct(s) => {
                    for f in &s.fields {
                        let absorbed = match &f.ty {
                            t if refers(t) => f.default_on_error,
                            Type::Array { items, .. } if refers(items) => f.default_on_error || f.skip_invalid_items,
                            Type::Map { values, .. } if refers(values) => f.default_on_error,
                            _ => continue,
                        };
                        if !absorbed {
                            return Level::Breaking;
                        }
                        holders += 1;
                    }
                }
                Kind::Union(u) if u.variants.iter().any(|v| payload_ref(v).is_some_and(names)) => {
                    return Level::Breaking;
                }
                Kind::Newtype(t) if names(t) => return Level::Breaking,
                Kind::Alias(a) if a == name => return Level::Breaking,
                _ => {}
            }
        }
        if holders > 0 {
            Level::Dangerous
        } else {
            Level::Breaking
        }
    }

    /// Whether two types differ only by a definition rename (reported once, as the rename).
    fn renamed_type(&self, a: &Type, b: &Type) -> bool {
        match (a, b) {
            (Type::Ref(x), Type::Ref(y)) => self.renames.get(x) == Some(y),
            (
                Type::Array { items: x, min_items: m, max_items: mx, unique_items: u, nullable_items: xn },
                Type::Array { items: y, min_items: n, max_items: nx, unique_items: v, nullable_items: yn },
            ) => (m, mx, u, xn) == (n, nx, v, yn) && self.renamed_type(x, y),
            (Type::Tuple(x), Type::Tuple(y)) => {
                x.len() == y.len()
                    && x.iter().zip(y).all(|(x, y)| x.nullable == y.nullable && self.renamed_type(&x.ty, &y.ty))
            }
            (Type::Map { values: x, nullable_values: xn }, Type::Map { values: y, nullable_values: yn }) => {
                xn == yn && self.renamed_type(x, y)
            }
            _ => false,
        }
    }

    fn def(&mut self, a: &Def, b: &Def) {
        let name = b.name.as_str();
        if a.method != b.method {
            let (was, is) = (method_label(a), method_label(b));
            self.push(
                name,
                "method_changed",
                "",
                (Side::New, &b.pointer),
                Verdict::same(Level::Breaking),
                format!("the payload's method changed from {was} to {is}: peers on the old schema call or handle the old one"),
                "the METHOD/SIDE constants and the dispatch enums change",
            );
        }
        // Upsert rules of properties both sides have (a new property's rule
        // comes with the property, reported as added).
        let rules = |d: &Def, other: &Def| -> Option<UpsertRules> {
            let u = d.upsert.as_ref()?;
            let has = |n: &str| matches!(&other.kind, Kind::Struct(s) if s.fields.iter().any(|f| f.name == n));
            let fields = u.fields.iter().filter(|(k, _)| has(k)).map(|(k, r)| (k.clone(), format!("{r:?}"))).collect();
            Some((u.state.clone(), u.key.clone(), fields))
        };
        if rules(a, b) != rules(b, a) {
            self.push(
                name,
                "patch_semantics_changed",
                "",
                (Side::New, &b.pointer),
                Verdict::same(Level::Dangerous),
                "the upsert rules changed: peers apply the same message differently".into(),
                "the state struct and the patch type change",
            );
        }
        match (&a.kind, &b.kind) {
            // A definition the generator does not understand on either side
            // (lenient lowering): any change to it is for a reviewer to judge.
            (Kind::Opaque(_), _) | (_, Kind::Opaque(_)) => {
                let schema = |d: &Def| match &d.kind {
                    Kind::Opaque(o) => Some(o.schema.clone()),
                    _ => None,
                };
                let (x, y) = (schema(a), schema(b));
                if x.is_some() && x == y {
                    return;
                }
                let reason = [b, a]
                    .into_iter()
                    .find_map(|d| match &d.kind {
                        Kind::Opaque(o) => Some(o.reason.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                self.push(
                    name,
                    "not_understood",
                    "",
                    (Side::New, &b.pointer),
                    Verdict::same(Level::Dangerous),
                    format!("not understood: {reason}"),
                    "the generator cannot lower the definition: `codegen` refuses it (`--lenient` previews make it `serde_json::Value`)",
                );
                return;
            }
            (Kind::Struct(x), Kind::Struct(y)) => self.structure(a, x, b, y),
            (Kind::Enum(x), Kind::Enum(y)) => self.enumeration(a, x, b, y),
            (Kind::Union(x), Kind::Union(y)) => self.union(a, x, b, y),
            (x, y) if std::mem::discriminant(x) != std::mem::discriminant(y) || x != y => {
                if same_shape(a, b) {
                    return self.docs(a, b);
                }
                self.push(
                    name,
                    "type_changed",
                    "",
                    (Side::New, &b.pointer),
                    Verdict::same(Level::Breaking),
                    format!("the definition changed from {} to {}", kind_label(&a.kind), kind_label(&b.kind)),
                    "the item's shape changes: code using it stops compiling",
                );
                return;
            }
            _ => {}
        }
        self.docs(a, b);
    }

    fn docs(&mut self, a: &Def, b: &Def) {
        if a.docs != b.docs {
            let (kind, level, reason) = doc_change(a, b, None, self.capabilities);
            self.push(&b.name, kind, "", (Side::New, &b.pointer), Verdict::same(level), reason, "documentation only");
        }
    }

    fn structure(&mut self, a: &Def, x: &crate::model::Struct, b: &Def, y: &crate::model::Struct) {
        let name = b.name.as_str();
        for f in &y.fields {
            match x.fields.iter().find(|g| g.name == f.name) {
                None => {
                    let (v, why) = if f.required {
                        (
                            Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                            "a required property was added: the new schema's readers reject messages without it",
                        )
                    } else {
                        (Verdict::same(Level::Compatible), "an optional property was added")
                    };
                    let v = if x.additional == Additional::False {
                        Verdict { new_to_old: Level::Dangerous, ..v }
                    } else {
                        v
                    };
                    self.push(
                        name,
                        "field_added",
                        &f.name,
                        (Side::New, &f.pointer),
                        v,
                        format!("`{}`: {why}", f.name),
                        "a new field",
                    );
                }
                Some(g) => self.field(name, g, f),
            }
        }
        for g in &x.fields {
            if !y.fields.iter().any(|f| f.name == g.name) {
                let (v, why) = if g.required {
                    (
                        Verdict { old_to_new: Level::Compatible, new_to_old: Level::Breaking },
                        "a required property was removed: the old schema's readers reject messages without it",
                    )
                } else {
                    (
                        Verdict { old_to_new: Level::Compatible, new_to_old: Level::Dangerous },
                        "an optional property was removed: the old schema's readers no longer get it",
                    )
                };
                self.push(
                    name,
                    "field_removed",
                    &g.name,
                    (Side::Old, &g.pointer),
                    v,
                    format!("`{}`: {why}", g.name),
                    "a field is removed: code using it stops compiling",
                );
            }
        }
        if x.additional != y.additional {
            let v = match (x.additional, y.additional) {
                (_, Additional::False) => Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                _ => Verdict { old_to_new: Level::Compatible, new_to_old: Level::Dangerous },
            };
            self.push(
                name,
                "additional_properties_changed",
                "",
                (Side::New, &b.pointer),
                v,
                format!(
                    "`additionalProperties` changed from {} to {}",
                    additional(x.additional),
                    additional(y.additional)
                ),
                "whether unknown properties are kept changes",
            );
        } else if x.rest != y.rest {
            // Both typed, with another type: what one side writes the other refuses.
            let describe = |t: &Option<Type>| t.as_ref().map(Type::describe).unwrap_or_default();
            self.push(
                name,
                "additional_properties_changed",
                "",
                (Side::New, &b.pointer),
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Breaking },
                format!(
                    "the type of the properties `properties` does not name changed ({} -> {})",
                    describe(&x.rest),
                    describe(&y.rest)
                ),
                "the type of `additional_properties` changes: code using it may stop compiling",
            );
        }
        // A property whose schema became, or stopped being, `false`.
        for (from, to, forbids) in [(x, y, true), (y, x, false)] {
            for n in to.forbidden.iter().filter(|n| !from.forbidden.contains(n)) {
                let (v, why) = if forbids {
                    (
                        Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                        "its schema is now `false`: the new schema's readers reject a message that has it",
                    )
                } else {
                    (
                        Verdict { old_to_new: Level::Compatible, new_to_old: Level::Breaking },
                        "its schema was `false`: the old schema's readers reject a message that has it",
                    )
                };
                let at = format!("{}/properties/{}", b.pointer, crate::lower::escape(n));
                self.push(
                    name,
                    "field_type_changed",
                    n,
                    (Side::New, &at),
                    v,
                    format!("`{n}`: {why}"),
                    "no field holds a property that must be absent",
                );
            }
        }
        let _ = a;
    }

    fn field(&mut self, def: &str, g: &Field, f: &Field) {
        let at = (Side::New, f.pointer.as_str());
        let n = &f.name;
        if g.required != f.required {
            let v = if f.required {
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible }
            } else {
                Verdict { old_to_new: Level::Compatible, new_to_old: Level::Breaking }
            };
            let why = if f.required {
                "became required: old senders may omit it"
            } else {
                "became optional: the old schema's readers require it"
            };
            self.push(
                def,
                "field_requiredness_changed",
                n,
                at,
                v,
                format!("`{n}` {why}"),
                "the field's Rust type changes between `T` and `Option<T>`: code using it stops compiling",
            );
        }
        if g.nullable != f.nullable {
            let v = if f.nullable {
                // New senders may send `null`; an old reader rejects it unless lenient.
                Verdict { old_to_new: Level::Compatible, new_to_old: lenient(g) }
            } else {
                Verdict { old_to_new: lenient(f), new_to_old: Level::Compatible }
            };
            let why = if f.nullable { "may now be `null`" } else { "may no longer be `null`" };
            self.push(
                def,
                "field_nullability_changed",
                n,
                at,
                v,
                format!("`{n}` {why}"),
                "the field's Rust type changes (`Nullable<T>` / `Option<T>`): code using it may stop compiling",
            );
        }
        if g.ty != f.ty && !self.renamed_type(&g.ty, &f.ty) {
            let (v, kind, why, rust) = type_change(g, f);
            self.push(def, kind, n, at, v, format!("`{n}`: {why}"), rust);
        }
        for (flag, was, is) in [
            ("x-deserialize-default-on-error", g.default_on_error, f.default_on_error),
            ("x-deserialize-skip-invalid-items", g.skip_invalid_items, f.skip_invalid_items),
            ("x-deserialize-default-on-null", g.default_on_null, f.default_on_null),
        ] {
            if was != is {
                let (v, why) = if is {
                    (Verdict::same(Level::Compatible), format!("`{n}` gained `{flag}`: readers are more lenient"))
                } else {
                    (
                        Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                        format!("`{n}` lost `{flag}`: values the old schema's readers tolerated now fail the message"),
                    )
                };
                self.push(
                    def,
                    "leniency_changed",
                    &format!("{n}:{flag}"),
                    at,
                    v,
                    why,
                    "decoding of the field changes; its type does not",
                );
            }
        }
        if g.docs != f.docs {
            let (a, b) = (self.old[def], self.new[def]);
            let (kind, level, reason) = doc_change(a, b, Some(n), self.capabilities);
            self.push(def, kind, n, at, Verdict::same(level), format!("`{n}`: {reason}"), "documentation only");
        }
    }

    fn enumeration(&mut self, a: &Def, x: &crate::model::Enum, b: &Def, y: &crate::model::Enum) {
        let name = b.name.as_str();
        let (old_open, new_open) = (x.fallback.is_some(), y.fallback.is_some());
        for v in &y.variants {
            if !x.variants.iter().any(|w| w.value == v.value) {
                let (verdict, why) = if old_open {
                    (
                        Verdict::same(Level::Compatible),
                        "a value was added to an open enum: old readers keep it as unknown",
                    )
                } else {
                    let l = self.reader_level(name, Side::Old);
                    (
                        Verdict { old_to_new: Level::Compatible, new_to_old: l },
                        if l == Level::Breaking {
                            "a value was added to a closed enum: the old schema's readers reject it"
                        } else {
                            "a value was added to a closed enum: the old schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                        },
                    )
                };
                self.push(
                    name,
                    "enum_value_added",
                    &v.value.to_string(),
                    (Side::New, &v.pointer),
                    verdict,
                    format!("{}: {why}", v.value),
                    "a new variant (the enum is #[non_exhaustive]: matches outside the crate already have a wildcard)",
                );
            }
        }
        for w in &x.variants {
            if !y.variants.iter().any(|v| v.value == w.value) {
                let (verdict, why) = if new_open {
                    (
                        Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                        "a value was removed: the new schema's readers keep it only as unknown",
                    )
                } else {
                    let l = self.reader_level(name, Side::New);
                    (
                        Verdict { old_to_new: l, new_to_old: Level::Compatible },
                        if l == Level::Breaking {
                            "a value was removed from a closed enum: the new schema's readers reject it"
                        } else {
                            "a value was removed from a closed enum: the new schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                        },
                    )
                };
                self.push(
                    name,
                    "enum_value_removed",
                    &w.value.to_string(),
                    (Side::Old, &w.pointer),
                    verdict,
                    format!("{}: {why}", w.value),
                    "a variant is removed: code naming it stops compiling",
                );
            }
        }
        if old_open != new_open {
            let (verdict, why) = if new_open {
                (Verdict::same(Level::Compatible), "the enum became open: unknown values are kept")
            } else {
                (
                    Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                    "the enum became closed: values the old schema allowed are rejected",
                )
            };
            self.push(
                name,
                "enum_openness_changed",
                "",
                (Side::New, &b.pointer),
                verdict,
                why.into(),
                "the fallback variant is added or removed",
            );
        }
        self.docs(a, b);
    }

    fn union(&mut self, a: &Def, x: &crate::model::Union, b: &Def, y: &crate::model::Union) {
        let name = b.name.as_str();
        let key = |v: &crate::model::Variant| v.tag.clone().unwrap_or_else(|| v.rust_name.clone());
        let (old_open, new_open) = (x.catch_all.is_some(), y.catch_all.is_some());
        for v in &y.variants {
            match x.variants.iter().find(|w| key(w) == key(v)) {
                None => {
                    let (verdict, why) = if old_open {
                        (
                            Verdict::same(Level::Compatible),
                            "an arm was added to an open union: old readers keep it whole as unknown",
                        )
                    } else {
                        let l = self.reader_level(name, Side::Old);
                        (
                            Verdict { old_to_new: Level::Compatible, new_to_old: l },
                            if l == Level::Breaking {
                                "an arm was added to a closed union: the old schema's readers reject it"
                            } else {
                                "an arm was added to a closed union: the old schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                            },
                        )
                    };
                    self.push(
                        name,
                        "union_arm_added",
                        &key(v),
                        (Side::New, &v.pointer),
                        verdict,
                        format!("`{}`: {why}", key(v)),
                        "a new variant (#[non_exhaustive])",
                    );
                }
                Some(w) if payload_ref(w) != payload_ref(v) => match (payload_ref(w), payload_ref(v)) {
                    (Some(t1), Some(t2)) => {
                        let (verdict, kind, why, rust) = type_change_of(t1, t2, Level::Breaking, Level::Breaking);
                        let (kind, rust) = if kind == "field_type_changed" {
                            ("union_arm_changed", "the variant's payload type changes: code using it stops compiling")
                        } else {
                            (kind, rust)
                        };
                        self.push(
                            name,
                            kind,
                            &key(v),
                            (Side::New, &v.pointer),
                            verdict,
                            format!("arm `{}`: {why}", key(v)),
                            rust,
                        );
                    }
                    _ => self.push(
                        name,
                        "union_arm_changed",
                        &key(v),
                        (Side::New, &v.pointer),
                        Verdict::same(Level::Breaking),
                        format!("`{}`: the arm's payload changed", key(v)),
                        "the variant's payload type changes: code using it stops compiling",
                    ),
                },
                Some(_) => {}
            }
        }
        for w in &x.variants {
            if !y.variants.iter().any(|v| key(v) == key(w)) {
                let (verdict, why) = if new_open {
                    (
                        Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                        "an arm was removed: the new schema's readers keep it only as unknown",
                    )
                } else {
                    let l = self.reader_level(name, Side::New);
                    (
                        Verdict { old_to_new: l, new_to_old: Level::Compatible },
                        if l == Level::Breaking {
                            "an arm was removed from a closed union: the new schema's readers reject it"
                        } else {
                            "an arm was removed from a closed union: the new schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                        },
                    )
                };
                self.push(
                    name,
                    "union_arm_removed",
                    &key(w),
                    (Side::Old, &w.pointer),
                    verdict,
                    format!("`{}`: {why}", key(w)),
                    "a variant is removed: code naming it stops compiling",
                );
            }
        }
        if old_open != new_open {
            let (verdict, why) = if new_open {
                (Verdict::same(Level::Compatible), "the union became open: unknown arms are kept whole")
            } else {
                (
                    Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                    "the union became closed: arms the old schema allowed are rejected",
                )
            };
            self.push(
                name,
                "union_openness_changed",
                "",
                (Side::New, &b.pointer),
                verdict,
                why.into(),
                "the catch-all variant is added or removed",
            );
        }
        if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
            self.push(
                name,
                "union_tag_changed",
                "",
                (Side::New, &b.pointer),
                Verdict::same(Level::Breaking),
                "the union's discriminator changed".into(),
                "decoding of the union changes",
            );
        }
        self.docs(a, b);
    }
}

/// A description change: `description_changed` (compatible) unless the
/// configuration gives the text meaning. The upsert rules of
/// `schema/upserts.json` are written from the descriptions of the upserts and
/// their properties, and the adapters' capability gating from those of the
/// capability properties listed in `capabilities` of
/// `schema/conversions.json`: a new text there may mean the peers now apply
/// or advertise something differently, with no structural change, so it is
/// `dangerous` until a reviewer has checked the configuration against it.
fn doc_change(
    a: &Def,
    b: &Def,
    field: Option<&str>,
    capabilities: &BTreeMap<String, BTreeMap<String, String>>,
) -> (&'static str, Level, String) {
    // `_meta`'s text is the same boilerplate everywhere; its rule is fixed.
    // A change of punctuation, case or line breaks only says nothing new.
    let text = |d: &Def| -> Option<String> {
        let docs = match field {
            None => d.docs.clone(),
            Some(f) => match &d.kind {
                Kind::Struct(s) => s.fields.iter().find(|x| x.name == f).and_then(|x| x.docs.clone()),
                _ => None,
            },
        };
        docs.map(|t| {
            t.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        })
    };
    if field == Some("_meta") || text(a) == text(b) {
        return ("description_changed", Level::Compatible, "the description changed".into());
    }
    let rule = |d: &Def| {
        d.upsert.as_ref().and_then(|u| match field {
            None => Some("the upsert".to_owned()),
            Some(f) if u.key.as_deref() == Some(f) => Some("the upsert's key".to_owned()),
            Some(f) => u.fields.get(f).map(|r| format!("a property with the upsert rule {}", rule_label(r))),
        })
    };
    if let Some(what) = rule(b).or_else(|| rule(a)) {
        return (
            "patch_description_changed",
            Level::Dangerous,
            format!(
                "the description of {what} changed: check that schema/upserts.json still says what omitted, `null` and a value mean"
            ),
        );
    }
    if field.is_none()
        && b.upsert.is_none()
        && crate::upserts::speaks_of_patches(b.docs.as_deref())
        && !crate::upserts::speaks_of_patches(a.docs.as_deref())
    {
        return (
            "patch_description_changed",
            Level::Dangerous,
            "the description now speaks of patch semantics, but schema/upserts.json has no entry: it is generated as a plain struct".into(),
        );
    }
    if let Some(reader) = field.and_then(|f| capabilities.get(&b.name)?.get(f)) {
        return (
            "capability_description_changed",
            Level::Dangerous,
            format!("the description of a capability the adapters read changed ({reader}): check that they still read it right"),
        );
    }
    ("description_changed", Level::Compatible, "the description changed".into())
}

fn rule_label(r: &crate::model::Rule) -> String {
    use crate::model::Rule;
    match r {
        Rule::Replace => "`replace`".into(),
        Rule::List => "`list`".into(),
        Rule::ByKey => "`by_key`".into(),
        Rule::Required => "`required`".into(),
        Rule::Reset { .. } => "`reset`".into(),
    }
}

fn payload_ref(v: &crate::model::Variant) -> Option<&Type> {
    match &v.payload {
        Payload::Type(t) => Some(t),
        _ => None,
    }
}

/// A reader's verdict on a value it does not accept: `dangerous` if the field
/// is `x-deserialize-default-on-error` (the value becomes the default and the
/// rest of the message survives), else `breaking`.
fn lenient(reader: &Field) -> Level {
    if reader.default_on_error {
        Level::Dangerous
    } else {
        Level::Breaking
    }
}

/// The verdict on a property's type change.
fn type_change(g: &Field, f: &Field) -> (Verdict, &'static str, String, &'static str) {
    type_change_of(&g.ty, &f.ty, lenient(g), lenient(f))
}

/// The verdict on a type change; `old_reader` / `new_reader` are the level of
/// a value the old / new reader does not accept (see [`lenient`]).
fn type_change_of(
    a: &Type,
    b: &Type,
    old_reader: Level,
    new_reader: Level,
) -> (Verdict, &'static str, String, &'static str) {
    let lenient_old = old_reader;
    let lenient_new = new_reader;
    let wire_same = |x: &Type, y: &Type| -> bool {
        // Formats are documentation; a string extracted into a named string
        // type is the same on the wire (the diff of the named type says more).
        match (x, y) {
            (
                Type::String { min_length: m1, max_length: x1, pattern: p1, .. },
                Type::String { min_length: m2, max_length: x2, pattern: p2, .. },
            ) => (m1, x1, p1) == (m2, x2, p2),
            _ => false,
        }
    };
    if wire_same(a, b) {
        return (
            Verdict::same(Level::Compatible),
            "format_changed",
            format!("the format changed ({} -> {})", Type::describe(a), Type::describe(b)),
            "documentation only",
        );
    }
    match (a, b) {
        (
            Type::String { min_length: m1, max_length: x1, pattern: p1, .. },
            Type::String { min_length: m2, max_length: x2, pattern: p2, .. },
        ) => {
            // A rule only one side checks: the side that checks it rejects what the other allows.
            let shorter = |x: &Option<u64>, y: &Option<u64>| x.is_some_and(|x| y.is_none_or(|y| x < y));
            let tighter_new = m2.unwrap_or(0) > m1.unwrap_or(0) || shorter(x2, x1) || (p2.is_some() && p2 != p1);
            let tighter_old = m1.unwrap_or(0) > m2.unwrap_or(0) || shorter(x1, x2) || (p1.is_some() && p1 != p2);
            let v = Verdict {
                old_to_new: if tighter_new { lenient_new } else { Level::Compatible },
                new_to_old: if tighter_old { lenient_old } else { Level::Compatible },
            };
            (
                v,
                "string_rule_changed",
                format!("the string's rules changed ({} -> {})", Type::describe(a), Type::describe(b)),
                "decoding checks different rules; the type does not change",
            )
        }
        (
            Type::Array { items: i1, min_items: m1, max_items: x1, unique_items: u1, nullable_items: n1 },
            Type::Array { items: i2, min_items: m2, max_items: x2, unique_items: u2, nullable_items: n2 },
        ) if i1 == i2 && n1 == n2 => {
            // Each rule narrows what the side that states it accepts.
            let fewer = |x: &Option<u64>, y: &Option<u64>| x.is_some_and(|x| y.is_none_or(|y| x < y));
            let tighter_new = m2.unwrap_or(0) > m1.unwrap_or(0) || fewer(x2, x1) || (*u2 && !u1);
            let tighter_old = m1.unwrap_or(0) > m2.unwrap_or(0) || fewer(x1, x2) || (*u1 && !u2);
            let v = Verdict {
                old_to_new: if tighter_new { lenient_new } else { Level::Compatible },
                new_to_old: if tighter_old { lenient_old } else { Level::Compatible },
            };
            if (x1, u1) == (x2, u2) {
                (
                    v,
                    "min_items_changed",
                    format!("minItems changed ({} -> {})", Type::describe(a), Type::describe(b)),
                    "documentation only (`minItems` is not checked on decode)",
                )
            } else {
                (
                    v,
                    "array_rules_changed",
                    format!("the list's rules changed ({} -> {})", Type::describe(a), Type::describe(b)),
                    "documentation only (`minItems`, `maxItems` and `uniqueItems` are not checked on decode)",
                )
            }
        }
        (Type::Integer { format: f1, min: lo1, max: hi1 }, Type::Integer { format: f2, min: lo2, max: hi2 }) => {
            let (r1, r2) = (f1.range(), f2.range());
            let lo = |l: &Option<i128>, r: (i128, i128)| l.unwrap_or(r.0).max(r.0);
            let hi = |h: &Option<i128>, r: (i128, i128)| h.unwrap_or(r.1).min(r.1);
            let narrower = lo(lo2, r2) > lo(lo1, r1) || hi(hi2, r2) < hi(hi1, r1);
            let wider = lo(lo2, r2) < lo(lo1, r1) || hi(hi2, r2) > hi(hi1, r1);
            let v = Verdict {
                old_to_new: if narrower { lenient_new } else { Level::Compatible },
                new_to_old: if wider { lenient_old } else { Level::Compatible },
            };
            let rust = if f1 == f2 {
                "decoding checks different bounds; the type does not change"
            } else {
                "the field's integer type changes: code using it may stop compiling"
            };
            (v, "bounds_changed", format!("the range changed ({} -> {})", Type::describe(a), Type::describe(b)), rust)
        }
        _ => (
            Verdict { old_to_new: lenient_new, new_to_old: lenient_old },
            "field_type_changed",
            format!("the type changed from {} to {}", Type::describe(a), Type::describe(b)),
            "the field's type changes: code using it stops compiling",
        ),
    }
}

fn additional(a: Additional) -> &'static str {
    match a {
        Additional::Absent => "not stated (other properties allowed)",
        Additional::True => "`true`",
        Additional::False => "`false` (other properties rejected)",
        Additional::Typed => "a schema (other properties typed)",
    }
}

fn kind_label(k: &Kind) -> &'static str {
    match k {
        Kind::Struct(_) => "an object",
        Kind::Enum(_) => "an enum",
        Kind::Union(_) => "a union",
        Kind::Newtype(_) => "a named type",
        Kind::Alias(_) => "an alias",
        Kind::Any => "any JSON",
        Kind::Opaque(_) => "a definition the generator does not understand",
    }
}

/// Whether two definitions have the same wire shape (the converter's
/// comparison: descriptions, titles, pointers, `x-` keywords and property
/// order do not count).
fn same_shape(a: &Def, b: &Def) -> bool {
    let (mut x, y) = (crate::convert::shape(a), crate::convert::shape(b));
    x.name.clone_from(&y.name);
    x.rust_name.clone_from(&y.rust_name);
    x == y
}

fn method_label(d: &Def) -> String {
    match &d.method {
        Some(m) => format!("`{}` ({:?}, handled by {})", m.name, m.kind, m.side),
        None => "none".into(),
    }
}

/// Whether a definition holds nothing but `_meta` (shape alone says nothing about a rename).
fn meta_only(d: &Def) -> bool {
    matches!(&d.kind, Kind::Struct(s) if s.fields.iter().all(|f| f.name == "_meta"))
}

/// The diff of two models of the same schema file.
pub fn diff(old: &Module, new: &Module) -> Report {
    diff_with(old, new, &crate::convert::Config::default())
}

/// [`diff`] with the project's conversion configuration (which capability
/// properties the adapters read).
pub fn diff_with(old: &Module, new: &Module, config: &crate::convert::Config) -> Report {
    // JSON-RPC envelopes (`x-docs-ignore`) and what is inline in them only
    // repeat their payloads' changes (a new method is a new arm there): the
    // payload definitions carry the root change.
    let walk =
        |m: &'_ Module| -> Vec<Def> { m.defs.iter().filter(|d| !d.envelope).flat_map(Def::walk).cloned().collect() };
    let (od, nd) = (walk(old), walk(new));
    let mut d = Differ {
        renames: BTreeMap::new(),
        old: od.iter().map(|x| (x.name.as_str(), x)).collect(),
        new: nd.iter().map(|x| (x.name.as_str(), x)).collect(),
        changes: Vec::new(),
        capabilities: &config.capabilities,
    };
    let removed: Vec<&Def> = od.iter().filter(|x| !d.new.contains_key(x.name.as_str())).collect();
    let added: Vec<&Def> = nd.iter().filter(|x| !d.old.contains_key(x.name.as_str())).collect();
    // Renames: a removed and an added definition of the same wire shape (not
    // inferred for definitions holding only `_meta`).
    let mut renamed: Vec<(&Def, &Def)> = Vec::new();
    for r in &removed {
        if meta_only(r) {
            continue;
        }
        let same: Vec<&&Def> = added.iter().filter(|a| same_shape(a, r) && a.method == r.method).collect();
        if let [a] = same.as_slice() {
            if !renamed.iter().any(|(_, b)| b.name == a.name) {
                renamed.push((r, a));
            }
        }
    }
    d.renames = renamed.iter().map(|(r, a)| (r.name.clone(), a.name.clone())).collect();
    for (r, a) in &renamed {
        d.push(
            &a.name,
            "definition_renamed",
            &r.name,
            (Side::New, &a.pointer),
            Verdict::same(Level::Compatible),
            format!("`{}` was renamed `{}` (the same on the wire)", r.name, a.name),
            "the item is renamed: code naming it stops compiling",
        );
    }
    for r in removed.iter().filter(|r| !renamed.iter().any(|(x, _)| x.name == r.name)) {
        match &r.method {
            Some(m) => d.push(
                &r.name,
                "method_removed",
                &m.name,
                (Side::Old, &r.pointer),
                Verdict::same(Level::Breaking),
                format!("the {:?} of `{}` was removed: old peers call or answer it", m.kind, m.name).to_lowercase(),
                "the payload type and its dispatch variant are removed",
            ),
            None => d.push(
                &r.name,
                "definition_removed",
                "",
                (Side::Old, &r.pointer),
                Verdict::same(Level::Compatible),
                format!("`{}` was removed (what referenced it is reported where it changed)", r.name),
                "the item is removed: code naming it stops compiling",
            ),
        }
    }
    for a in added.iter().filter(|a| !renamed.iter().any(|(_, x)| x.name == a.name)) {
        match &a.method {
            Some(m) => d.push(
                &a.name,
                "method_added",
                &m.name,
                (Side::New, &a.pointer),
                Verdict::same(Level::Compatible),
                format!("the {:?} of `{}` was added", m.kind, m.name).to_lowercase(),
                "a new payload type and dispatch variant",
            ),
            None => d.push(
                &a.name,
                "definition_added",
                "",
                (Side::New, &a.pointer),
                Verdict::same(Level::Compatible),
                format!("`{}` was added", a.name),
                "a new item",
            ),
        }
    }
    for b in &nd {
        if let Some(a) = d.old.get(b.name.as_str()).copied() {
            d.def(a, b);
        }
    }
    let mut changes = d.changes;
    changes.sort_by(|x, y| {
        y.level.cmp(&x.level).then(x.def.cmp(&y.def)).then(x.kind.cmp(y.kind)).then(x.pointer.cmp(&y.pointer))
    });
    let summary = Summary {
        breaking: changes.iter().filter(|c| c.level == Level::Breaking).count(),
        dangerous: changes.iter().filter(|c| c.level == Level::Dangerous).count(),
        compatible: changes.iter().filter(|c| c.level == Level::Compatible).count(),
    };
    Report { old: old.source.clone(), new: new.source.clone(), summary, changes, conversions: Vec::new() }
}

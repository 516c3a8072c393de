//! Comparing two models definition by definition: each change judged in both
//! upgrade orders on the wire, and on its own axis for the generated Rust.

use std::collections::{BTreeMap, BTreeSet};

use super::judge::*;
use super::wire;
use super::{fingerprint, peer, Change, Level, Rust, RustLevel, Side, KINDS};
use crate::model::{Additional, Def, Field, Kind, Payload, Peer, Type};

mod arms;
mod choices;
mod fields;

/// An upsert's state, key and the rules of the properties both sides have.
type UpsertRules = (String, Option<String>, Vec<(String, String)>);

pub(super) struct Differ<'a> {
    /// Definitions paired across a name change: old name -> new name.
    pub(super) renames: BTreeMap<String, String>,
    pub(super) old: BTreeMap<&'a str, &'a Def>,
    pub(super) new: BTreeMap<&'a str, &'a Def>,
    pub(super) changes: Vec<Change>,
    /// Capability properties the adapters read (`capabilities` of `schema/conversions.json`).
    capabilities: &'a BTreeMap<String, BTreeMap<String, String>>,
    /// Methods whose name changed (old, new) with the payload definitions
    /// that moved with them (old, new): reported once per method.
    method_renames: BTreeMap<(String, String), Vec<(String, String)>>,
    /// The names of both sides, which obligations in prose are read with.
    vocabulary: super::obligation::Vocabulary,
}

impl<'a> Differ<'a> {
    pub(super) fn new(
        old: &'a [Def],
        new: &'a [Def],
        capabilities: &'a BTreeMap<String, BTreeMap<String, String>>,
    ) -> Differ<'a> {
        Differ {
            renames: BTreeMap::new(),
            old: old.iter().map(|x| (x.name.as_str(), x)).collect(),
            new: new.iter().map(|x| (x.name.as_str(), x)).collect(),
            changes: Vec::new(),
            capabilities,
            method_renames: BTreeMap::new(),
            vocabulary: super::obligation::Vocabulary::of(old.iter().chain(new)),
        }
    }

    /// The old side's name of a definition named `name` on the new side.
    fn old_name<'n>(&'n self, name: &'n str) -> &'n str {
        self.renames.iter().find(|(_, n)| n.as_str() == name).map_or(name, |(o, _)| o.as_str())
    }

    /// The definition named `name` (new side first, then the old side).
    fn either(&self, name: &str) -> Option<&'a Def> {
        self.new.get(name).or_else(|| self.old.get(self.old_name(name))).copied()
    }

    /// Who sends and reads a definition (from both models).
    fn peers(&self, name: &str) -> (Vec<Peer>, Vec<Peer>) {
        let mut s = BTreeSet::new();
        let mut r = BTreeSet::new();
        for d in [self.old.get(self.old_name(name)), self.new.get(name)].into_iter().flatten() {
            s.extend(d.direction.sent_by.iter().copied());
            r.extend(d.direction.read_by.iter().copied());
        }
        (s.into_iter().collect(), r.into_iter().collect())
    }

    /// The generated items a change touches: the definition's item, and the
    /// field or variant `member` names in it.
    fn items(&self, def: &str, member: &str) -> Vec<String> {
        let Some(d) = self.either(def) else {
            return Vec::new();
        };
        let item = d.rust_name.clone();
        if member.is_empty() {
            return vec![item];
        }
        let member = member.split(':').next().unwrap_or(member);
        let sides = [self.new.get(def), self.old.get(self.old_name(def))];
        for x in sides.into_iter().flatten() {
            let found = match &x.kind {
                Kind::Struct(s) => s.fields.iter().find(|f| f.name == member).map(|f| f.rust_name.clone()),
                Kind::Enum(e) => e
                    .variants
                    .iter()
                    .find(|v| {
                        v.value.as_str() == Some(member)
                            || serde_json::to_string(&v.value).ok().as_deref() == Some(member)
                    })
                    .map(|v| v.rust_name.clone()),
                Kind::Union(u) => u
                    .variants
                    .iter()
                    .find(|v| v.tag.as_deref() == Some(member) || v.rust_name == member)
                    .map(|v| v.rust_name.clone()),
                _ => None,
            };
            if let Some(m) = found {
                return vec![format!("{item}::{m}")];
            }
        }
        vec![item]
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        def: &str,
        kind: &'static str,
        subject: &str,
        (side, pointer): (Side, &str),
        v: Verdict,
        reason: String,
        (rust, note): (RustLevel, &str),
    ) {
        let items = if rust == RustLevel::Unchanged { Vec::new() } else { self.items(def, subject) };
        self.push_with(
            def,
            kind,
            subject,
            (side, pointer),
            v,
            reason,
            Rust { level: rust, items, note: note.to_owned() },
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn push_with(
        &mut self,
        def: &str,
        kind: &'static str,
        subject: &str,
        (side, pointer): (Side, &str),
        v: Verdict,
        reason: String,
        rust: Rust,
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
        let area = [self.new.get(def), self.old.get(self.old_name(def))]
            .into_iter()
            .flatten()
            .find_map(|d| d.direction.uses.first().map(|u| u.method.clone()))
            .unwrap_or_else(|| "types".into());
        self.changes.push(Change {
            area,
            level,
            kind,
            def: def.to_owned(),
            member: subject.to_owned(),
            pointer: pointer.to_owned(),
            side,
            breaks: breaks.into_iter().collect(),
            reason,
            rust,
            fingerprint: fingerprint(&[kind, def, subject, level.as_str()]),
            convert: None,
        });
    }

    /// A change to a definition as a whole (no member), pointing at it on
    /// the new side.
    fn whole(&mut self, b: &Def, kind: &'static str, v: Verdict, reason: String, rust: (RustLevel, &str)) {
        self.push(&b.name, kind, "", (Side::New, &b.pointer), v, reason, rust);
    }

    /// One `method_renamed` change per method whose name changed (its
    /// request and response would otherwise each report it).
    pub(super) fn method_renames(&mut self) {
        for ((was, is), defs) in std::mem::take(&mut self.method_renames) {
            let Some((_, first)) = defs.first() else { continue };
            let first = first.clone();
            let Some(d) = self.new.get(first.as_str()).copied() else { continue };
            let mut items: Vec<String> = vec![format!("{}::METHOD", d.rust_name)];
            for (o, n) in &defs {
                if o != n {
                    items.push(format!("{o} -> {n}"));
                }
            }
            let note = if defs.iter().any(|(o, n)| o != n) {
                "the METHOD constants change and the payload types are renamed: code naming them stops compiling"
            } else {
                "the METHOD constants and the dispatch enums change"
            };
            self.push_with(
                &first,
                "method_renamed",
                &was,
                (Side::New, &d.pointer),
                Verdict::same(Level::Breaking),
                format!("`{was}` was renamed `{is}`: peers on the old schema call or handle the old name"),
                Rust { level: RustLevel::Breaking, items, note: note.into() },
            );
        }
    }

    /// Whether a type names a struct (on either side) whose properties are
    /// all optional.
    fn all_optional(&self, t: &Type) -> bool {
        let Type::Ref(n) = t else { return false };
        [self.new.get(n.as_str()), self.old.get(n.as_str())]
            .into_iter()
            .flatten()
            .any(|d| matches!(&d.kind, Kind::Struct(s) if s.fields.iter().all(|f| !f.required)))
    }

    /// A type with what does not change the JSON resolved, on one side.
    fn resolve(&self, t: &Type, side: Side) -> Type {
        let defs = match side {
            Side::Old => &self.old,
            Side::New => &self.new,
        };
        wire::resolve(t, &|n| defs.get(n).copied())
    }

    /// Whether an old and a new reference name one wire shape: a pairing,
    /// or two definitions written alike.
    fn same_ref(&self, x: &str, y: &str) -> bool {
        self.renames.get(x).is_some_and(|n| n == y)
            || match (self.old.get(x), self.new.get(y)) {
                (Some(a), Some(b)) => same_shape(a, b),
                _ => false,
            }
    }

    /// Whether two resolved types are one on the wire.
    fn same_wire(&self, a: &Type, b: &Type) -> bool {
        wire::same(a, b, &|x, y| self.same_ref(x, y))
    }

    /// How a reader on `side` fails on a value of definition `def` (named as
    /// on the new side) it rejects: see [`Differ::reader_level`].
    fn holder_level(&self, def: &str, side: Side) -> Level {
        match side {
            Side::Old => self.reader_level(self.old_name(def), Side::Old),
            Side::New => self.reader_level(def, Side::New),
        }
    }

    /// How a reader on `side` fails on a value of property `f` of `def` it
    /// rejects: `dangerous` when the property reads leniently
    /// (`x-deserialize-default-on-error`) or every property holding `def`
    /// absorbs the failure, else `breaking`.
    fn field_level(&self, def: &str, f: &Field, side: Side) -> Level {
        if f.default_on_error {
            Level::Dangerous
        } else {
            self.holder_level(def, side)
        }
    }

    /// The level at which a reader on one side rejects a value of definition
    /// `name` it does not know: `dangerous` when every property that holds
    /// it in that side's model absorbs the failure
    /// (`x-deserialize-default-on-error` on the property, or
    /// `x-deserialize-skip-invalid-items` on a list of it), else `breaking`.
    fn reader_level(&self, name: &str, side: Side) -> Level {
        self.reader_level_at(name, side, 0)
    }

    /// [`Differ::reader_level`]; a union arm, newtype or alias fails with
    /// the definition holding it, so their holders decide (`depth` bounds the
    /// walk up).
    fn reader_level_at(&self, name: &str, side: Side, depth: usize) -> Level {
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
            let through = match &d.kind {
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
                    false
                }
                Kind::Union(u) => u.variants.iter().any(|v| payload_ref(v).is_some_and(names)),
                Kind::Newtype(t) => names(t),
                Kind::Alias(a) => a == name,
                _ => false,
            };
            if through {
                if depth >= 8 || d.name == name || self.reader_level_at(&d.name, side, depth + 1) == Level::Breaking {
                    return Level::Breaking;
                }
                holders += 1;
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

    pub(super) fn def(&mut self, a: &Def, b: &Def) {
        let name = b.name.as_str();
        match (&a.method, &b.method) {
            // Only the name changed: a method rename, reported once for all
            // its payloads (see `method_renames`).
            (Some(m1), Some(m2)) if m1.name != m2.name && (m1.kind, m1.side) == (m2.kind, m2.side) => {
                self.method_renames
                    .entry((m1.name.clone(), m2.name.clone()))
                    .or_default()
                    .push((a.name.clone(), b.name.clone()));
            }
            _ if a.method != b.method => {
                let (was, is) = (method_label(a), method_label(b));
                self.whole(b, "method_changed", Verdict::same(Level::Breaking),
                format!("the payload's method changed from {was} to {is}: peers on the old schema call or handle the old one"),
                    (RustLevel::Breaking, "the METHOD/SIDE constants and the dispatch enums change"),
                );
            }
            _ => {}
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
            self.whole(
                b,
                "patch_semantics_changed",
                Verdict::same(Level::Dangerous),
                "the upsert rules changed: peers apply the same message differently".into(),
                (RustLevel::Breaking, "the state struct and the patch type change"),
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
                self.whole(b, "not_understood", Verdict::same(Level::Dangerous),
                    format!("not understood: {reason}"),
                    (RustLevel::Breaking, "the generator cannot lower the definition: `codegen` refuses it (`--lenient` previews make it `serde_json::Value`)"),
                );
                return;
            }
            (Kind::Struct(x), Kind::Struct(y)) => self.structure(a, x, b, y),
            (Kind::Enum(x), Kind::Enum(y)) => self.enumeration(x, b, y),
            (Kind::Union(x), Kind::Union(y)) => self.union(x, b, y),
            (Kind::Newtype(_) | Kind::Alias(_), Kind::Newtype(_) | Kind::Alias(_)) if a.kind != b.kind => {
                self.named_type(a, b);
            }
            (x, y) if std::mem::discriminant(x) != std::mem::discriminant(y) || x != y => {
                if same_shape(a, b) {
                    return self.docs(a, b);
                }
                let v = Verdict {
                    old_to_new: self.holder_level(name, Side::New),
                    new_to_old: self.holder_level(name, Side::Old),
                };
                self.whole(
                    b,
                    "type_changed",
                    v,
                    format!("the definition changed from {} to {}", kind_label(&a.kind), kind_label(&b.kind)),
                    (RustLevel::Breaking, "the item's shape changes: code using it stops compiling"),
                );
                return;
            }
            _ => {}
        }
        self.docs(a, b);
    }

    /// A named type (a newtype or an alias) whose type changed: judged on
    /// the wire after resolving what does not change the JSON.
    fn named_type(&mut self, a: &Def, b: &Def) {
        let of = |d: &Def| match &d.kind {
            Kind::Newtype(t) => t.clone(),
            Kind::Alias(n) => Type::Ref(n.clone()),
            _ => Type::Any,
        };
        let (x, y) = (of(a), of(b));
        let (wx, wy) = (self.resolve(&x, Side::Old), self.resolve(&y, Side::New));
        let rust_changed = wire::rust(&x) != wire::rust(&y) && !self.renamed_type(&x, &y);
        let rust = if rust_changed { RustLevel::Breaking } else { RustLevel::Unchanged };
        if self.same_wire(&wx, &wy) {
            if rust_changed {
                self.push(
                    &b.name,
                    "rust_type_changed",
                    "",
                    (Side::New, &b.pointer),
                    Verdict::same(Level::Compatible),
                    format!(
                        "the named type now wraps {} instead of {}: the same on the wire",
                        Type::describe(&y),
                        Type::describe(&x)
                    ),
                    (rust, "the wrapped Rust type changes: code using it may stop compiling"),
                );
            }
            return;
        }
        let (v, kind, why, note) = type_change_of(
            &wx,
            &wy,
            self.holder_level(&b.name, Side::Old),
            self.holder_level(&b.name, Side::New),
            Position::Other,
        );
        let kind = if kind == "field_type_changed" { "type_changed" } else { kind };
        self.push(&b.name, kind, "", (Side::New, &b.pointer), v, why, (rust, note));
    }

    fn docs(&mut self, a: &Def, b: &Def) {
        if a.docs != b.docs {
            let (kind, level, reason) = doc_change(a, b, None, self.capabilities, &self.vocabulary);
            self.push(
                &b.name,
                kind,
                "",
                (Side::New, &b.pointer),
                Verdict::same(level),
                reason,
                (RustLevel::Unchanged, "documentation only"),
            );
        }
    }
}

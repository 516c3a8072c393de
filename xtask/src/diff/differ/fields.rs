//! Objects compared: properties added, removed (or moved into a flattened
//! union) and changed, `additionalProperties`, properties that must be absent.

use super::*;

impl Differ<'_> {
    /// The optional property, removed in this revision from a definition
    /// both sides have, that held the old definition `removed` directly (as
    /// its type, its list's items or its map's values), when its loss is
    /// dangerous (see [`Differ::field_removed`]): `(definition, property)`.
    pub(in crate::diff) fn lost_with(&self, removed: &str) -> Option<(String, String)> {
        let holds = |t: &Type| match t {
            Type::Ref(n) => n == removed,
            Type::Array { items, .. } => matches!(&**items, Type::Ref(n) if n == removed),
            Type::Map { values, .. } => matches!(&**values, Type::Ref(n) if n == removed),
            _ => false,
        };
        for d in self.old.values() {
            let Kind::Struct(x) = &d.kind else { continue };
            let new_name = self.renames.get(&d.name).map_or(d.name.as_str(), String::as_str);
            let Some(Kind::Struct(y)) = self.new.get(new_name).map(|n| &n.kind) else { continue };
            if y.additional == Additional::True || self.peers(new_name).1.is_empty() {
                continue;
            }
            for f in x.fields.iter().filter(|f| !f.required && holds(&f.ty)) {
                if !y.fields.iter().any(|g| g.name == f.name) && self.moved_into_flatten(new_name, f, y).is_none() {
                    return Some((new_name.to_owned(), f.name.clone()));
                }
            }
        }
        None
    }

    pub(super) fn structure(&mut self, a: &Def, x: &crate::model::Struct, b: &Def, y: &crate::model::Struct) {
        let name = b.name.as_str();
        for f in &y.fields {
            match x.fields.iter().find(|g| g.name == f.name) {
                None => self.field_added(name, f, x.additional),
                Some(g) => self.field(a, b, g, f),
            }
        }
        for g in &x.fields {
            if !y.fields.iter().any(|f| f.name == g.name) {
                self.field_removed(name, g, y);
            }
        }
        self.additional_changed(b, x, y);
        self.forbidden_changed(b, x, y);
    }

    /// A property of the new struct that the old one does not have.
    fn field_added(&mut self, name: &str, f: &Field, old_additional: Additional) {
        let (v, why) = if f.required {
            (
                Verdict { old_to_new: self.holder_level(name, Side::New), new_to_old: Level::Compatible },
                "a required property was added: the new schema's readers reject messages without it",
            )
        } else {
            (Verdict::same(Level::Compatible), "an optional property was added")
        };
        let v = if old_additional == Additional::False { Verdict { new_to_old: Level::Dangerous, ..v } } else { v };
        self.push(
            name,
            "field_added",
            &f.name,
            (Side::New, &f.pointer),
            v,
            format!("`{}`: {why}", f.name),
            if f.required {
                (
                    RustLevel::Breaking,
                    "a new required field: the constructor takes it, so calls to `new` stop compiling",
                )
            } else {
                (RustLevel::Additive, "a new optional field with its builder method (the struct is #[non_exhaustive])")
            },
        );
    }

    /// A property of the old struct that the new one does not have.
    ///
    /// A required one: the old readers reject messages without it. An
    /// optional one is dangerous when a peer reads the definition: an old
    /// sender's value is dropped without a word by the upgraded reader, and
    /// an old reader that used it stops getting it. It stays compatible where
    /// the new definition keeps the members it does not name
    /// (`additionalProperties: true`): the value is carried through.
    fn field_removed(&mut self, name: &str, g: &Field, y: &crate::model::Struct) {
        let removed = "a field is removed: code using it stops compiling";
        let (v, why, note) = if let Some((v, why)) = self.moved_into_flatten(name, g, y) {
            (v, why, "the field becomes the flattened union's variants: code using it stops compiling")
        } else if g.required {
            (
                Verdict { old_to_new: Level::Compatible, new_to_old: self.holder_level(name, Side::Old) },
                "a required property was removed: the old schema's readers reject messages without it".to_owned(),
                removed,
            )
        } else if y.additional == Additional::True {
            (
                Verdict::same(Level::Compatible),
                "an optional property was removed, but the definition keeps the properties it does not name: its value is carried through".to_owned(),
                removed,
            )
        } else if self.peers(name).1.is_empty() {
            (
                Verdict::same(Level::Compatible),
                "an optional property was removed from a definition no peer reads".to_owned(),
                removed,
            )
        } else {
            (
                Verdict::same(Level::Dangerous),
                "an optional property was removed: an old sender's value is dropped without a word by upgraded readers, and old readers that used it stop getting it".to_owned(),
                removed,
            )
        };
        self.push(
            name,
            "field_removed",
            &g.name,
            (Side::Old, &g.pointer),
            v,
            format!("`{}`: {why}", g.name),
            (RustLevel::Breaking, note),
        );
    }

    /// A property that became the discriminator of the union flattened into
    /// the new struct: not lost, but its values are now the union's tags, so
    /// it is judged as the enum it was against those tags.
    fn moved_into_flatten(&self, name: &str, g: &Field, y: &crate::model::Struct) -> Option<(Verdict, String)> {
        let fl = y.flatten.as_ref()?;
        let Kind::Union(u) = &self.new.get(fl.union.as_str())?.kind else { return None };
        if u.tag.as_ref()?.property != g.name {
            return None;
        }
        let tags: BTreeSet<&str> = u.variants.iter().filter_map(|v| v.tag.as_deref()).collect();
        let old_enum = match &g.ty {
            Type::Ref(n) => match &self.old.get(n.as_str()).map(|d| &d.kind) {
                Some(Kind::Enum(e)) => Some(e),
                _ => None,
            },
            _ => None,
        };
        let Some(e) = old_enum else {
            return Some((
                Verdict::same(Level::Compatible),
                format!("moved into the flattened union `{}`, which is told apart by it", fl.union),
            ));
        };
        let values: BTreeSet<String> = e.variants.iter().filter_map(|v| v.value.as_str().map(str::to_owned)).collect();
        let added: Vec<&str> = tags.iter().copied().filter(|t| !values.contains(*t)).collect();
        let removed: Vec<&str> = values.iter().map(String::as_str).filter(|v| !tags.contains(v)).collect();
        let new_to_old = if added.is_empty() || e.fallback.is_some() {
            Level::Compatible
        } else {
            self.field_level(name, g, Side::Old)
        };
        let old_to_new = if removed.is_empty() {
            Level::Compatible
        } else if u.catch_all.is_some() {
            Level::Dangerous
        } else {
            self.holder_level(name, Side::New)
        };
        let list = |v: &[&str]| v.iter().map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ");
        let mut why = format!("moved into the flattened union `{}`, which is told apart by it", fl.union);
        if !added.is_empty() {
            why += &format!(
                "; it gains {} , which the old {} enum {}",
                list(&added),
                if e.fallback.is_some() { "open" } else { "closed" },
                match new_to_old {
                    Level::Compatible => "keeps as unknown",
                    Level::Dangerous => "readers replace with the default",
                    Level::Breaking => "readers reject",
                }
            );
        }
        if !removed.is_empty() {
            why += &format!("; it loses {}", list(&removed));
        }
        Some((Verdict { old_to_new, new_to_old }, why.replace(" ,", ",")))
    }

    /// `additionalProperties`, or the type of the properties it allows, changed.
    fn additional_changed(&mut self, b: &Def, x: &crate::model::Struct, y: &crate::model::Struct) {
        if x.additional != y.additional {
            let v = match (x.additional, y.additional) {
                (_, Additional::False) => Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                _ => Verdict { old_to_new: Level::Compatible, new_to_old: Level::Dangerous },
            };
            self.whole(
                b,
                "additional_properties_changed",
                v,
                format!(
                    "`additionalProperties` changed from {} to {}",
                    additional(x.additional),
                    additional(y.additional)
                ),
                (
                    if x.additional == Additional::False {
                        RustLevel::Additive
                    } else if y.additional == Additional::False
                        || x.additional == Additional::Typed
                        || y.additional == Additional::Typed
                    {
                        RustLevel::Breaking
                    } else {
                        RustLevel::Unchanged
                    },
                    "whether unknown properties are kept (the `additional_properties` field) changes",
                ),
            );
        } else if x.rest != y.rest {
            // Both typed, with another type: what one side writes the other refuses.
            let describe = |t: &Option<Type>| t.as_ref().map(Type::describe).unwrap_or_default();
            self.whole(
                b,
                "additional_properties_changed",
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Breaking },
                format!(
                    "the type of the properties `properties` does not name changed ({} -> {})",
                    describe(&x.rest),
                    describe(&y.rest)
                ),
                (RustLevel::Breaking, "the type of `additional_properties` changes: code using it may stop compiling"),
            );
        }
    }

    /// A property whose schema became, or stopped being, `false`.
    fn forbidden_changed(&mut self, b: &Def, x: &crate::model::Struct, y: &crate::model::Struct) {
        let name = b.name.as_str();
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
                    (RustLevel::Unchanged, "no field holds a property that must be absent"),
                );
            }
        }
    }

    fn field(&mut self, a: &Def, b: &Def, g: &Field, f: &Field) {
        let def = b.name.as_str();
        let at = (Side::New, f.pointer.as_str());
        let n = &f.name;
        if g.required != f.required {
            let v = if f.required {
                Verdict { old_to_new: self.holder_level(def, Side::New), new_to_old: Level::Compatible }
            } else {
                Verdict { old_to_new: Level::Compatible, new_to_old: self.holder_level(def, Side::Old) }
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
                (
                    RustLevel::Breaking,
                    "the field's Rust type changes between `T` and `Option<T>`: code using it stops compiling",
                ),
            );
        }
        // Any JSON includes `null`: nullability says nothing new there.
        if g.nullable != f.nullable && g.ty != Type::Any && f.ty != Type::Any {
            let v = if f.nullable {
                // New senders may send `null`; an old reader rejects it unless lenient.
                Verdict { old_to_new: Level::Compatible, new_to_old: self.field_level(def, g, Side::Old) }
            } else {
                Verdict { old_to_new: self.field_level(def, f, Side::New), new_to_old: Level::Compatible }
            };
            let why = if f.nullable { "may now be `null`" } else { "may no longer be `null`" };
            self.push(
                def,
                "field_nullability_changed",
                n,
                at,
                v,
                format!("`{n}` {why}"),
                (
                    RustLevel::Breaking,
                    "the field's Rust type changes (`Nullable<T>` / `Option<T>`): code using it may stop compiling",
                ),
            );
        }
        if g.ty != f.ty && !self.renamed_type(&g.ty, &f.ty) {
            self.field_type_changed(def, g, f);
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
                    (RustLevel::Unchanged, "decoding of the field changes; its type does not"),
                );
            }
        }
        if g.default != f.default {
            self.default_changed(def, g, f);
        }
        if g.docs != f.docs {
            let (kind, level, reason) = doc_change(a, b, Some(n), self.capabilities, &self.vocabulary);
            self.push(
                def,
                kind,
                n,
                at,
                Verdict::same(level),
                format!("`{n}`: {reason}"),
                (RustLevel::Unchanged, "documentation only"),
            );
        }
    }

    /// A property's `default` changed: what a reader takes when the property
    /// is omitted. Judged by who reads it: a sender on one schema omits the
    /// property meaning its default, a reader on the other takes its own, so
    /// both orders misread (dangerous), unless the property is required on
    /// either side (an omission is then a requiredness change, judged as
    /// such), the definition has no reader, or the defaults differ only in
    /// members of objects that one side's type does not have (the old default
    /// of a removed property, at any depth).
    fn default_changed(&mut self, def: &str, g: &Field, f: &Field) {
        let n = &f.name;
        let show = |v: &Option<serde_json::Value>| v.as_ref().map_or("none".to_owned(), |v| format!("`{v}`"));
        let (_, readers) = self.peers(def);
        let (level, why) = if g.required || f.required {
            (Level::Compatible, "the property is required on one side, so a reader there never takes a default (an omission is the requiredness change)")
        } else if readers.is_empty() {
            (Level::Compatible, "no peer reads the definition")
        } else if self.common(g.default.as_ref(), &g.ty, &f.ty) == self.common(f.default.as_ref(), &g.ty, &f.ty) {
            (Level::Compatible, "only in members of a property one side's type does not have")
        } else {
            (Level::Dangerous, "a sender that omits the property means its own schema's default, and a reader on the other schema takes the other")
        };
        self.push(
            def,
            "default_changed",
            n,
            (Side::New, &f.pointer),
            Verdict::same(level),
            format!("`{n}`: the default changed from {} to {}: {why}", show(&g.default), show(&f.default)),
            (RustLevel::Unchanged, "the item is the same; what decoding an omitted property gives may change"),
        );
    }

    /// A default as both sides read it: in an object of a definition both
    /// sides have, only the members both sides' definitions have, each read
    /// the same way in turn.
    fn common(&self, v: Option<&serde_json::Value>, old: &Type, new: &Type) -> Option<serde_json::Value> {
        let fields = |t: &Type, old_side: bool| -> Option<&[Field]> {
            let Type::Ref(r) = t else { return None };
            let d = if old_side { self.old.get(self.old_name(r)) } else { self.new.get(r.as_str()) }?;
            match &d.kind {
                crate::model::Kind::Struct(s) => Some(&s.fields),
                _ => None,
            }
        };
        match (v?, fields(old, true), fields(new, false)) {
            (serde_json::Value::Object(o), Some(a), Some(b)) => Some(serde_json::Value::Object(
                o.iter()
                    .filter_map(|(k, x)| {
                        let (fa, fb) = (a.iter().find(|f| &f.name == k)?, b.iter().find(|f| &f.name == k)?);
                        Some((k.clone(), self.common(Some(x), &fa.ty, &fb.ty)?))
                    })
                    .collect(),
            )),
            (x, _, _) => Some(x.clone()),
        }
    }

    /// A property's type changed: judged on the wire, with the Rust API on its own axis.
    fn field_type_changed(&mut self, def: &str, g: &Field, f: &Field) {
        let at = (Side::New, f.pointer.as_str());
        let n = &f.name;
        let (wg, wf) = (self.resolve(&g.ty, Side::Old), self.resolve(&f.ty, Side::New));
        let rust_changed = wire::rust(&g.ty) != wire::rust(&f.ty);
        let rust = if rust_changed { RustLevel::Breaking } else { RustLevel::Unchanged };
        if !self.same_wire(&wg, &wf) {
            let (v, kind, why, note) = type_change_of(
                &wg,
                &wf,
                self.field_level(def, g, Side::Old),
                self.field_level(def, f, Side::New),
                Position::Field,
            );
            let note = if rust_changed && rust_note_unchanged(note) {
                "the field's Rust type changes: code using it may stop compiling"
            } else {
                note
            };
            self.push(def, kind, n, at, v, format!("`{n}`: {why}"), (rust, note));
        } else if rust_changed {
            self.push(
                def,
                "rust_type_changed",
                n,
                at,
                Verdict::same(Level::Compatible),
                format!("`{n}`: {} -> {}: the same on the wire", Type::describe(&g.ty), Type::describe(&f.ty)),
                (rust, "the field's Rust type changes: code using it may stop compiling"),
            );
        } else {
            self.push(
                def,
                "format_changed",
                n,
                at,
                Verdict::same(Level::Compatible),
                format!("`{n}`: the format changed ({} -> {})", Type::describe(&g.ty), Type::describe(&f.ty)),
                (RustLevel::Unchanged, "documentation only"),
            );
        }
    }
}

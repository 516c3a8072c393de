//! Enums and unions compared: values and arms added, removed or changed,
//! openness and the discriminator.

use super::*;

impl Differ<'_> {
    pub(super) fn enumeration(&mut self, a: &Def, x: &crate::model::Enum, b: &Def, y: &crate::model::Enum) {
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
                    (RustLevel::Additive, "a new variant (the enum is #[non_exhaustive]: matches outside the crate already have a wildcard)"),
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
                    (RustLevel::Breaking, "a variant is removed: code naming it stops compiling"),
                );
            }
        }
        self.openness(name, &b.pointer, (old_open, new_open), "enum_openness_changed");
        self.docs(a, b);
    }

    pub(super) fn union(&mut self, a: &Def, x: &crate::model::Union, b: &Def, y: &crate::model::Union) {
        let name = b.name.as_str();
        let key = arm_key;
        let (old_open, new_open) = (x.catch_all.is_some(), y.catch_all.is_some());
        for v in &y.variants {
            match x.variants.iter().find(|w| key(w) == key(v)) {
                None => self.arm_added(name, v, old_open),
                Some(w) if payload_ref(w) != payload_ref(v) => self.arm_changed(name, w, v),
                Some(_) => {}
            }
        }
        for w in &x.variants {
            if !y.variants.iter().any(|v| key(v) == key(w)) {
                self.arm_removed(name, w, new_open);
            }
        }
        self.openness(name, &b.pointer, (old_open, new_open), "union_openness_changed");
        if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
            self.whole(
                b,
                "union_tag_changed",
                Verdict::same(Level::Breaking),
                "the union's discriminator changed".into(),
                (RustLevel::Unchanged, "decoding of the union changes"),
            );
        }
        self.docs(a, b);
    }
    /// An arm of the new union that the old one does not have.
    fn arm_added(&mut self, name: &str, v: &crate::model::Variant, old_open: bool) {
        let key = arm_key(v);
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
            &key,
            (Side::New, &v.pointer),
            verdict,
            format!("`{}`: {why}", key),
            (RustLevel::Additive, "a new variant (#[non_exhaustive])"),
        );
    }

    /// An arm of both unions whose payload changed.
    fn arm_changed(&mut self, name: &str, w: &crate::model::Variant, v: &crate::model::Variant) {
        let key = arm_key(v);
        match (payload_ref(w), payload_ref(v)) {
            (Some(t1), Some(t2)) => {
                let (w1, w2) = (self.resolve(t1, Side::Old), self.resolve(t2, Side::New));
                let rust_changed = wire::rust(t1) != wire::rust(t2) && !self.renamed_type(t1, t2);
                let rust = if rust_changed { RustLevel::Breaking } else { RustLevel::Unchanged };
                if self.same_wire(&w1, &w2) {
                    if rust_changed {
                        self.push(
                            name,
                            "rust_type_changed",
                            &key,
                            (Side::New, &v.pointer),
                            Verdict::same(Level::Compatible),
                            format!(
                                "arm `{}`: {} -> {}: the same on the wire",
                                key,
                                Type::describe(t1),
                                Type::describe(t2)
                            ),
                            (rust, "the variant's payload type changes: code using it may stop compiling"),
                        );
                    }
                    return;
                }
                let (verdict, kind, why, note) = type_change_of(
                    &w1,
                    &w2,
                    self.holder_level(name, Side::Old),
                    self.holder_level(name, Side::New),
                    Position::Other,
                );
                let (kind, note) = if kind == "field_type_changed" {
                    ("union_arm_changed", "the variant's payload type changes: code using it stops compiling")
                } else {
                    (kind, note)
                };
                self.push(
                    name,
                    kind,
                    &key,
                    (Side::New, &v.pointer),
                    verdict,
                    format!("arm `{}`: {why}", key),
                    (rust, note),
                );
            }
            // An arm with nothing but its tag and one whose payload
            // has optional properties only: the same JSON both ways.
            (None, Some(t)) | (Some(t), None)
                if matches!((&w.payload, &v.payload), (Payload::Unit, _) | (_, Payload::Unit))
                    && self.all_optional(t) =>
            {
                self.push(
                    name,
                    "union_arm_changed",
                    &key,
                    (Side::New, &v.pointer),
                    Verdict::same(Level::Compatible),
                    format!(
                        "`{}`: the arm gained or lost a payload of optional properties only ({}): the same JSON is valid both ways",
                        key,
                        Type::describe(t)
                    ),
                    (RustLevel::Breaking, "the variant's payload type changes: code using it stops compiling"),
                );
            }
            _ => self.push(
                name,
                "union_arm_changed",
                &key,
                (Side::New, &v.pointer),
                Verdict::same(Level::Breaking),
                format!("`{}`: the arm's payload changed", key),
                (RustLevel::Breaking, "the variant's payload type changes: code using it stops compiling"),
            ),
        }
    }

    /// An arm of the old union that the new one does not have.
    fn arm_removed(&mut self, name: &str, w: &crate::model::Variant, new_open: bool) {
        let key = arm_key(w);
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
            &key,
            (Side::Old, &w.pointer),
            verdict,
            format!("`{}`: {why}", key),
            (RustLevel::Breaking, "a variant is removed: code naming it stops compiling"),
        );
    }

    /// An enum or a union that became open (a fallback or catch-all keeps
    /// unknown values) or closed.
    fn openness(&mut self, name: &str, pointer: &str, (old_open, new_open): (bool, bool), kind: &'static str) {
        if old_open == new_open {
            return;
        }
        let (what, kept, variant) = if kind == "enum_openness_changed" {
            ("enum", "values", "fallback")
        } else {
            ("union", "arms", "catch-all")
        };
        let whole = if what == "union" { " whole" } else { "" };
        let (verdict, why) = if new_open {
            (Verdict::same(Level::Compatible), format!("the {what} became open: unknown {kept} are kept{whole}"))
        } else {
            (
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                format!("the {what} became closed: {kept} the old schema allowed are rejected"),
            )
        };
        let rust = if new_open { RustLevel::Additive } else { RustLevel::Breaking };
        let note = format!("the {variant} variant is added or removed");
        let items = if rust == RustLevel::Unchanged { Vec::new() } else { self.items(name, "") };
        self.push_with(name, kind, "", (Side::New, pointer), verdict, why, Rust { level: rust, items, note });
    }
}

/// How an arm is matched between the two unions: its tag, or its Rust name.
fn arm_key(v: &crate::model::Variant) -> String {
    v.tag.clone().unwrap_or_else(|| v.rust_name.clone())
}

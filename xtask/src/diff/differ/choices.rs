//! Enums and unions compared: values and arms added, removed or changed,
//! openness and the discriminator.

use super::arms::Read;
use super::*;
use crate::model::Variant;

impl Differ<'_> {
    pub(super) fn enumeration(&mut self, x: &crate::model::Enum, b: &Def, y: &crate::model::Enum) {
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
        for v in &y.variants {
            let Some(w) = x.variants.iter().find(|w| w.value == v.value) else { continue };
            if let Some((kind, level, why)) = member_doc_change(w.docs.as_deref(), v.docs.as_deref(), &self.vocabulary)
            {
                self.push(
                    name,
                    kind,
                    &v.value.to_string(),
                    (Side::New, &v.pointer),
                    Verdict::same(level),
                    format!("value {}: {why}", v.value),
                    (RustLevel::Unchanged, "documentation only"),
                );
            }
        }
        self.openness(name, &b.pointer, (old_open, new_open), "enum_openness_changed");
    }

    pub(super) fn union(&mut self, x: &crate::model::Union, b: &Def, y: &crate::model::Union) {
        let name = b.name.as_str();
        let key = arm_key;
        let (old_open, new_open) = (x.catch_all.is_some(), y.catch_all.is_some());
        let pairs = self.rekeyed(x, y);
        let paired_old = |w: &Variant| pairs.iter().any(|(p, _)| std::ptr::eq(*p, w));
        let paired_new = |v: &Variant| pairs.iter().any(|(_, p)| std::ptr::eq(*p, v));
        // Each arm with its counterpart: the same key, or re-keyed.
        let mut counterparts: Vec<(&Variant, &Variant)> = pairs.clone();
        for v in &y.variants {
            match x.variants.iter().find(|w| key(w) == key(v)) {
                None if paired_new(v) => {}
                None => self.arm_added(name, x, y, v, old_open),
                Some(w) => {
                    if payload_ref(w) != payload_ref(v) {
                        self.arm_changed(name, w, v);
                    }
                    counterparts.push((w, v));
                }
            }
        }
        for w in &x.variants {
            if !y.variants.iter().any(|v| key(v) == key(w)) && !paired_old(w) {
                self.arm_removed(name, x, y, w, new_open);
            }
        }
        for (w, v) in &pairs {
            self.arm_rekeyed(name, x, y, w, v);
        }
        for (w, v) in &counterparts {
            if let Some((kind, level, why)) = member_doc_change(w.docs.as_deref(), v.docs.as_deref(), &self.vocabulary)
            {
                let label = if key(w) == key(v) {
                    format!("arm `{}`", key(v))
                } else {
                    format!("arm `{}` (was `{}`)", key(v), key(w))
                };
                self.push(
                    name,
                    kind,
                    &key(v),
                    (Side::New, &v.pointer),
                    Verdict::same(level),
                    format!("{label}: {why}"),
                    (RustLevel::Unchanged, "documentation only"),
                );
            }
        }
        if let (Some(w), Some(v)) = (&x.catch_all, &y.catch_all) {
            self.catch_all_fields(name, w, v);
            if let Some((kind, level, why)) = member_doc_change(w.docs.as_deref(), v.docs.as_deref(), &self.vocabulary)
            {
                self.push(
                    name,
                    kind,
                    &v.rust_name,
                    (Side::New, &v.pointer),
                    Verdict::same(level),
                    format!("the catch-all arm `{}`: {why}", v.rust_name),
                    (RustLevel::Unchanged, "documentation only"),
                );
            }
        }
        self.openness(name, &b.pointer, (old_open, new_open), "union_openness_changed");
        if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
            self.tag_changed(b, x, y, &counterparts);
        }
    }

    /// The properties a catch-all arm declares besides the discriminator
    /// (typed, checked when present on an arm the reader does not know). One
    /// the arm no longer declares is carried as it is where the arm keeps
    /// other properties (compatible), and dropped where it does not
    /// (dangerous); one it newly requires turns away an unknown arm without it
    /// (dangerous), an optional one is checked only when present
    /// (compatible); a type changed is checked differently (dangerous).
    fn catch_all_fields(&mut self, name: &str, w: &crate::model::CatchAll, v: &crate::model::CatchAll) {
        use crate::model::Additional;
        let keeps = |a: Additional| matches!(a, Additional::Absent | Additional::True);
        let rust = (RustLevel::Unchanged, "the catch-all arm keeps an unknown arm's members as JSON");
        for g in &w.fields {
            if !v.fields.iter().any(|f| f.name == g.name) {
                let (level, why) = if keeps(v.additional) {
                    (
                        Level::Compatible,
                        "the arm keeps the properties it does not name, so the value is carried as it is",
                    )
                } else {
                    (Level::Dangerous, "the arm no longer allows other properties, so readers drop it")
                };
                let at = (Side::Old, g.pointer.as_str());
                let reason = format!("the catch-all arm no longer declares `{}`: {why}", g.name);
                self.push(name, "field_removed", &g.name, at, Verdict::same(level), reason, rust);
            }
        }
        for f in &v.fields {
            let at = (Side::New, f.pointer.as_str());
            let required = v.required.contains(&f.name);
            match w.fields.iter().find(|g| g.name == f.name) {
                None => {
                    let (level, why) = if required {
                        (Level::Dangerous, "required: an unknown arm without it is turned away by upgraded readers")
                    } else {
                        (Level::Compatible, "optional: checked only when an unknown arm carries it")
                    };
                    let reason = format!("the catch-all arm declares `{}`, {why}", f.name);
                    self.push(name, "field_added", &f.name, at, Verdict::same(level), reason, rust);
                }
                Some(g) if g.ty != f.ty || g.nullable != f.nullable => {
                    let reason = format!(
                        "the catch-all arm's `{}` changed type: an unknown arm's value is checked differently",
                        f.name
                    );
                    self.push(name, "field_type_changed", &f.name, at, Verdict::same(Level::Dangerous), reason, rust);
                }
                Some(_) => {}
            }
        }
    }

    /// Arms only one side's key names that are one arm told apart another
    /// way: an untagged arm that became tagged (or the reverse), or an
    /// untagged arm renamed, found by reading (the other side's reader takes
    /// the arm's objects as the other arm). Returns `(old, new)` pairs.
    fn rekeyed<'u>(&self, x: &'u crate::model::Union, y: &'u crate::model::Union) -> Vec<(&'u Variant, &'u Variant)> {
        let key = arm_key;
        let lone_old: Vec<&Variant> =
            x.variants.iter().filter(|w| !y.variants.iter().any(|v| key(v) == key(w))).collect();
        let lone_new: Vec<&Variant> =
            y.variants.iter().filter(|v| !x.variants.iter().any(|w| key(v) == key(w))).collect();
        let mut out: Vec<(&Variant, &Variant)> = Vec::new();
        let free = |out: &Vec<(&Variant, &Variant)>, w: &Variant, v: &Variant| {
            !out.iter().any(|(p, q)| std::ptr::eq(*p, w) || std::ptr::eq(*q, v))
        };
        let rekey = |w: &Variant, v: &Variant| w.tag.is_none() || v.tag.is_none();
        for w in &lone_old {
            let Some(written) = self.written(x, w, Side::Old) else { continue };
            if let Read::Arm(v) = self.read(y, &written, Side::New) {
                if lone_new.iter().any(|n| std::ptr::eq(*n, v)) && rekey(w, v) && free(&out, w, v) {
                    out.push((w, v));
                }
            }
        }
        for v in &lone_new {
            let Some(written) = self.written(y, v, Side::New) else { continue };
            if let Read::Arm(w) = self.read(x, &written, Side::Old) {
                if lone_old.iter().any(|o| std::ptr::eq(*o, w)) && rekey(w, v) && free(&out, w, v) {
                    out.push((w, v));
                }
            }
        }
        out
    }

    /// The level of what a reader on `side` did with an object of the
    /// other side's arm whose counterpart is `expected`, and why.
    fn reading_level(&self, def: &str, read: Read<'_>, expected: Option<&Variant>, side: Side) -> (Level, String) {
        let whose = readers(side);
        match read {
            Read::Arm(v) if expected.is_some_and(|e| std::ptr::eq(e, v)) => {
                (Level::Compatible, format!("{whose} read it as `{}`", arm_key(v)))
            }
            Read::Arm(v) => (Level::Breaking, format!("{whose} misread it as `{}`", arm_key(v))),
            Read::CatchAll => (Level::Dangerous, format!("{whose} keep it only as unknown")),
            Read::Rejected => {
                let l = self.holder_level(def, side);
                let what = if l == Level::Breaking {
                    "reject it"
                } else {
                    "replace it with the default (x-deserialize-* on every property that holds the union)"
                };
                (l, format!("{whose} {what}"))
            }
        }
    }

    /// What each side's reader makes of the other side's writer for a pair of
    /// counterpart arms: the old arm `w` read by the new union, the new arm
    /// `v` read by the old one, each with its level and why.
    fn readings(
        &self,
        name: &str,
        (x, w): (&crate::model::Union, &Variant),
        (y, v): (&crate::model::Union, &Variant),
    ) -> [(Level, String); 2] {
        // `arm` of union `from`, written on the other side, read by `to` on `side`.
        let one = |(from, arm): (&crate::model::Union, &Variant), to, expected, side: Side| {
            let written = self.written(from, arm, side.other());
            match written {
                Some(wr) => self.reading_level(name, self.read(to, &wr, side), Some(expected), side),
                None => (self.holder_level(name, side), format!("{} cannot be shown to read it", readers(side))),
            }
        };
        [one((x, w), y, v, Side::New), one((y, v), x, w, Side::Old)]
    }

    /// An arm whose key changed (see [`Differ::rekeyed`]), judged by what
    /// each side's reader makes of the other side's writer.
    fn arm_rekeyed(&mut self, name: &str, x: &crate::model::Union, y: &crate::model::Union, w: &Variant, v: &Variant) {
        let (old_key, new_key) = (arm_key(w), arm_key(v));
        let how = |u: &crate::model::Union, arm: &Variant| match (&u.tag, &arm.tag) {
            (Some(t), Some(tag)) => format!("tagged `{}: \"{tag}\"`", t.property),
            _ => "untagged".to_owned(),
        };
        let [(l1, r1), (l2, r2)] = self.readings(name, (x, w), (y, v));
        self.push(
            name,
            "union_arm_rekeyed",
            &new_key,
            (Side::New, &v.pointer),
            Verdict { old_to_new: l1, new_to_old: l2 },
            format!(
                "arm `{old_key}` ({}) is now `{new_key}` ({}): of an old peer's `{old_key}`, {r1}; of an upgraded peer's `{new_key}`, {r2}",
                how(x, w),
                how(y, v)
            ),
            (RustLevel::Breaking, "the variant is renamed: code naming it stops compiling"),
        );
    }

    /// The union's discriminator changed: judged by whether each arm's
    /// objects are still read as its counterpart by the other side's reader,
    /// through the holders of the union where they are not.
    fn tag_changed(
        &mut self,
        b: &Def,
        x: &crate::model::Union,
        y: &crate::model::Union,
        counterparts: &[(&Variant, &Variant)],
    ) {
        let name = b.name.as_str();
        let mut v = Verdict::same(Level::Compatible);
        // What went wrong, by whose peer wrote it and how it was read: the arms it happened to.
        let mut failures: Vec<((&str, String), Vec<String>)> = Vec::new();
        let mut note = |what: (&'static str, String), arm: &Variant| {
            let arm = format!("`{}`", arm_key(arm));
            match failures.iter_mut().find(|(w, _)| *w == what) {
                Some((_, arms)) => arms.push(arm),
                None => failures.push((what, vec![arm])),
            }
        };
        for (w, n) in counterparts {
            let [(l1, r1), (l2, r2)] = self.readings(name, (x, w), (y, n));
            if l1 > Level::Compatible {
                note(("an old", r1), w);
            }
            if l2 > Level::Compatible {
                note(("an upgraded", r2), n);
            }
            v.old_to_new = v.old_to_new.max(l1);
            v.new_to_old = v.new_to_old.max(l2);
        }
        let failures: Vec<String> = failures
            .into_iter()
            .map(|((peer, reading), arms)| format!("of {peer} peer's {}, {reading}", arms.join(", ")))
            .collect();
        let tag = |u: &crate::model::Union| u.tag.as_ref().map_or("none".to_owned(), |t| format!("`{}`", t.property));
        let outcome = if failures.is_empty() {
            "each side's reader still reads every arm of the other side's writer as its counterpart".to_owned()
        } else {
            failures.join("; ")
        };
        self.whole(
            b,
            "union_tag_changed",
            v,
            format!("the union's discriminator changed ({} -> {}): {outcome}", tag(x), tag(y)),
            (RustLevel::Unchanged, "decoding of the union changes"),
        );
    }

    /// An arm of the new union that the old one does not have: an old
    /// reader keeps its objects as unknown (an open union), rejects them, or
    /// takes them as another arm (an untagged arm that accepts them: a
    /// misreading).
    fn arm_added(&mut self, name: &str, x: &crate::model::Union, y: &crate::model::Union, v: &Variant, old_open: bool) {
        let key = arm_key(v);
        let read = self.written(y, v, Side::New).map(|w| self.read(x, &w, Side::Old));
        let (verdict, why) = match read {
            Some(Read::Arm(w)) => (
                Verdict { old_to_new: Level::Compatible, new_to_old: Level::Breaking },
                format!("an arm was added, and the old schema's readers misread its objects as `{}`", arm_key(w)),
            ),
            _ if old_open => (
                Verdict::same(Level::Compatible),
                "an arm was added to an open union: old readers keep it whole as unknown".to_owned(),
            ),
            _ => {
                let l = self.reader_level(name, Side::Old);
                (
                    Verdict { old_to_new: Level::Compatible, new_to_old: l },
                    if l == Level::Breaking {
                        "an arm was added to a closed union: the old schema's readers reject it"
                    } else {
                        "an arm was added to a closed union: the old schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                    }
                    .to_owned(),
                )
            }
        };
        self.push(
            name,
            "union_arm_added",
            &key,
            (Side::New, &v.pointer),
            verdict,
            format!("`{key}`: {why}"),
            (RustLevel::Additive, "a new variant (#[non_exhaustive])"),
        );
    }

    /// An arm of the old union that the new one does not have: judged by
    /// what the new reader makes of an old writer's objects of it.
    fn arm_removed(
        &mut self,
        name: &str,
        x: &crate::model::Union,
        y: &crate::model::Union,
        w: &Variant,
        new_open: bool,
    ) {
        let key = arm_key(w);
        let read = self.written(x, w, Side::Old).map(|o| self.read(y, &o, Side::New));
        let (verdict, why) = match read {
            Some(Read::Arm(v)) => (
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible },
                format!("an arm was removed, and the new schema's readers misread its objects as `{}`", arm_key(v)),
            ),
            _ if new_open => (
                Verdict { old_to_new: Level::Dangerous, new_to_old: Level::Compatible },
                "an arm was removed: the new schema's readers keep it only as unknown".to_owned(),
            ),
            _ => {
                let l = self.reader_level(name, Side::New);
                (
                    Verdict { old_to_new: l, new_to_old: Level::Compatible },
                    if l == Level::Breaking {
                        "an arm was removed from a closed union: the new schema's readers reject it"
                    } else {
                        "an arm was removed from a closed union: the new schema's readers replace it with the default (x-deserialize-* on every property that holds it)"
                    }
                    .to_owned(),
                )
            }
        };
        self.push(
            name,
            "union_arm_removed",
            &key,
            (Side::Old, &w.pointer),
            verdict,
            format!("`{key}`: {why}"),
            (RustLevel::Breaking, "a variant is removed: code naming it stops compiling"),
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

/// The readers of one side, in a reason.
fn readers(side: Side) -> &'static str {
    match side {
        Side::New => "the new schema's readers",
        Side::Old => "the old schema's readers",
    }
}

/// How an arm is matched between the two unions: its tag, or its Rust name.
fn arm_key(v: &crate::model::Variant) -> String {
    v.tag.clone().unwrap_or_else(|| v.rust_name.clone())
}

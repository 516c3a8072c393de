//! Verdicts shared by the comparisons: type changes, descriptions, labels.

use std::collections::BTreeMap;

use super::obligation::{handles, Vocabulary};
use super::Level;
use crate::model::text::{changed_sentences, clean, gates, normalize, speaks_of_patches, speaks_of_rules};
use crate::model::{Additional, Def, Kind, Payload, Type};

/// A change judged in both upgrade orders.
pub(super) struct Verdict {
    /// Old senders, new readers.
    pub(super) old_to_new: Level,
    /// New senders, old readers.
    pub(super) new_to_old: Level,
}

impl Verdict {
    pub(super) fn same(l: Level) -> Verdict {
        Verdict { old_to_new: l, new_to_old: l }
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
pub(super) fn doc_change(
    a: &Def,
    b: &Def,
    field: Option<&str>,
    capabilities: &BTreeMap<String, BTreeMap<String, String>>,
    vocabulary: &Vocabulary,
) -> (&'static str, Level, String) {
    let docs = |d: &Def| -> Option<String> {
        match field {
            None => d.docs.clone(),
            Some(f) => match &d.kind {
                Kind::Struct(s) => s.fields.iter().find(|x| x.name == f).and_then(|x| x.docs.clone()),
                _ => None,
            },
        }
    };
    let (was, is) = (docs(a).map(|t| clean(&t)), docs(b).map(|t| clean(&t)));
    // A change of punctuation, case, line breaks, links or the UNSTABLE
    // banner only says nothing new.
    if was.as_deref().map(normalize) == is.as_deref().map(normalize) {
        return ("description_changed", Level::Compatible, "the description changed (wording only)".into());
    }
    // `_meta`'s text is the same boilerplate everywhere and its rule is
    // fixed, except on an upsert whose configuration gives `_meta` a rule
    // (merged by key): there its text says what `null` does.
    let classifies_meta = |d: &Def| d.upsert.as_ref().is_some_and(|u| u.fields.contains_key("_meta"));
    if field == Some("_meta") && !classifies_meta(a) && !classifies_meta(b) {
        return ("description_changed", Level::Compatible, "the description changed".into());
    }
    let (gone, added) = changed_sentences(was.as_deref().unwrap_or_default(), is.as_deref().unwrap_or_default());
    let sentences = quote_change(&gone, &added);
    let obligations = obligation_change(&gone, &added, vocabulary);
    if let Obligations::Changed(change) = obligations {
        return change;
    }
    let rule = |d: &Def| {
        d.upsert.as_ref().and_then(|u| match field {
            None => Some("the upsert".to_owned()),
            Some(f) if u.key.as_deref() == Some(f) => Some("the upsert's key".to_owned()),
            Some(f) => u.fields.get(f).map(|r| format!("a property with the upsert rule {}", rule_label(r))),
        })
    };
    if let Some(what) = rule(b).or_else(|| rule(a)) {
        // The configuration is read from what the text says omitted, `null`
        // and a value do: a rewording elsewhere in it changes nothing there.
        if !gone.iter().chain(&added).any(|t| speaks_of_rules(t)) {
            return (
                "description_changed",
                Level::Compatible,
                format!("the description of {what} changed, but no sentence that changed says what omitted, `null` or a value do ({sentences})"),
            );
        }
        return (
            "patch_description_changed",
            Level::Dangerous,
            format!(
                "the description of {what} changed ({sentences}): check that schema/upserts.json still says what omitted, `null` and a value mean"
            ),
        );
    }
    if field.is_none()
        && b.upsert.is_none()
        && speaks_of_patches(b.docs.as_deref())
        && !speaks_of_patches(a.docs.as_deref())
    {
        return (
            "patch_description_changed",
            Level::Dangerous,
            format!("the description now speaks of patch semantics ({sentences}), but schema/upserts.json has no entry: it is generated as a plain struct"),
        );
    }
    if let Some(reader) = field.and_then(|f| capabilities.get(&b.name)?.get(f)) {
        return (
            "capability_description_changed",
            Level::Dangerous,
            format!("the description of a capability the adapters read changed ({reader}; {sentences}): check that they still read it right"),
        );
    }
    ("description_changed", Level::Compatible, format!("the description changed{}", obligations.note()))
}

/// A description change of a union arm or an enum value: `None` when the
/// text is the same; wording only and other sentences are compatible, a
/// gating sentence that changed is dangerous (see [`gates`]).
pub(super) fn member_doc_change(
    was: Option<&str>,
    is: Option<&str>,
    vocabulary: &Vocabulary,
) -> Option<(&'static str, Level, String)> {
    if was == is {
        return None;
    }
    let (was, is) = (was.map(clean), is.map(clean));
    if was.as_deref().map(normalize) == is.as_deref().map(normalize) {
        return Some(("description_changed", Level::Compatible, "the description changed (wording only)".into()));
    }
    let (gone, added) = changed_sentences(was.as_deref().unwrap_or_default(), is.as_deref().unwrap_or_default());
    Some(match obligation_change(&gone, &added, vocabulary) {
        Obligations::Changed(change) => change,
        same => (
            "description_changed",
            Level::Compatible,
            format!("the description changed ({}){}", quote_change(&gone, &added), same.note()),
        ),
    })
}

/// What the changed sentences of a description do to the obligations it states.
enum Obligations {
    /// No changed sentence states an obligation.
    None,
    /// Every obligation a changed sentence states, the other side states in
    /// other words (the old and new sentences).
    Reworded(Vec<String>, Vec<String>),
    /// An obligation changed.
    Changed((&'static str, Level, String)),
}

impl Obligations {
    /// `; the obligations ... (was ...; now ...)` for reworded ones.
    fn note(&self) -> String {
        match self {
            Obligations::Reworded(g, a) => {
                format!("; the obligations it states are the same in other words ({})", quote_change(g, a))
            }
            _ => String::new(),
        }
    }
}

/// `capability_gating_changed` when a gating sentence (see [`gates`])
/// changed, `obligation_changed` when only a sentence on how a peer handles
/// what arrives did (see [`handles`]). A sentence whose obligation the other
/// side states in other words (the same signature,
/// [`Vocabulary::signature`]) is no change: a name put in backticks, a
/// capability spelled out with its path, a name in its wire spelling, a
/// variant written as its tag.
fn obligation_change(gone: &[String], added: &[String], vocabulary: &Vocabulary) -> Obligations {
    let states = |v: &[String]| -> Vec<String> { v.iter().filter(|s| gates(s) || handles(s)).cloned().collect() };
    let (g, a) = (states(gone), states(added));
    if g.is_empty() && a.is_empty() {
        return Obligations::None;
    }
    let mut unmatched: Vec<Option<Vec<String>>> = a.iter().map(|s| Some(vocabulary.signature(s))).collect();
    let mut g_left = Vec::new();
    for s in &g {
        let sig = vocabulary.signature(s);
        match unmatched.iter().position(|x| x.as_ref() == Some(&sig)) {
            Some(i) => unmatched[i] = None,
            None => g_left.push(s.clone()),
        }
    }
    let a_left: Vec<String> = a.iter().zip(&unmatched).filter(|(_, x)| x.is_some()).map(|(s, _)| s.clone()).collect();
    if g_left.is_empty() && a_left.is_empty() {
        return Obligations::Reworded(g, a);
    }
    let quoted = quote_change(&g_left, &a_left);
    Obligations::Changed(if g_left.iter().chain(&a_left).any(|s| gates(s)) {
        (
            "capability_gating_changed",
            Level::Dangerous,
            format!(
                "a sentence that says who must support this or when it may be sent changed ({quoted}): peers act on it, so an upgraded peer may now send, withhold or require it differently from one that has not upgraded"
            ),
        )
    } else {
        (
            "obligation_changed",
            Level::Dangerous,
            format!(
                "a sentence that says how a peer must handle what arrives changed ({quoted}): a peer that has not upgraded still handles it the old way, which an upgraded peer may not expect"
            ),
        )
    })
}

/// Whether a type change's Rust note says the Rust type stays.
pub(super) fn rust_note_unchanged(note: &str) -> bool {
    note.contains("does not change") || note.starts_with("documentation only")
}

/// `was "..."; now "..."`, each sentence cut to 160 characters.
pub(super) fn quote_change(gone: &[String], new: &[String]) -> String {
    let cut = |s: &str| -> String {
        if s.chars().count() > 160 {
            format!("{}...", s.chars().take(160).collect::<String>())
        } else {
            s.to_owned()
        }
    };
    let quote = |v: &[String]| {
        if v.is_empty() {
            "nothing".to_owned()
        } else {
            v.iter().map(|s| format!("\"{}\"", cut(s))).collect::<Vec<_>>().join(" ")
        }
    };
    format!("was {}; now {}", quote(gone), quote(new))
}

pub(super) fn rule_label(r: &crate::model::Rule) -> String {
    use crate::model::Rule;
    match r {
        Rule::Replace => "`replace`".into(),
        Rule::List => "`list`".into(),
        Rule::ByKey => "`by_key`".into(),
        Rule::Required => "`required`".into(),
        Rule::Reset { .. } => "`reset`".into(),
    }
}

pub(super) fn payload_ref(v: &crate::model::Variant) -> Option<&Type> {
    match &v.payload {
        Payload::Type(t) => Some(t),
        _ => None,
    }
}

/// Where a changed type sits: a struct field's type is decoded with the
/// field's rules, which check `minItems` / `maxItems`; a union arm's or a
/// definition's list is not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Position {
    /// A struct field.
    Field,
    /// A union arm's payload, or a definition's own type.
    Other,
}

/// The verdict on a type change; `old_reader` / `new_reader` are the level of
/// a value the old / new reader does not accept.
pub(super) fn type_change_of(
    a: &Type,
    b: &Type,
    old_reader: Level,
    new_reader: Level,
    at: Position,
) -> (Verdict, &'static str, String, &'static str) {
    let lenient_old = old_reader;
    let lenient_new = new_reader;
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
        ) if i1 == i2 && n1 == n2 => list_change(a, b, [(m1, x1, u1), (m2, x2, u2)], [lenient_old, lenient_new], at),
        // Any JSON on one side: only the other side's reader can refuse.
        (Type::Any, _) => (
            Verdict { old_to_new: lenient_new, new_to_old: Level::Compatible },
            "field_type_changed",
            format!("the type narrowed from any JSON to {}", Type::describe(b)),
            "the field's type changes: code using it stops compiling",
        ),
        (_, Type::Any) => (
            Verdict { old_to_new: Level::Compatible, new_to_old: lenient_old },
            "field_type_changed",
            format!("the type widened from {} to any JSON", Type::describe(a)),
            "the field's type changes: code using it stops compiling",
        ),
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

pub(super) fn additional(a: Additional) -> &'static str {
    match a {
        Additional::Absent => "not stated (other properties allowed)",
        Additional::True => "`true`",
        Additional::False => "`false` (other properties rejected)",
        Additional::Typed => "a schema (other properties typed)",
    }
}

pub(super) fn kind_label(k: &Kind) -> &'static str {
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
pub(super) fn same_shape(a: &Def, b: &Def) -> bool {
    let (mut x, y) = (a.wire_shape(), b.wire_shape());
    x.name.clone_from(&y.name);
    x.rust_name.clone_from(&y.rust_name);
    x == y
}

pub(super) fn method_label(d: &Def) -> String {
    match &d.method {
        Some(m) => format!("`{}` ({:?}, handled by {})", m.name, m.kind, m.side),
        None => "none".into(),
    }
}

/// Whether a definition holds nothing but `_meta` (shape alone says nothing about a rename).
pub(super) fn meta_only(d: &Def) -> bool {
    matches!(&d.kind, Kind::Struct(s) if s.fields.iter().all(|f| f.name == "_meta"))
}

/// Item counts of a list, as `(minItems, maxItems, uniqueItems)`.
type Counts<'a> = (&'a Option<u64>, &'a Option<u64>, &'a bool);

/// The verdict on a change of a list's rules (its items unchanged) between
/// `a` and `b`: `counts` old and new, `readers` the levels of a value the
/// old / new reader does not accept.
fn list_change(
    a: &Type,
    b: &Type,
    counts: [Counts<'_>; 2],
    readers: [Level; 2],
    at: Position,
) -> (Verdict, &'static str, String, &'static str) {
    let [(m1, x1, u1), (m2, x2, u2)] = counts;
    let [lenient_old, lenient_new] = readers;
    // A field's `minItems` / `maxItems` are checked on decode: the side with the tighter
    // count refuses lists the other allows. `uniqueItems`, and the counts
    // of a list that is not a field's, are documentation.
    let fewer = |x: &Option<u64>, y: &Option<u64>| x.is_some_and(|x| y.is_none_or(|y| x < y));
    let checked = at == Position::Field;
    let tighter_new = checked && (m2.unwrap_or(0) > m1.unwrap_or(0) || fewer(x2, x1));
    let tighter_old = checked && (m1.unwrap_or(0) > m2.unwrap_or(0) || fewer(x1, x2));
    // A default-on-error field (`Dangerous` reader) that now refuses only the
    // empty list decodes it as its default, which holds no items either.
    let only_empty = |lo: &Option<u64>, hi: &Option<u64>, x: &Option<u64>, y: &Option<u64>| {
        lo.unwrap_or(0) == 0 && *hi == Some(1) && !fewer(y, x)
    };
    let level = |tighter: bool, reader: Level, empty_only: bool| match tighter {
        true if reader == Level::Dangerous && empty_only => Level::Compatible,
        true => reader,
        false => Level::Compatible,
    };
    let v = Verdict {
        old_to_new: level(tighter_new, lenient_new, only_empty(m1, m2, x1, x2)),
        new_to_old: level(tighter_old, lenient_old, only_empty(m2, m1, x2, x1)),
    };
    let (a, b) = (Type::describe(a), Type::describe(b));
    if !checked && (u1, m1, x1) != (u2, m2, x2) {
        let kind = if (x1, u1) == (x2, u2) { "min_items_changed" } else { "array_rules_changed" };
        (
            v,
            kind,
            format!("the list's rules changed ({a} -> {b}); readers do not check them here"),
            "documentation only (a union arm's or a definition's list is not counted on decode)",
        )
    } else if (x1, u1) == (x2, u2) && m1 != m2 {
        (
            v,
            "min_items_changed",
            format!("minItems changed ({a} -> {b})"),
            "decoding checks a different item count; the type does not change",
        )
    } else if (m1, x1) == (m2, x2) {
        (
            v,
            "array_rules_changed",
            format!("uniqueItems changed ({a} -> {b}); readers do not check it"),
            "documentation only (`uniqueItems` is not checked on decode)",
        )
    } else {
        (
            v,
            "array_rules_changed",
            format!("the list's rules changed ({a} -> {b})"),
            "decoding checks different item counts; the type does not change",
        )
    }
}

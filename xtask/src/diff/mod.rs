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

use serde::{Deserialize, Serialize};

mod differ;
mod families;
mod judge;
pub mod obligation;
mod options;
mod report;
mod sides;
mod wire;
pub use options::{fails, meets, Options};
pub use report::{changelog, findings, github, github_named, line_of, markdown, read_accepted};
pub use sides::{
    diff_sides, diff_sides_as, diff_sides_with, load_side, load_side_with, resolve_side, resolve_side_in, Loaded,
};

use crate::model::{Def, Module, Peer};
use differ::Differ;
use judge::Verdict;
use judge::{meta_only, same_shape};

/// Every change kind a report can hold (the `kind` of [`Change`]).
pub const KINDS: &[&str] = &[
    "additional_properties_changed",
    "array_rules_changed",
    "bounds_changed",
    "capability_description_changed",
    "capability_gating_changed",
    "default_changed",
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
    "message_family_added",
    "message_family_removed",
    "method_added",
    "method_changed",
    "method_removed",
    "method_renamed",
    "min_items_changed",
    "not_understood",
    "obligation_changed",
    "patch_description_changed",
    "patch_semantics_changed",
    "rust_type_changed",
    "string_rule_changed",
    "type_changed",
    "union_arm_added",
    "union_arm_changed",
    "union_arm_rekeyed",
    "union_arm_removed",
    "union_openness_changed",
    "union_tag_changed",
];

/// How bad a change is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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

impl Side {
    /// The other side.
    fn other(self) -> Side {
        match self {
            Side::Old => Side::New,
            Side::New => Side::Old,
        }
    }
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
    /// What in the definition changed: a property, an enum value, a union
    /// arm, a method (`""` for the definition itself).
    pub member: String,
    /// JSON pointer into the schema file of `side`.
    pub pointer: String,
    /// The side `pointer` points into (`old` for removals).
    pub side: Side,
    /// The peers that have not upgraded and stop working (`old clients`).
    pub breaks: Vec<String>,
    /// Why, in one line.
    pub reason: String,
    /// What it does to the generated Rust: its own axis, judged apart from
    /// the wire (a property that now names a string type is compatible on
    /// the wire and source-breaking in Rust).
    pub rust: Rust,
    /// Stable across unrelated edits (no pointer or description in it).
    pub fingerprint: String,
    /// The first method that carries the definition (`session/update`), or
    /// `types` for a definition no method reaches.
    pub area: String,
    /// What the revision does to the v1 ⇄ v2 conversion of the definition,
    /// when both sides hold both versions (see [`ConversionChange`]).
    pub convert: Option<String>,
}

/// What a change does to code using the generated crate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rust {
    pub level: RustLevel,
    /// The generated items it touches (`ToolCallUpdate`, `ToolCallUpdate::title`,
    /// `SessionUpdate::Notice`), paths inside the version's module.
    pub items: Vec<String>,
    /// In one line.
    pub note: String,
}

/// How a change affects code using the generated crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RustLevel {
    /// The generated API is the same (documentation, decoding rules).
    Unchanged,
    /// New items, fields with a builder, or variants of a `#[non_exhaustive]`
    /// enum: code written against the old crate still compiles.
    Additive,
    /// Code using the touched items may stop compiling.
    Breaking,
}

impl RustLevel {
    /// The spelling in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            RustLevel::Unchanged => "unchanged",
            RustLevel::Additive => "additive",
            RustLevel::Breaking => "breaking",
        }
    }
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

/// How one side's file was read: its protocol version, what decided it, and
/// the upsert rules that applied (the v2 patch-semantics checks run only on
/// definitions with rules, and on descriptions that start speaking of
/// patches).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// `v1` or `v2`.
    pub protocol: String,
    /// What decided the version: `layout` (the file's path in a directory
    /// laid out as `schema/`), `contents` (definitions only one version has,
    /// or its documentation links), `option` (`--protocol`) or `default`
    /// (a lone file that says nothing: read as v1).
    pub decided_by: &'static str,
    /// In words: the path, or what in the file decided it.
    pub evidence: String,
    /// The upsert configuration read (absent: none applies to the version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upsert_config: Option<String>,
    /// The definitions the configuration gave upsert rules to, sorted.
    pub upserts: Vec<String>,
}

impl Reading {
    /// How a module was read, with the upserts found on it.
    fn of(m: &Module, protocol: &str, decided_by: &'static str, evidence: String, config: Option<String>) -> Reading {
        let mut upserts: Vec<String> =
            m.defs.iter().flat_map(Def::walk).filter(|d| d.upsert.is_some()).map(|d| d.name.clone()).collect();
        upserts.sort();
        upserts.dedup();
        Reading { protocol: protocol.to_owned(), decided_by, evidence, upsert_config: config, upserts }
    }

    /// One line for the markdown report.
    pub fn describe(&self) -> String {
        let how = match self.decided_by {
            "layout" => format!("from its place in the layout ({})", self.evidence),
            "contents" => format!("from its contents ({})", self.evidence),
            "option" => format!("as the option says ({})", self.evidence),
            _ => format!("by default ({})", self.evidence),
        };
        let plural = |n: usize| if n == 1 { "definition" } else { "definitions" };
        let rules = match (&self.upsert_config, self.upserts.len()) {
            (Some(c), 0) => format!("`{c}` has {} upsert rules, but none for a definition of this file", self.protocol),
            (Some(c), n) => format!(
                "the upsert rules of `{c}` applied to {n} {} ({})",
                plural(n),
                self.upserts.iter().map(|u| format!("`{u}`")).collect::<Vec<_>>().join(", ")
            ),
            (None, _) => format!("no upsert rules (the configuration has none for {})", self.protocol),
        };
        format!("{}, {how}; {rules}", self.protocol)
    }
}

/// How the two files of a report were read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub old: Reading,
    pub new: Reading,
}

/// The whole diff of two schema files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub old: String,
    pub new: String,
    /// The protocol version and upsert rules each file was read with.
    pub applied: Applied,
    pub summary: Summary,
    pub changes: Vec<Change>,
    /// v1 ⇄ v2 conversions of this file's definitions that change (empty
    /// when a side is a lone file: the other version is unknown).
    pub conversions: Vec<ConversionChange>,
}

/// Counts by level; `rust_breaking` counts the changes whose Rust axis is
/// `breaking`, whatever their wire level.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub breaking: usize,
    pub dangerous: usize,
    pub compatible: usize,
    pub rust_breaking: usize,
}

fn peer(p: Peer) -> &'static str {
    match p {
        Peer::Agent => "agents",
        Peer::Client => "clients",
        Peer::Proxy => "proxies",
        Peer::Conductor => "conductors",
    }
}

/// FNV-1a, 64 bits, of the parts each ended by a NUL: a stable fingerprint.
fn fingerprint(parts: &[&str]) -> String {
    format!("{:016x}", crate::hash::fnv1a(parts.iter().flat_map(|p| p.bytes().chain([0u8]))))
}

/// The diff of two models of the same schema file.
pub fn diff(old: &Module, new: &Module) -> Report {
    diff_with(old, new, &crate::convert::Config::default())
}

/// The `(method, kind, side)` of a method payload: its role.
fn role(d: &Def) -> Option<(String, String, String)> {
    d.method.as_ref().map(|m| (m.name.clone(), format!("{:?}", m.kind), format!("{:?}", m.side)))
}

/// Pairs the definitions only one side names: first by method and role (a
/// request, response or notification payload whose definition was renamed,
/// whatever it holds), then methods whose name changed (every role of a
/// method that is gone matched, shape for shape, by a method that is new,
/// with the same handling side; one candidate only), then by wire shape
/// (not for definitions holding only `_meta`: their shape says nothing).
/// Returns `(old, new, why)` pairs.
fn pair<'d>(removed: &[&'d Def], added: &[&'d Def], od: &[Def], nd: &[Def]) -> Vec<(&'d Def, &'d Def, Pairing)> {
    let mut out: Vec<(&Def, &Def, Pairing)> = Vec::new();
    let taken = |out: &Vec<(&Def, &Def, Pairing)>, d: &Def, old: bool| {
        out.iter().any(|(r, a, _)| if old { r.name == d.name } else { a.name == d.name })
    };
    for r in removed.iter().filter(|r| r.method.is_some()) {
        if let Some(a) = added.iter().find(|a| role(a) == role(r) && !taken(&out, a, false)) {
            out.push((r, a, Pairing::Method));
        }
    }
    // Methods whose name changed.
    let names = |defs: &[Def]| -> BTreeSet<String> {
        defs.iter().filter_map(|d| Some(d.method.as_ref()?.name.clone())).collect()
    };
    let (old_methods, new_methods) = (names(od), names(nd));
    let roles = |defs: &[&'d Def], method: &str| -> BTreeMap<(String, String), &'d Def> {
        defs.iter()
            .filter(|d| d.method.as_ref().is_some_and(|m| m.name == method))
            .map(|d| {
                let m = d.method.as_ref().expect("filtered");
                ((format!("{:?}", m.kind), format!("{:?}", m.side)), *d)
            })
            .collect()
    };
    for gone in old_methods.difference(&new_methods) {
        let from = roles(removed, gone);
        let candidates: Vec<BTreeMap<(String, String), &Def>> = new_methods
            .difference(&old_methods)
            .map(|m| roles(added, m))
            .filter(|to| {
                to.keys().eq(from.keys())
                    && from.iter().all(|(k, r)| same_shape(r, to[k]))
                    && to.values().all(|a| !taken(&out, a, false))
            })
            .collect();
        if let [to] = candidates.as_slice() {
            for (k, r) in &from {
                if !taken(&out, r, true) {
                    out.push((r, to[k], Pairing::MethodRename));
                }
            }
        }
    }
    for r in removed {
        if meta_only(r) || taken(&out, r, true) {
            continue;
        }
        let same: Vec<&&Def> =
            added.iter().filter(|a| same_shape(a, r) && a.method == r.method && !taken(&out, a, false)).collect();
        if let [a] = same.as_slice() {
            out.push((r, a, Pairing::Shape));
        }
    }
    out
}

/// Why two definitions of different names were paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pairing {
    /// The same method and role.
    Method,
    /// Their method was renamed (reported once, as the method).
    MethodRename,
    /// The same wire shape.
    Shape,
}

/// [`diff`] with the project's conversion configuration (which capability
/// properties the adapters read).
pub fn diff_with(old: &Module, new: &Module, config: &crate::convert::Config) -> Report {
    // Two models diffed directly: nothing is known of how they were read but
    // what is on them.
    let unknown = |m: &Module| Reading::of(m, "", "default", "two models diffed directly".into(), None);
    diff_files((old, new), config, (None, None), Applied { old: unknown(old), new: unknown(new) })
}

/// [`diff_with`], with the two files' JSON for what the models do not hold
/// (the message families of the root `anyOf`), and how each file was read.
pub(crate) fn diff_files(
    (old, new): (&Module, &Module),
    config: &crate::convert::Config,
    (old_json, new_json): (Option<&serde_json::Value>, Option<&serde_json::Value>),
    applied: Applied,
) -> Report {
    // JSON-RPC envelopes (`x-docs-ignore`) and what is inline in them only
    // repeat their payloads' changes (a new method is a new arm there): the
    // payload definitions carry the root change.
    let walk =
        |m: &'_ Module| -> Vec<Def> { m.defs.iter().filter(|d| !d.envelope).flat_map(Def::walk).cloned().collect() };
    let (od, nd) = (walk(old), walk(new));
    let mut d = Differ::new(&od, &nd, &config.capabilities);
    let removed: Vec<&Def> = od.iter().filter(|x| !d.new.contains_key(x.name.as_str())).collect();
    let added: Vec<&Def> = nd.iter().filter(|x| !d.old.contains_key(x.name.as_str())).collect();
    let pairs = pair(&removed, &added, &od, &nd);
    d.renames = pairs.iter().map(|(r, a, _)| (r.name.clone(), a.name.clone())).collect();
    for (r, a, why) in &pairs {
        let reason = match why {
            Pairing::MethodRename => continue,
            _ if same_shape(r, a) => format!("`{}` was renamed `{}` (the same on the wire)", r.name, a.name),
            _ => format!(
                "`{}` was renamed `{}` (the payload of the same method; its changes are reported on their own)",
                r.name, a.name
            ),
        };
        d.push(
            &a.name,
            "definition_renamed",
            &r.name,
            (Side::New, &a.pointer),
            Verdict::same(Level::Compatible),
            reason,
            (RustLevel::Breaking, "the item is renamed: code naming it stops compiling"),
        );
    }
    let paired_old = |n: &str| pairs.iter().any(|(r, _, _)| r.name == n);
    let paired_new = |n: &str| pairs.iter().any(|(_, a, _)| a.name == n);
    for r in removed.iter().filter(|r| !paired_old(&r.name)) {
        definition_removed(&mut d, r);
    }
    for a in added.iter().filter(|a| !paired_new(&a.name)) {
        definition_added(&mut d, a);
    }
    for b in &nd {
        if let Some(a) = d.old.get(b.name.as_str()).copied() {
            d.def(a, b);
        }
    }
    for (r, a, _) in &pairs {
        d.def(r, a);
    }
    d.method_renames();
    let mut changes = d.changes;
    if let (Some(a), Some(b)) = (old_json, new_json) {
        changes.extend(families::changes(a, b));
    }
    changes.sort_by(|x, y| {
        y.level.cmp(&x.level).then(x.def.cmp(&y.def)).then(x.kind.cmp(y.kind)).then(x.pointer.cmp(&y.pointer))
    });
    let count = |l: Level| changes.iter().filter(|c| c.level == l).count();
    let summary = Summary {
        breaking: count(Level::Breaking),
        dangerous: count(Level::Dangerous),
        compatible: count(Level::Compatible),
        rust_breaking: changes.iter().filter(|c| c.rust.level == RustLevel::Breaking).count(),
    };
    Report { old: old.source.clone(), new: new.source.clone(), applied, summary, changes, conversions: Vec::new() }
}

/// A definition of the old schema that the new one does not have (and that
/// pairs with none): a method's payload or another definition.
fn definition_removed(d: &mut Differ<'_>, r: &Def) {
    match &r.method {
        // The peers that break are the old callers: they send the request
        // (or notification) and read the response.
        Some(m) => d.push(
            &r.name,
            "method_removed",
            &m.name,
            (Side::Old, &r.pointer),
            if m.kind == crate::model::MethodKind::Response {
                Verdict { old_to_new: Level::Compatible, new_to_old: Level::Breaking }
            } else {
                Verdict { old_to_new: Level::Breaking, new_to_old: Level::Compatible }
            },
            format!("the {:?} of `{}` was removed: the old peers that call the method still use it", m.kind, m.name)
                .to_lowercase(),
            (RustLevel::Breaking, "the payload type and its dispatch variant are removed"),
        ),
        None => {
            let (v, why) = match d.lost_with(&r.name) {
                Some((def, field)) => (
                    Verdict::same(Level::Dangerous),
                    format!(
                        "`{}` was removed with the optional property `{def}.{field}` that held it: what old peers send in it is dropped, and old readers stop getting it",
                        r.name
                    ),
                ),
                None => (
                    Verdict::same(Level::Compatible),
                    format!("`{}` was removed (what referenced it is reported where it changed)", r.name),
                ),
            };
            d.push(
                &r.name,
                "definition_removed",
                "",
                (Side::Old, &r.pointer),
                v,
                why,
                (RustLevel::Breaking, "the item is removed: code naming it stops compiling"),
            )
        }
    }
}

/// A definition of the new schema that the old one does not have.
fn definition_added(d: &mut Differ<'_>, a: &Def) {
    match &a.method {
        Some(m) => d.push(
            &a.name,
            "method_added",
            &m.name,
            (Side::New, &a.pointer),
            Verdict::same(Level::Compatible),
            format!("the {:?} of `{}` was added", m.kind, m.name).to_lowercase(),
            (RustLevel::Additive, "a new payload type and dispatch variant"),
        ),
        None => d.push(
            &a.name,
            "definition_added",
            "",
            (Side::New, &a.pointer),
            Verdict::same(Level::Compatible),
            format!("`{}` was added", a.name),
            (RustLevel::Additive, "a new item"),
        ),
    }
}

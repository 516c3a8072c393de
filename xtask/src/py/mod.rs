//! The Python target: the models of a schema file's definitions, from the
//! same model and plan as the Rust crate and the TypeScript package, written
//! with genco's Python quasi-quoting into `python/src/acp_bindings/`.
//!
//! The models are msgspec `Struct`s (why msgspec and not pydantic:
//! `docs/python.md`). What the schema says, as Python:
//!
//! - an object is a `Struct` (keyword-only, each member under its wire name);
//!   a property is optional with the default `UNSET`, so the three states of
//!   a v2 patch field (omitted, `None`, a value) stay apart; `None` is in a
//!   property's type only where the schema allows `null`;
//! - a tagged union's arm is a subclass of its payload's `Struct` that fixes
//!   the discriminator (`ContentBlockText(TextContent)`, tag `"text"`), and
//!   the union is the `Union` of its arms; an open union's unknown arm is
//!   `UnknownArm` (its discriminator and every member), which the types name
//!   for a type checker (`if TYPE_CHECKING:`) while msgspec, which cannot
//!   read an arm it does not know, is given the known arms;
//! - an enum is its known values (`Literal`); an open enum also takes any
//!   string (or integer);
//! - an object a tagged union extends (`DiffChange` and its `operation`) is
//!   the union of its arms: a base class of its properties and a subclass
//!   per arm with the arm's properties and the discriminator fixed;
//! - a union whose arms msgspec cannot tell apart by their JSON type (two
//!   objects without a discriminator) is `Any` to msgspec and its arms to a
//!   type checker (`docs/python.md` lists what msgspec alone does not read
//!   right yet).
//!
//! The classes come first (an arm's class after its payload's), then the
//! aliases, each after the aliases its value names: a class's annotations
//! are read when msgspec first needs them, an alias's value at once.

mod dispatch;

use std::collections::{BTreeMap, BTreeSet};

use genco::prelude::*;

use crate::model::*;
use crate::plan::{Decisions, Payloads, Plan, Repr};

/// The class names a module gives its arms and its extended objects' bases.
#[derive(Debug, Clone, Default)]
struct Names {
    arm_classes: BTreeMap<(String, String), String>,
    bases: BTreeMap<String, String>,
}

/// The module of a version's stable schema file, with `plan`'s decisions
/// about the stable build.
pub fn module(plan: &Plan<'_>, module: &Module, payloads: &Payloads) -> String {
    let walked: Vec<&Def> = module.defs.iter().flat_map(Def::walk).collect();
    let r = Renderer::new(&walked, &plan.stable, &Names::default());
    let dispatch = r.dispatch(&walked, payloads, false);
    render(module, &r, &walked, None, dispatch)
}

/// The module of a version's unstable schema file, as a difference from the
/// stable one (`stable_module`, its import path): a definition the plan
/// renders once for both builds is imported from the stable module (so
/// `unstable.v2.TextContent is v2.TextContent`), with its arm classes,
/// unless something it names is written here ([`Plan::shared_with_stable`]).
pub fn unstable_module(
    plan: &Plan<'_>,
    stable: &Module,
    unstable: &Module,
    stable_module: &str,
    payloads: &Payloads,
) -> String {
    let base: Vec<&Def> = stable.defs.iter().flat_map(Def::walk).collect();
    let stable_r = Renderer::new(&base, &plan.stable, &Names::default());
    let shared = plan.shared_with_stable(unstable);
    let walked: Vec<&Def> = unstable.defs.iter().flat_map(Def::walk).collect();
    // The arm classes and bases of a definition taken from the stable module keep their names.
    let preset = Names {
        arm_classes: stable_r.arm_classes.into_iter().filter(|((u, _), _)| shared.contains(u.as_str())).collect(),
        bases: stable_r.bases.into_iter().filter(|(o, _)| shared.contains(o.as_str())).collect(),
    };
    let r = Renderer::new(&walked, &plan.unstable, &preset);
    let written: Vec<&Def> = walked.iter().copied().filter(|d| !shared.contains(d.name.as_str())).collect();
    // An upsert's state class goes with its patch class.
    let mut imported: Vec<String> = walked
        .iter()
        .filter(|d| shared.contains(d.name.as_str()))
        .flat_map(|d| std::iter::once(r.name(&d.name)).chain(d.upsert.as_ref().map(|u| u.state.clone())))
        .collect();
    imported.extend(preset.arm_classes.values().chain(preset.bases.values()).cloned());
    isort(&mut imported);
    // The dispatch classes name the unstable build's payloads: written here, all of them.
    let dispatch = r.dispatch(&walked, payloads, true);
    render(unstable, &r, &written, Some((stable_module, imported)), dispatch)
}

/// Python's keywords and the soft keywords a field may not be named.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// What a value of a type is to msgspec's unions: it allows at most one
/// type per JSON type in an untagged union.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Json {
    Str,
    Int,
    Float,
    Bool,
    Null,
    Array,
    Object,
    /// Anything (a value msgspec does not restrict): no union with it.
    Any,
}

struct Renderer<'a> {
    decisions: &'a Decisions,
    defs: BTreeMap<&'a str, &'a Def>,
    /// The arm classes of tagged unions, and of the unions objects are
    /// extended by: (union or object, arm) -> class name.
    arm_classes: BTreeMap<(String, String), String>,
    /// The class of the properties every arm of an extended object has: object -> class name.
    bases: BTreeMap<String, String>,
}

impl<'a> Renderer<'a> {
    /// The renderer of the definitions `walked` (nested ones included), the
    /// arm classes of tagged unions named `{Union}{Arm}` (or as `preset` says).
    fn new(walked: &[&'a Def], decisions: &'a Decisions, preset: &Names) -> Self {
        let defs: BTreeMap<&str, &Def> = walked.iter().map(|d| (d.name.as_str(), *d)).collect();
        let mut r = Renderer { decisions, defs, arm_classes: preset.arm_classes.clone(), bases: preset.bases.clone() };
        let mut taken: BTreeSet<String> = walked.iter().map(|d| r.name(&d.name)).collect();
        taken.extend(["UnknownArm", "Any", "Struct", "Meta", "UNSET", "UnsetType"].map(String::from));
        taken.extend(preset.arm_classes.values().chain(preset.bases.values()).cloned());
        let mut fresh = |name: String| {
            let mut name = name;
            while taken.contains(&name) {
                name.push_str("Arm");
            }
            taken.insert(name.clone());
            name
        };
        for d in walked {
            let extended = r.extended_by(d);
            let arms = match (&d.kind, extended) {
                (Kind::Union(u), _) if u.tag.is_some() => u,
                (Kind::Struct(_), Some(u)) => u,
                _ => continue,
            };
            if extended.is_some() && !r.bases.contains_key(&d.name) {
                let base = fresh(format!("{}Base", r.name(&d.name)));
                r.bases.insert(d.name.clone(), base);
            }
            for v in &arms.variants {
                let key = (d.name.clone(), v.rust_name.clone());
                // An arm of a union is a class where its payload is an object;
                // every arm of an extended object is one.
                if r.arm_classes.contains_key(&key) || (extended.is_none() && r.arm_base(v).is_none()) {
                    continue;
                }
                let name = fresh(format!("{}{}", r.name(&d.name), v.rust_name.trim_start_matches("r#")));
                r.arm_classes.insert(key, name);
            }
        }
        r
    }

    /// The tagged union object `d` is extended by (`anyOf` beside its
    /// properties), when msgspec can read it as arms of its own: each arm the
    /// object's properties with the arm's (and the discriminator fixed).
    fn extended_by(&self, d: &Def) -> Option<&'a Union> {
        let Kind::Struct(s) = &d.kind else { return None };
        let union = self.defs.get(s.flatten.as_ref()?.union.as_str())?;
        match &union.kind {
            Kind::Union(u) if u.tag.is_some() => Some(u),
            _ => None,
        }
    }
}

/// The module of `module`: the definitions `walked` written, and with `base`
/// (the stable module's import path and names), the rest imported from it.
fn render(
    module: &Module,
    r: &Renderer<'_>,
    walked: &[&Def],
    base: Option<(&str, Vec<String>)>,
    dispatch: python::Tokens,
) -> String {
    let mut out = python::Tokens::new();
    // Classes first, each arm class after every base; then the aliases.
    for d in walked.iter().filter(|d| matches!(d.kind, Kind::Struct(_))) {
        r.class(&mut out, d);
        if let (Some(u), Kind::Struct(s)) = (&d.upsert, &d.kind) {
            r.state_class(&mut out, d, &u.state, s);
        }
    }
    for d in walked {
        if let Kind::Union(u) = &d.kind {
            r.arm_classes_of(&mut out, d, u);
        }
    }
    for d in Renderer::aliases_in_order(walked, |d| r.extended_by(d).is_some()) {
        r.alias(&mut out, d);
    }
    out.append(dispatch);
    // Two blank lines before each top-level statement (PEP 8); genco keeps one.
    let body = two_blank_lines(&out.to_file_string().expect("genco formats Python"));
    let build = if base.is_some() { "unstable" } else { "stable" };
    let imports = match &base {
        Some((path, names)) if !names.is_empty() => {
            let names: Vec<String> = names.iter().map(|n| format!("    {n} as {n},\n")).collect();
            format!(
                "\n# What both builds have alike: the stable module's items.\nfrom {path} import (\n{})\n",
                names.concat()
            )
        }
        _ => String::new(),
    };
    let source = &module.source;
    let uses = |n: &str| body.contains(n);
    let mut typing: Vec<&str> = vec!["TYPE_CHECKING", "Any", "Literal", "TypeAlias", "Union", "Annotated"];
    typing.retain(|n| uses(n));
    isort(&mut typing);
    let mut msgspec: Vec<&str> = vec!["Meta", "Struct", "UNSET", "UnsetType", "field"];
    msgspec.retain(|n| uses(n));
    isort(&mut msgspec);
    let runtime = if uses("UnknownArm") { "\nfrom acp_bindings._runtime import UnknownArm\n" } else { "" };
    format!(
        "# @generated by `cargo xtask codegen` from `{source}`.\n\
         # Do not edit: change the generator (`xtask/src/py/`) or its inputs and run `cargo xtask codegen`.\n\
         \"\"\"The types of the ACP schema `{source}` ({build}), as msgspec structs.\"\"\"\n\n\
         from __future__ import annotations\n\n\
         from typing import {}\n\n\
         from msgspec import {}\n{runtime}{imports}\n\n{body}",
        typing.join(", "),
        msgspec.join(", "),
    )
}

/// A docstring: the text between triple quotes, escaped, its lines after
/// the first `indent` spaces in (where the docstring's first line is).
fn docstring(text: &str, indent: usize) -> String {
    let text = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let pad = " ".repeat(indent);
    let lines: Vec<String> = text
        .trim_end()
        .lines()
        .enumerate()
        .map(|(i, l)| if i == 0 || l.is_empty() { l.to_owned() } else { format!("{pad}{l}") })
        .collect();
    let text = lines.join("\n");
    if lines.len() > 1 {
        format!("\"\"\"{text}\n{pad}\"\"\"")
    } else if text.ends_with('"') {
        format!("\"\"\"{text} \"\"\"")
    } else {
        format!("\"\"\"{text}\"\"\"")
    }
}

/// Names in the order isort (and ruff) gives them: constants, then classes,
/// then the rest, each group by name regardless of case.
fn isort<S: AsRef<str>>(names: &mut [S]) {
    names.sort_by_key(|n| {
        let n = n.as_ref();
        let rank = if n.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            0
        } else if n.starts_with(|c: char| c.is_ascii_uppercase()) {
            1
        } else {
            2
        };
        (rank, n.to_lowercase(), n.to_string())
    });
}

/// `text` with a second blank line before each top-level statement.
fn two_blank_lines(text: &str) -> String {
    let starts = |l: &str| {
        l.starts_with("class ")
            || l.starts_with("if TYPE_CHECKING:")
            || l.split_once(": TypeAlias = ").is_some_and(|(n, _)| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
    };
    let mut out = String::with_capacity(text.len() + text.len() / 20);
    let mut blank = 0;
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 && blank == 1 && starts(line) {
            out.push('\n');
        }
        blank = if line.is_empty() { blank + 1 } else { 0 };
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// A string literal.
fn string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// A field's Python name: the Rust field's, or with `_` after a keyword.
fn field_name(f: &Field) -> String {
    let n = f.rust_name.trim_start_matches("r#").to_owned();
    if KEYWORDS.contains(&n.as_str()) {
        format!("{n}_")
    } else {
        n
    }
}

impl Renderer<'_> {
    /// The item name of a schema definition.
    fn name(&self, schema_name: &str) -> String {
        self.decisions.names.get(schema_name).cloned().unwrap_or_else(|| schema_name.to_owned())
    }

    /// The Python type of `t`.
    fn ty(&self, t: &Type) -> String {
        match t {
            Type::String { min_length, max_length, pattern, .. } => {
                let mut meta = Vec::new();
                if let Some(m) = min_length.filter(|m| *m > 0) {
                    meta.push(format!("min_length={m}"));
                }
                if let Some(m) = max_length {
                    meta.push(format!("max_length={m}"));
                }
                if let Some(p) = pattern {
                    meta.push(format!("pattern={}", string(p)));
                }
                annotated("str", &meta)
            }
            Type::Char => annotated("str", &["min_length=1".into(), "max_length=1".into()]),
            Type::Base64 => "str".into(),
            Type::Integer { format, .. } => {
                let (lo, hi) = format.range();
                let (min, max) = t.checked_bounds();
                // msgspec checks bounds within 64 bits (it reads no integer past `u64`).
                let fits = |b: i128| i64::try_from(b).is_ok();
                let bounds = [("ge", min.unwrap_or(lo)), ("le", max.unwrap_or(hi))];
                let meta: Vec<String> =
                    bounds.iter().filter(|(_, b)| fits(*b)).map(|(k, b)| format!("{k}={b}")).collect();
                annotated("int", &meta)
            }
            Type::Number { min, max, .. } => {
                let mut meta = Vec::new();
                if let Some(m) = min {
                    meta.push(format!("ge={m:?}"));
                }
                if let Some(m) = max {
                    meta.push(format!("le={m:?}"));
                }
                annotated("float", &meta)
            }
            Type::Boolean => "bool".into(),
            Type::Null => "None".into(),
            Type::Any => "Any".into(),
            Type::Object => "dict[str, Any]".into(),
            Type::Ref(r) => self.name(r),
            Type::Array { items, min_items, max_items, nullable_items, .. } => {
                let item = self.ty(items);
                let item = if *nullable_items { format!("Union[{item}, None]") } else { item };
                let mut meta = Vec::new();
                if let Some(m) = min_items.filter(|m| *m > 0) {
                    meta.push(format!("min_length={m}"));
                }
                if let Some(m) = max_items {
                    meta.push(format!("max_length={m}"));
                }
                annotated(&format!("list[{item}]"), &meta)
            }
            Type::Tuple(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| {
                        let t = self.ty(&i.ty);
                        if i.nullable {
                            format!("Union[{t}, None]")
                        } else {
                            t
                        }
                    })
                    .collect();
                format!("tuple[{}]", items.join(", "))
            }
            Type::Map { values, nullable_values } => {
                let v = self.ty(values);
                let v = if *nullable_values { format!("Union[{v}, None]") } else { v };
                format!("dict[str, {v}]")
            }
        }
    }

    /// The JSON types a value of `t` may be, as msgspec tells union arms apart.
    fn json(&self, t: &Type, seen: &mut BTreeSet<String>) -> BTreeSet<Json> {
        let one = |j| BTreeSet::from([j]);
        match t {
            Type::String { .. } | Type::Char | Type::Base64 => one(Json::Str),
            Type::Integer { .. } => one(Json::Int),
            Type::Number { .. } => one(Json::Float),
            Type::Boolean => one(Json::Bool),
            Type::Null => one(Json::Null),
            Type::Any => one(Json::Any),
            Type::Object | Type::Map { .. } => one(Json::Object),
            Type::Array { .. } | Type::Tuple(_) => one(Json::Array),
            Type::Ref(r) => {
                if !seen.insert(r.clone()) {
                    return one(Json::Any);
                }
                let Some(d) = self.defs.get(r.as_str()) else { return one(Json::Any) };
                match &d.kind {
                    Kind::Struct(_) => one(Json::Object),
                    Kind::Enum(e) => match e.repr {
                        EnumRepr::String => one(Json::Str),
                        EnumRepr::Integer(_) => one(Json::Int),
                    },
                    Kind::Union(u) if u.tag.is_some() => one(Json::Object),
                    Kind::Union(u) => match self.untagged_arms(u) {
                        Some(js) => js,
                        None => one(Json::Any),
                    },
                    Kind::Newtype(t) => self.json(t, seen),
                    Kind::Alias(a) => self.json(&Type::Ref(a.clone()), seen),
                    Kind::Any | Kind::Opaque(_) => one(Json::Any),
                }
            }
        }
    }

    /// The JSON types of an untagged union's arms, when msgspec can tell
    /// every arm apart by them (`None` otherwise).
    fn untagged_arms(&self, u: &Union) -> Option<BTreeSet<Json>> {
        let mut all = BTreeSet::new();
        for v in &u.variants {
            let js = match &v.payload {
                Payload::Type(t) => self.json(t, &mut BTreeSet::new()),
                Payload::Unit | Payload::NoTag => BTreeSet::from([Json::Null]),
            };
            for j in js {
                if j == Json::Any || !all.insert(j) {
                    return None;
                }
            }
        }
        Some(all)
    }

    fn class(&self, out: &mut python::Tokens, d: &Def) {
        let Kind::Struct(s) = &d.kind else { return };
        let mut config = vec!["Struct".to_owned(), "kw_only=True".to_owned()];
        if s.additional == Additional::False {
            config.push("forbid_unknown_fields=True".into());
        }
        let fields: Vec<&Field> = s.fields.iter().collect();
        let Some(u) = self.extended_by(d) else {
            self.write_class(out, &self.name(&d.name), &config.join(", "), &class_docs(d, s), &fields);
            return;
        };
        // The properties every arm has, then each arm with its own.
        let base = &self.bases[&d.name];
        let docs = d.docs.clone().unwrap_or_default()
            + &format!("\n\nThe properties every variant of `{}` has: each variant is a subclass.", self.name(&d.name));
        self.write_class(out, base, &config.join(", "), docs.trim_start(), &fields);
        let tag = u.tag.as_ref().expect("a tagged union");
        for v in &u.variants {
            let Some(class) = self.arm_classes.get(&(d.name.clone(), v.rust_name.clone())) else { continue };
            let own: Vec<&Field> = match &v.payload {
                Payload::Type(Type::Ref(r)) => match self.defs.get(r.as_str()).map(|p| &p.kind) {
                    Some(Kind::Struct(p)) => p.fields.iter().collect(),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            let (config, docs) = match &v.tag {
                Some(value) => (
                    format!("{base}, kw_only=True, tag_field={}, tag={}", string(&tag.property), string(value)),
                    v.docs.clone().unwrap_or_else(|| format!("`{}` `{value}`.", tag.property)),
                ),
                None => (
                    format!("{base}, kw_only=True"),
                    v.docs.clone().unwrap_or_else(|| format!("`{}` absent or `null`.", tag.property)),
                ),
            };
            self.write_class(out, class, &config, &docs, &own);
        }
    }

    /// `class name(config):` with its docstring and fields.
    fn write_class(&self, out: &mut python::Tokens, name: &str, config: &str, docs: &str, fields: &[&Field]) {
        let fields: Vec<(String, Option<String>)> = fields.iter().map(|f| (self.field(f), f.docs.clone())).collect();
        quote_in! { *out =>
            class $name($config):
                $(docstring(docs, 4))
                $(for (line, doc) in &fields =>
                    $['\n']
                    $line
                    $(if let Some(doc) = doc => $['\r']$(docstring(doc, 4))))
        }
        out.line();
        out.line();
    }

    /// A field's declaration: `name: T = default`, its wire name with `field`.
    fn field(&self, f: &Field) -> String {
        let plan = self.decisions.fields.get(f);
        let t = self.ty(&f.ty);
        let py = field_name(f);
        let (ty, default) = match plan.repr {
            Repr::Value => (t, None),
            Repr::RequiredNullable => (format!("{t} | None"), None),
            Repr::Optional => (format!("{t} | UnsetType"), Some("UNSET")),
            Repr::OptionalAny => ("Any".to_owned(), Some("UNSET")),
            Repr::Nullable | Repr::Patch => (format!("{t} | None | UnsetType"), Some("UNSET")),
        };
        let renamed = py != f.name;
        let value = match (default, renamed) {
            (None, false) => String::new(),
            (Some(d), false) => format!(" = {d}"),
            (None, true) => format!(" = field(name={})", string(&f.name)),
            (Some(d), true) => format!(" = field(default={d}, name={})", string(&f.name)),
        };
        format!("{py}: {ty}{value}")
    }

    /// A tagged union's arm classes: each its payload's struct with the discriminator fixed.
    fn arm_classes_of(&self, out: &mut python::Tokens, d: &Def, u: &Union) {
        let Some(tag) = &u.tag else { return };
        for v in &u.variants {
            let (Some(tag_value), Some(base)) = (&v.tag, self.arm_base(v)) else { continue };
            let class = &self.arm_classes[&(d.name.clone(), v.rust_name.clone())];
            let config =
                format!("{base}, kw_only=True, tag_field={}, tag={}", string(&tag.property), string(tag_value));
            let docs = v.docs.clone().unwrap_or_else(|| format!("`{}` `{tag_value}`.", tag.property));
            quote_in! { *out =>
                class $class($config):
                    $(docstring(&docs, 4))
            }
            out.line();
            out.line();
        }
    }

    /// The definitions written as aliases, each after every alias its value
    /// names (a class's annotations are read later, an alias's value at once).
    fn aliases_in_order<'d>(walked: &[&'d Def], extended: impl Fn(&Def) -> bool) -> Vec<&'d Def> {
        let aliases: Vec<&Def> =
            walked.iter().copied().filter(|d| extended(d) || !matches!(d.kind, Kind::Struct(_))).collect();
        let names: BTreeSet<&str> = aliases.iter().map(|d| d.name.as_str()).collect();
        let by_name: BTreeMap<&str, &'d Def> = walked.iter().map(|d| (d.name.as_str(), *d)).collect();
        let mut done: BTreeSet<&str> = BTreeSet::new();
        let mut out = Vec::new();
        fn visit<'d>(
            d: &'d Def,
            by_name: &BTreeMap<&str, &'d Def>,
            names: &BTreeSet<&str>,
            done: &mut BTreeSet<&'d str>,
            out: &mut Vec<&'d Def>,
        ) {
            if !done.insert(d.name.as_str()) {
                return;
            }
            for r in d.refs.iter().filter(|r| names.contains(r.as_str())) {
                if let Some(next) = by_name.get(r.as_str()) {
                    visit(next, by_name, names, done, out);
                }
            }
            out.push(d);
        }
        for d in &aliases {
            visit(d, &by_name, &names, &mut done, &mut out);
        }
        out
    }

    /// The class an arm of a tagged union's class extends, when the arm has
    /// one: an arm with a discriminator value whose payload is an object
    /// (or nothing but the discriminator).
    fn arm_base(&self, v: &Variant) -> Option<String> {
        v.tag.as_ref()?;
        match &v.payload {
            Payload::Type(Type::Ref(r)) if self.is_struct(r) => Some(self.name(r)),
            Payload::Unit => Some("Struct".to_owned()),
            _ => None,
        }
    }

    /// Whether definition `r` is one class (an object, not one a union extends).
    fn is_struct(&self, r: &str) -> bool {
        self.defs.get(r).is_some_and(|d| matches!(d.kind, Kind::Struct(_)) && self.extended_by(d).is_none())
    }

    /// A definition that is not an object: a type alias, with its docs.
    fn alias(&self, out: &mut python::Tokens, d: &Def) {
        let name = self.name(&d.name);
        let (value, runtime) = match &d.kind {
            Kind::Struct(_) => match self.extended_by(d) {
                Some(u) => {
                    let class = |v: &Variant| self.arm_classes.get(&(d.name.clone(), v.rust_name.clone())).cloned();
                    let mut arms: Vec<String> = u.variants.iter().filter_map(class).collect();
                    let known: Vec<String> = u.variants.iter().filter(|v| v.tag.is_some()).filter_map(class).collect();
                    if u.catch_all.is_some() {
                        arms.push("UnknownArm".into());
                    }
                    let runtime = if arms.len() == known.len() { None } else { Some(union_of(&known)) };
                    (union_of(&arms), runtime)
                }
                None => return,
            },
            Kind::Enum(e) => {
                let values: Vec<String> = e.variants.iter().map(|v| v.value.to_string()).collect();
                let known = format!("Literal[{}]", values.join(", "));
                // An open integer enum takes any integer of its format, as the crate does.
                let open = match e.repr {
                    EnumRepr::String => "str".to_owned(),
                    EnumRepr::Integer(format) => self.ty(&Type::Integer { format, min: None, max: None }),
                };
                if e.fallback.is_some() {
                    (format!("Union[{known}, {open}]"), None)
                } else {
                    (known, None)
                }
            }
            Kind::Union(u) if u.tag.is_some() => {
                let mut arms: Vec<String> = Vec::new();
                let mut known: Vec<String> = Vec::new();
                for v in &u.variants {
                    match (&v.payload, self.arm_classes.get(&(d.name.clone(), v.rust_name.clone()))) {
                        (Payload::Type(Type::Ref(r)), Some(c)) if self.is_struct(r) && v.tag.is_some() => {
                            arms.push(c.clone());
                            known.push(c.clone());
                        }
                        (Payload::Unit, Some(c)) if v.tag.is_some() => {
                            arms.push(c.clone());
                            known.push(c.clone());
                        }
                        (Payload::Type(t), _) => arms.push(self.ty(t)),
                        (Payload::NoTag | Payload::Unit, _) => arms.push("None".into()),
                    }
                }
                if u.catch_all.is_some() {
                    arms.push("UnknownArm".into());
                }
                let typed = format!("Union[{}]", arms.join(", "));
                let runtime = if arms.len() == known.len() { None } else { Some(union_of(&known)) };
                (typed, runtime)
            }
            Kind::Union(u) => {
                let arms: Vec<String> = u
                    .variants
                    .iter()
                    .map(|v| match &v.payload {
                        Payload::Type(t) => self.ty(t),
                        Payload::Unit | Payload::NoTag => "None".into(),
                    })
                    .collect();
                let typed = union_of(&arms);
                let runtime = if self.untagged_arms(u).is_some() { None } else { Some("Any".to_owned()) };
                (typed, runtime)
            }
            Kind::Newtype(t) => (self.ty(t), None),
            Kind::Alias(a) => (self.name(a), None),
            Kind::Any | Kind::Opaque(_) => ("Any".to_owned(), None),
        };
        let docs = d.docs.clone();
        match runtime {
            None => quote_in! { *out =>
                $(format!("{name}: TypeAlias = {value}"))
                $(if let Some(doc) = &docs => $(docstring(doc, 0)))
            },
            Some(runtime) => quote_in! { *out =>
                if TYPE_CHECKING:
                    $(format!("{name}: TypeAlias = {value}"))
                else:
                    $(format!("# What msgspec reads: {}.", runtime_reason(&d.kind)))
                    $(format!("{name} = {runtime}"))
                $(if let Some(doc) = &docs => $(docstring(doc, 0)))
            },
        }
        out.line();
        out.line();
    }
}

/// Why a union's runtime type is not its arms.
fn runtime_reason(k: &Kind) -> &'static str {
    match k {
        Kind::Union(u) if u.tag.is_some() => "the known arms (an unknown one is read without msgspec)",
        Kind::Struct(_) => "the arms with a discriminator value (the others are read without msgspec)",
        _ => "any value (msgspec cannot tell these arms apart by their JSON type)",
    }
}

/// `Union[...]` of `arms` (one arm alone as itself).
fn union_of(arms: &[String]) -> String {
    match arms {
        [one] => one.clone(),
        _ => format!("Union[{}]", arms.join(", ")),
    }
}

/// `base` with msgspec's constraints, when there are any.
fn annotated(base: &str, meta: &[String]) -> String {
    if meta.is_empty() {
        base.to_owned()
    } else {
        format!("Annotated[{base}, Meta({})]", meta.join(", "))
    }
}

/// A class's docstring: the definition's docs, and what the class does not type yet.
fn class_docs(d: &Def, s: &Struct) -> String {
    let mut docs = d.docs.clone().unwrap_or_else(|| format!("`{}`.", d.name));
    if s.flatten.is_some() {
        docs.push_str("\n\nThe properties of the untagged union this object extends are not typed yet.");
    }
    docs
}

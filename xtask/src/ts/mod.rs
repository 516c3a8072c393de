//! The TypeScript target: the types of a schema file's definitions, from the
//! same model and plan as the Rust crate, written with genco's TypeScript
//! quasi-quoting into `ts/src/generated/` (the hand-written `ts/src/runtime.ts`
//! has what they name: `JsonValue`, `JsonObject`, `Patch`, `UnknownArm`,
//! `OpenString`, `OpenNumber`).
//!
//! What the schema says, as types: an object is an interface, its optional
//! properties optional (`?`), its nullable ones `| null`, an upsert patch's
//! fields `Patch<T>` (omitted keeps, `null` clears, a value sets); an object
//! that keeps unknown members says so with an index signature. A tagged
//! union is a discriminated union whose unknown arm (`UnknownArm<"tag">`)
//! keeps its discriminator and every member; an open enum is its known
//! values and `OpenString`, so the known values still complete in an editor.
//!
//! A version's stable file is a module of its own ([`module`]); its unstable
//! file is written as a difference ([`unstable_module`]): the stable module's
//! items re-exported where the merged plan has one item for both builds and
//! nothing the item reaches differs, and only the rest written again.

mod shapes;

use std::collections::{BTreeMap, BTreeSet};

use genco::prelude::*;
use shapes::prop;

use crate::model::*;
use crate::plan::reducer::Reducer;
use crate::plan::{Decisions, Payloads, Plan};

/// The TypeScript module of a version's stable schema file, or of a file
/// alone: every definition of `module`, with `plan`'s decisions about the
/// stable build and the payloads' decisions in it.
pub fn module(plan: &Plan<'_>, module: &Module, payloads: &Payloads, reducer: Option<&Reducer>) -> String {
    let file = File { module, decisions: &plan.stable, payloads, unstable: false, reducer };
    render(&file, None)
}

/// The TypeScript module of one schema file alone (a fixture, a schema
/// previewed with `--schema`): every definition always there.
pub fn single(module: &Module) -> String {
    let plan = Plan::single(module);
    self::module(&plan, module, &plan.payloads(), None)
}

/// The TypeScript module of a version's unstable schema file, as a
/// difference from the stable one (`stable_file`, the stem its module is
/// written to): a definition the merged plan renders once for both builds
/// ([`Gate::Always`](crate::plan::Gate::Always)) is re-exported from the stable module unless a
/// definition it names, directly or further down, is written here; the
/// others (added in the unstable schema, or of another shape there) are
/// written here. The tables (`shapes`, `methods`, `upserts`) are the stable
/// module's with this file's entries that differ put over them.
pub fn unstable_module(
    plan: &Plan<'_>,
    stable: &Module,
    unstable: &Module,
    payloads: &Payloads,
    stable_file: &str,
    reducer: Option<&Reducer>,
) -> String {
    let base = File { module: stable, decisions: &plan.stable, payloads, unstable: false, reducer };
    let file = File { module: unstable, decisions: &plan.unstable, payloads, unstable: true, reducer };
    let shared = plan.shared_with_stable(unstable);
    render(&file, Some(Base { file: stable_file, tables: shapes::Tables::of(&base), shared }))
}

/// The decoding tables of one build of a version (its stable file, or its
/// unstable file with `unstable`) as one JSON document
/// (`shapes::Tables::json`), complete rather than a difference: the data
/// the Python package's runtime reads by the same rules as `decode.ts`.
pub fn tables_json(
    plan: &Plan<'_>,
    module: &Module,
    payloads: &Payloads,
    reducer: Option<&Reducer>,
    unstable: bool,
) -> String {
    let decisions = if unstable { &plan.unstable } else { &plan.stable };
    let file = File { module, decisions, payloads, unstable, reducer };
    shapes::Tables::of(&file).json()
}

/// The types a generated module imports from `runtime.ts`.
const RUNTIME_NAMES: &[&str] = &["JsonObject", "JsonValue", "OpenNumber", "OpenString", "Patch", "UnknownArm"];

/// One schema file as the TypeScript target reads it: its definitions, the
/// plan's decisions about them, and the payload decisions of its build.
struct File<'a> {
    module: &'a Module,
    decisions: &'a Decisions,
    payloads: &'a Payloads,
    /// The build the file's payload decisions are taken from.
    unstable: bool,
    /// The version's session reducer, when the configuration gives it one.
    reducer: Option<&'a Reducer>,
}

/// What an unstable module takes from its stable module.
struct Base<'a> {
    /// The stable module's file stem (`v1`).
    file: &'a str,
    /// The stable module's tables, to write only the entries that differ.
    tables: shapes::Tables,
    /// The definitions (schema names) re-exported from the stable module.
    shared: BTreeSet<&'a str>,
}

fn render(file: &File<'_>, base: Option<Base<'_>>) -> String {
    let module = file.module;
    let rt = Runtime { taken: module.defs.iter().flat_map(Def::walk).map(|d| d.rust_name.clone()).collect() };
    // The body is written first: a module imports only the names it uses.
    let mut out = js::Tokens::new();
    let body = render_body(file, &base, &rt, &mut out);
    let used = |n: &str| {
        let local = rt.name(n);
        body.match_indices(local.as_str()).any(|(i, _)| {
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
            !word(body[..i].chars().next_back()) && !word(body[i + local.len()..].chars().next())
        })
    };
    let imports = |file: &str, values: &[&'static str], types: &[&'static str]| {
        let values: Vec<&str> = values.iter().copied().filter(|n| used(n)).collect();
        let types: Vec<&str> = types.iter().copied().filter(|n| used(n)).collect();
        let mut names: Vec<String> = values.iter().map(|n| rt.import(n)).collect();
        let all_types = values.is_empty();
        names.extend(types.iter().map(|n| if all_types { rt.import(n) } else { format!("type {}", rt.import(n)) }));
        let kw = if all_types { "import type" } else { "import" };
        if names.is_empty() {
            String::new()
        } else {
            format!("{kw} {{ {} }} from \"../{file}.js\";\n", names.join(", "))
        }
    };
    let codec = imports(
        "codec",
        &["Codec"],
        &["AnyMessage", "Envelope", "ExtensionNotification", "ExtensionRequest", "ExtensionResponse"],
    );
    let tables = shapes::Tables::of(file);
    let shape_values: &[&str] =
        if base.as_ref().is_some_and(|b| b.tables.removed_from(&tables)) { &["without"] } else { &[] };
    let shape_types: &[&str] = if file.reducer.is_some() {
        &["Methods", "ReducerShape", "Shapes", "Upserts"]
    } else {
        &["Methods", "Shapes", "Upserts"]
    };
    let shape = imports("shape", shape_values, shape_types);
    let runtime = imports("runtime", &[], RUNTIME_NAMES);
    let source = &module.source;
    // A blank line before the items; the stable module's import stays with the others.
    let gap = if body.starts_with("import") { "" } else { "\n" };
    format!(
        "// @generated by `cargo xtask codegen` from `{source}`.\n\
         // Do not edit: change the generator (`xtask/src/ts/`) or its inputs and run `cargo xtask codegen`.\n\n\
         {codec}{shape}{runtime}{gap}{body}"
    )
}

/// Everything after the imports: the stable module's re-exports, the types and the tables.
fn render_body(file: &File<'_>, base: &Option<Base<'_>>, rt: &Runtime, out: &mut js::Tokens) -> String {
    let module = file.module;
    let tables = shapes::Tables::of(file);
    out.push();
    let walked: Vec<&Def> = module.defs.iter().flat_map(Def::walk).collect();
    let is_shared = |d: &Def| base.as_ref().is_some_and(|b| b.shared.contains(d.name.as_str()));
    // The re-exported items' TypeScript names, in the module's order.
    // An upsert's state type goes with its patch type.
    let shared: Vec<String> = walked
        .iter()
        .filter(|d| is_shared(d))
        .flat_map(|d| std::iter::once(d.rust_name.clone()).chain(d.upsert.as_ref().map(|u| u.state.clone())))
        .collect();
    if let Some(b) = &base {
        quote_in!(*out => $(format!("import * as stable from \"./{}.js\";", b.file)));
        out.push();
        if !shared.is_empty() {
            out.line();
            quote_in! { *out =>
                $("// What both builds have alike: the stable module's items.")
            }
            out.push();
            for line in name_list("import type {", &shared, &format!("}} from \"./{}.js\";", b.file)) {
                quote_in!(*out => $line);
                out.push();
            }
            for line in name_list("export type {", &shared, "};") {
                quote_in!(*out => $line);
                out.push();
            }
        }
    }
    let written: Vec<&Def> = walked.iter().copied().filter(|d| !is_shared(d)).collect();
    let mut e = Emitter { decisions: file.decisions, rt, hoisted: Hoisted::default() };
    let objects: Vec<Vec<Member>> = written
        .iter()
        .filter_map(|d| match &d.kind {
            Kind::Struct(s) => Some(e.members(s)),
            _ => None,
        })
        .collect();
    let mut taken = rt.taken.clone();
    taken.extend(RUNTIME_NAMES.iter().map(|n| n.to_string()));
    taken.insert("Types".into());
    e.hoisted = Hoisted::of(&objects, &taken);
    e.hoisted.emit(out);
    for def in &written {
        out.line();
        e.item(out, def);
        if let (Some(u), Kind::Struct(st)) = (&def.upsert, &def.kind) {
            out.line();
            e.state(out, def, &u.state, st);
        }
    }
    if let Some(r) = file.reducer {
        out.line();
        e.reducer_state(out, r);
    }
    shapes::emit(out, file, &tables, base.as_ref().map(|b| (&b.tables, shared.as_slice())), rt);
    std::mem::take(out).to_file_string().expect("genco formats TypeScript")
}

/// `open names close` over as many lines as it takes to stay in
/// [`shapes::WIDTH`] characters: the names four spaces in.
fn name_list(open: &str, names: &[String], close: &str) -> Vec<String> {
    let one = format!("{open} {} {close}", names.join(", "));
    if one.len() <= shapes::WIDTH {
        return vec![one];
    }
    let mut lines = vec![open.to_owned()];
    let mut line = String::new();
    for n in names {
        if !line.is_empty() && line.len() + n.len() + 2 > shapes::WIDTH {
            lines.push(std::mem::take(&mut line));
        }
        if line.is_empty() {
            line.push_str("    ");
        } else {
            line.push(' ');
        }
        line.push_str(n);
        line.push(',');
    }
    lines.push(line);
    lines.push(close.to_owned());
    lines
}

struct Emitter<'a> {
    decisions: &'a Decisions,
    rt: &'a Runtime,
    hoisted: Hoisted,
}

/// A property of an object as written: its wire name, docs and declaration.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Member {
    name: String,
    docs: Option<String>,
    decl: String,
}

impl Member {
    /// The member with its TSDoc, on lines of its own.
    fn write(&self, out: &mut js::Tokens) {
        doc(out, self.docs.as_deref());
        quote_in!(*out => $(&self.decl));
        out.push();
    }
}

/// The members many objects of a module declare alike (`_meta`, with the
/// same type and docs), each written once in an interface of its own
/// (`WithMeta`) that those objects extend: a property name's most common
/// declaration, where at least [`Hoisted::MIN`] objects have it and the
/// interface's name is free.
#[derive(Debug, Default)]
struct Hoisted {
    /// The interface of each hoisted member, by member.
    bases: BTreeMap<Member, String>,
}

impl Hoisted {
    const MIN: usize = 4;

    /// The hoisted members of the objects `members` lists, avoiding the names in `taken`.
    fn of(members: &[Vec<Member>], taken: &BTreeSet<String>) -> Hoisted {
        let mut count: BTreeMap<&Member, usize> = BTreeMap::new();
        for m in members.iter().flatten() {
            *count.entry(m).or_default() += 1;
        }
        let mut best: BTreeMap<&str, (&Member, usize)> = BTreeMap::new();
        for (m, n) in count {
            if n >= Self::MIN && best.get(m.name.as_str()).is_none_or(|(_, b)| n > *b) {
                best.insert(&m.name, (m, n));
            }
        }
        let mut bases = BTreeMap::new();
        for (name, (m, _)) in best {
            let words = heck::ToUpperCamelCase::to_upper_camel_case(name);
            let base = format!("With{words}");
            if !words.is_empty() && !taken.contains(&base) && !bases.values().any(|b| b == &base) {
                bases.insert(m.clone(), base);
            }
        }
        Hoisted { bases }
    }

    /// The interface member `m` is hoisted into, if it is.
    fn base(&self, m: &Member) -> Option<&str> {
        self.bases.get(m).map(String::as_str)
    }

    /// The interfaces, in name order.
    fn emit(&self, out: &mut js::Tokens) {
        let mut by_name: Vec<(&String, &Member)> = self.bases.iter().map(|(m, b)| (b, m)).collect();
        by_name.sort();
        for (base, m) in by_name {
            out.line();
            doc(out, Some(&format!("The `{}` member many objects of this module share.", m.name)));
            let mut inner = js::Tokens::new();
            m.write(&mut inner);
            quote_in! { *out =>
                export interface $base {
                    $inner
                }
            }
        }
    }
}

/// The names the generated module takes from the hand-written runtime, each
/// imported as `Acp<Name>` where a definition of the schema has that name.
pub struct Runtime {
    taken: std::collections::BTreeSet<String>,
}

impl Runtime {
    /// The local name of runtime item `name`.
    pub fn name(&self, name: &str) -> String {
        if self.taken.contains(name) {
            format!("Acp{name}")
        } else {
            name.to_owned()
        }
    }

    /// `name`, or `name as AcpName`, for an import list.
    fn import(&self, name: &str) -> String {
        let local = self.name(name);
        if local == name {
            local
        } else {
            format!("{name} as {local}")
        }
    }
}

/// TSDoc for `docs` (nothing without): a one-line text on one line.
fn doc(out: &mut js::Tokens, docs: Option<&str>) {
    let Some(text) = docs else { return };
    let text = text.replace("*/", "*\\/");
    if text.lines().count() == 1 {
        quote_in!(*out => $(format!("/** {} */", text.trim())));
        out.push();
        return;
    }
    quote_in! { *out =>
        $("/**")
        $(for line in text.lines() => $(if line.is_empty() { $(" *") } else { $(format!(" * {line}")) })$['\r'])
        $(" */")
    }
    out.push();
}

impl Emitter<'_> {
    fn name(&self, schema_name: &str) -> String {
        self.decisions.names.get(schema_name).cloned().unwrap_or_else(|| schema_name.to_owned())
    }

    /// The TypeScript type of a value type.
    fn ty(&self, t: &Type) -> String {
        match t {
            Type::String { .. } | Type::Char | Type::Base64 => "string".into(),
            Type::Integer { .. } | Type::Number { .. } => "number".into(),
            Type::Boolean => "boolean".into(),
            Type::Null => "null".into(),
            Type::Any => self.rt.name("JsonValue"),
            Type::Object => self.rt.name("JsonObject"),
            Type::Ref(r) => self.name(r),
            Type::Array { items, nullable_items, .. } => {
                let item = self.ty(items);
                if *nullable_items {
                    format!("({item} | null)[]")
                } else {
                    format!("{item}[]")
                }
            }
            Type::Tuple(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| if i.nullable { format!("{} | null", self.ty(&i.ty)) } else { self.ty(&i.ty) })
                    .collect();
                format!("[{}]", items.join(", "))
            }
            Type::Map { values, nullable_values } => {
                let v = self.ty(values);
                let v = if *nullable_values { format!("{v} | null") } else { v };
                format!("{{ [key: string]: {v} }}")
            }
        }
    }

    /// The state an upsert's patches build (`SessionReducer`), every property present: the
    /// key and the properties on the wire every time as they are, an optional one `| null`
    /// (unset), a list or a property that resets as its value, `_meta` an object or `null`.
    fn state(&self, out: &mut js::Tokens, def: &Def, name: &str, s: &Struct) {
        use crate::plan::StateRepr;
        let docs = format!(
            "The state [`{}`] patches build, as `SessionReducer` holds it: every property present.",
            def.rust_name
        );
        doc(out, Some(&docs));
        let mut inner = js::Tokens::new();
        for f in &s.fields {
            let t = self.ty(&f.ty);
            let t = match self.decisions.fields.get(f).state_repr() {
                StateRepr::Key | StateRepr::Required | StateRepr::List | StateRepr::Reset(_) | StateRepr::AnyValue => t,
                StateRepr::Optional | StateRepr::ByKey => format!("{t} | null"),
            };
            doc(&mut inner, f.docs.as_deref());
            quote_in!(inner => $(format!("{}: {t};", prop(&f.name))));
            inner.push();
        }
        quote_in! { *out =>
            export interface $name {
                $inner
            }
        }
    }

    /// `ReducerState`: what `SessionReducer.toJSON()` gives, collection by collection.
    fn reducer_state(&self, out: &mut js::Tokens, r: &crate::plan::reducer::Reducer) {
        use crate::plan::reducer::Held;
        doc(
            out,
            Some("What `SessionReducer.toJSON()` gives: each collection by key in first-seen order, or one state."),
        );
        let mut inner = js::Tokens::new();
        for c in &r.collections {
            let t = match &c.holds {
                Held::Upsert(u) => format!("{{ [key: string]: {} }}", u.state),
                Held::Kinds { kinds, .. } => {
                    let arms: Vec<String> = kinds
                        .iter()
                        .map(|(tag, _, _, u)| {
                            format!("({} & {{ kind: {} }})", u.state, serde_json::Value::from(tag.as_str()))
                        })
                        .collect();
                    format!("{{ [key: string]: {} }}", arms.join(" | "))
                }
                Held::Whole { ty, .. } => format!("{{ [key: string]: {ty} }}"),
                Held::One(u) => format!("{} | null", u.state),
            };
            doc(&mut inner, Some(&c.doc));
            quote_in!(inner => $(format!("{}: {t};", prop(&c.name))));
            inner.push();
        }
        quote_in! { *out =>
            export interface ReducerState {
                $inner
            }
        }
    }

    fn item(&self, out: &mut js::Tokens, def: &Def) {
        doc(out, def.docs.as_deref());
        let name = def.rust_name.as_str();
        match &def.kind {
            Kind::Struct(s) => self.structure(out, name, s),
            Kind::Enum(e) => {
                let mut values: Vec<String> = e.variants.iter().map(|v| v.value.to_string()).collect();
                if e.fallback.is_some() {
                    values.push(self.rt.name(if matches!(e.repr, EnumRepr::String) {
                        "OpenString"
                    } else {
                        "OpenNumber"
                    }));
                }
                quote_in!(*out => export type $name = $(values.join(" | "));)
            }
            Kind::Union(u) => {
                let arms = self.arms(u);
                let one = format!("export type {name} = {};", arms.join(" | "));
                if one.len() <= shapes::WIDTH {
                    quote_in!(*out => $one);
                } else {
                    quote_in! { *out =>
                        export type $name =
                            $(for arm in &arms => $['\r']| $arm);
                    }
                }
            }
            Kind::Newtype(t) => {
                let t = self.ty(t);
                quote_in!(*out => export type $name = $t;)
            }
            Kind::Alias(target) => {
                let t = self.name(target);
                quote_in!(*out => export type $name = $t;)
            }
            Kind::Any | Kind::Opaque(_) => quote_in!(*out => export type $name = $(self.rt.name("JsonValue"));),
        }
    }

    /// The properties of an object, each with its docs.
    fn members(&self, s: &Struct) -> Vec<Member> {
        let mut members = Vec::new();
        for f in &s.fields {
            // How the plan holds the property (`plan::Repr`), as a TypeScript member.
            use crate::plan::Repr;
            let repr = self.decisions.fields.get(f).repr;
            let t = self.ty(&f.ty);
            let t = match repr {
                Repr::Patch => format!("{}<{t}>", self.rt.name("Patch")),
                Repr::RequiredNullable | Repr::Nullable => format!("{t} | null"),
                // `JsonValue` holds `null` already.
                Repr::OptionalAny | Repr::Value | Repr::Optional => t,
            };
            let optional = if matches!(repr, Repr::Value | Repr::RequiredNullable) { "" } else { "?" };
            let decl = format!("{}{optional}: {t};", prop(&f.name));
            members.push(Member { name: f.name.clone(), docs: f.docs.clone(), decl });
        }
        members
    }

    /// What an object is besides its own members: the interfaces holding
    /// the members it shares with many ([`Hoisted`]). The members its schema
    /// does not name are kept at run time (decoded and written back) but
    /// stay out of the declared shape, so that a misspelled member is a
    /// compile error when a value is built and when a property is read
    /// (`Extensible` reads them: `value as T & Extensible`).
    fn bases(&self, _s: &Struct, members: &[Member]) -> Vec<String> {
        members.iter().filter_map(|m| self.hoisted.base(m)).map(str::to_owned).collect()
    }

    fn structure(&self, out: &mut js::Tokens, name: &str, s: &Struct) {
        let members = self.members(s);
        let bases = self.bases(s, &members);
        let mut inner = js::Tokens::new();
        for m in members.iter().filter(|m| self.hoisted.base(m).is_none()) {
            m.write(&mut inner);
        }
        match &s.flatten {
            // The variant part is a union: the object is its members and one arm.
            Some(fl) => {
                let mut parts = bases;
                parts.push(self.name(&fl.union));
                let rest = parts.join(" & ");
                if inner.is_empty() {
                    quote_in!(*out => export type $name = $rest;)
                } else {
                    quote_in! { *out =>
                        export type $name = {
                            $inner
                        } & $rest;
                    }
                }
            }
            None => {
                let extends = if bases.is_empty() { String::new() } else { format!(" extends {}", bases.join(", ")) };
                if inner.is_empty() {
                    // No member of its own: what it shares, or an object with no declared member
                    // (an empty interface would take any value but `null`).
                    let alias = if bases.is_empty() { "Record<string, never>".to_owned() } else { bases.join(" & ") };
                    quote_in!(*out => $(format!("export type {name} = {alias};")))
                } else {
                    quote_in! { *out =>
                        export interface $name$extends {
                            $inner
                        }
                    }
                }
            }
        }
    }

    /// The arms of a union, as TypeScript types.
    fn arms(&self, u: &Union) -> Vec<String> {
        let key = u.tag.as_ref().map(|t| prop(&t.property));
        let mut arms: Vec<String> = u
            .variants
            .iter()
            .map(|v| match (&key, &v.tag, &v.payload) {
                (Some(k), Some(t), Payload::Unit) => format!("{{ {k}: {} }}", serde_json::Value::from(t.as_str())),
                (Some(k), Some(t), Payload::Type(ty)) => {
                    format!("({{ {k}: {} }} & {})", serde_json::Value::from(t.as_str()), self.ty(ty))
                }
                (Some(k), _, Payload::NoTag) => format!("{{ {k}?: null }}"),
                (_, _, Payload::Type(ty)) => self.ty(ty),
                (_, _, Payload::Unit) => "null".to_owned(),
                (None, _, Payload::NoTag) => "never".to_owned(),
            })
            .collect();
        if u.catch_all.is_some() {
            let tag =
                u.tag.as_ref().map_or("never".to_owned(), |t| serde_json::Value::from(t.property.as_str()).to_string());
            arms.push(format!("{}<{tag}>", self.rt.name("UnknownArm")));
        }
        arms
    }
}

//! The decoding plan of a schema file as TypeScript data: one shape per
//! definition (`shapes`), the JSON-RPC methods (`methods`), and the name of
//! every type (`Types`). The hand-written `ts/src/decode.ts` interprets the
//! shapes, so both targets read each property by the same rule of the plan
//! ([`ReadRule`]): the same leniency, bounds, string rules, item counts and
//! catch-all checks, with the same messages.

use genco::prelude::*;
use serde_json::{json, Map, Value};

use crate::model::*;
use crate::plan::{Decisions, NullMode, ReadRule, Repr};

mod json;
mod reducer;

/// The tables of one schema file: its definitions' names, shapes, methods
/// and upserts, each entry keyed as the module writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Tables {
    /// Every definition's TypeScript name, in the module's order.
    types: Vec<String>,
    shapes: Vec<(String, Value)>,
    methods: Vec<(String, Value)>,
    upserts: Vec<(String, Value)>,
    /// The session reducer of the file's build, as `session.ts` reads it.
    reducer: Vec<(String, Value)>,
}

impl Tables {
    /// The tables of `file`.
    pub fn of(file: &super::File<'_>) -> Tables {
        let defs: Vec<&Def> = file.module.defs.iter().flat_map(Def::walk).collect();
        let s = Shapes { decisions: file.decisions };
        Tables {
            types: defs.iter().map(|d| d.rust_name.clone()).collect(),
            shapes: defs.iter().map(|d| (prop(&d.rust_name), s.def(d))).collect(),
            methods: methods(file),
            upserts: upserts(&defs, file.decisions),
            reducer: file.reducer.map(|r| reducer::reducer(r, file.unstable)).unwrap_or_default(),
        }
    }

    /// Whether `other` lacks an entry these tables have (the unstable
    /// schema removed a definition or a method).
    pub fn removed_from(&self, other: &Tables) -> bool {
        let gone = |a: &[(String, Value)], b: &[(String, Value)]| a.iter().any(|(k, _)| !b.iter().any(|(l, _)| l == k));
        gone(&self.shapes, &other.shapes) || gone(&self.methods, &other.methods) || gone(&self.upserts, &other.upserts)
    }
}

/// A table: all of `entries`, or over `base` (a stable module's table,
/// `stable.<name>`) only those that differ from it, without those it lacks.
fn table_over(name: &str, entries: &[(String, Value)], base: Option<&[(String, Value)]>) -> js::Tokens {
    let mut t = js::Tokens::new();
    t.append("{");
    t.indent();
    match base {
        None => t.append(table(entries)),
        Some(base) => {
            let changed: Vec<(String, Value)> = entries.iter().filter(|e| !base.contains(e)).cloned().collect();
            let gone: Vec<Value> = base
                .iter()
                .filter(|(k, _)| !entries.iter().any(|(l, _)| l == k))
                .map(|(k, _)| Value::from(k.trim_matches('"')))
                .collect();
            if gone.is_empty() {
                t.append(format!("...stable.{name},"));
            } else {
                t.append(format!("...without(stable.{name}, {}),", lit(&Value::Array(gone))));
            }
            t.push();
            t.append(table(&changed));
        }
    }
    t.unindent();
    t.append("}");
    t
}

/// The type map, shapes, methods and upserts of `file` (its `tables`); for
/// an unstable file, over the stable module's tables (`base`, with the
/// names of the types the module re-exports from the stable one).
pub fn emit(
    out: &mut js::Tokens,
    file: &super::File<'_>,
    tables: &Tables,
    base: Option<(&Tables, &[String])>,
    rt: &super::Runtime,
) {
    let stable = base.map(|(t, _)| t);
    out.line();
    quote_in! { *out =>
        $("/** Every definition's type by its name: what `codec.decode(name, text)` gives. */")
    }
    out.push();
    match base {
        None => quote_in! { *out =>
            export interface Types {
                $(for n in &tables.types => $(prop(n)): $n;$['\r'])
            }
        },
        Some((b, shared)) => {
            // The stable map, but for the names this module writes or lacks.
            let local: Vec<&String> = tables.types.iter().filter(|n| !shared.contains(n)).collect();
            let omitted: Vec<String> = b
                .types
                .iter()
                .filter(|n| local.contains(n) || !tables.types.contains(n))
                .map(|n| Value::from(n.as_str()).to_string())
                .collect();
            let extends = if omitted.is_empty() {
                "stable.Types".to_owned()
            } else {
                format!("Omit<stable.Types, {}>", omitted.join(" | "))
            };
            quote_in! { *out =>
                export interface Types extends $extends {
                    $(for n in &local => $(prop(n)): $(*n);$['\r'])
                }
            }
        }
    }
    out.line();
    quote_in! { *out =>
        $("/**")
        $(" * How each definition decodes: the plan's rule for every property,")
        $(" * interpreted by `decode.ts` (see there for what each member means).")
        $(" */")
        export const shapes: $(rt.name("Shapes")) = $(table_over("shapes", &tables.shapes, stable.map(|b| b.shapes.as_slice())));
    };
    out.line();
    quote_in! { *out =>
        $("/** The JSON-RPC methods: the side that handles each, and its payloads' definitions. */")
        export const methods: $(rt.name("Methods")) = $(table_over("methods", &tables.methods, stable.map(|b| b.methods.as_slice())));
    };
    if !tables.upserts.is_empty() {
        let over = stable.map(|b| b.upserts.as_slice()).filter(|b| !b.is_empty());
        out.line();
        quote_in! { *out =>
            $("/**")
            $(" * The upserts (ACP v2): the state each patches, its key, and how each")
            $(" * property of the state takes a patch (`reducer.ts`).")
            $(" */")
            export const upserts = $(table_over("upserts", &tables.upserts, over)) satisfies $(rt.name("Upserts"));
        };
    }
    if !tables.reducer.is_empty() {
        let union = file.reducer.map_or_else(|| "unknown".to_owned(), |r| r.union.clone());
        reducer_table(out, tables, stable, rt, &union);
    }
    let (message, protocol) = dispatch(out, file, rt);
    let codec = rt.name("Codec");
    let params = protocol.map_or_else(|| format!("Types, {message}"), |p| format!("Types, {message}, {p}"));
    out.line();
    quote_in! { *out =>
        $("/** Decoders and encoders of this schema's definitions by name, and of its messages. */")
        export const codec: $(&codec)<$(&params)> = new $(&codec)<$(&params)>(shapes, methods);
    };
}

/// The `reducer` table: the session reducer of the file's build, over the
/// stable module's when only updates were added or changed.
fn reducer_table(out: &mut js::Tokens, tables: &Tables, stable: Option<&Tables>, rt: &super::Runtime, union: &str) {
    let mut t = js::Tokens::new();
    t.append("{");
    t.indent();
    // Over the stable module's when only updates were added or changed.
    let updates = |r: &[(String, Value)]| r.iter().find(|(k, _)| k == "updates").map(|(_, v)| v.clone());
    let rest = |r: &[(String, Value)]| r.iter().filter(|(k, _)| k != "updates").cloned().collect::<Vec<_>>();
    let over = stable.map(|b| b.reducer.as_slice()).filter(|b| {
        let gone = match (updates(b), updates(&tables.reducer)) {
            (Some(Value::Object(b)), Some(Value::Object(t))) => b.keys().any(|k| !t.contains_key(k)),
            _ => true,
        };
        !b.is_empty() && rest(b) == rest(&tables.reducer) && !gone
    });
    match over {
        Some(b) => {
            let (Some(Value::Object(old)), Some(Value::Object(new))) = (updates(b), updates(&tables.reducer)) else {
                unreachable!("checked above")
            };
            let changed: Vec<(String, Value)> =
                new.into_iter().filter(|(k, v)| old.get(k) != Some(v)).map(|(k, v)| (prop(&k), v)).collect();
            t.append("...stable.reducer,");
            t.push();
            t.append("upserts,");
            t.push();
            t.append("updates: {");
            t.indent();
            t.append("...stable.reducer.updates,");
            t.push();
            t.append(table(&changed));
            t.unindent();
            t.append("},");
        }
        None => {
            t.append("upserts,");
            t.push();
            t.append(table(&tables.reducer));
        }
    }
    t.unindent();
    t.append("}");
    out.line();
    quote_in! { *out =>
        $("/**")
        $(" * The session reducer (`schema/upserts.json`, `reducer`): its collections in the")
        $(" * order its JSON writes them, and the rule of each update by its tag (`session.ts`);")
        $(format!(" * `new SessionReducer(reducer)` applies `{union}` values and gives a `ReducerState`."))
        $(" */")
        export const reducer: $(rt.name("ReducerShape"))<$union, ReducerState> = $t;
    };
}

/// The payloads of one side and kind, as a discriminated union on `method`
/// (`RequestToAgent`: every request an agent handles, with its params), in
/// the file's build of the plan's dispatch groups, and `Protocol`, the same
/// unions by side (what a `Connection` is typed by). Returns the message type
/// the codec decodes to (`Message`, or `AnyMessage` for a file without
/// methods) and the protocol type, if any.
fn dispatch(out: &mut js::Tokens, file: &super::File<'_>, rt: &super::Runtime) -> (String, Option<String>) {
    let payloads = file.payloads;
    if payloads.groups().is_empty() {
        return (rt.name("AnyMessage"), None);
    }
    let mut by_side: std::collections::BTreeMap<(Side, MethodKind), String> = Default::default();
    let by_name: std::collections::BTreeMap<&str, &Def> =
        file.module.defs.iter().map(|d| (d.name.as_str(), d)).collect();
    let mut by_kind: std::collections::BTreeMap<MethodKind, Vec<String>> = Default::default();
    for ((side, kind), group) in payloads.groups() {
        // The payload's method and type, by method (the crate's enums keep definition order).
        let mut members: Vec<(&str, &str)> = group
            .iter()
            .filter(|(_, gate)| gate.in_build(file.unstable))
            .filter_map(|(def, _)| by_name.get(def.as_str()))
            .filter_map(|d| Some((d.method.as_ref()?.name.as_str(), d.rust_name.as_str())))
            .collect();
        members.sort();
        members.dedup();
        // A group the crate keeps for extensions alone has no method of the schema.
        if members.is_empty() {
            continue;
        }
        let name = crate::plan::item_names::enum_name(*side, *kind);
        let (member, doc) = match kind {
            MethodKind::Request => ("params", format!("The requests {} handles, by method.", handler(*side))),
            MethodKind::Response => {
                ("result", format!("The responses {} sends, by the method of the request.", handler(*side)))
            }
            MethodKind::Notification => ("params", format!("The notifications {} handles, by method.", handler(*side))),
        };
        let arms: Vec<String> =
            members.iter().map(|(m, t)| format!("{{ method: {}; {member}: {t} }}", Value::from(*m))).collect();
        out.line();
        quote_in! { *out =>
            $(format!("/** {doc} */"))
            export type $(&name) =
                $(for a in &arms => $['\r']| $a);
        };
        by_kind.entry(*kind).or_default().push(name.clone());
        by_side.insert((*side, *kind), name);
    }
    let all = |kind: MethodKind, ext: &str| {
        let mut v = by_kind.get(&kind).cloned().unwrap_or_default();
        v.push(rt.name(ext));
        v.join(" | ")
    };
    let (requests, notifications, responses) = (
        all(MethodKind::Request, "ExtensionRequest"),
        all(MethodKind::Notification, "ExtensionNotification"),
        all(MethodKind::Response, "ExtensionResponse"),
    );
    out.line();
    quote_in! { *out =>
        $("/** Every request, notification and response, and errors: what `codec.decodeMessage` gives. */")
        export type Message = $(rt.name("Envelope"))<$requests, $notifications, $responses, RequestId>;
    };
    // `Protocol`: each side's unions (`never` where a side has none of a kind).
    let of = |side: Side, kind: MethodKind| by_side.get(&(side, kind)).cloned().unwrap_or_else(|| "never".into());
    let sides: Vec<String> = [Side::Agent, Side::Client, Side::Proxy]
        .into_iter()
        .filter(|s| *s != Side::Proxy || by_side.keys().any(|(side, _)| side == s))
        .map(|s| {
            let [r, a, n] = [MethodKind::Request, MethodKind::Response, MethodKind::Notification].map(|k| of(s, k));
            format!("{}: {{ requests: {r}; responses: {a}; notifications: {n} }};", s.as_str())
        })
        .collect();
    let any_side = format!("anySide: {};", of(Side::Protocol, MethodKind::Notification));
    out.line();
    quote_in! { *out =>
        $("/**")
        $(" * The methods of this version by the side that handles them, with their")
        $(" * params and results: what a `Connection` of this version is typed by.")
        $(" */")
        export interface Protocol {
            $(for s in &sides => $s$['\r'])
            $(&any_side)
            id: RequestId;
        }
    };
    ("Message".into(), Some("Protocol".into()))
}

/// Who handles the methods of a side, in words.
fn handler(side: Side) -> &'static str {
    match side {
        Side::Agent => "an agent",
        Side::Client => "a client",
        Side::Protocol => "either side",
        Side::Proxy => "a proxy",
    }
}

struct Shapes<'a> {
    decisions: &'a Decisions,
}

impl Shapes<'_> {
    fn name(&self, schema_name: &str) -> String {
        self.decisions.names.get(schema_name).cloned().unwrap_or_else(|| schema_name.to_owned())
    }

    fn def(&self, d: &Def) -> Value {
        match &d.kind {
            Kind::Struct(s) => self.structure(s),
            Kind::Enum(e) => {
                let values: Vec<Value> = e.variants.iter().map(|v| v.value.to_json()).collect();
                let mut o = obj([("enum", Value::Array(values))]);
                if e.fallback.is_some() {
                    o.insert("open".into(), true.into());
                }
                if let EnumRepr::Integer(f) = e.repr {
                    o.insert("int".into(), int_name(f).into());
                }
                Value::Object(o)
            }
            Kind::Union(u) => self.union(u),
            Kind::Newtype(t) => {
                let mut o = obj([("newtype", self.ty(t))]);
                if let Some(rule) = self.decisions.values.get(&d.name) {
                    checks(&mut o, rule, &crate::plan::value_field(d, t));
                }
                Value::Object(o)
            }
            Kind::Alias(target) => json!({ "alias": self.name(target) }),
            Kind::Any | Kind::Opaque(_) => json!("any"),
        }
    }

    fn structure(&self, s: &Struct) -> Value {
        let fields: Vec<Value> = s.fields.iter().map(|f| self.field(f)).collect();
        let mut o = obj([("struct", Value::Array(fields))]);
        // The union takes what the object does not name; else the plan's `Rest`.
        if let Some(fl) = &s.flatten {
            o.insert("flatten".into(), self.name(&fl.union).into());
        } else {
            match crate::plan::Rest::of(s) {
                crate::plan::Rest::Refused => {
                    o.insert("rest".into(), "deny".into());
                }
                crate::plan::Rest::Typed(t) => {
                    o.insert("rest".into(), self.ty(&t));
                }
                _ => {}
            }
        }
        if !s.forbidden.is_empty() {
            o.insert("forbidden".into(), json!(s.forbidden));
        }
        Value::Object(o)
    }

    /// A property as the plan decided it: how it is held (`repr`, absent when
    /// optional) and its read rule (`read`, absent when plain), each as the
    /// plan states it; the checks the rule makes, with their bounds; the
    /// default a required member falls back to under its rule.
    fn field(&self, f: &Field) -> Value {
        let plan = self.decisions.fields.get(f);
        let mut o = obj([("name", f.name.clone().into()), ("ty", self.ty(&f.ty))]);
        if plan.repr != Repr::Optional {
            o.insert("repr".into(), serde_json::to_value(plan.repr).expect("a repr serializes"));
        }
        if !plan.read.is_plain() {
            o.insert("read".into(), read_rule(&plan.read));
        }
        checks(&mut o, &plan.read, f);
        // What a required member falls back to: the Rust type's `Default`.
        let required = matches!(plan.repr, Repr::Value | Repr::RequiredNullable);
        if required && (plan.read.is_lenient() || plan.read == ReadRule::NullAsDefault) {
            if let Some(d) = default_of(&f.ty) {
                o.insert("default".into(), d);
            }
        }
        Value::Object(o)
    }

    fn union(&self, u: &Union) -> Value {
        let arms: Vec<Value> = u
            .variants
            .iter()
            .map(|v| {
                let mut o = obj([("name", v.rust_name.trim_start_matches("r#").into())]);
                if let Some(t) = &v.tag {
                    o.insert("tag".into(), t.clone().into());
                }
                match &v.payload {
                    Payload::Unit => o.insert("unit".into(), true.into()),
                    Payload::NoTag => o.insert("noTag".into(), true.into()),
                    Payload::Type(t) => o.insert("ty".into(), self.ty(t)),
                };
                Value::Object(o)
            })
            .collect();
        let mut o = obj([("union", Value::Array(arms))]);
        if let Some(t) = &u.tag {
            let mut tag = obj([("key", t.property.clone().into())]);
            if t.lenient {
                tag.insert("lenient".into(), true.into());
            }
            o.insert("tag".into(), Value::Object(tag));
        }
        if let Some(c) = &u.catch_all {
            let fields: Vec<Value> = c.fields.iter().map(|f| json!({ "name": f.name, "ty": self.ty(&f.ty) })).collect();
            o.insert("catchAll".into(), json!({ "required": c.required, "fields": fields, "reserved": c.reserved }));
        }
        Value::Object(o)
    }

    fn ty(&self, t: &Type) -> Value {
        match t {
            Type::String { .. } | Type::Base64 => "string".into(),
            Type::Char => "char".into(),
            Type::Integer { format, .. } => json!({ "int": int_name(*format) }),
            Type::Number { .. } => "number".into(),
            Type::Boolean => "boolean".into(),
            Type::Null => "null".into(),
            Type::Any => "any".into(),
            Type::Object => "object".into(),
            Type::Ref(r) => json!({ "ref": self.name(r) }),
            Type::Array { items, nullable_items, .. } => {
                let mut o = obj([("list", self.ty(items))]);
                if *nullable_items {
                    o.insert("nullable".into(), true.into());
                }
                Value::Object(o)
            }
            Type::Tuple(items) => {
                let items: Vec<Value> = items
                    .iter()
                    .map(|i| {
                        let mut o = obj([("ty", self.ty(&i.ty))]);
                        if i.nullable {
                            o.insert("nullable".into(), true.into());
                        }
                        Value::Object(o)
                    })
                    .collect();
                json!({ "tuple": items })
            }
            Type::Map { values, nullable_values } => {
                let mut o = obj([("map", self.ty(values))]);
                if *nullable_values {
                    o.insert("nullable".into(), true.into());
                }
                Value::Object(o)
            }
        }
    }
}

/// A read rule as `decode.ts` takes it: the rule's name (`"lenient_items"`),
/// or, for a rule with parameters, an object of its `kind` and them (the
/// hidden Rust types a rule names are the Rust target's; the checks' bounds
/// are beside the rule, see [`checks`]).
fn read_rule(rule: &ReadRule) -> Value {
    let name = |r: &ReadRule| serde_json::to_value(r).expect("a rule serializes")["kind"].clone();
    let flag = |o: &mut Map<String, Value>, k: &str, on: bool| {
        if on {
            o.insert(k.into(), true.into());
        }
    };
    match rule {
        ReadRule::Patch { skip_invalid_items, scalar } => {
            let mut o = obj([("kind", name(rule))]);
            flag(&mut o, "skipItems", *skip_invalid_items);
            flag(&mut o, "scalar", *scalar);
            Value::Object(o)
        }
        ReadRule::CheckedStr { lenient, .. }
        | ReadRule::IntInRange { lenient, .. }
        | ReadRule::FloatInRange { lenient, .. } => {
            let mut o = obj([("kind", name(rule))]);
            flag(&mut o, "lenient", *lenient);
            Value::Object(o)
        }
        ReadRule::ItemCount { lenient, inner, .. } => {
            let mut o = obj([("kind", name(rule))]);
            flag(&mut o, "lenient", *lenient);
            o.insert("inner".into(), read_rule(inner));
            Value::Object(o)
        }
        _ => name(rule),
    }
}

/// The checks a read rule adds to a field or a newtype's value `f`: a
/// string's rules (`str`), a number's bounds (`range`), a list's item count
/// (`items`), each with the schema pointer its errors name (`at`).
fn checks(o: &mut Map<String, Value>, rule: &ReadRule, f: &Field) {
    let at = format!("#{}", f.pointer);
    match rule {
        ReadRule::CheckedStr { .. } => {
            let Some(r) = f.ty.string_rule() else { return };
            let mut c = obj([("at", at.into())]);
            if r.min > 0 {
                c.insert("min".into(), r.min.into());
            }
            if let Some(m) = r.max {
                c.insert("max".into(), m.into());
            }
            if let Some(p) = r.pattern {
                c.insert("pattern".into(), p.into());
            }
            o.insert("str".into(), Value::Object(c));
        }
        ReadRule::IntInRange { min, max, .. } => {
            o.insert("range".into(), json!({ "min": min.to_string(), "max": max.to_string(), "at": at }));
        }
        ReadRule::FloatInRange { min, max, .. } => {
            let mut c = obj([("float", true.into())]);
            if min.is_finite() {
                c.insert("min".into(), json!(min));
            }
            if max.is_finite() {
                c.insert("max".into(), json!(max));
            }
            c.insert("at".into(), at.into());
            o.insert("range".into(), Value::Object(c));
        }
        ReadRule::ItemCount { min, max, inner, .. } => {
            checks(o, inner, f);
            let mut c = obj([("min", (*min).into())]);
            if let Some(m) = max {
                c.insert("max".into(), (*m).into());
            }
            c.insert("at".into(), at.into());
            o.insert("items".into(), Value::Object(c));
        }
        _ => {}
    }
}

/// The value of the Rust type's `Default` for a required field that falls
/// back to it (`None` where the type has no JSON default).
fn default_of(t: &Type) -> Option<Value> {
    match t {
        Type::Array { .. } => Some(json!([])),
        Type::Map { .. } | Type::Object => Some(json!({})),
        Type::String { .. } | Type::Base64 => Some(json!("")),
        Type::Boolean => Some(json!(false)),
        Type::Integer { .. } | Type::Number { .. } => Some(json!(0)),
        Type::Any | Type::Null => Some(Value::Null),
        _ => None,
    }
}

/// serde's name of an integer format's Rust type (`u16`), as its errors say it.
fn int_name(f: IntFormat) -> &'static str {
    match f {
        IntFormat::Int8 => "i8",
        IntFormat::Int16 => "i16",
        IntFormat::Int32 => "i32",
        IntFormat::Int64 | IntFormat::Int => "i64",
        IntFormat::Int128 => "i128",
        IntFormat::Uint8 => "u8",
        IntFormat::Uint16 => "u16",
        IntFormat::Uint32 => "u32",
        IntFormat::Uint64 | IntFormat::Uint => "u64",
        IntFormat::Uint128 => "u128",
    }
}

/// The upserts among `defs`, by name: the state's
/// fields in order, each with its rule (`key`, `required`, `by_key`, `list`,
/// `reset` with its value, `optional`, `any`).
fn upserts(defs: &[&Def], decisions: &Decisions) -> Vec<(String, Value)> {
    use crate::plan::StateRepr;
    defs.iter()
        .filter_map(|d| {
            let (Some(u), Kind::Struct(s)) = (&d.upsert, &d.kind) else { return None };
            let fields: Vec<Value> = s
                .fields
                .iter()
                .map(|f| {
                    let rule = match decisions.fields.get(f).state_repr() {
                        StateRepr::Key => json!("key"),
                        StateRepr::Required => json!("required"),
                        StateRepr::ByKey => json!("by_key"),
                        StateRepr::List => json!("list"),
                        StateRepr::Reset(v) => json!({ "reset": v }),
                        StateRepr::Optional => json!("optional"),
                        StateRepr::AnyValue => json!("any"),
                    };
                    json!({ "name": f.name, "rule": rule })
                })
                .collect();
            let entry = json!({ "state": u.state, "key": u.key, "fields": fields });
            Some((prop(&d.rust_name), entry))
        })
        .collect()
}

/// The JSON-RPC methods of `module`: the method name, quoted, and its entry.
fn methods(file: &super::File<'_>) -> Vec<(String, Value)> {
    let mut by_method: std::collections::BTreeMap<&str, Map<String, Value>> = Default::default();
    for d in &file.module.defs {
        let Some(m) = &d.method else { continue };
        let plan = file.payloads.get(&d.name, file.unstable);
        let entry = by_method.entry(m.name.as_str()).or_default();
        entry.insert("side".into(), m.side.as_str().into());
        let kind = match m.kind {
            MethodKind::Request => "request",
            MethodKind::Response => "response",
            MethodKind::Notification => "notification",
        };
        let null_mode = match plan.null_mode {
            NullMode::Value => "value",
            NullMode::Empty => "empty",
            NullMode::Refuse => "refuse",
        };
        let mut payload = obj([("def", plan.stands_for.clone().into())]);
        if plan.stands_for != d.rust_name {
            payload.insert("name".into(), d.rust_name.clone().into());
        }
        payload.insert("null".into(), null_mode.into());
        entry.insert(kind.into(), Value::Object(payload));
    }
    by_method.into_iter().map(|(m, o)| (lit(&Value::from(m)), Value::Object(o))).collect()
}

fn obj<const N: usize>(entries: [(&str, Value); N]) -> Map<String, Value> {
    entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// A property name: as it is when it is an identifier, quoted otherwise.
pub fn prop(name: &str) -> String {
    let ident = name
        .chars()
        .enumerate()
        .all(|(i, c)| c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit()));
    if ident && !name.is_empty() {
        name.to_owned()
    } else {
        serde_json::to_string(name).expect("a string serializes")
    }
}

/// How wide a line of the tables may be before a value is broken over lines.
pub const WIDTH: usize = 120;

/// The members of a table, `name: value,` each on a line of its own.
fn table(entries: &[(String, Value)]) -> js::Tokens {
    let mut t = js::Tokens::new();
    for (k, v) in entries {
        member(&mut t, k, v);
    }
    t
}

/// `key: value,` and a line break; the value on one line when the whole fits
/// in [`WIDTH`], else broken over lines by [`literal`].
fn member(t: &mut js::Tokens, key: &str, v: &Value) {
    quote_in!(*t => $key:);
    t.space();
    literal(t, v, key.len() + 2);
    t.append(",");
    t.push();
}

/// A JSON value as a TypeScript literal (identifier keys unquoted), after
/// `used` characters of its line: on that line when it fits in [`WIDTH`],
/// else an object or array one member a line, each broken again as needed.
fn literal(t: &mut js::Tokens, v: &Value, used: usize) {
    let fits = lit(v).len() + used < WIDTH;
    match v {
        Value::Object(o) if !o.is_empty() && !fits => {
            t.append("{");
            t.indent();
            for (k, x) in o {
                member(t, &prop(k), x);
            }
            t.unindent();
            t.append("}");
        }
        Value::Array(a) if !a.is_empty() && !fits => {
            t.append("[");
            t.indent();
            for x in a {
                literal(t, x, 0);
                t.append(",");
                t.push();
            }
            t.unindent();
            t.append("]");
        }
        Value::Object(o) if !o.is_empty() => {
            t.append("{");
            for (i, (k, x)) in o.iter().enumerate() {
                t.space();
                quote_in!(*t => $(prop(k)):);
                t.space();
                literal(t, x, 0);
                if i + 1 < o.len() {
                    t.append(",");
                }
            }
            t.space();
            t.append("}");
        }
        Value::Array(a) => {
            t.append("[");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    t.append(",");
                    t.space();
                }
                literal(t, x, 0);
            }
            t.append("]");
        }
        Value::Object(_) => t.append("{}"),
        Value::String(s) => quote_in!(*t => $(quoted(s))),
        other => quote_in!(*t => $(other.to_string())),
    }
}

/// A JSON value as a TypeScript literal on one line, identifier keys unquoted.
pub fn lit(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let members: Vec<String> = o.iter().map(|(k, v)| format!("{}: {}", prop(k), lit(v))).collect();
            if members.is_empty() {
                "{}".into()
            } else {
                format!("{{ {} }}", members.join(", "))
            }
        }
        Value::Array(a) => format!("[{}]", a.iter().map(lit).collect::<Vec<_>>().join(", ")),
        other => other.to_string(),
    }
}

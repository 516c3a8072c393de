//! The schema model -> JSON Schema: the fragment each generated type returns
//! from `schemars::JsonSchema::json_schema`.
//!
//! The fragment is rendered from the model, not copied from the file, so it
//! says exactly what the generator understood: lowering a document made of
//! these fragments gives back the same model (a test checks this for every
//! definition of the vendored schemas and the fixtures). Inline items are
//! rendered in place; other definitions are `{"$ref": "#/$defs/<name>"}`,
//! which the runtime points at the referenced type's own definition.
//!
//! Where the file could have said the same thing in several ways, the
//! rendering picks one:
//! - `anyOf` or `oneOf` as the arms' pointers say; `enum` for a closed enum
//!   written with `enum`;
//! - a nullable property is `type: [T, "null"]` when `T` is one plain type, and
//!   `anyOf: [T, {type: null}]` otherwise;
//! - a union arm naming another definition is `allOf: [{$ref}]`, a property is
//!   `$ref` beside its description;
//! - `unevaluatedProperties: true` (it allows everything) is left out, and so is
//!   the position of a flattened union's discriminator among the properties;
//! - a one-arm `anyOf` is read as its arm (the envelopes' `ProxyNotification`
//!   params), so the group's own description and the arm's title are not in the
//!   model and not in the fragment. Every other description, title and
//!   default of the file is (tested).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::model::*;

/// The JSON Schema fragment of one definition (with its inline items in place).
pub fn render(def: &Def) -> Value {
    let inline = def.walk().into_iter().skip(1).map(|d| (d.name.as_str(), d)).collect();
    Value::Object(Renderer { inline }.def(def))
}

/// A whole schema document: every definition of the module under `$defs`.
pub fn document(module: &Module) -> Value {
    let defs: Map<String, Value> = module.defs.iter().map(|d| (d.name.clone(), render(d))).collect();
    json!({ "$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs })
}

struct Renderer<'m> {
    /// Inline items of the definition being rendered, by name.
    inline: BTreeMap<&'m str, &'m Def>,
}

type Obj = Map<String, Value>;

/// `anyOf` or `oneOf`: the keyword in the pointer of the arms.
fn arms_key(pointer: &str) -> &'static str {
    match pointer.rsplit('/').nth(1) {
        Some("oneOf") => "oneOf",
        _ => "anyOf",
    }
}

/// The position of an arm in its `anyOf`/`oneOf` (the pointer's last segment).
fn arm_index(pointer: &str) -> usize {
    pointer.rsplit('/').next().and_then(|i| i.parse().ok()).unwrap_or(usize::MAX)
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn put(o: &mut Obj, key: &str, v: Option<impl Into<Value>>) {
    if let Some(v) = v {
        o.insert(key.to_owned(), v.into());
    }
}

fn flag(o: &mut Obj, key: &str, on: bool) {
    if on {
        o.insert(key.to_owned(), Value::Bool(true));
    }
}

fn additional(o: &mut Obj, a: Additional) {
    match a {
        Additional::Absent => {}
        Additional::True => flag(o, "additionalProperties", true),
        Additional::False => {
            o.insert("additionalProperties".into(), Value::Bool(false));
        }
        // Written with the struct's other members (`Fragments::structure`).
        Additional::Typed => {}
    }
}

fn int_format(f: IntFormat) -> Value {
    serde_json::to_value(f).expect("formats serialize")
}

/// `T` or `null`.
fn nullable(mut o: Obj) -> Obj {
    let plain = !["$ref", "allOf", "anyOf", "oneOf", "enum", "const"].iter().any(|k| o.contains_key(*k));
    match o.get("type") {
        Some(Value::String(t)) if plain => {
            let t = t.clone();
            o.insert("type".into(), json!([t, "null"]));
            o
        }
        _ => {
            let mut out = Obj::new();
            out.insert("anyOf".into(), json!([Value::Object(o), { "type": "null" }]));
            out
        }
    }
}

impl Renderer<'_> {
    fn def(&self, d: &Def) -> Obj {
        let mut o = Obj::new();
        put(&mut o, "description", d.docs.clone());
        match &d.kind {
            Kind::Struct(s) => self.structure(s, &mut o),
            Kind::Enum(e) => self.enumeration(e, &mut o),
            Kind::Union(u) => self.union(u, &mut o),
            Kind::Newtype(t) => o.extend(self.ty(t)),
            Kind::Alias(target) => {
                o.insert("allOf".into(), json!([reference(target)]));
            }
            // Lowered leniently as any JSON value.
            Kind::Any | Kind::Opaque(_) => {}
        }
        match d.excluded.as_slice() {
            [] => {}
            [one] => {
                o.insert("not".into(), json!({ "const": one }));
            }
            many => {
                o.insert("not".into(), json!({ "enum": many }));
            }
        }
        if let Some(m) = &d.method {
            o.insert("x-method".into(), m.name.clone().into());
            o.insert("x-side".into(), m.side.as_str().into());
        }
        flag(&mut o, "x-docs-ignore", d.envelope);
        o
    }

    fn structure(&self, s: &Struct, o: &mut Obj) {
        o.insert("type".into(), "object".into());
        let mut props = Obj::new();
        let mut required = Vec::new();
        let union = s.flatten.as_ref().map(|fl| match self.inline.get(fl.union.as_str()).map(|d| &d.kind) {
            Some(Kind::Union(u)) => (fl, u),
            _ => panic!("the model puts a flattened union `{}` among the inline items", fl.union),
        });
        if let Some((fl, Union { tag: Some(tag), .. })) = union {
            if fl.docs.is_some() || tag.lenient {
                let mut p = Obj::new();
                put(&mut p, "description", fl.docs.clone());
                flag(&mut p, "x-deserialize-default-on-error", tag.lenient);
                props.insert(tag.property.clone(), Value::Object(p));
            }
        }
        for f in &s.fields {
            props.insert(f.name.clone(), Value::Object(self.field(f)));
            if f.required {
                required.push(Value::from(f.name.clone()));
            }
        }
        for name in &s.forbidden {
            props.insert(name.clone(), Value::Bool(false));
        }
        o.insert("properties".into(), Value::Object(props));
        if !required.is_empty() {
            o.insert("required".into(), Value::Array(required));
        }
        self.rest(o, s);
        if let Some((_, u)) = union {
            self.union(u, o);
        }
    }

    fn field(&self, f: &Field) -> Obj {
        let mut o = self.ty(&f.ty);
        if f.nullable {
            o = nullable(o);
        }
        put(&mut o, "description", f.docs.clone());
        put(&mut o, "default", f.default.clone());
        flag(&mut o, "x-deserialize-default-on-error", f.default_on_error);
        flag(&mut o, "x-deserialize-skip-invalid-items", f.skip_invalid_items);
        flag(&mut o, "x-deserialize-default-on-null", f.default_on_null);
        o
    }

    fn ty(&self, t: &Type) -> Obj {
        let mut o = Obj::new();
        let mut kind = |k: &str| o.insert("type".into(), k.into());
        match t {
            Type::String { format, min_length, max_length, pattern } => {
                kind("string");
                put(&mut o, "format", format.clone());
                put(&mut o, "minLength", *min_length);
                put(&mut o, "maxLength", *max_length);
                put(&mut o, "pattern", pattern.clone());
            }
            Type::Char => {
                kind("string");
                put(&mut o, "minLength", Some(1));
                put(&mut o, "maxLength", Some(1));
            }
            Type::Base64 => {
                kind("string");
                o.insert("contentEncoding".into(), "base64".into());
            }
            Type::Integer { format, min, max } => {
                kind("integer");
                o.insert("format".into(), int_format(*format));
                let n = |v: i128| i64::try_from(v).map(Value::from).unwrap_or_else(|_| Value::from(v as u64));
                put(&mut o, "minimum", min.map(n));
                put(&mut o, "maximum", max.map(n));
            }
            Type::Number { format, min, max } => {
                kind("number");
                put(&mut o, "format", format.clone());
                put(&mut o, "minimum", *min);
                put(&mut o, "maximum", *max);
            }
            Type::Boolean => {
                kind("boolean");
            }
            Type::Null => {
                kind("null");
            }
            Type::Any => {}
            Type::Object => {
                kind("object");
            }
            Type::Ref(name) => match self.inline.get(name.as_str()) {
                Some(d) => return self.def(d),
                None => return reference(name).as_object().expect("an object").clone(),
            },
            Type::Array { items, min_items, max_items, unique_items, nullable_items } => {
                kind("array");
                o.insert("items".into(), Value::Object(self.maybe_null(items, *nullable_items)));
                put(&mut o, "minItems", *min_items);
                put(&mut o, "maxItems", *max_items);
                put(&mut o, "uniqueItems", unique_items.then_some(true));
            }
            Type::Tuple(items) => {
                kind("array");
                let prefix: Vec<Value> =
                    items.iter().map(|i| Value::Object(self.maybe_null(&i.ty, i.nullable))).collect();
                o.insert("prefixItems".into(), Value::Array(prefix));
                o.insert("items".into(), Value::Bool(false));
                put(&mut o, "minItems", Some(items.len()));
                put(&mut o, "maxItems", Some(items.len()));
            }
            Type::Map { values, nullable_values } => {
                kind("object");
                o.insert("additionalProperties".into(), Value::Object(self.maybe_null(values, *nullable_values)));
            }
        }
        o
    }

    /// The fragment of an item, map value or tuple position: `T` or `null`.
    fn maybe_null(&self, ty: &Type, nullable: bool) -> Obj {
        let t = self.ty(ty);
        if nullable {
            self::nullable(t)
        } else {
            t
        }
    }

    /// `additionalProperties` of a struct: as written, or its rest's type.
    fn rest(&self, o: &mut Obj, s: &Struct) {
        additional(o, s.additional);
        if let Some(rest) = &s.rest {
            o.insert("additionalProperties".into(), Value::Object(self.ty(rest)));
        }
    }

    fn enumeration(&self, e: &Enum, o: &mut Obj) {
        let (kind, format) = match e.repr {
            EnumRepr::String => ("string", None),
            EnumRepr::Integer(f) => ("integer", Some(int_format(f))),
        };
        // A property's `const` (one value, read as a closed enum) is written as the `const` it was.
        if let ([v], None) = (e.variants.as_slice(), &e.fallback) {
            if v.pointer.ends_with("/const") && v.title.is_none() && v.docs.is_none() {
                o.insert("type".into(), kind.into());
                put(o, "format", format.clone());
                o.insert("const".into(), v.value.to_json());
                return;
            }
        }
        let listed = e.fallback.is_none() && e.variants.iter().all(|v| v.pointer.rsplit('/').nth(1) == Some("enum"));
        if listed && !e.variants.is_empty() {
            o.insert("type".into(), kind.into());
            o.insert("enum".into(), e.variants.iter().map(|v| v.value.to_json()).collect());
            return;
        }
        let arm = |title: &Option<String>, docs: &Option<String>, value: Option<&EnumValue>| {
            let mut a = Obj::new();
            put(&mut a, "title", title.clone());
            put(&mut a, "description", docs.clone());
            a.insert("type".into(), kind.into());
            put(&mut a, "format", format.clone());
            put(&mut a, "const", value.map(EnumValue::to_json));
            a
        };
        let mut arms: Vec<(&str, Obj)> =
            e.variants.iter().map(|v| (v.pointer.as_str(), arm(&v.title, &v.docs, Some(&v.value)))).collect();
        if let Some(f) = &e.fallback {
            arms.push((&f.pointer, arm(&f.title, &f.docs, None)));
        }
        let key = arms.first().map_or("anyOf", |(p, _)| arms_key(p));
        arms.sort_by_key(|(p, _)| arm_index(p));
        o.insert(key.into(), arms.into_iter().map(|(_, a)| Value::Object(a)).collect());
    }

    fn union(&self, u: &Union, o: &mut Obj) {
        let mut arms: Vec<(&str, Obj)> = u.variants.iter().map(|v| (v.pointer.as_str(), self.variant(u, v))).collect();
        if let Some(c) = &u.catch_all {
            arms.push((&c.pointer, self.catch_all(u, c)));
        }
        let key = arms.first().map_or("anyOf", |(p, _)| arms_key(p));
        arms.sort_by_key(|(p, _)| arm_index(p));
        o.insert(key.into(), arms.into_iter().map(|(_, a)| Value::Object(a)).collect());
        if let Some(tag) = u.tag.as_ref().filter(|t| t.declared) {
            o.insert("discriminator".into(), json!({ "propertyName": tag.property }));
        }
    }

    fn variant(&self, u: &Union, v: &Variant) -> Obj {
        let mut o = Obj::new();
        put(&mut o, "title", v.title.clone());
        put(&mut o, "description", v.docs.clone());
        match (&u.tag, &v.tag, &v.payload) {
            (Some(tag), Some(value), payload) => {
                o.insert("type".into(), "object".into());
                let mut props = Obj::new();
                props.insert(tag.property.clone(), json!({ "type": "string", "const": value }));
                let mut required = vec![Value::from(tag.property.clone())];
                match payload {
                    Payload::Type(Type::Ref(name)) => match self.inline.get(name.as_str()).map(|d| &d.kind) {
                        Some(Kind::Struct(s)) => {
                            for f in &s.fields {
                                props.insert(f.name.clone(), Value::Object(self.field(f)));
                                if f.required {
                                    required.push(f.name.clone().into());
                                }
                            }
                            self.rest(&mut o, s);
                        }
                        _ => {
                            o.insert("allOf".into(), json!([reference(name)]));
                        }
                    },
                    Payload::Type(t) => o.extend(self.ty(t)),
                    Payload::Unit | Payload::NoTag => {}
                }
                o.insert("properties".into(), Value::Object(props));
                o.insert("required".into(), Value::Array(required));
            }
            (Some(tag), None, Payload::NoTag) => {
                o.insert("properties".into(), json!({ tag.property.clone(): { "type": "null" } }));
            }
            (_, _, Payload::Type(Type::Ref(name))) if !self.inline.contains_key(name.as_str()) => {
                o.insert("allOf".into(), json!([reference(name)]));
            }
            (_, _, Payload::Type(t)) => {
                let body = self.ty(t);
                // An inline item made from this arm repeats the arm's description.
                o.extend(body.into_iter().filter(|(k, _)| k != "description" || v.docs.is_none()));
            }
            (_, _, Payload::Unit | Payload::NoTag) => {}
        }
        o
    }

    fn catch_all(&self, u: &Union, c: &CatchAll) -> Obj {
        let Some(tag) = u.tag.as_ref().map(|t| &t.property) else {
            return self.untagged_catch_all(u, c);
        };
        let mut o = Obj::new();
        put(&mut o, "title", c.title.clone());
        put(&mut o, "description", c.docs.clone());
        o.insert("type".into(), "object".into());
        let mut props = Obj::new();
        let mut t = Obj::new();
        put(&mut t, "description", c.tag_docs.clone());
        t.insert("type".into(), "string".into());
        props.insert(tag.clone(), Value::Object(t));
        for f in &c.fields {
            props.insert(f.name.clone(), Value::Object(self.field(f)));
        }
        o.insert("properties".into(), Value::Object(props));
        let required: Vec<Value> = std::iter::once(tag).chain(&c.required).map(|r| r.clone().into()).collect();
        o.insert("required".into(), Value::Array(required));
        if let Some(first) = c.one_of.first() {
            let arms: Vec<Value> = c.one_of.iter().map(|v| Value::Object(self.variant(&no_tag(), v))).collect();
            o.insert(arms_key(&first.pointer).into(), Value::Array(arms));
        }
        let known: Vec<Value> = u
            .variants
            .iter()
            .filter_map(|v| v.tag.as_ref())
            .chain(&c.reserved)
            .map(|v| {
                json!({ "type": "object", "properties": { tag.clone(): { "type": "string", "const": v } }, "required": [tag] })
            })
            .collect();
        o.insert("not".into(), json!({ "anyOf": known }));
        additional(&mut o, c.additional);
        o
    }
}

impl Renderer<'_> {
    /// The catch-all arm of a union without a discriminator: an object that is
    /// none of the other arms.
    fn untagged_catch_all(&self, u: &Union, c: &CatchAll) -> Obj {
        let mut o = Obj::new();
        put(&mut o, "title", c.title.clone());
        put(&mut o, "description", c.docs.clone());
        o.insert("type".into(), "object".into());
        let mut props = Obj::new();
        for f in &c.fields {
            props.insert(f.name.clone(), Value::Object(self.field(f)));
        }
        o.insert("properties".into(), Value::Object(props));
        if !c.required.is_empty() {
            o.insert("required".into(), c.required.iter().cloned().collect());
        }
        // Each other arm: a definition by its `$ref`, an inline arm as it is
        // rendered, without its annotations (the guard lists the schema only).
        let arms: Vec<Value> = u
            .variants
            .iter()
            .map(|v| match &v.payload {
                Payload::Type(Type::Ref(r)) if !self.inline.contains_key(r.as_str()) => reference(r),
                _ => crate::lower::without_annotations(&Value::Object(self.variant(u, v))),
            })
            .collect();
        o.insert("not".into(), json!({ "anyOf": arms }));
        additional(&mut o, c.additional);
        o
    }
}

/// An untagged union: the frame of a catch-all's own arms.
fn no_tag() -> Union {
    Union { tag: None, variants: Vec::new(), catch_all: None }
}

//! Wire shapes: what a type is on the wire once everything that does not
//! change the JSON is resolved, and what it is in the generated Rust.
//!
//! Resolved away for the wire:
//! - `$ref` and one-element `allOf` wrappers (both lower to [`Type::Ref`]) to a
//!   named definition that only restates another type (a newtype over a
//!   primitive such as `AbsolutePath`, or an alias), its description, title
//!   and `x-` documentation aside;
//! - `format: byte`, the draft spelling of `contentEncoding: base64`;
//! - `format` in general: readers do not check it (documentation only);
//! - a reference to another definition of the same wire shape.
//!
//! A named type that adds a rule (a pattern, bounds, `minLength`) keeps it
//! after resolution, so the comparison judges it as the narrowing it is.

use crate::model::{Def, Kind, Type};

/// How deep aliases of aliases are followed (a cycle is a lowering error; this
/// only bounds the walk for a lenient model).
const MAX_HOPS: usize = 32;

/// `t` with references to definitions that only restate another type
/// resolved (`defs` looks a definition up on the side `t` comes from), and
/// `format: byte` written as [`Type::Base64`].
pub(super) fn resolve<'a>(t: &Type, defs: &dyn Fn(&str) -> Option<&'a Def>) -> Type {
    resolve_at(t, defs, 0)
}

fn resolve_at<'a>(t: &Type, defs: &dyn Fn(&str) -> Option<&'a Def>, hops: usize) -> Type {
    match t {
        Type::Ref(name) if hops < MAX_HOPS => match defs(name) {
            Some(d) if d.excluded.is_empty() => match &d.kind {
                Kind::Newtype(inner) => resolve_at(inner, defs, hops + 1),
                Kind::Alias(target) => resolve_at(&Type::Ref(target.clone()), defs, hops + 1),
                Kind::Opaque(o) => restricted_string(&o.schema).unwrap_or_else(|| t.clone()),
                _ => t.clone(),
            },
            _ => t.clone(),
        },
        Type::String { format: Some(f), min_length: None, max_length: None, pattern: None } if f == "byte" => {
            Type::Base64
        }
        Type::Array { items, min_items, max_items, unique_items, nullable_items } => Type::Array {
            items: Box::new(resolve_at(items, defs, hops)),
            min_items: *min_items,
            max_items: *max_items,
            unique_items: *unique_items,
            nullable_items: *nullable_items,
        },
        Type::Map { values, nullable_values } => {
            Type::Map { values: Box::new(resolve_at(values, defs, hops)), nullable_values: *nullable_values }
        }
        Type::Tuple(items) => Type::Tuple(
            items
                .iter()
                .map(|i| {
                    let mut i = i.clone();
                    i.ty = resolve_at(&i.ty, defs, hops);
                    i
                })
                .collect(),
        ),
        _ => t.clone(),
    }
}

/// A named string type with rules the generator checks on properties only
/// (`pattern`, `minLength`, `maxLength` on a whole definition: lenient
/// lowering keeps it opaque), read as the string it is, rules included: the
/// diff judges such a type as the narrowing it is.
fn restricted_string(schema: &serde_json::Value) -> Option<Type> {
    let o = schema.as_object()?;
    let documentation =
        |k: &str| matches!(k, "description" | "title" | "$comment" | "examples") || k.starts_with("x-docs");
    let rules = ["type", "pattern", "minLength", "maxLength", "format"];
    if o.get("type")?.as_str()? != "string" || !o.keys().all(|k| documentation(k) || rules.contains(&k.as_str())) {
        return None;
    }
    Some(Type::String {
        format: o.get("format").and_then(|v| v.as_str()).map(str::to_owned),
        min_length: o.get("minLength").and_then(serde_json::Value::as_u64),
        max_length: o.get("maxLength").and_then(serde_json::Value::as_u64),
        pattern: o.get("pattern").and_then(|v| v.as_str()).map(str::to_owned),
    })
}

/// Whether two resolved types are the same on the wire: formats aside, and
/// references equal when `same_ref` says the two definitions have one shape
/// (a rename, or two definitions written alike).
pub(super) fn same(a: &Type, b: &Type, same_ref: &dyn Fn(&str, &str) -> bool) -> bool {
    match (a, b) {
        (
            Type::String { min_length: m1, max_length: x1, pattern: p1, .. },
            Type::String { min_length: m2, max_length: x2, pattern: p2, .. },
        ) => (m1, x1, p1) == (m2, x2, p2),
        (Type::Number { min: l1, max: h1, .. }, Type::Number { min: l2, max: h2, .. }) => (l1, h1) == (l2, h2),
        (Type::Ref(x), Type::Ref(y)) => x == y || same_ref(x, y),
        (
            Type::Array { items: i1, min_items: m1, max_items: x1, unique_items: u1, nullable_items: n1 },
            Type::Array { items: i2, min_items: m2, max_items: x2, unique_items: u2, nullable_items: n2 },
        ) => (m1, x1, u1, n1) == (m2, x2, u2, n2) && same(i1, i2, same_ref),
        (Type::Map { values: x, nullable_values: xn }, Type::Map { values: y, nullable_values: yn }) => {
            xn == yn && same(x, y, same_ref)
        }
        (Type::Tuple(x), Type::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| x.nullable == y.nullable && same(&x.ty, &y.ty, same_ref))
        }
        _ => a == b,
    }
}

/// The type as the generated Rust sees it: the rules decoding checks (string
/// rules, bounds, list rules) and formats do not change a Rust type; names,
/// integer formats and shapes do.
pub(super) fn rust(t: &Type) -> Type {
    match t {
        Type::String { .. } => Type::String { format: None, min_length: None, max_length: None, pattern: None },
        Type::Integer { format, .. } => Type::Integer { format: *format, min: None, max: None },
        Type::Number { .. } => Type::Number { format: None, min: None, max: None },
        Type::Array { items, nullable_items, .. } => Type::Array {
            items: Box::new(rust(items)),
            min_items: None,
            max_items: None,
            unique_items: false,
            nullable_items: *nullable_items,
        },
        Type::Map { values, nullable_values } => {
            Type::Map { values: Box::new(rust(values)), nullable_values: *nullable_values }
        }
        Type::Tuple(items) => Type::Tuple(
            items
                .iter()
                .map(|i| {
                    let mut i = i.clone();
                    i.ty = rust(&i.ty);
                    i
                })
                .collect(),
        ),
        _ => t.clone(),
    }
}

//! Random valid instances of a definition, generated from the IR (seeded, so a
//! run is reproducible and its counts can be snapshotted).

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use xtask::model::{Def, EnumRepr, IntFormat, Kind, Module, Payload, Type};

/// xorshift64*: small, deterministic, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// Every definition of a module (inline ones included), by name.
pub struct Space<'a>(BTreeMap<&'a str, &'a Def>);

impl<'a> Space<'a> {
    pub fn new(module: &'a Module) -> Self {
        Space(module.defs.iter().flat_map(Def::walk).map(|d| (d.name.as_str(), d)).collect())
    }

    /// An instance of the definition `name`.
    pub fn instance(&self, name: &str, rng: &mut Rng, depth: usize) -> Value {
        let def = self.0[name];
        match &def.kind {
            Kind::Struct(s) => {
                let mut obj = Map::new();
                for f in &s.fields {
                    let include = f.required || (depth < 4 && rng.chance(50));
                    if !include {
                        continue;
                    }
                    let v = if f.nullable && rng.chance(20) { Value::Null } else { self.value(&f.ty, rng, depth + 1) };
                    obj.insert(f.name.clone(), v);
                }
                if let Some(fl) = &s.flatten {
                    if let Value::Object(extra) = self.instance(&fl.union, rng, depth + 1) {
                        obj.extend(extra);
                    }
                }
                Value::Object(obj)
            }
            Kind::Enum(e) => {
                if e.fallback.is_some() && rng.chance(15) {
                    return match e.repr {
                        EnumRepr::String => json!(if rng.chance(50) { "_vendor_value" } else { "future_value" }),
                        EnumRepr::Integer(_) => json!(-31_999),
                    };
                }
                e.variants[rng.below(e.variants.len())].value.to_json()
            }
            Kind::Union(u) => {
                let n = u.variants.len() + usize::from(u.catch_all.is_some());
                let pick = rng.below(n);
                let Some(v) = u.variants.get(pick) else {
                    // The catch-all arm: an unknown tag with the fields it requires.
                    let c = u.catch_all.as_ref().expect("catch-all");
                    let tag = &u.tag.as_ref().expect("tagged").property;
                    let mut obj = Map::new();
                    obj.insert(tag.clone(), json!("_vendor_kind"));
                    for r in &c.required {
                        let ty = c.fields.iter().find(|f| &f.name == r).map(|f| f.ty.clone());
                        let v = ty.map_or(json!("x"), |t| self.value(&t, rng, depth + 1));
                        obj.insert(r.clone(), v);
                    }
                    obj.insert("_extra".into(), json!({"kept": [1, null]}));
                    return Value::Object(obj);
                };
                let mut value = match &v.payload {
                    Payload::Unit => json!({}),
                    Payload::Type(t) => self.value(t, rng, depth + 1),
                    Payload::NoTag => {
                        let tag = &u.tag.as_ref().expect("tagged").property;
                        if rng.chance(50) {
                            json!({ tag: null })
                        } else {
                            json!({})
                        }
                    }
                };
                if let (Some(tag), Some(t)) = (&u.tag, &v.tag) {
                    if let Value::Object(obj) = &mut value {
                        obj.insert(tag.property.clone(), json!(t));
                    }
                }
                value
            }
            Kind::Newtype(t) => self.value(t, rng, depth + 1),
            Kind::Alias(target) => self.instance(target, rng, depth + 1),
            Kind::Any | Kind::Opaque(_) => json!({"any": [1, "two", null]}),
        }
    }

    fn value(&self, ty: &Type, rng: &mut Rng, depth: usize) -> Value {
        match ty {
            Type::String { .. } => json!(["a", "sess_1", "file:///tmp/x", "2026-01-01T00:00:00Z"][rng.below(4)]),
            Type::Base64 => json!("aGVsbG8="),
            Type::Char => json!(["a", "é", "\u{1f600}"][rng.below(3)]),
            Type::Integer { format, min, max } => {
                let (lo, hi) = format.range();
                let lo = min.unwrap_or(lo).max(-1000);
                let hi = max.unwrap_or(hi).min(1000);
                let v = lo + (rng.next() % (hi - lo + 1) as u64) as i128;
                let v = if *format == IntFormat::Int64 || *format == IntFormat::Int32 { v } else { v.max(0) };
                json!(v as i64)
            }
            Type::Number { min, max, .. } => {
                let (lo, hi) = (min.unwrap_or(-100.0), max.unwrap_or(100.0));
                json!(lo + (hi - lo) * 0.25)
            }
            Type::Boolean => json!(rng.chance(50)),
            Type::Null => Value::Null,
            Type::Any => json!({"k": [true, 2.5]}),
            Type::Object => json!({"traceId": "t-1"}),
            Type::Ref(name) => self.instance(name, rng, depth),
            Type::Array { items, min_items, max_items, nullable_items, .. } => {
                let n = if depth > 4 { 0 } else { rng.below(3) };
                let n = n.max(min_items.unwrap_or(0) as usize).min(max_items.map_or(usize::MAX, |m| m as usize));
                let item = |rng: &mut Rng| match *nullable_items && rng.chance(30) {
                    true => Value::Null,
                    false => self.value(items, rng, depth + 1),
                };
                Value::Array((0..n).map(|_| item(rng)).collect())
            }
            Type::Tuple(items) => Value::Array(
                items
                    .iter()
                    .map(|i| if i.nullable && rng.chance(50) { Value::Null } else { self.value(&i.ty, rng, depth + 1) })
                    .collect(),
            ),
            Type::Map { values, nullable_values } => match *nullable_values && rng.chance(30) {
                true => json!({"key": null}),
                false => json!({"key": self.value(values, rng, depth + 1)}),
            },
        }
    }
}

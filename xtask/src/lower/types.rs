//! Lowering a schema in a type position: a reference, a choice of arms
//! (`anyOf`/`oneOf`), a fixed value, or a `type` with its keywords.

use super::*;

impl Lowerer<'_> {
    /// Lowers a property or item schema to a type and whether `null` is allowed.
    pub(super) fn ty(&self, s: &Obj, pointer: &str, inline_name: &str, inline: &mut Vec<Def>) -> Result<(Type, bool)> {
        self.check_keywords(s, pointer)?;
        if s.contains_key("$ref") {
            return Ok((Type::Ref(self.resolve_ref(s, pointer)?), false));
        }
        if let Some(target) = self.all_of_ref(s, pointer)? {
            return Ok((Type::Ref(target), false));
        }
        if let Some(key) = ["anyOf", "oneOf"].into_iter().find(|k| s.contains_key(*k)) {
            return self.choice_ty(s, key, pointer, inline_name, inline);
        }
        if s.contains_key("const") || s.contains_key("enum") {
            return self.fixed_ty(s, pointer, inline_name, inline);
        }
        let (ty, nullable) = self.type_keyword(s, pointer)?;
        let ty = match ty {
            None => {
                if ["properties", "items", "prefixItems"].iter().any(|k| s.contains_key(*k)) {
                    return Err(
                        self.err(pointer, "a schema with `properties`, `items` or `prefixItems` needs a `type`")
                    );
                }
                Type::Any
            }
            Some("string") => self.string(s, pointer)?,
            Some("integer") => self.integer(s, pointer)?,
            Some("number") => Type::Number {
                format: s.get("format").and_then(Value::as_str).map(str::to_owned),
                min: num(s, "minimum"),
                max: num(s, "maximum"),
            },
            Some("boolean") => Type::Boolean,
            Some("null") => Type::Null,
            Some("array") => self.array(s, pointer, inline_name, inline)?,
            Some("object") => self.object_ty(s, pointer, inline_name, inline)?,
            Some(other) => return Err(self.err(pointer, format!("unsupported type `{other}`"))),
        };
        Ok((ty, nullable))
    }

    /// `anyOf`/`oneOf`: one arm besides `null` is that arm's type; more
    /// are an inline union (or enum) of their own.
    fn choice_ty(
        &self,
        s: &Obj,
        key: &str,
        pointer: &str,
        inline_name: &str,
        inline: &mut Vec<Def>,
    ) -> Result<(Type, bool)> {
        let arms = self.arms(s, key, pointer)?;
        let non_null: Vec<(usize, &Obj)> =
            arms.iter().copied().enumerate().filter(|(_, a)| a.get("type") != Some(&Value::from("null"))).collect();
        let nullable = non_null.len() < arms.len();
        if non_null.len() == 1 {
            let (i, arm) = non_null[0];
            let (ty, inner_null) = self.ty(arm, &format!("{pointer}/{key}/{i}"), inline_name, inline)?;
            return Ok((ty, nullable || inner_null));
        }
        if nullable {
            // Flatten a nested `anyOf` of payloads next to `null` (the envelopes).
            let flat: Vec<&Obj> = non_null
                .iter()
                .flat_map(|(_, a)| match a.get("anyOf").and_then(Value::as_array) {
                    Some(inner) if a.len() <= 2 => inner.iter().filter_map(Value::as_object).collect(),
                    _ => vec![*a],
                })
                .collect();
            let mut nested = Vec::new();
            let u = self.union(inline_name, s, &flat, &format!("{pointer}/{key}"), None, &mut nested)?;
            inline.push(self.inline_def(inline_name.to_owned(), s, pointer, Kind::Union(u), nested));
            return Ok((Type::Ref(inline_name.to_owned()), true));
        }
        let mut nested = Vec::new();
        let kind = match self.enumeration(&arms, pointer, key)? {
            Some(e) => Kind::Enum(e),
            None => Kind::Union(self.union(inline_name, s, &arms, &format!("{pointer}/{key}"), None, &mut nested)?),
        };
        inline.push(self.inline_def(inline_name.to_owned(), s, pointer, kind, nested));
        Ok((Type::Ref(inline_name.to_owned()), false))
    }

    /// A fixed value (`const`, a one-value `enum`) or a closed set of
    /// strings on a plain property: a closed enum of its own, so that the
    /// value is checked on decode and written as it is on encode.
    fn fixed_ty(&self, s: &Obj, pointer: &str, inline_name: &str, inline: &mut Vec<Def>) -> Result<(Type, bool)> {
        let values = match (s.get("const"), s.get("enum")) {
            (Some(v), None) => Value::Array(vec![v.clone()]),
            (None, Some(vs)) => vs.clone(),
            _ => return Err(self.err(pointer, "`const` and `enum` together")),
        };
        if s.get("type").is_some_and(|t| t != "string") {
            return Err(self.err(pointer, "a `const` or `enum` on a plain property is understood for strings only"));
        }
        let key = if s.contains_key("const") { "const" } else { "enum" };
        let mut e = self.closed_enum(&values, &format!("{pointer}/{key}"))?;
        if key == "const" {
            e.variants[0].pointer = format!("{pointer}/const");
        }
        // The property's description documents the field, not the enum.
        let mut d = self.inline_def(inline_name.to_owned(), s, pointer, Kind::Enum(e), Vec::new());
        d.docs = None;
        inline.push(d);
        Ok((Type::Ref(inline_name.to_owned()), false))
    }

    /// The `type` keyword: the one type besides `null`, and whether `null` is allowed.
    fn type_keyword<'s>(&self, s: &'s Obj, pointer: &str) -> Result<(Option<&'s str>, bool)> {
        Ok(match s.get("type") {
            None => (None, false),
            Some(Value::String(t)) => (Some(t.as_str()), false),
            Some(Value::Array(ts)) => {
                let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
                let nullable = names.contains(&"null");
                let rest: Vec<&str> = names.into_iter().filter(|t| *t != "null").collect();
                match rest.as_slice() {
                    [one] => (Some(*one), nullable),
                    [] => (Some("null"), false),
                    _ => {
                        return Err(self.err(pointer, format!("unsupported union of types {}", Value::from(ts.clone()))))
                    }
                }
            }
            Some(other) => return Err(self.err(pointer, format!("`type` must be a string or an array, found {other}"))),
        })
    }

    /// An object: an inline struct with `properties`, a map with a schema
    /// for `additionalProperties`, or any JSON object.
    fn object_ty(&self, s: &Obj, pointer: &str, inline_name: &str, inline: &mut Vec<Def>) -> Result<Type> {
        Ok(if s.contains_key("properties") {
            let mut nested = Vec::new();
            let st = self.structure(inline_name, s, pointer, None, &mut nested)?;
            inline.push(self.inline_def(inline_name.to_owned(), s, pointer, Kind::Struct(st), nested));
            Type::Ref(inline_name.to_owned())
        } else {
            match s.get("additionalProperties") {
                None | Some(Value::Bool(true)) => Type::Object,
                Some(Value::Bool(false)) => {
                    return Err(self.err(pointer, "an object that allows no properties is not supported"))
                }
                Some(v) => {
                    let ap = format!("{pointer}/additionalProperties");
                    let (values, nullable_values) =
                        self.ty(self.schema(v, &ap)?, &ap, &format!("{inline_name}Value"), inline)?;
                    self.unchecked_rule(&values, &ap)?;
                    Type::Map { values: Box::new(values), nullable_values }
                }
            }
        })
    }
}

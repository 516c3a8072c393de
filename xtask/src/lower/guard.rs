//! The catch-all arm of a union without a discriminator, and its guard:
//! `not: {anyOf: [..]}` listing exactly the union's other arms, each as a
//! `$ref` to the same definition or as a copy of an inline arm.
//!
//! A guarded schema matches an arm when, once the annotations are removed
//! ([`without_annotations`]), both are a reference to one definition
//! (`{"$ref": R}`, or the wrapper `{"allOf": [{"$ref": R}]}`) or both are the
//! same JSON. A reference never matches an inline schema, even one equal to
//! the definition it names: the definitions are not expanded.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{type_ident, Lowerer, Obj};
use crate::error::Result;
use crate::model::*;

/// The annotation keywords a guard may leave out or word otherwise: JSON
/// Schema's meta-data vocabulary and `$comment`. None of them changes which
/// values a schema allows. `x-` keywords are not among them: they change how
/// the generated code decodes an arm.
pub const ANNOTATIONS: &[&str] =
    &["$comment", "default", "deprecated", "description", "examples", "readOnly", "title", "writeOnly"];

/// Keywords whose value is one schema, or an array of schemas.
const SUBSCHEMA: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "contains",
    "else",
    "if",
    "items",
    "not",
    "oneOf",
    "prefixItems",
    "propertyNames",
    "then",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] =
    &["$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties"];

/// A schema without its annotations ([`ANNOTATIONS`]), in every subschema.
/// Only schema positions lose them: the names in `properties` (a property
/// called `title` stays) and values such as `const`, `enum` or `required`
/// are kept as written.
pub fn without_annotations(schema: &Value) -> Value {
    let Value::Object(o) = schema else {
        return schema.clone();
    };
    let each = |v: &Value| match v {
        Value::Array(a) => Value::Array(a.iter().map(without_annotations).collect()),
        v => without_annotations(v),
    };
    let mut out = Map::new();
    for (k, v) in o.iter().filter(|(k, _)| !ANNOTATIONS.contains(&k.as_str())) {
        let v = match v {
            Value::Object(m) if SCHEMA_MAPS.contains(&k.as_str()) => {
                Value::Object(m.iter().map(|(n, s)| (n.clone(), without_annotations(s))).collect())
            }
            v if SUBSCHEMA.contains(&k.as_str()) => each(v),
            v => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    Value::Object(out)
}

/// What a guarded schema or an arm is, for the guard's matching.
#[derive(Debug, PartialEq)]
enum Guarded {
    /// A reference to this definition.
    Ref(String),
    /// Any other schema, without its annotations.
    Inline(Value),
}

impl Lowerer<'_> {
    /// A schema as the guard's matching sees it: `{"$ref": R}` and
    /// `{"allOf": [{"$ref": R}]}` (annotations aside) are the definition `R`
    /// (which must exist), anything else its JSON without annotations.
    fn guarded(&self, s: &Obj, pointer: &str) -> Result<Guarded> {
        let bare = without_annotations(&Value::Object(s.clone()));
        let only_ref = |v: &Value| v.as_object().filter(|o| o.len() == 1 && o.contains_key("$ref")).cloned();
        let reference = only_ref(&bare).map(|r| (r, pointer.to_owned())).or_else(|| match bare.get("allOf") {
            Some(Value::Array(all)) if bare.as_object().is_some_and(|o| o.len() == 1) && all.len() == 1 => {
                only_ref(&all[0]).map(|r| (r, format!("{pointer}/allOf/0")))
            }
            _ => None,
        });
        match reference {
            Some((r, at)) => Ok(Guarded::Ref(self.resolve_ref(&r, &at)?)),
            None => Ok(Guarded::Inline(bare)),
        }
    }

    /// The catch-all arm of a union without a discriminator: `not: {anyOf:
    /// [..]}` listing exactly the union's other arms (`others`: each arm as
    /// written, with its pointer; see the module documentation for when a
    /// guarded schema is an arm), on an object: a value no arm accepts is
    /// kept whole.
    pub(super) fn untagged_catch_all(&self, arm: &Obj, pointer: &str, others: &[(&Obj, String)]) -> Result<CatchAll> {
        let not_ptr = format!("{pointer}/not");
        let uninterpretable =
            |at: &str, why: &str| self.err(at, format!("a `not` the generator cannot interpret: {why}"));
        let guarded = arm
            .get("not")
            .and_then(Value::as_object)
            .filter(|n| n.len() == 1)
            .and_then(|n| n.get("anyOf"))
            .and_then(Value::as_array)
            .ok_or_else(|| uninterpretable(&not_ptr, "expected `not: {anyOf: [...]}`"))?;
        let arms: Vec<Guarded> = others.iter().map(|(a, p)| self.guarded(a, p)).collect::<Result<_>>()?;
        let mut excluded = BTreeSet::new();
        for (i, g) in guarded.iter().enumerate() {
            let at = format!("{not_ptr}/anyOf/{i}");
            let g = self.guarded(self.object(g, &at)?, &at)?;
            let mut hits: Vec<usize> = (0..arms.len()).filter(|&j| arms[j] == g).collect();
            // An arm named by its tag alone: the object that fixes one
            // required property with a `const`, which the arm (or the
            // definition it names) fixes to the same value.
            if let (true, Some((property, value))) = (hits.is_empty(), tag_only(&g)) {
                hits = (0..others.len()).filter(|&j| self.fixes(others[j].0, &arms[j], &property, &value)).collect();
            }
            if hits.is_empty() {
                let why = match &g {
                    Guarded::Ref(name) => {
                        format!("it excludes `#/{}/{name}`, which none of the union's other arms names", self.defs_key)
                    }
                    Guarded::Inline(_) => format!(
                        "it excludes an inline schema equal to none of the union's other arms (annotations aside: {})",
                        annotation_list()
                    ),
                };
                return Err(uninterpretable(&at, &why));
            }
            excluded.extend(hits);
        }
        let missing: Vec<String> = others
            .iter()
            .enumerate()
            .filter(|(j, _)| !excluded.contains(j))
            .map(|(_, (_, p))| format!("#{p}"))
            .collect();
        if !missing.is_empty() {
            return Err(uninterpretable(
                &not_ptr,
                &format!("it must exclude every other arm of the union (not excluded: {})", missing.join(", ")),
            ));
        }
        let mut a = arm.clone();
        a.remove("not");
        self.check_keywords(&a, pointer)?;
        if a.get("type") != Some(&Value::from("object")) {
            return Err(self.err(pointer, "the catch-all arm of a union without a discriminator must be an object"));
        }
        let props = match a.get("properties") {
            Some(p) => self.object(p, pointer)?.clone(),
            None => Map::new(),
        };
        let required = self.required(&a, pointer)?.into_iter().collect();
        let additional = self.untyped_additional(&a, pointer)?;
        let fields = self.catch_all_fields(&props, None, pointer)?;
        let title = Self::title(&a);
        Ok(CatchAll {
            rust_name: type_ident(title.as_deref().unwrap_or("other")),
            title,
            pointer: pointer.to_owned(),
            docs: Self::docs(&a),
            tag_docs: None,
            required,
            fields,
            additional,
            one_of: Vec::new(),
            reserved: Vec::new(),
        })
    }
}

/// A guarded schema that only fixes one required property with a `const`
/// (`{"type": "object", "properties": {"type": {"const": "text"}}, "required":
/// ["type"]}`): that property and value.
fn tag_only(g: &Guarded) -> Option<(String, Value)> {
    let Guarded::Inline(Value::Object(o)) = g else { return None };
    if o.keys().any(|k| !matches!(k.as_str(), "type" | "properties" | "required")) {
        return None;
    }
    if o.get("type").is_some_and(|t| t != "object") {
        return None;
    }
    let props = o.get("properties")?.as_object()?;
    let [(property, schema)] = props.iter().collect::<Vec<_>>()[..] else { return None };
    let schema = schema.as_object()?;
    if schema.keys().any(|k| !matches!(k.as_str(), "const" | "type")) {
        return None;
    }
    match o.get("required")?.as_array()?.as_slice() {
        [only] if only == property.as_str() => Some((property.clone(), schema.get("const")?.clone())),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// Whether `arm` (or the definition it names, `guarded` being the arm as
    /// [`Lowerer::guarded`] resolved it) requires `property` and fixes it to `value`.
    fn fixes(&self, arm: &Obj, guarded: &Guarded, property: &str, value: &Value) -> bool {
        let arm = match guarded {
            Guarded::Ref(name) => match self.defs.get(name).and_then(Value::as_object) {
                Some(def) => def,
                None => return false,
            },
            Guarded::Inline(_) => arm,
        };
        let fixed = arm.get("properties").and_then(|p| p.get(property)).and_then(super::fixed);
        let required = arm.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n == property));
        required && fixed == Some(value)
    }
}

/// [`ANNOTATIONS`] for a message: `` `$comment`, `default`, .. ``.
fn annotation_list() -> String {
    ANNOTATIONS.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ")
}

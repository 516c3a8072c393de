//! `not` on a definition: the values a string definition excludes, and the
//! property an object definition forbids or fixes.

use serde_json::{Map, Value};

use super::{escape, Lowerer, Obj};
use crate::error::Result;
use crate::model::{Def, Kind};

/// The property an object `not` rewrote, for [`point_at_not`].
pub(super) struct Rewritten {
    /// The property's name.
    property: String,
    /// Whether the definition declares it in `properties` too.
    declared: bool,
}

/// Points what lowering made of a rewritten property at the schema as
/// written: the fixed value at `…/not/properties/P/not/const`, and the field
/// (and its one-value enum) at `…/not` when `properties` does not declare it.
pub(super) fn point_at_not(kind: &mut Kind, inline: &mut [Def], pointer: &str, r: &Rewritten) {
    let at = format!("{pointer}/properties/{}", escape(&r.property));
    let undeclared = format!("{pointer}/not");
    let value = format!("{pointer}/not/properties/{}/not/const", escape(&r.property));
    if let Kind::Struct(s) = kind {
        for f in s.fields.iter_mut().filter(|f| f.name == r.property && !r.declared) {
            f.pointer = undeclared.clone();
        }
    }
    for d in inline.iter_mut().filter(|d| d.pointer == at) {
        if !r.declared {
            d.pointer = undeclared.clone();
        }
        if let Kind::Enum(e) = &mut d.kind {
            for v in e.variants.iter_mut().filter(|v| v.pointer == format!("{at}/const")) {
                v.pointer = value.clone();
            }
        }
    }
}

impl Lowerer<'_> {
    /// An object definition's `not` about one property `P`, as the same
    /// object without it:
    /// - `not: {required: [P]}`: `P` must be absent (its schema becomes
    ///   `false`); as a union arm, the arm is chosen only when the
    ///   discriminator `P` is absent;
    /// - `not: {required: [P], properties: {P: {not: {const: V}}}}`: `P` is
    ///   absent or `V` (its schema becomes `const: V`, optional); as a union
    ///   arm, the arm is the default when no discriminator is given, and the
    ///   `V` arm.
    ///
    /// `type: object` may be written in the `not`; any other form is an error.
    pub(super) fn object_not(&self, full: &Obj, not: &Value, pointer: &str) -> Result<(Obj, Rewritten)> {
        let form = || {
            self.err(
                pointer,
                "`not` on an object is understood as `{required: [P]}` (P must be absent) or `{required: [P], properties: {P: {not: {const: V}}}}` (P is absent or V)",
            )
        };
        let not = self.object(not, pointer)?;
        if !(full.contains_key("properties") || full.get("type") == Some(&Value::from("object"))) {
            return Err(form());
        }
        if not.keys().any(|k| !matches!(k.as_str(), "required" | "type" | "properties"))
            || not.get("type").is_some_and(|t| t != "object")
        {
            return Err(form());
        }
        let Some([Value::String(p)]) = not.get("required").and_then(Value::as_array).map(Vec::as_slice) else {
            return Err(form());
        };
        let fixed = match not.get("properties").map(|ps| ps.as_object().map(|o| (o.len(), o.get(p)))) {
            None => None,
            Some(Some((1, Some(inner)))) => match inner.get("not").and_then(Value::as_object) {
                Some(n)
                    if n.len() == 1 && n.contains_key("const") && inner.as_object().is_some_and(|o| o.len() == 1) =>
                {
                    Some(n["const"].clone())
                }
                _ => return Err(form()),
            },
            _ => return Err(form()),
        };
        let mut out = full.clone();
        out.remove("not");
        let props = out.entry("properties").or_insert_with(|| Value::Object(Map::new()));
        let Some(props) = props.as_object_mut() else { return Err(form()) };
        let declared_schema = props.get(p).and_then(Value::as_object).cloned();
        let rewritten = Rewritten { property: p.clone(), declared: declared_schema.is_some() };
        let declared = declared_schema.unwrap_or_default();
        let schema = match fixed {
            None => Value::Bool(false),
            Some(v) => {
                let mut s: Obj =
                    declared.into_iter().filter(|(k, _)| matches!(k.as_str(), "description" | "title")).collect();
                s.insert("const".into(), v);
                Value::Object(s)
            }
        };
        props.insert(p.clone(), schema);
        Ok((out, rewritten))
    }

    /// The values a definition's `not` excludes: `not: {const: v}` or
    /// `not: {enum: [..]}` (the only forms understood there).
    pub(super) fn excluded(&self, not: &Value, pointer: &str) -> Result<Vec<Value>> {
        let not = self.object(not, pointer)?;
        let form = || self.err(pointer, "`not` on a definition is understood as `{const: v}` or `{enum: [..]}`");
        match (not.len(), not.get("const"), not.get("enum")) {
            (1, Some(v), None) => Ok(vec![v.clone()]),
            (1, None, Some(Value::Array(vs))) if !vs.is_empty() => Ok(vs.clone()),
            _ => Err(form()),
        }
    }
}

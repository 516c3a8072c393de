//! `schemars` support: every generated type describes itself with the JSON
//! Schema it was generated from, embedded as text.

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

/// The resolver of a module's `$defs` names: the generator's subschema for
/// the Rust type of a name, `None` for a name the module does not have.
pub type SchemaRef = fn(&mut SchemaGenerator, &str) -> Option<Schema>;

/// Parses an embedded schema fragment and replaces each `{"$ref": "#/$defs/X"}`
/// with the generator's subschema for the Rust type of `X` (`refs` finds it),
/// so that the types it refers to are registered as definitions.
pub fn embedded(generator: &mut SchemaGenerator, json: &str, refs: SchemaRef) -> Schema {
    let mut value: Value = serde_json::from_str(json).expect("the generator embeds valid JSON");
    resolve(&mut value, generator, refs);
    Schema::try_from(value).expect("the generator embeds a schema object")
}

fn resolve(value: &mut Value, generator: &mut SchemaGenerator, refs: SchemaRef) {
    match value {
        Value::Object(map) => {
            let target = map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
            if let Some(sub) = target.and_then(|name| refs(generator, name)) {
                map.remove("$ref");
                if let Value::Object(resolved) = sub.to_value() {
                    map.extend(resolved);
                }
            }
            for v in map.values_mut() {
                resolve(v, generator, refs);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| resolve(v, generator, refs)),
        _ => {}
    }
}

/// `impl schemars::JsonSchema for $name`, describing the type with its
/// embedded schema fragment `$schema` (see [`embedded`]): the name is the
/// type's, the id its module path, and each `$ref` is resolved by the
/// calling module's `schema_ref`. The generator writes one invocation per
/// type instead of spelling the impl out, and the fragments out of line (a
/// version module's `schemas`).
#[doc(hidden)]
#[macro_export]
macro_rules! __embedded_schema {
    ($name:ident, $schema:expr) => {
        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(concat!(module_path!(), "::", stringify!($name)))
            }
            fn json_schema(g: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                $crate::runtime::schema::embedded(g, $schema, schema_ref)
            }
        }
    };
}
// Exported at the crate root (as `macro_export` does), named here where the generator calls it.
pub use crate::__embedded_schema as embedded_schema;

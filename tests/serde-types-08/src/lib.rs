//! A test fixture: the types of `acp-serde-types` (the same file, included)
//! with schemars 0.8's `JsonSchema` derive, and the draft-07 schema 0.8
//! writes for them ([`schema`]): `definitions`, one-value `enum` tags,
//! `items: [..]` tuples, integer bounds written `0.0`, `transparent` structs
//! inline. The two derives cannot sit on one type (both read `#[schemars]`),
//! hence a crate of its own. The round trip runs against `acp-serde-types`'
//! values (`tests/tests/codegen/serde_types.rs`).

#![allow(clippy::large_enum_variant, dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use proptest::prelude::*;
use proptest_derive::Arbitrary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

include!("../../serde-types/src/types.rs");

/// The draft-07 schema (schemars 0.8's `SchemaSettings::draft07`) of every
/// root type: a document whose `definitions` hold them and what they reference.
pub fn schema() -> Value {
    let mut generator = schemars::gen::SchemaSettings::draft07().into_generator();
    macro_rules! add {
        ($($t:ident),*) => { $(generator.subschema_for::<$t>();)* };
    }
    for_each_root!(add);
    let mut defs: Vec<(String, Value)> = generator
        .take_definitions()
        .into_iter()
        .map(|(name, schema)| (name, serde_json::to_value(schema).expect("a schema serializes")))
        .collect();
    defs.sort_by(|a, b| a.0.cmp(&b.0));
    serde_json::json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "serde types (schemars 0.8)",
        "description": "What schemars 0.8 writes (draft-07) for the serde types of tests/serde-types, the same types schema/fixtures/serde_types.json gives in schemars 1.x; written by `cargo run -p acp-serde-types-08`.",
        "definitions": serde_json::Map::from_iter(defs),
    })
}

/// The schema as the committed file holds it: pretty JSON and a newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("a JSON value always serializes");
    text.push('\n');
    text
}

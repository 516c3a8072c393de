//! A test fixture: plain serde types over serde's data model and its common
//! attributes, the JSON Schema `schemars` writes for them ([`schema`]), and
//! proptest strategies for their values (`proptest::arbitrary::any::<T>()`).
//!
//! The round trip the workspace tests: a random value of one of these types is
//! written by serde_json, read by the type the generator made from
//! [`schema`] (`schema/fixtures/serde_types.json`, `tests/generated/serde_types.rs`),
//! written back, and must be the same JSON, which serde reads back to the
//! value it started from.
//!
//! Each root type ([`ROOTS`]) is one definition of the schema. What serde
//! itself cannot write and read back (an untagged enum whose arms overlap,
//! `NaN`, a flattened map whose keys shadow a field) is kept out of the
//! values, not out of the types.

#![allow(clippy::large_enum_variant)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use proptest::prelude::*;
use proptest_derive::Arbitrary;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

include!("types.rs");

// ---- the schema --------------------------------------------------------------

/// Adds one root type to the generator.
fn add<T: JsonSchema>(generator: &mut schemars::SchemaGenerator) {
    generator.subschema_for::<T>();
}

/// Adds one root type's schema (and what it references) to a generator.
pub type AddRoot = fn(&mut schemars::SchemaGenerator);

macro_rules! roots {
    ($($t:ident),*) => {
        /// The root types, each a definition of [`schema`], with the function
        /// that adds it.
        pub const ROOTS: &[(&str, AddRoot)] = &[$((stringify!($t), add::<$t>)),*];
    };
}
for_each_root!(roots);

/// The JSON Schema (2020-12, schemars' default settings) of every root type:
/// a document whose `$defs` hold them and everything they reference, as the
/// ACP schema holds its types.
pub fn schema() -> Value {
    let mut generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    for (_, add) in ROOTS {
        add(&mut generator);
    }
    let defs: serde_json::Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    let mut defs: Vec<(String, Value)> = defs.into_iter().collect();
    defs.sort_by(|a, b| a.0.cmp(&b.0));
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "serde types",
        "description": "What schemars writes for serde's data model and attributes (tests/serde-types); written by `cargo run -p acp-serde-types`.",
        "$defs": serde_json::Map::from_iter(defs),
    })
}

/// The schema as the committed file holds it: pretty JSON and a newline.
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// The command line of the schema writers (`cargo run -p acp-serde-types`,
/// `cargo run -p acp-serde-types-08`): writes `text` to `target` (beside it,
/// then renamed over it: all or nothing), or with `--check` compares them.
pub fn write_or_check(target: &std::path::Path, text: &str) -> std::process::ExitCode {
    use std::process::ExitCode;
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("error: unexpected argument `{other}` (usage: [--check])");
            return ExitCode::from(2);
        }
    };
    if check {
        return match std::fs::read_to_string(target) {
            Ok(committed) if committed == text => ExitCode::SUCCESS,
            Ok(_) => {
                eprintln!("error: {} is stale: run the same command without `--check`", target.display());
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", target.display());
                ExitCode::FAILURE
            }
        };
    }
    let tmp = target.with_extension("json.tmp");
    let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, target));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        eprintln!("error: cannot write {}: {e}", target.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", target.display());
    ExitCode::SUCCESS
}

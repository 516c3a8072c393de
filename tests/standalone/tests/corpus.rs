//! The round-trip corpus against `acp-bindings` built exactly as a user's
//! crate builds it.

use std::path::{Path, PathBuf};

#[path = "../../tests/bindings/corpus.rs"]
mod corpus;

// The by-name decode/re-encode registry (generated; uses only `acp_bindings`).
#[rustfmt::skip]
#[allow(dead_code)]
#[path = "../../../tools/src/registry.rs"]
mod registry;

fn dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(version)
}

#[test]
fn serde_json_keeps_key_order_because_acp_bindings_asks_for_it() {
    // Outside the workspace, the only features serde_json gets are those of
    // this crate (none) and of `acp-bindings`, which turns on
    // `preserve_order` so that free-form objects keep their key order.
    let m: serde_json::Map<String, serde_json::Value> = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
    assert_eq!(m.keys().next().map(String::as_str), Some("b"), "acp-bindings must enable preserve_order");
}

#[test]
fn v1_corpus_round_trips() {
    assert!(corpus::run(&dir("v1"), registry::v1::reencode) >= 20);
}

#[test]
fn v2_corpus_round_trips() {
    assert!(corpus::run(&dir("v2"), registry::v2::reencode) >= 20);
}

/// The hot types stay small as a user builds them (the limits of the
/// performance targets: 260 and 300 bytes), with and without `unstable`.
#[test]
fn hot_types_are_small() {
    let sizes = [
        ("ToolCallUpdate", std::mem::size_of::<acp_bindings::v2::ToolCallUpdate>(), 260),
        ("SessionUpdate", std::mem::size_of::<acp_bindings::v2::SessionUpdate>(), 300),
    ];
    for (name, size, limit) in sizes {
        assert!(size <= limit, "v2::{name} is {size} bytes, more than {limit}");
    }
}

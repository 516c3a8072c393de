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

/// Whether the bindings keep the key order of free-form objects.
const KEY_ORDER: bool = cfg!(feature = "preserve_order");

#[test]
fn serde_json_keeps_key_order_only_when_acp_bindings_asks_for_it() {
    // Outside the workspace, the only features serde_json gets are those of
    // this crate (none) and of `acp-bindings`, whose default `preserve_order`
    // makes free-form objects keep their key order; without it they are sorted.
    let m: serde_json::Map<String, serde_json::Value> = serde_json::from_str(r#"{"b": 1, "a": 2}"#).unwrap();
    let first = if KEY_ORDER { "b" } else { "a" };
    assert_eq!(m.keys().next().map(String::as_str), Some(first), "preserve_order: {KEY_ORDER}");
    let meta: acp_bindings::runtime::JsonObject = serde_json::from_str(r#"{"z": 1, "y": 2}"#).unwrap();
    let text = serde_json::to_string(&meta).unwrap();
    assert_eq!(text, if KEY_ORDER { r#"{"z":1,"y":2}"# } else { r#"{"y":2,"z":1}"# });
}

#[test]
fn v1_corpus_round_trips() {
    assert!(corpus::run(&dir("v1"), registry::v1::reencode, KEY_ORDER) >= 20);
}

#[test]
fn v2_corpus_round_trips() {
    assert!(corpus::run(&dir("v2"), registry::v2::reencode, KEY_ORDER) >= 20);
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

/// An item whose unstable shape only adds to its stable shape is one item:
/// without `unstable` an added property is an unknown one, kept in
/// `additional_properties`, and an added arm's discriminator is an unknown
/// one, kept whole in the catch-all; with it both are typed. Either way the
/// text is written back as it came, by serde's path and by the direct decoder.
#[test]
fn unstable_additions_are_typed_only_with_the_feature() {
    use acp_bindings::v2::{SessionCapabilities, SessionUpdate};
    let text = r#"{"delete":{},"fork":{}}"#;
    let decoded: [SessionCapabilities; 2] =
        [serde_json::from_str(text).unwrap(), acp_bindings::json::from_str(text).unwrap()];
    for caps in decoded {
        assert!(caps.delete.is_value());
        #[cfg(feature = "unstable")]
        assert!(caps.fork.is_value() && caps.additional_properties.get("fork").is_none());
        #[cfg(not(feature = "unstable"))]
        assert_eq!(caps.additional_properties.get("fork"), Some(&serde_json::json!({})));
        assert_eq!(serde_json::to_string(&caps).unwrap(), text);
    }
    let text = r#"{"sessionUpdate":"plan_removed","planId":"p1"}"#;
    let decoded: [SessionUpdate; 2] =
        [serde_json::from_str(text).unwrap(), acp_bindings::json::from_str(text).unwrap()];
    for update in decoded {
        #[cfg(feature = "unstable")]
        assert!(matches!(update, SessionUpdate::PlanRemoved(_)), "{update:?}");
        #[cfg(not(feature = "unstable"))]
        assert!(matches!(update, SessionUpdate::Other(_)), "{update:?}");
        assert_eq!(update.tag(), Some("plan_removed"));
        assert_eq!(serde_json::to_string(&update).unwrap(), text);
    }
}

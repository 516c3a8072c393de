//! The schemars round trip: random values of plain serde types
//! (`tests/serde-types`) written by serde, read by the types the generator made
//! from their schemars schema (`schema/fixtures/serde_types.json`), written
//! back: the same JSON, which serde reads back to the value it started from.

use std::fmt::Debug;

use proptest::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::fixtures::serde_types as generated;
use acp_serde_types as original;

/// One value of an original type `T` through the generated type `G`.
fn round_trip<T, G>(value: &T) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
    G: Serialize + DeserializeOwned,
{
    let written = serde_json::to_string(value).expect("serde writes every fixture value");
    let read: G = serde_json::from_str(&written)
        .map_err(|e| TestCaseError::fail(format!("the generated type refuses {written}: {e}")))?;
    let again = serde_json::to_string(&read).expect("generated types always encode");
    let (a, b): (Value, Value) = (serde_json::from_str(&written).unwrap(), serde_json::from_str(&again).unwrap());
    prop_assert_eq!(&a, &b, "re-encoding changed the JSON: {} -> {}", written, again);
    // The crate's own reader gives the same value (it falls back to serde_json).
    let fast: G = acp_bindings::json::from_str(&written)
        .map_err(|e| TestCaseError::fail(format!("json::from_str refuses {written}: {e}")))?;
    prop_assert_eq!(serde_json::to_string(&fast).unwrap(), again.clone());
    let back: T = serde_json::from_str(&again)
        .map_err(|e| TestCaseError::fail(format!("serde refuses the re-encoding {again}: {e}")))?;
    prop_assert_eq!(&back, value, "serde read the re-encoding {} as another value", again);
    Ok(())
}

macro_rules! round_trips {
    (inlined: [$($inlined:ident),*]; $($test:ident: $t:ident,)*) => {
        proptest! {
            #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]
            $(
                #[test]
                fn $test(value in any::<original::$t>()) {
                    round_trip::<original::$t, generated::$t>(&value)?;
                }
            )*
        }

        /// Every root of the fixture crate has a round trip above, but those
        /// the schema writes inline where they are used (no definition, so no
        /// generated type of their own: they round-trip inside the others).
        #[test]
        fn every_root_type_round_trips() {
            let tested: &[&str] = &[$(stringify!($t)),*];
            let inlined: &[&str] = &[$(stringify!($inlined)),*];
            let roots: Vec<&str> =
                original::ROOTS.iter().map(|(name, _)| *name).filter(|n| !inlined.contains(n)).collect();
            assert_eq!(roots, tested, "a root type of tests/serde-types has no round trip here, or one too many");
        }
    };
}

/// Through the types generated from what schemars 1.x writes (`serde_types.json`).
mod schemars_1 {
    use super::*;
    use crate::fixtures::serde_types as generated;
    round_trips! {
        inlined: [];
        scalars: Scalars,
        meters: Meters,
        label: Label,
        point: Point,
        marker: Marker,
        collections: Collections,
        attributes: Attributes,
        strict: Strict,
        flattened: Flattened,
        typed_rest: TypedRest,
        with_shape: WithShape,
        color: Color,
        external: External,
        shape: Shape,
        adjacent: Adjacent,
        untagged: Untagged,
        event: Event,
        tree: Tree,
        chain: Chain,
        expr: Expr,
    }
}

/// Through the types generated from what schemars 0.8 wrote for the same
/// types (`schemars_08.json`: draft-07, `definitions`, one-value `enum`
/// tags, `items: [..]` tuples, integer bounds written `0.0`; a
/// `transparent` struct is written inline).
mod schemars_08 {
    use super::*;
    use crate::fixtures::schemars_08 as generated;
    round_trips! {
        inlined: [Label];
        scalars: Scalars,
        meters: Meters,
        point: Point,
        marker: Marker,
        collections: Collections,
        attributes: Attributes,
        strict: Strict,
        flattened: Flattened,
        typed_rest: TypedRest,
        with_shape: WithShape,
        color: Color,
        external: External,
        shape: Shape,
        adjacent: Adjacent,
        untagged: Untagged,
        event: Event,
        tree: Tree,
        chain: Chain,
        expr: Expr,
    }
}

/// The committed schemas are what schemars 1.x and 0.8 write for the fixture types today.
#[test]
fn the_committed_schemas_are_what_schemars_writes() {
    let root = super::root();
    for (file, text, command) in [
        ("serde_types.json", original::schema_text(), "acp-serde-types"),
        ("schemars_08.json", acp_serde_types_08::schema_text(), "acp-serde-types-08"),
    ] {
        let committed = std::fs::read_to_string(root.join("schema/fixtures").join(file)).unwrap();
        assert!(
            committed == text,
            "schema/fixtures/{file} is stale: run `cargo run -p {command}`, then `cargo xtask codegen`"
        );
    }
}

/// The round trip can fail: a generated type of another shape is caught.
#[test]
fn a_type_of_another_shape_fails_the_round_trip() {
    let value = original::Strict { name: "n".into(), size: Some(3) };
    // `Inner` has no `size` and requires `inner_name`: refused.
    assert!(round_trip::<original::Strict, generated::Inner>(&value).is_err());
    // `Color` is a closed set of strings: `Blue` is written `BLUE`, which reads
    // back, but `Untagged` reads `"BLUE"` as text and serde reads it back as
    // `Untagged::Text`, not the color.
    assert!(round_trip::<original::Color, generated::Color>(&original::Color::Blue).is_ok());
    assert!(round_trip::<original::Untagged, generated::Label>(&original::Untagged::Int(5)).is_err());
}

/// A typed `additionalProperties` beside `properties` (a flattened typed map)
/// types every other property: one of another type fails the object.
#[test]
fn a_typed_rest_types_every_other_property() {
    let ok: generated::TypedRest = serde_json::from_str(r#"{"id": 1, "x-a": 2}"#).unwrap();
    assert_eq!(ok.additional_properties.get("x-a"), Some(&2));
    assert_eq!(serde_json::to_string(&ok).unwrap(), r#"{"id":1,"x-a":2}"#);
    assert!(serde_json::from_str::<generated::TypedRest>(r#"{"id": 1, "x-a": "two"}"#).is_err());
    assert!(serde_json::from_str::<original::TypedRest>(r#"{"id": 1, "x-a": "two"}"#).is_err());
}

/// What the schema cannot carry (`docs/generated-types.md` lists it): the generated types
/// follow the schema, so they differ from serde on input serde never writes.
#[test]
fn what_the_schema_does_not_carry() {
    // `#[serde(other)]`: serde reads an unlisted tag as `Unknown`; the schema
    // lists `unknown` as one more tag, so the generated union refuses others.
    let unlisted = r#"{"kind": "restarted"}"#;
    assert_eq!(serde_json::from_str::<original::Event>(unlisted).unwrap(), original::Event::Unknown);
    assert!(serde_json::from_str::<generated::Event>(unlisted).is_err());
    // `alias`: schemars writes the main name only.
    let aliased = r#"{"snakeCaseName": "s", "type": "t", "oldName": 1, "nullable": null}"#;
    assert_eq!(serde_json::from_str::<original::Attributes>(aliased).unwrap().new_name, 1);
    assert!(serde_json::from_str::<generated::Attributes>(aliased).is_err());
    // `deny_unknown_fields` (`additionalProperties: false`): serde refuses an
    // unknown member; the generated struct drops it.
    let extra = r#"{"name": "n", "color": "red"}"#;
    assert!(serde_json::from_str::<original::Strict>(extra).is_err());
    let read: generated::Strict = serde_json::from_str(extra).unwrap();
    assert_eq!(serde_json::to_string(&read).unwrap(), r#"{"name":"n"}"#);
}

//! The derives of `acp-bindings` on a user's own types, in a crate that
//! depends on the bindings as a user's does: what they write must compile
//! and behave with only what `acp-bindings` brings.

use acp_bindings::runtime::{Extra, SmolStr, UnknownInteger, UnknownString, UnknownVariant};
use acp_bindings::{AcpDeserialize, AcpEnum, AcpString, AcpUnion};

#[derive(Debug, Clone, PartialEq, serde::Serialize, AcpDeserialize)]
#[serde(rename_all = "camelCase")]
#[acp(direct)]
struct Lint {
    rule_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix_it: Option<String>,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(Debug, Clone, PartialEq, AcpUnion)]
#[acp(tag = "kind", rename_all = "snake_case", direct)]
enum Finding {
    Lint(Lint),
    #[acp(rename = "all-clear")]
    AllClear,
    #[acp(other, required = "ms", check = "ms: u64")]
    Other(UnknownVariant),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, AcpEnum)]
#[acp(rename_all = "snake_case")]
enum Severity {
    Warning,
    HardError,
    #[acp(other)]
    Other(UnknownString),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, AcpEnum)]
#[acp(range = i16)]
enum Level {
    #[acp(value = -1)]
    Low,
    #[acp(value = 1)]
    High,
    #[acp(other)]
    Other(UnknownInteger),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, AcpString)]
#[acp(not = "", pointer = "#/$defs/ReviewId/not")]
struct ReviewId(SmolStr);

#[test]
fn a_union_of_your_own_streams_known_arms_and_keeps_unknown_ones() {
    let text = r#"{"kind":"lint","ruleId":"no-todo","x-tool":1}"#;
    let f: Finding = acp_bindings::json::from_str(text).unwrap();
    let Finding::Lint(lint) = &f else { panic!("{f:?}") };
    assert_eq!(lint.rule_id, "no-todo");
    assert_eq!(f.tag(), Some("lint"));
    assert_eq!(acp_bindings::json::to_string(&f).unwrap(), text);
    assert_eq!(Finding::from(lint.clone()), f);

    let clear: Finding = acp_bindings::json::from_str(r#"{"kind":"all-clear"}"#).unwrap();
    assert_eq!(clear, Finding::AllClear);

    // An arm this crate does not know is kept whole, after the catch-all's checks.
    let later = r#"{"kind":"perf","ms":3,"where":"parse"}"#;
    let f: Finding = acp_bindings::json::from_str(later).unwrap();
    assert_eq!(f.tag(), Some("perf"));
    assert_eq!(acp_bindings::json::to_string(&f).unwrap(), later);
    let err = acp_bindings::json::from_str::<Finding>(r#"{"kind":"perf","ms":"slow"}"#).unwrap_err();
    assert!(err.to_string().contains("ms"), "{err}");

    // A known arm with a bad payload is an error naming the arm, not an unknown arm.
    let err = acp_bindings::json::from_str::<Finding>(r#"{"kind":"lint"}"#).unwrap_err();
    assert!(err.to_string().contains("lint") && err.to_string().contains("ruleId"), "{err}");
    // A member named twice is refused, as everywhere in the bindings.
    assert!(acp_bindings::json::from_str::<Finding>(r#"{"kind":"lint","ruleId":"a","ruleId":"b"}"#).is_err());
}

#[test]
fn enums_of_your_own_are_open_or_closed_as_declared() {
    assert_eq!(Severity::HardError.as_str(), "hard_error");
    assert_eq!(Severity::VALUES, ["warning", "hard_error"]);
    let s: Severity = acp_bindings::json::from_str(r#""_vendor_info""#).unwrap();
    assert!(s.is_extension() && !s.is_known());
    assert_eq!(acp_bindings::json::to_string(&s).unwrap(), r#""_vendor_info""#);
    assert_eq!("warning".parse::<Severity>(), Ok(Severity::Warning));

    let l: Level = acp_bindings::json::from_str("-1").unwrap();
    assert_eq!((l, l.value()), (Level::Low, -1));
    let l: Level = acp_bindings::json::from_str("7").unwrap();
    assert_eq!(l.value(), 7);
    // Outside the declared range (`i16`): an error, not a value.
    assert!(acp_bindings::json::from_str::<Level>("40000").is_err());
}

#[test]
fn identifiers_of_your_own_refuse_what_their_schema_excludes() {
    let id: ReviewId = acp_bindings::json::from_str(r#""r-1""#).unwrap();
    assert_eq!((id.as_str(), id.to_string()), ("r-1", "r-1".to_owned()));
    assert_eq!(ReviewId::from("r-1"), id);
    let err = acp_bindings::json::from_str::<ReviewId>(r#""""#).unwrap_err();
    assert!(err.to_string().contains("#/$defs/ReviewId/not"), "{err}");
}

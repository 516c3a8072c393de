//! A schema of one's own, generated and used without ACP's types: its
//! messages decode, dispatch and re-encode through the runtime crate, and
//! the derives work on a user's types with `#[acp(crate = "..")]`.

use acp_bindings_runtime::runtime::{Extra, UnknownVariant};
use acp_bindings_runtime::{AcpDeserialize, AcpUnion};
use acp_own_schema::schemas::methods_and_envelopes as own;

#[test]
fn a_request_of_the_schema_decodes_and_re_encodes() {
    let line = r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":3,"x":[1]}}"#;
    let message = own::rpc::Message::decode(line, |_| None).expect("decodes");
    let own::rpc::Message::Request { id, request, .. } = &message else { panic!("{message:?}") };
    assert_eq!(*id, own::RequestId::Number(7));
    assert!(format!("{request:?}").contains("protocol_version: 3"), "{request:?}");
    assert_eq!(acp_bindings_runtime::json::to_string(&message).expect("encodes"), line);
}

#[test]
fn a_method_the_schema_does_not_name_is_kept() {
    let line = r#"{"jsonrpc":"2.0","id":"a","method":"_vendor/ping","params":{"n":1}}"#;
    let message = own::rpc::Message::decode(line, |_| None).expect("decodes");
    assert_eq!(acp_bindings_runtime::json::to_string(&message).expect("encodes"), line);
}

#[test]
fn the_derives_name_the_runtime_crate() {
    #[derive(Debug, Clone, PartialEq, serde::Serialize, AcpDeserialize)]
    #[acp(crate = "::acp_bindings_runtime")]
    #[serde(rename_all = "camelCase")]
    struct Lint {
        rule_id: String,
        #[serde(flatten)]
        additional_properties: Extra,
    }

    #[derive(Debug, Clone, PartialEq, AcpUnion)]
    #[acp(crate = "::acp_bindings_runtime", tag = "kind", rename_all = "snake_case")]
    enum Finding {
        Lint(Lint),
        #[acp(other)]
        Other(UnknownVariant),
    }

    let text = r#"{"kind":"lint","ruleId":"r1","extra":true}"#;
    let finding: Finding = acp_bindings_runtime::json::from_str(text).expect("decodes");
    let Finding::Lint(lint) = &finding else { panic!("{finding:?}") };
    assert_eq!(lint.rule_id, "r1");
    assert_eq!(acp_bindings_runtime::json::to_string(&finding).unwrap(), text);
    let other: Finding = acp_bindings_runtime::json::from_str(r#"{"kind":"style","n":1}"#).unwrap();
    assert!(matches!(other, Finding::Other(_)));
}

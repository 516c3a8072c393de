//! The ACP types take the fast paths of the runtime's JSON reader on the
//! messages a session usually carries: the reader instead of the fallback to
//! `serde_json`, and the generated direct decoders instead of the serde
//! visitors. What the runtime does on its own types is tested in its crate.

use acp_bindings::json::{self, fast};
use acp_bindings::v2::UpdateSessionNotification;

#[test]
fn the_usual_messages_take_the_reader_not_the_fallback() {
    let lines = [
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","title":"Read \"a.rs\"","kind":"read","status":"pending","locations":[{"path":"/w/a.rs","line":12}],"rawInput":{"path":"/w/a.rs","limit":200}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"in_progress","title":null,"rawOutput":null}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","kind":null,"content":[{"type":"content","content":{"type":"text","text":"ok"}},{"type":"diff","changes":[{"operation":"modify","path":"/w/a.rs"}]}],"locations":null,"_meta":{"traceId":"t-1"}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Chunk 0:\n\tsee \u00e9"}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"usage_update","used":1000,"size":200000}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"some_future_update","x":[1.5,-2,{"y":true}]},"extra":1}"#,
    ];
    for line in lines {
        let v = fast::reader_only::<UpdateSessionNotification>(line).unwrap_or_else(|| panic!("declined {line}"));
        assert_eq!(v, serde_json::from_str(line).unwrap(), "{line}");
        let ours = json::from_str::<UpdateSessionNotification>(line).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<UpdateSessionNotification>(line).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{line}");
    }
}

#[test]
fn the_usual_session_updates_take_the_direct_decoder() {
    let lines = [
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","title":"Read \"a.rs\"","kind":"read","status":"pending","locations":[{"path":"/w/a.rs","line":12}],"rawInput":{"path":"/w/a.rs","limit":200}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"in_progress","title":null,"rawOutput":null}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","status":"completed","kind":null,"content":[{"type":"content","content":{"type":"text","text":"ok"}},{"type":"diff","changes":[{"operation":"modify","path":"/w/a.rs"}]}],"locations":null,"_meta":{"traceId":"t-1"}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_content_chunk","toolCallId":"call_1","content":{"type":"content","content":{"type":"text","text":"line 0"}}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m1","content":{"type":"text","text":"Chunk 0:\n\tsee \u00e9"}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"agent_thought_chunk","messageId":"t1","content":{"type":"text","text":"Considering."}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"plan_update","plan":{"type":"items","planId":"main","entries":[{"content":"Read","priority":"high","status":"completed"}]}}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"usage_update","used":1000,"size":200000}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"session_info_update","title":"Fix","updatedAt":null}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","x-unknown":[1,{"a":null}]},"extra":1}"#,
        // Known names out of their order, after whitespace, with
        // whitespace before the `:`, and at the end of the text (fewer
        // than sixteen bytes left): each found by its text instead.
        r#"{"update":{"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"c"},"sessionId":"s"}"#,
        "{ \"sessionId\" : \"s\", \"update\":\n{\"sessionUpdate\":\"usage_update\",\"size\":2,\"used\":1}}",
        r#"{"update":{"sessionUpdate":"usage_update","used":1,"size":2},"sessionId":"s"}"#,
    ];
    for line in lines {
        let v = fast::direct_only::<UpdateSessionNotification>(line).unwrap_or_else(|| panic!("bailed on {line}"));
        assert_eq!(v, serde_json::from_str(line).unwrap(), "{line}");
    }
    // What the direct decoders do not serve bails (here: an unknown
    // variant, a discriminator after the payload, an escaped name, a
    // duplicate member, a flattened union, a bad list item); the reader
    // then runs the serde visitors, and `from_str` gives serde_json's result.
    let bailing = [
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"some_future_update","x":[1.5,-2,{"y":true}]},"extra":1}"#,
        r#"{"sessionId":"sess_1","update":{"toolCallId":"call_1","sessionUpdate":"tool_call_update"}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","tool\u0043allId":"call_1"}}"#,
        r#"{"sessionId":"sess_1","sessionId":"sess_2","update":{"sessionUpdate":"usage_update","used":1,"size":2}}"#,
        // A known name found by its words, then again by its text.
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"usage_update","used":1,"size":2},"sessionId" :"s"}"#,
        // A discriminator repeated in the payload.
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"usage_update","used":1,"sessionUpdate":"usage_update","size":2}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"state_update","state":"idle","stopReason":"end_turn"}}"#,
        r#"{"sessionId":"sess_1","update":{"sessionUpdate":"tool_call_update","toolCallId":"call_1","locations":[{"path":"/a"},{"line":1}]}}"#,
    ];
    for line in bailing {
        assert!(fast::direct_only::<UpdateSessionNotification>(line).is_none(), "{line}");
        let expected = serde_json::from_str::<UpdateSessionNotification>(line);
        let got = json::from_str::<UpdateSessionNotification>(line);
        assert_eq!(format!("{got:?}"), format!("{expected:?}"), "{line}");
    }
}

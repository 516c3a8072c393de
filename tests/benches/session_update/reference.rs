//! A reference decoder for the bench stream: the fastest decoding of the same
//! information that plain serde derives allow, with none of ACP's decoding
//! rules.
//!
//! What it keeps: every field the stream uses, typed (closed enums for kind,
//! status, priority and state), owned strings, `null` told apart from omitted
//! in the tool-call patches (`Option<Option<T>>`), `_meta` and raw input and
//! output as JSON. What it leaves out, all of which the generated types do:
//! unknown properties kept and written back, open enums and unions (unknown
//! values decoded, not refused), lenient fields (a malformed value replaced by
//! its default, a malformed list item dropped), duplicate-key checks beyond
//! serde's, the variants the stream does not use.
//!
//! The unions are decoded as the generated ones are when the discriminator
//! comes first: the rest of the object streams into the variant's struct
//! (serde's own `#[serde(tag = ...)]` buffers the whole object first, which
//! is what the official crate does, and is slower). So this measures what
//! serde and serde_json cost for these types, not a design choice: it is the
//! bound any serde-based owned decoder of the stream meets.
//!
//! The types come twice: in [`owned`] every text is a `String`; in
//! [`skipped`] the texts (tool titles, paths, message and output text) are
//! validated and skipped, never copied, the lower bound of a borrowed decode.

// The fields are decoded to be measured, never read; the unions hold their
// variants inline, as the generated ones do.
#![allow(dead_code, clippy::large_enum_variant)]

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

/// `Some(None)` for an explicit `null`, `Some(Some(v))` for a value; the field
/// has `#[serde(default)]`, so omitted is `None`.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A union whose discriminator `$tag` must come first; the rest of the object
/// is decoded by the variant's struct as it streams by.
macro_rules! tagged {
    ($ty:ident, $tag:literal, { $($name:literal => $arm:ident($payload:ty)),* $(,)? }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $ty;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($ty), " object"))
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<$ty, A::Error> {
                        if m.next_key::<&str>()? != Some($tag) {
                            return Err(de::Error::custom(concat!("`", $tag, "` must come first")));
                        }
                        let tag: &str = m.next_value()?;
                        let rest = de::value::MapAccessDeserializer::new(m);
                        match tag {
                            $($name => <$payload>::deserialize(rest).map($ty::$arm),)*
                            other => Err(de::Error::unknown_variant(other, &[$($name),*])),
                        }
                    }
                }
                d.deserialize_map(V)
            }
        }
    };
}

/// The stream's types, with `$text` for the texts.
macro_rules! types {
    ($text:ty) => {
    use super::*;

    type Text = $text;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Notification {
        pub session_id: acp_bindings::runtime::SmolStr,
        pub update: Update,
        #[serde(default, rename = "_meta")]
        pub meta: Option<Map<String, Value>>,
    }

    #[derive(Debug, PartialEq)]
    pub enum Update {
        ToolCallUpdate(ToolCallUpdate),
        ToolCallContentChunk(ToolCallContentChunk),
        AgentMessageChunk(ContentChunk),
        AgentThoughtChunk(ContentChunk),
        PlanUpdate(PlanUpdate),
        UsageUpdate(UsageUpdate),
        StateUpdate(StateUpdate),
        SessionInfoUpdate(SessionInfoUpdate),
    }

    tagged!(Update, "sessionUpdate", {
        "tool_call_update" => ToolCallUpdate(ToolCallUpdate),
        "tool_call_content_chunk" => ToolCallContentChunk(ToolCallContentChunk),
        "agent_message_chunk" => AgentMessageChunk(ContentChunk),
        "agent_thought_chunk" => AgentThoughtChunk(ContentChunk),
        "plan_update" => PlanUpdate(PlanUpdate),
        "usage_update" => UsageUpdate(UsageUpdate),
        "state_update" => StateUpdate(StateUpdate),
        "session_info_update" => SessionInfoUpdate(SessionInfoUpdate),
    });

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolCallUpdate {
        pub tool_call_id: acp_bindings::runtime::SmolStr,
        #[serde(default, deserialize_with = "present")]
        pub title: Option<Option<Text>>,
        #[serde(default, deserialize_with = "present")]
        pub kind: Option<Option<ToolKind>>,
        #[serde(default, deserialize_with = "present")]
        pub status: Option<Option<ToolCallStatus>>,
        #[serde(default, deserialize_with = "present")]
        pub content: Option<Option<Vec<ToolCallContent>>>,
        #[serde(default, deserialize_with = "present")]
        pub locations: Option<Option<Vec<ToolCallLocation>>>,
        #[serde(default, deserialize_with = "present")]
        pub raw_input: Option<Option<Value>>,
        #[serde(default, deserialize_with = "present")]
        pub raw_output: Option<Option<Value>>,
        #[serde(default, rename = "_meta", deserialize_with = "present")]
        pub meta: Option<Option<Map<String, Value>>>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ToolKind {
        Read,
        Edit,
        Delete,
        Move,
        Search,
        Execute,
        Think,
        Fetch,
        Other,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ToolCallStatus {
        Pending,
        InProgress,
        Completed,
        Failed,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct ToolCallLocation {
        pub path: Text,
        pub line: Option<u32>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ToolCallContentChunk {
        pub tool_call_id: acp_bindings::runtime::SmolStr,
        pub content: ToolCallContent,
    }

    #[derive(Debug, PartialEq)]
    pub enum ToolCallContent {
        Content(Content),
        Diff(Diff),
    }

    tagged!(ToolCallContent, "type", { "content" => Content(Content), "diff" => Diff(Diff) });

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct Content {
        pub content: ContentBlock,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct Diff {
        pub changes: Vec<Change>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct Change {
        pub operation: ChangeOperation,
        pub path: Text,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum ChangeOperation {
        Create,
        Modify,
        Delete,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ContentChunk {
        pub message_id: Option<acp_bindings::runtime::SmolStr>,
        pub content: ContentBlock,
    }

    #[derive(Debug, PartialEq)]
    pub enum ContentBlock {
        Text(TextContent),
    }

    tagged!(ContentBlock, "type", { "text" => Text(TextContent) });

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct TextContent {
        pub text: Text,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct PlanUpdate {
        pub plan: Plan,
    }

    #[derive(Debug, PartialEq)]
    pub enum Plan {
        Items(PlanItems),
    }

    tagged!(Plan, "type", { "items" => Items(PlanItems) });

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct PlanItems {
        pub plan_id: acp_bindings::runtime::SmolStr,
        pub entries: Vec<PlanEntry>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct PlanEntry {
        pub content: Text,
        pub priority: Priority,
        pub status: PlanEntryStatus,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum Priority {
        High,
        Medium,
        Low,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum PlanEntryStatus {
        Pending,
        InProgress,
        Completed,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    pub struct UsageUpdate {
        pub used: u64,
        pub size: u64,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct StateUpdate {
        pub state: SessionState,
        pub stop_reason: Option<StopReason>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum SessionState {
        Idle,
        Running,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub enum StopReason {
        EndTurn,
        MaxTokens,
        MaxTurnRequests,
        Refusal,
        Cancelled,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct SessionInfoUpdate {
        #[serde(default, deserialize_with = "present")]
        pub title: Option<Option<Text>>,
        #[serde(default, deserialize_with = "present")]
        pub updated_at: Option<Option<Text>>,
    }
    };
}

/// Every text an owned `String`.
pub mod owned {
    types!(String);
}

/// Every text validated and skipped: nothing copied or allocated for it.
pub mod skipped {
    types!(serde::de::IgnoredAny);
}

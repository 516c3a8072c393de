//! The v2 session reducer: applies `session/update` notifications in order and
//! holds the current entities (re-exported as `acp_bindings::v2::SessionReducer`).
//!
//! Upserts go through [`Patchable`]: an update for a new id creates the entity
//! from the defaults, a later one patches it. Chunks append to the entity with
//! the same id (creating it if needed); an update that carries a whole
//! collection replaces what chunks accumulated, and later chunks append to the
//! replacement.

use std::hash::Hash;

use indexmap::IndexMap;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::runtime::Base64String;
use crate::v2::{
    AgentMessageState, AgentThoughtState, CompactionId, CompactionState, ContentBlock, MessageId, PlanUpdateContent,
    SessionInfoState, SessionUpdate, TerminalId, TerminalOutput, TerminalState, ToolCall, ToolCallId, UsageState,
    UserMessageState,
};
use crate::Patchable;

/// A map that remembers the order in which keys were first seen.
#[derive(Debug, Clone)]
pub struct Ordered<K, V>(IndexMap<K, V>);

impl<K: Hash + Eq, V: PartialEq> PartialEq for Ordered<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len() && self.0.iter().zip(other.0.iter()).all(|(a, b)| a == b)
    }
}

impl<K, V> Default for Ordered<K, V> {
    fn default() -> Self {
        Ordered(IndexMap::default())
    }
}

impl<K: Eq + Hash, V> Ordered<K, V> {
    /// The value for `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        self.0.get(key)
    }

    /// The value for `key`, mutably.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.0.get_mut(key)
    }

    /// The value for `key`, created with `make` if it is new.
    pub fn entry(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        self.0.entry(key).or_insert_with(make)
    }

    /// Inserts or replaces, keeping the first-seen position.
    pub fn insert(&mut self, key: K, value: V) {
        self.0.insert(key, value);
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        self.0.shift_remove(key)
    }

    /// Entries in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `true` when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Serialize, V: Serialize> Serialize for Ordered<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A user message, an agent message or an agent thought.
#[derive(Debug, Clone, PartialEq)]
pub enum StoredMessage {
    /// A user message (`user_message`, `user_message_chunk`).
    User(UserMessageState),
    /// An agent message (`agent_message`, `agent_message_chunk`).
    Agent(AgentMessageState),
    /// An agent thought (`agent_thought`, `agent_thought_chunk`).
    Thought(AgentThoughtState),
}

impl StoredMessage {
    fn content_mut(&mut self) -> &mut Vec<ContentBlock> {
        match self {
            StoredMessage::User(m) => &mut m.content,
            StoredMessage::Agent(m) => &mut m.content,
            StoredMessage::Thought(m) => &mut m.content,
        }
    }

    /// The message's content blocks.
    pub fn content(&self) -> &[ContentBlock] {
        match self {
            StoredMessage::User(m) => &m.content,
            StoredMessage::Agent(m) => &m.content,
            StoredMessage::Thought(m) => &m.content,
        }
    }
}

impl Serialize for StoredMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (kind, value) = match self {
            StoredMessage::User(m) => ("user_message", serde_json::to_value(m)),
            StoredMessage::Agent(m) => ("agent_message", serde_json::to_value(m)),
            StoredMessage::Thought(m) => ("agent_thought", serde_json::to_value(m)),
        };
        let mut value = value.map_err(serde::ser::Error::custom)?;
        if let Some(obj) = value.as_object_mut() {
            obj.insert("kind".into(), kind.into());
        }
        value.serialize(serializer)
    }
}

/// The state of one v2 session, built from its `session/update` stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionReducer {
    /// Tool calls by id.
    pub tool_calls: Ordered<ToolCallId, ToolCall>,
    /// User and agent messages and thoughts by message id.
    pub messages: Ordered<MessageId, StoredMessage>,
    /// Plans by plan id (each replaced whole).
    pub plans: Ordered<String, PlanUpdateContent>,
    /// Agent-owned terminals by id.
    pub terminals: Ordered<TerminalId, TerminalState>,
    /// The session's info.
    pub session_info: Option<SessionInfoState>,
    /// The context window usage.
    pub usage: Option<UsageState>,
    /// Compactions by id.
    pub compactions: Ordered<CompactionId, CompactionState>,
}

/// Patches the entity with the patch's key, or creates it (the key is cloned only then).
fn upsert<K: Eq + Hash + Clone, S: Patchable>(map: &mut Ordered<K, S>, key: impl Fn(&S::Patch) -> &K, patch: S::Patch) {
    match map.0.get_mut(key(&patch)) {
        Some(entity) => entity.apply(patch),
        None => {
            let k = key(&patch).clone();
            map.0.insert(k, S::from_patch(patch));
        }
    }
}

fn upsert_one<S: Patchable>(slot: &mut Option<S>, patch: S::Patch) {
    match slot {
        Some(s) => s.apply(patch),
        None => *slot = Some(S::from_patch(patch)),
    }
}

impl SessionReducer {
    /// A reducer with no entities.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one update. Updates this reducer does not track (state,
    /// commands, config options, notices, unknown kinds) leave it unchanged.
    pub fn apply(&mut self, update: SessionUpdate) {
        match update {
            SessionUpdate::ToolCallUpdate(u) => upsert(&mut self.tool_calls, |u| &u.tool_call_id, u),
            SessionUpdate::ToolCallContentChunk(c) => {
                let id = c.tool_call_id;
                let call =
                    self.tool_calls.entry(id.clone(), || ToolCall::from_patch(crate::v2::ToolCallUpdate::new(id)));
                call.content.push(c.content);
            }
            SessionUpdate::UserMessage(m) => match self.messages.get_mut(&m.message_id) {
                Some(StoredMessage::User(s)) => s.apply(m),
                _ => self.messages.insert(m.message_id.clone(), StoredMessage::User(UserMessageState::from_patch(m))),
            },
            SessionUpdate::AgentMessage(m) => match self.messages.get_mut(&m.message_id) {
                Some(StoredMessage::Agent(s)) => s.apply(m),
                _ => self.messages.insert(m.message_id.clone(), StoredMessage::Agent(AgentMessageState::from_patch(m))),
            },
            SessionUpdate::AgentThought(m) => match self.messages.get_mut(&m.message_id) {
                Some(StoredMessage::Thought(s)) => s.apply(m),
                _ => {
                    self.messages.insert(m.message_id.clone(), StoredMessage::Thought(AgentThoughtState::from_patch(m)))
                }
            },
            SessionUpdate::UserMessageChunk(c) => {
                let id = c.message_id.clone();
                self.chunk(c.message_id, c.content, || {
                    StoredMessage::User(UserMessageState::from_patch(crate::v2::UserMessage::new(id)))
                })
            }
            SessionUpdate::AgentMessageChunk(c) => {
                let id = c.message_id.clone();
                self.chunk(c.message_id, c.content, || {
                    StoredMessage::Agent(AgentMessageState::from_patch(crate::v2::AgentMessage::new(id)))
                })
            }
            SessionUpdate::AgentThoughtChunk(c) => {
                let id = c.message_id.clone();
                self.chunk(c.message_id, c.content, || {
                    StoredMessage::Thought(AgentThoughtState::from_patch(crate::v2::AgentThought::new(id)))
                })
            }
            SessionUpdate::TerminalUpdate(u) => upsert(&mut self.terminals, |u| &u.terminal_id, u),
            SessionUpdate::TerminalOutputChunk(c) => {
                let id = c.terminal_id;
                let t =
                    self.terminals.entry(id.clone(), || TerminalState::from_patch(crate::v2::TerminalUpdate::new(id)));
                append_output(&mut t.output, &c.data);
            }
            SessionUpdate::PlanUpdate(p) => {
                if let Some(id) = plan_id(&p.plan) {
                    self.plans.insert(id, p.plan);
                }
            }
            #[cfg(feature = "unstable")]
            SessionUpdate::PlanRemoved(p) => {
                self.plans.remove(&p.plan_id.to_string());
            }
            SessionUpdate::SessionInfoUpdate(u) => upsert_one(&mut self.session_info, u),
            SessionUpdate::UsageUpdate(u) => upsert_one(&mut self.usage, u),
            SessionUpdate::CompactionUpdate(u) => upsert(&mut self.compactions, |u| &u.compaction_id, u),
            SessionUpdate::CompactionSummaryChunk(c) => {
                if let Some(compaction) = self.compactions.get_mut(&c.compaction_id) {
                    compaction.summary.push(c.content);
                }
                // A summary chunk for an unknown compaction cannot create it:
                // its required `status` is not known yet.
            }
            _ => {}
        }
    }

    fn chunk(&mut self, id: MessageId, block: ContentBlock, make: impl FnOnce() -> StoredMessage) {
        self.messages.entry(id, make).content_mut().push(block);
    }
}

/// The plan id of a plan update (every plan variant, the unknown one included, carries `planId`).
fn plan_id(plan: &PlanUpdateContent) -> Option<String> {
    let value = serde_json::to_value(plan).ok()?;
    value.get("planId")?.as_str().map(str::to_owned)
}

/// Appends terminal bytes; undecodable base64 is appended as text.
fn append_output(slot: &mut Option<TerminalOutput>, data: &Base64String) {
    match slot {
        None => *slot = Some(TerminalOutput::new(data.clone())),
        Some(out) => match (out.data.decode(), data.decode()) {
            (Ok(mut a), Ok(b)) => {
                a.extend(b);
                out.data = Base64String::encode(a);
            }
            _ => out.data = Base64String::from_encoded(format!("{}{}", out.data.as_str(), data.as_str())),
        },
    }
}

impl Serialize for SessionReducer {
    /// `{"toolCalls", "messages", "plans", "terminals", "sessionInfo", "usage", "compactions"}`,
    /// entities in first-seen order with every field present.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(7))?;
        map.serialize_entry("toolCalls", &self.tool_calls)?;
        map.serialize_entry("messages", &self.messages)?;
        map.serialize_entry("plans", &self.plans)?;
        map.serialize_entry("terminals", &self.terminals)?;
        map.serialize_entry("sessionInfo", &self.session_info)?;
        map.serialize_entry("usage", &self.usage)?;
        map.serialize_entry("compactions", &self.compactions)?;
        map.end()
    }
}

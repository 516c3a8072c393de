//! `rename_all`: the wire name of a variant or field from its Rust name, by
//! the rules serde's `rename_all` has (the same names, the same results), so
//! that the derives and the generator that chooses a rule agree.

/// A naming convention for `#[acp(rename_all = "...")]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Case {
    /// `lowercase`: `AgentMessage` -> `agentmessage`.
    Lower,
    /// `UPPERCASE`: `AgentMessage` -> `AGENTMESSAGE`.
    Upper,
    /// `PascalCase`: a variant's own name.
    Pascal,
    /// `camelCase`: `AgentMessage` -> `agentMessage`.
    Camel,
    /// `snake_case`: `AgentMessage` -> `agent_message`.
    Snake,
    /// `SCREAMING_SNAKE_CASE`: `AgentMessage` -> `AGENT_MESSAGE`.
    ScreamingSnake,
    /// `kebab-case`: `AgentMessage` -> `agent-message`.
    Kebab,
    /// `SCREAMING-KEBAB-CASE`: `AgentMessage` -> `AGENT-MESSAGE`.
    ScreamingKebab,
}

impl Case {
    /// Every convention, in the order the generator prefers on a tie.
    pub const ALL: [Case; 8] = [
        Case::Snake,
        Case::Camel,
        Case::Kebab,
        Case::Lower,
        Case::ScreamingSnake,
        Case::Upper,
        Case::ScreamingKebab,
        Case::Pascal,
    ];

    /// The convention's name in `rename_all` (serde's spelling).
    pub fn name(self) -> &'static str {
        match self {
            Case::Lower => "lowercase",
            Case::Upper => "UPPERCASE",
            Case::Pascal => "PascalCase",
            Case::Camel => "camelCase",
            Case::Snake => "snake_case",
            Case::ScreamingSnake => "SCREAMING_SNAKE_CASE",
            Case::Kebab => "kebab-case",
            Case::ScreamingKebab => "SCREAMING-KEBAB-CASE",
        }
    }

    /// The convention named `name`.
    pub fn parse(name: &str) -> Option<Case> {
        Case::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The wire name of the variant `variant` (a `PascalCase` identifier).
    pub fn variant(self, variant: &str) -> String {
        match self {
            Case::Pascal => variant.to_owned(),
            Case::Lower => variant.to_ascii_lowercase(),
            Case::Upper => variant.to_ascii_uppercase(),
            Case::Camel => {
                let mut chars = variant.chars();
                chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
            }
            Case::Snake => snake(variant),
            Case::ScreamingSnake => snake(variant).to_ascii_uppercase(),
            // serde: snake case, then every `_` a `-` (an `_` of the name too).
            Case::Kebab => snake(variant).replace('_', "-"),
            Case::ScreamingKebab => snake(variant).replace('_', "-").to_ascii_uppercase(),
        }
    }

    /// The wire name of the field `field` (a `snake_case` identifier).
    pub fn field(self, field: &str) -> String {
        let pascal: String = field
            .split('_')
            .map(|w| {
                let mut chars = w.chars();
                chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
            })
            .collect();
        match self {
            Case::Lower | Case::Snake => field.to_owned(),
            Case::Upper | Case::ScreamingSnake => field.to_ascii_uppercase(),
            Case::Pascal => pascal,
            Case::Camel => Case::Camel.variant(&pascal),
            Case::Kebab => field.replace('_', "-"),
            Case::ScreamingKebab => field.replace('_', "-").to_ascii_uppercase(),
        }
    }
}

/// `PascalCase` split before each upper-case letter, lower-cased, joined by
/// `_` (serde's snake case).
fn snake(variant: &str) -> String {
    let mut out = String::with_capacity(variant.len() + 4);
    for (i, c) in variant.char_indices() {
        if i > 0 && c.is_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Case;

    #[test]
    fn variants_follow_serde() {
        let cases = [
            (Case::Snake, "agent_message_chunk"),
            (Case::Camel, "agentMessageChunk"),
            (Case::Kebab, "agent-message-chunk"),
            (Case::Lower, "agentmessagechunk"),
            (Case::ScreamingSnake, "AGENT_MESSAGE_CHUNK"),
            (Case::Pascal, "AgentMessageChunk"),
        ];
        for (case, wire) in cases {
            assert_eq!(case.variant("AgentMessageChunk"), wire, "{}", case.name());
            assert_eq!(Case::parse(case.name()), Some(case));
        }
        assert_eq!(Case::Snake.variant("Sha256"), "sha256");
        assert_eq!(Case::Snake.variant("Foo_Bar"), "foo__bar");
        assert_eq!(Case::Kebab.variant("Foo_Bar"), "foo--bar");
    }

    #[test]
    fn fields_follow_serde() {
        assert_eq!(Case::Camel.field("tool_call_id"), "toolCallId");
        assert_eq!(Case::Pascal.field("tool_call_id"), "ToolCallId");
        assert_eq!(Case::Kebab.field("tool_call_id"), "tool-call-id");
        assert_eq!(Case::Snake.field("meta"), "meta");
    }
}

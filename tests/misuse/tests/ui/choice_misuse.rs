use acp_bindings::runtime::{UnknownString, UnknownVariant};
use acp_bindings::{AcpEnum, AcpUnion};

// Every mistake is reported at once, each at its span.
#[derive(Debug, Clone, PartialEq, AcpUnion)]
#[acp(range = i32, tag = "kind", rename_all = "snake-case")]
enum Finding {
    Lint(String, u32),
    #[acp(rename = 7)]
    Clear,
    #[acp(other, check = "no type here")]
    Other(UnknownVariant),
    #[acp(fallback)]
    Again(UnknownVariant),
}

#[derive(Debug, Clone, PartialEq, AcpUnion)]
#[acp(rename_all = "snake_case")]
enum Untagged {
    Number(i64),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, AcpEnum)]
#[acp(tag = "type", range = f64)]
enum Level {
    Low,
    High(u8),
    #[acp(other)]
    Other(UnknownString),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, AcpEnum)]
#[acp(range = i32)]
enum Code {
    #[acp(value = 1)]
    One,
    Two,
}

#[derive(Debug, Clone, PartialEq, AcpUnion)]
#[acp(tag = "kind")]
enum Wrong {
    #[acp(untagged, rename = "x")]
    Loose(String),
    #[acp(value = 3, required = "id")]
    Three(u8),
    #[acp(untagged)]
    Nothing,
}

#[derive(Debug, Clone, PartialEq, AcpUnion)]
enum NoTagHere {
    Absent { explicit_null: bool },
}

fn main() {}

use acp_bindings::AcpPatch;

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
struct Cursor {
    line: u32,
}

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
struct State {
    #[acp(key)]
    id: String,
    #[acp(nested)]
    cursor: Cursor,
}

fn main() {}

use acp_bindings::AcpPatch;

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
#[acp(patch = "StateUpdate", declared, patch_doc = "The wire patch.")]
struct State {
    #[acp(key)]
    id: String,
    label: Option<String>,
    #[acp(nested)]
    cursor: Cursor,
}

#[derive(Default, serde::Serialize, serde::Deserialize)]
struct Cursor {
    line: u32,
}

fn main() {}

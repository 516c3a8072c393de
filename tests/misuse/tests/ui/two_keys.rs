use acp_bindings::AcpPatch;

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
struct State {
    #[acp(key)]
    id: String,
    #[acp(key)]
    other: String,
}

fn main() {}

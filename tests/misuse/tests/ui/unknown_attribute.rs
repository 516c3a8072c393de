use acp_bindings::AcpPatch;

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
struct State {
    #[acp(key)]
    id: String,
    #[acp(merge)]
    title: Option<String>,
}

fn main() {}

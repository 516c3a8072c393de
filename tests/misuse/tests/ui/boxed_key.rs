use acp_bindings::AcpPatch;

#[derive(AcpPatch, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
struct Entry {
    #[acp(key, boxed)]
    id: String,
    title: Option<String>,
}

fn main() {}

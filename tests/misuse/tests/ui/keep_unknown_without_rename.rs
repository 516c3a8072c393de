use acp_bindings::AcpPatch;

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
#[acp(keep_unknown)]
struct State {
    #[acp(key)]
    #[serde(rename = "id")]
    id: String,
    label: Option<String>,
}

fn main() {}

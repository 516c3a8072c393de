use acp_bindings::AcpPatch;

#[derive(AcpPatch, Default, serde::Serialize, serde::Deserialize)]
#[acp(patch = "Settings Patch")]
struct Settings {
    #[acp(key)]
    id: String,
}

fn main() {}

use acp_bindings::AcpPatch;

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Panel {
    #[acp(key)]
    pub id: String,
    #[acp(skip_invalid_items, scalar)]
    pub tags: Vec<String>,
    #[acp(scalar, any_json)]
    pub title: Option<String>,
}

fn main() {}

use acp_bindings::{runtime::Extra, AcpDeserialize};

#[derive(serde::Serialize, AcpDeserialize)]
#[acp(crate = "not a path")]
struct Ping {
    seq: u64,
    #[serde(flatten)]
    additional_properties: Extra,
}

fn main() {}

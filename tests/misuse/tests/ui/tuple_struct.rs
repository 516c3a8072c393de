use acp_bindings::AcpPatch;

#[derive(AcpPatch)]
struct State(String, Option<u32>);

fn main() {}

use acp_bindings::AcpPatch;

#[derive(AcpPatch)]
enum State {
    A,
    B,
}

fn main() {}

use acp_bindings::runtime::rpc::ExtMethod;
use acp_bindings::AcpDispatch;

#[derive(serde::Serialize, serde::Deserialize, Debug, Clone, PartialEq)]
struct Ping {
    seq: u64,
}

// A method without its name, and no `extension` variant.
#[derive(Debug, Clone, PartialEq, AcpDispatch)]
#[acp(dispatch = "request", side = "Agent")]
enum Requests {
    Ping(Ping),
}

// What it holds is not one of the three kinds.
#[derive(Debug, Clone, PartialEq, AcpDispatch)]
#[acp(dispatch = "event", side = "Agent")]
enum Events {
    #[acp(extension)]
    Extension(ExtMethod),
}

// An unknown rule on a method.
#[derive(Debug, Clone, PartialEq, AcpDispatch)]
#[acp(dispatch = "notification", side = "Client")]
enum Notes {
    #[acp(method = "x/ping", null = "maybe")]
    Ping(Ping),
    #[acp(extension)]
    Extension(ExtMethod),
}

fn main() {}

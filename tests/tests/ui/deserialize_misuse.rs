use acp_bindings::runtime::Extra;
use acp_bindings::AcpDeserialize;

// Every mistake is reported at once, each at its span.
#[derive(AcpDeserialize)]
#[serde(rename_all = "camelCase")]
#[acp(direct, strict)]
struct Settings {
    #[serde(default = "seven")]
    size: u32,
    #[serde(flatten)]
    inner: Inner,
    #[acp(scalar)]
    title: String,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(serde::Deserialize)]
struct Inner {}

// Unknown properties need a place.
#[derive(AcpDeserialize)]
struct NoRest {
    id: String,
}

#[derive(AcpDeserialize)]
enum NotAStruct {
    A,
}

fn main() {}

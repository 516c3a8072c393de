use acp_bindings::runtime::Extra;
use acp_bindings::AcpSerialize;

// Every mistake is reported at once, each at its span.
#[derive(AcpSerialize)]
#[serde(rename_all = "camelCaps", transparent)]
struct Settings {
    #[serde(serialize_with = "custom")]
    size: u32,
    #[serde(flatten)]
    inner: Inner,
    #[serde(skip_serializing_if = "not a path")]
    hint: Option<String>,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(serde::Serialize)]
struct Inner {}

// Unknown properties are written back after the known ones: they need a place.
#[derive(AcpSerialize)]
struct NoRest {
    id: String,
}

#[derive(AcpSerialize)]
struct Generic<T> {
    id: T,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(AcpSerialize)]
enum NotAStruct {
    A,
}

fn main() {}

use acp_bindings::runtime::Extra;
use acp_bindings::AcpDeserialize;

// Every mistake is reported at once, each at its span.
#[derive(AcpDeserialize)]
#[serde(rename_all = "camelCaps", deny_unknown_fields)]
#[acp(direct, strict)]
struct Settings {
    #[serde(default = "seven")]
    size: u32,
    #[serde(flatten)]
    inner: Inner,
    #[acp(scalar)]
    title: String,
    #[serde(rename = "a", rename = "b", alais = "c")]
    twice: String,
    #[serde(rename(deserialize = "d"))]
    split: String,
    // Left out when `None`, yet required: it would not decode again.
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<String>,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(serde::Deserialize)]
struct Inner {}

// Unknown properties need a place, flattened.
#[derive(AcpDeserialize)]
struct NoRest {
    id: String,
}

#[derive(AcpDeserialize)]
struct NotFlattened {
    id: String,
    #[acp(read = Any)]
    additional_properties: Extra,
}

// Bounds are not carried to the impls.
#[derive(AcpDeserialize)]
struct Bounded<T: Clone>
where
    T: Default,
{
    value: T,
    #[serde(flatten)]
    additional_properties: Extra,
}

#[derive(AcpDeserialize)]
enum NotAStruct {
    A,
}

fn main() {}

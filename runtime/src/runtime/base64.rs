use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const LENIENT: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A string field with `contentEncoding: base64`.
///
/// The text is kept exactly as received, so re-encoding a message never
/// changes it; [`Base64String::decode`] turns it into bytes and
/// [`Base64String::encode`] builds one from bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Base64String(String);

impl Base64String {
    /// Encodes bytes with the standard alphabet and padding.
    pub fn encode(bytes: impl AsRef<[u8]>) -> Self {
        Base64String(base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    /// Wraps text that is already base64, without checking it.
    pub fn from_encoded(text: impl Into<String>) -> Self {
        Base64String(text.into())
    }

    /// The encoded text as on the wire.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Decodes the text (standard alphabet, padding optional).
    pub fn decode(&self) -> Result<Vec<u8>, base64::DecodeError> {
        LENIENT.decode(self.0.as_bytes())
    }
}

impl From<String> for Base64String {
    fn from(text: String) -> Self {
        Base64String(text)
    }
}

impl From<&str> for Base64String {
    fn from(text: &str) -> Self {
        Base64String(text.to_owned())
    }
}

impl Serialize for Base64String {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Base64String {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Base64String)
    }
}

impl super::de::Scalar for Base64String {
    fn from_str(v: &str) -> Option<Self> {
        Some(Base64String(v.to_owned()))
    }
    fn from_string(v: String) -> Option<Self> {
        Some(Base64String(v))
    }
}

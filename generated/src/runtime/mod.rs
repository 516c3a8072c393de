//! Hand-written support code that the generated `v1` and `v2` modules build on.
//!
//! Nothing in here is generated. The types are public because they appear in
//! generated signatures; the `de` and `ser` helpers are implementation details
//! of the generated serde impls and are hidden from the docs.

mod base64;
#[doc(hidden)]
pub mod de;
mod extra;
mod nullable;
mod number;
pub mod rpc;
#[cfg(feature = "schemars")]
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod ser;
mod unknown;

pub use self::base64::Base64String;
pub use self::extra::Extra;
pub use self::nullable::{ExplicitNull, Nullable};
pub use self::number::Number;
pub use self::unknown::{ParseEnumError, UnknownInteger, UnknownString, UnknownVariant};

/// The JSON object type used for `_meta` and other free-form objects.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

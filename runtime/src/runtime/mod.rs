//! Hand-written support code that the generated `v1` and `v2` modules build on.
//!
//! Nothing in here is generated. The types are public because they appear in
//! generated signatures; the `de` and `ser` helpers are implementation details
//! of the generated serde impls and are hidden from the docs.

mod base64;
#[doc(hidden)]
pub mod de;
mod extra;
pub(crate) use extra::remove_keeping_order;
mod json_object;
mod nullable;
mod number;
/// The decoders' own error messages, worded once for both runtimes.
#[doc(hidden)]
#[rustfmt::skip]
pub mod messages;
pub mod read;
pub mod rpc;
#[cfg(feature = "schemars")]
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod ser;
pub mod session;
mod unknown;

pub use self::base64::Base64String;
pub use self::extra::Extra;
pub use self::json_object::JsonObject;
pub use self::nullable::{ExplicitNull, Nullable};
pub use self::number::Number;
pub use self::unknown::{ParseEnumError, UnknownInteger, UnknownString, UnknownVariant};
/// The string inside every string newtype (`SessionId`, `ToolCallId`, ...):
/// immutable, up to 23 bytes inline (decoding a short identifier allocates
/// nothing), longer ones shared (`Clone` never copies the text). It derefs to
/// `str` and converts from `&str`, `String` and `Arc<str>`.
pub use smol_str::SmolStr;

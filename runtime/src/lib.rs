//! The hand-written runtime of the Agent Client Protocol bindings: what the
//! generated types and the derives build on, written once for every schema.
//!
//! `acp-bindings` re-exports this crate's modules at its root
//! (`acp_bindings::runtime`, `acp_bindings::json`, `acp_bindings::patch`) and
//! its derives, so a user of the ACP types depends on `acp-bindings` alone.
//! Depend on this crate directly to build on the output of `cargo xtask
//! codegen --schema FILE --out DIR` for a schema of your own, which names
//! this crate's paths and none of ACP's types:
//!
//! - [`runtime`]: the decoding rules (`runtime::read`, `runtime::de`), the
//!   value types generated signatures name ([`runtime::Nullable`],
//!   [`runtime::Extra`], [`runtime::Base64String`], the open enums' unknown
//!   values), and the JSON-RPC envelope and sans-IO peers, generic over what
//!   a protocol version supplies ([`runtime::rpc`]).
//! - [`json`]: the direct JSON reader and writer the generated types use
//!   instead of going through `serde_json::Value`.
//! - [`patch`]: tri-state patches (omitted, `null`, a value) with apply,
//!   diff and compose, for generated upserts and `#[derive(AcpPatch)]`.
//!
//! The derives name the crate they expand against; inside this crate's
//! users that is `::acp_bindings` unless an item says otherwise with
//! `#[acp(crate = "::acp_bindings_runtime")]` (or a renamed dependency's name).

#![warn(missing_docs)]

pub mod json;
pub mod patch;
mod raw;
pub mod runtime;

pub use acp_bindings_macros::{AcpDeserialize, AcpDispatch, AcpEnum, AcpPatch, AcpSerialize, AcpString, AcpUnion};
pub use patch::{Patch, PatchOps, Patchable};
pub use raw::RawJson;

/// The patch traits and the derive, for `use acp_bindings_runtime::prelude::*`.
pub mod prelude {
    pub use crate::patch::{Patch, PatchOps, Patchable};
    pub use acp_bindings_macros::AcpPatch;
}

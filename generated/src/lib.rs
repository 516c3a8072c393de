//! Rust bindings for the Agent Client Protocol (ACP), generated from the
//! canonical JSON Schema published in `@agentclientprotocol/sdk`.
//!
//! - [`v1`]: the widely deployed protocol version (feature `v1`, on by default).
//! - [`v2`]: upserts with tri-state patch fields, open enums and unions
//!   (feature `v2`: `acp-bindings = { version = "0.1", features = ["v2"] }`).
//!
//! Items that exist only in the unstable schemas need the `unstable` feature.
//!
//! Every type decodes and re-encodes a message without inventing or dropping
//! fields: an omitted optional field stays omitted, an explicit `null` stays
//! `null` (see [`runtime::Nullable`]), unknown enum values and union variants
//! are kept as they were received.

#![warn(missing_docs)]

// The derive's output names `::acp_bindings`, also inside this crate.
extern crate self as acp_bindings;

// The hand-written runtime is its own crate (`acp-bindings-runtime`, written
// once for every schema); its modules and derives are re-exported here so
// that the ACP types' users depend on this crate alone.
pub use acp_bindings_runtime::{json, patch, runtime};
pub use acp_bindings_runtime::{AcpDeserialize, AcpDispatch, AcpEnum, AcpPatch, AcpSerialize, AcpString, AcpUnion};
pub use acp_bindings_runtime::{Patch, PatchOps, Patchable, RawJson};

/// Whether this build has the items and fields of the unstable schemas
/// (the `unstable` feature).
pub const UNSTABLE: bool = cfg!(feature = "unstable");

/// The names most code on the bindings uses, for one glob import:
/// `use acp_bindings::prelude::*;`.
///
/// It brings the patch traits (so `apply`, `diff`, `from_patch`, `then` and
/// `is_empty` are callable on every patch and patched type), the derive and
/// [`Patch`]. Protocol types stay in [`v1`] and [`v2`], which are imported
/// by version: `use acp_bindings::v2::*;` and `use acp_bindings::v2::rpc::*;`
/// together are unambiguous.
pub mod prelude {
    pub use acp_bindings_runtime::prelude::*;
}

#[cfg(not(any(feature = "v1", feature = "v2")))]
compile_error!(
    "acp-bindings has no protocol version to build: enable the `v1` or `v2` feature (`v1` is a default \
     feature, so `default-features = false` turns it off too)"
);

// Generated modules are formatted by the generator (prettyplease), not rustfmt.
// Each version is a feature (`v1` on by default): a build of one compiles
// about half the code of both.
#[cfg(feature = "v1")]
#[rustfmt::skip]
pub mod v1;
#[cfg(feature = "v2")]
#[rustfmt::skip]
pub mod v2;

// The examples use both versions: they run where both are built (as in
// `cargo test --workspace`, where the other members turn `v2` on).

/// The README's examples, compiled and run as doctests.
#[cfg(all(doctest, feature = "v1", feature = "v2"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The examples of `docs/generated-types.md`, compiled and run as doctests.
#[cfg(all(doctest, feature = "v1", feature = "v2"))]
#[doc = include_str!("../../docs/generated-types.md")]
pub struct GeneratedTypesDoctests;

/// The examples of `docs/your-structs.md`, compiled and run as doctests.
#[cfg(all(doctest, feature = "v1", feature = "v2"))]
#[doc = include_str!("../../docs/your-structs.md")]
pub struct YourStructsDoctests;

/// The crate README's example (the page on crates.io), run as a doctest.
#[cfg(all(doctest, feature = "v1", feature = "v2"))]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;

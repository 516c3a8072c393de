//! The generator's Rust policy: which union arms are boxed, which methods get
//! a direct decoder, which names the hand-written code reserves. It is
//! reviewed configuration, `schema/rust.json` (one reason per entry),
//! compiled in, so the generator cannot run with a policy other than the
//! repository's.

use std::sync::LazyLock;

use serde::Deserialize;

/// `schema/rust.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(rename = "$comment")]
    _comment: String,
    /// Union arms whose payload is held in a `Box`.
    pub boxed_arms: Vec<BoxedArm>,
    /// Methods whose payloads (and all they reach) get a direct decoder.
    pub direct_methods: Vec<DirectMethod>,
    /// Names the hand-written code re-exports into `v2`: no generated item may take one.
    pub reserved_names: Vec<ReservedName>,
}

/// A boxed union arm: `(union, discriminator value)`, in every schema
/// revision and version that has it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxedArm {
    pub union: String,
    pub arm: String,
    pub reason: String,
}

/// A method whose payloads get a direct decoder.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectMethod {
    pub method: String,
    pub reason: String,
}

/// A name reserved for a hand-written item.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReservedName {
    pub name: String,
    pub reason: String,
}

/// The text of `schema/rust.json`, as compiled in.
pub const SOURCE: &str = include_str!("../../schema/rust.json");

/// The policy.
///
/// # Panics
///
/// If `schema/rust.json` does not parse; `tests/tests/codegen.rs` checks that
/// it does, and that every entry has a reason.
pub fn policy() -> &'static Policy {
    static POLICY: LazyLock<Policy> =
        LazyLock::new(|| serde_json::from_str(SOURCE).unwrap_or_else(|e| panic!("schema/rust.json: {e}")));
    &POLICY
}

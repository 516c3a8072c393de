//! `#[derive(AcpPatch)]`: ACP v2 upsert semantics (tri-state patches, apply,
//! diff, compose) for a struct that describes an entity's stored state.
//!
//! The derive parses the input and every `#[acp(...)]` attribute into its own
//! model first (`model.rs`), collecting all errors with their spans, and only
//! then emits code (`expand.rs`). Use it through `acp_bindings::AcpPatch`.

mod expand;
mod model;

use proc_macro::TokenStream;

/// Derives `acp_bindings::Patchable` for a state struct and generates its wire
/// patch type. See the `acp-bindings` README, "Patch semantics on your own
/// extension structs".
#[proc_macro_derive(AcpPatch, attributes(acp))]
pub fn derive_acp_patch(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match model::Entity::parse(&input) {
        Ok(entity) => expand::expand(&entity).into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

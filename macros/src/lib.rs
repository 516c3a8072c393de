//! The derives of `acp-bindings`:
//!
//! - `#[derive(AcpPatch)]`: ACP v2 upsert semantics (tri-state patches,
//!   apply, diff, compose) for a struct that describes an entity's stored
//!   state. It parses the input and every `#[acp(...)]` attribute into its own
//!   model first (`model.rs`), collecting all errors with their spans, and
//!   only then emits code (`expand.rs`).
//! - `#[derive(AcpDeserialize)]`: serde's `Deserialize` for a struct that
//!   keeps the properties it does not name, each field read as its
//!   attributes say (`object.rs`).
//!
//! - `#[derive(AcpSerialize)]`: serde's `Serialize` for the same structs,
//!   and their direct encoder for `acp_bindings::json` (`encode.rs`).
//! - `#[derive(AcpUnion)]` and `#[derive(AcpEnum)]`: serde's traits and the
//!   bindings' conversions for an enum that is a union of arms (tagged or
//!   not, open or closed) or a set of string or integer values (`choice.rs`).
//! - `#[derive(AcpDispatch)]`: the typed JSON-RPC dispatch of an enum of
//!   methods, a side's or a version's (`dispatch.rs`).
//!
//! Use them through `acp_bindings::AcpPatch`, `acp_bindings::AcpDeserialize`,
//! `acp_bindings::AcpSerialize`, `acp_bindings::AcpUnion` and `acp_bindings::AcpEnum`.

mod choice;
mod dispatch;
mod encode;
mod expand;
mod model;
mod object;
mod root;

use proc_macro::TokenStream;

/// Derives `acp_bindings::Patchable` for a state struct and generates its wire
/// patch type. See "Patch semantics on your own extension structs" in the
/// repository's `docs/your-structs.md`.
#[proc_macro_derive(AcpPatch, attributes(acp))]
pub fn derive_acp_patch(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match model::Entity::parse(&input) {
        Ok(entity) => expand::expand(&entity).into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// `serde::Deserialize` (and `acp_bindings::runtime::de::Object`) for a
/// struct that keeps the properties it does not name in
/// `additional_properties`. A field is read under its `#[serde(rename)]` and
/// `#[serde(alias)]` names, may be missing only with `#[serde(default)]`, and
/// decodes by `#[acp(read = Reader)]` when it has that rule; `#[acp(direct)]`
/// on the struct adds its direct decoder. See "Decoding your own
/// structs" in the repository's `docs/your-structs.md`.
#[proc_macro_derive(AcpDeserialize, attributes(acp, serde))]
pub fn derive_acp_deserialize(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match object::derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// `serde::Serialize` and the direct encoder of `acp_bindings::json` for a
/// struct that keeps the properties it does not name in
/// `additional_properties`: the fields in order under their
/// `#[serde(rename)]` (or `rename_all`) names, each left out when its
/// `#[serde(skip_serializing_if)]` says so, then the unknown properties:
/// what serde's derive writes, with each key written by `acp_bindings::json`
/// as pre-quoted bytes.
#[proc_macro_derive(AcpSerialize, attributes(acp, serde))]
pub fn derive_acp_serialize(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match encode::derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// `serde::Serialize`, `serde::Deserialize`, `tag()` and `From` conversions
/// for an enum whose variants are the arms of a union: tagged by
/// `#[acp(tag = "type")]` (each variant's discriminator by `rename_all` or
/// `rename`) or tried in order; `#[acp(other)]` keeps an arm this version
/// does not know. See "Unions and enums of your own" in the repository's
/// `docs/your-structs.md`.
#[proc_macro_derive(AcpUnion, attributes(acp))]
pub fn derive_acp_union(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match choice::derive_union(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// `serde::Serialize`, `serde::Deserialize` and `Display` for an enum of
/// string or integer values, and the wire value: `as_str`, `VALUES` and
/// `FromStr` for strings, `value` and `try_from_value` for integers
/// (`#[acp(range = i32)]`); `#[acp(other)]` makes it open. See "Unions and
/// enums of your own" in the repository's `docs/your-structs.md`.
#[proc_macro_derive(AcpEnum, attributes(acp))]
pub fn derive_acp_enum(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match choice::derive_enum(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// `serde::Serialize`, `serde::Deserialize`, `new`, `as_str`, `Display`
/// and the conversions from and to strings for a string newtype: a tuple
/// struct of one `runtime::SmolStr` (an identifier). `#[acp(not = "value",
/// pointer = "#/...")]` refuses a string on decode.
#[proc_macro_derive(AcpString, attributes(acp))]
pub fn derive_acp_string(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match choice::derive_string(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

/// The typed JSON-RPC dispatch of an enum of methods (a side's:
/// `#[acp(dispatch = "request", side = "Agent")]`, each variant's
/// `#[acp(method = "...", null = "...")]`; or a version's, each variant
/// holding a side's enum): `method`, `decode`, `encode`, `write_payload`,
/// the runtime's `Payload`, `Streamed` and `SidePayload` or `EncodePayload`,
/// and the `From` conversions the variants ask for. The generator writes the
/// enums; the code is written once, here, for every version.
#[proc_macro_derive(AcpDispatch, attributes(acp))]
pub fn derive_acp_dispatch(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    match dispatch::derive(&input) {
        Ok(tokens) => tokens.into(),
        Err(errors) => errors.into_iter().map(|e| e.to_compile_error()).collect::<proc_macro2::TokenStream>().into(),
    }
}

#[cfg(test)]
mod tests {
    fn docs_of(file: &syn::File, name: &str) -> Vec<String> {
        let item = file.items.iter().find_map(|i| match i {
            syn::Item::Struct(s) if s.ident == name => Some(s),
            _ => None,
        });
        let item = item.unwrap_or_else(|| panic!("no struct {name}"));
        item.attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .filter_map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => match &nv.value {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    fn expand(src: &str) -> syn::File {
        let input: syn::DeriveInput = syn::parse_str(src).unwrap();
        let entity = crate::model::Entity::parse(&input).unwrap_or_else(|_| panic!("valid input"));
        syn::parse2(crate::expand::expand(&entity)).unwrap()
    }

    #[test]
    fn patch_doc_gives_the_wire_type_its_own_docs() {
        let file = expand(
            r#"
            /// The stored state.
            #[acp(patch = "Wire", patch_doc = "What the schema says.\nSecond line.")]
            struct State { #[acp(key)] id: String, title: Option<String> }
            "#,
        );
        let wire = docs_of(&file, "Wire");
        assert_eq!(wire[..2], [" What the schema says.", " Second line."]);
        assert!(!wire.iter().any(|d| d.contains("The stored state")), "{wire:?}");
    }

    #[test]
    fn without_patch_doc_the_wire_type_repeats_the_state_docs() {
        let file = expand(
            r#"
            /// An editor buffer.
            struct Buffer { #[acp(key)] id: String }
            "#,
        );
        assert_eq!(docs_of(&file, "BufferPatch")[0], " An editor buffer.");
    }
}

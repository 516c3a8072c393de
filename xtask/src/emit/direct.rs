//! Direct decoders (`json::fast::FromJson`) for the types of the
//! session-update stream.
//!
//! `acp_bindings::json::from_str` reads these types without serde's visitors:
//! a struct's members are matched and read in one loop, a tagged union reads
//! its discriminator and then its arm's members, and a list whose rule drops
//! bad items is read item by item. Whatever such a decoder does not serve
//! makes it bail, and the text is decoded by serde_json with the generated
//! visitors (the runtime module `json::fast` gives the contract).
//!
//! Only the definitions reachable from the payloads of the policy's direct
//! methods ([`crate::plan::is_direct_method`], `schema/rust.json`) get one: they are most
//! of the traffic, and a direct decoder for every
//! type would be a second decoder to compile for types that are read once
//! per session.

use proc_macro2::TokenStream;
use quote::quote;

use super::{ident, Emitter};
use crate::model::*;
use crate::plan::Decoder;

/// The path of the direct-decoder module (`json::fast`) beside the runtime
/// module `rt`.
pub fn fast_path(rt: &TokenStream) -> TokenStream {
    acp_bindings_codegen::Paths::of_runtime(&rt.to_string()).fast
}

impl Emitter {
    /// Who writes the definition's decoder (the plan's decision).
    pub(super) fn decoder(&self, def: &Def) -> Decoder {
        self.decisions.decoders.get(&def.name).copied().unwrap_or(Decoder::Emitted)
    }

    /// Who writes `def`'s encoder (the plan's decision).
    pub(super) fn encoder(&self, def: &Def) -> crate::plan::Encoder {
        self.decisions.encoders.get(&def.name).copied().unwrap_or(crate::plan::Encoder::Emitted)
    }

    /// Whether the definition gets a direct decoder.
    pub(super) fn is_direct(&self, def: &Def) -> bool {
        self.decisions.direct.contains(&def.name)
    }

    /// `FromJson` for a definition that gets a direct decoder, unless a
    /// derive writes it (`AcpDeserialize` for a struct that keeps unknown
    /// properties, `AcpPatch` for an upsert's wire type) or the definition is
    /// an alias.
    pub(super) fn direct_decoder(&self, def: &Def) -> Option<TokenStream> {
        if !self.is_direct(def) {
            return None;
        }
        let fast = &self.paths.fast;
        let name = ident(&def.rust_name);
        match &def.kind {
            // A derive writes it, or the alias's target has it.
            _ if matches!(
                self.decoder(def),
                Decoder::AcpDeserialize
                    | Decoder::AcpPatch
                    | Decoder::Alias
                    | Decoder::AcpUnion
                    | Decoder::AcpEnum
                    | Decoder::AcpString
            ) =>
            {
                None
            }
            // Read through the reader by its `Deserialize`.
            _ => Some(quote! { impl<'de> #fast::FromJson<'de> for #name {} }),
        }
    }
}

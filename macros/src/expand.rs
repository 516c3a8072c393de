//! Emit: the wire patch struct, `PatchOps` for it and `Patchable` for the state.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Entity, Rule};

pub fn expand(e: &Entity) -> TokenStream {
    let (vis, name, patch) = (&e.vis, &e.name, &e.patch);
    let serde_attrs = &e.serde_attrs;
    let fields: Vec<_> = e.fields.iter().filter(|f| f.rule != Rule::Skip).collect();
    let mut patch_fields = Vec::new();
    let mut new_params = Vec::new();
    let mut new_inits = Vec::new();
    let mut thens = Vec::new();
    let mut empties = Vec::new();
    let mut applies = Vec::new();
    let mut diffs = Vec::new();
    let mut assertions = Vec::new();
    let mut setters = Vec::new();
    for f in &fields {
        let (id, ty, docs) = (&f.ident, &f.ty, &f.docs);
        let renames = &f.serde_attrs;
        let rename = if renames.is_empty() { quote!() } else { quote!(#[serde(#(#renames),*)]) };
        if f.rule == Rule::Key || f.rule == Rule::Required {
            patch_fields.push(quote! { #(#docs)* #rename pub #id: #ty, });
            new_params.push(quote!(#id: impl ::core::convert::Into<#ty>));
            new_inits.push(quote!(#id: #id.into()));
            thens.push(quote!(#id: later.#id));
            diffs.push(quote!(#id: ::core::clone::Clone::clone(&newer.#id)));
            if f.rule == Rule::Required {
                applies.push(quote!(self.#id = patch.#id;));
            }
            continue;
        }
        let set_ty = match f.rule {
            Rule::Optional => f.inner.clone().expect("Option<T>"),
            Rule::ByKey => {
                syn::parse_quote!(::std::boxed::Box<::serde_json::Map<::std::string::String, ::serde_json::Value>>)
            }
            _ => ty.clone(),
        };
        let set_doc = format!(" Sets `{id}` (a value on the wire; use the field for `Keep`/`Clear`).");
        setters.push(quote! {
            #[doc = #set_doc]
            #[must_use]
            pub fn #id(mut self, value: impl ::core::convert::Into<#set_ty>) -> Self {
                self.#id = ::acp_bindings::Patch::Set(value.into());
                self
            }
        });
        let (patch_ty, de, apply, diff, then) = match f.rule {
            Rule::Optional => {
                let inner = f.inner.as_ref().expect("Option<T>");
                let de = if f.skip_invalid_items { "lenient_items" } else { "lenient" };
                (
                    quote!(::acp_bindings::Patch<#inner>),
                    de,
                    quote!(::acp_bindings::patch::field::apply_option(&mut self.#id, patch.#id)),
                    quote!(::acp_bindings::patch::field::diff_option(&self.#id, &newer.#id)),
                    quote!(::acp_bindings::patch::field::then(self.#id, later.#id)),
                )
            }
            Rule::Value => {
                let de = if f.skip_invalid_items { "lenient_items" } else { "lenient" };
                (
                    quote!(::acp_bindings::Patch<#ty>),
                    de,
                    quote!(::acp_bindings::patch::field::apply_value(&mut self.#id, patch.#id)),
                    quote!(::acp_bindings::patch::field::diff_value(&self.#id, &newer.#id)),
                    quote!(::acp_bindings::patch::field::then(self.#id, later.#id)),
                )
            }
            Rule::ByKey => (
                quote!(::acp_bindings::patch::ByKey),
                "lenient_by_key",
                quote!(::acp_bindings::patch::field::apply_by_key(&mut self.#id, patch.#id)),
                quote!(::acp_bindings::patch::field::diff_by_key(&self.#id, &newer.#id)),
                quote!(::acp_bindings::patch::field::then_by_key(self.#id, later.#id)),
            ),
            Rule::Nested => {
                assertions.push(quote_spanned! {ty.span()=>
                    const _: fn() = || {
                        fn assert_patchable<T: ::acp_bindings::Patchable>() {}
                        assert_patchable::<#ty>();
                    };
                });
                (
                    quote_spanned!(ty.span()=> ::acp_bindings::Patch<#ty, <#ty as ::acp_bindings::Patchable>::Patch>),
                    "nested_lenient",
                    quote!(::acp_bindings::patch::field::apply_nested(&mut self.#id, patch.#id)),
                    quote!(::acp_bindings::patch::field::diff_nested(&self.#id, &newer.#id)),
                    quote!(::acp_bindings::patch::field::then_nested(self.#id, later.#id)),
                )
            }
            Rule::Key | Rule::Required | Rule::Skip => unreachable!("handled above"),
        };
        let de = match (e.strict, de) {
            (true, "lenient") => None,
            (true, "lenient_items") => Some("strict_items".to_owned()),
            (true, "nested_lenient") => Some("nested_strict".to_owned()),
            (true, "lenient_by_key") => Some("strict_by_key".to_owned()),
            (_, d) => Some(d.to_owned()),
        };
        let de = de.map(|d| {
            let path = format!("::acp_bindings::patch::de::{d}");
            quote!(deserialize_with = #path,)
        });
        patch_fields.push(quote! {
            #(#docs)*
            #rename
            #[serde(default, skip_serializing_if = "::acp_bindings::Patch::is_keep", #de)]
            pub #id: #patch_ty,
        });
        new_inits.push(quote!(#id: ::acp_bindings::Patch::Keep));
        thens.push(quote!(#id: #then));
        empties.push(quote!(self.#id.is_keep()));
        applies.push(quote!(#apply;));
        diffs.push(quote!(#id: #diff));
    }
    let key_init: Vec<_> = e
        .fields
        .iter()
        .map(|f| {
            let id = &f.ident;
            if f.rule == Rule::Key || f.rule == Rule::Required {
                quote!(#id: ::core::clone::Clone::clone(&patch.#id))
            } else {
                quote!(#id: ::core::default::Default::default())
            }
        })
        .collect();
    let patch_doc = format!(" The wire patch of [`{name}`]: omitted fields keep, `null` clears, a value sets (generated by `#[derive(AcpPatch)]`).");
    let container_docs = &e.docs;
    let non_exhaustive = if e.non_exhaustive { quote!(#[non_exhaustive]) } else { quote!() };
    let new_doc = " A patch with the key (and required fields) that changes nothing else.";
    let empties = if empties.is_empty() { quote!(true) } else { quote!(#(#empties)&&*) };
    quote! {
        #(#assertions)*

        #(#container_docs)*
        #[doc = ""]
        #[doc = #patch_doc]
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #non_exhaustive
        #(#serde_attrs)*
        #vis struct #patch {
            #(#patch_fields)*
        }

        impl #patch {
            #[doc = #new_doc]
            pub fn new(#(#new_params),*) -> Self {
                Self { #(#new_inits),* }
            }

            #(#setters)*
        }

        impl ::acp_bindings::PatchOps for #patch {
            fn then(self, later: Self) -> Self {
                Self { #(#thens),* }
            }

            fn is_empty(&self) -> bool {
                #empties
            }
        }

        impl ::acp_bindings::Patchable for #name {
            type Patch = #patch;

            fn apply(&mut self, patch: #patch) {
                #(#applies)*
            }

            fn from_patch(patch: #patch) -> Self {
                let mut entity = Self { #(#key_init),* };
                ::acp_bindings::Patchable::apply(&mut entity, patch);
                entity
            }

            fn diff(&self, newer: &Self) -> #patch {
                #patch { #(#diffs),* }
            }
        }
    }
}

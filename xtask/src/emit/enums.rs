//! String and integer enums, open and closed: the enum and the attributes
//! `#[derive(AcpEnum)]` reads (`acp-bindings-codegen` writes its impls).

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{docs_or, ident, Emitter};
use crate::model::*;
use crate::plan::naming::naming;

impl Emitter {
    pub(super) fn enumeration(&self, def: &Def, e: &Enum) -> Vec<TokenStream> {
        let rt = &self.paths.runtime;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let strings: Vec<(&str, &str)> =
            e.variants.iter().filter_map(|v| Some((v.rust_name.as_str(), v.value.as_str()?))).collect();
        let (rename_all, renamed) = match e.repr {
            EnumRepr::String => naming(&strings),
            EnumRepr::Integer(_) => (None, Vec::new()),
        };
        let mut variants = Vec::new();
        for v in &e.variants {
            let vn = ident(&v.rust_name);
            let vd = docs_or(self.docs_of(def, &v.rust_name, &v.docs), || format!("`{}`.", v.value));
            let acp = match (&e.repr, v.value.as_str()) {
                (EnumRepr::Integer(_), _) => {
                    let n = Literal::i64_unsuffixed(v.value.as_i64().expect("lowering checks the range"));
                    quote!(#[acp(value = #n)])
                }
                (EnumRepr::String, Some(s)) if renamed.contains(&v.rust_name.as_str()) => quote!(#[acp(rename = #s)]),
                _ => quote!(),
            };
            variants.push(quote! { #vd #acp #vn, });
        }
        let (derives, unknown) = match e.repr {
            EnumRepr::String => (quote!(Clone,), quote!(UnknownString)),
            EnumRepr::Integer(_) => (quote!(Clone, Copy,), quote!(UnknownInteger)),
        };
        if let Some(f) = &e.fallback {
            let fname = ident(&f.rust_name);
            let fdoc = docs_or(self.docs_of(def, &f.rust_name, &f.docs), || {
                "A value this version does not know, kept as received.".to_owned()
            });
            variants.push(quote! { #fdoc #[acp(other)] #fname(#rt::#unknown), });
        }
        let mut attrs = Vec::new();
        if let EnumRepr::Integer(format) = e.repr {
            let range = super::int_type(format);
            attrs.push(quote!(range = #range));
        }
        let acp = self.derive_attrs(def, rename_all, attrs);
        let derive = self.acp_derive("AcpEnum");
        vec![quote! {
            #doc
            #[derive(Debug, #derives PartialEq, Eq, Hash, PartialOrd, Ord, #derive)]
            #acp
            #[non_exhaustive]
            pub enum #name { #(#variants)* }
        }]
    }
}

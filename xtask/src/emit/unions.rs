//! Tagged and untagged unions: the enum and the attributes
//! `#[derive(AcpUnion)]` reads (`acp-bindings-codegen` writes its impls).

use proc_macro2::TokenStream;
use quote::quote;

use super::{docs_or, ident, Emitter};
use crate::model::*;
use crate::plan::naming::naming;

impl Emitter {
    /// Whether the arm's payload is boxed, as the plan decided
    /// ([`crate::plan::Decisions::boxed_arms`]).
    pub(super) fn arm_boxed(&self, union: &str, v: &Variant) -> bool {
        self.decisions.boxed_arms.contains(&(union.to_owned(), v.rust_name.clone()))
    }

    pub(super) fn union(&self, def: &Def, u: &Union) -> Vec<TokenStream> {
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        // The discriminators named by the arms that have one: `rename_all`
        // for the convention most follow, `rename` for the others.
        let tagged: Vec<(&str, &str)> =
            u.variants.iter().filter_map(|v| Some((v.rust_name.as_str(), v.tag.as_deref()?))).collect();
        let (rename_all, renamed) = naming(&tagged);
        let mut variants = Vec::new();
        for v in &u.variants {
            let vn = ident(&v.rust_name);
            let gate = self.cfg_of(def, &v.rust_name);
            let vd = docs_or(self.docs_of(def, &v.rust_name, &v.docs), || match (&v.tag, &v.payload) {
                (Some(t), _) => format!("The `{t}` variant."),
                (None, Payload::Type(Type::Ref(r))) => format!("A [`{}`].", self.rust_name(r)),
                (None, _) => format!("The `{}` arm.", v.rust_name),
            });
            let mut attrs = Vec::new();
            match &v.tag {
                Some(t) if renamed.contains(&v.rust_name.as_str()) => attrs.push(quote!(rename = #t)),
                None if u.tag.is_some() && v.payload != Payload::NoTag => attrs.push(quote!(untagged)),
                _ => {}
            }
            if self.decisions.no_from.contains(&(def.name.clone(), v.rust_name.clone())) {
                attrs.push(quote!(no_from));
            }
            let acp = super::acp_attr(&attrs);
            variants.push(match &v.payload {
                Payload::Unit => quote! { #gate #vd #acp #vn, },
                Payload::Type(t) => {
                    let t = self.ty(t);
                    let t = if self.arm_boxed(&def.name, v) { quote!(::std::boxed::Box<#t>) } else { t };
                    quote! { #gate #vd #acp #vn(#t), }
                }
                Payload::NoTag => {
                    let prop = &u.tag.as_ref().map(|t| t.property.clone()).unwrap_or_default();
                    let fd = format!(" `true` when `{prop}` was an explicit `null`, `false` when it was omitted.");
                    quote! { #gate #vd #vn { #[doc = #fd] explicit_null: bool }, }
                }
            });
        }
        if let Some(c) = &u.catch_all {
            variants.push(self.catch_all_variant(def, c));
        }
        let mut attrs = Vec::new();
        if let Some(tag) = &u.tag {
            let key = &tag.property;
            attrs.push(quote!(tag = #key));
            if tag.lenient {
                attrs.push(quote!(lenient_tag));
            }
            // `tag()` is an `Option` when an arm has no discriminator: in every
            // build, also one without that arm.
            let gated_untagged = u
                .variants
                .iter()
                .any(|v| v.tag.is_none() && self.gate_of(def, &v.rust_name) != crate::plan::Gate::Always);
            if u.catch_all.is_none() && gated_untagged {
                attrs.push(quote!(tag_optional));
            }
        }
        let acp = self.derive_attrs(def, rename_all, attrs);
        let ord = self.total_order(def);
        let derive = self.acp_derive("AcpUnion");
        vec![quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, #ord #derive)]
            #acp
            #[non_exhaustive]
            pub enum #name { #(#variants)* }
        }]
    }

    /// The catch-all variant, with the checks the schema's catch-all arm makes.
    fn catch_all_variant(&self, def: &Def, c: &CatchAll) -> TokenStream {
        let rt = &self.paths.runtime;
        let cd = docs_or(self.docs_of(def, &c.rust_name, &c.docs), || {
            "A variant this version does not know, kept whole.".to_owned()
        });
        let cn = ident(&c.rust_name);
        let mut attrs = vec![quote!(other)];
        attrs.extend(c.reserved.iter().map(|r| quote!(reserved = #r)));
        attrs.extend(c.required.iter().map(|r| quote!(required = #r)));
        attrs.extend(c.fields.iter().map(|f| {
            let t = self.ty(&f.ty);
            let t = if f.nullable { quote!(::core::option::Option<#t>) } else { t };
            let check = format!("{}: {}", f.name, t.to_string().replace(' ', ""));
            quote!(check = #check)
        }));
        quote! { #cd #[acp(#(#attrs),*)] #cn(#rt::UnknownVariant), }
    }
}

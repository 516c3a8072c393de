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

use super::{ident, str_lit, Emitter};
use crate::model::*;

/// The path of the direct-decoder module (`json::fast`) beside the runtime
/// module `rt`.
pub fn fast_path(rt: &TokenStream) -> TokenStream {
    let rt = rt.to_string().replace(' ', "");
    let base = rt.strip_suffix("runtime").unwrap_or("crate::");
    format!("{base}json::fast").parse().expect("the path parses")
}

/// `FromJson::read` of an object decoder: opens the object, reads the rest.
fn read_object(fast: &TokenStream) -> TokenStream {
    quote! {
        #[inline]
        fn read(r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
            let more = r.open()?;
            <Self as #fast::FromJson<'de>>::rest(r, more)
        }
    }
}

/// How a generated decoder reads one field.
pub(super) enum Read {
    /// By a rule's reader type (`runtime::read::<marker>`).
    Rule(proc_macro2::Ident),
    /// By a `deserialize_with` helper function.
    Helper(syn::Expr),
    /// By the field type's own decoding.
    Plain,
}

impl Emitter {
    /// The path of the direct-decoder module, beside the runtime.
    pub(super) fn fast_path(&self) -> TokenStream {
        fast_path(&self.rt)
    }

    /// Whether the definition gets a direct decoder.
    pub(super) fn is_direct(&self, def: &Def) -> bool {
        self.direct.contains(&def.name)
    }

    /// `FromJson` for a definition that gets a direct decoder, unless another
    /// item writes it (a struct that keeps unknown properties, with its
    /// visitor; an upsert's wire type, by the derive) or the definition is
    /// an alias.
    pub(super) fn direct_decoder(&self, def: &Def) -> Option<TokenStream> {
        if !self.is_direct(def) {
            return None;
        }
        let fast = self.fast_path();
        let name = ident(&def.rust_name);
        match &def.kind {
            Kind::Struct(s) if def.upsert.is_some() || s.keeps_rest() => None,
            Kind::Alias(_) if def.method.is_none() => None,
            Kind::Union(u) if u.tag.is_some() => Some(self.tagged_from_json(def, u)),
            // A string newtype or string enum: its `Scalar` impl accepts
            // exactly the strings its `Deserialize` does.
            Kind::Newtype(Type::String { .. }) | Kind::Enum(Enum { repr: EnumRepr::String, .. }) => Some(quote! {
                impl<'de> #fast::FromJson<'de> for #name {
                    #[inline]
                    fn read(r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
                        #fast::scalar(r)
                    }
                }
            }),
            // Read through the reader by its `Deserialize`.
            _ => Some(quote! { impl<'de> #fast::FromJson<'de> for #name {} }),
        }
    }

    /// The direct decoder of a struct that keeps unknown properties: its
    /// members in one loop, each known one read by its field's rule, the
    /// others kept (as the visitor keeps them).
    pub(super) fn keeping_from_json(&self, def: &Def, s: &Struct, reads: &[Read]) -> TokenStream {
        let (rt, fast) = (&self.rt, self.fast_path());
        let name = ident(&def.rust_name);
        let mut slots = Vec::new();
        let mut arms = Vec::new();
        let (mut required, mut inits) = (Vec::new(), Vec::new());
        for (i, (f, read)) in s.fields.iter().zip(reads).enumerate() {
            let slot = quote::format_ident!("v{i}");
            let ft = self.field_type(f);
            let wire = str_lit(&f.name);
            let value = match read {
                Read::Rule(m) => quote!(<#rt::read::#m as #fast::Rule<'de, #ft>>::read(r)),
                Read::Helper(path) => quote!(#path(&mut *r).map_err(|_| #fast::Bail)),
                Read::Plain => quote!(<#ft as #fast::FromJson<'de>>::read(r)),
            };
            slots.push(quote!(let mut #slot: ::core::option::Option<#ft> = ::core::option::Option::None;));
            arms.push(quote!(#wire => #fast::put(&mut #slot, #value),));
            let fname = ident(&f.rust_name);
            if f.required {
                required.push(quote! {
                    let ::core::option::Option::Some(#slot) = #slot else {
                        return ::core::result::Result::Err(#fast::Bail);
                    };
                });
                inits.push(quote!(#fname: #slot));
            } else {
                inits.push(quote!(#fname: #slot.unwrap_or_default()));
            }
        }
        // A property that must be absent: the visitor reports it.
        for name in &s.forbidden {
            let wire = str_lit(name);
            arms.push(quote!(#wire => ::core::result::Result::Err(#fast::Bail),));
        }
        let read = read_object(&fast);
        quote! {
            impl<'de> #fast::FromJson<'de> for #name {
                #read

                #[inline]
                fn rest(r: &mut #fast::Reader<'de>, more: bool) -> ::core::result::Result<Self, #fast::Bail> {
                    #(#slots)*
                    let mut rest = #rt::Extra::new();
                    #fast::members(r, more, |r, key| match key {
                        #(#arms)*
                        other => #fast::keep(r, &mut rest, other),
                    })?;
                    // Each required slot taken on its own: a `match` on a
                    // tuple of them would move every value once more.
                    #(#required)*
                    ::core::result::Result::Ok(#name { #(#inits,)* additional_properties: rest })
                }
            }
        }
    }

    /// The direct decoder of a tagged union: the discriminator must be the
    /// first member (the first after an outer union's) and name a variant;
    /// the variant's members follow.
    fn tagged_from_json(&self, def: &Def, u: &Union) -> TokenStream {
        let fast = self.fast_path();
        let name = ident(&def.rust_name);
        let key = str_lit(&u.tag.as_ref().expect("a tagged union").property);
        let mut arms = Vec::new();
        for v in &u.variants {
            let Some(t) = &v.tag else { continue };
            let (vn, tl) = (ident(&v.rust_name), str_lit(t));
            arms.push(match &v.payload {
                Payload::Unit => quote! {
                    #tl => {
                        #fast::skip_members(r, more)?;
                        ::core::result::Result::Ok(Self::#vn)
                    }
                },
                Payload::Type(ty) => {
                    let t = self.ty(ty);
                    let t = if self.arm_boxed(&def.name, v) { quote!(::std::boxed::Box<#t>) } else { t };
                    quote!(#tl => <#t as #fast::FromJson<'de>>::rest(r, more).map(Self::#vn),)
                }
                Payload::NoTag => continue,
            });
        }
        let read = read_object(&fast);
        quote! {
            impl<'de> #fast::FromJson<'de> for #name {
                #read

                // Also the arm of an outer union (whose discriminator came first).
                #[inline]
                fn rest(r: &mut #fast::Reader<'de>, more: bool) -> ::core::result::Result<Self, #fast::Bail> {
                    if !more || r.key()? != #key {
                        return ::core::result::Result::Err(#fast::Bail);
                    }
                    let tag = r.str()?;
                    let more = r.next_member()?;
                    match &*tag {
                        #(#arms)*
                        _ => ::core::result::Result::Err(#fast::Bail),
                    }
                }
            }
        }
    }
}

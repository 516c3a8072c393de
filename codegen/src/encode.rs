//! The encoders: serde's `Serialize` and the direct encoder
//! (`json::fast::ToJson`) of a struct that keeps unknown properties
//! ([`object_serialize`], `#[derive(AcpSerialize)]`), and the direct encoders
//! of unions, string enums and string newtypes (rendered with their other
//! impls).
//!
//! A direct encoder writes what serde's derive would make `serde_json` write,
//! byte for byte: the members in the struct's order under their wire names,
//! each left out when its `skip_serializing_if` says so, then the unknown
//! properties in their order. Keys, discriminators and known enum values are
//! quoted and escaped here, once, and written as byte strings.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::union::{ArmPayload, Union};
use crate::Paths;

/// A struct written as one JSON object: its known properties, then
/// `additional_properties` (`runtime::Extra`) flattened after them.
#[derive(Debug, Clone)]
pub struct ObjectWrite {
    /// The struct.
    pub ident: Ident,
    /// Its known properties, in order.
    pub fields: Vec<FieldWrite>,
}

/// One known property of an [`ObjectWrite`].
#[derive(Debug, Clone)]
pub struct FieldWrite {
    /// The Rust field.
    pub ident: Ident,
    /// The property name on the wire.
    pub wire: String,
    /// serde's `skip_serializing_if`: a function of `&FieldType` that says
    /// the property is left out.
    pub skip_if: Option<TokenStream>,
}

/// `s` as a JSON string, escaped as `serde_json` escapes it.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The bytes `text` as a byte-string literal.
fn bytes(text: &str) -> Literal {
    Literal::byte_string(text.as_bytes())
}

/// `Serialize` through the direct encoder (`json::fast::serialize`), and
/// `SerdeSide` with `serde_side` as its body.
fn serialize_impls(name: &Ident, serde_side: &TokenStream, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    quote! {
        impl ::serde::Serialize for #name {
            #[inline]
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                #fast::serialize(self, s)
            }
        }
        impl #fast::SerdeSide for #name {
            fn serialize_serde<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                #serde_side
            }
        }
    }
}

/// `Serialize`, `SerdeSide`, `ToJson` and `ToJsonMembers` for `o`.
pub fn object_serialize(o: &ObjectWrite, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    let name = &o.ident;
    let mut entries = Vec::new();
    let mut members = Vec::new();
    for f in &o.fields {
        let ident = &f.ident;
        let wire = crate::str_lit(&f.wire);
        let key = crate::member_key(&f.wire);
        let (entry, member) = (
            quote!(map.serialize_entry(#wire, &self.#ident)?;),
            quote! {
                #fast::raw(out, #key);
                (&self.#ident).put_json(out)?;
                out.push(b',');
            },
        );
        match &f.skip_if {
            Some(skip) => {
                entries.push(quote!(if !#skip(&self.#ident) { #entry }));
                members.push(quote!(if !#skip(&self.#ident) { #member }));
            }
            None => {
                entries.push(entry);
                members.push(member);
            }
        }
    }
    let serde_side = quote! {
        use ::serde::ser::SerializeMap as _;
        let mut map = s.serialize_map(::core::option::Option::None)?;
        #(#entries)*
        for (k, v) in self.additional_properties.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    };
    let serialize = serialize_impls(name, &serde_side, paths);
    quote! {
        #serialize
        impl #fast::ToJsonMembers for #name {
            #[inline]
            fn write_members(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                #[allow(unused_imports)]
                use #fast::{ViaSerde as _, ViaToJson as _};
                #(#members)*
                #fast::extra(out, &self.additional_properties)
            }
        }
        impl #fast::ToJson for #name {
            #[inline]
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                out.push(b'{');
                #fast::ToJsonMembers::write_members(self, out)?;
                #fast::close_object(out);
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// `Serialize` of a union: the direct encoder under the bindings' encoder,
/// `serde_side` (its `SerdeSide` body) under any other serializer; and its
/// `ToJson` (and, tagged, `ToJsonMembers`).
pub(crate) fn union_encoders(u: &Union, serde_side: &TokenStream, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    let name = &u.ident;
    let tag_key = u.tag.as_ref().map(|t| json_string(&t.key));
    let mut whole = Vec::new();
    let mut inner = Vec::new();
    for a in &u.arms {
        let vn = &a.variant;
        match (&a.payload, &a.tag, &tag_key) {
            (ArmPayload::Unit, Some(t), Some(k)) => {
                let member = bytes(&format!("{k}:{},", json_string(t)));
                inner.push(quote!(Self::#vn => #fast::raw(out, #member),));
            }
            (ArmPayload::Type { .. }, Some(t), Some(k)) => {
                let member = bytes(&format!("{k}:{},", json_string(t)));
                inner.push(quote!(Self::#vn(p) => { #fast::raw(out, #member); p.put_members(out)?; }));
            }
            (ArmPayload::NoTag, _, Some(k)) => {
                let null = bytes(&format!("{k}:null,"));
                inner.push(quote!(Self::#vn { explicit_null } => if *explicit_null { #fast::raw(out, #null) },));
            }
            (ArmPayload::Type { .. }, _, _) => whole.push(quote!(Self::#vn(p) => p.put_json(out)?,)),
            (ArmPayload::Unit, _, _) => whole.push(quote!(Self::#vn => #fast::raw(out, b"null"),)),
            (ArmPayload::NoTag, _, None) => whole.push(quote!(Self::#vn { .. } => #fast::raw(out, b"{}"),)),
        }
    }
    if let Some(c) = &u.catch_all {
        let cn = &c.variant;
        whole.push(quote!(Self::#cn(v) => v.put_json(out)?,));
    }
    let uses = quote! {
        #[allow(unused_imports)]
        use #fast::{ViaMembers as _, ViaSerde as _, ViaSerdeMembers as _, ViaToJson as _};
    };
    // A tagged union's object arms are written as its members inside one
    // pair of braces; the others (untagged arms, the catch-all) whole, and
    // as members (inside another union's braces) through serde.
    let (members, write) = if inner.is_empty() {
        (quote!(), quote!(match self { #(#whole)* }))
    } else {
        let rest = (!whole.is_empty()).then(|| quote!(_ => return #fast::members_via_serde(self, out),));
        let members = quote! {
            impl #fast::ToJsonMembers for #name {
                #[inline]
                fn write_members(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                    #uses
                    match self { #(#inner)* #rest }
                    ::core::result::Result::Ok(())
                }
            }
        };
        let in_braces = quote! {
            out.push(b'{');
            #fast::ToJsonMembers::write_members(self, out)?;
            #fast::close_object(out);
        };
        let write = if whole.is_empty() { in_braces } else { quote!(match self { #(#whole)* _ => { #in_braces } }) };
        (members, write)
    };
    let serialize = serialize_impls(name, serde_side, paths);
    quote! {
        #serialize
        impl #fast::ToJson for #name {
            #[inline]
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                #uses
                #write
                ::core::result::Result::Ok(())
            }
        }
        #members
    }
}

/// `ToJson` of a string enum: each known value's quoted bytes; an unknown
/// one (`fallback`) written as a string.
pub(crate) fn string_enum_to_json(
    name: &Ident,
    values: &[(Ident, String)],
    fallback: Option<&Ident>,
    paths: &Paths,
) -> TokenStream {
    let fast = &paths.fast;
    let arms = values.iter().map(|(v, s)| {
        let quoted = bytes(&json_string(s));
        quote!(Self::#v => #fast::raw(out, #quoted),)
    });
    let other = fallback.map(|_| quote!(_ => #fast::string(out, self.as_str()),));
    quote! {
        impl #fast::ToJson for #name {
            #[inline]
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                match self { #(#arms)* #other }
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// `ToJson` of a string newtype.
pub(crate) fn string_newtype_to_json(name: &Ident, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    quote! {
        impl #fast::ToJson for #name {
            #[inline]
            fn write_json(&self, out: &mut ::std::vec::Vec<u8>) -> ::core::result::Result<(), #fast::Error> {
                #fast::string(out, self.as_str());
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// A union's `Serialize` (serde's side) and its direct encoder.
pub(crate) fn union_serialize(u: &Union, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let mut arms = Vec::new();
    for a in &u.arms {
        let vn = &a.variant;
        arms.push(match (&a.payload, &a.tag) {
            (ArmPayload::Unit, Some(t)) => {
                quote!(Self::#vn => #rt::ser::tagged(s, K, #t, ::core::option::Option::<&()>::None),)
            }
            (ArmPayload::Type { .. }, Some(t)) => {
                quote!(Self::#vn(p) => #rt::ser::tagged(s, K, #t, ::core::option::Option::Some(p)),)
            }
            (ArmPayload::Type { .. }, None) => quote!(Self::#vn(p) => ::serde::Serialize::serialize(p, s),),
            (ArmPayload::NoTag, _) => quote! {
                Self::#vn { explicit_null } => {
                    use ::serde::ser::SerializeMap as _;
                    let mut map = s.serialize_map(::core::option::Option::None)?;
                    if *explicit_null {
                        map.serialize_entry(K, &())?;
                    }
                    map.end()
                }
            },
            (ArmPayload::Unit, None) => quote!(Self::#vn => s.serialize_unit(),),
        });
    }
    if let Some(c) = &u.catch_all {
        let cn = &c.variant;
        arms.push(quote!(Self::#cn(v) => ::serde::Serialize::serialize(v, s),));
    }
    let k = u.tag.as_ref().map(|t| {
        let key = crate::str_lit(&t.key);
        quote!(const K: &str = #key;)
    });
    let serde_side = quote! {
        #k
        match self { #(#arms)* }
    };
    union_encoders(u, &serde_side, paths)
}

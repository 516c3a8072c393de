//! String newtypes (`#[derive(AcpString)]`): an identifier held as a
//! `runtime::SmolStr`, with its conversions, serde's traits (refusing the
//! strings the definition's `not` excludes) and the direct decoder.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::{str_lit, Paths};

/// A tuple struct of one `runtime::SmolStr`.
#[derive(Debug, Clone)]
pub struct StringNewtype {
    /// The struct (also its name in errors).
    pub ident: Ident,
    /// Strings refused on decode (the definition's `not`), and the JSON
    /// pointer of that `not` for the error.
    pub excluded: Option<(Vec<String>, String)>,
    /// It also gets a direct decoder (`json::fast::FromJson`).
    pub direct: bool,
}

/// Every impl of `n`.
pub fn string_newtype_impls(n: &StringNewtype, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let name = &n.ident;
    let (read, excludes, from_str) = match &n.excluded {
        None => (quote!(#rt::de::id_str(d)), quote!(), quote!(::core::option::Option::Some(Self(#rt::de::smol(v))))),
        Some((excluded, pointer)) => {
            let pointer = str_lit(pointer);
            (
                quote!(#rt::de::id_str_excluding::<_, Self>(d)),
                quote! {
                    impl #rt::de::Pointer for #name {
                        const POINTER: &'static str = #pointer;
                    }
                    impl #rt::de::Excludes for #name {
                        const EXCLUDED: &'static [&'static str] = &[#(#excluded),*];
                    }
                },
                quote!((!<Self as #rt::de::Excludes>::EXCLUDED.contains(&v)).then(|| Self(#rt::de::smol(v)))),
            )
        }
    };
    let direct = n.direct.then(|| crate::scalar_from_json(name, paths));
    let to_json = crate::encode::string_newtype_to_json(name, paths);
    quote! {
        #to_json
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                #read.map(Self)
            }
        }
        #excludes
        impl #rt::de::Scalar for #name {
            fn from_str(v: &str) -> ::core::option::Option<Self> {
                #from_str
            }
        }
        impl #name {
            /// Wraps a string (`&str`, `String`, `Arc<str>`, `SmolStr`).
            pub fn new(value: impl ::core::convert::Into<#rt::SmolStr>) -> Self {
                Self(value.into())
            }
            /// The string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
        impl ::core::convert::From<&str> for #name {
            fn from(value: &str) -> Self { Self(value.into()) }
        }
        impl ::core::convert::From<::std::string::String> for #name {
            fn from(value: ::std::string::String) -> Self { Self(value.into()) }
        }
        impl ::core::convert::AsRef<str> for #name {
            fn as_ref(&self) -> &str { &self.0 }
        }
        impl ::core::borrow::Borrow<str> for #name {
            fn borrow(&self) -> &str { &self.0 }
        }
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(&self.0) }
        }
        #direct
    }
}

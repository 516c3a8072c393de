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
    /// The definition's string rules, checked on decode.
    pub rule: Option<StrRules>,
    /// It also gets a direct decoder (`json::fast::FromJson`).
    pub direct: bool,
}

/// A whole definition's `minLength`, `maxLength` and `pattern`.
#[derive(Debug, Clone)]
pub struct StrRules {
    /// `minLength`, in Unicode code points (0: none).
    pub min: usize,
    /// `maxLength`, in Unicode code points.
    pub max: Option<usize>,
    /// `pattern` (unanchored, as JSON Schema reads it).
    pub pattern: Option<String>,
    /// The definition's JSON pointer, for the errors.
    pub pointer: String,
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
    // The string rules: one hidden `StrRule` type, checked after the `not`.
    let (rule_items, check, from_str) = match &n.rule {
        None => (quote!(), quote!(), from_str),
        Some(r) => {
            let hidden = quote::format_ident!("__{}Rule", name);
            let (min, pointer) = (r.min, str_lit(&r.pointer));
            let max = match r.max {
                Some(m) => quote!(#m),
                None => quote!(usize::MAX),
            };
            let pattern = match &r.pattern {
                Some(p) => {
                    let p = str_lit(p);
                    quote! {
                        static PATTERN: #rt::de::Pattern = #rt::de::Pattern::new(#p);
                        ::core::option::Option::Some(&PATTERN)
                    }
                }
                None => quote!(::core::option::Option::None),
            };
            let doc = format!(" The string rules of [`{name}`].");
            (
                quote! {
                    #[doc = #doc]
                    #[doc(hidden)]
                    #[allow(non_camel_case_types)]
                    pub struct #hidden;
                    impl #rt::de::Pointer for #hidden {
                        const POINTER: &'static str = #pointer;
                    }
                    impl #rt::de::StrRule for #hidden {
                        const MIN_LENGTH: usize = #min;
                        const MAX_LENGTH: usize = #max;
                        fn pattern() -> ::core::option::Option<&'static #rt::de::Pattern> {
                            #pattern
                        }
                    }
                },
                quote! {
                    let v = #rt::de::check_rule::<#hidden, _>(v).map_err(<D::Error as ::serde::de::Error>::custom)?;
                },
                quote! {
                    #from_str.filter(|s: &Self| #rt::de::str_rule_error::<#hidden>(&s.0).is_none())
                },
            )
        }
    };
    let direct = n.direct.then(|| crate::scalar_from_json(name, paths));
    let to_json = crate::encode::string_newtype_to_json(name, paths);
    quote! {
        #rule_items
        #to_json
        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let v = #read?;
                #check
                ::core::result::Result::Ok(Self(v))
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

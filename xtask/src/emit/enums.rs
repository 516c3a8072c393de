//! String and integer enums, open and closed.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{docs_or, ident, str_lit, Emitter};
use crate::model::*;

impl Emitter {
    // ---- enums -------------------------------------------------------------------

    pub(super) fn enumeration(&self, def: &Def, e: &Enum) -> Vec<TokenStream> {
        match e.repr {
            EnumRepr::String => self.string_enum(def, e),
            EnumRepr::Integer(format) => self.int_enum(def, e, format),
        }
    }

    fn string_enum(&self, def: &Def, e: &Enum) -> Vec<TokenStream> {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let name_str = &def.rust_name;
        let doc = self.item_docs(def);
        let vnames: Vec<_> = e.variants.iter().map(|v| ident(&v.rust_name)).collect();
        let vdocs: Vec<_> = e
            .variants
            .iter()
            .map(|v| docs_or(self.docs_of(def, &v.rust_name, &v.docs), || format!("`{}`.", v.value)))
            .collect();
        let values: Vec<_> = e
            .variants
            .iter()
            .map(|v| str_lit(v.value.as_str().expect("lowering gives a string enum string values")))
            .collect();
        let mut items = Vec::new();
        let StringEnumFallback {
            variant: fallback_variant,
            as_str: as_str_fallback,
            from_str,
            parse_err,
            is_ext,
            visit_owned,
        } = self.string_enum_fallback(def, e, &vnames, &values);
        let open = e.fallback.is_some();
        let (visit_str, lossless, parse_body) = string_enum_parsing(&name, (&vnames, &values), &from_str, open);
        let expecting = format!("a {name_str} string");
        items.push(quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[non_exhaustive]
            pub enum #name {
                #( #vdocs #vnames, )*
                #fallback_variant
            }

            impl #name {
                /// Every value this version knows, as on the wire.
                pub const VALUES: &'static [&'static str] = &[#(#values),*];

                /// The value as on the wire.
                pub fn as_str(&self) -> &str {
                    match self {
                        #( Self::#vnames => #values, )*
                        #as_str_fallback
                    }
                }
                #is_ext
                #lossless
            }

            impl ::core::fmt::Display for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(self.as_str()) }
            }

            impl ::core::str::FromStr for #name {
                type Err = #parse_err;
                fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                    #parse_body
                }
            }

            impl ::serde::Serialize for #name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    serializer.serialize_str(self.as_str())
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    struct Visitor;
                    impl ::serde::de::Visitor<'_> for Visitor {
                        type Value = #name;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(#expecting) }
                        #visit_str
                        #visit_owned
                    }
                    d.deserialize_str(Visitor)
                }
            }
        });
        items.push(string_enum_scalar(rt, &name, open));
        items
    }

    /// The parts of a string enum that differ when it is open (a fallback
    /// variant keeps unknown values) or closed (unknown values are errors).
    fn string_enum_fallback(
        &self,
        def: &Def,
        e: &Enum,
        vnames: &[proc_macro2::Ident],
        values: &[proc_macro2::Literal],
    ) -> StringEnumFallback {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let name_str = &def.rust_name;
        let (variant, as_str, from_str, parse_err, is_ext, visit_owned) = match &e.fallback {
            Some(f) => {
                let fname = ident(&f.rust_name);
                let fdoc = docs_or(self.docs_of(def, &f.rust_name, &f.docs), || {
                    "A value this version does not know, kept as received.".to_owned()
                });
                (
                    quote! { #fdoc #fname(#rt::UnknownString), },
                    quote! { Self::#fname(v) => v.as_str(), },
                    quote! { other => Self::#fname(#rt::UnknownString::__new(other)), },
                    quote!(::core::convert::Infallible),
                    quote! {
                        /// `true` for a value this version does not know that starts with `_`
                        /// (an implementation-specific extension).
                        pub fn is_extension(&self) -> bool {
                            matches!(self, Self::#fname(v) if v.is_extension())
                        }
                        /// `true` for a value this version does not know that does not start
                        /// with `_` (reserved for future ACP versions).
                        pub fn is_future(&self) -> bool {
                            matches!(self, Self::#fname(v) if v.is_future())
                        }
                        /// `true` for a value this version knows.
                        pub fn is_known(&self) -> bool {
                            !matches!(self, Self::#fname(_))
                        }
                    },
                    quote! {
                        fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::core::result::Result<#name, E> {
                            ::core::result::Result::Ok(match v.as_str() {
                                #( #values => #name::#vnames, )*
                                _ => #name::#fname(#rt::UnknownString::__new(v)),
                            })
                        }
                    },
                )
            }
            None => (
                quote!(),
                quote!(),
                quote! { _ => return ::core::result::Result::Err(#rt::ParseEnumError::new(#name_str, s)), },
                quote!(#rt::ParseEnumError),
                quote!(),
                quote!(),
            ),
        };
        StringEnumFallback { variant, as_str, from_str, parse_err, is_ext, visit_owned }
    }

    fn int_enum(&self, def: &Def, e: &Enum, format: IntFormat) -> Vec<TokenStream> {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let vnames: Vec<_> = e.variants.iter().map(|v| ident(&v.rust_name)).collect();
        let vdocs: Vec<_> = e
            .variants
            .iter()
            .map(|v| docs_or(self.docs_of(def, &v.rust_name, &v.docs), || format!("`{}`.", v.value)))
            .collect();
        let values: Vec<_> = e
            .variants
            .iter()
            .map(|v| Literal::i64_unsuffixed(v.value.as_i64().expect("lowering checks the range")))
            .collect();
        let (lo, hi) = format.range();
        let (lo, hi) = (Literal::i128_unsuffixed(lo), Literal::i128_unsuffixed(hi));
        let expecting = format!("a {} integer", def.rust_name);
        let (fallback, value_fallback, from_fallback) = match &e.fallback {
            Some(f) => {
                let fname = ident(&f.rust_name);
                let fdoc = docs_or(self.docs_of(def, &f.rust_name, &f.docs), || {
                    "A value this version does not know, kept as received.".to_owned()
                });
                (
                    quote! { #fdoc #fname(#rt::UnknownInteger), },
                    quote! { Self::#fname(v) => v.get(), },
                    quote! { other => ::core::result::Result::Ok(Self::#fname(#rt::UnknownInteger::__new(other))), },
                )
            }
            None => (quote!(), quote!(), quote! { other => ::core::result::Result::Err(other), }),
        };
        vec![quote! {
            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[non_exhaustive]
            pub enum #name {
                #( #vdocs #vnames, )*
                #fallback
            }

            impl #name {
                /// The value as on the wire.
                pub fn value(&self) -> i64 {
                    match self {
                        #( Self::#vnames => #values, )*
                        #value_fallback
                    }
                }

                /// The variant for a wire value; `Err` returns a value a closed enum does not know.
                pub fn try_from_value(value: i64) -> ::core::result::Result<Self, i64> {
                    match value {
                        #( #values => ::core::result::Result::Ok(Self::#vnames), )*
                        #from_fallback
                    }
                }
            }

            impl ::core::fmt::Display for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { ::core::fmt::Display::fmt(&self.value(), f) }
            }

            impl ::serde::Serialize for #name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    serializer.serialize_i64(self.value())
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    let wide = <i64 as ::serde::Deserialize>::deserialize(d)?;
                    if !(#lo..=#hi).contains(&i128::from(wide)) {
                        return ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(
                            ::core::format_args!("{wide} is out of range for {}", #expecting),
                        ));
                    }
                    Self::try_from_value(wide).map_err(|v| <D::Error as ::serde::de::Error>::custom(
                        ::core::format_args!("unknown value {v}, expected {}", #expecting),
                    ))
                }
            }
        }]
    }
}

/// What an open or closed string enum puts in its items.
struct StringEnumFallback {
    /// The fallback variant (open) or nothing.
    variant: TokenStream,
    /// `as_str`'s arm for the fallback.
    as_str: TokenStream,
    /// The last arm of parsing: keep (open) or fail (closed).
    from_str: TokenStream,
    /// `FromStr::Err`.
    parse_err: TokenStream,
    /// `is_extension`, `is_future`, `is_known` (open).
    is_ext: TokenStream,
    /// `visit_string`, which keeps the received string (open).
    visit_owned: TokenStream,
}

/// `Scalar` (and, for an open enum, `From<&str>`): read in place from a JSON string.
fn string_enum_scalar(rt: &TokenStream, name: &proc_macro2::Ident, open: bool) -> TokenStream {
    if open {
        quote! {
            impl ::core::convert::From<&str> for #name {
                fn from(value: &str) -> Self { Self::from_str_lossless(value) }
            }
            impl #rt::de::Scalar for #name {
                fn from_str(v: &str) -> ::core::option::Option<Self> {
                    ::core::option::Option::Some(Self::from_str_lossless(v))
                }
            }
        }
    } else {
        quote! {
            impl #rt::de::Scalar for #name {
                fn from_str(v: &str) -> ::core::option::Option<Self> {
                    v.parse().ok()
                }
            }
        }
    }
}

/// How a string enum reads a string: serde's `visit_str`, the lossless
/// parse of an open enum, and the body of `FromStr::from_str`.
fn string_enum_parsing(
    name: &proc_macro2::Ident,
    (vnames, values): (&[proc_macro2::Ident], &[proc_macro2::Literal]),
    from_str: &TokenStream,
    open: bool,
) -> (TokenStream, TokenStream, TokenStream) {
    let visit_str = if open {
        quote! {
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(match v { #( #values => #name::#vnames, )* _ => #name::from_str_lossless(v) })
            }
        }
    } else {
        quote! {
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#name, E> {
                match v {
                    #( #values => ::core::result::Result::Ok(#name::#vnames), )*
                    _ => ::core::result::Result::Err(E::unknown_variant(v, #name::VALUES)),
                }
            }
        }
    };
    let lossless = if open {
        quote! {
            fn from_str_lossless(s: &str) -> Self {
                match s { #( #values => Self::#vnames, )* #from_str }
            }
        }
    } else {
        quote!()
    };
    let parse_body = if open {
        quote!(::core::result::Result::Ok(Self::from_str_lossless(s)))
    } else {
        quote!(::core::result::Result::Ok(match s { #( #values => Self::#vnames, )* #from_str }))
    };
    (visit_str, lossless, parse_body)
}

//! String and integer enums (`#[derive(AcpEnum)]`), open (a fallback variant
//! keeps a value this version does not know) or closed (such a value is an
//! error): conversions to and from the wire value, `Display`, `FromStr`,
//! serde's traits and the direct decoder.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::{str_lit, Paths};

/// An enum of JSON strings or integers.
#[derive(Debug, Clone)]
pub struct Enum {
    /// The enum (also its name in errors).
    pub ident: Ident,
    /// Each known value's variant and wire value.
    pub values: Vec<(Ident, Value)>,
    /// The variant that keeps an unknown value (`runtime::UnknownString` or
    /// `runtime::UnknownInteger`): the enum is open.
    pub fallback: Option<Ident>,
    /// For an integer enum, the Rust integer type whose range the wire
    /// value must be in (`i32`); `None` for a string enum.
    pub range: Option<Ident>,
    /// It also gets a direct decoder (`json::fast::FromJson`).
    pub direct: bool,
}

/// A known value on the wire.
#[derive(Debug, Clone)]
pub enum Value {
    /// A string enum's value.
    Str(String),
    /// An integer enum's value.
    Int(i64),
}

/// Each known value's variant and its wire value as a literal.
fn variants(e: &Enum) -> (Vec<&Ident>, Vec<Literal>) {
    e.values
        .iter()
        .map(|(v, value)| {
            let lit = match value {
                Value::Str(s) => str_lit(s),
                Value::Int(i) => Literal::i64_unsuffixed(*i),
            };
            (v, lit)
        })
        .unzip()
}

/// Every impl of `e`.
pub fn enum_impls(e: &Enum, paths: &Paths) -> TokenStream {
    match &e.range {
        None => string_enum(e, paths),
        Some(range) => int_enum(e, range, paths),
    }
}

fn string_enum(e: &Enum, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let name = &e.ident;
    let (vnames, values) = variants(e);
    let expecting = format!("a {} string", crate::unraw(name));
    let parts = match &e.fallback {
        Some(f) => open_parts(name, f, (&vnames, &values), paths),
        None => closed_parts(name, (&vnames, &values), paths),
    };
    let OpenOrClosed { as_str, parse_err, parse_body, methods, visit, scalar } = parts;
    // An open enum takes any string.
    let from_str = e.fallback.as_ref().map(|_| {
        quote! {
            impl ::core::convert::From<&str> for #name {
                fn from(value: &str) -> Self { Self::from_str_lossless(value) }
            }
        }
    });
    let direct = e.direct.then(|| crate::scalar_from_json(name, paths));
    let strings: Vec<(Ident, String)> = e
        .values
        .iter()
        .filter_map(|(v, value)| match value {
            Value::Str(s) => Some((v.clone(), s.clone())),
            Value::Int(_) => None,
        })
        .collect();
    let to_json = crate::encode::string_enum_to_json(name, &strings, e.fallback.as_ref(), paths);
    quote! {
        #to_json
        impl #name {
            /// Every value this version knows, as on the wire.
            pub const VALUES: &'static [&'static str] = &[#(#values),*];

            /// The value as on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    #( Self::#vnames => #values, )*
                    #as_str
                }
            }
            #methods
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
                    #visit
                }
                d.deserialize_str(Visitor)
            }
        }

        #from_str
        impl #rt::de::Scalar for #name {
            fn from_str(v: &str) -> ::core::option::Option<Self> {
                #scalar
            }
        }
        #direct
    }
}

/// The parts of a string enum that differ between open and closed.
struct OpenOrClosed {
    /// `as_str`'s arm for the fallback.
    as_str: TokenStream,
    /// `FromStr::Err`.
    parse_err: TokenStream,
    /// `FromStr::from_str`.
    parse_body: TokenStream,
    /// More inherent methods.
    methods: TokenStream,
    /// The visitor's methods.
    visit: TokenStream,
    /// `Scalar::from_str`.
    scalar: TokenStream,
}

fn open_parts(name: &Ident, f: &Ident, (vnames, values): (&[&Ident], &[Literal]), paths: &Paths) -> OpenOrClosed {
    let rt = &paths.runtime;
    OpenOrClosed {
        as_str: quote!(Self::#f(v) => v.as_str(),),
        parse_err: quote!(::core::convert::Infallible),
        parse_body: quote!(::core::result::Result::Ok(Self::from_str_lossless(s))),
        methods: quote! {
            /// `true` for a value this version does not know that starts with `_`
            /// (an implementation-specific extension).
            pub fn is_extension(&self) -> bool {
                ::core::matches!(self, Self::#f(v) if v.is_extension())
            }
            /// `true` for a value this version does not know that does not start
            /// with `_` (reserved for future ACP versions).
            pub fn is_future(&self) -> bool {
                ::core::matches!(self, Self::#f(v) if v.is_future())
            }
            /// `true` for a value this version knows.
            pub fn is_known(&self) -> bool {
                !::core::matches!(self, Self::#f(_))
            }
            fn from_str_lossless(s: &str) -> Self {
                match s { #( #values => Self::#vnames, )* other => Self::#f(#rt::UnknownString::__new(other)), }
            }
        },
        visit: quote! {
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(#name::from_str_lossless(v))
            }
            fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::core::result::Result<#name, E> {
                ::core::result::Result::Ok(match v.as_str() {
                    #( #values => #name::#vnames, )*
                    _ => #name::#f(#rt::UnknownString::__new(v)),
                })
            }
        },
        scalar: quote!(::core::option::Option::Some(Self::from_str_lossless(v))),
    }
}

fn closed_parts(name: &Ident, (vnames, values): (&[&Ident], &[Literal]), paths: &Paths) -> OpenOrClosed {
    let rt = &paths.runtime;
    let name_str = crate::unraw(name);
    OpenOrClosed {
        as_str: quote!(),
        parse_err: quote!(#rt::ParseEnumError),
        parse_body: quote! {
            ::core::result::Result::Ok(match s {
                #( #values => Self::#vnames, )*
                _ => return ::core::result::Result::Err(#rt::ParseEnumError::new(#name_str, s)),
            })
        },
        methods: quote!(),
        visit: quote! {
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<#name, E> {
                match v {
                    #( #values => ::core::result::Result::Ok(#name::#vnames), )*
                    _ => ::core::result::Result::Err(E::unknown_variant(v, #name::VALUES)),
                }
            }
        },
        scalar: quote!(v.parse().ok()),
    }
}

fn int_enum(e: &Enum, range: &Ident, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let name = &e.ident;
    let (vnames, values) = variants(e);
    let expecting = format!("a {} integer", crate::unraw(name));
    let fast = &paths.fast;
    // Read through the reader by its `Deserialize`.
    let direct = e.direct.then(|| quote!(impl<'de> #fast::FromJson<'de> for #name {}));
    let (value_fallback, from_fallback) = match &e.fallback {
        Some(f) => (
            quote! { Self::#f(v) => v.get(), },
            quote! { other => ::core::result::Result::Ok(Self::#f(#rt::UnknownInteger::__new(other))), },
        ),
        None => (quote!(), quote! { other => ::core::result::Result::Err(other), }),
    };
    let (lo, hi) = bounds(range);
    let (lo, hi) = (Literal::i128_unsuffixed(lo), Literal::i128_unsuffixed(hi));
    quote! {
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
        #direct
    }
}

/// The bounds of the Rust integer type `range` names: `u128` reaches past
/// `i128`, but wire values are read as 64-bit numbers, so none comes near.
fn bounds(range: &Ident) -> (i128, i128) {
    match range.to_string().as_str() {
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i128" => (i128::MIN, i128::MAX),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "u128" => (0, i128::MAX),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

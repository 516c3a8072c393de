//! The `reencode` registry `acp-tools` holds for each version: decode a
//! payload by its definition name and encode it again (`check-messages
//! --type` and the tests). It lives in `acp-tools`, not in the bindings:
//! instantiating a decoder for every type costs the bindings' users compile
//! time.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::Gate;
use crate::model::Def;

/// `reencode(type_name, json)`: decode a payload as a named definition and
/// encode it again (used by `check-messages --type` and the tests).
pub fn reencode_fn(defs: &[(&Def, Gate)]) -> TokenStream {
    let arms: Vec<TokenStream> = defs
        .iter()
        .map(|(d, gate)| {
            let name = proc_macro2::Ident::new(&d.rust_name, proc_macro2::Span::call_site());
            let key = proc_macro2::Literal::string(&d.name);
            let cfg = gate.cfg();
            quote! { #cfg #key => go::<bindings::#name>(json), }
        })
        .collect();
    let (visit, reencode, both) = (registry_visit(defs), registry_reencode(&arms), registry_fast_and_slow(&arms));
    quote! {
        #visit
        #reencode
        #both
    }
}

/// `TypeVisitor` and `visit`: code run for a definition's type chosen by name.
fn registry_visit(defs: &[(&Def, Gate)]) -> TokenStream {
    let visit_arms = defs.iter().map(|(d, gate)| {
        let name = proc_macro2::Ident::new(&d.rust_name, proc_macro2::Span::call_site());
        let key = proc_macro2::Literal::string(&d.name);
        let cfg = gate.cfg();
        quote! { #cfg #key => visitor.visit::<bindings::#name>(), }
    });
    quote! {
        /// Code that runs for one definition's Rust type, chosen by name at
        /// run time ([`visit`]): the fuzz targets' per-type checks.
        pub trait TypeVisitor {
            /// What the visit gives.
            type Output;
            /// Runs for the definition's type `T`.
            fn visit<T>(self) -> Self::Output
            where
                T: ::serde::de::DeserializeOwned + ::serde::Serialize + ::core::fmt::Debug + ::core::clone::Clone + ::core::cmp::PartialEq + 'static;
        }

        /// Calls `visitor.visit::<T>()` with `T` the Rust type of the
        /// definition named `type_name`; `None` when this build has no
        /// definition of that name.
        pub fn visit<V: TypeVisitor>(type_name: &str, visitor: V) -> ::core::option::Option<V::Output> {
            ::core::option::Option::Some(match type_name {
                #(#visit_arms)*
                _ => return ::core::option::Option::None,
            })
        }

    }
}

/// `reencode`: decode by definition name and encode again.
fn registry_reencode(arms: &[TokenStream]) -> TokenStream {
    quote! {
        /// Decodes `json` as the definition named `type_name` and encodes it again.
        ///
        /// Returns `None` when this build has no definition of that name.
        /// Errors carry the JSON pointer of the value that failed to decode.
        pub fn reencode(
            type_name: &str,
            json: &str,
        ) -> ::core::option::Option<::core::result::Result<::serde_json::Value, ::acp_bindings::runtime::rpc::DispatchError>> {
            fn go<T: ::serde::de::DeserializeOwned + ::serde::Serialize>(
                json: &str,
            ) -> ::core::result::Result<::serde_json::Value, ::acp_bindings::runtime::rpc::DispatchError> {
                let value: T = ::acp_bindings::runtime::rpc::decode(json)?;
                ::serde_json::to_value(value).map_err(|e| {
                    ::acp_bindings::runtime::rpc::DispatchError::new(::acp_bindings::runtime::rpc::DispatchErrorKind::InvalidPayload, "", e.to_string())
                })
            }
            ::core::option::Option::Some(match type_name {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }

    }
}

/// `decode_fast_and_slow`: the fast and the buffered decoders, to compare.
fn registry_fast_and_slow(arms2: &[TokenStream]) -> TokenStream {
    quote! {
        /// Decodes `json` as the definition named `type_name` twice: as users
        /// do (`serde_json::from_str`, the fast paths) and from a buffered
        /// `serde_json::Value` through `runtime::de::Buffered` (the slow
        /// reference, which takes the buffered path of every lenient field);
        /// each result encoded again, or the error. The tests require the two
        /// to agree.
        ///
        /// # Panics
        ///
        /// If `acp_bindings::json` and `serde_json` encode a decoded value
        /// differently, or decode `json` differently.
        ///
        /// Returns `None` when this build has no definition of that name.
        ///
        /// Built with the feature `compare-decoders` only: its decoders and
        /// encoders for every type are most of the tools' build, and only the
        /// tests and the fuzz targets call it.
        #[cfg(feature = "compare-decoders")]
        pub fn decode_fast_and_slow(
            type_name: &str,
            json: &str,
        ) -> ::core::option::Option<(
            ::core::result::Result<::serde_json::Value, ::std::string::String>,
            ::core::result::Result<::serde_json::Value, ::std::string::String>,
        )> {
            fn go<T: ::serde::de::DeserializeOwned + ::serde::Serialize>(
                json: &str,
            ) -> (
                ::core::result::Result<::serde_json::Value, ::std::string::String>,
                ::core::result::Result<::serde_json::Value, ::std::string::String>,
            ) {
                // Every decoded value also checks the crate's encoder: the
                // same bytes as `serde_json`'s, or the same failure.
                let encode = |v: T| {
                    let ours = ::acp_bindings::json::to_string(&v).map_err(|e| e.to_string());
                    let theirs = ::serde_json::to_string(&v).map_err(|e| e.to_string());
                    ::core::assert_eq!(ours, theirs, "acp_bindings::json and serde_json encode a {} differently", ::core::any::type_name::<T>());
                    ::serde_json::to_value(v).map_err(|e| e.to_string())
                };
                let fast = ::serde_json::from_str::<T>(json).map_err(|e| e.to_string()).and_then(encode);
                // The crate's reader gives what serde_json gives: the same
                // value, or the same error.
                let read = ::acp_bindings::json::from_str::<T>(json).map_err(|e| e.to_string()).and_then(encode);
                ::core::assert_eq!(read, fast, "acp_bindings::json::from_str and serde_json::from_str decode a {} differently from {}", ::core::any::type_name::<T>(), json);
                let slow = de::json_from_str(json)
                    .and_then(|v| T::deserialize(::acp_bindings::runtime::de::Buffered(v)))
                    .map_err(|e| e.to_string())
                    .and_then(encode);
                (fast, slow)
            }
            ::core::option::Option::Some(match type_name {
                #(#arms2)*
                _ => return ::core::option::Option::None,
            })
        }
    }
}

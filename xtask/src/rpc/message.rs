//! A version's `Message`: the runtime's `Message`, written once and generic
//! over what a version supplies (`runtime::rpc::Version`), named for this
//! version through its `Protocol`.

use proc_macro2::TokenStream;
use quote::quote;

/// `Protocol` (the version as the runtime's generic items take it), its
/// `Version` impl, and `Message`.
pub(super) fn message(rt: &TokenStream) -> TokenStream {
    quote! {
        /// This version as the runtime's generic items take it: its request
        /// id and error types and its payload enums. Never a value.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Protocol {}

        impl #rt::rpc::Version for Protocol {
            type Id = super::RequestId;
            type Error = super::Error;
            type Request = Request;
            type Notification = Notification;
            type Response = Response;
        }

        /// A JSON-RPC 2.0 message of this version, with its payload typed
        /// (the runtime's message over this version's [`Protocol`]).
        pub type Message = #rt::rpc::Message<Protocol>;
    }
}

/// `runtime::rpc::Payload` for a payload enum `name` (a version's or a
/// side's), through its inherent methods.
pub(super) fn payload_impl(name: &proc_macro2::Ident, rt: &TokenStream) -> TokenStream {
    quote! {
        impl #rt::rpc::Payload for #name {
            fn method(&self) -> &str {
                #name::method(self)
            }
            fn decode(
                method: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, ParamsForm), DispatchError> {
                #name::decode(method, raw)
            }
        }
    }
}

/// `runtime::rpc::Payload` and `EncodePayload` for a version's enum `name`,
/// through its inherent methods.
pub(super) fn version_payload_impl(name: &proc_macro2::Ident, rt: &TokenStream) -> TokenStream {
    let payload = payload_impl(name, rt);
    quote! {
        #payload
        impl #rt::rpc::EncodePayload for #name {
            fn encode(&self, form: ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                #name::encode(self, form)
            }
            fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                #name::write_payload(self, map, key, form, required)
            }
        }
    }
}

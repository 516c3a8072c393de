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

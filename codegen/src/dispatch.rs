//! The typed JSON-RPC dispatch enums' code (`#[derive(AcpDispatch)]`),
//! written once for every protocol version: a version supplies its enums,
//! one variant per method with the method's name and rules; the matches
//! that decode, encode and name each method are written here.
//!
//! Two kinds of enum are described: a side's ([`SideEnum`]: the requests,
//! notifications or responses one side handles or sends, `RequestToAgent`),
//! and a version's ([`VersionEnum`]: any request, notification or response,
//! holding a side's enum per side, `Request`). Each ends in the extension
//! variant, which keeps a method starting with `_` with its raw payload.
//!
//! A derive sees the enum with its `#[cfg]`s applied: a description holds
//! the methods of one build, and a method behind a feature needs nothing
//! more.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::Paths;

/// What a dispatch enum holds: requests, notifications or responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchKind {
    Request,
    Notification,
    Response,
}

impl DispatchKind {
    /// The word in messages and docs (`request`).
    pub fn word(self) -> &'static str {
        match self {
            DispatchKind::Request => "request",
            DispatchKind::Notification => "notification",
            DispatchKind::Response => "response",
        }
    }
}

/// How a method's payload treats an omitted or `null` params or result
/// (`runtime::rpc::NullMode`'s variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullMode {
    Value,
    Empty,
    Refuse,
}

/// One method of a side's enum.
#[derive(Debug, Clone)]
pub struct Method {
    pub variant: Ident,
    /// The payload type, as the variant spells it.
    pub payload: TokenStream,
    /// The wire method name.
    pub method: String,
    pub null: NullMode,
    /// Decoded in the single pass of `Message::decode` (`Streamed`).
    pub streams: bool,
    /// Also read by its direct decoder (`json::fast`).
    pub direct: bool,
    /// `From<payload>` for the enum.
    pub from: bool,
}

/// A side's enum.
#[derive(Debug, Clone)]
pub struct SideEnum {
    pub name: Ident,
    pub kind: DispatchKind,
    /// `runtime::rpc::Side`'s variant (`Agent`).
    pub side: Ident,
    pub methods: Vec<Method>,
    /// The extension variant.
    pub extension: Ident,
}

/// One side of a version's enum.
#[derive(Debug, Clone)]
pub struct Member {
    /// The variant (`Agent`).
    pub variant: Ident,
    /// The side's enum it holds (`RequestToAgent`).
    pub inner: TokenStream,
    /// The methods of that side read by their direct decoder.
    pub direct: Vec<String>,
}

/// A version's enum.
#[derive(Debug, Clone)]
pub struct VersionEnum {
    pub name: Ident,
    pub kind: DispatchKind,
    pub members: Vec<Member>,
    pub extension: Ident,
}

/// The impls of a side's enum: `SIDE`, `METHODS`, `method`, `decode`,
/// `encode`, `write_payload`, the runtime's `Streamed` (requests and
/// notifications), `Payload` and `SidePayload`, and the `From` conversions
/// its methods ask for.
pub fn side_enum_impls(e: &SideEnum, paths: &Paths) -> TokenStream {
    let (name, ext, side) = (&e.name, &e.extension, &e.side);
    let rt = &paths.runtime;
    let rpc = quote!(#rt::rpc);
    let word = e.kind.word();
    let arg_doc = match e.kind {
        DispatchKind::Response => "`method`, the method of the request it answers,",
        _ => "its method",
    };
    let decode_doc = format!(" Decodes a {word} payload from {arg_doc} and the raw JSON (`None` when omitted).");
    let mut arms = Arms::default();
    for m in &e.methods {
        arms.push(m, paths);
    }
    let Arms { names, methods, decodes, encodes, writes, streamed, direct } = arms;
    let conversions = e.methods.iter().filter(|m| m.from).map(|m| {
        let (v, ty) = (&m.variant, &m.payload);
        let doc = format!(" A `{}` payload.", m.method);
        quote! {
            impl ::core::convert::From<#ty> for #name {
                #[doc = #doc]
                fn from(payload: #ty) -> Self { Self::#v(payload) }
            }
        }
    });
    let streamed_impl = (e.kind != DispatchKind::Response).then(|| streamed_impl(name, &streamed, &direct, paths));
    let payload_impl = payload_impl(name, paths);
    quote! {
        impl #name {
            /// The side that handles these methods.
            pub const SIDE: #rpc::Side = #rpc::Side::#side;
            /// Every method this enum knows.
            pub const METHODS: &'static [&'static str] = &[#(#names)*];

            /// The wire method name.
            pub fn method(&self) -> &str {
                match self {
                    #(#methods)*
                    Self::#ext(e) => &e.method,
                }
            }

            #[doc = #decode_doc]
            pub fn decode(
                method: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, #rpc::ParamsForm), #rpc::DispatchError> {
                match method {
                    #(#decodes)*
                    m if m.starts_with('_') => #rpc::ext(m, raw).map(|e| (Self::#ext(e), #rpc::ParamsForm::Object)),
                    m => ::core::result::Result::Err(#rpc::unknown_method(m, #word)),
                }
            }

            /// Encodes the payload; `form` says how an empty payload is written.
            pub fn encode(&self, form: #rpc::ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                // Without the `unstable` feature a side may have only extensions.
                let _ = form;
                match self {
                    #(#encodes)*
                    Self::#ext(e) => ::core::result::Result::Ok(e.params.clone()),
                }
            }

            /// Writes the payload as the member `key` of a message being
            /// serialized, as [`Self::encode`] would (used by `Message`'s
            /// `Serialize`, which streams instead of building a `Value`).
            #[doc(hidden)]
            pub fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: #rpc::ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                // Without the `unstable` feature a side may have only extensions.
                let _ = form;
                match self {
                    #(#writes)*
                    Self::#ext(e) => #rpc::write_raw_payload(map, key, e.params.as_ref(), required),
                }
            }
        }

        #streamed_impl
        #payload_impl

        impl #rpc::SidePayload for #name {
            fn handles(method: &str) -> bool {
                #name::METHODS.contains(&method)
            }
        }

        #(#conversions)*
    }
}

/// The match arms and list entries of a side's enum, one per method.
#[derive(Default)]
struct Arms {
    names: Vec<TokenStream>,
    methods: Vec<TokenStream>,
    decodes: Vec<TokenStream>,
    encodes: Vec<TokenStream>,
    writes: Vec<TokenStream>,
    /// Methods decoded in one pass (`Streamed::decode_from`).
    streamed: Vec<TokenStream>,
    /// Methods with a direct decoder (`json::fast`).
    direct: Vec<TokenStream>,
}

impl Arms {
    fn push(&mut self, m: &Method, paths: &Paths) {
        let (v, fast) = (&m.variant, &paths.fast);
        let rpc = {
            let rt = &paths.runtime;
            quote!(#rt::rpc)
        };
        let name = Literal::string(&m.method);
        let mode = match m.null {
            NullMode::Value => quote!(Value),
            NullMode::Empty => quote!(Empty),
            NullMode::Refuse => quote!(Refuse),
        };
        self.names.push(quote! { #name, });
        self.methods.push(quote! { Self::#v(_) => #name, });
        self.decodes.push(quote! { #name => #rpc::payload(method, raw, #rpc::NullMode::#mode, Self::#v), });
        self.encodes.push(quote! { Self::#v(p) => #rpc::encode_payload(p, form), });
        self.writes.push(quote! { Self::#v(p) => #rpc::write_payload(map, key, p, form, required), });
        if m.streams {
            self.streamed.push(quote! { #name => ::serde::Deserialize::deserialize(d).map(Self::#v), });
            if m.direct {
                self.direct.push(quote! { #name => #fast::FromJson::read(r).map(Self::#v), });
            }
        }
    }
}

/// `Streamed` for a side's requests or notifications (responses are typed
/// by their request, not streamed); the methods with a direct decoder are
/// also read by it.
fn streamed_impl(name: &Ident, streamed: &[TokenStream], direct: &[TokenStream], paths: &Paths) -> TokenStream {
    let (rt, fast) = (&paths.runtime, &paths.fast);
    let read_direct = (!direct.is_empty()).then(|| {
        quote! {
            #[allow(clippy::match_single_binding)]
            fn read_direct<'de>(method: &str, r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
                match method {
                    #(#direct)*
                    _ => ::core::result::Result::Err(#fast::Bail),
                }
            }
        }
    });
    quote! {
        impl #rt::rpc::Streamed for #name {
            // Without the `unstable` feature a side may have no method
            // decoded in one pass: the match is then its fallback alone.
            #[allow(clippy::match_single_binding)]
            fn decode_from<'de, D: ::serde::Deserializer<'de>>(method: &str, d: D) -> ::core::result::Result<Self, D::Error> {
                let _ = &d;
                match method {
                    #(#streamed)*
                    _ => ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom("decoded the usual way")),
                }
            }
            #read_direct
        }
    }
}

/// `runtime::rpc::Payload` for a dispatch enum, through its inherent methods.
fn payload_impl(name: &Ident, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    quote! {
        impl #rt::rpc::Payload for #name {
            fn method(&self) -> &str {
                #name::method(self)
            }
            fn decode(
                method: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, #rt::rpc::ParamsForm), #rt::rpc::DispatchError> {
                #name::decode(method, raw)
            }
        }
    }
}

/// The impls of a version's enum: `method`, `side`, `decode` (choosing the
/// side from the method), `encode`, `write_payload`, the runtime's
/// `Streamed` (requests and notifications), `Payload` and `EncodePayload`,
/// and `From` each side's enum.
pub fn version_enum_impls(e: &VersionEnum, paths: &Paths) -> TokenStream {
    let (name, ext) = (&e.name, &e.extension);
    let rt = &paths.runtime;
    let rpc = quote!(#rt::rpc);
    let word = e.kind.word();
    let variants: Vec<&Ident> = e.members.iter().map(|m| &m.variant).collect();
    let inner: Vec<&TokenStream> = e.members.iter().map(|m| &m.inner).collect();
    let arg = match e.kind {
        DispatchKind::Response => quote!(request_method),
        _ => quote!(method),
    };
    let side_docs = e.members.iter().map(|m| format!(" Any {word} of [`{}`].", m.inner.to_string().replace(' ', "")));
    let streamed_impl = (e.kind != DispatchKind::Response).then(|| version_streamed_impl(e, paths));
    let payload_impl = payload_impl(name, paths);
    quote! {
        impl #name {
            /// The wire method name.
            pub fn method(&self) -> &str {
                match self {
                    #( Self::#variants(v) => v.method(), )*
                    Self::#ext(e) => &e.method,
                }
            }

            /// The side that handles the method, if known.
            pub fn side(&self) -> ::core::option::Option<#rpc::Side> {
                match self {
                    #( Self::#variants(_) => ::core::option::Option::Some(#inner::SIDE), )*
                    Self::#ext(_) => ::core::option::Option::None,
                }
            }

            /// Decodes a payload, choosing the side from the method.
            pub fn decode(
                #arg: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, #rpc::ParamsForm), #rpc::DispatchError> {
                #(
                    if #inner::METHODS.contains(&#arg) {
                        return #inner::decode(#arg, raw).map(|(v, f)| (Self::#variants(v), f));
                    }
                )*
                if #arg.starts_with('_') {
                    return #rpc::ext(#arg, raw).map(|e| (Self::#ext(e), #rpc::ParamsForm::Object));
                }
                ::core::result::Result::Err(#rpc::unknown_method(#arg, #word))
            }

            /// Encodes the payload; `form` says how an empty payload is written.
            pub fn encode(&self, form: #rpc::ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                // A version may have no method of this kind, only extensions.
                let _ = form;
                match self {
                    #( Self::#variants(v) => v.encode(form), )*
                    Self::#ext(e) => ::core::result::Result::Ok(e.params.clone()),
                }
            }

            /// Writes the payload as the member `key` of a message being
            /// serialized, as [`Self::encode`] would.
            #[doc(hidden)]
            pub fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: #rpc::ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                match self {
                    #( Self::#variants(v) => v.write_payload(map, key, form, required), )*
                    Self::#ext(e) => #rpc::write_raw_payload(map, key, e.params.as_ref(), required),
                }
            }
        }

        #streamed_impl
        #payload_impl

        impl #rpc::EncodePayload for #name {
            fn encode(&self, form: #rpc::ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                #name::encode(self, form)
            }
            fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: #rpc::ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                #name::write_payload(self, map, key, form, required)
            }
        }

        #(
            impl ::core::convert::From<#inner> for #name {
                #[doc = #side_docs]
                fn from(value: #inner) -> Self { Self::#variants(value) }
            }
        )*
    }
}

/// `Streamed` for a version's requests or notifications: each method is
/// passed on to the side that handles it; those with a direct decoder by
/// one `match` on their names (a search of each side's `METHODS` cost more
/// than the rest of the envelope).
fn version_streamed_impl(e: &VersionEnum, paths: &Paths) -> TokenStream {
    let (rt, fast, name) = (&paths.runtime, &paths.fast, &e.name);
    let variants: Vec<&Ident> = e.members.iter().map(|m| &m.variant).collect();
    let inner: Vec<&TokenStream> = e.members.iter().map(|m| &m.inner).collect();
    let direct: Vec<&Member> = e.members.iter().filter(|m| !m.direct.is_empty()).collect();
    let read_direct = (!direct.is_empty()).then(|| {
        let arms = direct.iter().map(|m| {
            let (names, di, dv) = (&m.direct, &m.inner, &m.variant);
            quote!(#(#names)|* => <#di as #rt::rpc::Streamed>::read_direct(method, r).map(Self::#dv),)
        });
        quote! {
            #[inline(always)]
            fn read_direct<'de>(method: &str, r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
                match method {
                    #(#arms)*
                    _ => ::core::result::Result::Err(#fast::Bail),
                }
            }
        }
    });
    quote! {
        impl #rt::rpc::Streamed for #name {
            fn decode_from<'de, D: ::serde::Deserializer<'de>>(method: &str, deserializer: D) -> ::core::result::Result<Self, D::Error> {
                #(
                    if #inner::METHODS.contains(&method) {
                        return <#inner as #rt::rpc::Streamed>::decode_from(method, deserializer).map(Self::#variants);
                    }
                )*
                let _ = &deserializer;
                ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom("decoded the usual way"))
            }
            #read_direct
        }
    }
}

//! IR -> the typed JSON-RPC dispatch module (`v1::rpc`, `v2::rpc`).
//!
//! Dispatch comes from `x-method` and `x-side`, never from trying untagged
//! variants: per handling side, one enum of requests, one of notifications and
//! one of responses, each decoded from `(method, params)` (responses from the
//! request's method), plus version-wide `Request`/`Notification`/`Response`
//! and the JSON-RPC `Message`.

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::emit::Gate;
use crate::model::{Def, Kind, MethodKind, Side};

/// One method payload known to the module.
struct Entry<'a> {
    def: &'a Def,
    gate: Gate,
    method: String,
    variant: Ident,
}

fn side_name(side: Side) -> String {
    side.as_str().to_upper_camel_case()
}

/// The name of a per-side dispatch enum, which says the direction and never
/// collides with a schema name (the schema's `AgentRequest` is what an agent
/// sends; the requests an agent handles are `RequestToAgent`):
/// `RequestTo{Side}`, `NotificationTo{Side}` for what a side handles and
/// `ResponseFrom{Side}` for what it answers; `$/` methods (either side) use
/// `AnySide`.
pub fn enum_name(side: Side, kind: MethodKind) -> String {
    let side = if side == Side::Protocol { "AnySide".to_owned() } else { side_name(side) };
    match kind {
        MethodKind::Request => format!("RequestTo{side}"),
        MethodKind::Notification => format!("NotificationTo{side}"),
        MethodKind::Response => format!("ResponseFrom{side}"),
    }
}

/// The items every `rpc` module declares besides the per-side enums.
pub const FIXED_NAMES: &[&str] = &[
    "Request",
    "Notification",
    "Response",
    "Message",
    "DispatchError",
    "DispatchErrorKind",
    "ExtMethod",
    "ParamsForm",
    "Side",
];

/// Every item name the `rpc` module of these definitions declares.
pub fn item_names(defs: &[(&Def, Gate)]) -> Vec<String> {
    let mut out: Vec<String> = FIXED_NAMES.iter().map(|n| (*n).to_owned()).collect();
    for (d, _) in defs {
        if let Some(m) = &d.method {
            let name = enum_name(m.side, m.kind);
            if !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

fn kind_name(kind: MethodKind) -> &'static str {
    match kind {
        MethodKind::Request => "Request",
        MethodKind::Response => "Response",
        MethodKind::Notification => "Notification",
    }
}

/// `session/prompt` -> `SessionPrompt`, `$/cancel_request` -> `CancelRequest`.
fn variant_name(method: &str) -> Ident {
    let words = method.replace(['/', '$', '.', '-'], "_");
    Ident::new(&words.to_upper_camel_case(), Span::call_site())
}

/// How a payload treats an omitted or `null` params/result.
fn null_mode(def: &Def, all: &BTreeMap<&str, &Def>, rt: &TokenStream) -> TokenStream {
    let mut d = def;
    while let Kind::Alias(target) = &d.kind {
        match all.get(target.as_str()) {
            Some(t) => d = t,
            None => break,
        }
    }
    match &d.kind {
        Kind::Any => quote!(#rt::rpc::NullMode::Value),
        Kind::Struct(s) if s.flatten.is_none() && s.fields.iter().all(|f| !f.required) => {
            quote!(#rt::rpc::NullMode::Empty)
        }
        _ => quote!(#rt::rpc::NullMode::Refuse),
    }
}

/// The `rpc` module for one version. `defs` are the version's top-level
/// definitions with the gate each is emitted under.
///
/// `runtime` is the path of the bindings' runtime module (`crate::runtime`
/// inside the bindings, `::acp_bindings::runtime` for fixtures). A definition
/// whose stable and unstable shapes differ comes twice, once per gate; each
/// entry is resolved against the definitions of its own schema.
pub fn module(defs: &[(&Def, Gate)], runtime: &str) -> TokenStream {
    let rt: TokenStream = runtime.parse().expect("runtime path parses");
    let rt = &rt;
    let in_schema = |unstable: bool| -> BTreeMap<&str, &Def> {
        defs.iter().filter(|(_, g)| g.in_build(unstable)).map(|(d, _)| (d.name.as_str(), *d)).collect()
    };
    let (stable_defs, unstable_defs) = (in_schema(false), in_schema(true));
    let mut groups: BTreeMap<(Side, MethodKind), Vec<Entry>> = BTreeMap::new();
    for (def, gate) in defs {
        let Some(m) = &def.method else { continue };
        groups.entry((m.side, m.kind)).or_default().push(Entry {
            def,
            gate: *gate,
            method: m.name.clone(),
            variant: variant_name(&m.name),
        });
    }
    let mut items = Vec::new();
    for ((side, kind), entries) in &groups {
        items.push(side_enum(*side, *kind, entries, (&stable_defs, &unstable_defs), rt));
    }
    for kind in [MethodKind::Request, MethodKind::Notification, MethodKind::Response] {
        let sides: Vec<Side> = groups.keys().filter(|(_, k)| *k == kind).map(|(s, _)| *s).collect();
        items.push(version_enum(kind, &sides, rt));
    }
    items.push(message(rt));
    quote! {
        /// Typed JSON-RPC dispatch for this version, generated from `x-method` and `x-side`.
        ///
        /// Enums are per side and say the direction: `RequestToAgent` holds the
        /// requests an agent handles, `ResponseFromAgent` the responses it sends
        /// (`AnySide` for `$/` methods, which either side handles). Methods starting
        /// with `_` decode to an `Extension` variant that keeps the raw params; any
        /// other unknown method is an error.
        pub mod rpc {
            // Re-exported for users; a schema without requests may not use them all.
            #[allow(unused_imports)]
            pub use #rt::rpc::{DispatchError, DispatchErrorKind, ExtMethod, ParamsForm, Side};
            #(#items)*
        }
    }
}

fn side_enum(
    side: Side,
    kind: MethodKind,
    entries: &[Entry],
    (stable, unstable): (&BTreeMap<&str, &Def>, &BTreeMap<&str, &Def>),
    rt: &TokenStream,
) -> TokenStream {
    let name = format_ident!("{}", enum_name(side, kind));
    let side_variant = format_ident!("{}", side_name(side));
    let kind_lower = kind_name(kind).to_lowercase();
    let doc = format!(" The {kind_lower}s handled by the `{side}` side (`x-side: {side}`).");
    let mut variants = Vec::new();
    let mut methods = Vec::new();
    let mut names = Vec::new();
    let mut decodes = Vec::new();
    let mut encodes = Vec::new();
    for e in entries {
        let (v, cfg) = (&e.variant, e.gate.cfg());
        let ty = Ident::new(&e.def.rust_name, Span::call_site());
        let m = Literal::string(&e.method);
        let vdoc = format!(" `{}`: [`super::{}`].", e.method, e.def.rust_name);
        let mode = null_mode(e.def, if e.gate == Gate::Unstable { unstable } else { stable }, rt);
        variants.push(quote! { #cfg #[doc = #vdoc] #v(super::#ty), });
        methods.push(quote! { #cfg Self::#v(_) => #m, });
        names.push(quote! { #cfg #m, });
        decodes.push(quote! {
            #cfg #m => #rt::rpc::payload(#m, raw, #mode).map(|(p, f)| (Self::#v(p), f)),
        });
        encodes.push(quote! { #cfg Self::#v(p) => #rt::rpc::encode_payload(p, form), });
    }
    let (arg, arg_doc) = match kind {
        MethodKind::Response => (quote!(request_method), "the method of the request it answers"),
        _ => (quote!(method), "its method"),
    };
    let decode_doc = format!(" Decodes a {kind_lower} payload from {arg_doc} and the raw JSON (`None` when omitted).");
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
            /// A method starting with `_` (an extension), with its raw payload.
            Extension(ExtMethod),
        }

        impl #name {
            /// The side that handles these methods.
            pub const SIDE: Side = Side::#side_variant;
            /// Every method this enum knows.
            pub const METHODS: &'static [&'static str] = &[#(#names)*];

            /// The wire method name.
            pub fn method(&self) -> &str {
                match self {
                    #(#methods)*
                    Self::Extension(e) => &e.method,
                }
            }

            #[doc = #decode_doc]
            pub fn decode(
                #arg: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, ParamsForm), DispatchError> {
                match #arg {
                    #(#decodes)*
                    m if m.starts_with('_') => #rt::rpc::ext(m, raw).map(|e| (Self::Extension(e), ParamsForm::Object)),
                    m => ::core::result::Result::Err(#rt::rpc::unknown_method(m, #kind_lower)),
                }
            }

            /// Encodes the payload; `form` says how an empty payload is written.
            pub fn encode(&self, form: ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                // Without the `unstable` feature a side may have only extensions.
                let _ = form;
                match self {
                    #(#encodes)*
                    Self::Extension(e) => ::core::result::Result::Ok(e.params.clone()),
                }
            }
        }
    }
}

fn version_enum(kind: MethodKind, sides: &[Side], rt: &TokenStream) -> TokenStream {
    let name = format_ident!("{}", kind_name(kind));
    let kind_lower = kind_name(kind).to_lowercase();
    let doc = format!(" Any {kind_lower} of this version, whichever side handles it.");
    let variants: Vec<Ident> = sides.iter().map(|s| format_ident!("{}", side_name(*s))).collect();
    let inner: Vec<Ident> = sides.iter().map(|s| format_ident!("{}", enum_name(*s, kind))).collect();
    let vdocs = sides.iter().map(|s| format!(" A {kind_lower} handled by the `{s}` side."));
    let arg = match kind {
        MethodKind::Response => quote!(request_method),
        _ => quote!(method),
    };
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum #name {
            #( #[doc = #vdocs] #variants(#inner), )*
            /// A method starting with `_` (an extension): its side is not known.
            Extension(ExtMethod),
        }

        impl #name {
            /// The wire method name.
            pub fn method(&self) -> &str {
                match self {
                    #( Self::#variants(v) => v.method(), )*
                    Self::Extension(e) => &e.method,
                }
            }

            /// The side that handles the method, if known.
            pub fn side(&self) -> ::core::option::Option<Side> {
                match self {
                    #( Self::#variants(_) => ::core::option::Option::Some(#inner::SIDE), )*
                    Self::Extension(_) => ::core::option::Option::None,
                }
            }

            /// Decodes a payload, choosing the side from the method.
            pub fn decode(
                #arg: &str,
                raw: ::core::option::Option<&::serde_json::value::RawValue>,
            ) -> ::core::result::Result<(Self, ParamsForm), DispatchError> {
                #(
                    if #inner::METHODS.contains(&#arg) {
                        return #inner::decode(#arg, raw).map(|(v, f)| (Self::#variants(v), f));
                    }
                )*
                if #arg.starts_with('_') {
                    return #rt::rpc::ext(#arg, raw).map(|e| (Self::Extension(e), ParamsForm::Object));
                }
                ::core::result::Result::Err(#rt::rpc::unknown_method(#arg, #kind_lower))
            }

            /// Encodes the payload; `form` says how an empty payload is written.
            pub fn encode(&self, form: ParamsForm) -> ::core::result::Result<::core::option::Option<::serde_json::Value>, ::serde_json::Error> {
                // A version may have no method of this kind, only extensions.
                let _ = form;
                match self {
                    #( Self::#variants(v) => v.encode(form), )*
                    Self::Extension(e) => ::core::result::Result::Ok(e.params.clone()),
                }
            }
        }
    }
}

fn message(rt: &TokenStream) -> TokenStream {
    quote! {
        /// A JSON-RPC 2.0 message of this version, with its payload typed.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Message {
            /// A request.
            Request {
                /// The request id (never `null` in v2).
                id: super::RequestId,
                /// The typed params.
                request: Request,
                /// How `params` was written.
                form: ParamsForm,
            },
            /// A notification.
            Notification {
                /// The typed params.
                notification: Notification,
                /// How `params` was written.
                form: ParamsForm,
            },
            /// A success response.
            Response {
                /// The id of the request it answers.
                id: super::RequestId,
                /// The typed result.
                response: Response,
                /// How `result` was written.
                form: ParamsForm,
            },
            /// An error response; only it may carry a `null` id.
            Error {
                /// The id of the request it answers, `None` for `null`.
                id: ::core::option::Option<super::RequestId>,
                /// The error.
                error: super::Error,
            },
        }

        impl Message {
            /// Decodes one message. `request_method` gives the method of the
            /// request a response answers (responses are typed by it).
            pub fn decode(
                text: &str,
                request_method: impl ::core::ops::FnOnce(&super::RequestId) -> ::core::option::Option<::std::string::String>,
            ) -> ::core::result::Result<Self, DispatchError> {
                use #rt::rpc::{decode, DispatchErrorKind, RawMessage};
                let raw = RawMessage::parse(text)?;
                let invalid = |pointer: &str, message: &str| DispatchError::new(DispatchErrorKind::InvalidMessage, pointer, message);
                match (&raw.method, raw.id, raw.result, raw.error) {
                    (::core::option::Option::Some(method), ::core::option::Option::Some(id), ::core::option::Option::None, ::core::option::Option::None) => {
                        let id: super::RequestId = decode(id.get()).map_err(|e| e.under("/id"))?;
                        let (request, form) = Request::decode(method, raw.params).map_err(|e| e.under("/params"))?;
                        ::core::result::Result::Ok(Message::Request { id, request, form })
                    }
                    (::core::option::Option::Some(method), ::core::option::Option::None, ::core::option::Option::None, ::core::option::Option::None) => {
                        let (notification, form) = Notification::decode(method, raw.params).map_err(|e| e.under("/params"))?;
                        ::core::result::Result::Ok(Message::Notification { notification, form })
                    }
                    (::core::option::Option::None, ::core::option::Option::Some(id), ::core::option::Option::Some(result), ::core::option::Option::None) => {
                        let id: super::RequestId = decode(id.get()).map_err(|e| e.under("/id"))?;
                        let method = request_method(&id).ok_or_else(|| DispatchError::new(
                            DispatchErrorKind::UnknownRequest, "/id", "a response whose request is not known",
                        ))?;
                        let (response, form) = Response::decode(&method, ::core::option::Option::Some(result)).map_err(|e| e.under("/result"))?;
                        ::core::result::Result::Ok(Message::Response { id, response, form })
                    }
                    (::core::option::Option::None, ::core::option::Option::Some(id), ::core::option::Option::None, ::core::option::Option::Some(error)) => {
                        let id: ::core::option::Option<super::RequestId> = decode(id.get()).map_err(|e| e.under("/id"))?;
                        let error: super::Error = decode(error.get()).map_err(|e| e.under("/error"))?;
                        ::core::result::Result::Ok(Message::Error { id, error })
                    }
                    (::core::option::Option::None, ::core::option::Option::None, _, _) => ::core::result::Result::Err(invalid("/id", "a response without an `id`")),
                    _ => ::core::result::Result::Err(invalid("", "not a request, notification or response: check `method`, `id`, `result` and `error`")),
                }
            }

            /// The message as JSON.
            pub fn to_value(&self) -> ::core::result::Result<::serde_json::Value, ::serde_json::Error> {
                let (method, id, params, result, error) = match self {
                    Message::Request { id, request, form } => (
                        ::core::option::Option::Some(::serde_json::Value::from(request.method())),
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        request.encode(*form)?,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    ),
                    Message::Notification { notification, form } => (
                        ::core::option::Option::Some(::serde_json::Value::from(notification.method())),
                        ::core::option::Option::None,
                        notification.encode(*form)?,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                    ),
                    Message::Response { id, response, form } => (
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        ::core::option::Option::None,
                        ::core::option::Option::Some(response.encode(*form)?.unwrap_or(::serde_json::Value::Null)),
                        ::core::option::Option::None,
                    ),
                    Message::Error { id, error } => (
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(id)?),
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                        ::core::option::Option::Some(::serde_json::to_value(error)?),
                    ),
                };
                let mut map = ::serde_json::Map::new();
                map.insert("jsonrpc".into(), "2.0".into());
                for (k, v) in [("id", id), ("method", method), ("params", params), ("result", result), ("error", error)] {
                    if let ::core::option::Option::Some(v) = v {
                        map.insert(k.into(), v);
                    }
                }
                ::core::result::Result::Ok(::serde_json::Value::Object(map))
            }

            /// The id of a request or response.
            pub fn id(&self) -> ::core::option::Option<&super::RequestId> {
                match self {
                    Message::Request { id, .. } | Message::Response { id, .. } => ::core::option::Option::Some(id),
                    Message::Error { id, .. } => id.as_ref(),
                    Message::Notification { .. } => ::core::option::Option::None,
                }
            }
        }

        impl ::serde::Serialize for Message {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                self.to_value().map_err(<S::Error as ::serde::ser::Error>::custom)?.serialize(serializer)
            }
        }
    }
}

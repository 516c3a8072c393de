//! IR -> the typed JSON-RPC dispatch module (`v1::rpc`, `v2::rpc`).
//!
//! Dispatch comes from `x-method` and `x-side`, never from trying untagged
//! variants: per handling side, one enum of requests, one of notifications and
//! one of responses, each decoded from `(method, params)` (responses from the
//! request's method), plus version-wide `Request`/`Notification`/`Response`
//! and the JSON-RPC `Message`.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use crate::emit::Gate;
use crate::model::{Def, MethodKind, Side};
use crate::plan::{kind_name, Payloads};

mod message;
mod peer;

/// One method payload known to the module.
struct Entry<'a> {
    def: &'a Def,
    gate: Gate,
    method: String,
    variant: Ident,
}

pub use crate::plan::item_names::{enum_name, generator_items as item_names, side_name};

/// The dispatch enums' entries, as the plan grouped the payloads
/// ([`Payloads::groups`]), each with its definition.
fn groups<'a>(defs: &[(&'a Def, Gate)], payloads: &Payloads) -> BTreeMap<(Side, MethodKind), Vec<Entry<'a>>> {
    let def_of = |name: &str, gate: Gate| -> &'a Def {
        defs.iter()
            .find(|(d, g)| d.name == name && *g == gate)
            .map(|(d, _)| *d)
            .expect("the plan groups these definitions")
    };
    payloads
        .groups()
        .iter()
        .map(|(key, members)| {
            let entries = members
                .iter()
                .map(|(name, gate)| {
                    let def = def_of(name, *gate);
                    let method = def.method.as_ref().expect("a grouped payload has a method").name.clone();
                    Entry { def, gate: *gate, variant: variant_name(&method), method }
                })
                .collect();
            (*key, entries)
        })
        .collect()
}

/// `session/prompt` -> `SessionPrompt`, `$/cancel_request` -> `CancelRequest`.
/// Lowering has checked that the name is a Rust identifier
/// ([`crate::model::method_variant`]).
fn variant_name(method: &str) -> Ident {
    Ident::new(&crate::model::method_variant(method), Span::call_site())
}

/// The `NullMode` a payload is decoded with, as the plan decided it.
fn null_mode(mode: crate::plan::NullMode) -> TokenStream {
    match mode {
        crate::plan::NullMode::Value => quote!(NullMode::Value),
        crate::plan::NullMode::Empty => quote!(NullMode::Empty),
        crate::plan::NullMode::Refuse => quote!(NullMode::Refuse),
    }
}

/// `From<payload>` into `target` for every entry the plan converts into it
/// ([`Payloads::converting_into`]); `wrap` turns the entry's variant into
/// the target's value.
fn payload_conversions(
    target: &Ident,
    entries: &[&Entry<'_>],
    payloads: &Payloads,
    wrap: impl Fn(&Entry<'_>) -> TokenStream,
) -> Vec<TokenStream> {
    let converting = payloads.converting_into(&target.to_string());
    entries
        .iter()
        .filter(|e| converting.iter().any(|(name, gate)| *name == e.def.name && *gate == e.gate))
        .map(|e| {
            let (cfg, ty) = (e.gate.cfg(), Ident::new(&e.def.rust_name, Span::call_site()));
            let value = wrap(e);
            let doc = format!(" A `{}` payload.", e.method);
            quote! {
                #cfg
                impl ::core::convert::From<super::#ty> for #target {
                    #[doc = #doc]
                    fn from(payload: super::#ty) -> Self { #value }
                }
            }
        })
        .collect()
}

/// The `rpc` module for one version. `defs` are the version's top-level
/// definitions with the gate each is emitted under.
///
/// `runtime` is the path of the bindings' runtime module (`crate::runtime`
/// inside the bindings, `::acp_bindings::runtime` for fixtures). A definition
/// whose stable and unstable shapes differ comes twice, once per gate; each
/// entry is resolved against the definitions of its own schema.
pub fn module(defs: &[(&Def, Gate)], payloads: &Payloads, runtime: &str) -> TokenStream {
    let rt: TokenStream = runtime.parse().expect("runtime path parses");
    let rt = &rt;
    let groups = groups(defs, payloads);
    let mut items = Vec::new();
    for ((side, kind), entries) in &groups {
        items.push(side_enum(*side, *kind, entries, payloads, rt));
    }
    for kind in [MethodKind::Request, MethodKind::Notification, MethodKind::Response] {
        let sides: Vec<(Side, &[Entry<'_>])> =
            groups.iter().filter(|((_, k), _)| *k == kind).map(|((s, _), e)| (*s, e.as_slice())).collect();
        items.push(version_enum(kind, &sides, payloads, rt));
    }
    items.push(message::message(rt));
    if payloads.peers() {
        let any_side = groups.contains_key(&(Side::Protocol, MethodKind::Notification));
        for side in peer::SIDES {
            items.push(peer::peer(side, any_side, rt));
        }
        if !any_side {
            items.push(peer::no_any_side(rt));
        }
    }
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
            #[allow(unused_imports)]
            use #rt::rpc::{encode_payload, payload, write_payload, NullMode};
            #(#items)*
        }
    }
}

fn side_enum(
    side: Side,
    kind: MethodKind,
    entries: &[Entry<'_>],
    payloads: &Payloads,
    rt: &TokenStream,
) -> TokenStream {
    let name = format_ident!("{}", enum_name(side, kind));
    let side_variant = format_ident!("{}", side_name(side));
    let kind_lower = kind_name(kind).to_lowercase();
    let doc = format!(" The {kind_lower}s handled by the `{side}` side (`x-side: {side}`).");
    let (arg, arg_doc) = match kind {
        MethodKind::Response => (quote!(method), "`method`, the method of the request it answers,"),
        _ => (quote!(method), "its method"),
    };
    let SideArms { variants, methods, names, decodes, encodes, writes, streamed, direct } =
        side_arms(entries, payloads, (rt, &arg));
    let decode_doc = format!(" Decodes a {kind_lower} payload from {arg_doc} and the raw JSON (`None` when omitted).");
    let all: Vec<&Entry<'_>> = entries.iter().collect();
    let conversions = payload_conversions(&name, &all, payloads, |e| {
        let v = &e.variant;
        quote!(Self::#v(payload))
    });
    let streamed_impl = streamed_impl(&name, kind, (&streamed, &direct), rt);
    let side_payload = peer::side_payload_impl(&name, rt);
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

            /// Writes the payload as the member `key` of a message being
            /// serialized, as [`Self::encode`] would (used by `Message`'s
            /// `Serialize`, which streams instead of building a `Value`).
            #[doc(hidden)]
            pub fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                // Without the `unstable` feature a side may have only extensions.
                let _ = form;
                match self {
                    #(#writes)*
                    Self::Extension(e) => #rt::rpc::write_raw_payload(map, key, e.params.as_ref(), required),
                }
            }
        }

        #streamed_impl
        #side_payload

        #(#conversions)*
    }
}

/// The match arms and list entries of a side's enum, one per method.
#[derive(Default)]
struct SideArms {
    variants: Vec<TokenStream>,
    methods: Vec<TokenStream>,
    names: Vec<TokenStream>,
    decodes: Vec<TokenStream>,
    encodes: Vec<TokenStream>,
    writes: Vec<TokenStream>,
    /// Methods decoded in one pass (`Streamed::decode_from`).
    streamed: Vec<TokenStream>,
    /// Methods with a direct decoder (`json::fast`).
    direct: Vec<TokenStream>,
}

/// `arg` is the name of the decoder's method parameter.
fn side_arms(entries: &[Entry<'_>], payloads: &Payloads, (rt, arg): (&TokenStream, &TokenStream)) -> SideArms {
    let mut a = SideArms::default();
    let fast = crate::emit::direct::fast_path(rt);
    for e in entries {
        let (v, cfg) = (&e.variant, e.gate.cfg());
        let ty = Ident::new(&e.def.rust_name, Span::call_site());
        let m = Literal::string(&e.method);
        let vdoc = format!(" `{}`: [`super::{}`].", e.method, e.def.rust_name);
        let planned = payloads.of_gate(&e.def.name, e.gate);
        let mode = null_mode(planned.null_mode);
        a.variants.push(quote! { #cfg #[doc = #vdoc] #v(super::#ty), });
        a.methods.push(quote! { #cfg Self::#v(_) => #m, });
        a.names.push(quote! { #cfg #m, });
        a.decodes.push(quote! { #cfg #m => payload(#arg, raw, #mode, Self::#v), });
        a.encodes.push(quote! { #cfg Self::#v(p) => encode_payload(p, form), });
        a.writes.push(quote! { #cfg Self::#v(p) => write_payload(map, key, p, form, required), });
        if planned.streams {
            a.streamed.push(quote! {
                #cfg #m => ::serde::Deserialize::deserialize(d).map(Self::#v),
            });
            if crate::plan::is_direct_method(&e.method) {
                a.direct.push(quote! {
                    #cfg #m => #fast::FromJson::read(r).map(Self::#v),
                });
            }
        }
    }
    a
}

/// `Streamed` for a side's requests or notifications (responses are typed
/// by their request, not streamed); the methods with a direct decoder are
/// also read by it.
fn streamed_impl(
    name: &Ident,
    kind: MethodKind,
    (streamed, direct): (&[TokenStream], &[TokenStream]),
    rt: &TokenStream,
) -> Option<TokenStream> {
    let fast = crate::emit::direct::fast_path(rt);
    // The methods with a direct decoder (`json::fast`) are also read by it.
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
    (kind != MethodKind::Response).then(|| {
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
    })
}

fn version_enum(
    kind: MethodKind,
    groups: &[(Side, &[Entry<'_>])],
    payloads: &Payloads,
    rt: &TokenStream,
) -> TokenStream {
    let sides: Vec<Side> = groups.iter().map(|(s, _)| *s).collect();
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
    let conversions = version_conversions(&name, groups, payloads);
    let side_docs = sides.iter().map(|s| format!(" Any {kind_lower} handled by the `{s}` side."));
    let streamed_impl = version_streamed_impl(&name, kind, groups, (&inner, &variants), rt);
    let payload_impl = message::version_payload_impl(&name, rt);
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

            /// Writes the payload as the member `key` of a message being
            /// serialized, as [`Self::encode`] would.
            #[doc(hidden)]
            pub fn write_payload<M: ::serde::ser::SerializeMap>(&self, map: &mut M, key: &'static str, form: ParamsForm, required: bool) -> ::core::result::Result<(), M::Error> {
                match self {
                    #( Self::#variants(v) => v.write_payload(map, key, form, required), )*
                    Self::Extension(e) => #rt::rpc::write_raw_payload(map, key, e.params.as_ref(), required),
                }
            }
        }

        #streamed_impl
        #payload_impl

        #(
            impl ::core::convert::From<#inner> for #name {
                #[doc = #side_docs]
                fn from(value: #inner) -> Self { Self::#variants(value) }
            }
        )*

        #(#conversions)*
    }
}

/// `From` each payload type for a version's enum, through its side's enum.
fn version_conversions(name: &Ident, groups: &[(Side, &[Entry<'_>])], payloads: &Payloads) -> Vec<TokenStream> {
    let entries: Vec<&Entry<'_>> = groups.iter().flat_map(|(_, e)| e.iter()).collect();
    payload_conversions(name, &entries, payloads, |e| {
        let m = e.def.method.as_ref().expect("an entry is a method payload");
        let (side, inner, v) =
            (format_ident!("{}", side_name(m.side)), format_ident!("{}", enum_name(m.side, m.kind)), &e.variant);
        quote!(Self::#side(#inner::#v(payload)))
    })
}

/// `Streamed` for a version's requests or notifications: each method is
/// passed on to the side that handles it.
fn version_streamed_impl(
    name: &Ident,
    kind: MethodKind,
    groups: &[(Side, &[Entry<'_>])],
    (inner, variants): (&[Ident], &[Ident]),
    rt: &TokenStream,
) -> Option<TokenStream> {
    // Passed on to the side whose methods include one with a direct decoder.
    let fast = crate::emit::direct::fast_path(rt);
    // One `match` on the method names with a direct decoder (a search of
    // each side's `METHODS` cost more than the rest of the envelope).
    let direct_sides: Vec<(Vec<&str>, (&Ident, &Ident))> = groups
        .iter()
        .zip(inner.iter().zip(variants))
        .map(|((_, es), iv)| {
            let names = es.iter().filter(|e| crate::plan::is_direct_method(&e.method)).map(|e| e.method.as_str());
            (names.collect::<Vec<&str>>(), iv)
        })
        .filter(|(names, _)| !names.is_empty())
        .collect();
    let read_direct = (!direct_sides.is_empty()).then(|| {
        let arms = direct_sides.iter().map(|(names, (di, dv))| {
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
    (kind != MethodKind::Response).then(|| {
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
    })
}

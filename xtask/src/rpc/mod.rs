//! IR -> the typed JSON-RPC dispatch module (`v1::rpc`, `v2::rpc`).
//!
//! Dispatch comes from `x-method` and `x-side`, never from trying untagged
//! variants: per handling side, one enum of requests, one of notifications and
//! one of responses, each decoded from `(method, params)` (responses from the
//! request's method), plus version-wide `Request`/`Notification`/`Response`
//! and the JSON-RPC `Message`. This module writes the enums with the plan's
//! rules as `#[acp(...)]` attributes; `#[derive(AcpDispatch)]` writes their
//! code (`acp-bindings-codegen`'s `dispatch`), the same for every version.

use std::collections::BTreeMap;

use proc_macro2::{Ident, Span, TokenStream};
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
            #(#items)*
        }
    }
}

/// A side's enum: one variant per method, with the method's name and rules
/// as the plan decided them; `#[derive(AcpDispatch)]` writes the code.
fn side_enum(
    side: Side,
    kind: MethodKind,
    entries: &[Entry<'_>],
    payloads: &Payloads,
    rt: &TokenStream,
) -> TokenStream {
    let name = format_ident!("{}", enum_name(side, kind));
    let side_variant = side_name(side);
    let kind_lower = kind_name(kind).to_lowercase();
    let doc = format!(" The {kind_lower}s handled by the `{side}` side (`x-side: {side}`).");
    let converting = payloads.converting_into(&name.to_string());
    let variants = entries.iter().map(|e| {
        let (v, cfg) = (&e.variant, e.gate.cfg());
        let ty = Ident::new(&e.def.rust_name, Span::call_site());
        let vdoc = format!(" `{}`: [`super::{}`].", e.method, e.def.rust_name);
        let planned = payloads.of_gate(&e.def.name, e.gate);
        let m = &e.method;
        let mut attrs = vec![quote!(method = #m)];
        let null = match planned.null_mode {
            crate::plan::NullMode::Value => Some("value"),
            crate::plan::NullMode::Empty => Some("empty"),
            crate::plan::NullMode::Refuse => None,
        };
        if let Some(null) = null {
            attrs.push(quote!(null = #null));
        }
        if planned.streams {
            attrs.push(quote!(streams));
            if crate::plan::is_direct_method(&e.method) {
                attrs.push(quote!(direct));
            }
        }
        if converting.iter().any(|(n, g)| *n == e.def.name && *g == e.gate) {
            attrs.push(quote!(from));
        }
        quote! { #cfg #[doc = #vdoc] #[acp(#(#attrs),*)] #v(super::#ty), }
    });
    let kind_word = kind_lower.as_str();
    let attrs = vec![quote!(dispatch = #kind_word), quote!(side = #side_variant)];
    let ext_doc = " A method starting with `_` (an extension), with its raw payload.";
    dispatch_enum((&doc, &name), attrs, variants.collect(), ext_doc, rt)
}

/// A dispatch enum deriving `AcpDispatch` under `attrs`: `variants`, then
/// the extension variant (documented by `ext_doc`).
fn dispatch_enum(
    (doc, name): (&str, &Ident),
    attrs: Vec<TokenStream>,
    variants: Vec<TokenStream>,
    ext_doc: &str,
    rt: &TokenStream,
) -> TokenStream {
    let paths = acp_bindings_codegen::Paths::of_runtime(&rt.to_string());
    let derive = crate::emit::derive_path(&paths, "AcpDispatch");
    let acp = crate::emit::derived_item_attr(&paths, attrs);
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, PartialEq, #derive)]
        #acp
        #[non_exhaustive]
        pub enum #name {
            #(#variants)*
            #[doc = #ext_doc]
            #[acp(extension)]
            Extension(ExtMethod),
        }
    }
}

/// A version's enum: one variant per side, holding that side's enum, with
/// the side's methods read by a direct decoder; `#[derive(AcpDispatch)]`
/// writes the code. The `From` conversions of the payloads, through their
/// side, are written here (the derive sees the sides, not their payloads).
fn version_enum(
    kind: MethodKind,
    groups: &[(Side, &[Entry<'_>])],
    payloads: &Payloads,
    rt: &TokenStream,
) -> TokenStream {
    let name = format_ident!("{}", kind_name(kind));
    let kind_lower = kind_name(kind).to_lowercase();
    let doc = format!(" Any {kind_lower} of this version, whichever side handles it.");
    let variants = groups.iter().map(|(side, entries)| {
        let (variant, inner) = (format_ident!("{}", side_name(*side)), format_ident!("{}", enum_name(*side, kind)));
        let vdoc = format!(" A {kind_lower} handled by the `{side}` side.");
        // One `match` on the names with a direct decoder, in the version's
        // single pass (a search of each side's `METHODS` cost more than the rest of the envelope).
        let direct: Vec<&str> =
            entries.iter().filter(|e| crate::plan::is_direct_method(&e.method)).map(|e| e.method.as_str()).collect();
        let acp = (!direct.is_empty()).then(|| quote!(#[acp(direct = [#(#direct),*])]));
        quote! { #[doc = #vdoc] #acp #variant(#inner), }
    });
    let conversions = version_conversions(&name, groups, payloads);
    let kind_word = kind_lower.as_str();
    let ext_doc = " A method starting with `_` (an extension): its side is not known.";
    let item = dispatch_enum((&doc, &name), vec![quote!(dispatch = #kind_word)], variants.collect(), ext_doc, rt);
    quote! {
        #item

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

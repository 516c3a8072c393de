//! `#[derive(AcpDispatch)]`: a typed JSON-RPC dispatch enum's attributes
//! read into `acp-bindings-codegen`'s description ([`SideEnum`] or
//! [`VersionEnum`]), whose impls it renders.
//!
//! - On the enum: `#[acp(dispatch = "request")]` (or `"notification"`,
//!   `"response"`), and `side = "Agent"` (a `runtime::rpc::Side` variant)
//!   for the enum of one side; without `side` the enum is a version's, each
//!   variant holding a side's enum.
//! - On a side's variant `V(Payload)`: `method = "session/prompt"`, `null =
//!   "refuse"` (or `"empty"`, `"value"`: how an omitted or `null` payload
//!   reads), `streams` (decoded in `Message::decode`'s single pass),
//!   `direct` (also by its direct decoder), `from` (`From<Payload>`).
//! - On a version's variant `V(SideEnum)`: `direct = ["session/update"]`,
//!   the side's methods read by their direct decoder.
//! - `extension` on the one variant of `ExtMethod` that keeps a method
//!   starting with `_`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

use acp_bindings_codegen::dispatch::{DispatchKind, Member, Method, NullMode, SideEnum, VersionEnum};

pub fn derive(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let syn::Data::Enum(data) = &input.data else {
        return Err(vec![syn::Error::new(input.ident.span(), "`AcpDispatch` is for an enum of methods")]);
    };
    let (kind, side) = container(input, &mut errors);
    let Some(kind) = kind else {
        // A `dispatch` that is none of the three has said so already.
        if errors.is_empty() {
            errors.push(syn::Error::new(
                input.ident.span(),
                "a dispatch enum says what it holds: `#[acp(dispatch = \"request\")]`",
            ));
        }
        return Err(errors);
    };
    let mut extension = None;
    let (mut methods, mut members) = (Vec::new(), Vec::new());
    for v in &data.variants {
        let payload = match &v.fields {
            syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => f.unnamed[0].ty.to_token_stream(),
            _ => {
                errors.push(syn::Error::new(v.span(), "a dispatch variant holds one value: `Variant(Payload)`"));
                continue;
            }
        };
        let a = match variant_attrs(v, side.is_some()) {
            Ok(a) => a,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        if a.extension {
            if extension.replace(v.ident.clone()).is_some() {
                errors.push(syn::Error::new(v.ident.span(), "a dispatch enum has one `extension` variant"));
            }
        } else if side.is_some() {
            let Some(method) = a.method else {
                errors.push(syn::Error::new(
                    v.ident.span(),
                    "a side's variant names its method (`#[acp(method = \"...\")]`) or is the `extension`",
                ));
                continue;
            };
            methods.push(Method {
                variant: v.ident.clone(),
                payload,
                method,
                null: a.null,
                streams: a.streams,
                direct: a.direct,
                from: a.from,
            });
        } else {
            members.push(Member { variant: v.ident.clone(), inner: payload, direct: a.direct_methods });
        }
    }
    let Some(extension) = extension else {
        errors.push(syn::Error::new(
            input.ident.span(),
            "a dispatch enum keeps methods starting with `_` in its `#[acp(extension)]` variant of `ExtMethod`",
        ));
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let name = input.ident.clone();
    Ok(match side {
        Some(side) => {
            acp_bindings_codegen::dispatch::side_enum_impls(&SideEnum { name, kind, side, methods, extension }, &paths)
        }
        None => {
            acp_bindings_codegen::dispatch::version_enum_impls(&VersionEnum { name, kind, members, extension }, &paths)
        }
    })
}

/// The enum's `#[acp(...)]`: what it holds and, for a side's enum, the side.
fn container(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> (Option<DispatchKind>, Option<syn::Ident>) {
    let (mut kind, mut side) = (None, None);
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        let r = attr.parse_nested_meta(|meta| {
            if crate::root::is_crate(&meta)? {
            } else if meta.path.is_ident("dispatch") {
                let s = meta.value()?.parse::<LitStr>()?;
                kind = Some(match s.value().as_str() {
                    "request" => DispatchKind::Request,
                    "notification" => DispatchKind::Notification,
                    "response" => DispatchKind::Response,
                    other => {
                        return Err(syn::Error::new(
                            s.span(),
                            format!("`dispatch` is \"request\", \"notification\" or \"response\", not {other:?}"),
                        ))
                    }
                });
            } else if meta.path.is_ident("side") {
                side = Some(meta.value()?.parse::<LitStr>()?.parse::<syn::Ident>()?);
            } else {
                return Err(meta.error("unknown `acp` key on a dispatch enum (expected `dispatch`, `side` or `crate`)"));
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    (kind, side)
}

/// A variant's `#[acp(...)]`.
struct VariantAttrs {
    extension: bool,
    method: Option<String>,
    null: NullMode,
    streams: bool,
    direct: bool,
    from: bool,
    /// A version's variant: its side's methods with a direct decoder.
    direct_methods: Vec<String>,
}

fn variant_attrs(v: &syn::Variant, of_side: bool) -> syn::Result<VariantAttrs> {
    let mut a = VariantAttrs {
        extension: false,
        method: None,
        null: NullMode::Refuse,
        streams: false,
        direct: false,
        from: false,
        direct_methods: Vec::new(),
    };
    for attr in v.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("extension") {
                a.extension = true;
            } else if of_side && meta.path.is_ident("method") {
                a.method = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if of_side && meta.path.is_ident("null") {
                let s = meta.value()?.parse::<LitStr>()?;
                a.null = match s.value().as_str() {
                    "refuse" => NullMode::Refuse,
                    "empty" => NullMode::Empty,
                    "value" => NullMode::Value,
                    other => {
                        return Err(syn::Error::new(
                            s.span(),
                            format!("`null` is \"refuse\", \"empty\" or \"value\", not {other:?}"),
                        ))
                    }
                };
            } else if of_side && meta.path.is_ident("streams") {
                a.streams = true;
            } else if of_side && meta.path.is_ident("direct") {
                a.direct = true;
            } else if of_side && meta.path.is_ident("from") {
                a.from = true;
            } else if !of_side && meta.path.is_ident("direct") {
                let list: syn::ExprArray = meta.value()?.parse()?;
                for e in list.elems {
                    match e {
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => a.direct_methods.push(s.value()),
                        other => return Err(syn::Error::new(other.span(), "a method name, as a string")),
                    }
                }
            } else if of_side {
                return Err(meta.error(
                    "unknown `acp` key on a side's method (expected `method`, `null`, `streams`, `direct`, `from` or `extension`)",
                ));
            } else {
                return Err(meta.error("unknown `acp` key on a version's variant (expected `direct` or `extension`)"));
            }
            Ok(())
        })?;
    }
    Ok(a)
}

//! `#[derive(AcpDeserialize)]`: serde's `Deserialize` for a struct that keeps
//! the properties it does not name, read from the struct's own attributes.
//!
//! The struct says everything the decoder does, field by field:
//!
//! - `#[serde(rename = "wire")]` and `#[serde(alias = "other")]`: the names a
//!   property is read under (the Rust name without them);
//! - `#[serde(default)]`: the property may be missing (the field's
//!   `Default`); without it a missing property is an error, also for an
//!   `Option` or `Nullable` field (a required property that may be `null`);
//! - `#[acp(read = Reader)]`: the field's decoding rule, a reader type of
//!   `acp_bindings::runtime::read`; without it the field's type decodes
//!   itself;
//! - `additional_properties` (`#[serde(flatten)]`, an
//!   `acp_bindings::runtime::Extra`): every other property, with its value, in
//!   the order it came;
//! - on the struct, `#[acp(direct)]`: it also gets a direct decoder
//!   (`json::fast::FromJson`, which `acp_bindings::json::from_str` tries
//!   first), and `#[acp(forbidden = "name")]`: a property that must be absent.
//!
//! The bindings' generator writes its structs this way; the decoders come
//! from `acp-bindings-codegen`, as the generator's own and `AcpPatch`'s do.
//! `#[cfg]` on a field needs nothing: the derive sees the fields of the
//! build it is compiled in.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

/// The field that keeps the other properties.
const REST: &str = "additional_properties";

/// The decoder of `input`, or every mistake in its attributes.
pub fn derive(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let (direct, forbidden) = container(input, &mut errors);
    let mut params = Vec::new();
    for p in &input.generics.params {
        match p {
            syn::GenericParam::Type(t) => params.push(t.ident.clone()),
            other => errors.push(syn::Error::new(
                other.span(),
                "`AcpDeserialize` takes type parameters only (each must be `DeserializeOwned`)",
            )),
        }
    }
    let named = match &input.data {
        syn::Data::Struct(syn::DataStruct { fields: syn::Fields::Named(n), .. }) => Some(n),
        _ => {
            errors.push(syn::Error::new(
                input.ident.span(),
                "`AcpDeserialize` needs a struct with named fields (one per property) and `additional_properties`",
            ));
            None
        }
    };
    let mut fields = Vec::new();
    let mut rest = false;
    for f in named.iter().flat_map(|n| &n.named) {
        let ident = f.ident.clone().expect("named field");
        if ident == REST {
            rest = true;
            continue;
        }
        fields.extend(field(f, ident, &mut errors));
    }
    if named.is_some() && !rest {
        errors.push(syn::Error::new(
            input.ident.span(),
            "`AcpDeserialize` keeps unknown properties: add `#[serde(flatten)] additional_properties: \
             acp_bindings::runtime::Extra`",
        ));
    }
    if direct && !params.is_empty() {
        errors.push(syn::Error::new(input.generics.span(), "`#[acp(direct)]` needs a struct without type parameters"));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let object = acp_bindings_codegen::Object {
        ident: input.ident.clone(),
        params,
        name: input.ident.to_string(),
        fields,
        forbidden,
        direct,
    };
    let paths = acp_bindings_codegen::Paths {
        runtime: quote!(::acp_bindings::runtime),
        fast: quote!(::acp_bindings::json::fast),
    };
    Ok(acp_bindings_codegen::deserialize(&object, &paths))
}

/// The struct's `#[acp(direct)]` and `#[acp(forbidden = "name")]`; the
/// `serde` attributes of a struct that change how serde's derive would read
/// it are refused (a property's name is its field's own `rename`).
fn container(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> (bool, Vec<String>) {
    let (mut direct, mut forbidden) = (false, Vec::new());
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let r = attr.parse_nested_meta(|meta| {
            let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
            if matches!(
                key.as_str(),
                "rename_all"
                    | "deny_unknown_fields"
                    | "default"
                    | "transparent"
                    | "from"
                    | "try_from"
                    | "tag"
                    | "untagged"
            ) {
                return Err(meta.error(format!(
                    "`AcpDeserialize` does not read `#[serde({key} ..)]` on the struct: name each property with its \
                     field's `#[serde(rename = \"..\")]`; unknown properties are kept in `additional_properties`"
                )));
            }
            if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|m| {
                    if m.input.peek(syn::Token![=]) {
                        let _: syn::Expr = m.value()?.parse()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        let r = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("direct") {
                direct = true;
            } else if meta.path.is_ident("forbidden") {
                forbidden.push(meta.value()?.parse::<LitStr>()?.value());
            } else {
                let what = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                return Err(meta.error(format!(
                    "unknown `acp` attribute `{what}` on an `AcpDeserialize` struct; expected `direct`, `forbidden = \"name\"`"
                )));
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    (direct, forbidden)
}

/// One field's description, from its `serde` and `acp` attributes.
fn field(f: &syn::Field, ident: syn::Ident, errors: &mut Vec<syn::Error>) -> Option<acp_bindings_codegen::FieldRead> {
    let name = ident.to_string();
    let mut wire = name.strip_prefix("r#").unwrap_or(&name).to_owned();
    let (mut aliases, mut default, mut reader) = (Vec::new(), false, None);
    let n = errors.len();
    for attr in &f.attrs {
        if attr.path().is_ident("serde") {
            let r = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                match key.as_str() {
                    "rename" => wire = meta.value()?.parse::<LitStr>()?.value(),
                    "alias" => aliases.push(meta.value()?.parse::<LitStr>()?.value()),
                    "default" if !meta.input.peek(syn::Token![=]) => default = true,
                    "default" | "flatten" | "deserialize_with" | "with" | "skip" | "skip_deserializing" | "borrow"
                    | "bound" => {
                        let why = match key.as_str() {
                            "default" => "a missing property takes its field type's `Default` (`#[serde(default)]`)",
                            "flatten" => "only `additional_properties` is flattened: it keeps every property the struct does not name",
                            "deserialize_with" | "with" => "a decoding rule is a reader type: `#[acp(read = Reader)]`",
                            "skip" | "skip_deserializing" => "every field but `additional_properties` is a property",
                            _ => "the struct's type parameters are `DeserializeOwned`",
                        };
                        return Err(meta.error(format!(
                            "`AcpDeserialize` does not read `#[serde({key} ..)]` on a property: {why}"
                        )));
                    }
                    // Serialization's own attributes (`skip_serializing_if`, ...).
                    _ if meta.input.peek(syn::Token![=]) => {
                        let _: syn::Expr = meta.value()?.parse()?;
                    }
                    _ if meta.input.peek(syn::token::Paren) => meta.parse_nested_meta(|m| {
                        let _: Option<syn::Expr> =
                            if m.input.peek(syn::Token![=]) { Some(m.value()?.parse()?) } else { None };
                        Ok(())
                    })?,
                    _ => {}
                }
                Ok(())
            });
            errors.extend(r.err());
        } else if attr.path().is_ident("acp") {
            let r = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("read") {
                    reader = Some(meta.value()?.parse::<syn::Type>()?);
                    Ok(())
                } else {
                    let what = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                    Err(meta.error(format!(
                        "unknown `acp` attribute `{what}` on an `AcpDeserialize` field; expected `read = Reader`"
                    )))
                }
            });
            errors.extend(r.err());
        }
    }
    (errors.len() == n).then(|| acp_bindings_codegen::FieldRead {
        ident,
        wire,
        aliases,
        ty: {
            let t = &f.ty;
            quote!(#t)
        },
        reader: reader.map(|r| quote!(#r)),
        required: !default,
        cfg: TokenStream::new(),
    })
}

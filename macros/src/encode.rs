//! `#[derive(AcpSerialize)]`: serde's `Serialize` and the direct encoder of
//! `acp_bindings::json` for a struct that keeps the properties it does not
//! name, read from the same `serde` attributes serde's derive reads.
//!
//! The struct's known fields are written in order under their wire names
//! (`#[serde(rename = "..")]`, or the struct's `#[serde(rename_all = "..")]`
//! applied to the field's name), each left out when its
//! `#[serde(skip_serializing_if = "path")]` says so (`#[serde(skip)]` and
//! `#[serde(skip_serializing)]` leave it out always), and then
//! `additional_properties` (`#[serde(flatten)]`, an
//! `acp_bindings::runtime::Extra`). That is what serde's derive writes, so
//! every serializer gets the same as before; `acp_bindings::json` gets it
//! from the direct encoder, which writes each key as pre-quoted bytes.
//! Attributes that would make serde's derive write something else
//! (`serialize_with`, `transparent`, `tag`, ...) are refused, each at its
//! span.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

use acp_bindings_codegen::case::Case;

use crate::object::{key_of, named_fields, skip_value, REST};

/// serde's container attributes that change what serde's derive writes.
const REFUSED_ON_STRUCT: &[&str] =
    &["transparent", "into", "tag", "content", "untagged", "remote", "rename_all_fields", "bound"];

/// serde's field attributes that change how a value is written.
const REFUSED_ON_FIELD: &[&str] = &["serialize_with", "with", "getter", "flatten"];

/// The encoders of `input`, or every mistake in its attributes.
pub fn derive(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let rename_all = container(input, &mut errors);
    if !input.generics.params.is_empty() || input.generics.where_clause.is_some() {
        errors.push(syn::Error::new(input.generics.span(), "`AcpSerialize` needs a struct without type parameters"));
    }
    let named = named_fields(input, "AcpSerialize", &mut errors);
    let mut fields = Vec::new();
    let mut rest = false;
    for f in named.iter().flat_map(|n| &n.named) {
        let ident = f.ident.clone().expect("named field");
        if ident == REST {
            rest = true;
            continue;
        }
        fields.extend(field(f, ident, rename_all, &mut errors));
    }
    if named.is_some() && !rest {
        errors.push(syn::Error::new(
            input.ident.span(),
            "`AcpSerialize` writes the unknown properties back after the known ones: add `#[serde(flatten)] \
             additional_properties: acp_bindings::runtime::Extra`",
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let object = acp_bindings_codegen::ObjectWrite { ident: input.ident.clone(), fields };
    Ok(acp_bindings_codegen::object_serialize(&object, &paths))
}

/// The struct's `#[serde(rename_all = "..")]`; the container attributes
/// that change what serde's derive writes are refused.
fn container(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> Option<Case> {
    let mut rename_all = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let r = attr.parse_nested_meta(|meta| {
            let key = key_of(&meta);
            if key == "rename_all" && meta.input.peek(syn::Token![=]) {
                let s: LitStr = meta.value()?.parse()?;
                match Case::parse(&s.value()) {
                    Some(case) => rename_all = Some(case),
                    None => errors.push(syn::Error::new(s.span(), "not one of serde's `rename_all` conventions")),
                }
                return Ok(());
            }
            if key == "rename_all" || REFUSED_ON_STRUCT.contains(&key.as_str()) {
                errors.push(meta.error(format!(
                    "`AcpSerialize` does not read `#[serde({key} ..)]` on the struct: it writes one object of the \
                     fields under their names, then `additional_properties`"
                )));
            }
            skip_value(&meta)
        });
        errors.extend(r.err());
    }
    rename_all
}

/// What a field's `serde` attributes say about writing it.
#[derive(Default)]
struct FieldAttrs {
    wire: Option<String>,
    skip_if: Option<syn::ExprPath>,
    skipped: bool,
}

impl FieldAttrs {
    fn serde(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Vec<syn::Error>) -> syn::Result<()> {
        let key = key_of(meta);
        match key.as_str() {
            "rename" if meta.input.peek(syn::token::Paren) => {
                meta.parse_nested_meta(|m| {
                    if m.path.is_ident("serialize") {
                        self.wire = Some(m.value()?.parse::<LitStr>()?.value());
                        Ok(())
                    } else {
                        skip_value(&m)
                    }
                })?;
            }
            "rename" => self.wire = Some(meta.value()?.parse::<LitStr>()?.value()),
            "skip_serializing_if" => {
                let path = meta.value()?.parse::<LitStr>()?;
                match path.parse::<syn::ExprPath>() {
                    Ok(p) => self.skip_if = Some(p),
                    Err(_) => errors.push(syn::Error::new(path.span(), "`skip_serializing_if` names a function")),
                }
            }
            "skip" | "skip_serializing" => self.skipped = true,
            k if REFUSED_ON_FIELD.contains(&k) => {
                errors.push(meta.error(format!(
                    "`AcpSerialize` does not read `#[serde({key} ..)]` on a property: each field's type writes its \
                     value, and only `additional_properties` is flattened"
                )));
                skip_value(meta)?;
            }
            // Decoding only (`default`, `alias`, `deserialize_with`, ...).
            _ => skip_value(meta)?,
        }
        Ok(())
    }
}

/// One field's description, or `None` when it is never written (or wrong).
fn field(
    f: &syn::Field,
    ident: syn::Ident,
    rename_all: Option<Case>,
    errors: &mut Vec<syn::Error>,
) -> Option<acp_bindings_codegen::FieldWrite> {
    let mut a = FieldAttrs::default();
    let n = errors.len();
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let r = attr.parse_nested_meta(|meta| a.serde(&meta, errors));
        errors.extend(r.err());
    }
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let wire = a.wire.unwrap_or_else(|| rename_all.map_or_else(|| name.to_owned(), |c| c.field(name)));
    let skip_if = a.skip_if.map(|p| quote::quote!(#p));
    (errors.len() == n && !a.skipped).then_some(acp_bindings_codegen::FieldWrite { ident, wire, skip_if })
}

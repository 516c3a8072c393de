//! `#[derive(AcpDeserialize)]`: serde's `Deserialize` for a struct that keeps
//! the properties it does not name, read from the struct's own attributes.
//!
//! The struct says everything the decoder does, field by field:
//!
//! - `#[serde(rename = "wire")]` and `#[serde(alias = "other")]`: the names a
//!   property is read under (the Rust name without them, or the struct's
//!   `#[serde(rename_all = "camelCase")]` applied to it, as serde does);
//! - `#[serde(default)]`: the property may be missing (the field's
//!   `Default`); without it a missing property is an error, also for an
//!   `Option` or `Nullable` field (a required property that may be `null`);
//! - `#[acp(read = Reader)]`: the field's decoding rule, a reader type of
//!   `acp_bindings::runtime::read`; without it the field's type decodes
//!   itself, except free-form JSON (see [`free_json`]), which is read by
//!   `runtime::read::Json` so that a repeated member name in it is refused
//!   as everywhere else in the bindings;
//! - `additional_properties` (`#[serde(flatten)]`, an
//!   `acp_bindings::runtime::Extra`): every other property, with its value, in
//!   the order it came;
//! - on the struct, `#[acp(direct)]`: it also gets a direct decoder
//!   (`json::fast::FromJson`, which `acp_bindings::json::from_str` tries
//!   first), and `#[acp(forbidden = "name")]`: a property that must be absent.
//!
//! The bindings' generator writes its structs this way; the decoders come
//! from `acp-bindings-codegen`, as `AcpPatch`'s do. `#[cfg]` on a field needs
//! nothing: a derive sees the struct with its `cfg`s applied.
//!
//! Serialization is serde's derive, reading the same `serde` attributes; one
//! that would make the two disagree is refused, and every mistake is
//! reported, each at its span.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

use acp_bindings_codegen::case::Case;

/// The field that keeps the other properties.
pub(crate) const REST: &str = "additional_properties";

/// serde's attributes of a field that only concern serialization: accepted
/// (those this derive reads have arms of their own in `FieldAttrs::serde`).
const SERDE_SERIALIZING_KEYS: &[&str] = &["serialize_with", "getter"];

/// serde's attributes of a struct that change how serde's derive would read
/// it: refused.
const SERDE_REFUSED_ON_STRUCT: &[&str] = &[
    "rename_all_fields",
    "deny_unknown_fields",
    "default",
    "transparent",
    "from",
    "try_from",
    "tag",
    "content",
    "untagged",
    "remote",
    "bound",
];

/// The decoder of `input`, or every mistake in its attributes.
pub fn derive(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let Container { direct, forbidden, rename_all } = container(input, &mut errors);
    let params = params(input, &mut errors);
    let named = named_fields(input, "AcpDeserialize", &mut errors);
    let mut fields = Vec::new();
    let mut rest = false;
    for f in named.iter().flat_map(|n| &n.named) {
        let ident = f.ident.clone().expect("named field");
        if ident == REST {
            rest = true;
            rest_field(f, &mut errors);
            continue;
        }
        fields.extend(field(f, ident, rename_all, &paths, &mut errors));
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
    Ok(acp_bindings_codegen::deserialize(&object, &paths))
}

/// The named fields of a struct, or an error for anything else (`derive`
/// names the derive in it).
pub(crate) fn named_fields<'i>(
    input: &'i DeriveInput,
    derive: &str,
    errors: &mut Vec<syn::Error>,
) -> Option<&'i syn::FieldsNamed> {
    match &input.data {
        syn::Data::Struct(syn::DataStruct { fields: syn::Fields::Named(n), .. }) => Some(n),
        _ => {
            errors.push(syn::Error::new(
                input.ident.span(),
                format!("`{derive}` needs a struct with named fields (one per property) and `additional_properties`"),
            ));
            None
        }
    }
}

/// The struct's type parameters: plain ones only (the impls bound each by
/// `DeserializeOwned`; other bounds are not carried, so they are refused).
fn params(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> Vec<syn::Ident> {
    let mut params = Vec::new();
    for p in &input.generics.params {
        match p {
            syn::GenericParam::Type(t) if t.bounds.is_empty() && t.default.is_none() => params.push(t.ident.clone()),
            other => errors.push(syn::Error::new(
                other.span(),
                "`AcpDeserialize` takes plain type parameters (`T`, each bound by `DeserializeOwned` in the impls \
                 it writes): no lifetimes, const parameters, bounds or defaults",
            )),
        }
    }
    if let Some(w) = &input.generics.where_clause {
        errors
            .push(syn::Error::new(w.span(), "`AcpDeserialize` does not carry a `where` clause to the impls it writes"));
    }
    params
}

/// The key of a nested meta item (`rename` in `rename = ".."`).
pub(crate) fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path.get_ident().map(ToString::to_string).unwrap_or_default()
}

/// Consumes the value of a meta item this derive does not read (`= expr` or
/// `(..)`), so that the items after it are checked too.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|m| skip_value(&m))?;
    }
    Ok(())
}

/// What the struct's own attributes say.
struct Container {
    direct: bool,
    forbidden: Vec<String>,
    /// `#[serde(rename_all = "..")]`: the wire name of a field without a
    /// `rename` of its own, by serde's convention.
    rename_all: Option<Case>,
}

/// The struct's `#[acp(direct)]`, `#[acp(forbidden = "name")]` and
/// `#[serde(rename_all = "..")]`; the other `serde` attributes of a struct
/// that change how serde's derive would read it are refused.
fn container(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> Container {
    let (mut direct, mut forbidden, mut rename_all) = (false, Vec::new(), None);
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
            if key == "rename_all" || SERDE_REFUSED_ON_STRUCT.contains(&key.as_str()) {
                errors.push(meta.error(format!(
                    "`AcpDeserialize` does not read `#[serde({key} ..)]` on the struct: name each property with its \
                     field's `#[serde(rename = \"..\")]`; unknown properties are kept in `additional_properties`"
                )));
            }
            skip_value(&meta)
        });
        errors.extend(r.err());
    }
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        let r = attr.parse_nested_meta(|meta| {
            match key_of(&meta).as_str() {
                "direct" => direct = true,
                "forbidden" => forbidden.push(meta.value()?.parse::<LitStr>()?.value()),
                "crate" => skip_value(&meta)?,
                what => {
                    errors.push(meta.error(format!(
                        "unknown `acp` attribute `{what}` on an `AcpDeserialize` struct; expected `direct`, \
                         `forbidden = \"name\"`, `crate = \"path\"`"
                    )));
                    skip_value(&meta)?;
                }
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    Container { direct, forbidden, rename_all }
}

/// `additional_properties`: flattened, and nothing else said of it.
fn rest_field(f: &syn::Field, errors: &mut Vec<syn::Error>) {
    let mut flatten = false;
    for attr in &f.attrs {
        if attr.path().is_ident("acp") {
            errors.push(syn::Error::new(attr.span(), "`additional_properties` takes no `acp` attribute"));
        } else if attr.path().is_ident("serde") {
            let r = attr.parse_nested_meta(|meta| {
                match key_of(&meta).as_str() {
                    "flatten" => flatten = true,
                    "skip_serializing_if" => skip_value(&meta)?,
                    other => {
                        errors.push(meta.error(format!(
                            "`additional_properties` is `#[serde(flatten)]` and nothing else, not `{other}`"
                        )));
                        skip_value(&meta)?;
                    }
                }
                Ok(())
            });
            errors.extend(r.err());
        }
    }
    if !flatten {
        errors.push(syn::Error::new(
            f.ident.span(),
            "`additional_properties` needs `#[serde(flatten)]`: the unknown properties are written back beside the \
             known ones, where they were read",
        ));
    }
}

/// What a field's `serde` and `acp` attributes say.
#[derive(Default)]
struct FieldAttrs {
    wire: Option<String>,
    aliases: Vec<String>,
    default: bool,
    skipped_when: Option<proc_macro2::Span>,
    reader: Option<syn::Type>,
}

impl FieldAttrs {
    fn serde(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Vec<syn::Error>) -> syn::Result<()> {
        let key = key_of(meta);
        match key.as_str() {
            "rename" if meta.input.peek(syn::token::Paren) => {
                errors.push(meta.error(
                    "`AcpDeserialize` reads one name: `rename = \"..\"`, not `rename(serialize = .., deserialize = ..)`",
                ));
                return skip_value(meta);
            }
            "rename" => {
                let name = meta.value()?.parse::<LitStr>()?;
                if self.wire.replace(name.value()).is_some() {
                    errors.push(syn::Error::new(name.span(), "`rename` is given twice"));
                }
            }
            "alias" => self.aliases.push(meta.value()?.parse::<LitStr>()?.value()),
            "default" if !meta.input.peek(syn::Token![=]) => self.default = true,
            "skip_serializing_if" | "skip_serializing" => {
                self.skipped_when = Some(meta.path.span());
                skip_value(meta)?;
            }
            k if SERDE_SERIALIZING_KEYS.contains(&k) => skip_value(meta)?,
            _ => {
                let why = match key.as_str() {
                    "default" => "a missing property takes its field type's `Default` (`#[serde(default)]`)",
                    "flatten" => {
                        "only `additional_properties` is flattened: it keeps every property the struct does not name"
                    }
                    "deserialize_with" | "with" => "a decoding rule is a reader type: `#[acp(read = Reader)]`",
                    "skip" | "skip_deserializing" => "every field but `additional_properties` is a property",
                    _ => "it is not one of serde's attributes for serializing a field",
                };
                errors.push(
                    meta.error(format!("`AcpDeserialize` does not read `#[serde({key} ..)]` on a property: {why}")),
                );
                skip_value(meta)?;
            }
        }
        Ok(())
    }

    fn acp(&mut self, meta: &ParseNestedMeta<'_>, errors: &mut Vec<syn::Error>) -> syn::Result<()> {
        if meta.path.is_ident("read") {
            let reader = meta.value()?.parse::<syn::Type>()?;
            if self.reader.replace(reader).is_some() {
                errors.push(meta.error("`read` is given twice: a field has one decoding rule"));
            }
        } else {
            let what = key_of(meta);
            errors.push(meta.error(format!(
                "unknown `acp` attribute `{what}` on an `AcpDeserialize` field; expected `read = Reader`"
            )));
            skip_value(meta)?;
        }
        Ok(())
    }
}

/// One field's description, from its `serde` and `acp` attributes.
fn field(
    f: &syn::Field,
    ident: syn::Ident,
    rename_all: Option<Case>,
    paths: &acp_bindings_codegen::Paths,
    errors: &mut Vec<syn::Error>,
) -> Option<acp_bindings_codegen::FieldRead> {
    let mut a = FieldAttrs::default();
    let n = errors.len();
    for attr in &f.attrs {
        let r = if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| a.serde(&meta, errors))
        } else if attr.path().is_ident("acp") {
            attr.parse_nested_meta(|meta| a.acp(&meta, errors))
        } else {
            Ok(())
        };
        errors.extend(r.err());
    }
    if let (Some(span), false) = (a.skipped_when, a.default) {
        errors.push(syn::Error::new(
            span,
            "a property left out when serializing must be `#[serde(default)]`, or it would not decode again: \
             without `default` it is required",
        ));
    }
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let wire = a.wire.unwrap_or_else(|| rename_all.map_or_else(|| name.to_owned(), |c| c.field(name)));
    let ty = &f.ty;
    (errors.len() == n).then(|| acp_bindings_codegen::FieldRead {
        ident,
        wire,
        aliases: a.aliases,
        ty: quote!(#ty),
        reader: a.reader.map(|r| quote!(#r)).or_else(|| {
            free_json(ty).then(|| paths.reader(&acp_bindings_codegen::Reader::Named(acp_bindings_codegen::Named::Json)))
        }),
        required: !a.default,
    })
}

/// Whether `ty` is free-form JSON that `runtime::read::Json` reads: a
/// `Value`, a JSON object (`Map`, `JsonObject`) or a map by name
/// (`BTreeMap`, `HashMap`), also inside `Option`, `Nullable`, `Box` and
/// `Patch`. The type is recognised by the last segment of its path (a
/// derive sees names, not types): a type alias of another name decodes
/// itself, and should name `#[acp(read = runtime::read::Json)]`.
fn free_json(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else { return false };
    let Some(last) = p.path.segments.last() else { return false };
    let inner = || match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    };
    match last.ident.to_string().as_str() {
        "Value" | "JsonObject" | "Map" | "BTreeMap" | "HashMap" => true,
        "Option" | "Nullable" | "Box" | "Patch" => inner().is_some_and(free_json),
        _ => false,
    }
}

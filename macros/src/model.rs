//! Parse and validate: the derive input and its `#[acp(...)]` attributes.

use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Type, Visibility};

/// The validated entity.
pub struct Entity {
    pub vis: Visibility,
    pub name: Ident,
    pub patch: Ident,
    pub strict: bool,
    /// `#[acp(keep_unknown)]`: the patch type keeps the properties it does
    /// not name (an `additional_properties: Extra` field and a generated
    /// `Deserialize`); every field then names its wire key with `rename`.
    pub keep_unknown: bool,
    /// `#[acp(json_reader)]`, written by the bindings' generator (not for
    /// users' structs): the patch type gets a direct decoder for
    /// `acp_bindings::json::from_str` (`json::fast::FromJson`).
    pub json_reader: bool,
    /// `#[acp(declared)]`: the patch struct is written beside the state
    /// struct (by hand, or by the bindings' generator so that the wire types
    /// are in the source); the derive writes everything else for it.
    pub declared: bool,
    /// `#[serde(...)]` attributes of the struct, copied onto the patch type.
    pub serde_attrs: Vec<Attribute>,
    /// The patch type's docs: `#[acp(patch_doc = "..")]`, or else the
    /// struct's own docs repeated.
    pub docs: Vec<proc_macro2::TokenStream>,
    /// `#[non_exhaustive]` on the state struct carries over to the patch type.
    pub non_exhaustive: bool,
    /// Where the expansion finds the runtime (`#[acp(crate = "..")]`).
    pub paths: acp_bindings_codegen::Paths,
    pub fields: Vec<Field>,
}

/// How a field is patched.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Identifies the entity; required on the wire; never patched.
    Key,
    /// `Option<T>`: `null` is `None`.
    Optional,
    /// Any other type (lists included): `null` is `T::default()`.
    Value,
    /// A JSON object map patched per top-level key.
    ByKey,
    /// A type that derives `AcpPatch`: an object patches it field by field.
    Nested,
    /// Required on the wire and replaced by every patch.
    Required,
    /// Not on the wire.
    Skip,
}

pub struct Field {
    pub ident: Ident,
    pub ty: Type,
    /// `T` of `Option<T>` for [`Rule::Optional`].
    pub inner: Option<Type>,
    pub rule: Rule,
    pub skip_invalid_items: bool,
    /// `#[acp(boxed)]`: the patch holds the value boxed (`Patch<Box<T>>`),
    /// so that a large, often absent field does not make every patch large.
    pub boxed: bool,
    /// `#[acp(scalar)]` / `#[acp(any_json)]`: how a lenient value is read
    /// (in place instead of captured and read again).
    pub read: Read,
    pub docs: Vec<Attribute>,
    /// `#[serde(rename = ..)]` and `#[serde(alias = ..)]` of the field.
    pub serde_attrs: Vec<proc_macro2::TokenStream>,
    /// The `rename` value, and the `alias` values.
    pub wire: Option<String>,
    pub aliases: Vec<String>,
}

const FIELD_KEYS: &str =
    "`key`, `required`, `by_key`, `nested`, `skip`, `skip_invalid_items`, `boxed`, `scalar`, `any_json`";

/// How a replaced value is read on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    /// Captured as JSON text, then decoded: a wrong shape anywhere inside is `Keep`.
    Captured,
    /// One JSON scalar (`#[acp(scalar)]`, a type implementing
    /// `acp_bindings::runtime::de::Scalar`): read in place, another JSON type is `Keep`.
    Scalar,
    /// Any JSON (`#[acp(any_json)]`, a type made `From<serde_json::Value>`):
    /// read in place, never a wrong shape.
    AnyJson,
}
const CONTAINER_KEYS: &str =
    "`patch = \"Name\"`, `patch_doc = \"text\"`, `strict`, `keep_unknown`, `declared`, `crate = \"path\"`";

/// The container's `#[acp(..)]` settings.
#[derive(Default)]
struct ContainerAttrs {
    patch: Option<Ident>,
    patch_doc: Option<LitStr>,
    strict: bool,
    keep_unknown: bool,
    json_reader: bool,
    declared: Option<proc_macro2::Span>,
}

/// A field's `#[acp(..)]` settings, before they are checked together.
#[derive(Default)]
struct FieldAttrs {
    rules: Vec<(Rule, proc_macro2::Span)>,
    skip_invalid_items: bool,
    boxed: Option<proc_macro2::Span>,
    read: Option<(Read, proc_macro2::Span)>,
}

impl Entity {
    /// The entity a derive input describes, or every error in it at once.
    pub fn parse(input: &DeriveInput) -> Result<Entity, Vec<syn::Error>> {
        let mut errors = Vec::new();
        let named = named_fields(input, &mut errors);
        if !input.generics.params.is_empty() {
            errors.push(syn::Error::new(
                input.generics.span(),
                "`AcpPatch` does not support generic structs; use concrete field types",
            ));
        }
        let c = container_attrs(input, &mut errors);
        let paths = crate::root::paths(&input.attrs, &mut errors);
        let mut fields = Vec::new();
        let mut key_seen: Option<Ident> = None;
        for f in named.into_iter().flat_map(|n| n.named.iter()) {
            fields.push(Field::parse(f, c.keep_unknown, &mut key_seen, &mut errors));
        }
        if let Some(span) = c.declared {
            declared_checks(span, &c, &fields, &mut errors);
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let name = input.ident.clone();
        // `format_ident!` drops the `r#` of a raw name (`r#type` -> `typePatch`).
        let patch = c.patch.unwrap_or_else(|| quote::format_ident!("{}Patch", name, span = name.span()));
        let serde_attrs = input.attrs.iter().filter(|a| a.path().is_ident("serde")).cloned().collect();
        let docs = match c.patch_doc {
            Some(text) => text
                .value()
                .lines()
                .map(|l| {
                    let line = LitStr::new(&format!(" {l}"), text.span());
                    quote::quote!(#[doc = #line])
                })
                .collect(),
            None => {
                input.attrs.iter().filter(|a| a.path().is_ident("doc")).map(quote::ToTokens::to_token_stream).collect()
            }
        };
        let non_exhaustive = input.attrs.iter().any(|a| a.path().is_ident("non_exhaustive"));
        Ok(Entity {
            vis: input.vis.clone(),
            name,
            patch,
            strict: c.strict,
            keep_unknown: c.keep_unknown,
            json_reader: c.json_reader,
            declared: c.declared.is_some(),
            serde_attrs,
            docs,
            non_exhaustive,
            paths,
            fields,
        })
    }
}

/// What `declared` needs: the declared struct keeps unknown properties (the
/// derive writes its `Deserialize`, which fills `additional_properties`), has
/// no type parameters (so no `nested` field, whose patch type would be one),
/// and is documented where it is written (no `patch_doc`).
fn declared_checks(span: proc_macro2::Span, c: &ContainerAttrs, fields: &[Field], errors: &mut Vec<syn::Error>) {
    if !c.keep_unknown {
        errors.push(syn::Error::new(
            span,
            "`declared` needs `keep_unknown`: the declared patch struct holds `additional_properties: Extra`, and the derive writes its `Deserialize`",
        ));
    }
    if c.patch_doc.is_some() {
        errors
            .push(syn::Error::new(span, "`declared` and `patch_doc` do not go together: document the declared struct"));
    }
    if let Some(f) = fields.iter().find(|f| f.rule == Rule::Nested) {
        errors.push(syn::Error::new(
            f.ident.span(),
            "a `nested` field makes the patch struct generic over its patch type, which `declared` does not support",
        ));
    }
}

/// The named fields of the input, or an error saying what to write instead.
fn named_fields<'i>(input: &'i DeriveInput, errors: &mut Vec<syn::Error>) -> Option<&'i syn::FieldsNamed> {
    match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(n) => Some(n),
            other => {
                errors.push(syn::Error::new(
                    other.span(),
                    "`AcpPatch` needs a struct with named fields (one per wire property); write `struct Name { field: Type, .. }`",
                ));
                None
            }
        },
        Data::Enum(e) => {
            errors.push(syn::Error::new(
                e.enum_token.span,
                "`AcpPatch` derives on the struct that holds an entity's state, not on an enum; put the enum in a field of a struct with named fields",
            ));
            None
        }
        Data::Union(u) => {
            errors
                .push(syn::Error::new(u.union_token.span, "`AcpPatch` needs a struct with named fields, not a union"));
            None
        }
    }
}

/// The container's `#[acp(..)]` attributes.
fn container_attrs(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> ContainerAttrs {
    let mut c = ContainerAttrs::default();
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        let r = attr.parse_nested_meta(|meta| {
            if crate::root::is_crate(&meta)? {
            } else if meta.path.is_ident("patch") {
                let name: LitStr = meta.value()?.parse()?;
                // An error at the string, not a panic, when it is no identifier.
                let ident = name.parse::<Ident>().map_err(|_| {
                    syn::Error::new(
                        name.span(),
                        format!("`patch` names the patch type: `{}` is not a Rust identifier", name.value()),
                    )
                })?;
                c.patch = Some(ident);
            } else if meta.path.is_ident("patch_doc") {
                c.patch_doc = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("strict") {
                c.strict = true;
            } else if meta.path.is_ident("keep_unknown") {
                c.keep_unknown = true;
            } else if meta.path.is_ident("json_reader") {
                c.json_reader = true;
            } else if meta.path.is_ident("declared") {
                c.declared = Some(meta.path.span());
            } else {
                let what = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                return Err(
                    meta.error(format!("unknown `acp` attribute `{what}` on a struct; expected {CONTAINER_KEYS}"))
                );
            }
            Ok(())
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    c
}

/// A field's `#[acp(..)]` attributes.
fn field_attrs(f: &syn::Field, errors: &mut Vec<syn::Error>) -> FieldAttrs {
    let mut a = FieldAttrs::default();
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("acp")) {
        let r = attr.parse_nested_meta(|meta| {
            let rule = if meta.path.is_ident("key") {
                Rule::Key
            } else if meta.path.is_ident("by_key") {
                Rule::ByKey
            } else if meta.path.is_ident("nested") {
                Rule::Nested
            } else if meta.path.is_ident("skip") {
                Rule::Skip
            } else if meta.path.is_ident("required") {
                Rule::Required
            } else if meta.path.is_ident("skip_invalid_items") {
                a.skip_invalid_items = true;
                return Ok(());
            } else if meta.path.is_ident("boxed") {
                a.boxed = Some(meta.path.span());
                return Ok(());
            } else if meta.path.is_ident("scalar") || meta.path.is_ident("any_json") {
                let how = if meta.path.is_ident("scalar") { Read::Scalar } else { Read::AnyJson };
                if a.read.is_some() {
                    return Err(meta.error("a field takes at most one of `scalar`, `any_json`"));
                }
                a.read = Some((how, meta.path.span()));
                return Ok(());
            } else {
                let what = meta.path.get_ident().map(ToString::to_string).unwrap_or_default();
                return Err(meta.error(format!("unknown `acp` attribute `{what}` on a field; expected {FIELD_KEYS}")));
            };
            a.rules.push((rule, meta.path.span()));
            Ok(())
        });
        if let Err(e) = r {
            errors.push(e);
        }
    }
    a
}

/// The field's `#[serde(rename/alias)]`: the attributes to copy, the wire
/// name and the aliases.
fn serde_names(f: &syn::Field) -> (Vec<proc_macro2::TokenStream>, Option<String>, Vec<String>) {
    let mut serde_attrs = Vec::new();
    let (mut wire, mut aliases) = (None, Vec::new());
    for attr in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") || meta.path.is_ident("alias") {
                let path = meta.path.clone();
                let value: LitStr = meta.value()?.parse()?;
                if meta.path.is_ident("rename") {
                    wire = Some(value.value());
                } else {
                    aliases.push(value.value());
                }
                serde_attrs.push(quote::quote!(#path = #value));
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    (serde_attrs, wire, aliases)
}

impl Field {
    /// One field: its attributes checked together (at most one rule, one
    /// key per struct, `boxed` and the read only on replaced values).
    fn parse(f: &syn::Field, keep_unknown: bool, key_seen: &mut Option<Ident>, errors: &mut Vec<syn::Error>) -> Field {
        let ident = f.ident.clone().expect("named field");
        let FieldAttrs { rules, skip_invalid_items, boxed, read } = field_attrs(f, errors);
        if rules.len() > 1 {
            errors.push(syn::Error::new(
                rules[1].1,
                "a field takes at most one of `key`, `required`, `by_key`, `nested`, `skip`",
            ));
        }
        let inner = option_inner(&f.ty);
        let rule = match rules.first() {
            Some((Rule::Key, span)) => {
                if let Some(first) = key_seen {
                    errors.push(syn::Error::new(
                        *span,
                        format!("only one field can be `#[acp(key)]`: the entity is already identified by `{first}`; remove this `key`"),
                    ));
                }
                *key_seen = Some(ident.clone());
                Rule::Key
            }
            Some((Rule::ByKey, _)) => {
                if !is_object_map(&f.ty) {
                    errors.push(syn::Error::new(
                        f.ty.span(),
                        "`#[acp(by_key)]` needs a JSON object map: write `Option<serde_json::Map<String, serde_json::Value>>` (or `Option<Box<..>>`)",
                    ));
                }
                Rule::ByKey
            }
            Some((rule, _)) => *rule,
            None if inner.is_some() => Rule::Optional,
            None => Rule::Value,
        };
        if let Some(span) = boxed {
            if !matches!(rule, Rule::Optional | Rule::Value) {
                errors.push(syn::Error::new(
                    span,
                    "`#[acp(boxed)]` applies to a replaced value (`Option<T>` or `T`), not to a `key`, `required`, `by_key`, `nested` or `skip` field",
                ));
            }
        }
        if let Some((how, span)) = read {
            if !matches!(rule, Rule::Optional | Rule::Value) || skip_invalid_items {
                errors.push(syn::Error::new(
                    span,
                    "`#[acp(scalar)]` and `#[acp(any_json)]` apply to a replaced value (`Option<T>` or `T`), not to a list with `skip_invalid_items` or a `key`, `required`, `by_key`, `nested` or `skip` field",
                ));
            } else if how == Read::Scalar && boxed.is_some() {
                errors.push(syn::Error::new(span, "a `scalar` is small: remove `#[acp(boxed)]`"));
            }
        }
        let docs = f.attrs.iter().filter(|a| a.path().is_ident("doc")).cloned().collect();
        let (serde_attrs, wire, aliases) = serde_names(f);
        if keep_unknown && wire.is_none() && rule != Rule::Skip {
            errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "`#[acp(keep_unknown)]` matches keys by their wire names: write `#[serde(rename = \"...\")]` on `{ident}`"
                ),
            ));
        }
        Field {
            ident,
            ty: f.ty.clone(),
            inner,
            rule,
            skip_invalid_items,
            boxed: boxed.is_some(),
            read: read.map_or(Read::Captured, |(how, _)| how),
            docs,
            serde_attrs,
            wire,
            aliases,
        }
    }
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `Option<Map<..>>`, `Option<Box<Map<..>>>` or the runtime's `JsonObject`.
fn is_object_map(ty: &Type) -> bool {
    let Some(inner) = option_inner(ty) else { return false };
    let unboxed = match &inner {
        Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Box") => {
            match &p.path.segments.last().unwrap().arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) => t.clone(),
                    _ => return false,
                },
                _ => return false,
            }
        }
        t => t.clone(),
    };
    matches!(&unboxed, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Map" || s.ident == "JsonObject"))
}

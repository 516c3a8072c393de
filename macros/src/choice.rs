//! `#[derive(AcpUnion)]` and `#[derive(AcpEnum)]`: an enum's attributes read
//! into `acp-bindings-codegen`'s description of a union or an enum, whose
//! impls it renders.
//!
//! A union (`AcpUnion`):
//!
//! - on the enum: `#[acp(tag = "type")]`, the discriminator (without it the
//!   arms are tried in order, as serde's `untagged`); `lenient_tag`: a
//!   discriminator that is not a string reads as an absent one; `tag_optional`:
//!   `tag()` returns an `Option` even when every arm has a discriminator
//!   (for an enum whose arm without one exists only in some builds);
//!   `rename_all = "snake_case"` (serde's conventions): each variant's
//!   discriminator from its name; `direct`: a direct decoder too;
//! - on a variant: `rename = "value"`; `untagged`: an arm without a
//!   discriminator value (tried when the discriminator is absent or
//!   unknown); `other`: the variant (of `runtime::UnknownVariant`) that keeps
//!   an object no arm names, with `required = "name"`, `check = "name: Type"`
//!   and `reserved = "value"` for what the schema's catch-all arm demands;
//!   `no_from`: no `From` impl for its payload;
//! - a variant's shape says what it carries: `V(T)` (or `V(Box<T>)`), `V`
//!   (the discriminator alone, or `null` untagged), `V { explicit_null: bool }`
//!   (the discriminator absent or `null`).
//!
//! An enum of values (`AcpEnum`): `rename_all`, `rename` and `direct` as
//! above; `#[acp(other)]` on the variant (of `runtime::UnknownString` or
//! `runtime::UnknownInteger`) that keeps a value this version does not know;
//! `#[acp(range = i32)]` on the enum makes it an integer enum, each variant
//! with its `#[acp(value = 1)]`.
//!
//! A derive sees the enum with its `#[cfg]`s applied, so a variant behind a
//! feature needs nothing more.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{DeriveInput, LitStr};

use acp_bindings_codegen::case::Case;
use acp_bindings_codegen::{Arm, ArmPayload, CatchAll, UnionTag, Value};

/// The enum-level attributes.
#[derive(Default)]
struct Container {
    tag: Option<String>,
    lenient_tag: bool,
    tag_optional: bool,
    rename_all: Option<Case>,
    direct: bool,
    range: Option<syn::Ident>,
}

/// A variant's attributes.
#[derive(Default)]
struct VariantAttrs {
    rename: Option<String>,
    untagged: bool,
    other: bool,
    no_from: bool,
    value: Option<i64>,
    reserved: Vec<String>,
    required: Vec<String>,
    checks: Vec<(String, TokenStream)>,
}

fn acp_attrs(attrs: &[syn::Attribute]) -> impl Iterator<Item = &syn::Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("acp"))
}

fn container(input: &DeriveInput, errors: &mut Vec<syn::Error>) -> Container {
    let mut c = Container::default();
    for attr in acp_attrs(&input.attrs) {
        let r = attr.parse_nested_meta(|meta| {
            if crate::root::is_crate(&meta)? {
            } else if meta.path.is_ident("tag") {
                c.tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("lenient_tag") {
                c.lenient_tag = true;
            } else if meta.path.is_ident("tag_optional") {
                c.tag_optional = true;
            } else if meta.path.is_ident("direct") {
                c.direct = true;
            } else if meta.path.is_ident("rename_all") {
                let s: LitStr = meta.value()?.parse()?;
                c.rename_all = Some(Case::parse(&s.value()).ok_or_else(|| {
                    let names: Vec<&str> = Case::ALL.iter().map(|c| c.name()).collect();
                    syn::Error::new(s.span(), format!("unknown convention; one of {}", names.join(", ")))
                })?);
            } else if meta.path.is_ident("range") {
                let ty: syn::Ident = meta.value()?.parse()?;
                const INTS: &[&str] = &["i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128"];
                if !INTS.iter().any(|i| ty == i) {
                    return Err(syn::Error::new(ty.span(), "`range` is a Rust integer type (`i32`, `u64`, ...)"));
                }
                c.range = Some(ty);
            } else {
                return Err(meta.error(
                    "unknown attribute: `tag`, `lenient_tag`, `tag_optional`, `rename_all`, `direct`, `range` or `crate`",
                ));
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    c
}

fn variant_attrs(v: &syn::Variant, errors: &mut Vec<syn::Error>) -> VariantAttrs {
    let mut a = VariantAttrs::default();
    for attr in acp_attrs(&v.attrs) {
        let r = attr.parse_nested_meta(|meta| {
            let string = |meta: &syn::meta::ParseNestedMeta<'_>| -> syn::Result<LitStr> { meta.value()?.parse() };
            if meta.path.is_ident("rename") {
                a.rename = Some(string(&meta)?.value());
            } else if meta.path.is_ident("untagged") {
                a.untagged = true;
            } else if meta.path.is_ident("other") {
                a.other = true;
            } else if meta.path.is_ident("no_from") {
                a.no_from = true;
            } else if meta.path.is_ident("value") {
                a.value = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse()?);
            } else if meta.path.is_ident("reserved") {
                a.reserved.push(string(&meta)?.value());
            } else if meta.path.is_ident("required") {
                a.required.push(string(&meta)?.value());
            } else if meta.path.is_ident("check") {
                let s = string(&meta)?;
                let text = s.value();
                let (name, ty) = text
                    .split_once(':')
                    .ok_or_else(|| syn::Error::new(s.span(), "`check = \"name: Type\"`: a property and its type"))?;
                let ty: syn::Type = syn::parse_str(ty.trim()).map_err(|e| syn::Error::new(s.span(), e))?;
                a.checks.push((name.trim().to_owned(), quote!(#ty)));
            } else {
                return Err(meta.error(
                    "unknown attribute: `rename`, `untagged`, `other`, `no_from`, `value`, `reserved`, `required` or `check`",
                ));
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    a
}

fn variants(input: &DeriveInput, derive: &str, errors: &mut Vec<syn::Error>) -> Vec<syn::Variant> {
    match &input.data {
        syn::Data::Enum(e) => e.variants.iter().cloned().collect(),
        _ => {
            errors.push(syn::Error::new(input.ident.span(), format!("`{derive}` needs an enum")));
            Vec::new()
        }
    }
}

/// The wire name of a variant: its `rename`, else its name by `rename_all`.
fn wire_name(v: &syn::Variant, a: &VariantAttrs, c: &Container) -> String {
    // A raw identifier's `r#` is not part of its name (as in serde).
    let name = syn::ext::IdentExt::unraw(&v.ident).to_string();
    a.rename.clone().unwrap_or_else(|| c.rename_all.unwrap_or(Case::Pascal).variant(&name))
}

/// `T` when `ty` is `Box<T>`.
fn unboxed(ty: &syn::Type) -> Option<TokenStream> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Box" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            syn::GenericArgument::Type(t) => Some(quote!(#t)),
            _ => None,
        },
        _ => None,
    }
}

/// The one field of a tuple variant.
fn single(v: &syn::Variant) -> Option<&syn::Type> {
    match &v.fields {
        syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => Some(&u.unnamed[0].ty),
        _ => None,
    }
}

fn payload(v: &syn::Variant, errors: &mut Vec<syn::Error>) -> Option<ArmPayload> {
    match &v.fields {
        syn::Fields::Unit => Some(ArmPayload::Unit),
        syn::Fields::Named(n)
            if n.named.len() == 1 && n.named[0].ident.as_ref().is_some_and(|i| i == "explicit_null") =>
        {
            Some(ArmPayload::NoTag)
        }
        _ => match single(v) {
            Some(ty) => Some(ArmPayload::Type { ty: quote!(#ty), unboxed: unboxed(ty) }),
            None => {
                errors.push(syn::Error::new(
                    v.span(),
                    "an arm is `Name(Payload)`, `Name` or `Name { explicit_null: bool }`",
                ));
                None
            }
        },
    }
}

/// An error at `v` unless `ok`.
fn require(ok: bool, v: &syn::Variant, message: &str, errors: &mut Vec<syn::Error>) {
    if !ok {
        errors.push(syn::Error::new(v.span(), message));
    }
}

/// `#[derive(AcpUnion)]`.
pub fn derive_union(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let c = container(input, &mut errors);
    if c.range.is_some() {
        errors.push(syn::Error::new(Span::call_site(), "`range` is for `AcpEnum`"));
    }
    if c.tag.is_none() && (c.rename_all.is_some() || c.lenient_tag || c.tag_optional) {
        errors.push(syn::Error::new(Span::call_site(), "`rename_all`, `lenient_tag` and `tag_optional` need `tag`"));
    }
    let mut arms = Vec::new();
    let mut catch_all = None;
    for v in variants(input, "AcpUnion", &mut errors) {
        let a = variant_attrs(&v, &mut errors);
        require(a.value.is_none(), &v, "`value` is for the variants of an integer `AcpEnum`", &mut errors);
        require(
            a.other || (a.reserved.is_empty() && a.required.is_empty() && a.checks.is_empty()),
            &v,
            "`required`, `check` and `reserved` are the checks of the `other` variant",
            &mut errors,
        );
        require(!a.untagged || c.tag.is_some(), &v, "`untagged` is for an arm of a union with `tag`", &mut errors);
        if a.other {
            require(
                single(&v).is_some() && catch_all.is_none() && a.rename.is_none() && !a.untagged,
                &v,
                "one `other` variant, `Name(runtime::UnknownVariant)`, without `rename` or `untagged`",
                &mut errors,
            );
            catch_all = Some(CatchAll {
                variant: v.ident.clone(),
                reserved: a.reserved,
                required: a.required,
                checks: a.checks,
            });
            continue;
        }
        let Some(payload) = payload(&v, &mut errors) else { continue };
        let no_tag = matches!(payload, ArmPayload::NoTag);
        require(
            !no_tag || c.tag.is_some(),
            &v,
            "`{ explicit_null: bool }` is the absent or `null` discriminator: it needs `tag`",
            &mut errors,
        );
        require(
            !(a.untagged && matches!(payload, ArmPayload::Unit)),
            &v,
            "an arm without a discriminator carries a payload: `Name(Payload)`",
            &mut errors,
        );
        let tag = match (&c.tag, &payload) {
            (Some(_), ArmPayload::NoTag) | (None, _) => None,
            (Some(_), _) if a.untagged => None,
            (Some(_), _) => Some(wire_name(&v, &a, &c)),
        };
        require(
            a.rename.is_none() || tag.is_some(),
            &v,
            "`rename` names the arm's discriminator: this arm has none",
            &mut errors,
        );
        arms.push(Arm { variant: v.ident.clone(), tag, payload, no_from: a.no_from });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let union = acp_bindings_codegen::Union {
        ident: input.ident.clone(),
        tag: c.tag.map(|key| UnionTag { key, lenient: c.lenient_tag, optional: c.tag_optional }),
        arms,
        catch_all,
        direct: c.direct,
    };
    Ok(acp_bindings_codegen::union_impls(&union, &paths))
}

/// `#[derive(AcpEnum)]`.
pub fn derive_enum(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let c = container(input, &mut errors);
    if c.tag.is_some() || c.lenient_tag || c.tag_optional {
        errors.push(syn::Error::new(Span::call_site(), "`tag`, `lenient_tag` and `tag_optional` are for `AcpUnion`"));
    }
    if c.range.is_some() && c.rename_all.is_some() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "an integer enum (`range`) has values, not names: no `rename_all`",
        ));
    }
    let unknown = if c.range.is_some() { "runtime::UnknownInteger" } else { "runtime::UnknownString" };
    let mut values = Vec::new();
    let mut fallback = None;
    for v in variants(input, "AcpEnum", &mut errors) {
        let a = variant_attrs(&v, &mut errors);
        let union_only =
            a.untagged || a.no_from || !a.reserved.is_empty() || !a.required.is_empty() || !a.checks.is_empty();
        require(
            !union_only,
            &v,
            "`untagged`, `no_from`, `required`, `check` and `reserved` are for `AcpUnion`",
            &mut errors,
        );
        if a.other {
            require(
                single(&v).is_some() && fallback.is_none() && a.rename.is_none() && a.value.is_none(),
                &v,
                &format!("one `other` variant, `Name({unknown})`, without `rename` or `value`"),
                &mut errors,
            );
            fallback = Some(v.ident.clone());
            continue;
        }
        if !matches!(v.fields, syn::Fields::Unit) {
            errors.push(syn::Error::new(v.span(), "a known value is a unit variant"));
            continue;
        }
        let value = match (&c.range, a.value) {
            (Some(_), Some(n)) => {
                require(a.rename.is_none(), &v, "an integer enum's variant has a `value`, not a `rename`", &mut errors);
                Value::Int(n)
            }
            (Some(_), None) => {
                errors.push(syn::Error::new(v.span(), "an integer enum's variant needs `#[acp(value = N)]`"));
                continue;
            }
            (None, n) => {
                require(
                    n.is_none(),
                    &v,
                    "`value` needs an integer enum: `#[acp(range = i32)]` on the enum",
                    &mut errors,
                );
                Value::Str(wire_name(&v, &a, &c))
            }
        };
        values.push((v.ident.clone(), value));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let e =
        acp_bindings_codegen::Enum { ident: input.ident.clone(), values, fallback, range: c.range, direct: c.direct };
    Ok(acp_bindings_codegen::enum_impls(&e, &paths))
}

/// `#[derive(AcpString)]`: a tuple struct of one `runtime::SmolStr`;
/// `#[acp(not = "value")]` (repeated) refuses a string on decode, with
/// `pointer = "#/..."` naming the schema's `not` in the error;
/// `min_length = N`, `max_length = N` and `pattern = "..."` are the
/// definition's string rules, checked on decode, with `at = "#/..."` naming
/// the definition in the error; `direct`.
pub fn derive_string(input: &DeriveInput) -> Result<TokenStream, Vec<syn::Error>> {
    let mut errors = Vec::new();
    let paths = crate::root::paths(&input.attrs, &mut errors);
    let (mut excluded, mut pointer, mut direct) = (Vec::new(), None, false);
    let (mut min, mut max, mut pattern, mut at) = (None, None, None, None);
    for attr in acp_attrs(&input.attrs) {
        let r = attr.parse_nested_meta(|meta| {
            if crate::root::is_crate(&meta)? {
            } else if meta.path.is_ident("not") {
                excluded.push(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("pointer") {
                pointer = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("direct") {
                direct = true;
            } else if meta.path.is_ident("min_length") {
                min = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse::<usize>()?);
            } else if meta.path.is_ident("max_length") {
                max = Some(meta.value()?.parse::<syn::LitInt>()?.base10_parse::<usize>()?);
            } else if meta.path.is_ident("pattern") {
                pattern = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("at") {
                at = Some(meta.value()?.parse::<LitStr>()?.value());
            } else {
                return Err(meta.error(
                    "unknown attribute: `not`, `pointer`, `min_length`, `max_length`, `pattern`, `at` or `direct`",
                ));
            }
            Ok(())
        });
        errors.extend(r.err());
    }
    let one_field = matches!(&input.data, syn::Data::Struct(syn::DataStruct { fields: syn::Fields::Unnamed(u), .. }) if u.unnamed.len() == 1);
    if !one_field {
        errors.push(syn::Error::new(input.ident.span(), "`AcpString` needs a tuple struct of one `runtime::SmolStr`"));
    }
    if excluded.is_empty() != pointer.is_none() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`not` and `pointer = \"#/...\"` (where the errors point) go together",
        ));
    }
    let ruled = min.is_some() || max.is_some() || pattern.is_some();
    if ruled != at.is_some() {
        errors.push(syn::Error::new(
            Span::call_site(),
            "`min_length`, `max_length` or `pattern` and `at = \"#/...\"` (where the errors point) go together",
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let rule = at.map(|at| acp_bindings_codegen::StrRules { min: min.unwrap_or(0), max, pattern, pointer: at });
    let n = acp_bindings_codegen::StringNewtype {
        ident: input.ident.clone(),
        excluded: pointer.map(|p| (excluded, p)),
        rule,
        direct,
    };
    Ok(acp_bindings_codegen::string_newtype_impls(&n, &paths))
}

#[cfg(test)]
mod tests {
    //! The impls the derives write, as a reviewer reads them: one snapshot
    //! per kind of union and enum the generator emits.

    fn expand(src: &str, derive: fn(&syn::DeriveInput) -> Result<proc_macro2::TokenStream, Vec<syn::Error>>) -> String {
        let input: syn::DeriveInput = syn::parse_str(src).expect("valid input");
        let tokens = derive(&input)
            .unwrap_or_else(|e| panic!("derives: {:?}", e.iter().map(|e| e.to_string()).collect::<Vec<_>>()));
        prettyplease::unparse(&syn::parse2(tokens).expect("the impls parse"))
    }

    #[test]
    fn tagged_union_with_every_kind_of_arm() {
        insta::assert_snapshot!(expand(
            r#"
            #[acp(tag = "type", lenient_tag, rename_all = "snake_case", direct)]
            enum Update {
                AgentMessage(Message),
                #[acp(rename = "plan")]
                PlanUpdate(Box<Plan>),
                Cleared,
                #[acp(untagged)]
                Legacy(String),
                Absent { explicit_null: bool },
                #[acp(other, required = "id", check = "id: Option<u64>", reserved = "future")]
                Other(runtime::UnknownVariant),
            }
            "#,
            super::derive_union,
        ));
    }

    #[test]
    fn closed_tagged_union_and_untagged_union() {
        insta::assert_snapshot!(expand(
            r#"
            #[acp(tag = "kind", rename_all = "kebab-case")]
            enum Closed { FirstArm(A), SecondArm(A) }
            "#,
            super::derive_union,
        ));
        insta::assert_snapshot!(expand(
            r#"
            enum Id {
                Number(i64),
                Str(String),
                Null,
                #[acp(other, required = "name")]
                Other(runtime::UnknownVariant),
            }
            "#,
            super::derive_union,
        ));
    }

    #[test]
    fn open_closed_and_integer_enums() {
        insta::assert_snapshot!(expand(
            r#"
            #[acp(rename_all = "snake_case", direct)]
            enum Kind { Read, SwitchMode, #[acp(rename = "x-other")] Other, #[acp(other)] Unknown(runtime::UnknownString) }
            "#,
            super::derive_enum,
        ));
        insta::assert_snapshot!(expand(
            r#"
            #[acp(rename_all = "lowercase")]
            enum Role { Assistant, User }
            "#,
            super::derive_enum,
        ));
        insta::assert_snapshot!(expand(
            r#"
            #[acp(range = i32)]
            enum Code { #[acp(value = -32700)] ParseError, #[acp(value = 7)] Seven, #[acp(other)] Other(runtime::UnknownInteger) }
            "#,
            super::derive_enum,
        ));
    }
}

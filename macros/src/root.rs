//! `#[acp(crate = "path")]`: where an expansion finds the runtime, for every
//! derive alike (as serde's `#[serde(crate = "...")]`).
//!
//! Without it the expansions name `::acp_bindings`, the crate users of the
//! ACP types depend on. A renamed dependency (`my_acp = { package =
//! "acp-bindings" }`) names itself; code that builds on the runtime alone
//! (the generator's output for a schema of one's own) says
//! `#[acp(crate = "::acp_bindings_runtime")]`; inside a crate, `"crate"`.

use acp_bindings_codegen::Paths;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitStr, Meta, Token};

/// `crate = "path"` in a container's `#[acp(..)]`: `Ok(true)` once its value
/// is consumed, so every derive's attribute parser accepts the key.
pub fn is_crate(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if !meta.path.is_ident("crate") {
        return Ok(false);
    }
    meta.value()?.parse::<LitStr>()?;
    Ok(true)
}

/// The paths the item's expansion writes: under its `#[acp(crate = "..")]`,
/// or `::acp_bindings`. A value that is no path is an error at the string.
pub fn paths(attrs: &[Attribute], errors: &mut Vec<syn::Error>) -> Paths {
    let mut root = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("acp")) {
        // Only `crate` is read here; the derive's own parser reports the rest.
        let Ok(metas) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else { continue };
        for meta in metas {
            let Meta::NameValue(nv) = meta else { continue };
            if !nv.path.is_ident("crate") {
                continue;
            }
            let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) = &nv.value else { continue };
            match s.parse::<syn::Path>() {
                Ok(path) => root = Some(quote::quote!(#path)),
                Err(_) => errors.push(syn::Error::new(
                    s.span(),
                    format!("`crate` names the crate the expansion builds on, as a path: `{}` is not one", s.value()),
                )),
            }
        }
    }
    root.map(Paths::under).unwrap_or_else(Paths::external)
}

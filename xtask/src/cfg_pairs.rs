//! One element where a generated file has the same element twice, once per
//! build.
//!
//! Code generated per build (typed dispatch, the registries, the converters)
//! writes an element for the stable shape of a definition behind
//! `#[cfg(not(feature = "unstable"))]` and one for its unstable shape behind
//! `#[cfg(feature = "unstable")]`. When the definition is one Rust type in
//! both builds (the plan gates only its added fields and arms), the two are
//! often the same text, and every build compiles exactly one of them:
//! [`collapse`] writes such a pair, when it is adjacent, once and ungated.
//! Items, impl items, statements, match arms, array elements, enum variants
//! and struct fields are looked at; nothing else changes.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::Attribute;

/// Collapses the adjacent equal pairs of per-build elements of `file`.
pub fn collapse(file: &mut syn::File) {
    Collapse.visit_file_mut(file);
}

/// Which build an attribute restricts an element to: `Some(false)` for
/// `not(unstable)`, `Some(true)` for `unstable`.
fn build_of(attr: &Attribute) -> Option<bool> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    match attr.meta.require_list().ok()?.tokens.to_string().replace(' ', "").as_str() {
        "not(feature=\"unstable\")" => Some(false),
        "feature=\"unstable\"" => Some(true),
        _ => None,
    }
}

/// Collapses the pairs of one sequence; `attrs` gives an element's attributes
/// (`None` for an element that has none to look at).
fn pairs<T: Clone + ToTokens>(items: Vec<T>, attrs: fn(&mut T) -> Option<&mut Vec<Attribute>>) -> Vec<T> {
    // An element without its build attribute, as text, and which build it was for.
    let key = |item: &T| -> Option<(bool, String)> {
        let mut item = item.clone();
        let list = attrs(&mut item)?;
        let at = list.iter().position(|a| build_of(a).is_some())?;
        let build = build_of(&list.remove(at))?;
        Some((build, item.to_token_stream().to_string()))
    };
    let mut out: Vec<T> = Vec::with_capacity(items.len());
    let mut items = items.into_iter().peekable();
    while let Some(mut item) = items.next() {
        let pair = match (key(&item), items.peek().and_then(key)) {
            (Some((x, a)), Some((y, b))) => x != y && a == b,
            _ => false,
        };
        if pair {
            items.next();
            if let Some(list) = attrs(&mut item) {
                list.retain(|a| build_of(a).is_none());
            }
        }
        out.push(item);
    }
    out
}

fn punctuated<T: Clone + ToTokens, P: Default>(
    p: &mut Punctuated<T, P>,
    attrs: fn(&mut T) -> Option<&mut Vec<Attribute>>,
) {
    let items: Vec<T> = std::mem::take(p).into_iter().collect();
    *p = pairs(items, attrs).into_iter().collect();
}

fn item_attrs(i: &mut syn::Item) -> Option<&mut Vec<Attribute>> {
    use syn::Item::*;
    Some(match i {
        Const(x) => &mut x.attrs,
        Enum(x) => &mut x.attrs,
        Fn(x) => &mut x.attrs,
        Impl(x) => &mut x.attrs,
        Mod(x) => &mut x.attrs,
        Static(x) => &mut x.attrs,
        Struct(x) => &mut x.attrs,
        Trait(x) => &mut x.attrs,
        Type(x) => &mut x.attrs,
        Use(x) => &mut x.attrs,
        _ => return None,
    })
}

fn impl_item_attrs(i: &mut syn::ImplItem) -> Option<&mut Vec<Attribute>> {
    Some(match i {
        syn::ImplItem::Const(x) => &mut x.attrs,
        syn::ImplItem::Fn(x) => &mut x.attrs,
        syn::ImplItem::Type(x) => &mut x.attrs,
        _ => return None,
    })
}

fn expr_attrs(e: &mut syn::Expr) -> Option<&mut Vec<Attribute>> {
    use syn::Expr::*;
    Some(match e {
        Call(x) => &mut x.attrs,
        If(x) => &mut x.attrs,
        Lit(x) => &mut x.attrs,
        Macro(x) => &mut x.attrs,
        Match(x) => &mut x.attrs,
        MethodCall(x) => &mut x.attrs,
        Path(x) => &mut x.attrs,
        Struct(x) => &mut x.attrs,
        Tuple(x) => &mut x.attrs,
        _ => return None,
    })
}

fn stmt_attrs(s: &mut syn::Stmt) -> Option<&mut Vec<Attribute>> {
    match s {
        syn::Stmt::Local(l) => Some(&mut l.attrs),
        syn::Stmt::Item(i) => item_attrs(i),
        syn::Stmt::Expr(e, _) => expr_attrs(e),
        syn::Stmt::Macro(m) => Some(&mut m.attrs),
    }
}

struct Collapse;

impl VisitMut for Collapse {
    fn visit_file_mut(&mut self, f: &mut syn::File) {
        f.items = pairs(std::mem::take(&mut f.items), item_attrs);
        syn::visit_mut::visit_file_mut(self, f);
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            *items = pairs(std::mem::take(items), item_attrs);
        }
        syn::visit_mut::visit_item_mod_mut(self, m);
    }

    fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
        i.items = pairs(std::mem::take(&mut i.items), impl_item_attrs);
        syn::visit_mut::visit_item_impl_mut(self, i);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        b.stmts = pairs(std::mem::take(&mut b.stmts), stmt_attrs);
        syn::visit_mut::visit_block_mut(self, b);
    }

    fn visit_expr_match_mut(&mut self, m: &mut syn::ExprMatch) {
        m.arms = pairs(std::mem::take(&mut m.arms), |a| Some(&mut a.attrs));
        syn::visit_mut::visit_expr_match_mut(self, m);
    }

    fn visit_expr_array_mut(&mut self, a: &mut syn::ExprArray) {
        punctuated(&mut a.elems, expr_attrs);
        syn::visit_mut::visit_expr_array_mut(self, a);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        punctuated(&mut s.fields, |f| Some(&mut f.attrs));
        syn::visit_mut::visit_expr_struct_mut(self, s);
    }

    fn visit_item_enum_mut(&mut self, e: &mut syn::ItemEnum) {
        punctuated(&mut e.variants, |v| Some(&mut v.attrs));
        syn::visit_mut::visit_item_enum_mut(self, e);
    }

    fn visit_fields_named_mut(&mut self, f: &mut syn::FieldsNamed) {
        punctuated(&mut f.named, |f| Some(&mut f.attrs));
        syn::visit_mut::visit_fields_named_mut(self, f);
    }
}

//! Shorter paths in a generated file, for people who read it.
//!
//! The emitters write absolute paths (`::core::option::Option`,
//! `::std::string::String`) so that a schema definition named like a prelude
//! item cannot capture them. Before a file is formatted, [`shorten`] writes
//! each such path by its prelude name (`Option`, `Some`, `String`, `Vec`,
//! `Box`, `Default::default`, ...) wherever the file defines nothing of that
//! name; where it does, the absolute path stays. Paths in code and in the
//! path strings of `#[serde(...)]` attributes are shortened; other strings
//! (documentation, embedded schemas) are not touched.
//!
//! The same pass writes the bindings' modules, the derives (serde's and the
//! bindings'), and a few modules and types of `core` and `std`, by their last name (`crate::runtime::de::once`
//! becomes `runtime::de::once`, `::core::fmt::Formatter` `fmt::Formatter`),
//! adding `use crate::runtime;` to each module of the file that uses it,
//! again only where the file defines nothing of that name.

use std::collections::BTreeSet;

use proc_macro2::{Literal, TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

/// Absolute paths of the Rust prelude (2021), longest first within a family,
/// with their prelude name.
const PRELUDE: &[(&str, &str)] = &[
    ("::core::option::Option::Some", "Some"),
    ("::core::option::Option::None", "None"),
    ("::core::option::Option", "Option"),
    ("::core::result::Result::Ok", "Ok"),
    ("::core::result::Result::Err", "Err"),
    ("::core::result::Result", "Result"),
    ("::std::string::String", "String"),
    ("::std::vec::Vec", "Vec"),
    ("::std::boxed::Box", "Box"),
    ("::core::default::Default", "Default"),
    ("::core::convert::Into", "Into"),
    ("::core::convert::From", "From"),
    ("::core::convert::AsRef", "AsRef"),
    ("::core::clone::Clone", "Clone"),
    ("::core::iter::Iterator", "Iterator"),
    ("::std::borrow::ToOwned", "ToOwned"),
];

/// Shortens the prelude paths of `file`, and the paths into `modules`
/// (absolute paths such as `crate::runtime` or `::acp_bindings::json`), whose
/// short name the file does not define.
pub fn shorten(file: &mut syn::File, modules: &[&str]) {
    let mut defined = BTreeSet::new();
    names(&file.items, &mut defined);
    let usable: Vec<(Vec<String>, &str)> = PRELUDE
        .iter()
        .filter(|(_, short)| !defined.contains(*short))
        .map(|(long, short)| (long.trim_start_matches("::").split("::").map(str::to_owned).collect(), *short))
        .collect();
    let modules = modules
        .iter()
        .map(|m| Module {
            absolute: m.starts_with("::"),
            segments: m.trim_start_matches("::").split("::").map(str::to_owned).collect(),
            path: (*m).to_owned(),
        })
        .filter(|m| !defined.contains(m.alias()))
        .collect();
    let mut s = Shorten { usable, modules, used: BTreeSet::new() };
    scope(&mut s, &mut file.items);
}

/// A module the generated code names by its last segment.
struct Module {
    /// Written with a leading `::`.
    absolute: bool,
    segments: Vec<String>,
    /// As written (`crate::runtime`).
    path: String,
}

impl Module {
    fn alias(&self) -> &str {
        self.segments.last().map(String::as_str).unwrap_or_default()
    }
}

/// Shortens the items of one module (inline modules are their own scope),
/// then imports the modules it came to name by their last segment.
fn scope(s: &mut Shorten<'_>, items: &mut Vec<syn::Item>) {
    let outer = std::mem::take(&mut s.used);
    for item in items.iter_mut() {
        match item {
            syn::Item::Mod(syn::ItemMod { content: Some((_, inner)), .. }) => scope(s, inner),
            other => s.visit_item_mut(other),
        }
    }
    let uses: Vec<syn::Item> = s
        .modules
        .iter()
        .filter(|m| s.used.contains(&m.path))
        // Unused in a build whose features leave out every item that names it
        // (`Cow` is named by the `schemars` impls only).
        .map(|m| syn::parse_str(&format!("#[allow(unused_imports)]\nuse {};", m.path)).expect("a module path parses"))
        .collect();
    items.splice(0..0, uses);
    s.used = outer;
}

/// Every name the items define, in any module of the file (a variant's name
/// included: a unit variant imported with `use Enum::*` would shadow too).
fn names(items: &[syn::Item], out: &mut BTreeSet<String>) {
    for item in items {
        let ident = match item {
            syn::Item::Struct(i) => Some(&i.ident),
            syn::Item::Enum(i) => Some(&i.ident),
            syn::Item::Union(i) => Some(&i.ident),
            syn::Item::Type(i) => Some(&i.ident),
            syn::Item::Fn(i) => Some(&i.sig.ident),
            syn::Item::Const(i) => Some(&i.ident),
            syn::Item::Static(i) => Some(&i.ident),
            syn::Item::Trait(i) => Some(&i.ident),
            syn::Item::Macro(i) => i.ident.as_ref(),
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    names(inner, out);
                }
                Some(&m.ident)
            }
            syn::Item::Use(u) => {
                use_names(&u.tree, out);
                None
            }
            _ => None,
        };
        if let Some(i) = ident {
            out.insert(i.to_string());
        }
    }
}

/// The names a `use` brings in (a glob is not followed: the generated files
/// glob only their own modules, whose names [`names`] reads).
fn use_names(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
    match tree {
        syn::UseTree::Path(p) => use_names(&p.tree, out),
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.rename.to_string());
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_names(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

struct Shorten<'a> {
    /// The prelude paths to shorten (segments without the leading `::`) and their names.
    usable: Vec<(Vec<String>, &'a str)>,
    /// The modules to name by their last segment.
    modules: Vec<Module>,
    /// The modules (`Module::path`) the current scope came to name so.
    used: BTreeSet<String>,
}

impl Shorten<'_> {
    /// The prelude name of an absolute path's start and how many segments it covers.
    fn prefix(&self, path: &syn::Path) -> Option<(&str, usize)> {
        path.leading_colon?;
        self.usable.iter().find_map(|(long, short)| {
            let n = long.len();
            let matches = path.segments.len() >= n
                && path.segments.iter().zip(long).enumerate().all(|(i, (seg, want))| {
                    // Only the last segment of the prelude path may carry arguments (`Option<T>`).
                    seg.ident == want && (i + 1 == n || seg.arguments.is_none())
                });
            matches.then_some((*short, n))
        })
    }

    /// A path string of a `#[serde(...)]` attribute, shortened: a prelude
    /// path at its start, and every path into one of the modules.
    fn text(&mut self, path: &str) -> Option<String> {
        let mut text = path.to_owned();
        for m in &self.modules {
            let from = format!("{}::", m.path);
            let mut out = String::new();
            let mut rest = text.as_str();
            while let Some(at) = rest.find(&from) {
                // Not the tail of a longer name (`xcrate::runtime`).
                let before = rest[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    out.push_str(&rest[..at + from.len()]);
                } else {
                    out.push_str(&rest[..at]);
                    out.push_str(m.alias());
                    out.push_str("::");
                    self.used.insert(m.path.clone());
                }
                rest = &rest[at + from.len()..];
            }
            out.push_str(rest);
            text = out;
        }
        let prelude = self.usable.iter().find_map(|(long, short)| {
            let long = format!("::{}", long.join("::"));
            let rest = text.strip_prefix(&long)?;
            (rest.is_empty() || rest.starts_with("::")).then(|| format!("{short}{rest}"))
        });
        let text = prelude.unwrap_or(text);
        (text != path).then_some(text)
    }

    /// The tokens of a `#[serde(...)]` attribute with its path strings shortened.
    fn tokens(&mut self, tokens: TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .map(|t| match t {
                TokenTree::Literal(lit) => {
                    let shorter = syn::parse_str::<syn::LitStr>(&lit.to_string())
                        .ok()
                        .and_then(|s| self.text(&s.value()))
                        .map(|s| Literal::string(&s));
                    TokenTree::Literal(shorter.unwrap_or(lit))
                }
                TokenTree::Group(g) => {
                    let mut inner = proc_macro2::Group::new(g.delimiter(), self.tokens(g.stream()));
                    inner.set_span(g.span());
                    TokenTree::Group(inner)
                }
                other => other,
            })
            .collect()
    }
}

impl Shorten<'_> {
    /// The module (or type) a path starts with.
    fn module(&self, path: &syn::Path) -> Option<usize> {
        self.modules.iter().position(|m| {
            let n = m.segments.len();
            m.absolute == path.leading_colon.is_some()
                && path.segments.len() >= n
                && path.segments.iter().zip(&m.segments).enumerate().all(|(i, (seg, want))| {
                    // Only the imported name itself may carry arguments (`Cow<'static, str>`).
                    seg.ident == want && (i + 1 == n || seg.arguments.is_none())
                })
        })
    }

    /// Shortens the start of `path`; returns how many segments it lost.
    fn shorten_path(&mut self, path: &mut syn::Path) -> usize {
        if let Some(i) = self.module(path) {
            let n = self.modules[i].segments.len();
            self.used.insert(self.modules[i].path.clone());
            path.leading_colon = None;
            path.segments = path.segments.iter().skip(n - 1).cloned().collect();
            return n - 1;
        }
        let Some((short, n)) = self.prefix(path) else { return 0 };
        let mut segments: Vec<syn::PathSegment> = path.segments.iter().skip(n - 1).cloned().collect();
        segments[0].ident = syn::Ident::new(short, segments[0].ident.span());
        path.leading_colon = None;
        path.segments = segments.into_iter().collect();
        n - 1
    }

    /// A qualified path (`<T as ::core::convert::From<U>>::from`): the trait
    /// path's segments before `position` shrink with it.
    fn shorten_qualified(&mut self, qself: &mut Option<syn::QSelf>, path: &mut syn::Path) {
        if let Some(q) = qself {
            let removed = self.shorten_path(path);
            q.position -= removed;
        }
    }
}

impl VisitMut for Shorten<'_> {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        self.shorten_path(path);
        syn::visit_mut::visit_path_mut(self, path);
    }

    fn visit_type_path_mut(&mut self, t: &mut syn::TypePath) {
        self.shorten_qualified(&mut t.qself, &mut t.path);
        syn::visit_mut::visit_type_path_mut(self, t);
    }

    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        self.shorten_qualified(&mut e.qself, &mut e.path);
        syn::visit_mut::visit_expr_path_mut(self, e);
    }

    fn visit_attribute_mut(&mut self, attr: &mut syn::Attribute) {
        // `#[derive(...)]`: the derives are paths (`::serde::Serialize`).
        if attr.path().is_ident("derive") {
            if let syn::Meta::List(list) = &mut attr.meta {
                let parser = syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
                if let Ok(mut derives) = syn::parse::Parser::parse2(parser, list.tokens.clone()) {
                    for path in derives.iter_mut() {
                        self.shorten_path(path);
                    }
                    list.tokens = quote::quote!(#derives);
                }
            }
        }
        if attr.path().is_ident("serde") {
            if let syn::Meta::List(list) = &mut attr.meta {
                list.tokens = self.tokens(std::mem::take(&mut list.tokens));
            }
        }
        // `#[acp(read = Reader)]`: the reader is a type.
        if attr.path().is_ident("acp") {
            if let syn::Meta::List(list) = &mut attr.meta {
                let reader = |input: syn::parse::ParseStream<'_>| {
                    let key: syn::Ident = input.parse()?;
                    let eq: syn::Token![=] = input.parse()?;
                    let ty: syn::Type = input.parse()?;
                    Ok((key, eq, ty))
                };
                if let Ok((key, eq, mut ty)) = syn::parse::Parser::parse2(reader, list.tokens.clone()) {
                    if key == "read" {
                        self.visit_type_mut(&mut ty);
                        list.tokens = quote::quote!(#key #eq #ty);
                    }
                }
            }
        }
        syn::visit_mut::visit_attribute_mut(self, attr);
    }
}

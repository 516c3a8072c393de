//! The plan -> Rust items (tokens), one definition at a time.
//!
//! Each item is written as a reader would write it by hand: the type with its
//! docs, and the derives that write its impls (serde's, or the project's
//! `AcpDeserialize`, `AcpSerialize`, `AcpUnion`, `AcpEnum`, `AcpString` and
//! `AcpPatch`, as the plan's `Decoder` and `Encoder` say) with `#[serde(..)]`
//! and `#[acp(..)]` attributes stating each rule; no impl is expanded here.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;

pub mod direct;
mod enums;
mod reads;
mod reducer;
pub mod schema;
mod structs;
pub mod unions;

pub use crate::plan::Gate;

/// Emits items for one module: renders the plan's decisions, deciding nothing.
pub struct Emitter {
    /// Where the generated code finds the bindings (`acp-bindings-codegen`'s, shared with the derives).
    paths: acp_bindings_codegen::Paths,
    /// The plan's decisions about the module's definitions (names, scalars,
    /// order, aliases, decoders, boxing, each field's representation, what is
    /// gated in merged items): read, never copied or recomputed.
    decisions: crate::plan::Decisions,
    schemars: bool,
    /// The `schemars` fragments the impls name, by constant name: written
    /// out of line, into the version's `schemas.rs` ([`Emitter::schemas`]).
    schemas: std::cell::RefCell<BTreeMap<String, String>>,
    /// The `schemars` impls naming them, gated as their types are: written
    /// into `schemas.rs` too ([`Emitter::schema_impls`]).
    schema_impls: std::cell::RefCell<Vec<TokenStream>>,
}

pub(crate) fn ident(name: &str) -> proc_macro2::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => proc_macro2::Ident::new_raw(raw, proc_macro2::Span::call_site()),
        None => format_ident!("{}", name),
    }
}

pub(crate) fn docs(d: &Option<String>) -> TokenStream {
    match d {
        Some(text) => {
            let lines = text.lines().map(|l| if l.is_empty() { String::new() } else { format!(" {l}") });
            quote! { #( #[doc = #lines] )* }
        }
        None => quote! {},
    }
}

fn docs_or(d: &Option<String>, fallback: impl FnOnce() -> String) -> TokenStream {
    match d {
        Some(_) => docs(d),
        None => docs(&Some(fallback())),
    }
}

/// `#[acp(...)]` with `attrs`, or nothing without any.
fn acp_attr(attrs: &[TokenStream]) -> TokenStream {
    if attrs.is_empty() {
        quote!()
    } else {
        quote!(#[acp(#(#attrs),*)])
    }
}

/// The crate the derives' expansions build on, when it is not the bindings
/// crate they name by default (`::acp_bindings_runtime` for a schema file's
/// module): said on every derived item with `crate = ".."`.
fn crate_name(paths: &acp_bindings_codegen::Paths) -> Option<String> {
    let root = paths.root.to_string().replace(' ', "");
    (root != "crate" && root != "::acp_bindings").then_some(root)
}

/// The path of one of the derives (`AcpDeserialize`, `AcpDispatch`, ...)
/// for output under `paths`: the bindings crate's re-export inside it, the
/// runtime crate's from outside.
pub(crate) fn derive_path(paths: &acp_bindings_codegen::Paths, name: &str) -> TokenStream {
    let name = format_ident!("{name}");
    match crate_name(paths) {
        None => quote!(::acp_bindings::#name),
        Some(root) => {
            let root: TokenStream = root.parse().expect("a crate path parses");
            quote!(#root::#name)
        }
    }
}

/// The item-level `#[acp(...)]` of an item that derives, for output under
/// `paths`: `attrs`, after `crate = ".."` when the output builds on another crate.
pub(crate) fn derived_item_attr(paths: &acp_bindings_codegen::Paths, mut attrs: Vec<TokenStream>) -> TokenStream {
    if let Some(root) = crate_name(paths) {
        attrs.insert(0, quote!(crate = #root));
    }
    acp_attr(&attrs)
}

impl Emitter {
    /// The path of one of the derives ([`derive_path`]).
    pub(crate) fn acp_derive(&self, name: &str) -> TokenStream {
        derive_path(&self.paths, name)
    }

    /// The item-level `#[acp(...)]` of an item that derives ([`derived_item_attr`]).
    pub(crate) fn item_acp_attr(&self, attrs: Vec<TokenStream>) -> TokenStream {
        derived_item_attr(&self.paths, attrs)
    }

    /// The enum-level `#[acp(...)]` of a union or an enum: `attrs`, then
    /// its `rename_all` convention and `direct` when the plan gives them.
    fn derive_attrs(
        &self,
        def: &Def,
        rename_all: Option<acp_bindings_codegen::case::Case>,
        mut attrs: Vec<TokenStream>,
    ) -> TokenStream {
        if let Some(case) = rename_all {
            let case = case.name();
            attrs.push(quote!(rename_all = #case));
        }
        if self.is_direct(def) {
            attrs.push(quote!(direct));
        }
        self.item_acp_attr(attrs)
    }
}

fn str_lit(s: &str) -> Literal {
    Literal::string(s)
}

impl Emitter {
    /// An emitter rendering the plan's `decisions` about a schema file's
    /// definitions (names included); `runtime` is the path of the runtime
    /// module (`crate::runtime` inside the bindings crate).
    pub fn new(runtime: &str, decisions: crate::plan::Decisions) -> Self {
        let paths = acp_bindings_codegen::Paths::of_runtime(runtime);
        Emitter { paths, decisions, schemars: false, schemas: Default::default(), schema_impls: Default::default() }
    }

    /// The `schemars` fragments the impls emitted so far name, by constant.
    pub fn schemas(&self) -> BTreeMap<String, String> {
        self.schemas.borrow().clone()
    }

    /// The `schemars` impls of the items rendered so far, for `schemas.rs`
    /// (one `runtime::schema::embedded_schema!` each, gated as its type).
    pub fn schema_impls(&self) -> Vec<TokenStream> {
        self.schema_impls.borrow().clone()
    }

    /// Also emit `schemars::JsonSchema` impls behind the crate's `schemars` feature.
    pub fn with_schemars(mut self) -> Self {
        self.schemars = true;
        self
    }

    /// `Eq, Hash, PartialOrd, Ord` for a definition whose values allow them.
    pub(crate) fn total_order(&self, def: &Def) -> TokenStream {
        if self.decisions.ordered.contains(&def.name) {
            quote!(Eq, Hash, PartialOrd, Ord,)
        } else {
            quote!()
        }
    }

    /// The Rust name of a definition, as the plan decided it.
    fn rust_name(&self, name: &str) -> proc_macro2::Ident {
        ident(self.decisions.names.get(name).unwrap_or_else(|| panic!("no planned name for `{name}`")))
    }

    /// The Rust type for a value type.
    pub fn ty(&self, ty: &Type) -> TokenStream {
        let rt = &self.paths.runtime;
        match ty {
            Type::String { .. } => quote!(::std::string::String),
            Type::Char => quote!(char),
            Type::Base64 => quote!(#rt::Base64String),
            Type::Integer { format, .. } => int_type(*format),
            // As written: an integer stays an integer.
            Type::Number { .. } => quote!(#rt::Number),
            Type::Boolean => quote!(bool),
            Type::Null => quote!(#rt::ExplicitNull),
            Type::Any => quote!(::serde_json::Value),
            // Free-form JSON objects (`_meta` and the like) are boxed: rare on the
            // wire, and an inline map would make every struct holding one larger.
            Type::Object => quote!(::std::boxed::Box<#rt::JsonObject>),
            Type::Ref(name) => {
                let i = self.rust_name(name);
                quote!(#i)
            }
            Type::Array { items, nullable_items, .. } => {
                let t = self.maybe_null(items, *nullable_items);
                quote!(::std::vec::Vec<#t>)
            }
            // A Rust tuple: serde reads and writes it as an array of exactly its length.
            Type::Tuple(items) => {
                let ts = items.iter().map(|i| self.maybe_null(&i.ty, i.nullable));
                quote!((#(#ts,)*))
            }
            Type::Map { values, nullable_values } => {
                let t = self.maybe_null(values, *nullable_values);
                quote!(::std::collections::BTreeMap<::std::string::String, #t>)
            }
        }
    }

    /// The Rust type of an item, map value or tuple position: `Option<T>`
    /// when it may be `null`.
    fn maybe_null(&self, ty: &Type, nullable: bool) -> TokenStream {
        let t = self.ty(ty);
        if nullable {
            quote!(::core::option::Option<#t>)
        } else {
            t
        }
    }

    /// The gate of a field or arm (`element`) of an item rendered once:
    /// `Unstable` when only the unstable build has it, `Always` otherwise.
    pub(crate) fn gate_of(&self, def: &Def, element: &str) -> Gate {
        if self.decisions.merged.unstable_only.contains(&(def.name.clone(), element.to_owned())) {
            Gate::Unstable
        } else {
            Gate::Always
        }
    }

    /// The `#[cfg]` of [`Emitter::gate_of`] (nothing for `Always`).
    pub(crate) fn cfg_of(&self, def: &Def, element: &str) -> TokenStream {
        self.gate_of(def, element).cfg()
    }

    /// The description of `element` of `def` (`""` for the definition): the
    /// stable schema's, for an item rendered once for both builds.
    pub(crate) fn docs_of<'d>(&'d self, def: &Def, element: &str, own: &'d Option<String>) -> &'d Option<String> {
        self.decisions.merged.stable_docs.get(&(def.name.clone(), element.to_owned())).unwrap_or(own)
    }

    /// Items for one definition and its inline items, behind `gate`.
    pub fn def(&self, def: &Def, gate: Gate) -> Vec<TokenStream> {
        let items = self.items_of(def);
        let schemas = def.walk().into_iter().filter_map(|d| self.json_schema(d)).collect();
        self.schema_impls.borrow_mut().extend(gated(schemas, gate));
        gated(items, gate)
    }

    /// Items for a definition whose unstable shape `def` only adds fields or
    /// arms to its stable shape `stable` (the plan's `stable_shape`): once,
    /// with those gated, rendered by the unstable file's emitter (`self`);
    /// each build's `schemars` fragment (once where they agree), the stable
    /// one rendered by `stable_emitter`.
    pub fn merged(&self, def: &Def, stable: &Def, stable_emitter: &Emitter) -> Vec<TokenStream> {
        let items = self.items_of(def);
        let mut schemas = self.schema_impls.borrow_mut();
        for (u, s) in def.walk().into_iter().zip(stable.walk()) {
            let (u, s) = (self.json_schema(u), stable_emitter.json_schema(s));
            if u.as_ref().map(ToString::to_string) == s.as_ref().map(ToString::to_string) {
                schemas.extend(u);
            } else {
                schemas.extend(gated(s.into_iter().collect(), Gate::Stable));
                schemas.extend(gated(u.into_iter().collect(), Gate::Unstable));
            }
        }
        items
    }

    /// Items for one definition and its inline items (their `schemars` impls
    /// go to [`Emitter::schema_impls`]).
    fn items_of(&self, def: &Def) -> Vec<TokenStream> {
        let mut items = match &def.kind {
            Kind::Struct(s) => self.structure(def, s),
            Kind::Enum(e) => self.enumeration(def, e),
            Kind::Union(u) => self.union(def, u),
            Kind::Newtype(t) => self.newtype(def, t),
            // The plan's `pub type` aliases; any other alias (the payload of a
            // method: a distinct type, so that each payload type names exactly
            // one method) is a newtype.
            Kind::Alias(target) => match self.decisions.aliases.get(&def.name) {
                Some(named) => {
                    let (name, doc, t) = (ident(&def.rust_name), self.item_docs(def), self.rust_name(named));
                    vec![quote! { #doc pub type #name = #t; }]
                }
                None => self.newtype(def, &Type::Ref(target.clone())),
            },
            // `codegen --lenient`: a definition it does not understand is any JSON.
            Kind::Any | Kind::Opaque(_) => self.any(def),
        };
        items.extend(self.direct_decoder(def));
        items.extend(self.method_consts(def));
        for i in &def.inline {
            items.extend(self.items_of(i));
        }
        items
    }

    /// `impl schemars::JsonSchema`: the item's schema fragment rendered from the
    /// model ([`schema::render`]), embedded, with each `$ref` replaced by the
    /// generator's reference to that type (found by the module's
    /// `schema_ref`, [`schema_refs`]).
    fn json_schema(&self, def: &Def) -> Option<TokenStream> {
        if !self.schemars || self.decisions.aliases.contains_key(&def.name) {
            return None;
        }
        let rt = &self.paths.runtime;
        let name = ident(&def.rust_name);
        let json = schema::render(def).to_string();
        // The fragment goes out of line, named by the type and a hash of the
        // text (two shapes of one type get two constants, one text one).
        let constant = format!(
            "{}_{:08X}",
            heck::ToShoutySnakeCase::to_shouty_snake_case(def.rust_name.as_str()),
            crate::hash::fnv1a(json.bytes()) >> 32
        );
        let path = ident(&constant);
        self.schemas.borrow_mut().insert(constant, json);
        // The impl is the runtime's `embedded_schema!` (its name, its id by
        // module path, the fragment with `$ref`s resolved).
        Some(quote! {
            #rt::schema::embedded_schema!(#name, #path);
        })
    }

    fn item_docs(&self, def: &Def) -> TokenStream {
        docs(&Some(self.description(def)))
    }

    /// The schema's description of an item (the stable schema's, for an item
    /// rendered once for both builds), or a line saying it has none.
    fn description(&self, def: &Def) -> String {
        let own = self.docs_of(def, "", &def.docs);
        own.clone().unwrap_or_else(|| format!("`{}` (the schema gives no description).", def.name))
    }

    fn method_consts(&self, def: &Def) -> Option<TokenStream> {
        let m = def.method.as_ref()?;
        let name = ident(&def.rust_name);
        let (method, side) = (str_lit(&m.name), str_lit(m.side.as_str()));
        let doc_m = format!(" The JSON-RPC method this payload belongs to (`x-method`): `{}`.", m.name);
        let doc_s = format!(" The side that handles the method (`x-side`): `{}`.", m.side);
        Some(quote! {
            impl #name {
                #[doc = #doc_m]
                pub const METHOD: &'static str = #method;
                #[doc = #doc_s]
                pub const SIDE: &'static str = #side;
            }
        })
    }

    // ---- newtypes and any-JSON ------------------------------------------------------

    fn newtype(&self, def: &Def, t: &Type) -> Vec<TokenStream> {
        match t {
            Type::String { .. } => vec![self.string_newtype(def)],
            Type::Integer { format, .. } => vec![self.int_newtype(def, t, *format)],
            other => {
                let (name, doc) = (ident(&def.rust_name), self.item_docs(def));
                let inner = self.ty(other);
                let ord = self.total_order(def);
                // Free-form JSON under the rule for repeated member names.
                let json = matches!(other, Type::Any | Type::Object | Type::Map { .. }).then(|| {
                    let with = self
                        .paths
                        .deserialize_with(&acp_bindings_codegen::Reader::Named(acp_bindings_codegen::Named::Json));
                    quote!(#[serde(#with)])
                });
                vec![quote! {
                    #doc
                    #[derive(Debug, Clone, PartialEq, #ord ::serde::Serialize, ::serde::Deserialize)]
                    #[serde(transparent)]
                    pub struct #name(#json pub #inner);

                    impl ::core::convert::From<#inner> for #name {
                        fn from(value: #inner) -> Self { Self(value) }
                    }
                }]
            }
        }
    }

    /// A string newtype: an identifier held as a `SmolStr`, refusing the
    /// strings the definition's `not` excludes; `#[derive(AcpString)]`
    /// writes its impls.
    fn string_newtype(&self, def: &Def) -> TokenStream {
        let rt = &self.paths.runtime;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let mut attrs: Vec<TokenStream> = def.excluded.iter().map(|x| quote!(not = #x)).collect();
        if !def.excluded.is_empty() {
            let pointer = format!("#{}/not", def.pointer);
            attrs.push(quote!(pointer = #pointer));
        }
        // The definition's string rules, as the plan's value rule states them.
        if let (Some(crate::plan::ReadRule::CheckedStr { .. }), Kind::Newtype(t)) =
            (self.decisions.values.get(&def.name), &def.kind)
        {
            if let Some(r) = t.string_rule() {
                if r.min > 0 {
                    let min = proc_macro2::Literal::u64_unsuffixed(r.min);
                    attrs.push(quote!(min_length = #min));
                }
                if let Some(max) = r.max {
                    let max = proc_macro2::Literal::u64_unsuffixed(max);
                    attrs.push(quote!(max_length = #max));
                }
                if let Some(p) = r.pattern {
                    attrs.push(quote!(pattern = #p));
                }
                let at = format!("#{}", def.pointer);
                attrs.push(quote!(at = #at));
            }
        }
        if self.is_direct(def) {
            attrs.push(quote!(direct));
        }
        let acp = self.item_acp_attr(attrs);
        let derive = self.acp_derive("AcpString");
        quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, #derive)]
            #acp
            pub struct #name(pub #rt::SmolStr);
        }
    }

    /// An integer newtype, with the definition's bounds checked on decode.
    fn int_newtype(&self, def: &Def, t: &Type, format: IntFormat) -> TokenStream {
        let (name, doc) = (ident(&def.rust_name), self.item_docs(def));
        let it = int_type(format);
        let value = crate::plan::value_field(def, t);
        let rule = self.decisions.values.get(&def.name).cloned().unwrap_or(crate::plan::ReadRule::Plain);
        let check = match self.deserialize_with(&rule) {
            Some(with) => quote!(#[serde(#with)]),
            None => quote!(),
        };
        let bound = self.hidden_rule_types(&rule, &value);
        quote! {
            #(#bound)*

            #doc
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #name(#check pub #it);

            impl ::core::convert::From<#it> for #name {
                fn from(value: #it) -> Self { Self(value) }
            }
            impl ::core::fmt::Display for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { ::core::fmt::Display::fmt(&self.0, f) }
            }
        }
    }

    fn any(&self, def: &Def) -> Vec<TokenStream> {
        let name = ident(&def.rust_name);
        // Free-form JSON under the rule for repeated member names.
        let json = str_lit(&format!("{}::de::json", self.paths.runtime.to_string().replace(' ', "")));
        let doc = self.item_docs(def);
        let what = match &def.kind {
            Kind::Opaque(o) => {
                format!(
                    " Any JSON value: generated with `--lenient`, the generator does not understand its schema ({}).",
                    o.reason
                )
            }
            _ => " Any JSON value: the schema does not constrain it.".to_owned(),
        };
        vec![quote! {
            #doc
            ///
            #[doc = #what]
            #[derive(Debug, Clone, PartialEq, Default, ::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #name(#[serde(deserialize_with = #json)] pub ::serde_json::Value);

            impl ::core::convert::From<::serde_json::Value> for #name {
                fn from(value: ::serde_json::Value) -> Self { Self(value) }
            }
        }]
    }
}

/// `items` behind `gate`: the gate on every item, not just the first of each block.
pub(crate) fn gated(items: Vec<TokenStream>, gate: Gate) -> Vec<TokenStream> {
    if gate == Gate::Always {
        return items;
    }
    let cfg = gate.cfg();
    let file: syn::File = match syn::parse2(quote!(#(#items)*)) {
        Ok(f) => f,
        Err(_) => return items.into_iter().map(|i| quote! { #cfg #i }).collect(),
    };
    file.items.into_iter().map(|i| quote! { #cfg #i }).collect()
}

pub(crate) fn int_type(format: IntFormat) -> TokenStream {
    match format {
        IntFormat::Int8 => quote!(i8),
        IntFormat::Int16 => quote!(i16),
        IntFormat::Int32 => quote!(i32),
        IntFormat::Int64 | IntFormat::Int => quote!(i64),
        IntFormat::Int128 => quote!(i128),
        IntFormat::Uint8 => quote!(u8),
        IntFormat::Uint16 => quote!(u16),
        IntFormat::Uint32 => quote!(u32),
        IntFormat::Uint64 | IntFormat::Uint => quote!(u64),
        IntFormat::Uint128 => quote!(u128),
    }
}

/// `schema_ref`, the function a version module's `JsonSchema` impls resolve
/// their fragments' `$ref`s with: the generator's subschema for the Rust type
/// of each `$defs` name of the module (in this build's feature set; `defs`
/// as [`crate::plan::Plan::gated`] gives them).
pub fn schema_refs(defs: &[(&Def, Gate)]) -> TokenStream {
    let arms = defs.iter().map(|(d, gate)| {
        let (key, name, cfg) = (str_lit(&d.name), ident(&d.rust_name), gate.cfg());
        quote!(#cfg #key => g.subschema_for::<#name>(),)
    });
    quote! {
        /// The generator's subschema for the type of the `$defs` name `name`
        /// (what an embedded fragment's `{"$ref": "#/$defs/name"}` becomes).
        fn schema_ref(g: &mut ::schemars::SchemaGenerator, name: &str) -> ::core::option::Option<::schemars::Schema> {
            ::core::option::Option::Some(match name {
                #(#arms)*
                _ => return ::core::option::Option::None,
            })
        }
    }
}

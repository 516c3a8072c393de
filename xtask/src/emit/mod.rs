//! IR -> Rust tokens.
//!
//! Structs use serde's derive with field attributes that call the hand-written
//! runtime (`generated/src/runtime`); enums and unions get generated
//! `Serialize`/`Deserialize` impls, because their fallbacks, catch-all arms and
//! discriminator rules are beyond what the derive can express.

use std::collections::BTreeMap;

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::model::*;
use serde_json::Value;

pub mod direct;
mod enums;
pub mod schema;
pub mod unions;

pub use crate::plan::Gate;
use crate::plan::{Repr, StateRepr};

/// Emits items for one module.
pub struct Emitter {
    rt: TokenStream,
    names: BTreeMap<String, String>,
    /// Definitions decodable from one JSON string (string enums and newtypes).
    scalars: std::collections::BTreeSet<String>,
    /// The top-level (`$defs`) names.
    top: std::collections::BTreeSet<String>,
    /// Object definitions (structs and unions).
    objects: std::collections::BTreeSet<String>,
    /// Definitions whose Rust type can be `Eq + Hash + Ord` ([`Emitter::total_order`]).
    ordered: std::collections::BTreeSet<String>,
    /// `pub type` aliases: name -> the definition they name.
    aliases: BTreeMap<String, String>,
    /// Definitions that get a direct decoder ([`direct::direct_defs`]).
    direct: std::collections::BTreeSet<String>,
    /// Definitions on a cycle of values held in place ([`recursive_defs`]):
    /// boxed wherever a struct field or a union arm holds one.
    recursive: std::collections::BTreeSet<String>,
    schemars: bool,
}

/// The definitions that hold themselves in place, directly or through a
/// cycle of references: a struct field (optional or not) or a union arm of
/// the definition's own type, a newtype or alias of it, a flattened union.
/// Lists and maps hold their items on the heap and break no cycle's need. A
/// Rust type cannot contain itself, so such a definition is boxed wherever a
/// struct field or a union arm holds it (`Option<Box<Node>>`), which breaks
/// every cycle.
pub(crate) fn recursive_defs(all: &[&Def]) -> std::collections::BTreeSet<String> {
    let edges: BTreeMap<&str, Vec<&str>> = all
        .iter()
        .map(|d| {
            fn held<'a>(t: &'a Type, out: &mut Vec<&'a str>) {
                if let Type::Ref(r) = t {
                    out.push(r.as_str());
                }
            }
            let mut out = Vec::new();
            match &d.kind {
                Kind::Struct(s) => {
                    s.fields.iter().for_each(|f| held(&f.ty, &mut out));
                    if let Some(fl) = &s.flatten {
                        out.push(fl.union.as_str());
                    }
                }
                Kind::Union(u) => {
                    for v in &u.variants {
                        if let Payload::Type(t) = &v.payload {
                            held(t, &mut out);
                        }
                    }
                }
                Kind::Newtype(t) => held(t, &mut out),
                Kind::Alias(a) => out.push(a.as_str()),
                Kind::Enum(_) | Kind::Any | Kind::Opaque(_) => {}
            }
            (d.name.as_str(), out)
        })
        .collect();
    let mut recursive = std::collections::BTreeSet::new();
    for d in all {
        // Does `d` reach itself?
        let mut seen = std::collections::BTreeSet::new();
        let mut todo: Vec<&str> = edges.get(d.name.as_str()).cloned().unwrap_or_default();
        while let Some(n) = todo.pop() {
            if n == d.name {
                recursive.insert(d.name.clone());
                break;
            }
            if seen.insert(n) {
                todo.extend(edges.get(n).into_iter().flatten());
            }
        }
    }
    recursive
}

/// The definitions whose values have a total order and a hash: string and
/// integer enums and newtypes, and newtypes, aliases and closed unions made of
/// those, strings, integers, booleans, lists and maps of them. Numbers
/// (`f64`), any JSON and objects (which keep unknown properties) have none.
pub(crate) fn ordered_defs(all: &[&Def]) -> std::collections::BTreeSet<String> {
    fn ty(t: &Type, set: &std::collections::BTreeSet<String>) -> bool {
        match t {
            Type::String { .. } | Type::Char | Type::Base64 | Type::Integer { .. } | Type::Boolean | Type::Null => true,
            Type::Number { .. } | Type::Any | Type::Object => false,
            Type::Ref(r) => set.contains(r),
            Type::Array { items, .. } => ty(items, set),
            Type::Tuple(items) => items.iter().all(|i| ty(&i.ty, set)),
            Type::Map { values, .. } => ty(values, set),
        }
    }
    let mut set = std::collections::BTreeSet::new();
    loop {
        let before = set.len();
        for d in all {
            let ok = match &d.kind {
                Kind::Enum(_) => true,
                Kind::Newtype(t) => ty(t, &set),
                Kind::Alias(a) => set.contains(a),
                Kind::Union(u) => {
                    u.catch_all.is_none()
                        && u.variants.iter().all(|v| match &v.payload {
                            Payload::Type(t) => ty(t, &set),
                            Payload::Unit | Payload::NoTag => true,
                        })
                }
                Kind::Struct(_) | Kind::Any | Kind::Opaque(_) => false,
            };
            if ok {
                set.insert(d.name.clone());
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// The `runtime::read` reader type of a decoding helper (`{rt}::de::lenient`
/// -> `Lenient`), for the helpers without parameters of their own.
fn reader(path: &str, rt: &str) -> Option<&'static str> {
    Some(match path.strip_prefix(rt)?.strip_prefix("::de::")? {
        "lenient" => "Lenient",
        "lenient_meta" => "LenientMeta",
        "lenient_scalar" => "LenientScalar",
        "lenient_items" => "LenientItems",
        "items" => "Items",
        "any" => "Any",
        "present" => "Present",
        "null_as_default" => "NullAsDefault",
        _ => return None,
    })
}

/// A definition decodable from one JSON string.
fn is_string_scalar(d: &Def) -> bool {
    matches!(&d.kind, Kind::Enum(e) if e.repr == EnumRepr::String)
        || matches!(&d.kind, Kind::Newtype(Type::String { .. }))
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

fn str_lit(s: &str) -> Literal {
    Literal::string(s)
}

impl Emitter {
    /// An emitter for the given definitions; `runtime` is the path of the
    /// runtime module (`crate::runtime` inside the bindings crate).
    pub fn new<'a>(runtime: &str, defs: impl IntoIterator<Item = &'a Def>) -> Self {
        let rt: TokenStream = runtime.parse().expect("runtime path parses");
        let defs: Vec<&Def> = defs.into_iter().collect();
        let top = defs.iter().map(|d| d.name.clone()).collect();
        let all: Vec<&Def> = defs.into_iter().flat_map(Def::walk).collect();
        let names = all.iter().map(|d| (d.name.clone(), d.rust_name.clone())).collect();
        let scalars = all.iter().filter(|d| is_string_scalar(d)).map(|d| d.name.clone()).collect();
        let objects =
            all.iter().filter(|d| matches!(d.kind, Kind::Struct(_) | Kind::Union(_))).map(|d| d.name.clone()).collect();
        let ordered = ordered_defs(&all);
        let aliases = all
            .iter()
            .filter_map(|d| match &d.kind {
                Kind::Alias(a) if d.method.is_none() => Some((d.name.clone(), a.clone())),
                _ => None,
            })
            .collect();
        let direct = direct::direct_defs(&all);
        let recursive = recursive_defs(&all);
        Emitter { rt, names, scalars, top, objects, ordered, aliases, direct, recursive, schemars: false }
    }

    /// Also emit `schemars::JsonSchema` impls behind the crate's `schemars` feature.
    pub fn with_schemars(mut self) -> Self {
        self.schemars = true;
        self
    }

    /// `Eq, Hash, PartialOrd, Ord` for a definition whose values allow them.
    pub(crate) fn total_order(&self, def: &Def) -> TokenStream {
        if self.ordered.contains(&def.name) {
            quote!(Eq, Hash, PartialOrd, Ord,)
        } else {
            quote!()
        }
    }

    /// The Rust type of a value type with `pub type` aliases followed: two
    /// types are the same Rust type exactly when these are equal.
    pub(crate) fn resolved_ty(&self, t: &Type) -> String {
        let mut t = t.clone();
        fn follow(t: &mut Type, aliases: &BTreeMap<String, String>) {
            match t {
                Type::Ref(r) => {
                    for _ in 0..16 {
                        match aliases.get(r.as_str()) {
                            Some(a) => *r = a.clone(),
                            None => break,
                        }
                    }
                }
                Type::Array { items, .. } => follow(items, aliases),
                Type::Tuple(items) => items.iter_mut().for_each(|i| follow(&mut i.ty, aliases)),
                Type::Map { values, .. } => follow(values, aliases),
                _ => {}
            }
        }
        follow(&mut t, &self.aliases);
        self.ty(&t).to_string()
    }

    fn rust_name(&self, name: &str) -> proc_macro2::Ident {
        ident(self.names.get(name).map(String::as_str).unwrap_or(name))
    }

    /// The Rust type for a value type.
    pub fn ty(&self, ty: &Type) -> TokenStream {
        let rt = &self.rt;
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
            // Boxed: `_meta` and other free-form objects are rare on the wire, and an
            // inline map would make every struct holding one much larger.
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

    /// Items for one definition and its inline items, behind `gate`.
    pub fn def(&self, def: &Def, gate: Gate) -> Vec<TokenStream> {
        let cfg = gate.cfg();
        let mut items = match &def.kind {
            Kind::Struct(s) => self.structure(def, s),
            Kind::Enum(e) => self.enumeration(def, e),
            Kind::Union(u) => self.union(def, u),
            Kind::Newtype(t) => self.newtype(def, t),
            // Same wire shape, different method: a distinct type, so that each
            // payload type names exactly one method.
            Kind::Alias(target) if def.method.is_some() => self.newtype(def, &Type::Ref(target.clone())),
            Kind::Alias(target) => {
                let (name, doc, t) = (ident(&def.rust_name), self.item_docs(def), self.rust_name(target));
                vec![quote! { #doc pub type #name = #t; }]
            }
            // `codegen --lenient`: a definition it does not understand is any JSON.
            Kind::Any | Kind::Opaque(_) => self.any(def),
        };
        items.extend(self.direct_decoder(def));
        items.extend(self.method_consts(def));
        items.extend(self.json_schema(def));
        for i in &def.inline {
            items.extend(self.def(i, Gate::Always));
        }
        if gate == Gate::Always {
            return items;
        }
        // Put the gate on every item, not just the first of each block.
        let file: syn::File = match syn::parse2(quote!(#(#items)*)) {
            Ok(f) => f,
            Err(_) => return items.into_iter().map(|i| quote! { #cfg #i }).collect(),
        };
        file.items.into_iter().map(|i| quote! { #cfg #i }).collect()
    }

    /// `impl schemars::JsonSchema`: the item's schema fragment rendered from the
    /// model ([`schema::render`]), embedded, with each `$ref` replaced by the
    /// generator's reference to that type.
    fn json_schema(&self, def: &Def) -> Option<TokenStream> {
        if !self.schemars || (matches!(def.kind, Kind::Alias(_)) && def.method.is_none()) {
            return None;
        }
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let key = str_lit(&def.rust_name);
        let json = str_lit(&schema::render(def).to_string());
        // The `$defs` the fragment names: the model's references of the item and
        // of everything inline in it (inline items are not `$defs` themselves).
        let refs: std::collections::BTreeSet<&String> =
            def.walk().into_iter().flat_map(|d| &d.refs).filter(|r| self.top.contains(*r)).collect();
        let refs = refs.into_iter().map(|r| {
            let (k, t) = (str_lit(r), self.rust_name(r));
            quote!((#k, |g: &mut ::schemars::SchemaGenerator| g.subschema_for::<#t>()))
        });
        Some(quote! {
            #[cfg(feature = "schemars")]
            impl ::schemars::JsonSchema for #name {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(#key)
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #key))
                }
                fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                    #rt::schema::embedded(generator, #json, &[#(#refs),*])
                }
            }
        })
    }

    fn item_docs(&self, def: &Def) -> TokenStream {
        docs(&Some(Self::description(def)))
    }

    /// The schema's description of an item, or a line saying it has none.
    fn description(def: &Def) -> String {
        def.docs.clone().unwrap_or_else(|| format!("`{}` (the schema gives no description).", def.name))
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

    // ---- structs -----------------------------------------------------------------

    /// The Rust type of a field, as the plan represents it.
    /// Whether a struct field or union arm of type `t` holds a recursive
    /// definition, and so is boxed ([`recursive_defs`]).
    pub(crate) fn boxed(&self, t: &Type) -> bool {
        matches!(t, Type::Ref(r) if self.recursive.contains(r))
    }

    fn field_type(&self, f: &Field) -> TokenStream {
        let rt = &self.rt;
        let t = self.ty(&f.ty);
        let t = if self.boxed(&f.ty) { quote!(::std::boxed::Box<#t>) } else { t };
        match Repr::of(f) {
            Repr::Value => t,
            Repr::RequiredNullable | Repr::OptionalAny | Repr::Optional => quote!(::core::option::Option<#t>),
            Repr::Nullable => quote!(#rt::Nullable<#t>),
            Repr::Patch => unreachable!("upsert wire types are derived from their state struct"),
        }
    }

    fn field_attrs(&self, f: &Field) -> TokenStream {
        let rt = self.rt.to_string().replace(' ', "");
        let wire = str_lit(&f.name);
        let mut parts = vec![quote!(rename = #wire)];
        let repr = Repr::of(f);
        if matches!(repr, Repr::Optional | Repr::OptionalAny | Repr::Nullable) {
            parts.push(quote!(default));
            let skip = if repr == Repr::Nullable {
                format!("{rt}::Nullable::is_absent")
            } else {
                "::core::option::Option::is_none".into()
            };
            let skip = str_lit(&skip);
            parts.push(quote!(skip_serializing_if = #skip));
        }
        let with = self.deserialize_with(f);
        if let Some(w) = with {
            let w = str_lit(&w);
            parts.push(quote!(deserialize_with = #w));
        }
        quote! { #[serde( #(#parts),* )] }
    }

    /// The name of a hidden rule type of a property (`kind`: `StrRule` for
    /// `minLength` / `pattern`, `Bound` for `minimum` / `maximum`), from the
    /// property's pointer (unique in the schema file).
    fn rule_name(kind: &str, f: &Field) -> String {
        let tail: String = f.pointer.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        format!("__{kind}{tail}")
    }

    /// The hidden type naming where a bounded number's bounds are, for its errors.
    fn bound_rule(&self, f: &Field) -> Option<TokenStream> {
        if !f.ty.checks_range() {
            return None;
        }
        let rt = &self.rt;
        let name = ident(&Self::rule_name("Bound", f));
        let pointer = str_lit(&format!("#{}", f.pointer));
        let doc = format!(
            " Where the bounds of `{}` are, for its errors.",
            if f.name.is_empty() { "the value" } else { &f.name }
        );
        Some(quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            pub struct #name;
            impl #rt::de::Pointer for #name {
                const POINTER: &'static str = #pointer;
            }
        })
    }

    /// The hidden rule type of a string property with `minLength` or
    /// `pattern`, if it has either.
    fn str_rule(&self, f: &Field) -> Option<TokenStream> {
        let crate::model::StrRule { min, max, pattern } = f.ty.string_rule()?;
        let rt = &self.rt;
        let name = ident(&Self::rule_name("StrRule", f));
        let pointer = str_lit(&format!("#{}", f.pointer));
        let min = usize::try_from(min).unwrap_or(usize::MAX);
        let pattern = match pattern {
            Some(p) => {
                let p = str_lit(p);
                quote! {
                    static PATTERN: #rt::de::Pattern = #rt::de::Pattern::new(#p);
                    ::core::option::Option::Some(&PATTERN)
                }
            }
            None => quote!(::core::option::Option::None),
        };
        let max = match max {
            Some(m) => {
                let m = usize::try_from(m).unwrap_or(usize::MAX);
                quote!(const MAX_LENGTH: usize = #m;)
            }
            None => quote!(),
        };
        let doc = format!(" `minLength` / `maxLength` / `pattern` of `{}`, checked on decode.", f.name);
        Some(quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            pub struct #name;
            impl #rt::de::Pointer for #name {
                const POINTER: &'static str = #pointer;
            }
            impl #rt::de::StrRule for #name {
                const MIN_LENGTH: usize = #min;
                #max
                fn pattern() -> ::core::option::Option<&'static #rt::de::Pattern> {
                    #pattern
                }
            }
        })
    }

    /// The `deserialize_with` helper a field needs, if any.
    fn deserialize_with(&self, f: &Field) -> Option<String> {
        let rt = self.rt.to_string().replace(' ', "");
        let optional = !f.required;
        if f.ty.string_rule().is_some() {
            let rule = Self::rule_name("StrRule", f);
            return Some(if f.required && !f.nullable {
                format!("{rt}::de::checked_str::<_, {rule}>")
            } else {
                format!("{rt}::de::opt_checked_str::<_, _, {rule}, {}>", f.default_on_error)
            });
        }
        match &f.ty {
            Type::Integer { format, .. } if f.ty.checks_range() => {
                let (lo, hi) = format.range();
                let (min, max) = f.ty.checked_bounds();
                let (min, max) = (min.unwrap_or(lo), max.unwrap_or(hi));
                let t = int_type(*format).to_string();
                let c = |v: i128| {
                    if v < 0 {
                        format!("{{ {v} }}")
                    } else {
                        v.to_string()
                    }
                };
                let p = Self::rule_name("Bound", f);
                Some(if f.required && !f.nullable {
                    format!("{rt}::de::int_in_range::<_, {t}, {}, {}, {p}>", c(min), c(max))
                } else {
                    format!("{rt}::de::opt_int_in_range::<_, _, {}, {}, {}, {p}>", c(min), c(max), f.default_on_error)
                })
            }
            Type::Number { min, max, .. } if f.ty.checks_range() => {
                let (min, max) = (min.unwrap_or(f64::NEG_INFINITY).to_bits(), max.unwrap_or(f64::INFINITY).to_bits());
                let p = Self::rule_name("Bound", f);
                Some(if f.required && !f.nullable {
                    format!("{rt}::de::float_in_range::<_, {min:#x}, {max:#x}, {p}>")
                } else {
                    format!("{rt}::de::opt_float_in_range::<_, _, {min:#x}, {max:#x}, {}, {p}>", f.default_on_error)
                })
            }
            Type::Any if optional => Some(format!("{rt}::de::any")),
            _ if f.default_on_error && f.skip_invalid_items => Some(format!("{rt}::de::lenient_items")),
            // A scalar reads in place: a value of another JSON type is skipped, nothing buffered.
            _ if f.default_on_error && self.is_scalar(&f.ty) => Some(format!("{rt}::de::lenient_scalar")),
            // Any object is the right shape: streamed, nothing captured (`_meta`).
            Type::Object if f.default_on_error => Some(format!("{rt}::de::lenient_meta")),
            _ if f.default_on_error => Some(format!("{rt}::de::lenient")),
            _ if f.skip_invalid_items => Some(format!("{rt}::de::items")),
            _ if f.default_on_null && f.required => Some(format!("{rt}::de::null_as_default")),
            // serde would read a missing `Option` field as `None`; a required one must be present.
            _ if f.required && f.nullable => Some(format!("{rt}::de::present")),
            _ => None,
        }
    }

    fn is_scalar(&self, ty: &Type) -> bool {
        match ty {
            Type::String { .. } => ty.string_rule().is_none(),
            Type::Base64 | Type::Boolean => true,
            Type::Integer { .. } | Type::Number { .. } => !ty.checks_range(),
            Type::Ref(name) => self.scalars.contains(name),
            _ => false,
        }
    }

    fn field_docs(f: &Field) -> TokenStream {
        let mut text = f.docs.clone().unwrap_or_default();
        let mut notes = Vec::new();
        if let Some(d) = &f.default {
            notes.push(format!("Schema default when omitted: `{d}` (never written back)."));
        }
        match &f.ty {
            Type::String { format, min_length, max_length, pattern } => {
                if let Some(fmt) = format {
                    notes.push(format!("Format: `{fmt}`."));
                }
                if let Some(n) = min_length.filter(|n| *n > 0) {
                    notes.push(format!("At least {n} character(s) (`minLength`, checked on decode)."));
                }
                if let Some(n) = max_length {
                    notes.push(format!("At most {n} character(s) (`maxLength`, checked on decode)."));
                }
                if let Some(p) = pattern {
                    notes.push(format!("Matches the pattern `{p}` (`pattern`, checked on decode)."));
                }
            }
            Type::Array { min_items, max_items, unique_items, .. } => {
                if let Some(n) = min_items {
                    notes.push(format!("At least {n} item(s) (`minItems`, not checked on decode)."));
                }
                if let Some(n) = max_items {
                    notes.push(format!("At most {n} item(s) (`maxItems`, not checked on decode)."));
                }
                if *unique_items {
                    notes.push("No two items equal (`uniqueItems`, not checked on decode).".to_owned());
                }
            }
            _ => {}
        }
        if !notes.is_empty() {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&notes.join("\n"));
        }
        if text.is_empty() {
            text = format!("The `{}` property.", f.name);
        }
        docs(&Some(text))
    }

    /// An upsert: the state struct, deriving `AcpPatch` with the wire definition
    /// as its patch type (the wire format is the derive's: omitted keeps, `null`
    /// clears, a malformed value keeps).
    fn upsert_state(&self, def: &Def, s: &Struct, upsert: &crate::model::Upsert) -> Vec<TokenStream> {
        let state = ident(&upsert.state);
        let wire = str_lit(&def.rust_name);
        let mut fields = Vec::new();
        let mut defaults = Vec::new();
        for f in &s.fields {
            let (fname, wire_name, fd) = (ident(&f.rust_name), str_lit(&f.name), Self::field_docs(f));
            let t = self.ty(&f.ty);
            let sii = if f.skip_invalid_items { quote!(#[acp(skip_invalid_items)]) } else { quote!() };
            let repr = StateRepr::of(f, upsert);
            let boxed =
                if repr.boxed_in_patch(&f.ty, |r| self.objects.contains(r)) { quote!(#[acp(boxed)]) } else { quote!() };
            // How a lenient value is read: a scalar in place, any JSON in place,
            // anything else captured and decoded (a wrong shape inside is `Keep`).
            let read = if self.is_scalar(&f.ty) { quote!(#[acp(scalar)]) } else { quote!() };
            let (attr, ty) = match repr {
                StateRepr::Key => (quote!(#[acp(key)]), t),
                StateRepr::Required => (quote!(#[acp(required)]), t),
                StateRepr::ByKey => (quote!(#[acp(by_key)]), quote!(::core::option::Option<#t>)),
                StateRepr::List => (sii, t),
                StateRepr::Reset(reset) => {
                    let v = str_lit(reset.as_str().unwrap_or_default());
                    let doc =
                        format!(" `{}` (the value an upsert's `null` resets to).", reset.as_str().unwrap_or_default());
                    defaults.push(quote! {
                            impl ::core::default::Default for #t {
                                #[doc = #doc]
                                fn default() -> Self {
                                    <Self as ::core::str::FromStr>::from_str(#v).unwrap_or_else(|_| unreachable!("checked by codegen"))
                                }
                            }
                        });
                    (read, t)
                }
                StateRepr::AnyValue => (quote!(#boxed #[acp(any_json)]), t),
                StateRepr::Optional => (quote!(#sii #boxed #read), quote!(::core::option::Option<#t>)),
            };
            fields.push(quote! { #fd #attr #[serde(rename = #wire_name)] pub #fname: #ty, });
        }
        // The wire type keeps the schema's description; the state says what it is.
        let wire_doc = str_lit(&Self::description(def));
        let state_doc = format!(
            " The stored state of an entity that [`{}`] patches (an upsert: omitted keeps, `null` clears, a value sets).",
            def.rust_name
        );
        // The wire patch keeps unknown properties like every generated struct.
        let keep = if s.additional == Additional::False { quote!() } else { quote!(, keep_unknown) };
        // The derive writes the direct decoder of the wire type.
        let keep = if self.is_direct(def) { quote!(#keep, json_reader) } else { keep };
        let mut items = vec![quote! {
            #[doc = #state_doc]
            ///
            /// Generated from `schema/upserts.json`; the wire type is derived by `AcpPatch`.
            #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize, ::acp_bindings::AcpPatch)]
            #[acp(patch = #wire, patch_doc = #wire_doc #keep)]
            #[non_exhaustive]
            pub struct #state { #(#fields)* }
        }];
        items.extend(defaults);
        items
    }

    fn structure(&self, def: &Def, s: &Struct) -> Vec<TokenStream> {
        if let Some(upsert) = &def.upsert {
            return self.upsert_state(def, s, upsert);
        }
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let mut fields = Vec::new();
        for f in &s.fields {
            let (fd, attrs, fname, ft) =
                (Self::field_docs(f), self.field_attrs(f), ident(&f.rust_name), self.field_type(f));
            fields.push(quote! { #fd #attrs pub #fname: #ft, });
        }
        if let Some(fl) = &s.flatten {
            let fd = docs_or(&fl.docs, || format!("The variant part of this object (see [`{}`]).", fl.union));
            let (fname, ft) = (ident(&fl.rust_name), self.rust_name(&fl.union));
            fields.push(quote! { #fd #[serde(flatten)] pub #fname: #ft, });
        }
        let keeps = s.keeps_rest();
        if keeps {
            fields.push(quote! {
                /// Properties the schema does not name, in the order they came; written
                /// back after the known ones.
                #[serde(flatten)]
                pub additional_properties: #rt::Extra,
            });
        } else if let Some(rest) = &s.rest {
            // `additionalProperties: {schema}`: serde's derive reads every other
            // property as the rest's type (a value of another type fails the object).
            let t = self.ty(rest);
            fields.push(quote! {
                /// The properties the schema does not name, each of the type its
                /// `additionalProperties` gives.
                #[serde(flatten)]
                pub additional_properties: ::std::collections::BTreeMap<::std::string::String, #t>,
            });
        } else if s.keeps_unknown() {
            // Beside a flattened union (whose arm keeps what it does not name).
            fields.push(quote! {
                /// Properties the schema does not name, kept as received.
                #[serde(flatten)]
                pub additional_properties: #rt::JsonObject,
            });
        }
        let all_optional = s.fields.iter().all(|f| !f.required) && s.flatten.is_none();
        let default = if all_optional { quote!(Default,) } else { quote!() };
        let derive_de = if keeps { quote!() } else { quote!(::serde::Deserialize,) };
        let mut items = vec![quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, #default ::serde::Serialize, #derive_de)]
            #[non_exhaustive]
            pub struct #name { #(#fields)* }
        }];
        if keeps {
            items.push(self.keeping_deserialize(def, s));
        }
        items.push(self.builder(def, s));
        items.extend(s.fields.iter().filter_map(|f| self.str_rule(f)));
        items.extend(s.fields.iter().filter_map(|f| self.bound_rule(f)));
        items
    }

    /// `Deserialize` for a struct that keeps unknown properties: the visitor
    /// serde's derive would write (known keys matched without allocating, each
    /// field decoded as it streams by, with its `deserialize_with` helper),
    /// except that an unknown key and its value go to `additional_properties`
    /// instead of being skipped.
    fn keeping_deserialize(&self, def: &Def, s: &Struct) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let expecting = format!("a {} object", def.rust_name);
        let struct_name = str_lit(&def.rust_name);
        let wires: Vec<Literal> = s.fields.iter().map(|f| str_lit(&f.name)).collect();
        let index: Vec<Literal> = (0..s.fields.len()).map(Literal::usize_unsuffixed).collect();
        let slots: Vec<proc_macro2::Ident> = (0..s.fields.len()).map(|i| format_ident!("v{i}")).collect();
        let types: Vec<TokenStream> = s.fields.iter().map(|f| self.field_type(f)).collect();
        let mut wrappers = Vec::new();
        let mut reads = Vec::new();
        let mut inits = Vec::new();
        let mut direct_reads = Vec::new();
        for (i, f) in s.fields.iter().enumerate() {
            let (slot, wire, ft) = (&slots[i], &wires[i], &types[i]);
            let rt_path = rt.to_string().replace(' ', "");
            let read = match self.deserialize_with(f) {
                // A rule with a reader type: one instantiation per (rule, field type), shared.
                Some(path) if reader(&path, &rt_path).is_some() => {
                    let m = format_ident!("{}", reader(&path, &rt_path).unwrap_or_default());
                    direct_reads.push(direct::Read::Rule(m.clone()));
                    quote!(map.next_value_seed(#rt::read::Field::<#rt::read::#m, #ft>::new())?)
                }
                Some(path) => {
                    let w = format_ident!("__W{i}");
                    let path: syn::Expr = syn::parse_str(&path).expect("helper paths parse");
                    direct_reads.push(direct::Read::Helper(path.clone()));
                    wrappers.push(quote! {
                        struct #w(#ft);
                        impl<'de> ::serde::Deserialize<'de> for #w {
                            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                                #path(d).map(#w)
                            }
                        }
                    });
                    quote!(map.next_value::<#w>()?.0)
                }
                None => {
                    direct_reads.push(direct::Read::Plain);
                    quote!(map.next_value::<#ft>()?)
                }
            };
            reads.push(quote!(#rt::de::once(&mut #slot, #wire, #read)));
            let fname = ident(&f.rust_name);
            inits.push(if f.required {
                quote!(#fname: #rt::de::required(#slot, #wire)?)
            } else {
                quote!(#fname: #slot.unwrap_or_default())
            });
        }
        // Properties whose schema is `false`: present, they fail the object.
        let (mut names, mut index, mut reads) = (wires.clone(), index, reads);
        for (i, name) in s.forbidden.iter().enumerate() {
            let message = format!("`{name}` is not allowed in {} (its schema is `false`)", def.rust_name);
            names.push(str_lit(name));
            index.push(Literal::usize_unsuffixed(s.fields.len() + i));
            reads.push(quote!(::core::result::Result::Err(<A::Error as ::serde::de::Error>::custom(#message))));
        }
        let (index_fn, read_fn) = visitor_closures(&names, &index, &reads);
        // A direct decoder: the struct name that sends the crate's reader to
        // it, the visitor method that receives the reader's text, the decoder.
        let (struct_name, visit_direct, from_json) = if self.is_direct(def) {
            let fast = self.fast_path();
            (
                quote!(#fast::STRUCT),
                quote! {
                    fn visit_borrowed_str<E: ::serde::de::Error>(self, text: &'de str) -> ::core::result::Result<#name, E> {
                        #fast::visit(text, self)
                    }
                },
                self.keeping_from_json(def, s, &direct_reads),
            )
        } else {
            (quote!(#struct_name), quote!(), quote!())
        };
        quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                    const FIELDS: &[&str] = &[#(#wires),*];
                    #(#wrappers)*
                    struct __Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for __Visitor {
                        type Value = #name;
                        fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                            f.write_str(#expecting)
                        }
                        fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<#name, A::Error> {
                            #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                            let rest = #rt::de::fields(&mut map, #index_fn, #read_fn)?;
                            ::core::result::Result::Ok(#name { #(#inits,)* additional_properties: rest })
                        }
                        #visit_direct
                    }
                    deserializer.deserialize_struct(#struct_name, FIELDS, __Visitor)
                }
            }
            #from_json
        }
    }

    fn builder(&self, def: &Def, s: &Struct) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let mut params = Vec::new();
        let mut inits = Vec::new();
        let mut setters = Vec::new();
        for f in &s.fields {
            let fname = ident(&f.rust_name);
            let t = self.ty(&f.ty);
            if f.required {
                let ft = self.field_type(f);
                params.push(quote!(#fname: impl ::core::convert::Into<#ft>));
                inits.push(quote!(#fname: #fname.into()));
                continue;
            }
            inits.push(quote!(#fname: ::core::default::Default::default()));
            let value =
                if self.boxed(&f.ty) { quote!(::std::boxed::Box::new(value.into())) } else { quote!(value.into()) };
            let set = if f.nullable && f.ty != Type::Any {
                quote!(#rt::Nullable::Value(#value))
            } else {
                quote!(::core::option::Option::Some(#value))
            };
            let bare = f.rust_name.trim_start_matches("r#");
            let setter = if bare == "new" { format_ident!("with_new") } else { ident(&f.rust_name) };
            let doc = format!(" Sets `{}`.", f.name);
            setters.push(quote! {
                #[doc = #doc]
                #[must_use]
                pub fn #setter(mut self, value: impl ::core::convert::Into<#t>) -> Self {
                    self.#fname = #set;
                    self
                }
            });
        }
        if let Some(fl) = &s.flatten {
            let (fname, ft) = (ident(&fl.rust_name), self.rust_name(&fl.union));
            params.push(quote!(#fname: impl ::core::convert::Into<#ft>));
            inits.push(quote!(#fname: #fname.into()));
        }
        if s.keeps_unknown() || s.keeps_rest() || s.rest.is_some() {
            inits.push(quote!(additional_properties: ::core::default::Default::default()));
        }
        let new_doc =
            format!(" Creates a `{}` from its required fields; every optional field is omitted.", def.rust_name);
        let allow = if params.len() > 7 { quote!(#[allow(clippy::too_many_arguments)]) } else { quote!() };
        quote! {
            impl #name {
                #[doc = #new_doc]
                #allow
                pub fn new(#(#params),*) -> Self {
                    Self { #(#inits),* }
                }
                #(#setters)*
            }
        }
    }

    // ---- newtypes and any-JSON ------------------------------------------------------

    fn newtype(&self, def: &Def, t: &Type) -> Vec<TokenStream> {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let rt_path = rt.to_string().replace(' ', "");
        // `not` on the definition: the excluded strings are refused on decode.
        let excluded: Vec<&str> = def.excluded.iter().filter_map(Value::as_str).collect();
        let (id_str, excludes) = if excluded.is_empty() {
            (str_lit(&format!("{rt_path}::de::id_str")), quote!())
        } else {
            let pointer = str_lit(&format!("#{}/not", def.pointer));
            (
                str_lit(&format!("{rt_path}::de::id_str_excluding::<_, {}>", def.rust_name)),
                quote! {
                    impl #rt::de::Pointer for #name {
                        const POINTER: &'static str = #pointer;
                    }
                    impl #rt::de::Excludes for #name {
                        const EXCLUDED: &'static [&'static str] = &[#(#excluded),*];
                    }
                },
            )
        };
        let from_str = if excluded.is_empty() {
            quote!(::core::option::Option::Some(Self(#rt::de::smol(v))))
        } else {
            quote!((!<Self as #rt::de::Excludes>::EXCLUDED.contains(&v)).then(|| Self(#rt::de::smol(v))))
        };
        match t {
            Type::String { .. } => vec![quote! {
                #doc
                #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize, ::serde::Deserialize)]
                #[serde(transparent)]
                pub struct #name(#[serde(deserialize_with = #id_str)] pub #rt::SmolStr);

                #excludes

                impl #rt::de::Scalar for #name {
                    fn from_str(v: &str) -> ::core::option::Option<Self> {
                        #from_str
                    }
                }

                impl #name {
                    /// Wraps a string (`&str`, `String`, `Arc<str>`, `SmolStr`).
                    pub fn new(value: impl ::core::convert::Into<#rt::SmolStr>) -> Self {
                        Self(value.into())
                    }
                    /// The string.
                    pub fn as_str(&self) -> &str {
                        &self.0
                    }
                }
                impl ::core::convert::From<&str> for #name {
                    fn from(value: &str) -> Self { Self(value.into()) }
                }
                impl ::core::convert::From<::std::string::String> for #name {
                    fn from(value: ::std::string::String) -> Self { Self(value.into()) }
                }
                impl ::core::convert::AsRef<str> for #name {
                    fn as_ref(&self) -> &str { &self.0 }
                }
                impl ::core::borrow::Borrow<str> for #name {
                    fn borrow(&self) -> &str { &self.0 }
                }
                impl ::core::fmt::Display for #name {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result { f.write_str(&self.0) }
                }
            }],
            Type::Integer { format, .. } => {
                let it = int_type(*format);
                // The definition's value as a required field, at the definition's pointer.
                let value = Field {
                    name: String::new(),
                    pointer: def.pointer.clone(),
                    rust_name: String::new(),
                    docs: None,
                    ty: t.clone(),
                    required: true,
                    nullable: false,
                    default_on_error: false,
                    skip_invalid_items: false,
                    default_on_null: false,
                    default: None,
                };
                let check = match self.deserialize_with(&value) {
                    Some(with) => {
                        let with = str_lit(&with);
                        quote!(#[serde(deserialize_with = #with)])
                    }
                    None => quote!(),
                };
                let bound = self.bound_rule(&value);
                vec![quote! {
                    #bound

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
                }]
            }
            other => {
                let inner = self.ty(other);
                let ord = self.total_order(def);
                vec![quote! {
                    #doc
                    #[derive(Debug, Clone, PartialEq, #ord ::serde::Serialize, ::serde::Deserialize)]
                    #[serde(transparent)]
                    pub struct #name(pub #inner);

                    impl ::core::convert::From<#inner> for #name {
                        fn from(value: #inner) -> Self { Self(value) }
                    }
                }]
            }
        }
    }

    fn any(&self, def: &Def) -> Vec<TokenStream> {
        let name = ident(&def.rust_name);
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
            pub struct #name(pub ::serde_json::Value);

            impl ::core::convert::From<::serde_json::Value> for #name {
                fn from(value: ::serde_json::Value) -> Self { Self(value) }
            }
        }]
    }
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

/// The two closures a generated visitor passes to `runtime::de::fields`: the
/// position of a known key (`names[i]` or any of its spellings) and the read
/// of the field at a position. The macro crate writes the same shape for
/// `keep_unknown` patches.
fn visitor_closures(names: &[Literal], index: &[Literal], reads: &[TokenStream]) -> (TokenStream, TokenStream) {
    if names.is_empty() {
        return (quote!(|_| ::core::option::Option::None), quote!(|_, _| ::core::result::Result::Ok(())));
    }
    (
        quote! {
            |k| match k {
                #(#names => ::core::option::Option::Some(#index),)*
                _ => ::core::option::Option::None,
            }
        },
        quote! {
            |i, map| match i {
                #(#index => #reads,)*
                _ => ::core::unreachable!("`fields` passes only positions `index` returned"),
            }
        },
    )
}

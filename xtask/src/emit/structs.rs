//! Structs: the wire struct with its fields, rules and builder, the
//! `Deserialize` visitor that keeps unknown properties, and the state struct
//! of an upsert.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{direct, docs, docs_or, ident, int_type, str_lit, Emitter};
use crate::model::*;
use crate::plan::{Repr, StateRepr};

impl Emitter {
    /// Whether a struct field or union arm of type `t` holds a recursive
    /// definition, and so is boxed ([`crate::plan::Decisions::recursive`]).
    pub(crate) fn boxed(&self, t: &Type) -> bool {
        matches!(t, Type::Ref(r) if self.recursive.contains(r))
    }

    /// The Rust type of a field, as the plan represents it.
    pub(super) fn field_type(&self, f: &Field) -> TokenStream {
        let rt = &self.rt;
        let t = self.ty(&f.ty);
        let planned = self.fields.get(f);
        let t = if planned.boxed { quote!(::std::boxed::Box<#t>) } else { t };
        match planned.wire_repr() {
            Repr::Value => t,
            Repr::RequiredNullable | Repr::OptionalAny | Repr::Optional => quote!(::core::option::Option<#t>),
            Repr::Nullable => quote!(#rt::Nullable<#t>),
            Repr::Patch => unreachable!("upsert wire types are derived from their state struct"),
        }
    }

    pub(super) fn field_attrs(&self, f: &Field) -> TokenStream {
        let rt = self.rt.to_string().replace(' ', "");
        let wire = str_lit(&f.name);
        let mut parts = vec![quote!(rename = #wire)];
        let repr = self.fields.get(f).wire_repr();
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
    pub(super) fn rule_name(kind: &str, f: &Field) -> String {
        let tail: String = f.pointer.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        format!("__{kind}{tail}")
    }

    /// The hidden type naming where a bounded number's bounds are, for its errors.
    pub(super) fn bound_rule(&self, f: &Field) -> Option<TokenStream> {
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
    pub(super) fn str_rule(&self, f: &Field) -> Option<TokenStream> {
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
    pub(super) fn deserialize_with(&self, f: &Field) -> Option<String> {
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

    pub(super) fn is_scalar(&self, ty: &Type) -> bool {
        match ty {
            Type::String { .. } => ty.string_rule().is_none(),
            Type::Base64 | Type::Boolean => true,
            Type::Integer { .. } | Type::Number { .. } => !ty.checks_range(),
            Type::Ref(name) => self.scalars.contains(name),
            _ => false,
        }
    }

    pub(super) fn field_docs(f: &Field) -> TokenStream {
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
    pub(super) fn upsert_state(&self, def: &Def, s: &Struct, upsert: &crate::model::Upsert) -> Vec<TokenStream> {
        let state = ident(&upsert.state);
        let wire = str_lit(&def.rust_name);
        let mut fields = Vec::new();
        let mut defaults = Vec::new();
        for f in &s.fields {
            let (fname, wire_name, fd) = (ident(&f.rust_name), str_lit(&f.name), Self::field_docs(f));
            let t = self.ty(&f.ty);
            let sii = if f.skip_invalid_items { quote!(#[acp(skip_invalid_items)]) } else { quote!() };
            let planned = self.fields.get(f);
            let repr = planned.state_repr().clone();
            let boxed = if planned.boxed_in_patch { quote!(#[acp(boxed)]) } else { quote!() };
            // How a lenient value is read: a scalar in place, any JSON in place,
            // anything else captured and decoded (a wrong shape inside is `Keep`).
            let read = if self.is_scalar(&f.ty) { quote!(#[acp(scalar)]) } else { quote!() };
            let (attr, ty) = match repr {
                StateRepr::Key => (quote!(#[acp(key)]), t),
                StateRepr::Required => (quote!(#[acp(required)]), t),
                StateRepr::ByKey => (quote!(#[acp(by_key)]), quote!(::core::option::Option<#t>)),
                StateRepr::List => (sii, t),
                StateRepr::Reset(reset) => {
                    let v = str_lit(&reset);
                    let doc = format!(" `{reset}` (the value an upsert's `null` resets to).");
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

    pub(super) fn structure(&self, def: &Def, s: &Struct) -> Vec<TokenStream> {
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
    pub(super) fn keeping_deserialize(&self, def: &Def, s: &Struct) -> TokenStream {
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

    pub(super) fn builder(&self, def: &Def, s: &Struct) -> TokenStream {
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
            let value = if self.fields.get(f).boxed {
                quote!(::std::boxed::Box::new(value.into()))
            } else {
                quote!(value.into())
            };
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

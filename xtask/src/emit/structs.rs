//! Structs: the wire struct with its fields, rules and builder (a struct that
//! keeps unknown properties derives `AcpDeserialize`, which reads its
//! decoding from the attributes written here), and the state struct of an
//! upsert.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{docs, docs_or, ident, str_lit, Emitter};
use crate::model::*;
use crate::plan::{ReadRule, Repr, StateRepr};

impl Emitter {
    /// The Rust type of a field, as the plan represents it.
    pub(super) fn field_type(&self, f: &Field) -> TokenStream {
        let rt = &self.paths.runtime;
        let t = self.ty(&f.ty);
        let planned = self.decisions.fields.get(f);
        let t = if planned.boxed { quote!(::std::boxed::Box<#t>) } else { t };
        match planned.wire_repr() {
            Repr::Value => t,
            Repr::RequiredNullable | Repr::OptionalAny | Repr::Optional => quote!(::core::option::Option<#t>),
            Repr::Nullable => quote!(#rt::Nullable<#t>),
            Repr::Patch => unreachable!("upsert wire types are derived from their state struct"),
        }
    }

    /// The field's `#[serde(..)]`: its wire name (when `renamed`: the
    /// struct's `rename_all` does not give it), whether it may be missing (`default`) and is skipped when
    /// absent, and its rule's reader: for serde's derived `Deserialize`
    /// (`derived_de`) as `deserialize_with`, for `AcpDeserialize` (a struct
    /// that keeps unknown properties) as `#[acp(read = Reader)]`.
    pub(super) fn field_attrs(&self, f: &Field, derived_de: bool, renamed: bool) -> TokenStream {
        let rt = self.paths.runtime.to_string().replace(' ', "");
        let wire = str_lit(&f.name);
        let mut parts = if renamed { vec![quote!(rename = #wire)] } else { vec![] };
        let repr = self.decisions.fields.get(f).wire_repr();
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
        let read = &self.decisions.fields.get(f).read;
        let acp = match derived_de {
            true => {
                parts.extend(self.deserialize_with(read));
                quote!()
            }
            false => self.reader_type(read).map(|r| quote!(#[acp(read = #r)])).unwrap_or_default(),
        };
        let serde = if parts.is_empty() {
            quote!()
        } else {
            quote! { #[serde( #(#parts),* )] }
        };
        quote! { #serde #acp }
    }

    pub(super) fn field_docs(&self, def: &Def, f: &Field) -> TokenStream {
        let mut text = self.docs_of(def, &f.name, &f.docs).clone().unwrap_or_default();
        let mut notes = Vec::new();
        match self.decisions.merged.stable_defaults.get(&(def.name.clone(), f.name.clone())) {
            // An item rendered once whose field's default differs between the builds.
            Some(stable) => {
                let show = |d: &Option<serde_json::Value>| d.as_ref().map_or("none".to_owned(), |d| format!("`{d}`"));
                notes.push(format!(
                    "Schema default when omitted: {} (with the `unstable` feature: {}; never written back).",
                    show(stable),
                    show(&f.default)
                ));
            }
            None => {
                if let Some(d) = &f.default {
                    notes.push(format!("Schema default when omitted: `{d}` (never written back)."));
                }
            }
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
                // Checked by the field's rule; an upsert's patch field is the derive's, which does not.
                let checked = matches!(self.decisions.fields.get(f).read, crate::plan::ReadRule::ItemCount { .. });
                let checked = if checked { "checked" } else { "not checked" };
                if let Some(n) = min_items {
                    notes.push(format!("At least {n} item(s) (`minItems`, {checked} on decode)."));
                }
                if let Some(n) = max_items {
                    notes.push(format!("At most {n} item(s) (`maxItems`, {checked} on decode)."));
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
        let mut wire_fields = Vec::new();
        let mut wire_struct = None;
        let mut defaults = Vec::new();
        for f in &s.fields {
            let (fname, wire_name, fd) = (ident(&f.rust_name), str_lit(&f.name), self.field_docs(def, f));
            wire_fields.push(self.patch_field(f, &fd));
            let t = self.ty(&f.ty);
            let planned = self.decisions.fields.get(f);
            let repr = planned.state_repr().clone();
            let boxed = if planned.boxed_in_patch { quote!(#[acp(boxed)]) } else { quote!() };
            // How a lenient value is read, as the plan's patch rule says (the
            // key and required fields have none: they are read as they are).
            let (skip_invalid_items, scalar) = match planned.read {
                ReadRule::Patch { skip_invalid_items, scalar } => (skip_invalid_items, scalar),
                _ => (false, false),
            };
            let sii = if skip_invalid_items { quote!(#[acp(skip_invalid_items)]) } else { quote!() };
            let read = if scalar { quote!(#[acp(scalar)]) } else { quote!() };
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
                // Held as its text (`RawJson`, one block), in the state as
                // in the patch: see `StateRepr::AnyValue`.
                StateRepr::AnyValue => {
                    let krate = &self.paths.root;
                    (quote!(), quote!(::core::option::Option<#krate::RawJson>))
                }
                StateRepr::Optional => (quote!(#sii #boxed #read), quote!(::core::option::Option<#t>)),
            };
            fields.push(quote! { #fd #attr #[serde(rename = #wire_name)] pub #fname: #ty, });
        }
        let state_doc = format!(
            " The stored state of an entity that [`{}`] patches (an upsert: omitted keeps, `null` clears, a value sets).",
            def.rust_name
        );
        // The wire patch keeps unknown properties like every generated struct,
        // and is then written here, where a reader looks for it (`declared`);
        // the derive writes its decoder, builder and patch operations.
        let declared = crate::plan::Rest::of(s) != crate::plan::Rest::Refused;
        let how = if declared {
            wire_struct = Some(self.wire_patch(def, upsert, wire_fields));
            quote!(keep_unknown, declared)
        } else {
            // The wire type keeps the schema's description; the state says what it is.
            let wire_doc = str_lit(&self.description(def));
            quote!(patch_doc = #wire_doc)
        };
        // The derive writes the direct decoder of the wire type.
        let how = if self.is_direct(def) { quote!(#how, json_reader) } else { how };
        let source = if declared {
            format!(" Generated from `schema/upserts.json`, with its wire patch [`{}`].", def.rust_name)
        } else {
            format!(
                " Generated from `schema/upserts.json`; the wire patch [`{}`] is derived by `AcpPatch`.",
                def.rust_name
            )
        };
        let mut items: Vec<TokenStream> = wire_struct.into_iter().collect();
        let derive = self.acp_derive("AcpPatch");
        let acp = self.item_acp_attr(vec![quote!(patch = #wire), how]);
        items.push(quote! {
            #[doc = #state_doc]
            ///
            #[doc = #source]
            #[derive(Debug, Clone, PartialEq, ::serde::Serialize, ::serde::Deserialize, #derive)]
            #acp
            #[non_exhaustive]
            pub struct #state { #(#fields)* }
        });
        items.extend(defaults);
        items
    }

    /// An upsert's wire patch struct, declared beside its state struct
    /// (which derives `AcpPatch` with `declared`): the schema's description
    /// and fields, and the properties it does not name.
    fn wire_patch(&self, def: &Def, upsert: &crate::model::Upsert, mut fields: Vec<TokenStream>) -> TokenStream {
        let rt = &self.paths.runtime;
        let wire_name = ident(&def.rust_name);
        let wire_doc = self.item_docs(def);
        let ser = self.serialize_derive(def);
        let patch_doc = [
            format!(" The wire patch of [`{}`]: an omitted field keeps, `null` clears, a value", upsert.state),
            format!(" sets. `#[derive(AcpPatch)]` on [`{}`] writes its decoder, its builder", upsert.state),
            " (`new` and a setter per field) and `PatchOps`.".to_owned(),
        ];
        fields.push(quote! {
            /// Properties the wire object carried that this patch does not name, in
            /// their order; written back after the known ones (not applied).
            #[serde(flatten)]
            pub additional_properties: #rt::Extra,
        });
        quote! {
            #wire_doc
            ///
            #(#[doc = #patch_doc])*
            #[derive(Debug, Clone, PartialEq, #ser)]
            #[non_exhaustive]
            pub struct #wire_name { #(#fields)* }
        }
    }

    /// A field of an upsert's wire patch, as `#[derive(AcpPatch)]` types it
    /// from the state field: the key and required fields as they are, `_meta`
    /// patched per key, every other field a `Patch` of its value (boxed as the
    /// plan says), skipped on the wire when it keeps.
    fn patch_field(&self, f: &Field, docs: &TokenStream) -> TokenStream {
        let krate = &self.paths.root;
        let (fname, wire) = (ident(&f.rust_name), str_lit(&f.name));
        let planned = self.decisions.fields.get(f);
        let t = self.ty(&f.ty);
        let t = match planned.state_repr() {
            StateRepr::AnyValue => quote!(#krate::RawJson),
            _ if planned.boxed_in_patch => quote!(::std::boxed::Box<#t>),
            _ => t,
        };
        let rename = if f.name == f.rust_name { quote!() } else { quote!(rename = #wire,) };
        let ty = match planned.state_repr() {
            StateRepr::Key | StateRepr::Required => {
                let attr = if f.name == f.rust_name { quote!() } else { quote!(#[serde(rename = #wire)]) };
                return quote! { #docs #attr pub #fname: #t, };
            }
            StateRepr::ByKey => quote!(#krate::patch::ByKey),
            _ => quote!(#krate::Patch<#t>),
        };
        let skip = str_lit(&format!("{}::Patch::is_keep", krate.to_string().replace(' ', "")));
        quote! { #docs #[serde(#rename skip_serializing_if = #skip)] pub #fname: #ty, }
    }

    pub(super) fn structure(&self, def: &Def, s: &Struct) -> Vec<TokenStream> {
        if let Some(upsert) = &def.upsert {
            return self.upsert_state(def, s, upsert);
        }
        let rt = &self.paths.runtime;
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let mut fields = Vec::new();
        let rest = crate::plan::Rest::of(s);
        let keeps = rest == crate::plan::Rest::Extra;
        let pairs: Vec<(&str, &str)> = s.fields.iter().map(|f| (f.rust_name.as_str(), f.name.as_str())).collect();
        let (rename_all, renamed) = crate::plan::naming::field_naming(&pairs);
        for f in &s.fields {
            let attrs = self.field_attrs(f, !keeps, renamed.contains(&f.rust_name.as_str()));
            let (fd, fname, ft) = (self.field_docs(def, f), ident(&f.rust_name), self.field_type(f));
            let gate = self.cfg_of(def, &f.name);
            fields.push(quote! { #gate #fd #attrs pub #fname: #ft, });
        }
        if let Some(fl) = &s.flatten {
            let own = self.docs_of(def, crate::plan::merge::FLATTEN, &fl.docs);
            let fd = docs_or(own, || format!("The variant part of this object (see [`{}`]).", fl.union));
            let (fname, ft) = (ident(&fl.rust_name), self.rust_name(&fl.union));
            fields.push(quote! { #fd #[serde(flatten)] pub #fname: #ft, });
        }
        match &rest {
            crate::plan::Rest::Extra => fields.push(quote! {
                /// Properties the schema does not name, in the order they came; written
                /// back after the known ones.
                #[serde(flatten)]
                pub additional_properties: #rt::Extra,
            }),
            // `additionalProperties: {schema}`: serde's derive reads every other
            // property as the rest's type (a value of another type fails the object).
            crate::plan::Rest::Typed(t) => {
                let t = self.ty(t);
                fields.push(quote! {
                    /// The properties the schema does not name, each of the type its
                    /// `additionalProperties` gives.
                    #[serde(flatten)]
                    pub additional_properties: ::std::collections::BTreeMap<::std::string::String, #t>,
                });
            }
            // Beside a flattened union (whose arm keeps what it does not name).
            crate::plan::Rest::Object => fields.push(quote! {
                /// Properties the schema does not name, kept as received.
                #[serde(flatten)]
                pub additional_properties: #rt::JsonObject,
            }),
            crate::plan::Rest::InUnion | crate::plan::Rest::Refused => {}
        }
        let all_optional = s.fields.iter().all(|f| !f.required) && s.flatten.is_none();
        let default = if all_optional { quote!(Default,) } else { quote!() };
        // A struct that keeps unknown properties: `AcpDeserialize` reads the
        // attributes above (`acp-bindings-codegen` writes its decoders).
        let (derive_de, acp) = if self.decoder(def) == crate::plan::Decoder::AcpDeserialize {
            let direct = self.is_direct(def).then(|| quote!(direct));
            let forbidden = s.forbidden.iter().map(|n| quote!(forbidden = #n));
            let attrs: Vec<TokenStream> = direct.into_iter().chain(forbidden).collect();
            let derive = self.acp_derive("AcpDeserialize");
            (quote!(#derive,), self.item_acp_attr(attrs))
        } else if self.encoder(def) == crate::plan::Encoder::AcpSerialize {
            (quote!(::serde::Deserialize,), self.item_acp_attr(Vec::new()))
        } else {
            (quote!(::serde::Deserialize,), quote!())
        };
        let ser = self.serialize_derive(def);
        let rename_all = rename_all.map(|c| {
            let c = c.name();
            quote!(#[serde(rename_all = #c)])
        });
        let mut items = vec![quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, #default #ser, #derive_de)]
            #rename_all
            #acp
            #[non_exhaustive]
            pub struct #name { #(#fields)* }
        }];
        items.push(self.builder(def, s));
        for f in &s.fields {
            let hidden = self.hidden_rule_types(&self.decisions.fields.get(f).read, f);
            // Gated with their field, when only the unstable build has it.
            items.extend(super::gated(hidden, self.gate_of(def, &f.name)));
        }
        items
    }

    /// The derive that writes a struct's `Serialize` (the plan's [`Encoder`]).
    ///
    /// [`Encoder`]: crate::plan::Encoder
    fn serialize_derive(&self, def: &Def) -> TokenStream {
        match self.encoder(def) {
            crate::plan::Encoder::AcpSerialize => self.acp_derive("AcpSerialize"),
            _ => quote!(::serde::Serialize),
        }
    }

    pub(super) fn builder(&self, def: &Def, s: &Struct) -> TokenStream {
        let rt = &self.paths.runtime;
        let name = ident(&def.rust_name);
        let mut params = Vec::new();
        let mut inits = Vec::new();
        let mut setters = Vec::new();
        for f in &s.fields {
            let fname = ident(&f.rust_name);
            let t = self.ty(&f.ty);
            // Only an optional field is gated (the plan's merge rule).
            let gate = self.cfg_of(def, &f.name);
            let plan = self.decisions.fields.get(f);
            // The plan's representation decides: a required field is a
            // parameter of `new`, an optional one gets a setter.
            let repr = plan.wire_repr();
            if matches!(repr, Repr::Value | Repr::RequiredNullable) {
                let ft = self.field_type(f);
                params.push(quote!(#fname: impl ::core::convert::Into<#ft>));
                inits.push(quote!(#fname: #fname.into()));
                continue;
            }
            inits.push(quote!(#gate #fname: ::core::default::Default::default()));
            let value = if plan.boxed { quote!(::std::boxed::Box::new(value.into())) } else { quote!(value.into()) };
            let set = match repr {
                Repr::Nullable => quote!(#rt::Nullable::Value(#value)),
                _ => quote!(::core::option::Option::Some(#value)),
            };
            let bare = f.rust_name.trim_start_matches("r#");
            let setter = if bare == "new" { format_ident!("with_new") } else { ident(&f.rust_name) };
            let doc = format!(" Sets `{}`.", f.name);
            setters.push(quote! {
                #gate
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
        if crate::plan::Rest::of(s).has_field() {
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

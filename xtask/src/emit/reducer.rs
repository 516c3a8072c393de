//! The session reducer of a version module, rendered from the plan's
//! [`Reducer`] (the `reducer` section of `schema/upserts.json`): the reducer
//! struct with one field per collection, the enum of a `kinds` collection,
//! `apply` with one match arm per configured update (gated as its union
//! arm), and the JSON both runtimes write for the state. The map and the
//! patch helpers are the runtime's (`runtime::session`).

use proc_macro2::TokenStream;
use quote::quote;

use super::{ident, Emitter};
use crate::plan::reducer::{Collection, Held, Rebuild, Reducer, Rule, Upserted};
use crate::plan::Gate;

impl Emitter {
    /// The reducer's items.
    pub fn reducer(&self, r: &Reducer) -> Vec<TokenStream> {
        let (rt, root) = (&self.paths.runtime, &self.paths.root);
        let mut items = Vec::new();
        let mut fields = Vec::new();
        let mut entries = Vec::new();
        for c in &r.collections {
            let (doc, name, field) = (format!(" {}", c.doc), &c.name, ident(&c.field));
            let ty = match &c.holds {
                Held::Upsert(u) => {
                    let (key, state) = (self.key_ty(u), ident(&u.state));
                    quote!(#rt::session::Ordered<#key, #state>)
                }
                Held::Kinds { name, doc, kinds, key } => {
                    items.push(self.kinds_enum(name, doc, kinds, r, c));
                    let (key, name) = (self.ty(key), ident(name));
                    quote!(#rt::session::Ordered<#key, #name>)
                }
                Held::Whole { ty, .. } => {
                    let ty = ident(ty);
                    quote!(#rt::session::Ordered<::std::string::String, #ty>)
                }
                Held::One(u) => {
                    let state = ident(&u.state);
                    quote!(::core::option::Option<#state>)
                }
            };
            fields.push(quote! { #[doc = #doc] pub #field: #ty, });
            entries.push(quote! { map.serialize_entry(#name, &self.#field)?; });
        }
        let arms: Vec<TokenStream> = r.arms.iter().map(|a| self.reducer_arm(r, a)).collect();
        let compact = r.rebuild.as_ref().map(|rebuild| self.compact(r, rebuild));
        let (name, union) = (ident(&r.name), ident(&r.union));
        let doc = format!(" {}", r.doc);
        let count = r.collections.len();
        let names: Vec<String> = r.collections.iter().map(|c| format!("`{}`", c.name)).collect();
        let ser_doc = format!(
            " `{{{}}}`: entities in first-seen order, every field present.",
            names.join(", ").replace('`', "\"")
        );
        items.push(quote! {
            #[doc = #doc]
            ///
            /// Generated from the `reducer` section of `schema/upserts.json`: an upsert for a new
            /// key creates the entity, a later one patches it; a chunk appends to the entity with
            /// its key (creating it where the configuration says so).
            #[derive(Debug, Clone, Default, PartialEq)]
            pub struct #name { #(#fields)* }

            impl #name {
                /// A reducer with no entities.
                pub fn new() -> Self {
                    Self::default()
                }

                /// Applies one update. Updates this reducer does not track leave it unchanged.
                pub fn apply(&mut self, update: #union) {
                    #[allow(unused_imports)]
                    use #root::patch::Patchable as _;
                    match update {
                        #(#arms)*
                        _ => {}
                    }
                }

                #compact
            }

            impl ::serde::Serialize for #name {
                #[doc = #ser_doc]
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    use ::serde::ser::SerializeMap as _;
                    let mut map = serializer.serialize_map(::core::option::Option::Some(#count))?;
                    #(#entries)*
                    map.end()
                }
            }
        });
        items
    }

    /// `compact`: each collection written back, entity by entity in
    /// first-seen order, as the one update that rebuilds it
    /// ([`crate::plan::reducer::Rebuild`]).
    fn compact(&self, r: &Reducer, rebuild: &[Rebuild]) -> TokenStream {
        let (rt, union) = (&self.paths.runtime, ident(&r.union));
        let variant = |b: &Rebuild| ident(&r.arms[b.arm].variant);
        let mut writes = Vec::new();
        for (at, c) in r.collections.iter().enumerate() {
            let field = ident(&c.field);
            let mine: Vec<&Rebuild> = rebuild.iter().filter(|b| b.collection == at).collect();
            let Some(first) = mine.first() else { continue };
            let (v, gate) = (variant(first), r.arms[first.arm].gate.cfg());
            writes.push(match &c.holds {
                Held::Upsert(_) => quote! {
                    #gate
                    for (_, s) in self.#field.iter() {
                        out.push(#union::#v(#rt::session::creating_patch(s)));
                    }
                },
                Held::One(_) => quote! {
                    #gate
                    if let ::core::option::Option::Some(s) = &self.#field {
                        out.push(#union::#v(#rt::session::creating_patch(s)));
                    }
                },
                Held::Kinds { name, kinds, .. } => {
                    let name = ident(name);
                    let arms = mine.iter().map(|b| {
                        let (kv, v) = (ident(&kinds[b.kind.expect("a kind")].1), variant(b));
                        let gate = r.arms[b.arm].gate.cfg();
                        quote!(#gate #name::#kv(s) => #union::#v(#rt::session::creating_patch(s)),)
                    });
                    // A kind no update of this build fills (or no update at all) holds no entity.
                    let rest = if mine.len() < kinds.len() || mine.iter().any(|b| r.arms[b.arm].gate != Gate::Always) {
                        quote!(#[allow(unreachable_patterns)] _ => continue,)
                    } else {
                        quote!()
                    };
                    quote! {
                        for (_, e) in self.#field.iter() {
                            out.push(match e { #(#arms)* #rest });
                        }
                    }
                }
                Held::Whole { .. } => {
                    let Rule::Put { payload, .. } = &r.arms[first.arm].rule else {
                        unreachable!("the plan rebuilds whole values with `put`")
                    };
                    let payload = ident(payload);
                    quote! {
                        #gate
                        for (_, value) in self.#field.iter() {
                            out.push(#union::#v(#payload::new(::core::clone::Clone::clone(value))));
                        }
                    }
                }
            });
        }
        let doc = format!(
            " The shortest [`{}`] stream that rebuilds this state: applied in order to a new reducer, \
             it gives one equal to this one.",
            r.union
        );
        quote! {
            #[doc = #doc]
            ///
            /// One update per entity, collection by collection in first-seen order: a message
            /// whole instead of its chunks, one upsert per tool call, terminal and compaction
            /// with every field that is not at its default, each plan as its latest whole
            /// update, the session's info and usage as one upsert each. What the state does not
            /// hold (updates this reducer does not track, the unknown members of a patch, the
            /// order between collections) is not written.
            pub fn compact(&self) -> ::std::vec::Vec<#union> {
                let mut out = ::std::vec::Vec::new();
                #(#writes)*
                out
            }
        }
    }

    fn key_ty(&self, u: &Upserted) -> TokenStream {
        self.ty(&u.key.as_ref().expect("a keyed upsert").2)
    }

    /// The enum of a `kinds` collection, with an accessor for each list
    /// property a chunk appends to, and its JSON (the state and its `kind`).
    fn kinds_enum(
        &self,
        name: &str,
        doc: &str,
        kinds: &[(String, String, String, Upserted)],
        r: &Reducer,
        c: &Collection,
    ) -> TokenStream {
        let name = ident(name);
        let doc = format!(" {doc}");
        let variants = kinds.iter().map(|(_, v, d, u)| {
            let (v, state, d) = (ident(v), ident(&u.state), format!(" {d}"));
            quote! { #[doc = #d] #v(#state), }
        });
        let into = r.collections.iter().position(|x| x.name == c.name);
        let mut lists: Vec<(String, String, &crate::model::Type)> = Vec::new();
        for a in r.arms.iter().filter(|a| Some(a.into) == into) {
            if let Rule::Append { to, item, .. } = &a.rule {
                if !lists.iter().any(|l| l.0 == to.rust) {
                    lists.push((to.rust.clone(), to.wire.clone(), item));
                }
            }
        }
        let accessors = lists.iter().map(|(rust, wire, item)| {
            let (get, get_mut) = (ident(rust), ident(&format!("{rust}_mut")));
            let arms = kinds.iter().map(|(_, v, _, _)| {
                let v = ident(v);
                quote!(#name::#v(s) => &s.#get,)
            });
            let arms_mut = kinds.iter().map(|(_, v, _, _)| {
                let v = ident(v);
                quote!(#name::#v(s) => &mut s.#get,)
            });
            let item = self.ty(item);
            let doc = format!(" The `{wire}` of whichever kind this is.");
            quote! {
                #[doc = #doc]
                pub fn #get(&self) -> &[#item] { match self { #(#arms)* } }
                fn #get_mut(&mut self) -> &mut ::std::vec::Vec<#item> { match self { #(#arms_mut)* } }
            }
        });
        let json = kinds.iter().map(|(tag, v, _, _)| {
            let v = ident(v);
            quote!(#name::#v(s) => (#tag, ::serde_json::to_value(s)),)
        });
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq)]
            pub enum #name { #(#variants)* }

            impl #name { #(#accessors)* }

            impl ::serde::Serialize for #name {
                /// The state, with its kind's tag as `kind`.
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::core::result::Result<S::Ok, S::Error> {
                    let (kind, value) = match self { #(#json)* };
                    let mut value = value.map_err(::serde::ser::Error::custom)?;
                    if let ::core::option::Option::Some(object) = value.as_object_mut() {
                        object.insert("kind".into(), kind.into());
                    }
                    ::serde::Serialize::serialize(&value, serializer)
                }
            }
        }
    }

    /// One match arm of `apply`.
    fn reducer_arm(&self, r: &Reducer, a: &crate::plan::reducer::Arm) -> TokenStream {
        let rt = &self.paths.runtime;
        let (union, variant) = (ident(&r.union), ident(&a.variant));
        let gate = a.gate.cfg();
        let c = &r.collections[a.into];
        let field = ident(&c.field);
        // The entity an unknown key creates: the state made from a patch of the key alone.
        let make = |u: &Upserted, key: TokenStream| {
            let (state, patch) = (ident(&u.state), ident(&u.patch));
            quote!(#state::from_patch(#patch::new(#key)))
        };
        let body = match (&a.rule, &c.holds) {
            (Rule::Upsert { .. }, Held::Upsert(u)) => {
                let key = ident(&u.key.as_ref().expect("keyed").1);
                quote!(#rt::session::upsert(&mut self.#field, |u| &u.#key, u))
            }
            (Rule::Upsert { .. }, Held::One(_)) => quote!(#rt::session::upsert_one(&mut self.#field, u)),
            (Rule::Upsert { kind: Some(k) }, Held::Kinds { name, kinds, .. }) => {
                let (enum_name, kv) = (ident(name), ident(&kinds[*k].1));
                let (state, key) = (ident(&kinds[*k].3.state), ident(&kinds[*k].3.key.as_ref().expect("keyed").1));
                quote! {
                    match self.#field.get_mut(&u.#key) {
                        ::core::option::Option::Some(#enum_name::#kv(s)) => s.apply(u),
                        _ => self.#field.insert(u.#key.clone(), #enum_name::#kv(#state::from_patch(u))),
                    }
                }
            }
            (Rule::Append { kind, key, from, to, create, .. }, held) => {
                let (key, from, to) = (ident(&key.rust), ident(&from.rust), ident(&to.rust));
                match (held, kind) {
                    (Held::Kinds { name, kinds, .. }, Some(k)) => {
                        let (enum_name, kv) = (ident(name), ident(&kinds[*k].1));
                        let made = make(&kinds[*k].3, quote!(made));
                        let to_mut = ident(&format!("{to}_mut"));
                        quote! {
                            let made = u.#key.clone();
                            self.#field.entry(u.#key, || #enum_name::#kv(#made)).#to_mut().push(u.#from);
                        }
                    }
                    (Held::Upsert(up), _) if *create => {
                        let made = make(up, quote!(made));
                        quote! {
                            let made = u.#key.clone();
                            self.#field.entry(u.#key, || #made).#to.push(u.#from);
                        }
                    }
                    _ => quote! {
                        // An entity this cannot create (it needs more than its key) takes no chunk.
                        if let ::core::option::Option::Some(entity) = self.#field.get_mut(&u.#key) {
                            entity.#to.push(u.#from);
                        }
                    },
                }
            }
            (Rule::AppendBase64 { key, from, to: (outer, inner), object, create }, Held::Upsert(up)) => {
                let (key, from) = (ident(&key.rust), ident(&from.rust));
                let (outer, inner, object) = (ident(&outer.rust), ident(&inner.rust), ident(object));
                let entity = if *create {
                    let made = make(up, quote!(made));
                    quote! {
                        let made = u.#key.clone();
                        let entity = self.#field.entry(u.#key, || #made);
                    }
                } else {
                    quote! {
                        let ::core::option::Option::Some(entity) = self.#field.get_mut(&u.#key) else { return };
                    }
                };
                quote! {
                    #entity
                    match &mut entity.#outer {
                        ::core::option::Option::None => entity.#outer = ::core::option::Option::Some(#object::new(u.#from)),
                        ::core::option::Option::Some(object) => #rt::session::append_base64(&mut object.#inner, &u.#from),
                    }
                }
            }
            (Rule::Put { from, .. }, Held::Whole { key, .. }) => {
                let from = ident(&from.rust);
                quote! {
                    if let ::core::option::Option::Some(key) = #rt::session::string_property(&u.#from, #key) {
                        self.#field.insert(key, u.#from);
                    }
                }
            }
            (Rule::Remove { from }, Held::Whole { .. }) => {
                let from = ident(&from.rust);
                quote! {
                    self.#field.remove(&::std::string::ToString::to_string(&u.#from));
                }
            }
            (rule, _) => unreachable!("the plan checked {rule:?} against its collection"),
        };
        quote! {
            #gate
            #union::#variant(u) => { #body }
        }
    }
}

//! Emit: the wire patch struct, `PatchOps` for it and `Patchable` for the state.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{Entity, Field, Read, Rule};

/// What each field contributes to the generated items, collected in one pass.
#[derive(Default)]
struct Parts<'a> {
    patch_fields: Vec<TokenStream>,
    new_params: Vec<TokenStream>,
    new_inits: Vec<TokenStream>,
    thens: Vec<TokenStream>,
    empties: Vec<TokenStream>,
    applies: Vec<TokenStream>,
    diffs: Vec<TokenStream>,
    setters: Vec<TokenStream>,
    /// One generic parameter per nested field: the field's patch type.
    params: Vec<syn::Ident>,
    bounds: Vec<TokenStream>,
    aliased: Vec<TokenStream>,
    /// For `keep_unknown`: how the generated visitor reads each field.
    readers: Vec<Reader<'a>>,
}

/// How a patched field's patch is typed, read, applied, diffed and composed.
struct FieldOps {
    patch_ty: TokenStream,
    /// The `patch::de` helper that reads it (before `strict` is applied).
    de: &'static str,
    apply: TokenStream,
    diff: TokenStream,
    then: TokenStream,
}

pub fn expand(e: &Entity) -> TokenStream {
    let mut parts = Parts::default();
    for f in e.fields.iter().filter(|f| f.rule != Rule::Skip) {
        if f.rule == Rule::Key || f.rule == Rule::Required {
            parts.fixed(f);
        } else {
            parts.patched(e, f);
        }
    }
    if e.keep_unknown {
        parts.unknown_properties();
    }
    render(e, parts)
}

impl<'a> Parts<'a> {
    /// A `key` or `required` field: the same type in the patch, always set.
    fn fixed(&mut self, f: &'a Field) {
        let (id, ty, docs) = (&f.ident, &f.ty, &f.docs);
        let rename = rename(f);
        self.patch_fields.push(quote! { #(#docs)* #rename pub #id: #ty, });
        self.new_params.push(quote!(#id: impl ::core::convert::Into<#ty>));
        self.new_inits.push(quote!(#id: #id.into()));
        self.thens.push(quote!(#id: later.#id));
        self.diffs.push(quote!(#id: ::core::clone::Clone::clone(&newer.#id)));
        if f.rule == Rule::Required {
            self.applies.push(quote!(self.#id = patch.#id;));
        }
        self.readers.push(Reader { field: f, ty: quote!(#ty), helper: quote::format_ident!("Plain"), required: true });
    }

    /// A patched field: `Patch<T>` in the patch struct, with its setter.
    fn patched(&mut self, e: &Entity, f: &'a Field) {
        let (id, docs) = (&f.ident, &f.docs);
        self.setters.push(setter(f));
        let ops = self.ops(f);
        let de = match (e.strict, ops.de) {
            (true, "lenient" | "lenient_scalar") => None,
            (true, "lenient_items") => Some("strict_items"),
            (true, "nested_lenient") => Some("nested_strict"),
            (true, "lenient_by_key") => Some("strict_by_key"),
            (_, d) => Some(d),
        };
        let helper = quote::format_ident!("{}", de.map_or("Plain".to_owned(), marker));
        let FieldOps { patch_ty, apply, diff, then, .. } = ops;
        self.readers.push(Reader { field: f, ty: patch_ty.clone(), helper, required: false });
        let de = de.map(|d| {
            let path = format!("::acp_bindings::patch::de::{d}");
            quote!(deserialize_with = #path,)
        });
        let rename = rename(f);
        self.patch_fields.push(quote! {
            #(#docs)*
            #rename
            #[serde(default, skip_serializing_if = "::acp_bindings::Patch::is_keep", #de)]
            pub #id: #patch_ty,
        });
        self.new_inits.push(quote!(#id: ::acp_bindings::Patch::Keep));
        self.thens.push(quote!(#id: #then));
        self.empties.push(quote!(self.#id.is_keep()));
        self.applies.push(quote!(#apply;));
        self.diffs.push(quote!(#id: #diff));
    }

    /// The patch type and operations of a patched field; a nested field adds
    /// a generic parameter.
    fn ops(&mut self, f: &Field) -> FieldOps {
        let (id, ty) = (&f.ident, &f.ty);
        match f.rule {
            Rule::Optional | Rule::Value => {
                let de = match (f.skip_invalid_items, f.read) {
                    (true, _) => "lenient_items",
                    (false, Read::Scalar) => "lenient_scalar",
                    (false, Read::AnyJson) => "any_json",
                    (false, Read::Captured) => "lenient",
                };
                let value_ty = match f.rule {
                    Rule::Optional => f.inner.clone().expect("Option<T>"),
                    _ => ty.clone(),
                };
                let (apply_fn, diff_fn) = match f.rule {
                    Rule::Optional => (quote!(apply_option), quote!(diff_option)),
                    _ => (quote!(apply_value), quote!(diff_value)),
                };
                // `boxed`: the patch holds `Box<T>`; applying unboxes, diffing boxes.
                let (patch_ty, patch_in, diff_out) = if f.boxed {
                    (
                        quote!(::acp_bindings::Patch<::std::boxed::Box<#value_ty>>),
                        quote!(::acp_bindings::patch::field::unboxed(patch.#id)),
                        quote!(::acp_bindings::patch::field::boxed),
                    )
                } else {
                    (quote!(::acp_bindings::Patch<#value_ty>), quote!(patch.#id), quote!(::core::convert::identity))
                };
                FieldOps {
                    patch_ty,
                    de,
                    apply: quote!(::acp_bindings::patch::field::#apply_fn(&mut self.#id, #patch_in)),
                    diff: quote!(#diff_out(::acp_bindings::patch::field::#diff_fn(&self.#id, &newer.#id))),
                    then: quote!(::acp_bindings::patch::field::then(self.#id, later.#id)),
                }
            }
            Rule::ByKey => FieldOps {
                patch_ty: quote!(::acp_bindings::patch::ByKey),
                de: "lenient_by_key",
                apply: quote!(::acp_bindings::patch::field::apply_by_key(&mut self.#id, patch.#id)),
                diff: quote!(::acp_bindings::patch::field::diff_by_key(&self.#id, &newer.#id)),
                then: quote!(::acp_bindings::patch::field::then_by_key(self.#id, later.#id)),
            },
            Rule::Nested => {
                // `where Cursor: Patchable<Patch = __P0>` on the one `Patchable`
                // impl, at the field's span: the only place that needs the
                // field's type to be patchable, so misuse is one error.
                let param = quote::format_ident!("__P{}", self.params.len());
                self.bounds.push(quote_spanned! {ty.span()=> #ty: ::acp_bindings::Patchable<Patch = #param>});
                self.aliased.push(quote!(<#ty as ::acp_bindings::Patchable>::Patch));
                let ops = quote!(<#param as ::acp_bindings::patch::field::Nested<#ty>>);
                let r = FieldOps {
                    patch_ty: quote!(::acp_bindings::Patch<#ty, #param>),
                    de: "nested_lenient",
                    apply: quote!(#ops::apply(&mut self.#id, patch.#id)),
                    diff: quote!(#ops::diff(&self.#id, &newer.#id)),
                    then: quote!(#ops::then(self.#id, later.#id)),
                };
                self.params.push(param);
                r
            }
            Rule::Key | Rule::Required | Rule::Skip => unreachable!("not a patched field"),
        }
    }

    /// `keep_unknown`: the unknown properties, kept and written back; the
    /// generated visitor replaces serde's `Deserialize`.
    fn unknown_properties(&mut self) {
        self.patch_fields.push(quote! {
            /// Properties the wire object carried that this patch does not name, in
            /// their order; written back after the known ones (not applied).
            #[serde(flatten)]
            pub additional_properties: ::acp_bindings::runtime::Extra,
        });
        self.new_inits.push(quote!(additional_properties: ::core::default::Default::default()));
        self.thens.push(quote!(additional_properties: self.additional_properties.then(later.additional_properties)));
        self.diffs.push(quote!(additional_properties: ::core::default::Default::default()));
    }
}

/// The field's serde renames, as one attribute.
fn rename(f: &Field) -> TokenStream {
    let renames = &f.serde_attrs;
    if renames.is_empty() {
        quote!()
    } else {
        quote!(#[serde(#(#renames),*)])
    }
}

/// The builder setter of a patched field: sets a value on the wire.
fn setter(f: &Field) -> TokenStream {
    let (id, ty) = (&f.ident, &f.ty);
    let set_ty: syn::Type = match f.rule {
        Rule::Optional if f.boxed => {
            let inner = f.inner.as_ref().expect("Option<T>");
            syn::parse_quote!(::std::boxed::Box<#inner>)
        }
        Rule::Value if f.boxed => syn::parse_quote!(::std::boxed::Box<#ty>),
        Rule::Optional => f.inner.clone().expect("Option<T>"),
        Rule::ByKey => {
            syn::parse_quote!(::std::boxed::Box<::serde_json::Map<::std::string::String, ::serde_json::Value>>)
        }
        _ => ty.clone(),
    };
    let set_doc = format!(" Sets `{id}` (a value on the wire; use the field for `Keep`/`Clear`).");
    quote! {
        #[doc = #set_doc]
        #[must_use]
        pub fn #id(mut self, value: impl ::core::convert::Into<#set_ty>) -> Self {
            self.#id = ::acp_bindings::Patch::Set(value.into());
            self
        }
    }
}

/// `then` and `is_empty` callable without importing `PatchOps`, unless a
/// field's setter already has the name.
fn inherent_ops(e: &Entity, item: &syn::Ident, gen: &TokenStream, ops_where: &TokenStream) -> TokenStream {
    let clash = e.fields.iter().any(|f| matches!(f.ident.to_string().as_str(), "then" | "is_empty"));
    if clash {
        return quote!();
    }
    quote! {
        impl #gen #item #gen #ops_where {
            /// One patch with the effect of `self` then `later` (composition;
            /// the same as [`PatchOps::then`](::acp_bindings::PatchOps::then)).
            #[doc(alias = "merge")]
            #[doc(alias = "compose")]
            #[must_use]
            pub fn then(self, later: Self) -> Self {
                ::acp_bindings::PatchOps::then(self, later)
            }

            /// `true` when the patch changes nothing but the key (the same as
            /// [`PatchOps::is_empty`](::acp_bindings::PatchOps::is_empty)).
            pub fn is_empty(&self) -> bool {
                ::acp_bindings::PatchOps::is_empty(self)
            }
        }
    }
}

/// With nested fields the patch struct is generic over their patch types
/// (`{Patch}Of<__P0, ...>`) and `{Patch}` names it with the real ones: the
/// alias and the generic struct's extra doc (both empty without nested fields).
fn nested_alias(e: &Entity, parts: &Parts<'_>, generic: &syn::Ident) -> (TokenStream, TokenStream) {
    if parts.params.is_empty() {
        return (quote!(), quote!());
    }
    let (vis, name, patch, aliased) = (&e.vis, &e.name, &e.patch, &parts.aliased);
    let alias_doc = format!(" The wire patch of [`{name}`], with the patch types of its nested fields.");
    let generic_doc = format!(
        " [`{patch}`], generic over the patch type of each nested field (the derive's bounds need the \
         parameters; use [`{patch}`])."
    );
    (
        quote! { #[doc = #alias_doc] #vis type #patch = #generic<#(#aliased),*>; },
        quote! { #[doc = ""] #[doc = #generic_doc] },
    )
}

/// `from_patch`'s start: the key and required fields from the patch, every
/// other field at its default (then the patch is applied).
fn key_init(e: &Entity) -> Vec<TokenStream> {
    e.fields
        .iter()
        .map(|f| {
            let id = &f.ident;
            if f.rule == Rule::Key || f.rule == Rule::Required {
                quote!(#id: ::core::clone::Clone::clone(&patch.#id))
            } else {
                quote!(#id: ::core::default::Default::default())
            }
        })
        .collect()
}

/// The items: the patch struct (and its alias), its visitor, constructor and
/// setters, `PatchOps` for it and `Patchable` for the state.
fn render(e: &Entity, p: Parts<'_>) -> TokenStream {
    let (vis, name, patch) = (&e.vis, &e.name, &e.patch);
    let serde_attrs = &e.serde_attrs;
    let key_init = key_init(e);
    let patch_doc = format!(" The wire patch of [`{name}`]: omitted fields keep, `null` clears, a value sets (generated by `#[derive(AcpPatch)]`).");
    let container_docs = &e.docs;
    let non_exhaustive = if e.non_exhaustive { quote!(#[non_exhaustive]) } else { quote!() };
    let new_doc = " A patch with the key (and required fields) that changes nothing else.";
    let empties = &p.empties;
    let empties = if empties.is_empty() { quote!(true) } else { quote!(#(#empties)&&*) };
    let params = &p.params;
    let nested = !params.is_empty();
    let generic = quote::format_ident!("{}Of", patch);
    let (item, gen) = if nested { (&generic, quote!(<#(#params),*>)) } else { (patch, quote!()) };
    let ops_bounds = params.iter().zip(e.fields.iter().filter(|f| f.rule == Rule::Nested)).map(|(p, f)| {
        let ty = &f.ty;
        quote!(#p: ::acp_bindings::patch::field::Nested<#ty>)
    });
    let ops_where = if nested { quote!(where #(#ops_bounds),*) } else { quote!() };
    let inherent = inherent_ops(e, item, &gen, &ops_where);
    let bounds = &p.bounds;
    let patchable_where = if nested { quote!(where #(#bounds),*) } else { quote!() };
    let keep = e.keep_unknown;
    let de_bound = if nested && !keep {
        let b = params.iter().map(|p| format!("{p}: ::serde::de::DeserializeOwned")).collect::<Vec<_>>().join(", ");
        quote!(#[serde(bound(deserialize = #b))])
    } else {
        quote!()
    };
    let derive_de = if keep { quote!() } else { quote!(::serde::Deserialize,) };
    let direct = e.json_reader && params.is_empty();
    let visitor = if keep { visitor(item, params, &p.readers, direct) } else { quote!() };
    let visitor = if direct && !keep {
        quote! { #visitor impl<'de> ::acp_bindings::json::fast::FromJson<'de> for #item {} }
    } else {
        visitor
    };
    let (alias, generic_doc) = nested_alias(e, &p, &generic);
    let Parts { patch_fields, new_params, new_inits, setters, thens, applies, diffs, .. } = &p;
    quote! {
        #alias

        #(#container_docs)*
        #[doc = ""]
        #[doc = #patch_doc]
        #generic_doc
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize, #derive_de)]
        #non_exhaustive
        #(#serde_attrs)*
        #de_bound
        #vis struct #item #gen {
            #(#patch_fields)*
        }

        #visitor

        impl #gen #item #gen {
            #[doc = #new_doc]
            pub fn new(#(#new_params),*) -> Self {
                Self { #(#new_inits),* }
            }

            #(#setters)*
        }

        #inherent

        impl #gen ::acp_bindings::PatchOps for #item #gen #ops_where {
            fn then(self, later: Self) -> Self {
                Self { #(#thens),* }
            }

            fn is_empty(&self) -> bool {
                #empties
            }
        }

        impl #gen ::acp_bindings::Patchable for #name #patchable_where {
            type Patch = #item #gen;

            fn apply(&mut self, patch: Self::Patch) {
                #(#applies)*
            }

            fn from_patch(patch: Self::Patch) -> Self {
                let mut entity = Self { #(#key_init),* };
                ::acp_bindings::Patchable::apply(&mut entity, patch);
                entity
            }

            fn diff(&self, newer: &Self) -> Self::Patch {
                #item { #(#diffs),* }
            }
        }
    }
}

/// How the `keep_unknown` visitor reads one field.
struct Reader<'a> {
    field: &'a Field,
    /// The field's type in the patch struct.
    ty: TokenStream,
    /// The `patch::de` helper type that reads it.
    helper: syn::Ident,
    /// Missing is an error (`key` and `required` fields).
    required: bool,
}

/// The `patch::de` helper type of a `deserialize_with` helper name.
fn marker(helper: &str) -> String {
    helper
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect()
}

/// `Deserialize` for a `keep_unknown` patch struct: serde's derive, except that
/// an unknown key and its value are kept in `additional_properties`.
fn visitor(item: &syn::Ident, params: &[syn::Ident], readers: &[Reader<'_>], direct: bool) -> TokenStream {
    let gen = if params.is_empty() { quote!() } else { quote!(<#(#params),*>) };
    let de_bounds = params.iter().map(|p| quote!(#p: ::serde::de::DeserializeOwned));
    let de_bounds2 = de_bounds.clone();
    let slots: Vec<syn::Ident> = (0..readers.len()).map(|i| quote::format_ident!("v{i}")).collect();
    let wires: Vec<String> = readers.iter().map(|r| r.field.wire.clone().expect("checked while parsing")).collect();
    let types = readers.iter().map(|r| &r.ty);
    // The closures for `runtime::de::fields` (the same shape the generator
    // writes for the bindings' structs): a key's position, aliases included,
    // and the read of the field at a position.
    let index = readers.iter().enumerate().map(|(i, r)| {
        let names = std::iter::once(&r.field.wire).flatten().chain(&r.field.aliases);
        quote!(#(#names)|* => ::core::option::Option::Some(#i),)
    });
    let reads = readers.iter().zip(&slots).zip(&wires).enumerate().map(|(i, ((r, slot), wire))| {
        let (ty, helper) = (&r.ty, &r.helper);
        quote! {
            #i => ::acp_bindings::runtime::de::once(
                &mut #slot,
                #wire,
                map.next_value_seed(::acp_bindings::runtime::read::Field::<::acp_bindings::patch::de::#helper, #ty>::new())?,
            ),
        }
    });
    let (index_fn, read_fn) = if readers.is_empty() {
        (quote!(|_| ::core::option::Option::None), quote!(|_, _| ::core::result::Result::Ok(())))
    } else {
        (
            quote!(|k| match k { #(#index)* _ => ::core::option::Option::None }),
            quote!(|i, map| match i { #(#reads)* _ => ::core::unreachable!("`fields` passes only positions `index` returned") }),
        )
    };
    let inits = readers.iter().zip(&slots).zip(&wires).map(|((r, slot), wire)| {
        let id = &r.field.ident;
        if r.required {
            quote!(#id: ::acp_bindings::runtime::de::required(#slot, #wire)?)
        } else {
            quote!(#id: #slot.unwrap_or_default())
        }
    });
    let expecting = format!("a {item} object");
    let name = item.to_string();
    // `json_reader`: the struct name that sends the crate's reader to the
    // direct decoder, the visitor method that receives its text, the decoder.
    let (name, visit_direct, from_json) = if direct {
        (
            quote!(::acp_bindings::json::fast::STRUCT),
            quote! {
                fn visit_borrowed_str<E: ::serde::de::Error>(self, text: &'de str) -> ::core::result::Result<Self::Value, E> {
                    ::acp_bindings::json::fast::visit(text, self)
                }
            },
            from_json(item, readers),
        )
    } else {
        (quote!(#name), quote!(), quote!())
    };
    let phantom = if params.is_empty() { quote!() } else { quote!((::core::marker::PhantomData<(#(#params,)*)>)) };
    let make = if params.is_empty() { quote!(__Visitor) } else { quote!(__Visitor(::core::marker::PhantomData)) };
    quote! {
        impl<'de, #(#de_bounds),*> ::serde::Deserialize<'de> for #item #gen {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::core::result::Result<Self, D::Error> {
                const FIELDS: &[&str] = &[#(#wires),*];
                struct __Visitor #gen #phantom;
                impl<'de, #(#de_bounds2),*> ::serde::de::Visitor<'de> for __Visitor #gen {
                    type Value = #item #gen;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(#expecting)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::core::result::Result<Self::Value, A::Error> {
                        #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                        let rest = ::acp_bindings::runtime::de::fields(&mut map, #index_fn, #read_fn)?;
                        ::core::result::Result::Ok(#item { #(#inits,)* additional_properties: rest })
                    }
                    #visit_direct
                }
                deserializer.deserialize_struct(#name, FIELDS, #make)
            }
        }
        #from_json
    }
}

/// The direct decoder of a `keep_unknown` patch struct (`json_reader`): its
/// members in one loop, each known one read by its field's helper, the
/// others kept, as the visitor does; anything else bails (see
/// `acp_bindings::json::fast`).
fn from_json(item: &syn::Ident, readers: &[Reader<'_>]) -> TokenStream {
    let fast = quote!(::acp_bindings::json::fast);
    let slots: Vec<syn::Ident> = (0..readers.len()).map(|i| quote::format_ident!("v{i}")).collect();
    let types = readers.iter().map(|r| &r.ty);
    let arms = readers.iter().zip(&slots).map(|(r, slot)| {
        let (ty, helper) = (&r.ty, &r.helper);
        let names = std::iter::once(&r.field.wire).flatten().chain(&r.field.aliases);
        let value = if helper == "Plain" {
            quote!(<#ty as #fast::FromJson<'de>>::read(r))
        } else {
            quote!(<::acp_bindings::patch::de::#helper as #fast::Rule<'de, #ty>>::read(r))
        };
        quote!(#(#names)|* => #fast::put(&mut #slot, #value),)
    });
    let required: Vec<&syn::Ident> = readers.iter().zip(&slots).filter(|(r, _)| r.required).map(|(_, s)| s).collect();
    let inits = readers.iter().zip(&slots).map(|(r, slot)| {
        let id = &r.field.ident;
        if r.required {
            quote!(#id: #slot)
        } else {
            quote!(#id: #slot.unwrap_or_default())
        }
    });
    quote! {
        impl<'de> #fast::FromJson<'de> for #item {
            #[inline]
            fn read(r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
                let more = r.open()?;
                <Self as #fast::FromJson<'de>>::rest(r, more)
            }

            // One exit for errors (`members`), so the slots are dropped at one place.
            #[inline]
            fn rest(r: &mut #fast::Reader<'de>, more: bool) -> ::core::result::Result<Self, #fast::Bail> {
                #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                let mut rest = ::acp_bindings::runtime::Extra::new();
                #fast::members(r, more, |r, key| match key {
                    #(#arms)*
                    other => #fast::keep(r, &mut rest, other),
                })?;
                // Each required slot taken on its own, as the generator's
                // decoders do: a `match` on a tuple would move every value again.
                #(
                    let ::core::option::Option::Some(#required) = #required else {
                        return ::core::result::Result::Err(#fast::Bail);
                    };
                )*
                ::core::result::Result::Ok(#item { #(#inits,)* additional_properties: rest })
            }
        }
    }
}

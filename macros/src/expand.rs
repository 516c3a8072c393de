//! Emit: the wire patch struct, `PatchOps` for it and `Patchable` for the state.

use acp_bindings_codegen::{PatchReader, Paths};
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
    /// How it is read (before `strict` is applied).
    de: PatchReader,
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
        parts.unknown_properties(e);
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
        self.readers.push(Reader { field: f, ty: quote!(#ty), reader: None, required: true });
    }

    /// A patched field: `Patch<T>` in the patch struct, with its setter.
    fn patched(&mut self, e: &Entity, f: &'a Field) {
        let root = &e.paths.root;
        let (id, docs) = (&f.ident, &f.docs);
        self.setters.push(setter(e, f));
        let ops = self.ops(e, f);
        let read = if e.strict { ops.de.strict() } else { Some(ops.de) };
        let paths = &e.paths;
        let reader = read.map(|r| paths.reader(&acp_bindings_codegen::Reader::Patch(r)));
        let FieldOps { patch_ty, apply, diff, then, .. } = ops;
        self.readers.push(Reader { field: f, ty: patch_ty.clone(), reader: reader.clone(), required: false });
        let de = read.map(|r| {
            let with = paths.deserialize_with(&acp_bindings_codegen::Reader::Patch(r));
            quote!(#with,)
        });
        let rename = rename(f);
        // serde parses the path from a string; spaces between tokens are not needed.
        let is_keep = quote!(#root::Patch::is_keep).to_string().replace(' ', "");
        self.patch_fields.push(quote! {
            #(#docs)*
            #rename
            #[serde(default, skip_serializing_if = #is_keep, #de)]
            pub #id: #patch_ty,
        });
        self.new_inits.push(quote!(#id: #root::Patch::Keep));
        self.thens.push(quote!(#id: #then));
        self.empties.push(quote!(self.#id.is_keep()));
        self.applies.push(quote!(#apply;));
        self.diffs.push(quote!(#id: #diff));
    }

    /// The patch type and operations of a patched field; a nested field adds
    /// a generic parameter.
    fn ops(&mut self, e: &Entity, f: &Field) -> FieldOps {
        let root = &e.paths.root;
        let (id, ty) = (&f.ident, &f.ty);
        match f.rule {
            Rule::Optional | Rule::Value => {
                let de = match (f.skip_invalid_items, f.read) {
                    (true, _) => PatchReader::LenientItems,
                    (false, Read::Scalar) => PatchReader::LenientScalar,
                    (false, Read::AnyJson) => PatchReader::AnyJson,
                    (false, Read::Captured) => PatchReader::Lenient,
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
                        quote!(#root::Patch<::std::boxed::Box<#value_ty>>),
                        quote!(#root::patch::field::unboxed(patch.#id)),
                        quote!(#root::patch::field::boxed),
                    )
                } else {
                    (quote!(#root::Patch<#value_ty>), quote!(patch.#id), quote!(::core::convert::identity))
                };
                FieldOps {
                    patch_ty,
                    de,
                    apply: quote!(#root::patch::field::#apply_fn(&mut self.#id, #patch_in)),
                    diff: quote!(#diff_out(#root::patch::field::#diff_fn(&self.#id, &newer.#id))),
                    then: quote!(#root::patch::field::then(self.#id, later.#id)),
                }
            }
            Rule::ByKey => FieldOps {
                patch_ty: quote!(#root::patch::ByKey),
                de: PatchReader::LenientByKey,
                apply: quote!(#root::patch::field::apply_by_key(&mut self.#id, patch.#id)),
                diff: quote!(#root::patch::field::diff_by_key(&self.#id, &newer.#id)),
                then: quote!(#root::patch::field::then_by_key(self.#id, later.#id)),
            },
            Rule::Nested => {
                // `where Cursor: Patchable<Patch = __P0>` on the one `Patchable`
                // impl, at the field's span: the only place that needs the
                // field's type to be patchable, so misuse is one error.
                let param = quote::format_ident!("__P{}", self.params.len());
                // The path at the field's span too, where the error points.
                let root_at: TokenStream = root
                    .clone()
                    .into_iter()
                    .map(|mut t| {
                        t.set_span(ty.span());
                        t
                    })
                    .collect();
                self.bounds.push(quote_spanned! {ty.span()=> #ty: #root_at::Patchable<Patch = #param>});
                self.aliased.push(quote!(<#ty as #root::Patchable>::Patch));
                let ops = quote!(<#param as #root::patch::field::Nested<#ty>>);
                let r = FieldOps {
                    patch_ty: quote!(#root::Patch<#ty, #param>),
                    de: PatchReader::NestedLenient,
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
    fn unknown_properties(&mut self, e: &Entity) {
        let rt = &e.paths.runtime;
        self.patch_fields.push(quote! {
            /// Properties the wire object carried that this patch does not name, in
            /// their order; written back after the known ones (not applied).
            #[serde(flatten)]
            pub additional_properties: #rt::Extra,
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
fn setter(e: &Entity, f: &Field) -> TokenStream {
    let root = &e.paths.root;
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
            self.#id = #root::Patch::Set(value.into());
            self
        }
    }
}

/// `then` and `is_empty` callable without importing `PatchOps`, unless a
/// field's setter already has the name.
fn inherent_ops(e: &Entity, item: &syn::Ident, gen: &TokenStream, ops_where: &TokenStream) -> TokenStream {
    let root = &e.paths.root;
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
                #root::PatchOps::then(self, later)
            }

            /// `true` when the patch changes nothing but the key (the same as
            /// [`PatchOps::is_empty`](::acp_bindings::PatchOps::is_empty)).
            pub fn is_empty(&self) -> bool {
                #root::PatchOps::is_empty(self)
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
    let Paths { root, fast, .. } = &e.paths;
    let (name, patch) = (&e.name, &e.patch);
    let key_init = key_init(e);
    let new_doc = " A patch with the key (and required fields) that changes nothing else.";
    let empties = &p.empties;
    let empties = if empties.is_empty() { quote!(true) } else { quote!(#(#empties)&&*) };
    let params = &p.params;
    let nested = !params.is_empty();
    let generic = quote::format_ident!("{}Of", patch);
    let (item, gen) = if nested { (&generic, quote!(<#(#params),*>)) } else { (patch, quote!()) };
    let ops_bounds = params.iter().zip(e.fields.iter().filter(|f| f.rule == Rule::Nested)).map(|(p, f)| {
        let ty = &f.ty;
        quote!(#p: #root::patch::field::Nested<#ty>)
    });
    let ops_where = if nested { quote!(where #(#ops_bounds),*) } else { quote!() };
    let inherent = inherent_ops(e, item, &gen, &ops_where);
    let bounds = &p.bounds;
    let patchable_where = if nested { quote!(where #(#bounds),*) } else { quote!() };
    let keep = e.keep_unknown;
    let direct = e.json_reader && params.is_empty();
    let visitor = if keep { visitor(&e.paths, item, params, &p.readers, direct) } else { quote!() };
    let visitor = if direct && !keep {
        quote! { #visitor impl<'de> #fast::FromJson<'de> for #item {} }
    } else {
        visitor
    };
    let declaration = declaration(e, &p, (item, &gen, &generic));
    let Parts { new_params, new_inits, setters, thens, applies, diffs, .. } = &p;
    quote! {
        #declaration

        #visitor

        impl #gen #item #gen {
            #[doc = #new_doc]
            pub fn new(#(#new_params),*) -> Self {
                Self { #(#new_inits),* }
            }

            #(#setters)*
        }

        #inherent

        impl #gen #root::PatchOps for #item #gen #ops_where {
            fn then(self, later: Self) -> Self {
                Self { #(#thens),* }
            }

            fn is_empty(&self) -> bool {
                #empties
            }
        }

        impl #gen #root::Patchable for #name #patchable_where {
            type Patch = #item #gen;

            fn apply(&mut self, patch: Self::Patch) {
                #(#applies)*
            }

            fn from_patch(patch: Self::Patch) -> Self {
                let mut entity = Self { #(#key_init),* };
                #root::Patchable::apply(&mut entity, patch);
                entity
            }

            fn diff(&self, newer: &Self) -> Self::Patch {
                #item { #(#diffs),* }
            }
        }
    }
}

/// The patch struct's declaration (and its alias, with nested fields);
/// nothing with `declared`, whose struct is written beside the state struct.
fn declaration(
    e: &Entity,
    p: &Parts<'_>,
    (item, gen, generic): (&syn::Ident, &TokenStream, &syn::Ident),
) -> TokenStream {
    if e.declared {
        return quote!();
    }
    let (vis, name) = (&e.vis, &e.name);
    let serde_attrs = &e.serde_attrs;
    let container_docs = &e.docs;
    let patch_doc = format!(" The wire patch of [`{name}`]: omitted fields keep, `null` clears, a value sets (generated by `#[derive(AcpPatch)]`).");
    let non_exhaustive = if e.non_exhaustive { quote!(#[non_exhaustive]) } else { quote!() };
    let nested = !p.params.is_empty();
    let de_bound = if nested && !e.keep_unknown {
        let b = p.params.iter().map(|p| format!("{p}: ::serde::de::DeserializeOwned")).collect::<Vec<_>>().join(", ");
        quote!(#[serde(bound(deserialize = #b))])
    } else {
        quote!()
    };
    let derive_de = if e.keep_unknown { quote!() } else { quote!(::serde::Deserialize,) };
    // A `keep_unknown` patch has every wire name and its unknown properties
    // last, what `AcpSerialize` writes: serde's bytes, and a direct encoder of
    // `json` (the generated upserts' declared patches derive it too). It takes
    // no type parameters, so a patch with nested fields keeps serde's derive.
    let derive_ser = if e.keep_unknown && !nested {
        let root = &e.paths.root;
        quote!(#root::AcpSerialize)
    } else {
        quote!(::serde::Serialize)
    };
    let (alias, generic_doc) = nested_alias(e, p, generic);
    let patch_fields = &p.patch_fields;
    quote! {
        #alias

        #(#container_docs)*
        #[doc = ""]
        #[doc = #patch_doc]
        #generic_doc
        #[derive(Debug, Clone, PartialEq, #derive_ser, #derive_de)]
        #non_exhaustive
        #(#serde_attrs)*
        #de_bound
        #vis struct #item #gen {
            #(#patch_fields)*
        }
    }
}

/// How the `keep_unknown` visitor reads one field.
struct Reader<'a> {
    field: &'a Field,
    /// The field's type in the patch struct.
    ty: TokenStream,
    /// The reader type of its rule; `None` reads the type's own `Deserialize`.
    reader: Option<TokenStream>,
    /// Missing is an error (`key` and `required` fields).
    required: bool,
}

/// `Deserialize` for a `keep_unknown` patch struct (and its direct decoder
/// with `json_reader`), written by `acp-bindings-codegen`, as the generator
/// writes the bindings' structs: serde's derive, except that an unknown key
/// and its value are kept in `additional_properties`.
fn visitor(
    paths: &Paths,
    item: &syn::Ident,
    params: &[syn::Ident],
    readers: &[Reader<'_>],
    direct: bool,
) -> TokenStream {
    let fields = readers
        .iter()
        .map(|r| acp_bindings_codegen::FieldRead {
            ident: r.field.ident.clone(),
            wire: r.field.wire.clone().expect("checked while parsing"),
            aliases: r.field.aliases.clone(),
            ty: r.ty.clone(),
            reader: r.reader.clone(),
            required: r.required,
        })
        .collect();
    let object = acp_bindings_codegen::Object {
        ident: item.clone(),
        params: params.to_vec(),
        name: item.to_string(),
        fields,
        forbidden: Vec::new(),
        direct,
    };
    acp_bindings_codegen::deserialize(&object, paths)
}

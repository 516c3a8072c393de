//! The decoders of `acp-bindings`, written from one description.
//!
//! A struct is described ([`Object`]) by the derives of `acp-bindings-macros`
//! (`#[derive(AcpDeserialize)]`, from the struct's attributes: the bindings'
//! generator writes its structs with it; and `#[derive(AcpPatch)]`), a union,
//! an enum and a string newtype ([`Union`], [`Enum`], [`StringNewtype`]) by
//! `#[derive(AcpUnion)]`, `#[derive(AcpEnum)]` and `#[derive(AcpString)]`;
//! their decoders are rendered here. A derive sees an item with its `#[cfg]`s
//! applied, so a description holds the fields or arms of one build:
//!
//! - [`deserialize`]: serde's `Deserialize` for a struct that keeps the
//!   properties it does not name (`additional_properties`): the runtime's
//!   `runtime::de::object` over the struct's `runtime::de::Object` impl,
//!   whose `visit` is the loop serde's derive would write (known keys
//!   matched without allocating, each field decoded as it streams by),
//!   except that an unknown key and its value are kept instead of skipped.
//!   With [`Object::direct`] it also writes the struct's direct decoder
//!   ([`object_from_json`]).
//! - [`object_from_json`] and a tagged union's direct decoder ([`union_impls`]): the direct decoders
//!   (`json::fast::FromJson`) that `acp_bindings::json::from_str` runs before
//!   serde; whatever they do not serve makes them bail, and serde decodes the
//!   text with the visitors.
//!
//! A field with a decoding rule names the rule's reader type
//! ([`FieldRead::reader`], a type implementing `runtime::read::Reader<T>` and
//! `runtime::read::Rule<'de, T>` for the field's type `T`): the visitor reads it
//! with `runtime::read::put_with::<Reader, _, _>` (a field without a rule with
//! `runtime::de::put`), the direct decoder with the reader's `Rule`. A rule reaches the runtime as a type, so adding one means
//! a reader type in the runtime and a way to name it, nothing here.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

pub mod case;
pub mod dispatch;
mod encode;
mod enums;
mod newtype;
pub mod runtime;
mod union;

pub use encode::{json_string, object_serialize, FieldWrite, ObjectWrite};
pub use enums::{enum_impls, Enum, Value};
pub use newtype::{string_newtype_impls, StrRules, StringNewtype};
pub use runtime::{Named, PatchReader, Paths, Reader};
pub use union::{Arm, ArmPayload, CatchAll, Union, UnionTag};

/// Every impl of union `u`: its encoders (`encode.rs`) and its decoders,
/// `tag()`, conversions and direct decoder (`union.rs`).
pub fn union_impls(u: &Union, paths: &Paths) -> TokenStream {
    let serialize = encode::union_serialize(u, paths);
    let decoders = union::union_decoders(u, paths);
    quote::quote! { #serialize #decoders }
}

/// A member's name as the encoders write it and the decoders compare it:
/// `"name":`, as a byte-string literal.
pub(crate) fn member_key(name: &str) -> proc_macro2::Literal {
    proc_macro2::Literal::byte_string(format!("{}:", encode::json_string(name)).as_bytes())
}

/// One field of an [`Object`].
#[derive(Debug, Clone)]
pub struct FieldRead {
    /// The Rust field.
    pub ident: Ident,
    /// The property name on the wire.
    pub wire: String,
    /// Other names the property is read under (the derive's `#[serde(alias)]`).
    pub aliases: Vec<String>,
    /// The field's Rust type.
    pub ty: TokenStream,
    /// The reader type of the field's decoding rule; `None` reads the type
    /// with its own `Deserialize` (and `FromJson`).
    pub reader: Option<TokenStream>,
    /// A missing property is an error; otherwise the field's default.
    pub required: bool,
}

/// A struct that keeps unknown properties in `additional_properties`
/// (`runtime::Extra`).
#[derive(Debug, Clone)]
pub struct Object {
    /// The struct.
    pub ident: Ident,
    /// Its type parameters; each must be `DeserializeOwned`.
    pub params: Vec<Ident>,
    /// The name in errors and in `deserialize_struct` (`"a {name} object"`).
    pub name: String,
    /// Its known properties, in order.
    pub fields: Vec<FieldRead>,
    /// Properties that must be absent (their schema is `false`): present,
    /// they fail the object.
    pub forbidden: Vec<String>,
    /// It also gets a direct decoder ([`object_from_json`]); needs no `params`.
    pub direct: bool,
}

/// An identifier's name, without the `r#` of a raw one (as serde names it).
fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map(str::to_owned).unwrap_or(name)
}

fn str_lit(s: &str) -> Literal {
    Literal::string(s)
}

/// The slot variable of field `i`.
fn slots(n: usize) -> Vec<Ident> {
    (0..n).map(|i| format_ident!("v{i}")).collect()
}

/// Every name a field is read under: its wire name, then its aliases.
fn names(f: &FieldRead) -> impl Iterator<Item = Literal> + '_ {
    std::iter::once(&f.wire).chain(&f.aliases).map(|n| str_lit(n))
}

/// `Deserialize` for `o` (and its direct decoder with [`Object::direct`]).
pub fn deserialize(o: &Object, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let item = &o.ident;
    let params = &o.params;
    let gen = if params.is_empty() { quote!() } else { quote!(<#(#params),*>) };
    let de_bounds: Vec<TokenStream> = params.iter().map(|p| quote!(#p: ::serde::de::DeserializeOwned)).collect();
    let slots = slots(o.fields.len());
    let wires: Vec<Literal> = o.fields.iter().map(|f| str_lit(&f.wire)).collect();
    let types: Vec<&TokenStream> = o.fields.iter().map(|f| &f.ty).collect();
    // The closures for `runtime::de::fields`: a key's position (any of its
    // names), and the read of the field at a position.
    let mut index = Vec::new();
    let mut reads = Vec::new();
    for (i, (f, slot)) in o.fields.iter().zip(&slots).enumerate() {
        let (names, wire) = (names(f), str_lit(&f.wire));
        let i = Literal::usize_unsuffixed(i);
        index.push(quote!(#(#names)|* => ::core::option::Option::Some(#i),));
        // The slot's type is the field's: `put` reads that type.
        reads.push(match &f.reader {
            Some(m) => quote!(#i => #rt::read::put_with::<#m, _, _>(map, &mut #slot, #wire),),
            None => quote!(#i => #rt::de::put(map, &mut #slot, #wire),),
        });
    }
    for (i, name) in o.forbidden.iter().enumerate() {
        let i = Literal::usize_unsuffixed(o.fields.len() + i);
        let (name, object) = (str_lit(name), str_lit(&o.name));
        index.push(quote!(#name => ::core::option::Option::Some(#i),));
        let message = quote!(#rt::messages::not_allowed(&#name, &#object));
        reads.push(quote!(#i => ::core::result::Result::Err(<__A::Error as ::serde::de::Error>::custom(#message)),));
    }
    let (index_fn, read_fn) = if index.is_empty() {
        (quote!(|_| ::core::option::Option::None), quote!(|_, _| ::core::result::Result::Ok(())))
    } else {
        (
            quote!(|k| match k { #(#index)* _ => ::core::option::Option::None }),
            quote!(|i, map| match i {
                #(#reads)*
                // `fields` passes only the positions `index` returned.
                _ => ::core::unreachable!(),
            }),
        )
    };
    let inits = o.fields.iter().zip(&slots).zip(&wires).map(|((f, slot), wire)| {
        let id = &f.ident;
        if f.required {
            quote!(#id: #rt::de::required(#slot, #wire)?)
        } else {
            quote!(#id: #slot.unwrap_or_default())
        }
    });
    // A direct decoder: the `Deserialize` that sends the crate's reader to it.
    let fast = &paths.fast;
    let (de_fn, from_json) = if o.direct {
        (quote!(#fast::direct_object), object_from_json(o, paths))
    } else {
        (quote!(#rt::de::object), quote!())
    };
    let name = str_lit(&o.name);
    let object_gen = if params.is_empty() { quote!() } else { quote!(<#(#de_bounds),*>) };
    quote! {
        impl<'de, #(#de_bounds),*> ::serde::Deserialize<'de> for #item #gen {
            fn deserialize<__D: ::serde::Deserializer<'de>>(d: __D) -> ::core::result::Result<Self, __D::Error> {
                #de_fn(d)
            }
        }
        impl #object_gen #rt::de::Object for #item #gen {
            const NAME: &'static str = #name;
            const FIELDS: &'static [&'static str] = &[#(#wires),*];
            fn visit<'de, __A: ::serde::de::MapAccess<'de>>(mut map: __A) -> ::core::result::Result<Self, __A::Error> {
                #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                let rest = #rt::de::fields(&mut map, #index_fn, #read_fn)?;
                ::core::result::Result::Ok(#item { #(#inits,)* additional_properties: rest })
            }
        }
        #from_json
    }
}

/// The direct decoder of a type read from one JSON string (its
/// `runtime::de::Scalar` impl accepts exactly the strings its `Deserialize` does).
fn scalar_from_json(item: &Ident, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    quote! {
        impl<'de> #fast::FromJson<'de> for #item {
            #[inline]
            fn read(r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
                #fast::scalar(r)
            }
        }
    }
}

/// `FromJson::read` of an object decoder: opens the object, reads the rest.
pub(crate) fn read_object(fast: &TokenStream) -> TokenStream {
    quote! {
        #[inline]
        fn read(r: &mut #fast::Reader<'de>) -> ::core::result::Result<Self, #fast::Bail> {
            let more = r.open()?;
            <Self as #fast::FromJson<'de>>::rest(r, more)
        }
    }
}

/// The direct decoder of `o`: its members in one loop, each known one read
/// by its field's rule, the others kept (as the visitor keeps them); a
/// forbidden or repeated property, a missing required one or anything the
/// rules do not serve bails.
pub fn object_from_json(o: &Object, paths: &Paths) -> TokenStream {
    assert!(o.params.is_empty(), "a direct decoder is written for a struct without type parameters");
    let (rt, fast) = (&paths.runtime, &paths.fast);
    let item = &o.ident;
    let slots = slots(o.fields.len());
    let types = o.fields.iter().map(|f| &f.ty);
    // Each member's position in the list of known names, then its read by
    // position: a name the reader found by comparing words has its position
    // already.
    let mut positions: Vec<TokenStream> = Vec::new();
    let mut reads: Vec<TokenStream> = Vec::new();
    let mut known: Vec<TokenStream> = Vec::new();
    for (i, (f, slot)) in o.fields.iter().zip(&slots).enumerate() {
        let (names, ty) = (names(f), &f.ty);
        let i = Literal::usize_unsuffixed(i);
        let value = match &f.reader {
            Some(m) => quote!(<#m as #rt::read::Rule<'de, #ty>>::read(r)),
            None => quote!(<#ty as #fast::FromJson<'de>>::read(r)),
        };
        positions.push(quote!(#(#names)|* => #i,));
        reads.push(quote!(#i => #fast::put(&mut #slot, #value),));
        let (wire, key) = (str_lit(&f.wire), member_key(&f.wire));
        known.push(quote!(#fast::Known::new(#wire, #key)));
    }
    // A property that must be absent: the visitor reports it.
    positions.extend(o.forbidden.iter().map(|name| {
        let name = str_lit(name);
        quote!(#name => return ::core::result::Result::Err(#fast::Bail),)
    }));
    let required: Vec<&Ident> = o.fields.iter().zip(&slots).filter(|(f, _)| f.required).map(|(_, s)| s).collect();
    let inits = o.fields.iter().zip(&slots).map(|(f, slot)| {
        let id = &f.ident;
        if f.required {
            quote!(#id: #slot)
        } else {
            quote!(#id: #slot.unwrap_or_default())
        }
    });
    let read = read_object(fast);
    quote! {
        impl<'de> #fast::FromJson<'de> for #item {
            #read

            // One exit for errors (`members`), so the slots are dropped at one place.
            #[inline]
            fn rest(r: &mut #fast::Reader<'de>, more: bool) -> ::core::result::Result<Self, #fast::Bail> {
                const KNOWN: &[#fast::Known] = &[#(#known),*];
                #(let mut #slots: ::core::option::Option<#types> = ::core::option::Option::None;)*
                let mut rest = #rt::Extra::new();
                #fast::members_known(r, more, KNOWN, |r, member| {
                    let at = match member {
                        #fast::Member::At(at) => at,
                        #fast::Member::Name(key) => match key {
                            #(#positions)*
                            other => return #fast::keep(r, &mut rest, other),
                        },
                    };
                    match at {
                        #(#reads)*
                        _ => ::core::result::Result::Err(#fast::Bail),
                    }
                })?;
                // Each required slot taken on its own: a `match` on a tuple
                // of them would move every value once more.
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

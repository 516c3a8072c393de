//! Unions (`#[derive(AcpUnion)]`): the description of a union, and its streaming or buffered
//! decoder, `tag()`, the `From` conversions and the direct decoder of an enum
//! whose variants are the arms of a JSON Schema `oneOf`/`anyOf`.

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use crate::{str_lit, Paths};

/// A union: an enum whose variants are its arms.
#[derive(Debug, Clone)]
pub struct Union {
    /// The enum (also its name in errors).
    pub ident: Ident,
    /// The discriminator, for a tagged union; `None` tries the arms in order.
    pub tag: Option<UnionTag>,
    /// The arms, in the order of the enum.
    pub arms: Vec<Arm>,
    /// The variant that keeps an arm this version does not know.
    pub catch_all: Option<CatchAll>,
    /// It also gets a direct decoder (`json::fast::FromJson`).
    pub direct: bool,
}

/// The discriminator of a tagged union.
#[derive(Debug, Clone)]
pub struct UnionTag {
    /// The property.
    pub key: String,
    /// A discriminator that is not a string reads as an absent one.
    pub lenient: bool,
    /// `tag()` returns an `Option` even when every arm has a discriminator
    /// value (an arm without one exists in another build).
    pub optional: bool,
}

/// One arm of a [`Union`].
#[derive(Debug, Clone)]
pub struct Arm {
    /// The variant.
    pub variant: Ident,
    /// The discriminator's value; `None` for an arm that does not fix it
    /// (tried in order when the discriminator is absent or unknown), and for
    /// every arm of an untagged union.
    pub tag: Option<String>,
    /// What the variant carries.
    pub payload: ArmPayload,
    /// It gets no `From` impl although its payload type is its own.
    pub no_from: bool,
}

/// What an [`Arm`]'s variant carries.
#[derive(Debug, Clone)]
pub enum ArmPayload {
    /// Nothing: the discriminator alone (tagged), or `null` (untagged).
    Unit,
    /// One value of `ty`; `unboxed` is `T` when `ty` is `Box<T>`.
    Type { ty: TokenStream, unboxed: Option<TokenStream> },
    /// `{ explicit_null: bool }`: the discriminator absent or `null`.
    NoTag,
}

/// The variant (holding `runtime::UnknownVariant`) that keeps an object no arm
/// names, with the checks the schema's catch-all arm makes.
#[derive(Debug, Clone)]
pub struct CatchAll {
    /// The variant.
    pub variant: Ident,
    /// Discriminators reserved for arms to come: refused.
    pub reserved: Vec<String>,
    /// Properties the object must have.
    pub required: Vec<String>,
    /// Properties whose type is checked when present: name and type.
    pub checks: Vec<(String, TokenStream)>,
}

/// Every impl of `u` but its encoders (`crate::encode::union_serialize`).
pub(crate) fn union_decoders(u: &Union, paths: &Paths) -> TokenStream {
    let deserialize = match &u.tag {
        Some(tag) => tagged_deserialize(u, tag, paths),
        None => untagged_deserialize(u, paths),
    };
    let accessor = u.tag.as_ref().map(|t| tag_accessor(u, t));
    let conversions = conversions(u);
    let direct = u.direct.then(|| direct(u, paths));
    quote! { #deserialize #accessor #conversions #direct }
}

fn tagged_deserialize(u: &Union, tag: &UnionTag, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let name = &u.ident;
    let uname = str_lit(&crate::unraw(name));
    let key = str_lit(&tag.key);
    let known: Vec<Literal> = u.arms.iter().filter_map(|a| a.tag.as_deref().map(str_lit)).collect();
    let is_known = if known.is_empty() { quote!(false) } else { quote!(::core::matches!(tag, #(#known)|*)) };
    // The streaming path: a known discriminator, the payload decoded in place.
    // A known discriminator never reaches `from_object`, so the payload
    // types are never decoded from a `Value` (nor that path compiled).
    let streamed = u.arms.iter().filter_map(|a| {
        let (vn, t) = (&a.variant, str_lit(a.tag.as_deref()?));
        Some(match &a.payload {
            ArmPayload::Unit => quote! {
                #t => {
                    #rt::de::skip(payload)?;
                    ::core::result::Result::Ok(Self::#vn)
                }
            },
            _ => quote!(#t => #rt::de::variant(payload, tag, Self::#vn),),
        })
    });
    // The buffered path: the whole object (an absent, unknown or odd discriminator).
    let mut arms = Vec::new();
    let untagged: Vec<&Arm> = u.arms.iter().filter(|a| a.tag.is_none()).collect();
    let missing =
        if tag.lenient { quote!(#rt::de::Tag::Missing | #rt::de::Tag::Invalid) } else { quote!(#rt::de::Tag::Missing) };
    if let Some(a) = untagged.iter().find(|a| matches!(a.payload, ArmPayload::NoTag)) {
        let vn = &a.variant;
        arms.push(quote!(#missing => ::core::result::Result::Ok(Self::#vn { explicit_null: false }),));
        arms.push(quote!(#rt::de::Tag::Null => ::core::result::Result::Ok(Self::#vn { explicit_null: true }),));
    }
    let catch_all = u.catch_all.as_ref().map(|c| tagged_catch_all(c, (&uname, &key), paths));
    // Arms that do not fix the discriminator accept every value of it but
    // the known ones (JSON Schema: the arm does not constrain it): an absent,
    // unknown or odd discriminator tries them in order, then the catch-all
    // for an unknown string.
    let open: Vec<&&Arm> = untagged.iter().filter(|a| !matches!(a.payload, ArmPayload::NoTag)).collect();
    if !open.is_empty() {
        arms.push(open_arm(&open, catch_all.as_ref(), (&uname, &key), paths));
    } else if let Some(body) = &catch_all {
        arms.push(quote!(#rt::de::Tag::Str(_) => { #body }));
    }
    // A closed union whose arms all fix the discriminator has nothing to
    // decode from a buffered object: it can only name the discriminator.
    let from_object = if arms.is_empty() {
        quote!(::core::result::Result::Err(#rt::de::unknown_tag(#uname, #key, #rt::de::tag(&object, #key), KNOWN)))
    } else {
        quote! {
            match #rt::de::tag(&object, #key) {
                #(#arms)*
                #[allow(unreachable_patterns)]
                other => ::core::result::Result::Err(#rt::de::unknown_tag(#uname, #key, other, KNOWN)),
            }
        }
    };
    quote! {
        impl #rt::de::Tagged for #name {
            const NAME: &'static str = #uname;
            const KEY: &'static str = #key;

            fn is_known(tag: &str) -> bool {
                #is_known
            }

            fn known<'de, D: ::serde::Deserializer<'de>>(tag: &str, payload: D) -> ::core::result::Result<Self, D::Error> {
                match tag {
                    #(#streamed)*
                    _ => ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom("not a known discriminator")),
                }
            }

            fn from_object<E: ::serde::de::Error>(object: #rt::JsonObject) -> ::core::result::Result<Self, E> {
                const KNOWN: &[&str] = &[#(#known),*];
                #from_object
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                #rt::de::tagged(d)
            }
        }
    }
}

/// The body of the catch-all arm: the reserved discriminators and the arm's
/// checks, then the object kept as received.
fn tagged_catch_all(c: &CatchAll, (uname, key): (&Literal, &Literal), paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let cn = &c.variant;
    let checks = catch_all_checks(c, uname, quote!(E), paths);
    let reserved = (!c.reserved.is_empty()).then(|| {
        let reserved = c.reserved.iter().map(|r| str_lit(r));
        quote!(#rt::de::check_reserved::<E>(&object, #uname, #key, &[#(#reserved),*])?;)
    });
    quote! {
        #reserved
        #checks
        ::core::result::Result::Ok(Self::#cn(#rt::UnknownVariant::__new(object)))
    }
}

/// The checks of a catch-all arm on `object`: its required properties, and
/// the type of each property it names (errors of type `err`).
fn catch_all_checks(c: &CatchAll, uname: &Literal, err: TokenStream, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let required = c.required.iter().map(|r| str_lit(r));
    let checks = c.checks.iter().map(|(name, ty)| {
        let k = str_lit(name);
        quote!(#rt::de::check_catch_all_field::<#ty, #err>(&object, #uname, #k)?;)
    });
    quote! {
        #rt::de::check_catch_all::<#err>(&object, #uname, &[#(#required),*])?;
        #(#checks)*
    }
}

/// The arm of an absent, unknown or odd discriminator when some arms do not
/// fix it: they are tried in order, then the catch-all for an unknown string.
fn open_arm(
    open: &[&&Arm],
    catch_all: Option<&TokenStream>,
    (uname, key): (&Literal, &Literal),
    paths: &Paths,
) -> TokenStream {
    let rt = &paths.runtime;
    let tries = open.iter().map(|a| try_arm(a, paths));
    let (unknown_string, fallback) = match catch_all {
        Some(body) => (
            quote!(let unknown_string = ::core::matches!(other, #rt::de::Tag::Str(_));),
            quote! {
                if let (true, #rt::de::JsonValue::Object(object)) = (unknown_string, value) {
                    return { #body };
                }
            },
        ),
        None => (quote!(), quote!()),
    };
    quote! {
        other => {
            #unknown_string
            let missing = ::core::matches!(other, #rt::de::Tag::Missing);
            // Described now, while `other` still borrows the object; only
            // for a present discriminator (an absent one is the usual case).
            let tag_error = if missing {
                ::std::string::String::new()
            } else {
                ::std::string::ToString::to_string(&#rt::de::unknown_tag::<#rt::de::JsonError>(#uname, #key, other, KNOWN))
            };
            let value = #rt::de::JsonValue::Object(object);
            let mut errors = ::std::vec::Vec::new();
            #(#tries)*
            #fallback
            ::core::result::Result::Err(#rt::de::no_open_arm(#uname, &tag_error, missing, &errors))
        }
    }
}

/// One arm tried on a buffered `value`: unit arms take `null`.
fn try_arm(a: &Arm, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let vn = &a.variant;
    let arm = str_lit(&crate::unraw(vn));
    match a.payload {
        ArmPayload::Unit => quote! {
            if value.is_null() { return ::core::result::Result::Ok(Self::#vn); }
        },
        _ => quote! {
            if let ::core::option::Option::Some(v) = #rt::de::try_arm(&value, &mut errors, #arm) {
                return ::core::result::Result::Ok(Self::#vn(v));
            }
        },
    }
}

fn untagged_deserialize(u: &Union, paths: &Paths) -> TokenStream {
    let rt = &paths.runtime;
    let name = &u.ident;
    let uname = str_lit(&crate::unraw(name));
    let tries = u.arms.iter().map(|a| try_arm(a, paths));
    // The catch-all arm (its `not` lists every other arm): an object no arm
    // accepts is kept whole.
    let fallback = u.catch_all.as_ref().map(|c| {
        let cn = &c.variant;
        let checks = catch_all_checks(c, &uname, quote!(D::Error), paths);
        quote! {
            if let #rt::de::JsonValue::Object(object) = value {
                #checks
                return ::core::result::Result::Ok(Self::#cn(#rt::UnknownVariant::__new(object)));
            }
        }
    });
    quote! {
        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                let value = #rt::de::value(d)?;
                let mut errors = ::std::vec::Vec::new();
                #(#tries)*
                #fallback
                ::core::result::Result::Err(#rt::de::no_arm(#uname, &errors))
            }
        }
    }
}

/// `TAG` and `tag()`: without `Option` for a closed union whose every arm
/// has a discriminator value.
fn tag_accessor(u: &Union, tag: &UnionTag) -> TokenStream {
    let name = &u.ident;
    let key = str_lit(&tag.key);
    let always = !tag.optional && u.catch_all.is_none() && u.arms.iter().all(|a| a.tag.is_some());
    let mut arms: Vec<TokenStream> = u
        .arms
        .iter()
        .map(|a| {
            let vn = &a.variant;
            let pat = match a.payload {
                ArmPayload::Unit => quote!(Self::#vn),
                ArmPayload::Type { .. } => quote!(Self::#vn(_)),
                ArmPayload::NoTag => quote!(Self::#vn { .. }),
            };
            let value = match &a.tag {
                Some(t) if always => quote!(#t),
                Some(t) => quote!(::core::option::Option::Some(#t)),
                None => quote!(::core::option::Option::None),
            };
            quote!(#pat => #value,)
        })
        .collect();
    let (ret, doc) = if always {
        (quote!(&'static str), format!(" The `{}` discriminator of this value.", tag.key))
    } else {
        if let Some(c) = &u.catch_all {
            let cn = &c.variant;
            arms.push(quote!(Self::#cn(v) => ::core::option::Option::Some(v.__tag(#key)),));
        }
        (
            quote!(::core::option::Option<&str>),
            format!(" The `{}` discriminator of this value, when it has one.", tag.key),
        )
    };
    quote! {
        impl #name {
            /// The property that discriminates the variants.
            pub const TAG: &'static str = #key;
            #[doc = #doc]
            pub fn tag(&self) -> #ret {
                match self { #(#arms)* }
            }
        }
    }
}

/// `From<payload>` for every arm whose payload type no other arm has (and
/// `From<&str>` beside `From<String>`).
fn conversions(u: &Union) -> TokenStream {
    let name = &u.ident;
    let key = |a: &Arm| match &a.payload {
        ArmPayload::Type { ty, unboxed } => Some(unboxed.as_ref().unwrap_or(ty).to_string()),
        _ => None,
    };
    let keys: Vec<Option<String>> = u.arms.iter().map(key).collect();
    let mut out = Vec::new();
    for (a, k) in u.arms.iter().zip(&keys) {
        let (ArmPayload::Type { ty, unboxed }, Some(k)) = (&a.payload, k) else { continue };
        if a.no_from || keys.iter().filter(|other| other.as_ref() == Some(k)).count() > 1 {
            continue;
        }
        let vn = &a.variant;
        let (from, value) = match unboxed {
            Some(inner) => (inner, quote!(::std::boxed::Box::new(value))),
            None => (ty, quote!(value)),
        };
        let doc = format!(" The `{}` arm.", a.tag.clone().unwrap_or_else(|| crate::unraw(vn)));
        out.push(quote! {
            impl ::core::convert::From<#from> for #name {
                #[doc = #doc]
                fn from(value: #from) -> Self { Self::#vn(#value) }
            }
        });
        // A plain string arm takes a `&str` too (`RequestId::from("r1")`).
        if unboxed.is_none() && is_string(k) {
            out.push(quote! {
                impl ::core::convert::From<&str> for #name {
                    #[doc = #doc]
                    fn from(value: &str) -> Self { Self::#vn(::std::borrow::ToOwned::to_owned(value)) }
                }
            });
        }
    }
    quote!(#(#out)*)
}

/// Whether a type, as tokens, is `String`.
fn is_string(ty: &str) -> bool {
    matches!(ty.replace(' ', "").as_str(), "String" | "::std::string::String" | "std::string::String")
}

/// The direct decoder: a tagged union's (the discriminator must be the first
/// member, the first after an outer union's, and name an arm; the arm's
/// members follow; anything else bails), or an untagged one's through serde.
fn direct(u: &Union, paths: &Paths) -> TokenStream {
    let fast = &paths.fast;
    let name = &u.ident;
    let Some(tag) = &u.tag else {
        return quote!(impl<'de> #fast::FromJson<'de> for #name {});
    };
    let key = str_lit(&tag.key);
    let key_bytes = crate::member_key(&tag.key);
    let arms = u.arms.iter().filter_map(|a| {
        let (t, variant) = (str_lit(a.tag.as_deref()?), &a.variant);
        Some(match &a.payload {
            ArmPayload::Unit => quote! {
                #t => {
                    #fast::skip_members(r, more)?;
                    ::core::result::Result::Ok(Self::#variant)
                }
            },
            ArmPayload::Type { ty, .. } => {
                quote!(#t => <#ty as #fast::FromJson<'de>>::rest(r, more).map(Self::#variant),)
            }
            ArmPayload::NoTag => return None,
        })
    });
    let read = crate::read_object(fast);
    quote! {
        impl<'de> #fast::FromJson<'de> for #name {
            #read

            // Also the arm of an outer union (whose discriminator came first).
            #[inline]
            fn rest(r: &mut #fast::Reader<'de>, more: bool) -> ::core::result::Result<Self, #fast::Bail> {
                const KEY: #fast::Known = #fast::Known::new(#key, #key_bytes);
                if !more || !(r.known_key(&KEY) || r.key()? == #key) {
                    return ::core::result::Result::Err(#fast::Bail);
                }
                let tag = r.str()?;
                let more = r.next_member()?;
                // The arm's members may not name the discriminator again.
                #fast::arm(r, more, #key, |r, more| match &*tag {
                    #(#arms)*
                    _ => ::core::result::Result::Err(#fast::Bail),
                })
            }
        }
    }
}

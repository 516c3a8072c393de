//! Tagged and untagged unions: the enum, its serializer, and its streaming or buffered decoder.

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use super::{docs_or, ident, str_lit, Emitter};
use crate::model::*;

impl Emitter {
    /// Whether the arm's payload is boxed, as the plan decided
    /// ([`crate::plan::Decisions::boxed_arms`]).
    pub(super) fn arm_boxed(&self, union: &str, v: &Variant) -> bool {
        self.decisions.boxed_arms.contains(&(union.to_owned(), v.rust_name.clone()))
    }
}

impl Emitter {
    // ---- unions --------------------------------------------------------------

    pub(super) fn union(&self, def: &Def, u: &Union) -> Vec<TokenStream> {
        let name = ident(&def.rust_name);
        let doc = self.item_docs(def);
        let mut variants = Vec::new();
        for v in &u.variants {
            let vn = ident(&v.rust_name);
            let gate = self.cfg_of(def, &v.rust_name);
            let vd = docs_or(self.docs_of(def, &v.rust_name, &v.docs), || match (&v.tag, &v.payload) {
                (Some(t), _) => format!("The `{t}` variant."),
                (None, Payload::Type(Type::Ref(r))) => format!("A [`{}`].", self.rust_name(r)),
                (None, _) => format!("The `{}` arm.", v.rust_name),
            });
            let vd = quote!(#gate #vd);
            variants.push(match &v.payload {
                Payload::Unit => quote! { #vd #vn, },
                Payload::Type(t) => {
                    let t = self.ty(t);
                    if self.arm_boxed(&def.name, v) {
                        quote! { #vd #vn(::std::boxed::Box<#t>), }
                    } else {
                        quote! { #vd #vn(#t), }
                    }
                }
                Payload::NoTag => {
                    let prop = &u.tag.as_ref().map(|t| t.property.clone()).unwrap_or_default();
                    let fd = format!(" `true` when `{prop}` was an explicit `null`, `false` when it was omitted.");
                    quote! { #vd #vn { #[doc = #fd] explicit_null: bool }, }
                }
            });
        }
        let rt = &self.rt;
        if let Some(c) = &u.catch_all {
            let cd = docs_or(self.docs_of(def, &c.rust_name, &c.docs), || {
                "A variant this version does not know, kept whole.".to_owned()
            });
            let cn = ident(&c.rust_name);
            variants.push(quote! { #cd #cn(#rt::UnknownVariant), });
        }
        let ord = self.total_order(def);
        let mut items = vec![quote! {
            #doc
            #[derive(Debug, Clone, PartialEq, #ord)]
            #[non_exhaustive]
            pub enum #name { #(#variants)* }
        }];
        items.push(self.union_serialize(def, u));
        items.push(match &u.tag {
            Some(tag) => self.tagged_deserialize(def, u, tag),
            None => self.untagged_deserialize(def, u),
        });
        if let Some(tag) = &u.tag {
            items.push(self.tag_accessor(def, u, tag));
        }
        items.extend(self.arm_conversions(def, u));
        items
    }

    /// `From<payload>` for every arm whose payload type no other arm has:
    /// a value of an arm's type converts into the union
    /// (`ContentBlock::from(TextContent::new("hi"))`, and every `impl
    /// Into<ContentBlock>` parameter takes a `TextContent`).
    fn arm_conversions(&self, def: &Def, u: &Union) -> Vec<TokenStream> {
        let name = ident(&def.rust_name);
        let keys: Vec<Option<String>> = u
            .variants
            .iter()
            .map(|v| match &v.payload {
                Payload::Type(t) => Some(self.resolved_ty(t)),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        for (v, key) in u.variants.iter().zip(&keys) {
            let (Payload::Type(t), Some(key)) = (&v.payload, key) else { continue };
            if keys.iter().filter(|k| k.as_ref() == Some(key)).count() > 1 {
                continue;
            }
            let (vn, ty) = (ident(&v.rust_name), self.ty(t));
            let value =
                if self.arm_boxed(&def.name, v) { quote!(::std::boxed::Box::new(value)) } else { quote!(value) };
            let doc = format!(" The `{}` arm.", v.tag.as_deref().unwrap_or(&v.rust_name));
            let gate = self.cfg_of(def, &v.rust_name);
            out.push(quote! {
                #gate
                impl ::core::convert::From<#ty> for #name {
                    #[doc = #doc]
                    fn from(value: #ty) -> Self { Self::#vn(#value) }
                }
            });
            // A plain string arm takes a `&str` too (`RequestId::from("r1")`).
            if key.replace(' ', "") == "::std::string::String" && !self.arm_boxed(&def.name, v) {
                out.push(quote! {
                    #gate
                    impl ::core::convert::From<&str> for #name {
                        #[doc = #doc]
                        fn from(value: &str) -> Self { Self::#vn(::std::borrow::ToOwned::to_owned(value)) }
                    }
                });
            }
        }
        out
    }

    fn tag_accessor(&self, def: &Def, u: &Union, tag: &Tag) -> TokenStream {
        let name = ident(&def.rust_name);
        let key = str_lit(&tag.property);
        // A closed union whose every arm has a discriminator value: the tag
        // is always one of the schema's, so `tag()` gives it without `Option`.
        let always = u.catch_all.is_none() && u.variants.iter().all(|v| v.tag.is_some());
        let mut arms = Vec::new();
        for v in &u.variants {
            let vn = ident(&v.rust_name);
            let pat = match v.payload {
                Payload::Unit => quote!(Self::#vn),
                Payload::Type(_) => quote!(Self::#vn(_)),
                Payload::NoTag => quote!(Self::#vn { .. }),
            };
            let val = match &v.tag {
                Some(t) if always => {
                    let t = str_lit(t);
                    quote!(#t)
                }
                Some(t) => {
                    let t = str_lit(t);
                    quote!(::core::option::Option::Some(#t))
                }
                None => quote!(::core::option::Option::None),
            };
            let gate = self.cfg_of(def, &v.rust_name);
            arms.push(quote!(#gate #pat => #val,));
        }
        if always {
            let doc = format!(" The `{}` discriminator of this value.", tag.property);
            return quote! {
                impl #name {
                    /// The property that discriminates the variants.
                    pub const TAG: &'static str = #key;
                    #[doc = #doc]
                    pub fn tag(&self) -> &'static str {
                        match self { #(#arms)* }
                    }
                }
            };
        }
        if let Some(c) = &u.catch_all {
            let cn = ident(&c.rust_name);
            arms.push(quote!(Self::#cn(v) => ::core::option::Option::Some(v.__tag(#key)),));
        }
        let doc = format!(" The `{}` discriminator of this value, when it has one.", tag.property);
        quote! {
            impl #name {
                /// The property that discriminates the variants.
                pub const TAG: &'static str = #key;
                #[doc = #doc]
                pub fn tag(&self) -> ::core::option::Option<&str> {
                    match self { #(#arms)* }
                }
            }
        }
    }

    fn union_serialize(&self, def: &Def, u: &Union) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let key = str_lit(u.tag.as_ref().map(|t| t.property.as_str()).unwrap_or(""));
        let mut arms = Vec::new();
        for v in &u.variants {
            let vn = ident(&v.rust_name);
            let gate = self.cfg_of(def, &v.rust_name);
            let arm = match (&v.payload, &v.tag) {
                (Payload::Unit, Some(t)) => {
                    let t = str_lit(t);
                    quote!(Self::#vn => #rt::ser::tagged(s, K, #t, ::core::option::Option::<&()>::None),)
                }
                (Payload::Type(_), Some(t)) => {
                    let t = str_lit(t);
                    quote!(Self::#vn(p) => #rt::ser::tagged(s, K, #t, ::core::option::Option::Some(p)),)
                }
                (Payload::Type(_), None) => quote!(Self::#vn(p) => ::serde::Serialize::serialize(p, s),),
                (Payload::NoTag, _) => quote! {
                    Self::#vn { explicit_null } => {
                        use ::serde::ser::SerializeMap as _;
                        let mut map = s.serialize_map(::core::option::Option::None)?;
                        if *explicit_null {
                            map.serialize_entry(K, &())?;
                        }
                        map.end()
                    }
                },
                (Payload::Unit, None) => quote!(Self::#vn => s.serialize_unit(),),
            };
            arms.push(quote!(#gate #arm));
        }
        if let Some(c) = &u.catch_all {
            let cn = ident(&c.rust_name);
            arms.push(quote!(Self::#cn(v) => ::serde::Serialize::serialize(v, s),));
        }
        // `K`, the discriminator property, for a union that has one.
        let k = if u.tag.is_some() { quote!(const K: &str = #key;) } else { quote!() };
        quote! {
            impl ::serde::Serialize for #name {
                fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #k
                    match self { #(#arms)* }
                }
            }
        }
    }

    /// The body of `Tagged::is_known`: one pattern of the discriminators,
    /// and those of the arms only the unstable build has in a second one
    /// behind the feature.
    fn is_known(&self, def: &Def, tagged: &[&Variant]) -> TokenStream {
        let (always, only): (Vec<&&Variant>, Vec<&&Variant>) =
            tagged.iter().partition(|v| self.gate_of(def, &v.rust_name) == super::Gate::Always);
        let pattern = |vs: &[&&Variant]| {
            if vs.is_empty() {
                return quote!(false);
            }
            let tags = vs.iter().map(|v| str_lit(v.tag.as_deref().unwrap_or_default()));
            quote!(matches!(tag, #(#tags)|*))
        };
        if only.is_empty() {
            return pattern(&always);
        }
        let (a, o) = (pattern(&always), pattern(&only));
        quote!(#a || (cfg!(feature = "unstable") && #o))
    }

    fn tagged_deserialize(&self, def: &Def, u: &Union, tag: &Tag) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let uname = str_lit(&def.rust_name);
        let key = str_lit(&tag.property);
        let gate = |v: &Variant| self.cfg_of(def, &v.rust_name);
        let tagged: Vec<&Variant> = u.variants.iter().filter(|v| v.tag.is_some()).collect();
        let known: Vec<TokenStream> = tagged
            .iter()
            .map(|v| {
                let (g, t) = (gate(v), str_lit(v.tag.as_deref().unwrap_or_default()));
                quote!(#g #t)
            })
            .collect();
        let is_known = self.is_known(def, &tagged);
        // The streaming path: a known discriminator, payload decoded in place.
        let streamed = tagged_streamed_arms(rt, u, &gate);
        // The buffered path: the whole object (unknown, missing or odd discriminators).
        let mut arms = Vec::new();
        // Arms chosen when the discriminator is absent.
        let untagged: Vec<&Variant> = u.variants.iter().filter(|v| v.tag.is_none()).collect();
        let no_tag = untagged.iter().find(|v| v.payload == Payload::NoTag);
        let missing_pat = if tag.lenient {
            quote!(#rt::de::Tag::Missing | #rt::de::Tag::Invalid)
        } else {
            quote!(#rt::de::Tag::Missing)
        };
        if let Some(v) = no_tag {
            let vn = ident(&v.rust_name);
            arms.push(quote!(#missing_pat => ::core::result::Result::Ok(Self::#vn { explicit_null: false }),));
            arms.push(quote!(#rt::de::Tag::Null => ::core::result::Result::Ok(Self::#vn { explicit_null: true }),));
        }
        // The catch-all arm: an unknown string discriminator keeps the object.
        let catch_all = u.catch_all.as_ref().map(|c| self.tagged_catch_all(c, &uname, &key));
        // Arms that do not fix the discriminator accept every value of it but
        // the known ones (JSON Schema: the arm does not constrain it): an
        // absent, unknown or odd discriminator tries them in order (v1's
        // `value_id`: "unknown `type` values with string payloads" decode
        // into it), then the catch-all for an unknown string.
        let open: Vec<&&Variant> = untagged.iter().filter(|v| v.payload != Payload::NoTag).collect();
        if !open.is_empty() {
            arms.push(tagged_open_arm(rt, &open, catch_all.as_ref(), (&uname, &key), &gate));
        } else if let Some(body) = &catch_all {
            arms.push(quote!(#rt::de::Tag::Str(_) => { #body }));
        }
        // A closed union whose arms all fix the discriminator has nothing to
        // decode from a buffered object: it can only name the discriminator.
        let from_object_body = if arms.is_empty() {
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
                    #from_object_body
                }
            }

            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    #rt::de::tagged(d)
                }
            }
        }
    }

    /// The body of the catch-all arm: the reserved discriminators and the
    /// arm's checks, then the object kept as received.
    fn tagged_catch_all(&self, c: &CatchAll, uname: &Literal, key: &Literal) -> TokenStream {
        let rt = &self.rt;
        let cn = ident(&c.rust_name);
        let checks = self.catch_all_checks(c, uname, quote!(E));
        let reserved = c.reserved.iter().map(|r| str_lit(r));
        let reserved = if c.reserved.is_empty() {
            quote!()
        } else {
            quote!(#rt::de::check_reserved::<E>(&object, #uname, #key, &[#(#reserved),*])?;)
        };
        quote! {
            #reserved
            #checks
            ::core::result::Result::Ok(Self::#cn(#rt::UnknownVariant::__new(object)))
        }
    }

    /// The checks of a catch-all arm on `object`: its required properties, and
    /// the type of each property it names (errors of type `err`).
    fn catch_all_checks(&self, c: &CatchAll, uname: &Literal, err: TokenStream) -> TokenStream {
        let rt = &self.rt;
        let required: Vec<Literal> = c.required.iter().map(|r| str_lit(r)).collect();
        let checks = c.fields.iter().map(|f| {
            let (k, t) = (str_lit(&f.name), self.ty(&f.ty));
            let t = if f.nullable { quote!(::core::option::Option<#t>) } else { t };
            quote!(#rt::de::check_catch_all_field::<#t, #err>(&object, #uname, #k)?;)
        });
        quote! {
            #rt::de::check_catch_all::<#err>(&object, #uname, &[#(#required),*])?;
            #(#checks)*
        }
    }

    fn untagged_deserialize(&self, def: &Def, u: &Union) -> TokenStream {
        let rt = &self.rt;
        let name = ident(&def.rust_name);
        let uname = str_lit(&def.rust_name);
        let tries = u.variants.iter().map(|v| {
            let vn = ident(&v.rust_name);
            let arm = str_lit(&v.rust_name);
            let gate = self.cfg_of(def, &v.rust_name);
            match &v.payload {
                Payload::Unit => quote! {
                    #gate
                    if value.is_null() { return ::core::result::Result::Ok(Self::#vn); }
                },
                _ => quote! {
                    #gate
                    if let ::core::option::Option::Some(v) = #rt::de::try_arm(&value, &mut errors, #arm) {
                        return ::core::result::Result::Ok(Self::#vn(v));
                    }
                },
            }
        });
        // The catch-all arm (its `not` lists every other arm): an object no arm
        // accepts is kept whole.
        let fallback = u.catch_all.as_ref().map(|c| {
            let cn = ident(&c.rust_name);
            let checks = self.catch_all_checks(c, &uname, quote!(D::Error));
            quote! {
                if let ::serde_json::Value::Object(object) = value {
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
}

/// The arms of `Tagged::known`: each known discriminator's payload decoded in place.
fn tagged_streamed_arms(rt: &TokenStream, u: &Union, gate: &dyn Fn(&Variant) -> TokenStream) -> Vec<TokenStream> {
    let mut streamed = Vec::new();
    for v in &u.variants {
        let Some(t) = &v.tag else { continue };
        let (vn, tl) = (ident(&v.rust_name), str_lit(t));
        let gate = gate(v);
        streamed.push(match &v.payload {
            Payload::Unit => quote! {
                #gate
                #tl => {
                    #rt::de::skip(payload)?;
                    ::core::result::Result::Ok(Self::#vn)
                }
            },
            _ => quote!(#gate #tl => #rt::de::variant(payload, tag, Self::#vn),),
        });
        // No buffered arm for a known discriminator: `runtime::de::tagged`
        // always streams it (`from_object` sees only absent, unknown or
        // odd discriminators), so the payload types are never decoded from
        // a `Value` and the compiler does not instantiate that path.
    }
    streamed
}

/// The arm of an absent, unknown or odd discriminator when some arms do not
/// fix it: they are tried in order, then the catch-all for an unknown string.
fn tagged_open_arm(
    rt: &TokenStream,
    open: &[&&Variant],
    catch_all: Option<&TokenStream>,
    (uname, key): (&Literal, &Literal),
    gate: &dyn Fn(&Variant) -> TokenStream,
) -> TokenStream {
    let tries = open.iter().map(|v| {
        let vn = ident(&v.rust_name);
        let arm = str_lit(&v.rust_name);
        let gate = gate(v);
        quote! {
            #gate
            if let ::core::option::Option::Some(v) = #rt::de::try_arm(&value, &mut errors, #arm) {
                return ::core::result::Result::Ok(Self::#vn(v));
            }
        }
    });
    let unknown_string = match catch_all {
        Some(_) => quote!(let unknown_string = ::core::matches!(other, #rt::de::Tag::Str(_));),
        None => quote!(),
    };
    let fallback = match catch_all {
        Some(body) => quote! {
            if let (true, ::serde_json::Value::Object(object)) = (unknown_string, value) {
                return { #body };
            }
        },
        None => quote!(),
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
                #rt::de::unknown_tag::<::serde_json::Error>(#uname, #key, other, KNOWN).to_string()
            };
            let value = ::serde_json::Value::Object(object);
            let mut errors = ::std::vec::Vec::new();
            #(#tries)*
            #fallback
            ::core::result::Result::Err(#rt::de::no_open_arm(#uname, &tag_error, missing, &errors))
        }
    }
}

//! Rendering a field's decoding rule ([`ReadRule`], decided by the plan):
//! the rule's reader type in the runtime (`runtime::read`), the
//! `deserialize_with` attribute that names it for serde's derive, and the
//! hidden types that tell the runtime where a checked rule is.

use proc_macro2::TokenStream;
use quote::quote;

use super::{ident, str_lit, Emitter};
use crate::model::Field;
use crate::plan::{HiddenKind, ReadRule};

/// An `i128` const argument (a negative one in braces).
fn const_i128(v: i128) -> TokenStream {
    let lit = proc_macro2::Literal::i128_unsuffixed(v.abs());
    if v < 0 {
        quote!({ -#lit })
    } else {
        quote!(#lit)
    }
}

/// An `f64` bound as the `u64` const argument the runtime takes (`f64::to_bits`).
fn const_bits(v: f64) -> TokenStream {
    let bits: TokenStream = format!("{:#x}", v.to_bits()).parse().expect("a hex literal parses");
    bits
}

impl Emitter {
    /// The reader type of a rule: a type of `runtime::read` implementing
    /// `Reader<T>` and `json::fast::Rule<'de, T>` for the field's type `T`;
    /// `None` when the field type's own decoding reads it.
    pub(super) fn reader_type(&self, rule: &ReadRule) -> Option<TokenStream> {
        let rt = &self.rt;
        Some(match rule {
            ReadRule::Plain | ReadRule::Patch { .. } => return None,
            ReadRule::Lenient => quote!(#rt::read::Lenient),
            ReadRule::LenientMeta => quote!(#rt::read::LenientMeta),
            ReadRule::LenientScalar => quote!(#rt::read::LenientScalar),
            ReadRule::LenientItems => quote!(#rt::read::LenientItems),
            ReadRule::Items => quote!(#rt::read::Items),
            ReadRule::Any => quote!(#rt::read::Any),
            ReadRule::Json => quote!(#rt::read::Json),
            ReadRule::Present => quote!(#rt::read::Present),
            ReadRule::NullAsDefault => quote!(#rt::read::NullAsDefault),
            ReadRule::CheckedStr { rule, optional: false, .. } => {
                let r = ident(rule);
                quote!(#rt::read::CheckedStr<#r>)
            }
            ReadRule::CheckedStr { rule, optional: true, lenient: l } => {
                let r = ident(rule);
                quote!(#rt::read::OptCheckedStr<#r, #l>)
            }
            ReadRule::IntInRange { pointer, min, max, optional, lenient: l } => {
                let (p, min, max) = (ident(pointer), const_i128(*min), const_i128(*max));
                if *optional {
                    quote!(#rt::read::OptIntInRange<#min, #max, #l, #p>)
                } else {
                    quote!(#rt::read::IntInRange<#min, #max, #p>)
                }
            }
            ReadRule::FloatInRange { pointer, min, max, optional, lenient: l } => {
                let (p, min, max) = (ident(pointer), const_bits(*min), const_bits(*max));
                if *optional {
                    quote!(#rt::read::OptFloatInRange<#min, #max, #l, #p>)
                } else {
                    quote!(#rt::read::FloatInRange<#min, #max, #p>)
                }
            }
            ReadRule::ItemCount { pointer, min, max, lenient: l, inner } => {
                let p = ident(pointer);
                let count = |n: u64| proc_macro2::Literal::usize_unsuffixed(usize::try_from(n).unwrap_or(usize::MAX));
                let min = count(*min);
                let max = match max {
                    Some(m) => {
                        let m = count(*m);
                        quote!(#m)
                    }
                    None => quote!({ usize::MAX }),
                };
                let inner = self.reader_type(inner).unwrap_or_else(|| quote!(#rt::read::Plain));
                quote!(#rt::read::ItemCount<#min, #max, #l, #p, #inner>)
            }
        })
    }

    /// `deserialize_with = "..."` for a field with a rule, in a struct whose
    /// `Deserialize` serde's derive writes.
    pub(super) fn deserialize_with(&self, rule: &ReadRule) -> Option<TokenStream> {
        let reader = self.reader_type(rule)?;
        let rt = &self.rt;
        // serde parses the path from a string; spaces between tokens are not needed.
        let path = quote!(#rt::read::with::<#reader, _, _>).to_string().replace(' ', "");
        let path = str_lit(&path);
        Some(quote!(deserialize_with = #path))
    }

    /// The hidden types a rule names (one per checked property, named by the
    /// plan): where the rule is in the schema, for its errors, and for a
    /// string its `minLength` / `maxLength` / `pattern`. `f` is the field
    /// (a definition's value as a field, for a newtype).
    pub(super) fn hidden_rule_types(&self, rule: &ReadRule, f: &Field) -> Vec<TokenStream> {
        let rt = &self.rt;
        let what = if f.name.is_empty() { "the value".to_owned() } else { format!("`{}`", f.name) };
        rule.hidden_types()
            .into_iter()
            .map(|(kind, name)| {
                let name = ident(name);
                let pointer = str_lit(&format!("#{}", f.pointer));
                let doc = format!(" Where the rules of {what} are, for its errors.");
                let pointer_impl = quote! {
                    #[doc = #doc]
                    #[doc(hidden)]
                    #[allow(non_camel_case_types)]
                    pub struct #name;
                    impl #rt::de::Pointer for #name {
                        const POINTER: &'static str = #pointer;
                    }
                };
                match kind {
                    HiddenKind::Pointer => pointer_impl,
                    HiddenKind::StrRule => {
                        let str_rule = self.str_rule_impl(&name, f);
                        quote!(#pointer_impl #str_rule)
                    }
                }
            })
            .collect()
    }

    /// `StrRule` for the hidden type `name` of a string field.
    fn str_rule_impl(&self, name: &proc_macro2::Ident, f: &Field) -> TokenStream {
        let rt = &self.rt;
        let crate::model::StrRule { min, max, pattern } =
            f.ty.string_rule().expect("the plan gives a CheckedStr rule only to a string with rules");
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
        quote! {
            impl #rt::de::StrRule for #name {
                const MIN_LENGTH: usize = #min;
                #max
                fn pattern() -> ::core::option::Option<&'static #rt::de::Pattern> {
                    #pattern
                }
            }
        }
    }
}

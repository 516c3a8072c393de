//! Rendering a field's decoding rule ([`ReadRule`], decided by the plan):
//! the rule's reader type in the runtime (`runtime::read`), the
//! `deserialize_with` attribute that names it for serde's derive, and the
//! hidden types that tell the runtime where a checked rule is.

use proc_macro2::TokenStream;
use quote::quote;

use super::{ident, str_lit, Emitter};
use crate::model::Field;
use crate::plan::{HiddenKind, ReadRule};
use acp_bindings_codegen::{Named, Reader};

/// The plan's rule as `acp-bindings-codegen`'s reader (the one vocabulary
/// of rules the generator and the derives share); `None` when the field
/// type's own decoding reads it.
fn reader(rule: &ReadRule) -> Option<Reader> {
    Some(match rule {
        ReadRule::Plain | ReadRule::Patch { .. } => return None,
        ReadRule::Lenient => Reader::Named(Named::Lenient),
        ReadRule::LenientMeta => Reader::Named(Named::LenientMeta),
        ReadRule::LenientScalar => Reader::Named(Named::LenientScalar),
        ReadRule::LenientItems => Reader::Named(Named::LenientItems),
        ReadRule::Items => Reader::Named(Named::Items),
        ReadRule::Any => Reader::Named(Named::Any),
        ReadRule::Json => Reader::Named(Named::Json),
        ReadRule::Present => Reader::Named(Named::Present),
        ReadRule::NullAsDefault => Reader::Named(Named::NullAsDefault),
        ReadRule::CheckedStr { rule, optional, lenient } => {
            Reader::CheckedStr { rule: ident(rule), optional: *optional, lenient: *lenient }
        }
        ReadRule::IntInRange { pointer, min, max, optional, lenient } => {
            Reader::IntInRange { pointer: ident(pointer), min: *min, max: *max, optional: *optional, lenient: *lenient }
        }
        ReadRule::FloatInRange { pointer, min, max, optional, lenient } => Reader::FloatInRange {
            pointer: ident(pointer),
            min: *min,
            max: *max,
            optional: *optional,
            lenient: *lenient,
        },
        ReadRule::ItemCount { pointer, min, max, lenient, inner } => Reader::ItemCount {
            pointer: ident(pointer),
            min: *min,
            max: *max,
            lenient: *lenient,
            inner: Box::new(reader(inner).unwrap_or(Reader::Plain)),
        },
    })
}

impl Emitter {
    /// The reader type of a rule: a type of `runtime::read` implementing
    /// `Reader<T>` and `json::fast::Rule<'de, T>` for the field's type `T`;
    /// `None` when the field type's own decoding reads it.
    pub(super) fn reader_type(&self, rule: &ReadRule) -> Option<TokenStream> {
        reader(rule).map(|r| self.paths.reader(&r))
    }

    /// `deserialize_with = "..."` for a field with a rule, in a struct whose
    /// `Deserialize` serde's derive writes.
    pub(super) fn deserialize_with(&self, rule: &ReadRule) -> Option<TokenStream> {
        reader(rule).map(|r| self.paths.deserialize_with(&r))
    }

    /// The hidden types a rule names (one per checked property, named by the
    /// plan): where the rule is in the schema, for its errors, and for a
    /// string its `minLength` / `maxLength` / `pattern`. `f` is the field
    /// (a definition's value as a field, for a newtype).
    pub(super) fn hidden_rule_types(&self, rule: &ReadRule, f: &Field) -> Vec<TokenStream> {
        let rt = &self.paths.runtime;
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
        let rt = &self.paths.runtime;
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

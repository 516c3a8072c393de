//! How each field is read: its decoding rule, decided here and rendered by
//! the emitter as a reader type of the runtime (`runtime::read`).
//!
//! A rule comes from the field's schema: the ACP `x-deserialize-*` keywords
//! (default-on-error, skip-invalid-items, default-on-null), the JSON Schema
//! checks the bindings keep on decode (`minLength` / `maxLength` / `pattern`,
//! bounds tighter than the Rust type, `minItems` / `maxItems`) and the field's
//! representation (a required field that may be `null` must still be
//! present; an optional any-JSON field keeps a present `null`). Adding a rule
//! means a variant here, its reader type in `runtime/src/runtime/read.rs`
//! and its rendering in `emit::reads` (see `ARCHITECTURE.md`).

use std::collections::BTreeSet;

use serde::Serialize;

use crate::model::*;

/// A field's decoding rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ReadRule {
    /// The field type's own decoding.
    Plain,
    /// An upsert's patch field: the derive reads it by its patch rule, and
    /// reads a value of the wrong shape as `Keep`: a list item by item,
    /// dropping bad items (`skip_invalid_items`, `#[acp(skip_invalid_items)]`),
    /// a string scalar in place (`scalar`, `#[acp(scalar)]`), anything else
    /// captured and then decoded.
    Patch {
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        skip_invalid_items: bool,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        scalar: bool,
    },
    /// Default-on-error: a value of the wrong shape is the field's default.
    Lenient,
    /// Default-on-error on an object (`_meta`): streamed, nothing captured.
    LenientMeta,
    /// Default-on-error on a scalar: read in place, nothing buffered.
    LenientScalar,
    /// Default-on-error and skip-invalid-items: bad items dropped, a value
    /// that is not a list is the default.
    LenientItems,
    /// Skip-invalid-items: bad items dropped; a value that is not a list is an error.
    Items,
    /// An optional any-JSON field: a present `null` is kept.
    Any,
    /// Free-form JSON (any JSON, a JSON object, a map by name) without
    /// another rule: read under the rule for repeated member names
    /// (`runtime::read::Json`) instead of by `serde_json`'s own types, which
    /// keep the last of two members of one name.
    Json,
    /// A required field that may be `null`: present is required.
    Present,
    /// Default-on-null on a required field: `null` means the default.
    NullAsDefault,
    /// `minLength` / `maxLength` / `pattern` on a string, checked by the
    /// hidden rule type `rule`.
    CheckedStr {
        /// The hidden rule type (one per property).
        rule: String,
        /// The field is optional or nullable (`OptCheckedStr`).
        optional: bool,
        /// Default-on-error: a string that breaks the rule is the default.
        lenient: bool,
    },
    /// An integer's bounds, where tighter than its Rust type's.
    IntInRange {
        /// The hidden type naming where the bounds are (one per property).
        pointer: String,
        /// The lower bound (the Rust type's when the schema has none).
        min: i128,
        /// The upper bound.
        max: i128,
        /// The field is optional or nullable.
        optional: bool,
        /// Default-on-error.
        lenient: bool,
    },
    /// A number's bounds.
    FloatInRange {
        /// The hidden type naming where the bounds are.
        pointer: String,
        /// The lower bound (`-inf` when the schema has none).
        min: f64,
        /// The upper bound (`inf` when the schema has none).
        max: f64,
        /// The field is optional or nullable.
        optional: bool,
        /// Default-on-error.
        lenient: bool,
    },
    /// `minItems` / `maxItems` on a list, checked after the list's own rule `inner`.
    ItemCount {
        /// The hidden type naming where the rule is.
        pointer: String,
        /// The least number of items (0: none).
        min: u64,
        /// The most, if any.
        max: Option<u64>,
        /// Default-on-error: a list out of range is the field's default.
        lenient: bool,
        /// How the list itself is read.
        inner: Box<ReadRule>,
    },
}

impl ReadRule {
    /// The field type's own decoding (not shown by `ir --plan`).
    pub fn is_plain(&self) -> bool {
        *self == ReadRule::Plain
    }

    /// Default-on-error: a value of the wrong shape (or out of its checks) is
    /// the field's default instead of an error.
    pub fn is_lenient(&self) -> bool {
        match self {
            ReadRule::Lenient | ReadRule::LenientMeta | ReadRule::LenientScalar | ReadRule::LenientItems => true,
            ReadRule::CheckedStr { lenient, .. }
            | ReadRule::IntInRange { lenient, .. }
            | ReadRule::FloatInRange { lenient, .. }
            | ReadRule::ItemCount { lenient, .. } => *lenient,
            _ => false,
        }
    }

    /// The rule of field `f` (of a struct, or a definition's value as a
    /// required field), given the definitions decodable from one JSON string.
    pub fn of(f: &Field, scalars: &BTreeSet<String>) -> ReadRule {
        let base = Self::base(f, scalars);
        match &f.ty {
            Type::Array { min_items, max_items, .. } if min_items.unwrap_or(0) > 0 || max_items.is_some() => {
                ReadRule::ItemCount {
                    pointer: hidden_name("Items", f),
                    min: min_items.unwrap_or(0),
                    max: *max_items,
                    lenient: f.default_on_error,
                    inner: Box::new(base),
                }
            }
            _ => base,
        }
    }

    /// The rule without `minItems` / `maxItems`.
    fn base(f: &Field, scalars: &BTreeSet<String>) -> ReadRule {
        let optional = !f.required || f.nullable;
        // Default-on-error applies to a checked value only where the field
        // has a default to fall back to.
        let lenient = optional && f.default_on_error;
        if f.ty.string_rule().is_some() {
            return ReadRule::CheckedStr { rule: hidden_name("StrRule", f), optional, lenient };
        }
        match &f.ty {
            Type::Integer { format, .. } if f.ty.checks_range() => {
                let (lo, hi) = format.range();
                let (min, max) = f.ty.checked_bounds();
                let (min, max) = (min.unwrap_or(lo), max.unwrap_or(hi));
                ReadRule::IntInRange { pointer: hidden_name("Bound", f), min, max, optional, lenient }
            }
            Type::Number { min, max, .. } if f.ty.checks_range() => ReadRule::FloatInRange {
                pointer: hidden_name("Bound", f),
                min: min.unwrap_or(f64::NEG_INFINITY),
                max: max.unwrap_or(f64::INFINITY),
                optional,
                lenient,
            },
            Type::Any if !f.required => ReadRule::Any,
            _ if f.default_on_error && f.skip_invalid_items => ReadRule::LenientItems,
            // A scalar reads in place: a value of another JSON type is skipped, nothing buffered.
            _ if f.default_on_error && is_scalar(&f.ty, scalars) => ReadRule::LenientScalar,
            // Any object is the right shape: streamed, nothing captured (`_meta`).
            Type::Object if f.default_on_error => ReadRule::LenientMeta,
            _ if f.default_on_error => ReadRule::Lenient,
            _ if f.skip_invalid_items => ReadRule::Items,
            _ if f.default_on_null && f.required => ReadRule::NullAsDefault,
            // serde would read a missing `Option` field as `None`; a required one must be present.
            Type::Any | Type::Object | Type::Map { .. } => ReadRule::Json,
            _ if f.required && f.nullable => ReadRule::Present,
            _ => ReadRule::Plain,
        }
    }

    /// The hidden types the rule names, each with the property's pointer:
    /// (`StrRule` or `Pointer`, name).
    pub fn hidden_types(&self) -> Vec<(HiddenKind, &str)> {
        match self {
            ReadRule::CheckedStr { rule, .. } => vec![(HiddenKind::StrRule, rule)],
            ReadRule::IntInRange { pointer, .. } | ReadRule::FloatInRange { pointer, .. } => {
                vec![(HiddenKind::Pointer, pointer)]
            }
            ReadRule::ItemCount { pointer, inner, .. } => {
                let mut v = inner.hidden_types();
                v.push((HiddenKind::Pointer, pointer));
                v
            }
            _ => Vec::new(),
        }
    }
}

/// What a hidden rule type implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HiddenKind {
    /// `runtime::de::Pointer` only: where a rule is, for its errors.
    Pointer,
    /// `runtime::de::StrRule` (and `Pointer`): a string's rules.
    StrRule,
}

/// The name of a hidden rule type of a property (`kind`: `StrRule`,
/// `Bound`, `Items`), from the property's pointer (unique in the schema file).
fn hidden_name(kind: &str, f: &Field) -> String {
    let tail: String = f.pointer.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("__{kind}{tail}")
}

/// Whether a value of `ty` is decodable from one JSON scalar read in place
/// (strings without rules, booleans, numbers without checked bounds, string
/// enums and newtypes).
pub fn is_scalar(ty: &Type, scalars: &BTreeSet<String>) -> bool {
    match ty {
        Type::String { .. } => ty.string_rule().is_none(),
        Type::Base64 | Type::Boolean => true,
        Type::Integer { .. } | Type::Number { .. } => !ty.checks_range(),
        Type::Ref(name) => scalars.contains(name),
        _ => false,
    }
}

/// A definition's value as a required field at the definition's pointer:
/// how an integer newtype's bounds are read and named.
pub fn value_field(def: &Def, ty: &Type) -> Field {
    Field {
        name: String::new(),
        pointer: def.pointer.clone(),
        rust_name: String::new(),
        docs: None,
        ty: ty.clone(),
        required: true,
        nullable: false,
        default_on_error: false,
        skip_invalid_items: false,
        default_on_null: false,
        default: None,
    }
}

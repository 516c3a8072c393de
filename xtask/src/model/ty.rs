//! Value types of the schema model: what a property, an item, a map value
//! or a union arm holds ([`Type`]), with integer formats and the rules
//! decoding checks.

use serde::Serialize;

/// A value type.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Type {
    /// A string; `format` (uri, date-time, regex, ...) is documentation only;
    /// `minLength` and `maxLength` (in Unicode code points) and `pattern` (a
    /// regular expression, unanchored as in JSON Schema) are checked on decode.
    String {
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        min_length: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_length: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
    },
    /// A string of exactly one Unicode code point (`minLength: 1` and
    /// `maxLength: 1`, what schemars writes for `char`).
    Char,
    /// A string with `contentEncoding: base64`.
    Base64,
    /// An integer of the given format, with `minimum` / `maximum` as written
    /// (see [`Type::checked_bounds`] for what decoding has to check).
    Integer {
        format: IntFormat,
        #[serde(skip_serializing_if = "Option::is_none")]
        min: Option<i128>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<i128>,
    },
    /// A number, with its `format` (`double`) and bounds as written.
    Number {
        #[serde(skip_serializing_if = "Option::is_none")]
        format: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        min: Option<f64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// Only `null`.
    Null,
    /// Any JSON value.
    Any,
    /// A free-form JSON object (`additionalProperties: true`).
    Object,
    /// Another definition.
    Ref(String),
    /// A list. `minItems`, `maxItems` and `uniqueItems` are documented on the
    /// field, not checked on decode.
    Array {
        items: Box<Type>,
        #[serde(skip_serializing_if = "Option::is_none")]
        min_items: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        max_items: Option<u64>,
        /// `uniqueItems: true` (what schemars writes for sets).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        unique_items: bool,
        /// An item may be `null` (`Vec<Option<T>>`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        nullable_items: bool,
    },
    /// A fixed-length array whose items each have their own type
    /// (`prefixItems` with no further items, what schemars writes for tuples).
    Tuple(Vec<TupleItem>),
    /// An object used as a map from string keys to one value type.
    Map {
        values: Box<Type>,
        /// A value may be `null` (`BTreeMap<String, Option<T>>`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        nullable_values: bool,
    },
}

/// One position of a [`Type::Tuple`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TupleItem {
    /// The value type.
    pub ty: Type,
    /// `null` is an allowed value (`Option<T>` in Rust).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
}

/// Integer formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IntFormat {
    Int8,
    Int16,
    Int32,
    Int64,
    Int128,
    /// schemars' `int` (`isize`): 64 bits on the wire, whatever the platform.
    Int,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Uint128,
    /// schemars' `uint` (`usize`): 64 bits on the wire.
    Uint,
}

impl Type {
    /// The integer bounds decoding must check: those tighter than the format's range.
    pub fn checked_bounds(&self) -> (Option<i128>, Option<i128>) {
        match self {
            Type::Integer { format, min, max } => {
                let (lo, hi) = format.range();
                (min.filter(|m| *m > lo), max.filter(|m| *m < hi))
            }
            _ => (None, None),
        }
    }

    /// Whether decoding must check the value's range: an integer with bounds
    /// tighter than its format, or a number with any bound.
    pub fn checks_range(&self) -> bool {
        match self {
            Type::Integer { .. } => self.checked_bounds() != (None, None),
            Type::Number { min, max, .. } => min.is_some() || max.is_some(),
            _ => false,
        }
    }

    /// The `minLength`, `maxLength` and `pattern` decoding must check, if
    /// the type is a string that has any (`minLength: 0` checks nothing).
    pub fn string_rule(&self) -> Option<StrRule<'_>> {
        match self {
            Type::String { min_length, max_length, pattern, .. }
                if min_length.unwrap_or(0) > 0 || max_length.is_some() || pattern.is_some() =>
            {
                Some(StrRule { min: min_length.unwrap_or(0), max: *max_length, pattern: pattern.as_deref() })
            }
            _ => None,
        }
    }

    /// The type in words, with its format, bounds and rules (for example
    /// "uint32 integer 1.." or "list (minItems 1) of \`ContentBlock\`"), for the
    /// converter's and the diff's messages.
    pub fn describe(&self) -> String {
        match self {
            Type::String { format, min_length, max_length, pattern } => {
                let mut s = "string".to_owned();
                if let Some(f) = format {
                    s += &format!(" ({f})");
                }
                if let Some(m) = min_length {
                    s += &format!(" minLength {m}");
                }
                if let Some(m) = max_length {
                    s += &format!(" maxLength {m}");
                }
                if let Some(p) = pattern {
                    s += &format!(" pattern {p}");
                }
                s
            }
            Type::Base64 => "base64 string".into(),
            Type::Char => "one-character string".into(),
            Type::Integer { format, min, max } => format!(
                "{} integer{}",
                format.name(),
                match (min, max) {
                    (None, None) => String::new(),
                    _ => format!(
                        " {}..{}",
                        min.map(|v| v.to_string()).unwrap_or_default(),
                        max.map(|v| v.to_string()).unwrap_or_default()
                    ),
                }
            )
            .to_lowercase(),
            Type::Number { min, max, .. } => match (min, max) {
                (None, None) => "number".into(),
                _ => format!(
                    "number {}..{}",
                    min.map(|v| v.to_string()).unwrap_or_default(),
                    max.map(|v| v.to_string()).unwrap_or_default()
                ),
            },
            Type::Boolean => "boolean".into(),
            Type::Null => "null".into(),
            Type::Any => "any JSON".into(),
            Type::Object => "object".into(),
            Type::Ref(r) => format!("`{r}`"),
            Type::Array { items, min_items, max_items, unique_items, nullable_items } => {
                let mut rules = Vec::new();
                if let Some(n) = min_items {
                    rules.push(format!("minItems {n}"));
                }
                if let Some(n) = max_items {
                    rules.push(format!("maxItems {n}"));
                }
                if *unique_items {
                    rules.push("uniqueItems".to_owned());
                }
                let item = if *nullable_items { format!("{} or null", items.describe()) } else { items.describe() };
                match rules.is_empty() {
                    true => format!("list of {item}"),
                    false => format!("list ({}) of {item}", rules.join(", ")),
                }
            }
            Type::Tuple(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| if i.nullable { format!("{} or null", i.ty.describe()) } else { i.ty.describe() })
                    .collect();
                format!("tuple ({})", items.join(", "))
            }
            Type::Map { values, nullable_values: false } => format!("map of {}", values.describe()),
            Type::Map { values, nullable_values: true } => format!("map of {} or null", values.describe()),
        }
    }

    /// The definitions this type names.
    pub fn refs<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Type::Ref(r) => out.push(r),
            Type::Array { items, .. } => items.refs(out),
            Type::Tuple(items) => items.iter().for_each(|i| i.ty.refs(out)),
            Type::Map { values, .. } => values.refs(out),
            _ => {}
        }
    }
}

impl IntFormat {
    /// The format as the schema spells it.
    pub fn name(self) -> &'static str {
        match self {
            IntFormat::Int8 => "int8",
            IntFormat::Int16 => "int16",
            IntFormat::Int32 => "int32",
            IntFormat::Int64 => "int64",
            IntFormat::Int128 => "int128",
            IntFormat::Int => "int",
            IntFormat::Uint8 => "uint8",
            IntFormat::Uint16 => "uint16",
            IntFormat::Uint32 => "uint32",
            IntFormat::Uint64 => "uint64",
            IntFormat::Uint128 => "uint128",
            IntFormat::Uint => "uint",
        }
    }

    /// Reads a `format` of an integer schema.
    pub fn parse(format: &str) -> Option<IntFormat> {
        [
            IntFormat::Int8,
            IntFormat::Int16,
            IntFormat::Int32,
            IntFormat::Int64,
            IntFormat::Int128,
            IntFormat::Int,
            IntFormat::Uint8,
            IntFormat::Uint16,
            IntFormat::Uint32,
            IntFormat::Uint64,
            IntFormat::Uint128,
            IntFormat::Uint,
        ]
        .into_iter()
        .find(|f| f.name() == format)
    }

    /// The range of the Rust type this format maps to.
    pub fn range(self) -> (i128, i128) {
        match self {
            IntFormat::Int8 => (i8::MIN.into(), i8::MAX.into()),
            IntFormat::Int16 => (i16::MIN.into(), i16::MAX.into()),
            IntFormat::Int32 => (i32::MIN.into(), i32::MAX.into()),
            IntFormat::Int64 | IntFormat::Int => (i64::MIN.into(), i64::MAX.into()),
            IntFormat::Int128 => (i128::MIN, i128::MAX),
            IntFormat::Uint8 => (0, u8::MAX.into()),
            IntFormat::Uint16 => (0, u16::MAX.into()),
            IntFormat::Uint32 => (0, u32::MAX.into()),
            IntFormat::Uint64 | IntFormat::Uint => (0, u64::MAX.into()),
            // `u128::MAX` is past `i128`: bounds are read from JSON as 64-bit
            // numbers, so none can come near it.
            IntFormat::Uint128 => (0, i128::MAX),
        }
    }
}

/// The rules decoding checks on a string ([`Type::string_rule`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrRule<'a> {
    /// `minLength` (0: none).
    pub min: u64,
    /// `maxLength`.
    pub max: Option<u64>,
    /// `pattern`.
    pub pattern: Option<&'a str>,
}

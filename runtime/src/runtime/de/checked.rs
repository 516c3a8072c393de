//! Values checked on decode: integer and number bounds, `minLength` and
//! `pattern` on strings; errors name the schema pointer of the rule.

use super::*;

/// Where a checked value's rule is in the schema, for its error (bounds,
/// `minLength` / `pattern`, a definition's `not`). The generator writes one
/// hidden implementation per checked property or definition.
pub trait Pointer {
    /// The JSON pointer of the property or definition (`#/$defs/TerminalSize/properties/cols`).
    const POINTER: &'static str;
}

fn out_of_range<T: std::fmt::Display>(value: T, min: &str, max: &str, pointer: &str) -> serde_json::Error {
    serde_json::Error::custom(crate::runtime::messages::out_of_range(&value, &min, &max, &pointer))
}

fn check_int<T: Copy + Into<i128> + std::fmt::Display>(
    v: T,
    min: i128,
    max: i128,
    pointer: &str,
) -> Result<T, serde_json::Error> {
    let wide: i128 = v.into();
    if wide < min || wide > max {
        return Err(out_of_range(v, &min.to_string(), &max.to_string(), pointer));
    }
    Ok(v)
}

fn check_float(n: Number, min: u64, max: u64, pointer: &str) -> Result<Number, serde_json::Error> {
    let (min, max, v) = (f64::from_bits(min), f64::from_bits(max), n.as_f64());
    if !(v >= min && v <= max) {
        return Err(out_of_range(n, &min.to_string(), &max.to_string(), pointer));
    }
    Ok(n)
}

/// A string property's `minLength` and `pattern`, checked on decode. The
/// generator writes one hidden implementation per constrained property.
pub trait StrRule: Pointer {
    /// `minLength`, in Unicode code points (0: none).
    const MIN_LENGTH: usize;
    /// `maxLength`, in Unicode code points (`usize::MAX`: none).
    const MAX_LENGTH: usize = usize::MAX;
    /// `pattern`, if any.
    fn pattern() -> Option<&'static Pattern>;
}

/// A JSON Schema `pattern`, compiled on first use. As in JSON Schema it is
/// not anchored: `^` and `$` in the pattern anchor it. The generator compiles
/// every pattern when it reads the schema, so compiling here cannot fail.
#[derive(Debug)]
pub struct Pattern {
    source: &'static str,
    regex: std::sync::OnceLock<regex_lite::Regex>,
}

impl Pattern {
    /// A pattern, not compiled yet.
    pub const fn new(source: &'static str) -> Pattern {
        Pattern { source, regex: std::sync::OnceLock::new() }
    }

    /// The pattern as the schema writes it.
    pub fn as_str(&self) -> &'static str {
        self.source
    }

    /// Whether `text` matches somewhere (JSON Schema's unanchored rule).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex
            .get_or_init(|| regex_lite::Regex::new(self.source).expect("the generator checks every pattern"))
            .is_match(text)
    }
}

/// What is wrong with `v` under rule `R`, if anything: the message of the
/// error a decoder gives (`minLength`, `maxLength`, `pattern`, in that order).
pub fn str_rule_error<R: StrRule>(v: &str) -> Option<String> {
    let length = if R::MIN_LENGTH > 0 || R::MAX_LENGTH < usize::MAX { v.chars().count() } else { 0 };
    if length < R::MIN_LENGTH {
        return Some(
            crate::runtime::messages::shorter_than(&format_args!("{v:?}"), &R::MIN_LENGTH, &R::POINTER).to_string(),
        );
    }
    if length > R::MAX_LENGTH {
        return Some(
            crate::runtime::messages::longer_than(&format_args!("{v:?}"), &R::MAX_LENGTH, &R::POINTER).to_string(),
        );
    }
    if let Some(p) = R::pattern() {
        if !p.is_match(v) {
            let pattern = format_args!("{:?}", p.as_str());
            return Some(
                crate::runtime::messages::no_pattern_match(&format_args!("{v:?}"), &pattern, &R::POINTER).to_string(),
            );
        }
    }
    None
}

/// `v` if it keeps rule `R`, else the error [`str_rule_error`] words (a
/// string newtype's check, for any string type).
pub fn check_rule<R: StrRule, S: AsRef<str>>(v: S) -> Result<S, serde_json::Error> {
    match str_rule_error::<R>(v.as_ref()) {
        None => Ok(v),
        Some(message) => Err(serde_json::Error::custom(message)),
    }
}

fn check_str<R: StrRule>(v: String) -> Result<String, serde_json::Error> {
    check_rule::<R, String>(v)
}

/// A required string property with `minLength` / `pattern`.
pub fn checked_str<'de, D: Deserializer<'de>, R: StrRule>(deserializer: D) -> Result<String, D::Error> {
    check_str::<R>(String::deserialize(deserializer)?).map_err(D::Error::custom)
}

/// An optional or nullable string property with `minLength` / `pattern`;
/// `LENIENT` applies default-on-error (a value that breaks the rule decodes
/// as the default).
pub fn opt_checked_str<'de, D, F, R, const LENIENT: bool>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = String>,
    R: StrRule,
{
    let value = json(deserializer)?;
    let decoded = match value {
        Value::Null => F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a string")),
        Value::String(s) => check_str::<R>(s).map(F::wrap),
        other => Err(serde_json::Error::invalid_type(unexpected(&other), &"a string")),
    };
    finish::<D, F>(decoded, LENIENT)
}

/// A required integer with `minimum`/`maximum` beyond its format's range.
pub fn int_in_range<'de, D, T, const MIN: i128, const MAX: i128, P: Pointer>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Copy + Into<i128> + std::fmt::Display,
{
    check_int(T::deserialize(deserializer)?, MIN, MAX, P::POINTER).map_err(D::Error::custom)
}

/// An optional integer with bounds; `LENIENT` applies default-on-error.
pub fn opt_int_in_range<'de, D, F, const MIN: i128, const MAX: i128, const LENIENT: bool, P: Pointer>(
    deserializer: D,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: DeserializeOwned + Copy + Into<i128> + std::fmt::Display,
{
    let value = json(deserializer)?;
    let decoded = if value.is_null() {
        F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"an integer"))
    } else {
        F::Inner::deserialize(value).and_then(|v| check_int(v, MIN, MAX, P::POINTER)).map(F::wrap)
    };
    finish::<D, F>(decoded, LENIENT)
}

/// A required number with bounds, given as `f64::to_bits`.
pub fn float_in_range<'de, D, const MIN: u64, const MAX: u64, P: Pointer>(deserializer: D) -> Result<Number, D::Error>
where
    D: Deserializer<'de>,
{
    check_float(Number::deserialize(deserializer)?, MIN, MAX, P::POINTER).map_err(D::Error::custom)
}

/// An optional number with bounds; `LENIENT` applies default-on-error.
pub fn opt_float_in_range<'de, D, F, const MIN: u64, const MAX: u64, const LENIENT: bool, P: Pointer>(
    deserializer: D,
) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Number>,
{
    let value = json(deserializer)?;
    let decoded = if value.is_null() {
        F::null().ok_or_else(|| serde_json::Error::invalid_type(Unexpected::Unit, &"a number"))
    } else {
        Number::deserialize(value).and_then(|v| check_float(v, MIN, MAX, P::POINTER)).map(F::wrap)
    };
    finish::<D, F>(decoded, LENIENT)
}

fn finish<'de, D: Deserializer<'de>, F: Default>(
    decoded: Result<F, serde_json::Error>,
    lenient: bool,
) -> Result<F, D::Error> {
    match decoded {
        Ok(v) => Ok(v),
        Err(_) if lenient => Ok(F::default()),
        Err(e) => Err(D::Error::custom(e)),
    }
}

pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Unexpected::Signed(i),
            (_, Some(u), _) => Unexpected::Unsigned(u),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

//! Values captured as JSON text and the default-on-error rules built on them:
//! lenient values, lists with bad items dropped, lenient objects.

use super::*;

/// serde_json's name for a raw value (`serde_json::value::RawValue`): a
/// serde_json deserializer asked for a newtype struct of this name hands over
/// the value's JSON text instead of its contents. Any other deserializer
/// ignores the name and the value is buffered as a [`Value`].
const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// A value captured without decoding it: its JSON text, borrowed from the
/// input when possible, or (from a deserializer that is not serde_json's) a
/// buffered [`Value`].
pub enum Raw<'de> {
    /// Borrowed from the input (`serde_json::from_str` / `from_slice`).
    Borrowed(&'de str),
    /// Copied (serde_json reading from an `io::Read` or a `Value`).
    Owned(String),
    /// Buffered (any other deserializer).
    Value(Value),
}

impl<'de> Deserialize<'de> for Raw<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_newtype_struct(RAW_TOKEN, RawVisitor)
    }
}

struct RawVisitor;

impl<'de> serde::de::Visitor<'de> for RawVisitor {
    type Value = Raw<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    // serde_json: one entry, the token and the value's text.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Raw<'de>, A::Error> {
        map.next_key::<serde::de::IgnoredAny>()?;
        map.next_value_seed(RawText)
    }

    // Any other deserializer.
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Raw<'de>, D::Error> {
        json(d).map(Raw::Value)
    }
}

/// The text of a raw value, borrowed when the input allows.
struct RawText;

impl<'de> serde::de::DeserializeSeed<'de> for RawText {
    type Value = Raw<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Raw<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for RawText {
    type Value = Raw<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a raw JSON value")
    }
    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Raw<'de>, E> {
        Ok(Raw::Borrowed(v))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Raw<'de>, E> {
        Ok(Raw::Owned(v.to_owned()))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Raw<'de>, E> {
        Ok(Raw::Owned(v))
    }
}

/// What decoding a captured value gave: the value, a value of the wrong shape
/// (the lenient rules replace it), or broken JSON (always an error, as when
/// the value was buffered).
enum Decoded<T> {
    Ok(T),
    Wrong(serde_json::Error),
    Broken(serde_json::Error),
}

/// Decodes captured JSON text. On failure (the rare path) the text is read
/// once more as a [`Value`]: what a `Value` rejects (a lone surrogate escape,
/// a number out of range: the capture lets those through) fails the message,
/// exactly as buffering the value did; anything else is a wrong shape.
fn decode_text<T: DeserializeOwned>(text: &str) -> Decoded<T> {
    // The crate's reader: the value or error `serde_json::from_str` gives, faster.
    match crate::json::from_str(text) {
        Ok(v) => Decoded::Ok(v),
        Err(e) => match json_from_str(text) {
            Err(broken) => Decoded::Broken(broken),
            Ok(_) => Decoded::Wrong(e),
        },
    }
}

impl Raw<'_> {
    fn text(&self) -> Option<&str> {
        match self {
            Raw::Borrowed(s) => Some(s),
            Raw::Owned(s) => Some(s),
            Raw::Value(_) => None,
        }
    }

    fn is_null(&self) -> bool {
        match self {
            Raw::Value(v) => v.is_null(),
            _ => self.text().is_some_and(|t| t == "null"),
        }
    }

    /// Decodes the captured value as `T`.
    fn decode<T: DeserializeOwned>(self) -> Decoded<T> {
        match self {
            Raw::Borrowed(s) => decode_text(s),
            Raw::Owned(s) => decode_text(&s),
            // Another deserializer (not serde_json's) buffered the value: decoded
            // from its text too, so each field type has one decoding path to
            // compile (a `Value` is never broken JSON: any failure is a wrong shape).
            Raw::Value(v) => decode_text(&v.to_string()),
        }
    }
}

/// `x-deserialize-default-on-error`: a value of the wrong shape becomes the default.
pub fn lenient<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: DeserializeOwned,
{
    let raw = Raw::deserialize(deserializer)?;
    if raw.is_null() {
        return Ok(F::null().unwrap_or_default());
    }
    match raw.decode::<F::Inner>() {
        Decoded::Ok(v) => Ok(F::wrap(v)),
        Decoded::Wrong(_) => Ok(F::default()),
        Decoded::Broken(e) => Err(D::Error::custom(e)),
    }
}

/// A JSON object field with the default-on-error rule, streamed: an object
/// decodes as it goes by (every value as a [`Value`]), `null` gives `null`,
/// anything else `wrong` once it has been read the way a [`Value`] reads it
/// (broken JSON still fails). Nothing is captured and read twice.
pub fn lenient_object<'de, D: Deserializer<'de>, R>(
    deserializer: D,
    null: R,
    wrong: R,
    wrap: impl FnOnce(JsonObject) -> R,
) -> Result<R, D::Error> {
    deserializer.deserialize_any(ObjectVisitor { null, wrong, wrap })
}

/// The default-on-error rule for an optional JSON object field of a
/// generated struct (`_meta`): [`lenient_object`] into its [`Shape`].
pub fn lenient_meta<'de, D, F>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape,
    F::Inner: From<JsonObject>,
{
    lenient_object(deserializer, F::null().unwrap_or_default(), F::default(), |m| F::wrap(m.into()))
}

struct ObjectVisitor<R, W> {
    null: R,
    wrong: R,
    wrap: W,
}

impl<'de, R, W: FnOnce(JsonObject) -> R> serde::de::Visitor<'de> for ObjectVisitor<R, W> {
    type Value = R;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<R, A::Error> {
        json_members(map).map(self.wrap)
    }

    fn visit_unit<E: Error>(self) -> Result<R, E> {
        Ok(self.null)
    }

    fn visit_none<E: Error>(self) -> Result<R, E> {
        Ok(self.null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<R, A::Error> {
        while seq.next_element_seed(Json)?.is_some() {}
        Ok(self.wrong)
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_i64<E: Error>(self, _: i64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_u64<E: Error>(self, _: u64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_f64<E: Error>(self, _: f64) -> Result<R, E> {
        Ok(self.wrong)
    }

    fn visit_str<E: Error>(self, _: &str) -> Result<R, E> {
        Ok(self.wrong)
    }
}

/// `x-deserialize-default-on-error` with `x-deserialize-skip-invalid-items`.
///
/// Streams the list: each item's JSON text is captured as it goes by and
/// decoded from it, a failing item is dropped; the list itself is never
/// captured. A value that is not a list is the field's default, unless its
/// JSON is broken.
pub fn lenient_items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    deserializer.deserialize_any(ListVisitor::<F, T> { strict: false, marker: std::marker::PhantomData })
}

/// `x-deserialize-skip-invalid-items` alone: a list item that fails to decode
/// is dropped; a value that is not a list is still an error.
pub fn items<'de, D, F, T>(deserializer: D) -> Result<F, D::Error>
where
    D: Deserializer<'de>,
    F: Shape<Inner = Vec<T>>,
    T: DeserializeOwned,
{
    deserializer.deserialize_any(ListVisitor::<F, T> { strict: true, marker: std::marker::PhantomData })
}

/// The visitor of [`lenient_items`] and [`items`].
struct ListVisitor<F, T> {
    /// A value that is not a list (or `null`, where the shape has none) is an
    /// error instead of the default.
    strict: bool,
    marker: std::marker::PhantomData<fn() -> (F, T)>,
}

impl<F: Shape, T> ListVisitor<F, T> {
    /// A value of another JSON type.
    fn other<E: Error>(&self, found: Unexpected<'_>) -> Result<F, E> {
        if self.strict {
            Err(E::invalid_type(found, &"an array"))
        } else {
            Ok(F::default())
        }
    }
}

impl<'de, F: Shape<Inner = Vec<T>>, T: DeserializeOwned> serde::de::Visitor<'de> for ListVisitor<F, T> {
    type Value = F;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<F, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(256));
        while let Some(item) = seq.next_element::<Raw<'de>>()? {
            match item.decode::<T>() {
                Decoded::Ok(v) => out.push(v),
                Decoded::Wrong(_) => {}
                Decoded::Broken(e) => return Err(A::Error::custom(e)),
            }
        }
        Ok(F::wrap(out))
    }

    fn visit_unit<E: Error>(self) -> Result<F, E> {
        match F::null() {
            Some(null) => Ok(null),
            None => self.other(Unexpected::Unit),
        }
    }

    fn visit_none<E: Error>(self) -> Result<F, E> {
        self.visit_unit()
    }

    // A wrong shape: its content is still read as a `Value` would read it, so
    // that broken JSON fails the message whatever the shape.
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<F, A::Error> {
        json_members(map)?;
        self.other(Unexpected::Map)
    }

    fn visit_bool<E: Error>(self, v: bool) -> Result<F, E> {
        self.other(Unexpected::Bool(v))
    }

    fn visit_i64<E: Error>(self, v: i64) -> Result<F, E> {
        self.other(Unexpected::Signed(v))
    }

    fn visit_u64<E: Error>(self, v: u64) -> Result<F, E> {
        self.other(Unexpected::Unsigned(v))
    }

    fn visit_f64<E: Error>(self, v: f64) -> Result<F, E> {
        self.other(Unexpected::Float(v))
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<F, E> {
        self.other(Unexpected::Str(v))
    }
}

/// Decodes a captured value strictly: `T` or the error (for `nested` patch
/// fields and `_meta`, which decide themselves what a wrong shape means).
pub fn decode_raw<T: DeserializeOwned>(raw: Raw<'_>) -> Result<T, (bool, serde_json::Error)> {
    match raw.decode::<T>() {
        Decoded::Ok(v) => Ok(v),
        Decoded::Wrong(e) => Err((false, e)),
        Decoded::Broken(e) => Err((true, e)),
    }
}

/// Whether a captured value is `null`.
pub fn raw_is_null(raw: &Raw<'_>) -> bool {
    raw.is_null()
}

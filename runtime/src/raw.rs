//! [`RawJson`]: a value of any JSON shape, held as its text.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, DeserializeOwned, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::json::fast::{self, Bail, FromJson, Reader, SerdeSide, ToJson};

/// A value the protocol carries without giving it a shape (a tool call's
/// `rawInput` and `rawOutput`), held as its JSON text: one block, however
/// many members and items the value has.
///
/// The text is compact (no whitespace between tokens) and otherwise as it
/// arrived: members in their order, numbers and string escapes as written.
/// An object that names a member twice is refused, as everywhere the
/// bindings read free-form JSON. Decoding it costs a copy of the text, and
/// encoding it writes the text back; nothing is parsed until you ask:
///
/// ```
/// use acp_bindings_runtime::RawJson;
///
/// let raw: RawJson = r#"{ "path": "src/main.rs", "limit": 200 }"#.parse()?;
/// assert_eq!(raw.as_str(), r#"{"path":"src/main.rs","limit":200}"#);
/// assert_eq!(raw.to_value()["limit"], 200);
///
/// #[derive(serde::Deserialize)]
/// struct ReadArgs {
///     path: String,
/// }
/// assert_eq!(raw.parse_as::<ReadArgs>()?.path, "src/main.rs");
/// assert_eq!(RawJson::from(serde_json::json!({"ok": true})).as_str(), r#"{"ok":true}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// Two values are equal when their texts are, or else when they parse to
/// equal `serde_json::Value`s (so `{"a":1,"b":2}` and `{"b":2,"a":1}` are
/// equal, as their `Value`s are).
#[derive(Clone)]
pub struct RawJson(Box<str>);

impl RawJson {
    /// The compact JSON text of `value`.
    pub fn from_value(value: &Value) -> RawJson {
        let mut out = Vec::new();
        value.write_json(&mut out).expect("a serde_json::Value always encodes");
        RawJson(String::from_utf8(out).expect("the encoder writes UTF-8").into_boxed_str())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the value is `null`.
    ///
    /// In a v2 patch, `null` on the wire means "clear", so
    /// `Patch::Set(null)` is written as a clear; set `Patch::Clear` instead.
    pub fn is_null(&self) -> bool {
        &*self.0 == "null"
    }

    /// The value as a `serde_json::Value`.
    pub fn to_value(&self) -> Value {
        // The text names no member twice (it was read under that rule, or
        // written from a `Value`): `Value`'s own `Deserialize` reads it, on
        // the bindings' reader.
        if let Ok(value) = crate::json::from_str(&self.0) {
            return value;
        }
        // The reader refuses nesting deeper than a message may have; a value
        // made from a `serde_json::Value` (or read by serde_json, which
        // allows deeper) can have more, so it is read without that limit.
        let mut de = serde_json::Deserializer::from_str(&self.0);
        de.disable_recursion_limit();
        Value::deserialize(&mut de).expect("a RawJson holds valid JSON")
    }

    /// The value decoded as `T`.
    ///
    /// # Errors
    ///
    /// When the value does not have `T`'s shape.
    pub fn parse_as<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

impl FromStr for RawJson {
    type Err = serde_json::Error;

    /// Reads JSON text (whitespace allowed around and between tokens),
    /// keeping its compact form.
    fn from_str(text: &str) -> Result<RawJson, serde_json::Error> {
        let mut r = Reader::new(text);
        if let Ok(raw) = r.raw_json() {
            if r.end() {
                return Ok(RawJson(raw.into_boxed_str()));
            }
        }
        // What the reader declined (an escaped name, a wide object), checked
        // by the serde path; the text is kept.
        crate::runtime::de::json_from_str(text).map(|_| RawJson(fast::compact(text).into_boxed_str()))
    }
}

impl From<Value> for RawJson {
    fn from(value: Value) -> RawJson {
        RawJson::from_value(&value)
    }
}

impl From<&Value> for RawJson {
    fn from(value: &Value) -> RawJson {
        RawJson::from_value(value)
    }
}

impl From<RawJson> for Value {
    fn from(raw: RawJson) -> Value {
        raw.to_value()
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.0 == other.0 || self.to_value() == other.to_value()
    }
}

impl PartialEq<Value> for RawJson {
    fn eq(&self, other: &Value) -> bool {
        self.to_value() == *other
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RawJson").field(&format_args!("{}", self.0)).finish()
    }
}

impl fmt::Display for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl ToJson for RawJson {
    #[inline]
    fn write_json(&self, out: &mut Vec<u8>) -> Result<(), serde_json::Error> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(())
    }
}

impl SerdeSide for RawJson {
    /// Any serializer but the bindings' encoder gets the parsed value.
    fn serialize_serde<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl Serialize for RawJson {
    #[inline]
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fast::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    /// The bindings' reader gives the value's text (what its direct
    /// decoders decline, it checks as a value and still gives the text); any
    /// other deserializer gives the value, read as a `serde_json::Value`
    /// under the rule for repeated names and written as compact text.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawJson, D::Error> {
        deserializer.deserialize_newtype_struct(fast::RAW_JSON, RawVisitor)
    }
}

/// [`RawJson`]'s visitor: the reader's text, or a value by serde's path.
struct RawVisitor;

impl RawVisitor {
    fn value<E>(v: Value) -> Result<RawJson, E> {
        Ok(RawJson::from_value(&v))
    }
}

impl<'de> Visitor<'de> for RawVisitor {
    type Value = RawJson;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawJson, D::Error> {
        crate::runtime::de::json(deserializer).and_then(Self::value)
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<RawJson, E> {
        if fast::take_raw_text() {
            return Ok(RawJson(text.into_boxed_str()));
        }
        Self::value(Value::String(text))
    }

    // A deserializer that reads a newtype struct as its content gives the
    // value itself.
    fn visit_str<E: de::Error>(self, text: &str) -> Result<RawJson, E> {
        Self::value(Value::from(text))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawJson, E> {
        Self::value(Value::from(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawJson, E> {
        Self::value(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawJson, E> {
        Self::value(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawJson, E> {
        Self::value(Value::from(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<RawJson, E> {
        Self::value(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<RawJson, E> {
        Self::value(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<RawJson, D::Error> {
        crate::runtime::de::json(deserializer).and_then(Self::value)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<RawJson, A::Error> {
        crate::runtime::de::json(de::value::SeqAccessDeserializer::new(seq)).and_then(Self::value)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<RawJson, A::Error> {
        crate::runtime::de::json(de::value::MapAccessDeserializer::new(map)).and_then(Self::value)
    }
}

impl<'de> FromJson<'de> for RawJson {
    #[inline]
    fn read(r: &mut Reader<'de>) -> Result<RawJson, Bail> {
        r.raw_json().map(|text| RawJson(text.into_boxed_str()))
    }
}

#[cfg(feature = "schemars")]
impl schemars::JsonSchema for RawJson {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnyValue".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::Schema::from(true)
    }

    fn inline_schema() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::RawJson;
    use serde_json::json;

    fn direct(text: &str) -> Option<RawJson> {
        crate::json::fast::direct_only::<RawJson>(text)
    }

    #[test]
    fn the_text_is_kept_compact_in_its_order_with_its_numbers_and_escapes() {
        let text = "{ \"b\" : [1.0e2, -0 ,\"\\u0041\\n\"],\n\t\"a\": {\"x\" : null, \"y\":true} }";
        let raw: RawJson = text.parse().unwrap();
        assert_eq!(raw.as_str(), r#"{"b":[1.0e2,-0,"\u0041\n"],"a":{"x":null,"y":true}}"#);
        assert_eq!(direct(text).unwrap().as_str(), raw.as_str(), "the reader's own path");
        assert_eq!(raw.to_value(), json!({"a": {"x": null, "y": true}, "b": [100.0, -0.0, "A\n"]}));
        for scalar in ["null", "true", "12", "\"s\"", "[]", "{}"] {
            assert_eq!(direct(scalar).unwrap().as_str(), scalar);
        }
    }

    #[test]
    fn a_repeated_member_name_is_refused_on_every_path() {
        for text in [r#"{"a":1,"a":2}"#, r#"[{"x":{"a":1,"b":2,"a":3}}]"#, r#"{"\u0061":1,"a":2}"#] {
            assert!(direct(text).is_none(), "the reader leaves {text} to the serde path");
            let err = text.parse::<RawJson>().unwrap_err().to_string();
            assert!(err.contains("duplicate field `a`"), "{text}: {err}");
            let err = serde_json::from_str::<RawJson>(text).unwrap_err().to_string();
            assert!(err.contains("duplicate field `a`"), "{text}: {err}");
        }
    }

    #[test]
    fn what_the_reader_declines_reads_the_same_by_the_serde_path() {
        // A name with an escape, and more members than the reader checks itself.
        let wide: String = format!("{{{}}}", (0..40).map(|i| format!("\"k{i}\":{i}")).collect::<Vec<_>>().join(","));
        for text in [r#"{"\u0061":1}"#, wide.as_str()] {
            assert!(direct(text).is_none());
            let raw: RawJson = text.parse().unwrap();
            assert_eq!(raw.to_value(), serde_json::from_str::<serde_json::Value>(text).unwrap());
        }
        // Their text is kept, compact, on the reader and `FromStr` alike.
        let spaced = format!("{{ \"\\u0061\" : [ 1.50 , \" a b \" ],\n{} }}", &wide[1..wide.len() - 1]);
        let kept = format!("{{\"\\u0061\":[1.50,\" a b \"],{}}}", &wide[1..wide.len() - 1]);
        assert_eq!(spaced.parse::<RawJson>().unwrap().as_str(), kept);
        assert_eq!(crate::json::from_str::<RawJson>(&spaced).unwrap().as_str(), kept);
        assert!(!crate::json::fast::take_raw_text(), "nothing is left lent");
        // What `serde_json::Value` refuses too: a number out of range, a lone surrogate.
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "nul", "1 2", "\"\\x\"", "1e400", "[-1e400]", r#"{"k":"\ud800"}"#] {
            assert!(bad.parse::<RawJson>().is_err(), "{bad:?}");
            assert!(direct(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn values_are_equal_as_their_values_are() {
        let a: RawJson = r#"{"a":1,"b":2}"#.parse().unwrap();
        let b: RawJson = r#"{"b":2,"a":1}"#.parse().unwrap();
        assert_eq!(a, b);
        assert_eq!(a, json!({"a": 1, "b": 2}));
        assert_ne!(a, RawJson::from(json!({"a": 1})));
        assert_eq!(RawJson::from(json!({"a": [1, "x"]})).as_str(), r#"{"a":[1,"x"]}"#);
        assert_eq!(format!("{a:?}"), r#"RawJson({"a":1,"b":2})"#);
        assert_eq!(a.to_string(), r#"{"a":1,"b":2}"#);
    }

    #[test]
    fn it_encodes_as_its_value_for_every_serializer() {
        let raw: RawJson = r#"{"n":1.50,"s":"\u00e9"}"#.parse().unwrap();
        assert_eq!(crate::json::to_string(&raw).unwrap(), r#"{"n":1.50,"s":"\u00e9"}"#, "the text itself");
        assert_eq!(serde_json::to_value(&raw).unwrap(), json!({"n": 1.5, "s": "é"}));
        assert_eq!(serde_json::from_value::<RawJson>(json!({"n": 1.5})).unwrap().as_str(), r#"{"n":1.5}"#);
    }

    #[test]
    fn every_deserializer_gives_the_value() {
        for text in [r#""x""#, "1.50", "null", "[ 1, {\"a\" : [] } ]", r#"{"\u0061":1}"#] {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let by_reader: RawJson = crate::json::from_str(text).unwrap();
            let by_serde_json: RawJson = serde_json::from_str(text).unwrap();
            let by_value: RawJson = serde_json::from_value(value.clone()).unwrap();
            // Through serde's buffering (an untagged enum's).
            #[derive(serde::Deserialize)]
            #[serde(untagged)]
            enum Untagged {
                Raw(RawJson),
            }
            let Untagged::Raw(buffered) = serde_json::from_str(text).unwrap();
            for raw in [&by_reader, &by_serde_json, &by_value, &buffered] {
                assert_eq!(raw.to_value(), value, "{text}: {raw:?}");
            }
            assert!(!crate::json::fast::take_raw_text(), "nothing is left lent");
        }
        // The reader keeps the text; serde_json's path writes the value.
        assert_eq!(crate::json::from_str::<RawJson>("1.50").unwrap().as_str(), "1.50");
        assert_eq!(serde_json::from_str::<RawJson>("1.50").unwrap().as_str(), "1.5");
        let err = crate::json::from_str::<RawJson>(r#"{"a":1,"a":2}"#).unwrap_err().to_string();
        assert!(err.contains("duplicate field `a`"), "{err}");
    }

    #[test]
    fn a_value_deeper_than_the_reader_allows_still_reads_back() {
        // The reader stops at 100 levels, serde_json at 128; a `Value` has no limit.
        for depth in [110, 300] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let mut de = serde_json::Deserializer::from_str(&text);
            de.disable_recursion_limit();
            let value = <serde_json::Value as serde::Deserialize>::deserialize(&mut de).unwrap();
            let raw = RawJson::from(&value);
            assert_eq!(raw.as_str(), text);
            assert_eq!(raw.to_value(), value, "{depth} levels");
            assert_eq!(raw, raw.clone());
            assert_eq!(serde_json::to_value(&raw).unwrap(), value);
            if depth < 128 {
                assert_eq!(serde_json::from_str::<RawJson>(&text).unwrap().to_value(), value);
            }
        }
        assert!(RawJson::from(serde_json::Value::Null).is_null());
        assert!(!RawJson::from(json!("null")).is_null());
    }
}

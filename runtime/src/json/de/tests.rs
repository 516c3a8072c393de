use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{from_str, Reader};

/// The reader alone: `None` when it declines.
fn read<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
    let mut reader = Reader::new(text);
    T::deserialize(&mut reader).ok().filter(|_| reader.end())
}

/// `from_str` and `serde_json::from_str` agree (value or error text), and
/// when the reader itself succeeds it agrees too.
fn same<'a, T: Deserialize<'a> + Debug + PartialEq>(text: &'a str) {
    let ours = from_str::<T>(text).map_err(|e| e.to_string());
    let theirs = serde_json::from_str::<T>(text).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{text:?} as {}", std::any::type_name::<T>());
    if let Some(v) = read::<T>(text) {
        assert_eq!(Ok(&v), theirs.as_ref(), "the reader alone, {text:?}");
    }
}

/// A string newtype as the generator writes one (the derive's decoder).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, crate::AcpString)]
#[acp(crate = "crate")]
struct Id(crate::runtime::SmolStr);

#[derive(Debug, PartialEq, Eq, Hash, Deserialize)]
enum Unit {
    A,
    #[serde(rename = "b\"")]
    B,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Point {
    x: i32,
    y: Option<f64>,
}

/// Reads only the first member of an object, or the first item of an
/// array, and stops: serde_json refuses what is left.
#[derive(Debug, PartialEq)]
struct First(Option<Value>);

impl<'de> Deserialize<'de> for First {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = First;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object or an array")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<First, A::Error> {
                Ok(First(map.next_entry::<String, Value>()?.map(|(_, v)| v)))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<First, A::Error> {
                Ok(First(seq.next_element()?))
            }
        }
        d.deserialize_any(V)
    }
}

const TEXTS: &[&str] = &[
    "",
    " ",
    "null",
    " null ",
    "nul",
    "nullx",
    "true",
    "false",
    "tru",
    "0",
    "-0",
    "01",
    "1.",
    ".5",
    "1e5",
    "1E+5",
    "1e-5",
    "1e",
    "-",
    "--1",
    "+1",
    "42",
    " 42 ",
    "42 x",
    "123456789012345678",
    "1234567890123456789",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "0.1",
    "1.7976931348623157e308",
    "1.7976931348623157e309",
    "5e-324",
    "1e400",
    "2.5e-3",
    "\"\"",
    "\"a\"",
    r#""a\"b\\c\/d\b\f\n\r\t""#,
    r#""\u00e9\ud83d\ude00x""#,
    r#""\ud800""#,
    r#""\udc00""#,
    r#""\ud800\u0041""#,
    r#""\u12""#,
    r#""\x""#,
    "\"a\u{1}b\"",
    "\"tab\there\"",
    "\"unterminated",
    "\"é ü 😀\"",
    "[]",
    "[ ]",
    "[1,2,3]",
    "[1,]",
    "[,1]",
    "[1 2]",
    "[1,2",
    "{}",
    "{ }",
    r#"{"a":1}"#,
    r#"{"a":1,}"#,
    r#"{"a" 1}"#,
    r#"{a:1}"#,
    r#"{"a":1 "b":2}"#,
    r#"{"a":1,"a":2}"#,
    r#"{"x":1,"y":2.5}"#,
    r#"{"y":null,"x":-3}"#,
    r#"{"x":1,"z":[1,{"q":"\u0041"}]}"#,
    r#"{"x":"1"}"#,
    r#"[1,2.0]"#,
    r#"{"1":2,"3":4}"#,
    r#"{"k\"":"v\n"}"#,
    r#""A""#,
    r#""b\"""#,
    r#""c""#,
    r#"{"A":null}"#,
    "{} x",
    "{}}",
    "[[[]]]",
    r#"{"true":1,"false":2}"#,
    r#"{"a":1,"é":2}"#,
    r#"{"ab":1}"#,
    r#"{"A":1,"b\"":2}"#,
    r#"{"-7":1}"#,
    r#"{"":1}"#,
];

#[test]
fn agrees_with_serde_json_on_every_text_and_type() {
    for text in TEXTS {
        same::<Value>(text);
        same::<String>(text);
        same::<u64>(text);
        same::<i64>(text);
        same::<f64>(text);
        same::<u8>(text);
        same::<bool>(text);
        same::<()>(text);
        same::<Option<u8>>(text);
        same::<Option<String>>(text);
        same::<Vec<u8>>(text);
        same::<Vec<Value>>(text);
        same::<(u8, u8)>(text);
        same::<HashMap<String, u8>>(text);
        same::<HashMap<u64, u8>>(text);
        same::<HashMap<bool, u8>>(text);
        same::<BTreeMap<char, u8>>(text);
        same::<HashMap<Unit, u8>>(text);
        same::<BTreeMap<String, Value>>(text);
        same::<Unit>(text);
        same::<Point>(text);
        same::<First>(text);
        same::<crate::runtime::Number>(text);
        same::<Id>(text);
        // Raw values, borrowed and boxed: the same text captured.
        let ours = from_str::<&RawValue>(text).map(|r| r.get().to_owned()).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<&RawValue>(text).map(|r| r.get().to_owned()).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?} as a raw value");
        let ours = from_str::<Box<RawValue>>(text).map(|r| r.get().to_owned()).map_err(|e| e.to_string());
        let theirs = serde_json::from_str::<Box<RawValue>>(text).map(|r| r.get().to_owned()).map_err(|e| e.to_string());
        assert_eq!(ours, theirs, "{text:?} as a boxed raw value");
    }
}

#[test]
fn nesting_up_to_the_limit_and_past_it() {
    for depth in [1, 99, 100, 101, 126, 127, 128, 129, 200] {
        let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        same::<Value>(&text);
        let text = format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth));
        same::<Value>(&text);
    }
    // The reader itself takes the shallower ones.
    assert!(read::<Value>(&format!("{}{}", "[".repeat(100), "]".repeat(100))).is_some());
    assert!(read::<Value>(&format!("{}{}", "[".repeat(101), "]".repeat(101))).is_none());
}

/// Escaped strings: every short escape, `\u` escapes (a surrogate pair, a
/// lone one), multi-byte characters and control bytes, between runs of every
/// length from 0 to 40 (so that runs end at every place of the reader's
/// sixteen-byte steps, a character cut by one of them included), read by the
/// reader alone as serde_json reads them.
#[test]
fn escaped_strings_unescape_as_serde_json_unescapes_them_at_every_run_length() {
    let escapes = [
        r#"\""#,
        r"\\",
        r"\/",
        r"\b",
        r"\f",
        r"\n",
        r"\r",
        r"\t",
        r"\u00e9",
        r"\u0001",
        r"\ud83d\ude00",
        r"\ud83d",
        r"\u12",
        "\u{1}",
        "\u{1F600}",
        "é",
    ];
    let mut n = 0;
    for run in 0..=40 {
        for (i, e) in escapes.iter().enumerate() {
            let filler: String = "abcdefghijklmnopqrstuvwxyzé😀".chars().cycle().skip(i).take(run).collect();
            for text in [
                format!(r#""{filler}{e}{filler}""#),
                format!(r#""{e}{filler}{e}{e}{filler}\n""#),
                format!(r#""{filler}{e}{filler}"#),
            ] {
                same::<String>(&text);
                same::<Value>(&text);
                n += 1;
            }
        }
    }
    assert!(n > 1900, "{n}");
}

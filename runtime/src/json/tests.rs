use super::*;
use serde_json::{json, Value};

fn same(v: &impl Serialize) {
    let ours = to_string(v);
    let theirs = serde_json::to_string(v);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert_eq!(a, b),
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("ours {ours:?}, serde_json {theirs:?}"),
    }
}

#[test]
fn every_byte_is_escaped_as_serde_json_escapes_it() {
    let all: String = (0u8..=0x7f).map(char::from).collect();
    same(&all);
    for shift in 0..9 {
        for b in 0u8..=0x7f {
            let mut s = "é".repeat(shift) + &"x".repeat(shift);
            s.push(char::from(b));
            s.push_str("tail of more than eight bytes\u{1F600}");
            same(&s);
        }
    }
    same(&"\u{7f}\u{80}\u{ff}\u{2028}\u{FFFF}");
}

#[test]
fn short_and_long_strings_match_at_every_length_and_position() {
    for len in 0..=40 {
        same(&"a".repeat(len));
        for pos in 0..len {
            for special in ['"', '\\', '\n', '\u{1}', '\u{1f}', '\u{7f}', 'é', '😀', '/'] {
                let s = format!("{}{special}{}", "a".repeat(pos), "b".repeat(len - pos - 1));
                same(&s);
                same(&format!("{s}{special}"));
            }
        }
    }
}

#[test]
fn values_and_shapes_match() {
    same(&json!({"a": [1, -2, 3.5, 1e300, null, true, false, "x"], "": {}, "e": [], "u": u64::MAX, "i": i64::MIN}));
    same(&(1u8, 'c', (), Some(2.5f32), None::<i32>));
    same(&f64::NAN);
    same(&std::collections::BTreeMap::from([(1, 2), (3, 4)]));
    same(&std::collections::BTreeMap::from([(true, 1)]));
    same(&std::collections::BTreeMap::from([((), 1)]));
    same(&std::collections::BTreeMap::from([(Some('k'), 1)]));
    same(&FloatKey(2.5));
    same(&FloatKey(f64::INFINITY));
    same(&serde_bytes_like());
    let raw = serde_json::value::RawValue::from_string("{ \"keep\" : [1, 2] }".into()).unwrap();
    same(&raw);
    same(&json!({"raw": raw}));
}

struct FloatKey(f64);
impl Serialize for FloatKey {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(&self.0, &1)?;
        m.end()
    }
}

fn serde_bytes_like() -> impl Serialize {
    struct B;
    impl Serialize for B {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&[0, 1, 255])
        }
    }
    B
}

#[test]
fn enums_match() {
    #[derive(serde::Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, String),
        Struct { a: u8, b: Vec<u8> },
        EmptyStruct {},
        EmptyTuple(),
    }
    for e in
        [E::Unit, E::New(1), E::Tuple(2, "t".into()), E::Struct { a: 3, b: vec![] }, E::EmptyStruct {}, E::EmptyTuple()]
    {
        same(&e);
    }
}

#[test]
fn a_failed_encode_leaves_the_buffer_as_it_was() {
    let bad = std::collections::BTreeMap::from([(vec![1], 2)]);
    let mut out = b"kept".to_vec();
    assert!(append(&mut out, &json!([1, 2])).is_ok());
    assert!(append(&mut out, &vec![json!(1), json!([1])]).is_ok());
    // `[{},` is written before the second map's key fails.
    let failing = vec![std::collections::BTreeMap::new(), bad];
    assert!(append(&mut out, &failing).is_err());
    assert_eq!(out, b"kept[1,2][1,[1]]");
    let mut written = Vec::new();
    assert!(to_writer(&mut written, &failing).is_err());
    assert!(written.is_empty());
    assert_eq!(to_vec(&Value::Null).unwrap(), b"null");
}

/// A value whose `Serialize` fails (the direct encoders' fallback must
/// return the error and leave nothing behind).
struct Fails;

impl Serialize for Fails {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(ser::Error::custom("no"))
    }
}

/// A value whose `Serialize` runs another serializer on a type with a
/// direct encoder while the bindings' encoder is writing.
struct Nested(Block);

/// A type with a direct encoder of its own, for [`Nested`].
#[derive(Debug, Clone, PartialEq, crate::AcpSerialize)]
#[acp(crate = "crate")]
struct Block {
    #[serde(rename = "type")]
    kind: String,
    text: String,
    #[serde(flatten)]
    additional_properties: crate::runtime::Extra,
}

/// A closed string enum as the generator writes one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, crate::AcpEnum)]
#[acp(crate = "crate", rename_all = "snake_case")]
enum Kind {
    Execute,
}

impl Serialize for Nested {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let inner = serde_json::to_value(&self.0).map_err(ser::Error::custom)?;
        let text = serde_json::to_string(&self.0).map_err(ser::Error::custom)?;
        (inner, text).serialize(s)
    }
}

#[derive(crate::AcpSerialize)]
#[acp(crate = "crate")]
#[serde(rename_all = "camelCase")]
struct Holder {
    block_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    nested: Option<Nested>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fails: Option<Fails>,
    #[serde(rename = "say \"what\"")]
    quoted: Kind,
    #[serde(flatten)]
    additional_properties: crate::runtime::Extra,
}

fn holder() -> Holder {
    let mut additional_properties = crate::runtime::Extra::new();
    additional_properties.insert("blockId".into(), json!("again"));
    Holder { block_id: "b".into(), nested: None, fails: None, quoted: Kind::Execute, additional_properties }
}

#[test]
fn a_direct_encoder_writes_what_serde_writes() {
    let h = holder();
    same(&h);
    assert_eq!(to_string(&h).unwrap(), r#"{"blockId":"b","say \"what\"":"execute","blockId":"again"}"#);
    // Through serde's flattening and other serializers alike.
    assert_eq!(serde_json::to_value(&h).unwrap(), json!({"blockId":"again","say \"what\"":"execute"}));
}

#[test]
fn another_serializer_inside_a_direct_encoder_writes_its_own_output() {
    let block = Block { kind: "text".into(), text: "hi".into(), additional_properties: crate::runtime::Extra::new() };
    let h = Holder { nested: Some(Nested(block)), ..holder() };
    same(&h);
    assert!(to_string(&h).unwrap().contains(r#"[{"type":"text","text":"hi"},"{\"type\":\"text\",\"text\":\"hi\"}"]"#));
}

#[test]
fn an_error_inside_a_direct_encoder_is_returned_and_writes_nothing() {
    let h = Holder { fails: Some(Fails), ..holder() };
    same(&h);
    let mut out = b"kept".to_vec();
    let e = append(&mut out, &vec![h]).unwrap_err();
    assert_eq!(e.to_string(), "no");
    assert_eq!(out, b"kept");
    // The buffer lent to the direct encoder came back: the next encode works.
    assert_eq!(to_string(&holder()).unwrap(), serde_json::to_string(&holder()).unwrap());
}

#[test]
fn the_direct_encoder_marker_on_another_type_is_an_error() {
    struct Impostor;
    impl Serialize for Impostor {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_newtype_struct(fast::ENCODE, &1u8)
        }
    }
    assert!(to_string(&Impostor).unwrap_err().to_string().contains("direct-encoder marker"));
    assert_eq!(serde_json::to_string(&Impostor).unwrap(), "1");
}

#[test]
fn a_panic_inside_a_direct_encoder_loses_nothing_already_written() {
    struct Panics;
    impl Serialize for Panics {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            panic!("a Serialize impl that panics")
        }
    }
    #[derive(crate::AcpSerialize)]
    #[acp(crate = "crate")]
    struct WithPanic {
        p: Panics,
        #[serde(flatten)]
        additional_properties: crate::runtime::Extra,
    }
    let mut out = b"kept".to_vec();
    let w = WithPanic { p: Panics, additional_properties: crate::runtime::Extra::new() };
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| append(&mut out, &w)));
    assert!(caught.is_err());
    assert!(out.starts_with(b"kept"), "{:?}", String::from_utf8_lossy(&out));
    // The slot is empty again: the next encode works.
    assert_eq!(to_string(&holder()).unwrap(), serde_json::to_string(&holder()).unwrap());
}

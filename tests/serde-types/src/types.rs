// The fixture types, shared by `acp-serde-types` (schemars 1.x) and
// `acp-serde-types-08` (schemars 0.8), each of which `include!`s this file
// with its own `JsonSchema` derive in scope. Items only: the including file
// brings the imports (`std::collections::*`, `proptest::prelude::*`,
// `proptest_derive::Arbitrary`, `schemars::JsonSchema`, `serde::*`,
// `serde_json::Value`).

// ---- scalars -----------------------------------------------------------------

/// Every integer width, both floats, `char`, `bool`, `String` and `()`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Scalars {
    pub i8: i8,
    pub i16: i16,
    pub i32: i32,
    pub i64: i64,
    pub i128: i128,
    pub isize: isize,
    pub u8: u8,
    pub u16: u16,
    pub u32: u32,
    pub u64: u64,
    pub u128: u128,
    pub usize: usize,
    #[proptest(strategy = "finite_f32()")]
    pub f32: f32,
    #[proptest(strategy = "finite_f64()")]
    pub f64: f64,
    pub ch: char,
    pub flag: bool,
    pub text: String,
    pub unit: (),
}

/// A newtype struct (written as its one value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Meters(#[proptest(strategy = "finite_f64()")] pub f64);

/// `#[serde(transparent)]` on a struct with one named field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(transparent)]
pub struct Label {
    pub value: String,
}

/// A tuple struct (written as an array).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Point(pub i32, pub i32, pub String);

/// A unit struct (written as `null`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Marker;

// ---- collections -------------------------------------------------------------

/// Maps, sets, tuples, fixed arrays, `Option`, `serde_json::Value`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Collections {
    #[proptest(strategy = "prop::collection::vec(any::<u16>(), 0..6)")]
    pub list: Vec<u16>,
    #[proptest(strategy = "prop::collection::vec(prop::collection::vec(\".{0,6}\", 0..3), 0..3)")]
    pub nested: Vec<Vec<String>>,
    #[proptest(strategy = "prop::collection::btree_map(\".{0,6}\", any::<i64>(), 0..4)")]
    pub map: BTreeMap<String, i64>,
    #[proptest(strategy = "prop::collection::hash_map(\".{0,6}\", any::<bool>(), 0..4)")]
    pub hash_map: HashMap<String, bool>,
    #[proptest(strategy = "prop::collection::btree_set(\".{0,6}\", 0..4)")]
    pub set: BTreeSet<String>,
    #[proptest(strategy = "prop::collection::hash_set(any::<u32>(), 0..4)")]
    pub hash_set: HashSet<u32>,
    pub pair: (u8, String),
    pub triple: (bool, i64, Option<String>),
    pub fixed: [u8; 4],
    #[proptest(strategy = "prop::collection::vec(any::<Point>(), 0..3)")]
    pub points: Vec<Point>,
    #[proptest(strategy = "prop::collection::vec(any::<Option<u32>>(), 0..5)")]
    pub sparse: Vec<Option<u32>>,
    #[proptest(strategy = "prop::collection::btree_map(\".{0,6}\", any::<Option<String>>(), 0..4)")]
    pub maybe_values: BTreeMap<String, Option<String>>,
    pub optional: Option<u32>,
    pub optional_ref: Option<Meters>,
    #[proptest(strategy = "json_value()")]
    pub any: Value,
    #[proptest(strategy = "json_map()")]
    pub object: serde_json::Map<String, Value>,
    #[proptest(strategy = "prop::collection::btree_map(\".{0,6}\", any::<Label>(), 0..3)")]
    pub labels: BTreeMap<String, Label>,
}

// ---- field attributes --------------------------------------------------------

/// `rename_all`, `rename`, `alias`, `default`, `skip_serializing_if` and the
/// tri-state `Option<Option<T>>` (omitted, `null`, a value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(rename_all = "camelCase")]
pub struct Attributes {
    pub snake_case_name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(alias = "oldName")]
    pub new_name: u32,
    #[serde(default)]
    pub defaulted: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maybe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "double_option")]
    #[schemars(with = "Option<String>")]
    pub patch: Option<Option<String>>,
    pub nullable: Option<bool>,
}

/// `deny_unknown_fields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(deny_unknown_fields)]
pub struct Strict {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// `flatten` of a struct and of a map that keeps every other property.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Flattened {
    pub id: u32,
    #[serde(flatten)]
    pub inner: Inner,
    #[serde(flatten)]
    #[proptest(strategy = "extension_map()")]
    pub rest: BTreeMap<String, Value>,
}

/// `flatten` of a map with a value type: every other property is a number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct TypedRest {
    pub id: u32,
    #[serde(flatten)]
    #[proptest(strategy = "prop::collection::btree_map(\"x-[a-z]{0,6}\", any::<u32>(), 0..4)")]
    pub counts: BTreeMap<String, u32>,
}

/// The struct [`Flattened`] flattens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Inner {
    pub inner_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inner_size: Option<i32>,
}

/// `flatten` of an internally tagged enum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct WithShape {
    pub name: String,
    #[serde(flatten)]
    pub shape: Shape,
}

// ---- enums -------------------------------------------------------------------

/// A unit-only enum: a closed set of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    DarkGreen,
    #[serde(rename = "BLUE")]
    Blue,
}

/// Externally tagged (serde's default): unit, newtype, tuple and struct variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub enum External {
    Unit,
    Other,
    Newtype(String),
    Wrapped(Inner),
    Tuple(i32, bool),
    Struct {
        a: u16,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
    },
}

/// Internally tagged: unit, newtype (of a struct) and struct variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Shape {
    Circle {
        #[proptest(strategy = "finite_f64()")]
        radius: f64,
    },
    Rect(Rect),
    Empty,
}

/// The payload of [`Shape::Rect`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
pub struct Rect {
    pub width: u32,
    pub height: u32,
}

/// Adjacently tagged: unit, newtype, tuple and struct variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "t", content = "c")]
pub enum Adjacent {
    Nothing,
    Number(u32),
    Pair(u8, String),
    Named { x: i16, y: Vec<bool> },
}

/// Untagged: arms serde tells apart by shape, tried in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(untagged)]
pub enum Untagged {
    Flag(bool),
    Int(i64),
    Float(#[proptest(strategy = "finite_f64()")] f64),
    Text(String),
    List(Vec<u8>),
    Object { id: u32, label: String },
    Nothing,
}

/// `#[serde(other)]`: an unknown tag reads as `Unknown`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Arbitrary)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started,
    Stopped,
    #[serde(other)]
    Unknown,
}

// ---- recursion ---------------------------------------------------------------

/// Recursive through a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Tree {
    pub label: String,
    pub children: Vec<Tree>,
}

/// Recursive through `Option<Box<_>>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Chain {
    pub value: i32,
    pub next: Option<Box<Chain>>,
}

/// Recursive through a union, a `Box` in a variant and a map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Expr {
    Lit { value: i64 },
    Neg { arg: Box<Expr> },
    Sum { args: Vec<Expr> },
    Let { bindings: BTreeMap<String, Expr>, body: Box<Expr> },
}

impl Arbitrary for Tree {
    type Parameters = ();
    type Strategy = BoxedStrategy<Tree>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        let leaf = ".{0,8}".prop_map(|label| Tree { label, children: Vec::new() });
        leaf.prop_recursive(4, 24, 4, |inner| {
            (".{0,8}", prop::collection::vec(inner, 0..4)).prop_map(|(label, children)| Tree { label, children })
        })
        .boxed()
    }
}

impl Arbitrary for Chain {
    type Parameters = ();
    type Strategy = BoxedStrategy<Chain>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        let last = any::<i32>().prop_map(|value| Chain { value, next: None });
        last.prop_recursive(6, 6, 1, |inner| {
            (any::<i32>(), inner).prop_map(|(value, next)| Chain { value, next: Some(Box::new(next)) })
        })
        .boxed()
    }
}

impl Arbitrary for Expr {
    type Parameters = ();
    type Strategy = BoxedStrategy<Expr>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        let lit = any::<i64>().prop_map(|value| Expr::Lit { value });
        lit.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(|e| Expr::Neg { arg: Box::new(e) }),
                prop::collection::vec(inner.clone(), 0..4).prop_map(|args| Expr::Sum { args }),
                (prop::collection::btree_map("[a-z]{1,3}", inner.clone(), 0..3), inner)
                    .prop_map(|(bindings, body)| Expr::Let { bindings, body: Box::new(body) }),
            ]
        })
        .boxed()
    }
}

// ---- the roots -----------------------------------------------------------------

/// Calls `$m!` with every root type: each is one definition of the schema.
#[macro_export]
macro_rules! for_each_root {
    ($m:ident) => {
        $m!(
            Scalars, Meters, Label, Point, Marker, Collections, Attributes, Strict, Flattened, TypedRest, WithShape,
            Color, External, Shape, Adjacent, Untagged, Event, Tree, Chain, Expr
        );
    };
}

// ---- helpers -----------------------------------------------------------------

/// `Option<Option<T>>` as serde_with's `double_option`: omitted is `None`
/// (with `#[serde(default)]`), `null` is `Some(None)`, a value `Some(Some(v))`.
pub mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &Option<Option<T>>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(inner) => inner.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

/// Finite `f64`s (JSON has no `NaN` or infinities: serde_json writes them as `null`).
pub fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |f| f.is_finite()),
        Just(0.0),
        Just(-0.0),
        (-1000i32..1000).prop_map(f64::from),
    ]
}

/// Finite `f32`s.
pub fn finite_f32() -> impl Strategy<Value = f32> {
    any::<f32>().prop_filter("finite", |f| f.is_finite())
}

/// Any JSON value, a few levels deep.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        finite_f64().prop_map(Value::from),
        ".{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((".{0,4}", inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A JSON object with any members.
pub fn json_map() -> impl Strategy<Value = serde_json::Map<String, Value>> {
    prop::collection::vec((".{0,4}", json_value()), 0..4).prop_map(|kv| kv.into_iter().collect())
}

/// Extension members for [`Flattened::rest`]: names no field of it has.
pub fn extension_map() -> impl Strategy<Value = BTreeMap<String, Value>> {
    prop::collection::btree_map("x-[a-z]{0,6}", json_value(), 0..4)
}

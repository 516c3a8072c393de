//! `#[derive(AcpPatch)]` on a user's own extension struct: wire format,
//! apply / from_patch / diff / then, and properties (misuse, the compile-fail cases, is
//! `tests/misuse`).

use acp_bindings::{AcpPatch, Patch, Patchable};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Normal,
    Insert,
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cursor {
    pub line: u32,
    pub column: Option<u32>,
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(patch = "EditorStateUpdate")]
#[serde(rename_all = "camelCase")]
pub struct EditorState {
    #[acp(key)]
    pub buffer_id: String,
    pub title: Option<String>,
    pub mode: Mode,
    pub files: Vec<String>,
    #[acp(by_key)]
    #[serde(rename = "_meta")]
    pub meta: Option<Map<String, Value>>,
    #[acp(nested)]
    pub cursor: Cursor,
    #[acp(skip)]
    pub cached_len: usize,
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(strict)]
pub struct Strict {
    #[acp(key)]
    pub id: String,
    pub size: Option<u32>,
    #[acp(skip_invalid_items)]
    pub tags: Vec<u32>,
}

fn patch(v: Value) -> EditorStateUpdate {
    serde_json::from_value(v).unwrap()
}

#[test]
fn omitted_keeps_null_clears_value_sets() {
    let p = patch(json!({"bufferId": "b1", "title": null, "mode": "insert", "files": ["a.rs"]}));
    assert_eq!(p.title, Patch::Clear);
    assert_eq!(p.mode, Patch::Set(Mode::Insert));
    assert!(p.cursor.is_keep() && p.meta.is_keep());
    // Keep is not written; Clear is `null`; the renames of the struct are followed.
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({"bufferId": "b1", "title": null, "mode": "insert", "files": ["a.rs"]})
    );
    let mut s = EditorState { buffer_id: "b1".into(), title: Some("x".into()), cached_len: 7, ..Default::default() };
    s.apply(p);
    assert_eq!((s.title.as_deref(), s.mode, s.files.len(), s.cached_len), (None, Mode::Insert, 1, 7));
    // `null` resets a non-optional field to its default; `[]` and `null` clear lists.
    s.apply(patch(json!({"bufferId": "b1", "mode": null, "files": []})));
    assert_eq!((s.mode, s.files.is_empty()), (Mode::Normal, true));
}

#[test]
fn meta_by_key_and_nested_cursor() {
    let mut s =
        EditorState::from_patch(patch(json!({"bufferId": "b", "_meta": {"a": 1, "b": 2}, "cursor": {"line": 3}})));
    assert_eq!(s.meta, Some(json!({"a": 1, "b": 2}).as_object().unwrap().clone()));
    assert_eq!(s.cursor, Cursor { line: 3, column: None });
    s.apply(patch(json!({"bufferId": "b", "_meta": {"a": null, "c": {"deep": true}}, "cursor": {"column": 9}})));
    assert_eq!(s.meta, Some(json!({"b": 2, "c": {"deep": true}}).as_object().unwrap().clone()));
    assert_eq!(s.cursor, Cursor { line: 3, column: Some(9) }, "an object patches the nested entity field by field");
    s.apply(patch(json!({"bufferId": "b", "_meta": null, "cursor": null})));
    assert_eq!((s.meta, s.cursor), (None, Cursor::default()));
}

#[test]
fn malformed_values_keep_unless_strict_and_the_key_is_required() {
    let p = patch(json!({"bufferId": "b", "title": 5, "mode": "flying", "files": "nope", "_meta": [1]}));
    assert!(p.is_empty(), "malformed values decode as Keep: {p:?}");
    let e = serde_json::from_value::<EditorStateUpdate>(json!({"title": "t"})).unwrap_err();
    assert!(e.to_string().contains("missing field `bufferId`"), "{e}");
    assert!(serde_json::from_value::<EditorStateUpdate>(json!({"bufferId": 3})).is_err());
    assert!(serde_json::from_value::<StrictPatch>(json!({"id": "s", "size": "big"})).is_err());
    assert_eq!(serde_json::from_value::<StrictPatch>(json!({"id": "s", "size": null})).unwrap().size, Patch::Clear);
    // `strict` covers `skip_invalid_items` lists too: a value that is not a list
    // is an error; the items the field asks to skip are still skipped.
    assert!(serde_json::from_value::<StrictPatch>(json!({"id": "s", "tags": "x"})).is_err());
    let p = serde_json::from_value::<StrictPatch>(json!({"id": "s", "tags": [1, "two", 3]})).unwrap();
    assert_eq!(p.tags, Patch::Set(vec![1, 3]));
    assert_eq!(serde_json::from_value::<StrictPatch>(json!({"id": "s", "tags": null})).unwrap().tags, Patch::Clear);
}

#[test]
fn diff_then_and_empty() {
    let a =
        EditorState { buffer_id: "b".into(), title: Some("a".into()), files: vec!["x".into()], ..Default::default() };
    let b = EditorState { buffer_id: "b".into(), mode: Mode::Insert, ..a.clone() };
    let d = a.diff(&b);
    assert_eq!(serde_json::to_value(&d).unwrap(), json!({"bufferId": "b", "mode": "insert"}));
    assert!(a.diff(&a).is_empty());
    let p = patch(json!({"bufferId": "b", "title": "t1", "files": ["1"]}));
    let q = patch(json!({"bufferId": "b", "title": null}));
    let pq = p.clone().then(q.clone());
    assert_eq!(serde_json::to_value(&pq).unwrap(), json!({"bufferId": "b", "title": null, "files": ["1"]}));
}

// ---- properties ---------------------------------------------------------

fn opt_string() -> impl Strategy<Value = Option<String>> {
    prop::option::of("[a-c]{0,2}")
}

fn meta() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::of(prop::collection::btree_map("[a-c]", 0u8..3, 0..3))
        .prop_map(|m| m.map(|m| m.into_iter().map(|(k, v)| (k, Value::from(v))).collect()))
}

prop_compose! {
    fn state()(title in opt_string(), insert in any::<bool>(), files in prop::collection::vec("[a-c]", 0..3),
               meta in meta(), line in 0u32..3, column in prop::option::of(0u32..3)) -> EditorState {
        EditorState { buffer_id: "b".into(), title, mode: if insert { Mode::Insert } else { Mode::Normal }, files, meta,
                      cursor: Cursor { line, column }, cached_len: 0 }
    }
}

fn field<T: Clone + std::fmt::Debug + 'static>(
    set: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Patch<T>> {
    prop_oneof![Just(Patch::Keep), Just(Patch::Clear), set.prop_map(Patch::Set)]
}

prop_compose! {
    fn update()(title in field("[a-c]{0,2}"), mode in field(prop_oneof![Just(Mode::Normal), Just(Mode::Insert)]),
                files in field(prop::collection::vec("[a-c]", 0..3)),
                meta in prop_oneof![Just(Patch::Keep), Just(Patch::Clear),
                    prop::collection::btree_map("[a-c]", prop::option::of(0u8..3), 0..3).prop_map(|m| Patch::Set(Box::new(
                        m.into_iter().map(|(k, v)| (k, v.map_or(Value::Null, Value::from))).collect())))],
                cursor in prop_oneof![Just(Patch::Keep), Just(Patch::Clear),
                    (field(0u32..3), field(0u32..3)).prop_map(|(line, column)| {
                        let mut p = CursorPatch::new();
                        p.line = line;
                        p.column = column;
                        Patch::Patch(p)
                    })]) -> EditorStateUpdate {
        let mut p = EditorStateUpdate::new("b");
        p.title = title; p.mode = mode; p.files = files; p.meta = meta; p.cursor = cursor;
        p
    }
}

/// The four properties of an `AcpPatch` entity: `base` is a default entity
/// with the key, `state()` and `update()` generate entities and patches.
macro_rules! patch_properties {
    ($state_ty:ty, $patch_ty:ty, $base:expr) => {
        proptest! {
            #[test]
            fn from_patch_is_default_then_apply(p in update()) {
                let mut base: $state_ty = $base;
                base.apply(p.clone());
                prop_assert_eq!(<$state_ty>::from_patch(p), base);
            }

            #[test]
            fn apply_diff_reaches_the_newer_state(a in state(), b in state()) {
                let mut x = a.clone();
                x.apply(a.diff(&b));
                prop_assert_eq!(x, b);
            }

            #[test]
            fn apply_diff_through_the_wire_reaches_the_newer_state(a in state(), b in state()) {
                // What a peer receives: the diff encoded, then decoded.
                let text = serde_json::to_string(&a.diff(&b)).unwrap();
                let received: $patch_ty = serde_json::from_str(&text).unwrap();
                let mut x = a.clone();
                x.apply(received);
                prop_assert_eq!(x, b, "diff on the wire: {}", text);
            }

            #[test]
            fn then_composes(s in state(), p in update(), q in update()) {
                let (mut one, mut two) = (s.clone(), s);
                one.apply(p.clone().then(q.clone()));
                two.apply(p);
                two.apply(q);
                prop_assert_eq!(one, two);
            }

            #[test]
            fn encoding_keeps_keep_clear_and_set_apart(p in update()) {
                // A patch made only of wire forms round-trips exactly.
                let text = serde_json::to_string(&p).unwrap();
                let back: $patch_ty = serde_json::from_str(&text).unwrap();
                prop_assert_eq!(back, p);
            }
        }
    };
}

patch_properties!(EditorState, EditorStateUpdate, EditorState { buffer_id: "b".into(), ..Default::default() });

/// `#[acp(boxed)]`: the patch holds a large value boxed; the state holds it inline.
#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    #[acp(key)]
    id: String,
    #[acp(boxed)]
    payload: Value,
    #[acp(boxed)]
    detail: Option<Detail>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
struct Detail {
    lines: Vec<String>,
    note: Option<String>,
}

#[test]
fn boxed_fields_patch_like_the_others() {
    let patch: ReportPatch =
        serde_json::from_value(json!({"id": "r1", "payload": {"a": 1}, "detail": {"lines": ["x"], "note": null}}))
            .unwrap();
    assert_eq!(patch.payload, Patch::Set(Box::new(json!({"a": 1}))));
    let mut r = Report { id: "r1".into(), ..Default::default() };
    r.apply(patch.clone());
    assert_eq!(r.payload, json!({"a": 1}));
    assert_eq!(r.detail, Some(Detail { lines: vec!["x".into()], note: None }));
    // Encodes as it decoded; null clears; a malformed value keeps.
    assert_eq!(serde_json::to_value(&patch).unwrap()["payload"], json!({"a": 1}));
    r.apply(serde_json::from_value(json!({"id": "r1", "detail": null, "payload": null})).unwrap());
    assert_eq!((r.payload.clone(), r.detail.clone()), (Value::Null, None));
    let kept: ReportPatch = serde_json::from_value(json!({"id": "r1", "detail": 3})).unwrap();
    assert!(kept.detail.is_keep());
    // diff boxes, then, and the setter takes the value unboxed.
    let newer = Report { payload: json!([1]), ..r.clone() };
    let d = r.diff(&newer);
    assert_eq!(d.payload, Patch::Set(Box::new(json!([1]))));
    let built = ReportPatch::new("r1").payload(json!([1])).detail(Detail::default());
    assert_eq!(built.detail, Patch::Set(Box::new(Detail::default())));
    assert!(std::mem::size_of::<ReportPatch>() < std::mem::size_of::<Report>());
}

// ---- the generated v2 tool call ------------------------------------------

mod tool_call {
    use acp_bindings::v2::{ToolCall, ToolCallStatus, ToolCallUpdate, ToolKind};
    use acp_bindings::{Patch, Patchable};
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn kind() -> impl Strategy<Value = ToolKind> {
        prop_oneof![Just(ToolKind::Read), Just(ToolKind::Edit), Just(ToolKind::Other), Just(ToolKind::from("_acme"))]
    }

    fn status() -> impl Strategy<Value = ToolCallStatus> {
        prop_oneof![Just(ToolCallStatus::Pending), Just(ToolCallStatus::InProgress), Just(ToolCallStatus::Completed)]
    }

    fn content() -> impl Strategy<Value = Vec<acp_bindings::v2::ToolCallContent>> {
        prop::collection::vec("[a-c]{1,2}", 0..3).prop_map(|texts| {
            texts
                .into_iter()
                .map(|t| {
                    serde_json::from_value(json!({"type": "content", "content": {"type": "text", "text": t}})).unwrap()
                })
                .collect()
        })
    }

    fn locations() -> impl Strategy<Value = Vec<acp_bindings::v2::ToolCallLocation>> {
        prop::collection::vec("[a-c]{1,2}", 0..2).prop_map(|paths| {
            paths.into_iter().map(|p| serde_json::from_value(json!({"path": format!("/{p}")})).unwrap()).collect()
        })
    }

    fn meta() -> impl Strategy<Value = Option<Box<serde_json::Map<String, Value>>>> {
        prop::option::of(prop::collection::btree_map("[a-c]", 0u8..3, 0..3))
            .prop_map(|m| m.map(|m| Box::new(m.into_iter().map(|(k, v)| (k, Value::from(v))).collect())))
    }

    prop_compose! {
        fn state()(title in prop::option::of("[a-c]{0,2}"), kind in kind(), status in status(), content in content(),
                   raw in prop_oneof![Just(None), Just(Some(json!({"p": 1}).into())), Just(Some(json!([]).into()))],
                   out in prop_oneof![Just(None), Just(Some(json!("done").into())), Just(Some(json!(0).into()))],
                   name in prop::option::of("[a-c]{1,2}"), locations in locations(), meta in meta()) -> ToolCall {
            let mut s = ToolCall::from_patch(ToolCallUpdate::new("call_1"));
            s.title = title; s.kind = kind; s.status = status; s.content = content; s.raw_input = raw;
            s.raw_output = out; s.name = name; s.locations = locations; s.meta = meta;
            s
        }
    }

    fn field<T: Clone + std::fmt::Debug + 'static>(
        set: impl Strategy<Value = T> + 'static,
    ) -> impl Strategy<Value = Patch<T>> {
        prop_oneof![Just(Patch::Keep), Just(Patch::Clear), set.prop_map(Patch::Set)]
    }

    prop_compose! {
        fn update()(title in field("[a-c]{0,2}"), kind in field(kind()), status in field(status()), content in field(content()),
                    meta in prop_oneof![Just(Patch::Keep), Just(Patch::Clear),
                        prop::collection::btree_map("[a-c]", prop::option::of(0u8..3), 0..3).prop_map(|m| Patch::Set(Box::new(
                            m.into_iter().map(|(k, v)| (k, v.map_or(Value::Null, Value::from))).collect())))]) -> ToolCallUpdate {
            let mut p = ToolCallUpdate::new("call_1");
            p.title = title; p.kind = kind; p.status = status; p.content = content; p.meta = meta;
            p
        }
    }

    patch_properties!(ToolCall, ToolCallUpdate, ToolCall::from_patch(ToolCallUpdate::new("call_1")));
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(patch = "PanelUpdate", keep_unknown)]
pub struct Panel {
    #[acp(key)]
    #[serde(rename = "panelId")]
    pub panel_id: String,
    #[serde(rename = "title", alias = "caption")]
    pub title: Option<String>,
    #[acp(nested)]
    #[serde(rename = "cursor")]
    pub cursor: Cursor,
    #[acp(skip_invalid_items)]
    #[serde(rename = "tags")]
    pub tags: Vec<u32>,
    #[acp(skip)]
    pub cached: bool,
}

/// `#[acp(keep_unknown)]`: the patch keeps the properties it does not name and
/// writes them back after the known ones, in order; they compose, and applying
/// ignores them. Aliases, nested fields and the lenient rules still apply.
#[test]
fn keep_unknown_patches_carry_what_they_do_not_name() {
    let text =
        r#"{"panelId":"p1","caption":"Files","zeta":{"b":1,"a":2},"cursor":{"line":3},"tags":[1,"x",2],"alpha":null}"#;
    let p: PanelUpdate = serde_json::from_str(text).unwrap();
    assert_eq!(p.title, Patch::Set("Files".into()));
    assert_eq!(p.tags, Patch::Set(vec![1, 2]));
    assert_eq!(p.additional_properties.len(), 2);
    assert_eq!(
        serde_json::to_string(&p).unwrap(),
        r#"{"panelId":"p1","title":"Files","cursor":{"line":3},"tags":[1,2],"zeta":{"b":1,"a":2},"alpha":null}"#
    );
    let later: PanelUpdate = serde_json::from_str(r#"{"panelId":"p1","alpha":1,"omega":true}"#).unwrap();
    let both = p.clone().then(later);
    let kept: Vec<(&String, &Value)> = both.additional_properties.iter().collect();
    assert_eq!(
        kept,
        [
            (&"zeta".to_owned(), &json!({"b": 1, "a": 2})),
            (&"alpha".to_owned(), &json!(1)),
            (&"omega".to_owned(), &json!(true))
        ]
    );
    let s = Panel::from_patch(p);
    assert_eq!((s.title.as_deref(), s.cursor.line, s.tags.len()), (Some("Files"), 3, 2));
    // Missing key, duplicate key: serde's errors.
    let e = serde_json::from_str::<PanelUpdate>(r#"{"title":"t"}"#).unwrap_err().to_string();
    assert!(e.contains("missing field `panelId`"), "{e}");
    let e =
        serde_json::from_str::<PanelUpdate>(r#"{"panelId":"a","title":"t","caption":"u"}"#).unwrap_err().to_string();
    assert!(e.contains("duplicate field `title`"), "{e}");
    // A diff carries no unknown properties.
    assert!(s.diff(&s).additional_properties.is_empty());
}

#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(patch = "BadgeUpdate", keep_unknown)]
pub struct Badge {
    #[acp(key)]
    #[serde(rename = "badgeId")]
    pub badge_id: String,
    #[serde(rename = "label")]
    pub label: Option<String>,
    #[serde(rename = "count")]
    pub count: u32,
    #[acp(skip_invalid_items)]
    #[serde(rename = "tags")]
    pub tags: Vec<String>,
    #[serde(rename = "say \"hi\"\n")]
    pub greeting: Option<String>,
}

/// A `keep_unknown` patch without nested fields derives `AcpSerialize`: it
/// is a direct encoder of `acp_bindings::json`, writing exactly the bytes
/// serde writes (known keys in order, a `Keep` left out, a clear as `null`,
/// then the kept properties), including a key that needs escaping.
#[test]
fn keep_unknown_patches_are_encoded_directly_with_serde_s_bytes() {
    fn direct<T: acp_bindings::json::fast::ToJson>(_: &T) {}
    let text =
        r#"{"zeta":[1,{"b":2}],"badgeId":"b\"1","tags":["x",3,"y"],"label":null,"say \"hi\"\n":"yo","alpha":null}"#;
    let p: BadgeUpdate = serde_json::from_str(text).unwrap();
    direct(&p);
    assert_eq!((&p.label, &p.count), (&Patch::Clear, &Patch::Keep));
    let expected =
        r#"{"badgeId":"b\"1","label":null,"tags":["x","y"],"say \"hi\"\n":"yo","zeta":[1,{"b":2}],"alpha":null}"#;
    assert_eq!(acp_bindings::json::to_string(&p).unwrap(), expected);
    assert_eq!(serde_json::to_string(&p).unwrap(), expected);
    let set = BadgeUpdate::new("b2").count(7u32);
    assert_eq!(acp_bindings::json::to_string(&set).unwrap(), r#"{"badgeId":"b2","count":7}"#);
    assert_eq!(serde_json::to_value(&set).unwrap(), json!({"badgeId": "b2", "count": 7}));
    let back: BadgeUpdate = acp_bindings::json::from_str(expected).unwrap();
    assert_eq!(back, p);
}

/// `#[acp(declared)]`: the patch struct is written beside the state struct
/// (the generator declares the v2 upserts' wire types this way, so that they
/// are in the source); the derive writes its decoder, builder and operations.
#[derive(AcpPatch, Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[acp(patch = "NoteUpdate", keep_unknown, declared)]
pub struct Note {
    #[acp(key)]
    #[serde(rename = "noteId")]
    pub note_id: String,
    #[serde(rename = "text")]
    pub text: Option<String>,
    #[acp(skip_invalid_items)]
    #[serde(rename = "tags")]
    pub tags: Vec<u32>,
}

/// The wire patch of a [`Note`], declared by hand.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoteUpdate {
    /// The note.
    #[serde(rename = "noteId")]
    pub note_id: String,
    /// Its text.
    #[serde(rename = "text", skip_serializing_if = "Patch::is_keep")]
    pub text: Patch<String>,
    /// Its tags.
    #[serde(rename = "tags", skip_serializing_if = "Patch::is_keep")]
    pub tags: Patch<Vec<u32>>,
    /// What it does not name.
    #[serde(flatten)]
    pub additional_properties: acp_bindings::runtime::Extra,
}

#[test]
fn a_declared_patch_struct_gets_the_derived_operations() {
    let text = r#"{"noteId":"n1","text":"hi","tags":[1,"x"],"extra":1}"#;
    let p: NoteUpdate = serde_json::from_str(text).unwrap();
    assert_eq!((p.text.clone(), p.tags.clone()), (Patch::Set("hi".into()), Patch::Set(vec![1])));
    assert_eq!(serde_json::to_string(&p).unwrap(), r#"{"noteId":"n1","text":"hi","tags":[1],"extra":1}"#);
    let mut n = Note::from_patch(p);
    n.apply(serde_json::from_str(r#"{"noteId":"n1","text":null,"tags":7}"#).unwrap());
    assert_eq!((n.text.clone(), n.tags.clone()), (None, vec![1]));
    let newer = Note { text: Some("again".into()), ..n.clone() };
    assert_eq!(n.diff(&newer), NoteUpdate::new("n1").text("again"));
    assert!(NoteUpdate::new("n1").is_empty());
}

/// `#[acp(scalar)]` and `#[acp(any_json)]` read in place and mean what the
/// captured default reading means: another JSON type keeps, `null` clears.
#[test]
fn scalar_and_any_json_fields_read_in_place_with_the_same_rules() {
    #[derive(AcpPatch, Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
    struct Job {
        #[acp(key)]
        id: String,
        #[acp(scalar)]
        title: Option<String>,
        #[acp(scalar)]
        retries: u32,
        #[acp(any_json, boxed)]
        input: serde_json::Value,
        plain: Option<String>,
    }
    let p: JobPatch =
        serde_json::from_str(r#"{"id":"j","title":["x"],"retries":"3","input":{"a":[1]},"plain":7}"#).unwrap();
    assert_eq!((p.title.clone(), p.retries.clone(), p.plain.clone()), (Patch::Keep, Patch::Keep, Patch::Keep));
    assert_eq!(p.input, Patch::Set(Box::new(serde_json::json!({"a": [1]}))));
    let p: JobPatch = serde_json::from_str(r#"{"id":"j","title":null,"retries":null,"input":null}"#).unwrap();
    assert_eq!((p.title.clone(), p.retries.clone(), p.input.clone()), (Patch::Clear, Patch::Clear, Patch::Clear));
    let p: JobPatch = serde_json::from_str(r#"{"id":"j","title":"t","retries":2,"input":"s"}"#).unwrap();
    let job = Job::from_patch(p);
    assert_eq!((job.title.as_deref(), job.retries, job.input), (Some("t"), 2, serde_json::json!("s")));
    // Broken JSON inside a wrong-shaped value still fails the message.
    assert!(serde_json::from_str::<JobPatch>(r#"{"id":"j","title":["\ud800"]}"#).is_err());
}

// ---- a raw identifier as the struct's name ---------------------------------

/// `r#match` gets the patch `matchPatch` (the derive once built the name
/// from the text `r#matchPatch` and panicked).
#[allow(non_camel_case_types)]
mod raw_name {
    #[derive(acp_bindings::AcpPatch, Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    pub struct r#match {
        #[acp(key)]
        pub id: String,
        pub score: Option<u32>,
    }

    #[test]
    fn a_raw_struct_name_gets_a_patch_named_without_r_hash() {
        use acp_bindings::Patchable as _;
        let a = r#match { id: "m".into(), score: None };
        let b = r#match { id: "m".into(), score: Some(3) };
        let d: matchPatch = a.diff(&b);
        let mut c = a.clone();
        c.apply(d);
        assert_eq!(c, b);
    }
}

// ---- #[derive(AcpDeserialize)] on a user's own struct ----------------------

mod own_deserialize {
    use acp_bindings::runtime::{read, Extra, Nullable};
    use acp_bindings::AcpDeserialize;
    use serde::Serialize;
    use serde_json::json;

    /// A user's extension payload: renamed and aliased properties, a required
    /// one that may be `null`, an optional one with a rule, and the rest kept.
    #[derive(Debug, Clone, PartialEq, Serialize, AcpDeserialize)]
    #[acp(direct)]
    pub struct Review {
        #[serde(rename = "reviewId", alias = "id")]
        pub review_id: String,
        pub verdict: Option<String>,
        #[serde(default, skip_serializing_if = "Nullable::is_absent")]
        #[acp(read = read::LenientScalar)]
        pub score: Nullable<u32>,
        #[serde(default)]
        #[acp(read = read::Items)]
        pub notes: Vec<u32>,
        #[serde(flatten)]
        pub additional_properties: Extra,
    }

    /// A type parameter (named as the impls' own would be) and a field of
    /// another build: the derive sees the struct with its `cfg`s applied.
    #[derive(Debug, Clone, PartialEq, Serialize, AcpDeserialize)]
    pub struct Wrapped<A> {
        pub value: A,
        #[cfg(any())]
        pub elsewhere: String,
        #[serde(flatten)]
        pub additional_properties: Extra,
    }

    #[test]
    fn type_parameters_and_cfg_fields() {
        let w: Wrapped<u32> = serde_json::from_str(r#"{"value":3,"elsewhere":"x"}"#).unwrap();
        assert_eq!(w.value, 3);
        assert_eq!(w.additional_properties.get("elsewhere"), Some(&json!("x")), "not a field in this build");
        let w: Wrapped<Vec<String>> = serde_json::from_str(r#"{"value":["a"]}"#).unwrap();
        assert_eq!(w.value, ["a"]);
    }

    #[test]
    fn a_users_struct_reads_as_its_attributes_say_and_keeps_the_rest() {
        let text = r#"{"id":"r1","verdict":null,"score":"high","notes":[1,"x",3],"x-tool":{"v":1}}"#;
        for r in [serde_json::from_str::<Review>(text).unwrap(), acp_bindings::json::from_str::<Review>(text).unwrap()]
        {
            assert_eq!(r.review_id, "r1", "the alias reads");
            assert_eq!(r.verdict, None);
            assert_eq!(r.score, Nullable::Absent, "a lenient scalar of the wrong type is the default");
            assert_eq!(r.notes, [1, 3], "a bad item is dropped");
            assert_eq!(r.additional_properties.get("x-tool"), Some(&json!({"v": 1})));
        }
        let back = serde_json::to_value(serde_json::from_str::<Review>(text).unwrap()).unwrap();
        assert_eq!(back, json!({"reviewId": "r1", "verdict": null, "notes": [1, 3], "x-tool": {"v": 1}}));
        // A required property is required even when it may be `null`.
        let e = serde_json::from_str::<Review>(r#"{"reviewId":"r1"}"#).unwrap_err().to_string();
        assert!(e.contains("missing field `verdict`"), "{e}");
        assert!(acp_bindings::json::from_str::<Review>(r#"{"reviewId":"r1"}"#).is_err());
    }
}

//! The schema model of the vendored schemas, as `cargo xtask ir` prints it:
//! direction (who sends and who reads every definition), payload roles from
//! the envelopes, pointers and upserts, answered without re-reading JSON.

use std::path::PathBuf;

use xtask::model::{Def, MethodKind, Module, Peer, Side};

fn root() -> PathBuf {
    super::root()
}

fn module(rel: &str) -> Module {
    let root = root();
    let lock = xtask::lock::Lock::read(&root.join("schema")).expect("lock");
    xtask::load::module(&root, &root.join("schema"), rel, Some(&lock)).expect("vendored schema lowers")
}

fn def<'m>(m: &'m Module, name: &str) -> &'m Def {
    m.defs.iter().find(|d| d.name == name).unwrap_or_else(|| panic!("no {name} in {}", m.source))
}

fn peers(p: &[Peer]) -> String {
    p.iter().map(|p| format!("{p:?}").to_lowercase()).collect::<Vec<_>>().join(", ")
}

/// One line per definition: who sends it, who reads it, and through which
/// methods; upserts name their state struct.
#[test]
fn direction_of_every_vendored_definition() {
    for rel in ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"] {
        let m = module(rel);
        let mut table = String::new();
        for d in &m.defs {
            let dir = &d.direction;
            assert!(!dir.is_empty(), "{rel}: no method reaches {}", d.name);
            let methods: Vec<String> =
                dir.uses.iter().map(|u| format!("{} {:?}", u.method, u.kind).to_lowercase()).collect();
            let upsert = d.upsert.as_ref().map(|u| format!(" (upsert of {})", u.state)).unwrap_or_default();
            table.push_str(&format!(
                "{}{upsert}: {} -> {} via {}\n",
                d.name,
                peers(&dir.sent_by),
                peers(&dir.read_by),
                methods.join(", ")
            ));
        }
        insta::assert_snapshot!(format!("direction_{}", rel.replace(['/', '.'], "_")), table);
    }
}

/// The full `ir` output for two definitions the closing notes cite.
#[test]
fn ir_output_for_tool_call_update_and_stop_reason() {
    let root = root();
    let lock = xtask::lock::Lock::read(&root.join("schema")).expect("lock");
    let schema = root.join("schema");
    let up = xtask::load::UpsertFile::beside(&schema);
    let v2 = xtask::ir::render(&root, &schema, "v2/schema.json", Some(&lock), &up, &["ToolCallUpdate".into()]).unwrap();
    insta::assert_snapshot!("ir_v2_ToolCallUpdate", v2);
    let v1 = xtask::ir::render(&root, &schema, "v1/schema.json", Some(&lock), &up, &["StopReason".into()]).unwrap();
    insta::assert_snapshot!("ir_v1_StopReason", v1);
    let missing = xtask::ir::render(&root, &schema, "v2/schema.json", Some(&lock), &up, &["StopReason".into()]);
    assert_eq!(missing.unwrap_err().to_string(), "schema/v2/schema.json: #/$defs: no definition `StopReason`");
}

#[test]
fn the_model_knows_sides_roles_and_pointers() {
    let v2 = module("v2/schema.unstable.json");
    let tcu = def(&v2, "ToolCallUpdate");
    assert_eq!(
        (tcu.direction.sent_by.as_slice(), tcu.direction.read_by.as_slice()),
        (&[Peer::Agent][..], &[Peer::Client][..])
    );
    assert_eq!(tcu.upsert.as_ref().map(|u| u.state.as_str()), Some("ToolCall"));
    let xtask::model::Kind::Struct(s) = &tcu.kind else { panic!("struct") };
    let title = s.fields.iter().find(|f| f.name == "title").unwrap();
    assert_eq!(title.pointer, "/$defs/ToolCallUpdate/properties/title");
    assert_eq!(s.additional, xtask::model::Additional::Absent);
    // Travels both ways.
    let id = def(&v2, "RequestId");
    assert_eq!(id.direction.sent_by, [Peer::Agent, Peer::Client, Peer::Proxy, Peer::Conductor]);
    // Roles come from the envelopes; sides are typed.
    let cancel = def(&v2, "CancelRequestNotification");
    let m = cancel.method.as_ref().unwrap();
    assert_eq!((m.side, m.kind), (Side::Protocol, MethodKind::Notification));
    assert_eq!(cancel.direction.sent_by, [Peer::Agent, Peer::Client]);
    let proxy = def(&v2, "InitializeProxyRequest");
    assert_eq!(
        (proxy.direction.sent_by.as_slice(), proxy.direction.read_by.as_slice()),
        (&[Peer::Conductor][..], &[Peer::Proxy][..])
    );
    let prompt = def(&v2, "PromptResponse");
    assert_eq!(prompt.direction.sent_by, [Peer::Agent]);
    // Enum values and union arms carry their pointers.
    let xtask::model::Kind::Enum(e) = &def(&v2, "ToolKind").kind else { panic!("enum") };
    assert_eq!(e.variants[0].pointer, "/$defs/ToolKind/anyOf/0");
    assert!(e.fallback.as_ref().unwrap().pointer.starts_with("/$defs/ToolKind/anyOf/"));
    let xtask::model::Kind::Union(u) = &def(&v2, "SessionUpdate").kind else { panic!("union") };
    assert!(u.variants.iter().all(|v| v.pointer.starts_with("/$defs/SessionUpdate/")));
    assert!(u.catch_all.as_ref().unwrap().pointer.starts_with("/$defs/SessionUpdate/"));
}

/// An upsert's patch field carries its patch rule: a string scalar is read
/// in place, a list skips bad items (`#[acp(scalar)]`, `#[acp(skip_invalid_items)]`).
#[test]
fn the_plan_records_patch_read_rules() {
    use xtask::plan::{Gate, Plan, ReadRule};
    let (stable, unstable) = (module("v2/schema.json"), module("v2/schema.unstable.json"));
    let plan = Plan::version(&stable, &unstable);
    let fields = plan.fields("ToolCallUpdate", Gate::Always).unwrap();
    let read = |n: &str| fields.iter().find(|f| f.name == n).unwrap().read.clone();
    assert_eq!(read("title"), ReadRule::Patch { skip_invalid_items: false, scalar: true });
    assert_eq!(read("content"), ReadRule::Patch { skip_invalid_items: true, scalar: false });
    assert_eq!(read("toolCallId"), ReadRule::Plain, "the key is read as it is");
}

/// The Rust plan records the generator's decisions: gates from merging the
/// stable and unstable schemas, each field's representation and decoding
/// rule, and the boxed union arms.
#[test]
fn the_plan_records_gates_and_representations() {
    use xtask::plan::{Gate, Plan, ReadRule, Repr, StateRepr};
    let (stable, unstable) = (module("v2/schema.json"), module("v2/schema.unstable.json"));
    let plan = Plan::version(&stable, &unstable);
    let gates = |name: &str| -> Vec<Gate> { plan.items.iter().filter(|i| i.name == name).map(|i| i.gate).collect() };
    assert_eq!(gates("ToolCallUpdate"), [Gate::Always]);
    // Its unstable shape only adds arms: planned once, those arms gated,
    // and each build's own shape for typed dispatch and the converters.
    assert_eq!(gates("SessionUpdate"), [Gate::Always]);
    let update = plan.items.iter().find(|i| i.name == "SessionUpdate").unwrap();
    assert_eq!(update.stable_shape.map(|d| d.name.as_str()), Some("SessionUpdate"));
    assert!(update.unstable_only.contains(&"SessionUpdate.SubagentUpdate".to_owned()), "{:?}", update.unstable_only);
    assert!(!update.unstable_only.iter().any(|e| e == "SessionUpdate.ToolCallUpdate"));
    let shapes: Vec<Gate> = plan.gated().iter().filter(|(d, _)| d.name == "SessionUpdate").map(|(_, g)| *g).collect();
    assert_eq!(shapes, [Gate::Stable, Gate::Unstable]);
    assert_eq!(gates("SubagentUpdate"), [Gate::Unstable]);
    // An added optional field is gated the same way.
    let caps = plan.items.iter().find(|i| i.name == "SessionCapabilities").unwrap();
    assert_eq!(caps.gate, Gate::Always);
    assert!(caps.unstable_only.contains(&"SessionCapabilities.fork".to_owned()));
    // A field whose `default` changed (v1's `mcpCapabilities` default names
    // an unstable property): still one item, the stable default recorded for
    // its docs; a field whose type changed would keep two whole copies.
    let (s1, u1) = (module("v1/schema.json"), module("v1/schema.unstable.json"));
    let v1 = Plan::version(&s1, &u1);
    let v1_gates: Vec<Gate> = v1.items.iter().filter(|i| i.name == "AgentCapabilities").map(|i| i.gate).collect();
    assert_eq!(v1_gates, [Gate::Always]);
    let key = ("AgentCapabilities".to_owned(), "mcpCapabilities".to_owned());
    assert_eq!(v1.unstable.merged.stable_defaults[&key], Some(serde_json::json!({"http": false, "sse": false})));
    let mut changed = u1.clone();
    let xtask::model::Kind::Struct(st) =
        &mut changed.defs.iter_mut().find(|d| d.name == "AgentCapabilities").unwrap().kind
    else {
        panic!("struct")
    };
    st.fields.iter_mut().find(|f| f.name == "loadSession").unwrap().ty = xtask::model::Type::Char;
    let v1 = Plan::version(&s1, &changed);
    let v1_gates: Vec<Gate> = v1.items.iter().filter(|i| i.name == "AgentCapabilities").map(|i| i.gate).collect();
    assert_eq!(v1_gates, [Gate::Stable, Gate::Unstable]);
    // What the merge refuses, each on a copy of the v2 unstable schema.
    let twice = |name: &str, change: &dyn Fn(&mut xtask::model::Kind)| {
        let mut u = unstable.clone();
        change(&mut u.defs.iter_mut().find(|d| d.name == name).unwrap().kind);
        let plan = Plan::version(&stable, &u);
        let gates: Vec<Gate> = plan.items.iter().filter(|i| i.name == name).map(|i| i.gate).collect();
        assert_eq!(gates, [Gate::Stable, Gate::Unstable], "{name}");
    };
    let fields = |k: &mut xtask::model::Kind| match k {
        xtask::model::Kind::Struct(s) => s.fields.clone(),
        _ => panic!("struct"),
    };
    // An added required field (`new` would differ between the builds).
    twice("SessionCapabilities", &|k| {
        let mut f = fields(k).into_iter().find(|f| f.name == "fork").unwrap();
        f.required = true;
        if let xtask::model::Kind::Struct(s) = k {
            s.fields.retain(|g| g.name != "fork");
            s.fields.push(f);
        }
    });
    fn arms(k: &mut xtask::model::Kind) -> &mut Vec<xtask::model::Variant> {
        match k {
            xtask::model::Kind::Union(u) => &mut u.variants,
            _ => panic!("union"),
        }
    }
    // A removed arm, an added arm without a discriminator in a tagged union,
    // an added arm whose payload type another arm has.
    twice("SessionUpdate", &|k| arms(k).retain(|v| v.rust_name != "UserMessageChunk"));
    twice("SessionUpdate", &|k| arms(k).iter_mut().find(|v| v.rust_name == "PlanRemoved").unwrap().tag = None);
    twice("SessionUpdate", &|k| {
        let payload = arms(k).iter().find(|v| v.rust_name == "UserMessageChunk").unwrap().payload.clone();
        arms(k).iter_mut().find(|v| v.rust_name == "PlanRemoved").unwrap().payload = payload;
    });
    let fields = plan.fields("ToolCallUpdate", Gate::Always).unwrap();
    let field = |n: &str| fields.iter().find(|f| f.name == n).unwrap();
    assert_eq!((field("toolCallId").repr, field("toolCallId").state.clone()), (Repr::Value, Some(StateRepr::Key)));
    assert_eq!(field("rawInput").state, Some(StateRepr::AnyValue));
    assert_eq!(field("kind").state, Some(StateRepr::Reset("other".to_owned())));
    assert_eq!(field("title").repr, Repr::Patch);
    // Optional objects are boxed in the patch; any JSON is held as its text
    // (`RawJson`, one block: no box), and the key is as it is.
    assert!(field("capabilities").boxed_in_patch && !field("rawInput").boxed_in_patch);
    assert!(!field("toolCallId").boxed_in_patch && !field("title").boxed_in_patch);
    let notification = plan.fields("UpdateSessionNotification", Gate::Always).unwrap();
    assert_eq!(notification.iter().find(|f| f.name == "update").unwrap().repr, Repr::Value);
    // A field's decoding rule: `minItems` checked after the list's own rule.
    let prompt = plan.fields("PromptRequest", Gate::Always).unwrap().iter().find(|f| f.name == "prompt").unwrap();
    assert!(
        matches!(&prompt.read, ReadRule::ItemCount { min: 1, max: None, lenient: false, inner, .. } if **inner == ReadRule::Plain),
        "{:?}",
        prompt.read
    );
    // Union arms boxed by the policy (`schema/rust.json`), per build.
    let arms = |name: &str, gate: Gate| {
        plan.items.iter().find(|i| i.name == name && i.gate == gate).unwrap().boxed_arms.clone()
    };
    assert_eq!(arms("SessionUpdate", Gate::Always), ["SubagentUpdate"]);
    assert!(plan.stable.boxed_arms.iter().all(|(u, _)| u != "SessionUpdate"));
}

/// Every struct field the emitter and the converter generator meet, nested
/// definitions included, has its decisions in the plan (they look them up;
/// a missing one would panic), in each build and for each item's gate.
#[test]
fn every_struct_field_of_every_build_is_planned() {
    use xtask::plan::Plan;
    for v in ["v1", "v2"] {
        let (stable, unstable) = (module(&format!("{v}/schema.json")), module(&format!("{v}/schema.unstable.json")));
        let plan = Plan::version(&stable, &unstable);
        let struct_fields = |d: &xtask::model::Def| match &d.kind {
            xtask::model::Kind::Struct(s) => s.fields.clone(),
            _ => Vec::new(),
        };
        for unstable_build in [false, true] {
            let xtask::plan::Build { defs, fields, .. } = plan.build(unstable_build);
            let all: Vec<_> = defs.iter().flat_map(|d| d.walk()).flat_map(struct_fields).collect();
            assert!(all.len() > 100, "{v}: {} fields", all.len());
            for f in &all {
                assert_eq!(fields.get(f).name, f.name, "{v} {}", f.pointer);
            }
        }
        for item in &plan.items {
            for f in item.def.walk().into_iter().flat_map(struct_fields) {
                assert_eq!(plan.decisions_of(item).fields.get(&f).rust_name, f.rust_name, "{v} {}", f.pointer);
            }
        }
        // Each shape of an item rendered once, with the decisions of its build.
        for (def, gate) in plan.gated() {
            for f in def.walk().into_iter().flat_map(struct_fields) {
                assert_eq!(plan.decisions(gate).fields.get(&f).rust_name, f.rust_name, "{v} {gate:?} {}", f.pointer);
            }
        }
    }
}

/// The model's references are complete: for every definition of the four
/// vendored schemas, the `$ref`s anywhere in its JSON are exactly the
/// definitions the model says it (or something inline in it) names.
#[test]
fn model_references_match_every_ref_in_the_schema() {
    fn json_refs(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/$defs/")) {
                    out.insert(r.to_owned());
                }
                m.values().for_each(|x| json_refs(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| json_refs(x, out)),
            _ => {}
        }
    }
    for rel in ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"] {
        let m = module(rel);
        let raw: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root().join("schema").join(rel)).unwrap()).unwrap();
        let top: std::collections::BTreeSet<&str> = m.defs.iter().map(|d| d.name.as_str()).collect();
        for d in &m.defs {
            let mut want = std::collections::BTreeSet::new();
            json_refs(&raw["$defs"][&d.name], &mut want);
            let got: std::collections::BTreeSet<String> = d
                .walk()
                .into_iter()
                .flat_map(|i| i.refs.iter())
                .filter(|r| top.contains(r.as_str()))
                .cloned()
                .collect();
            assert_eq!(got, want, "{rel}: references of {}", d.name);
        }
    }
}

fn strip_pointers(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove("pointer");
            m.values_mut().for_each(strip_pointers);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_pointers),
        _ => {}
    }
}

/// The model, as JSON, without the pointers (a rendered fragment places
/// things at other pointers: a nullable property's `anyOf`, an arm's
/// properties merged with its discriminator).
fn model_json(m: &Module) -> serde_json::Value {
    let mut v = serde_json::to_value(&m.defs).expect("the model serializes");
    strip_pointers(&mut v);
    v
}

/// The schemars fragments are rendered from the model, and nothing the model
/// knows is lost: a document made of the fragments of every definition lowers
/// back to the same model (names, docs, sides, roles, direction, fields,
/// arms, catch-alls, bounds, formats, `x-` flags), for the four vendored
/// schemas and every fixture.
#[test]
fn schemars_fragments_lower_back_to_the_same_model() {
    let root = root();
    let mut files: Vec<PathBuf> =
        ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"]
            .iter()
            .map(|r| root.join("schema").join(r))
            .collect();
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(root.join("schema/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    fixtures.sort();
    files.extend(fixtures);
    for file in files {
        let raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let m = xtask::lower::lower(&file, &raw).expect("lowers");
        let doc = xtask::emit::schema::document(&m);
        let again = xtask::lower::lower(&file, &doc)
            .unwrap_or_else(|e| panic!("{}: the rendered document does not lower: {e}", file.display()));
        let (want, got) = (model_json(&m), model_json(&again));
        for (w, g) in want.as_array().unwrap().iter().zip(got.as_array().unwrap()) {
            assert_eq!(g, w, "{}: {} changed through its rendered fragment", file.display(), w["name"]);
        }
        assert_eq!(got, want, "{}", file.display());
    }
}

/// Every description, title and default of the file is in the rendered
/// fragment of its definition, except around a one-arm `anyOf`, which the
/// model reads as its arm (the envelopes' `ProxyNotification` params: a group
/// of one payload): the group's description and the arm's title are not kept.
#[test]
fn schemars_fragments_keep_every_description_title_and_default() {
    fn collect(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                let one_arm = ["anyOf", "oneOf"]
                    .iter()
                    .any(|k| m.get(*k).and_then(|a| a.as_array()).is_some_and(|a| a.len() == 1));
                for (k, x) in m {
                    if matches!(k.as_str(), "description" | "title" | "default") && !x.is_object() && !one_arm {
                        out.insert(format!("{k}: {x}"));
                    }
                    match x.as_array() {
                        Some(arms) if one_arm && matches!(k.as_str(), "anyOf" | "oneOf") => {
                            // The arm's own title and description go with the group.
                            for (kk, xx) in arms[0].as_object().into_iter().flatten() {
                                if !matches!(kk.as_str(), "description" | "title") {
                                    collect(xx, out);
                                }
                            }
                        }
                        _ => collect(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            _ => {}
        }
    }
    let mut lost = Vec::new();
    for rel in ["v1/schema.unstable.json", "v2/schema.unstable.json"] {
        let m = module(rel);
        let raw: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root().join("schema").join(rel)).unwrap()).unwrap();
        for d in &m.defs {
            let (mut want, mut got) = Default::default();
            collect(&raw["$defs"][&d.name], &mut want);
            collect(&xtask::emit::schema::render(d), &mut got);
            lost.extend(want.difference(&got).map(|s| format!("{rel} {}: {s:.100}", d.name)));
        }
    }
    assert!(lost.is_empty(), "the fragments lost {lost:#?}");
}

/// `x-side: both` (0.x and 1.0 schemas, `MessageMcpRequest`) means either side
/// handles the method: it reads as `protocol`.
#[test]
fn x_side_both_reads_as_protocol() {
    assert_eq!(Side::parse("both"), Some(Side::Protocol));
    assert_eq!(Side::parse("protocol"), Some(Side::Protocol));
    assert_eq!(Side::parse("editor"), None);
}

/// Every JSON pointer the model records resolves in the file it was read
/// from: fixtures (an object `not` included, with the property it fixes
/// declared or not) and the vendored schemas.
#[test]
fn every_pointer_of_the_model_resolves_in_its_file() {
    fn pointers(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    match (k.as_str(), x) {
                        ("pointer", serde_json::Value::String(p)) => out.push(p.clone()),
                        _ => pointers(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| pointers(x, out)),
            _ => {}
        }
    }
    let root = root();
    let undeclared = serde_json::json!({"$defs": {"Agentish": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "not": {"required": ["type"], "properties": {"type": {"not": {"const": "agent"}}}}
    }}});
    let mut files: Vec<(String, serde_json::Value)> = vec![("undeclared.json".into(), undeclared)];
    let mut paths = xtask::generate::fixture_files(&root.join("schema/fixtures")).unwrap();
    paths.extend(
        ["v1/schema.json", "v1/schema.unstable.json", "v2/schema.json", "v2/schema.unstable.json"]
            .map(|r| root.join("schema").join(r)),
    );
    for p in paths {
        files.push((p.display().to_string(), serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()));
    }
    for (name, json) in &files {
        let m = xtask::lower::lower(std::path::Path::new(name), json).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut found = Vec::new();
        pointers(&serde_json::to_value(&m).unwrap(), &mut found);
        assert!(!found.is_empty(), "{name}");
        for p in found {
            assert!(json.pointer(&p).is_some(), "{name}: the model's pointer {p} is not in the file");
        }
        if name == "undeclared.json" {
            let text = serde_json::to_string(&m).unwrap();
            assert!(text.contains("\"/$defs/Agentish/not/properties/type/not/const\""), "{text}");
        }
    }
}

/// A `discriminator` whose `propertyName` no arm fixes with a `const` is a
/// hint: the union is lowered by its arms and the module warns, naming the
/// file, the keyword's pointer and the property, in strict and lenient mode
/// alike. One that disagrees with the property the arms fix is still an error.
#[test]
fn a_discriminator_no_arm_fixes_is_ignored_with_a_warning() {
    use xtask::lower::{lower_in, Mode};
    let file = std::path::Path::new("schema/fixtures/union_hints.json");
    let raw: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(root().join(file)).unwrap()).unwrap();
    let warning = "schema/fixtures/union_hints.json: #/$defs/McpServer/discriminator: `discriminator` (`propertyName` \
                   `type`) names no property the arms fix with a `const`: ignored, the union is told apart by its arms";
    for mode in [Mode::Strict, Mode::Lenient] {
        let m = lower_in(file, &raw, None, mode).expect("the fixture lowers");
        assert_eq!(m.warnings, vec![warning.to_owned()], "{mode:?}");
        let xtask::model::Kind::Union(u) = &def(&m, "McpServer").kind else { panic!("a union") };
        assert!(u.tag.is_none() && u.catch_all.is_none() && u.variants.len() == 2, "{u:?}");
    }
    // Lowering the definitions again (lenient mode's second round, after a
    // check across definitions refused one) warns once.
    let mut twice = raw.clone();
    twice["$defs"]["LoopA"] = serde_json::json!({"allOf": [{"$ref": "#/$defs/LoopB"}]});
    twice["$defs"]["LoopB"] = serde_json::json!({"allOf": [{"$ref": "#/$defs/LoopA"}]});
    let m = lower_in(file, &twice, None, Mode::Lenient).unwrap();
    assert!(m.defs.iter().any(|d| matches!(d.kind, xtask::model::Kind::Opaque(_))), "a second round");
    assert_eq!(m.warnings.iter().filter(|w| w.contains("`discriminator`")).count(), 1, "{:?}", m.warnings);
    // A definition kept opaque warns of its problem, not of the hint.
    let mut opaque = raw.clone();
    opaque["$defs"]["McpServer"]["oneOf"][1]["patternProperties"] = serde_json::json!({});
    let m = lower_in(file, &opaque, None, Mode::Lenient).unwrap();
    assert!(m.warnings.iter().all(|w| !w.contains("`discriminator`")), "{:?}", m.warnings);

    let disagrees = serde_json::json!({"$defs": {"Outcome": {
        "oneOf": [{"type": "object", "properties": {"outcome": {"const": "cancelled"}}, "required": ["outcome"]}],
        "discriminator": {"propertyName": "kind"}
    }}});
    let e = xtask::lower::lower(std::path::Path::new("d.json"), &disagrees).unwrap_err().to_string();
    assert_eq!(
        e,
        "d.json: #/$defs/Outcome/oneOf: `discriminator` disagrees with the arms, which discriminate on `outcome`"
    );
    let nameless = serde_json::json!({"$defs": {"U": {
        "oneOf": [{"title": "a", "type": "string"}, {"title": "b", "type": "integer"}], "discriminator": {}
    }}});
    let e = xtask::lower::lower(std::path::Path::new("d.json"), &nameless).unwrap_err().to_string();
    assert_eq!(e, "d.json: #/$defs/U/discriminator: `discriminator` must be an object with a string `propertyName`");
}

/// The guard of an untagged catch-all compares schemas without their
/// annotations, in schema positions only: a property named `title` is kept,
/// and so are `const` values.
#[test]
fn guards_compare_schemas_without_annotations() {
    use serde_json::json;
    use xtask::lower::without_annotations;
    let written = json!({
        "title": "T", "description": "d", "$comment": "c", "examples": [1], "default": {}, "deprecated": true,
        "readOnly": true, "writeOnly": false, "type": "object",
        "properties": {"title": {"type": "string", "description": "kept name"}, "k": {"const": {"title": "x"}}},
        "items": [{"title": "i", "type": "string"}],
        "anyOf": [{"description": "a", "required": ["title"]}],
        "additionalProperties": {"examples": ["e"], "type": "number"}
    });
    let bare = json!({
        "type": "object",
        "properties": {"title": {"type": "string"}, "k": {"const": {"title": "x"}}},
        "items": [{"type": "string"}],
        "anyOf": [{"required": ["title"]}],
        "additionalProperties": {"type": "number"}
    });
    assert_eq!(without_annotations(&written), bare);
    // A guard copy that differs in a property named `title` is another schema.
    let arm = json!({"title": "A", "type": "object", "properties": {"title": {"type": "string"}}});
    let guard = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let schema =
        json!({"$defs": {"U": {"anyOf": [arm, {"title": "other", "type": "object", "not": {"anyOf": [guard]}}]}}});
    let e = xtask::lower::lower(std::path::Path::new("g.json"), &schema).unwrap_err().to_string();
    assert!(
        e.starts_with("g.json: #/$defs/U/anyOf/1/not/anyOf/0: a `not` the generator cannot interpret: it excludes an inline schema equal to none of the union's other arms (annotations aside:"),
        "{e}"
    );
}

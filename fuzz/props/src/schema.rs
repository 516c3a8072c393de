//! Validation of a stream of JSON-RPC messages against a version's vendored
//! stable schema: params and results against their method's definition, a
//! response paired with an open request of its id by the definition it fits.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Value};

/// A version's stable schema: the document, the payload definition of every
/// (method, role), and validators compiled on first use.
pub struct Schema {
    doc: Value,
    payloads: HashMap<(String, &'static str), String>,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

impl Schema {
    fn load(version: &str) -> Schema {
        let root = root();
        let dir = root.join("schema");
        let rel = format!("{version}/schema.json");
        let text = std::fs::read_to_string(dir.join(&rel)).expect("the vendored schema");
        let doc: Value = serde_json::from_str(&text).expect("the vendored schema is JSON");
        let module = xtask::load::module(&root, &dir, &rel, None).expect("the vendored schema lowers");
        let mut payloads = HashMap::new();
        for d in &module.defs {
            if let Some(m) = &d.method {
                let role = match m.kind {
                    xtask::model::MethodKind::Request => "request",
                    xtask::model::MethodKind::Response => "response",
                    xtask::model::MethodKind::Notification => "notification",
                };
                payloads.insert((m.name.clone(), role), d.name.clone());
            }
        }
        Schema { doc, payloads, validators: Mutex::default() }
    }

    /// The schema of `v1` or `v2`, loaded once.
    pub fn of(version: &str) -> &'static Schema {
        static V1: OnceLock<Schema> = OnceLock::new();
        static V2: OnceLock<Schema> = OnceLock::new();
        match version {
            "v1" => V1.get_or_init(|| Schema::load("v1")),
            _ => V2.get_or_init(|| Schema::load("v2")),
        }
    }

    /// The errors of `value` as the definition `name`, one line each.
    pub fn check(&self, name: &str, value: &Value) -> Vec<String> {
        let validator = {
            let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
            cache
                .entry(name.to_owned())
                .or_insert_with(|| {
                    let mut doc = json!({"$ref": format!("#/$defs/{name}"), "$defs": self.doc["$defs"]});
                    if let Some(s) = self.doc.get("$schema") {
                        doc["$schema"] = s.clone();
                    }
                    Arc::new(jsonschema::validator_for(&doc).expect("a definition of the vendored schema compiles"))
                })
                .clone()
        };
        validator.iter_errors(value).map(|e| format!("{name} at {}: {e}", e.instance_path)).collect()
    }
}

/// Validates the messages of one direction-less stream: every request opens
/// its id, a response closes the open request of its id that its result
/// fits (both peers may have the same id open).
pub struct Stream {
    version: &'static str,
    open: HashMap<String, Vec<String>>,
}

impl Stream {
    /// A stream of `v1` or `v2` messages.
    pub fn new(version: &'static str) -> Stream {
        Stream { version, open: HashMap::new() }
    }

    /// The problems of one message (empty when it is valid).
    pub fn message(&mut self, m: &Value) -> Vec<String> {
        let s = Schema::of(self.version);
        let mut errors = Vec::new();
        let check = |role: &'static str, method: &str, payload: Option<&Value>, errors: &mut Vec<String>| {
            let Some(def) = s.payloads.get(&(method.to_owned(), role)) else {
                // Extension methods (`_...`) carry any payload.
                if !method.starts_with('_') {
                    errors.push(format!("no {role} definition for `{method}`"));
                }
                return;
            };
            let empty = json!({});
            errors.extend(s.check(def, payload.unwrap_or(&empty)));
        };
        match (m.get("method").and_then(Value::as_str), m.get("id")) {
            (Some(method), Some(id)) => {
                self.open.entry(id.to_string()).or_default().push(method.to_owned());
                check("request", method, m.get("params"), &mut errors);
            }
            (Some(method), None) => check("notification", method, m.get("params"), &mut errors),
            (None, Some(id)) => {
                let open = self.open.entry(id.to_string()).or_default();
                if open.is_empty() {
                    errors.push(format!("a response to {id}, which no request opened"));
                    return errors;
                }
                let mut first = None;
                for (i, method) in open.clone().iter().enumerate() {
                    let mut errs = Vec::new();
                    match m.get("error") {
                        Some(e) => errs.extend(s.check("Error", e)),
                        None => check("response", method, m.get("result"), &mut errs),
                    }
                    if errs.is_empty() {
                        open.remove(i);
                        return errors;
                    }
                    first.get_or_insert(errs);
                }
                errors.extend(first.unwrap_or_default());
            }
            _ => errors.push("not a message".to_owned()),
        }
        errors
    }
}

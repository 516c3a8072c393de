//! The reviewed upsert configuration (`schema/upserts.json`): which v2
//! definitions are upserts, their key and each field's rule. It is checked
//! against the IR: a configured definition or property that does not exist is
//! an error; an upsert's nullable optional property that is not classified,
//! and a description that speaks of patches in an unconfigured definition, are
//! warnings.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::{Kind, Module, Rule, Upsert};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    v2: BTreeMap<String, Upsert>,
    #[serde(default)]
    reducer: Reducers,
}

/// The `reducer` section: each version's session reducer.
#[derive(Debug, Default, Deserialize)]
struct Reducers {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    #[serde(flatten)]
    versions: BTreeMap<String, ReducerConfig>,
}

/// One version's session reducer as the configuration states it: the
/// collections it holds and the rule of each arm of the update union. The
/// plan checks it against the schema ([`crate::plan::reducer`]); the Rust
/// and TypeScript renderers write it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReducerConfig {
    /// The reducer's item name (`SessionReducer`).
    pub name: String,
    /// Its description.
    pub doc: String,
    /// The union of the updates it folds, by schema name (`SessionUpdate`).
    pub union: String,
    /// Its fields, in the order its JSON writes them.
    pub collections: Vec<CollectionConfig>,
    /// The rule of each arm of the union, by tag; other arms change nothing.
    pub updates: BTreeMap<String, UpdateConfig>,
}

/// One field of the reducer.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct CollectionConfig {
    /// Its JSON name (`toolCalls`); the Rust field is its snake case.
    pub name: String,
    /// Its description.
    pub doc: String,
    /// The string property naming each value, for `whole`.
    #[serde(default)]
    pub key: Option<String>,
    /// What it holds.
    #[serde(flatten)]
    pub holds: Holds,
}

/// What a collection holds.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Holds {
    /// The states of one upsert (by wire definition name), by its key.
    Upsert(String),
    /// The states of several upserts that share a key, each under its tag.
    Kinds(KindsConfig),
    /// Values of a definition replaced whole, by their string property `key`.
    Whole(String),
    /// The state of one keyless upsert.
    One(String),
}

/// The enum of a `kinds` collection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindsConfig {
    /// The enum's item name (`StoredMessage`).
    #[serde(rename = "enum")]
    pub name: String,
    /// Its description.
    pub doc: String,
    /// Each kind by its tag (what the JSON writes as `kind`).
    pub of: BTreeMap<String, KindConfig>,
}

/// One kind of a `kinds` collection.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindConfig {
    /// The enum variant.
    pub variant: String,
    /// The upsert whose state it holds.
    pub upsert: String,
    /// The variant's description.
    pub doc: String,
}

/// The rule of one arm of the update union.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum UpdateConfig {
    /// The payload (an upsert) is applied to `into` (of the kind `kind`).
    Upsert {
        /// The collection.
        into: String,
        /// The kind, in a `kinds` collection.
        #[serde(default)]
        kind: Option<String>,
    },
    /// The payload's `from` is pushed onto the list `to` of its entity.
    Append {
        /// The collection.
        into: String,
        /// The kind an entity it creates has, in a `kinds` collection.
        #[serde(default)]
        kind: Option<String>,
        /// The payload's property appended.
        from: String,
        /// The state's list property appended to.
        to: String,
        /// Whether an unknown key creates the entity from the key alone.
        create: bool,
    },
    /// Base64 text appended at `to` (`object.property`).
    AppendBase64 {
        /// The collection.
        into: String,
        /// The payload's base64 property.
        from: String,
        /// The state's optional object property and its base64 property.
        to: String,
        /// Whether an unknown key creates the entity from the key alone.
        create: bool,
    },
    /// The payload's `from` is stored whole under its key.
    Put {
        /// The collection (a `whole` one).
        into: String,
        /// The payload's property stored.
        from: String,
    },
    /// The entity the payload's `from` names is removed.
    Remove {
        /// The collection (a `whole` one).
        into: String,
        /// The payload's property holding the key.
        from: String,
    },
}

/// The configured upserts of one protocol version, by wire definition name.
pub type Config = BTreeMap<String, Upsert>;

/// A configuration to attach while lowering.
#[derive(Debug, Clone, Copy)]
pub struct Applied<'a> {
    /// The upserts of the module's protocol version.
    pub config: &'a Config,
    /// The configuration file, as errors and warnings name it.
    pub label: &'a Path,
    /// Whether an entry that does not fit is an error (see [`apply`]).
    pub strict: bool,
}

/// Reads the configuration; returns the upserts of each protocol version
/// (only `v2` has any).
pub fn read(path: &Path, label: &Path) -> Result<BTreeMap<String, Config>> {
    let file = read_file(path, label)?;
    Ok([("v2".to_owned(), file.v2)].into_iter().collect())
}

/// The whole file, parsed; an error names the file and the line.
fn read_file(path: &Path, label: &Path) -> Result<File> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read { file: label.to_path_buf(), source })?;
    serde_json::from_str(&text).map_err(|e| Error::Json {
        file: label.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// Reads the configuration's session reducers, by protocol version (none
/// when the file is absent).
pub fn read_reducers(path: &Path, label: &Path) -> Result<BTreeMap<String, ReducerConfig>> {
    if !path.is_file() {
        return Ok(BTreeMap::new());
    }
    Ok(read_file(path, label)?.reducer.versions)
}

/// Checks the configuration against a module and attaches it to the
/// configured definitions. Returns the warnings.
///
/// `strict` (the vendored schema): an entry that does not fit the schema is
/// an error. Otherwise (a preview of another schema revision) it is a warning
/// naming the entry, and the entry is left out: the definition is generated as
/// a plain struct and no state struct is made for it.
pub fn apply(module: &mut Module, config: &Config, label: &Path, strict: bool) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    let names: Vec<String> = module.defs.iter().map(|d| d.name.clone()).collect();
    let enums: BTreeMap<String, Vec<Value>> = module
        .defs
        .iter()
        .filter_map(|d| match &d.kind {
            Kind::Enum(e) => Some((d.name.clone(), e.variants.iter().map(|v| v.value.to_json()).collect())),
            _ => None,
        })
        .collect();
    let source = module.source.clone();
    for (name, upsert) in config {
        let Some(def) = module.defs.iter_mut().find(|d| &d.name == name) else {
            // An upsert of the unstable schema is absent from the stable one
            // (and an older revision may not have it at all).
            continue;
        };
        // A preview keeps what fits: a rule for a property the revision lacks,
        // or one that does not fit its property, is dropped with a warning.
        let mut upsert = upsert.clone();
        if !strict {
            if let Kind::Struct(s) = &def.kind {
                upsert.fields.retain(|prop, rule| match field_problem(s, name, prop, rule, &enums) {
                    None => true,
                    Some((pointer, message)) => {
                        warnings.push(format!("{}: {pointer}: {message}: rule left out for {source}", label.display()));
                        false
                    }
                });
            }
        }
        match check(def, name, &upsert, &names, &enums, &mut warnings) {
            Ok(()) => def.upsert = Some(upsert),
            Err((pointer, message)) if strict => {
                return Err(Error::Schema { file: label.to_path_buf(), pointer, message });
            }
            Err((pointer, message)) => warnings
                .push(format!("{}: {pointer}: {message}: upsert `{name}` left out for {source}", label.display())),
        }
    }
    for d in &module.defs {
        if crate::model::text::speaks_of_patches(d.docs.as_deref())
            && d.upsert.is_none()
            && matches!(d.kind, Kind::Struct(_))
        {
            warnings.push(format!(
                "`{}`: its description speaks of patch semantics but it is not in schema/upserts.json",
                d.name
            ));
        }
    }
    Ok(warnings)
}

/// Checks one entry against its definition: `Err((pointer in the
/// configuration, message))` when it does not fit.
fn check(
    def: &crate::model::Def,
    name: &str,
    upsert: &Upsert,
    names: &[String],
    enums: &BTreeMap<String, Vec<Value>>,
    warnings: &mut Vec<String>,
) -> std::result::Result<(), (String, String)> {
    if syn::parse_str::<syn::Ident>(&upsert.state).is_err()
        || !upsert.state.starts_with(|c: char| c.is_ascii_uppercase())
    {
        return Err((
            format!("#/v2/{name}/state"),
            format!(
                "state `{}` is not a Rust type name (an identifier starting with an uppercase letter)",
                upsert.state
            ),
        ));
    }
    if names.contains(&upsert.state) {
        return Err((
            format!("#/v2/{name}/state"),
            format!("state `{}` collides with a definition of that name", upsert.state),
        ));
    }
    let Kind::Struct(s) = &def.kind else {
        return Err((format!("#/v2/{name}"), format!("`{name}` is not an object definition")));
    };
    for (prop, rule) in &upsert.fields {
        if let Some(problem) = field_problem(s, name, prop, rule, enums) {
            return Err(problem);
        }
    }
    if let Some(key) = &upsert.key {
        if !s.fields.iter().any(|f| &f.name == key && f.required) {
            return Err((format!("#/v2/{name}/key"), format!("`{name}` has no required property `{key}`")));
        }
    }
    for f in &s.fields {
        let classified = upsert.fields.contains_key(&f.name) || upsert.key.as_ref() == Some(&f.name);
        if !classified && f.nullable && !f.required {
            warnings.push(format!(
                "upsert `{name}`: nullable optional property `{}` has no rule in schema/upserts.json",
                f.name
            ));
        }
        if !classified && f.required {
            return Err((
                format!("#/v2/{name}/fields"),
                format!("required property `{}` of `{name}` needs a rule", f.name),
            ));
        }
    }
    Ok(())
}

/// Why one property rule does not fit its definition, if it does not.
fn field_problem(
    s: &crate::model::Struct,
    name: &str,
    prop: &str,
    rule: &Rule,
    enums: &BTreeMap<String, Vec<Value>>,
) -> Option<(String, String)> {
    let pointer = format!("#/v2/{name}/fields/{prop}");
    let Some(f) = s.fields.iter().find(|f| f.name == prop) else {
        return Some((pointer, format!("`{name}` has no property `{prop}`")));
    };
    if let Rule::Reset { reset } = rule {
        if !reset.is_string() {
            return Some((
                pointer,
                format!("`reset` {reset} is not a string: a reset value is a string enum's value, as on the wire"),
            ));
        }
        let known = match &f.ty {
            crate::model::Type::Ref(r) => enums.get(r).is_some_and(|vals| vals.contains(reset)),
            _ => false,
        };
        if !known {
            return Some((pointer, format!("`reset` {reset} is not a known value of the enum of `{name}.{prop}`")));
        }
    }
    let ok = match rule {
        Rule::Required => f.required,
        Rule::List => !f.required && matches!(f.ty, crate::model::Type::Array { .. }),
        _ => !f.required,
    };
    (!ok).then(|| (pointer, format!("rule {rule:?} does not fit `{name}.{prop}`")))
}

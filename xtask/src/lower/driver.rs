//! The lowering of a whole file, strict or lenient: every definition, then
//! the checks across definitions; in lenient mode, what cannot be lowered is
//! kept as an opaque definition and the rest is lowered again.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::{escape, graph, type_ident, Lowerer};
use crate::error::{Error, Result};
use crate::model::*;

/// How a file is lowered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Every problem is an error (code generation from the vendored schema).
    #[default]
    Strict,
    /// A definition that cannot be lowered, or that a check across
    /// definitions refuses, is kept as [`Kind::Opaque`] (its schema and every
    /// problem in it) with a warning; an unknown top-level keyword is a
    /// warning. The schema diff and `ir` lower this way, so that a schema
    /// gaining a construct the generator has not met can still be reviewed;
    /// `codegen --lenient` previews make such definitions `serde_json::Value`.
    Lenient,
}

/// Lowers a whole schema file without upsert configuration.
pub fn lower(file: &Path, root: &Value) -> Result<Module> {
    lower_with(file, root, None)
}

/// Lowers a whole schema file, attaching the upsert configuration (checked
/// against the definitions; `label` names the configuration file in errors).
pub fn lower_with(file: &Path, root: &Value, upserts: Option<crate::upserts::Applied<'_>>) -> Result<Module> {
    lower_in(file, root, upserts, Mode::Strict)
}

/// [`lower_with`] in the given [`Mode`].
pub fn lower_in(file: &Path, root: &Value, upserts: Option<crate::upserts::Applied<'_>>, mode: Mode) -> Result<Module> {
    let mut l =
        Lowerer { file: file.to_path_buf(), defs: &Map::new(), defs_key: "$defs", warnings: Default::default() };
    let root = l.object(root, "")?;
    let mut warnings = Vec::new();
    for key in root.keys() {
        if !matches!(key.as_str(), "$schema" | "$defs" | "definitions" | "title" | "description" | "anyOf") {
            let e = l.err("", format!("unsupported top-level keyword `{key}`"));
            match mode {
                Mode::Strict => return Err(e),
                Mode::Lenient => warnings.push(format!("{e} (ignored)")),
            }
        }
    }
    // Draft-07 and earlier (schemars 0.8, for one) keep the definitions in
    // `definitions`; the file's `$ref`s and this module's pointers follow it.
    l.defs_key = match (root.contains_key("$defs"), root.contains_key("definitions")) {
        (true, true) => {
            let e = l.err("", "both `$defs` and `definitions`: keep the definitions in one");
            match mode {
                Mode::Strict => return Err(e),
                Mode::Lenient => warnings.push(format!("{e} (`definitions` ignored)")),
            }
            "$defs"
        }
        (false, true) => "definitions",
        _ => "$defs",
    };
    let Some(defs) = root.get(l.defs_key) else {
        return Err(l.err("", "no `$defs`: nothing to generate"));
    };
    let defs = l.object(defs, &format!("/{}", l.defs_key))?;
    l.defs = defs;
    // Definitions kept opaque (lenient): name -> why.
    let mut opaque: BTreeMap<String, Vec<String>> = BTreeMap::new();
    loop {
        match l.module(upserts, mode, &mut opaque) {
            Ok(mut module) => {
                for why in opaque.values() {
                    warnings.push(format!("{}: not understood, kept as any JSON: {}", file.display(), why.join("; ")));
                }
                module.warnings.extend(warnings);
                return Ok(module);
            }
            Err(e) if mode == Mode::Lenient => {
                // A check across definitions refused some: those become
                // opaque and the rest is lowered again (each round makes at
                // least one more definition opaque, or gives up).
                let before = opaque.len();
                for p in e.each() {
                    let Error::Schema { pointer, .. } = p else { return Err(e) };
                    let Some(name) = defs.keys().find(|n| within(pointer, l.defs_key, n)) else { return Err(e) };
                    opaque.entry(name.clone()).or_default().push(problem(p));
                }
                if opaque.len() == before {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// One problem of an opaque definition: its pointer and message (the file
/// is the module's).
fn problem(p: &Error) -> String {
    match p {
        Error::Schema { pointer, message, .. } => format!("{pointer}: {message}"),
        other => other.to_string(),
    }
}

/// Whether the error pointer `pointer` (`#/$defs/...`) is inside definition `name`.
fn within(pointer: &str, defs_key: &str, name: &str) -> bool {
    let def = format!("#/{defs_key}/{}", escape(name));
    pointer.strip_prefix(&def).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

impl Lowerer<'_> {
    /// One pass over every definition: those in `opaque` are kept as they
    /// are written; in lenient mode, one that fails to lower joins them.
    fn module(
        &self,
        upserts: Option<crate::upserts::Applied<'_>>,
        mode: Mode,
        opaque: &mut BTreeMap<String, Vec<String>>,
    ) -> Result<Module> {
        // Every definition is lowered, whatever the others give, so that one
        // run reports every problem of the file; the checks across
        // definitions (references, roles, aliases) need them all and run
        // only then.
        let mut out = Vec::new();
        let mut errors = Vec::new();
        // A pass starts afresh (lenient mode may lower the file again).
        self.warnings.borrow_mut().clear();
        for (name, schema) in self.defs {
            let pointer = format!("/{}/{}", self.defs_key, escape(name));
            let before = self.warnings.borrow().len();
            let lowered = match opaque.get(name) {
                Some(_) => None,
                None => Some(self.def(name, schema, &pointer)),
            };
            if matches!(lowered, Some(Err(_))) {
                // A definition not lowered warns of nothing: its error says why.
                self.warnings.borrow_mut().truncate(before);
            }
            match lowered {
                Some(Ok(d)) => out.push(d),
                Some(Err(e)) if mode == Mode::Strict => errors.push(e),
                Some(Err(e)) => {
                    let why = e.each().into_iter().map(problem).collect();
                    opaque.insert(name.clone(), why);
                    out.push(self.opaque(name, schema, &pointer, &opaque[name]));
                }
                None => out.push(self.opaque(name, schema, &pointer, &opaque[name])),
            }
        }
        let warnings = self.warnings.take();
        let mut module = Module { source: self.file.display().to_string(), defs: out, warnings };
        errors.extend(self.check_names(&module));
        Error::all(errors)?;
        if let Some(a) = upserts {
            let upsert_warnings = crate::upserts::apply(&mut module, a.config, a.label, a.strict)?;
            module.warnings.extend(upsert_warnings);
        }
        graph::link(&mut module, &self.file.display().to_string())?;
        Ok(module)
    }

    /// A definition kept as written, with why it was not lowered.
    fn opaque(&self, name: &str, schema: &Value, pointer: &str, why: &[String]) -> Def {
        Def {
            excluded: Vec::new(),
            name: name.to_owned(),
            rust_name: type_ident(name),
            pointer: pointer.to_owned(),
            docs: schema.get("description").and_then(Value::as_str).map(str::to_owned),
            method: None,
            envelope: false,
            kind: Kind::Opaque(Opaque { reason: why.join("; "), schema: schema.clone() }),
            inline: Vec::new(),
            upsert: None,
            refs: Vec::new(),
            direction: Direction::default(),
        }
    }
}

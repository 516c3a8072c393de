//! The reference graph of a lowered module: what every definition names,
//! the role of every method payload (from the envelope that carries it), and
//! which methods reach every definition, so who sends it and who reads it.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{Error, Result};
use crate::model::{Def, Direction, Kind, MethodKind, Module, Payload, Use};

/// Fills `refs`, the payload roles and `direction` of every definition.
pub(super) fn link(module: &mut Module, file: &str) -> Result<()> {
    let mut errors = Vec::new();
    no_alias_cycles(module, file, &mut errors);
    if !errors.is_empty() {
        // What follows walks aliases to their end.
        return Error::all(errors);
    }
    for d in &mut module.defs {
        fill_refs(d);
    }
    let roles: BTreeMap<String, BTreeSet<MethodKind>> =
        roles(module).into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    for d in &mut module.defs {
        let Some(m) = &mut d.method else { continue };
        match roles.get(&d.name) {
            Some(kinds) if kinds.len() > 1 => errors.push(Error::Schema {
                file: file.into(),
                pointer: format!("#{}", d.pointer),
                message: format!("`{}` is carried by envelopes of different roles: {kinds:?}", d.name),
            }),
            Some(kinds) => m.kind = *kinds.iter().next().expect("one role"),
            None if ["Request", "Response", "Notification"].iter().any(|s| d.name.ends_with(s)) => {}
            None => errors.push(Error::Schema {
                file: file.into(),
                pointer: format!("#{}", d.pointer),
                message: format!(
                    "`{}` has `x-method` but no envelope carries it and its name does not end in Request, Response or Notification",
                    d.name
                ),
            }),
        }
    }
    no_variant_collisions(module, file, &mut errors);
    Error::all(errors)?;
    let directions = directions(module);
    for d in &mut module.defs {
        set_direction(d, &directions);
    }
    Ok(())
}

/// A definition that is only another one (`allOf: [{"$ref": ...}]`) must end
/// at a definition that is something: `A = B, B = A` names no type at all.
/// Each cycle is reported once, at its member that comes first in the file.
fn no_alias_cycles(module: &Module, file: &str, errors: &mut Vec<Error>) {
    let by_name: BTreeMap<&str, &Def> = module.defs.iter().map(|d| (d.name.as_str(), d)).collect();
    let order: BTreeMap<&str, usize> = module.defs.iter().enumerate().map(|(i, d)| (d.name.as_str(), i)).collect();
    for (i, d) in module.defs.iter().enumerate() {
        let mut chain = vec![d.name.as_str()];
        let mut at = d;
        while let Kind::Alias(target) = &at.kind {
            let Some(next) = by_name.get(target.as_str()) else { break };
            let again = chain.iter().position(|n| *n == next.name);
            chain.push(next.name.as_str());
            if let Some(from) = again {
                // `d` leads into the cycle or is on it; the cycle is named at
                // its first member.
                let cycle = &chain[from..chain.len() - 1];
                if from != 0 || cycle.iter().any(|n| order[n] < i) {
                    break;
                }
                errors.push(Error::Schema {
                    file: file.into(),
                    pointer: format!("#{}", d.pointer),
                    message: format!(
                        "`{}` is an alias of itself ({}): an `allOf` of one `$ref` must end at a definition",
                        d.name,
                        chain.join(" -> ")
                    ),
                });
                break;
            }
            at = next;
        }
    }
}

/// Two methods of one side and role whose names give the same Rust variant
/// (`a/b` and `a_b` both give `AB`) would make a dispatch enum that does
/// not compile.
fn no_variant_collisions(module: &Module, file: &str, errors: &mut Vec<Error>) {
    let mut seen: BTreeMap<(String, String), &str> = BTreeMap::new();
    for d in &module.defs {
        let Some(m) = &d.method else { continue };
        let key = (format!("{:?} {:?}", m.side, m.kind), crate::model::method_variant(&m.name));
        match seen.get(&key) {
            Some(other) if *other != m.name => errors.push(Error::Schema {
                file: file.into(),
                pointer: format!("#{}/x-method", d.pointer),
                message: format!(
                    "methods `{}` and `{other}` both become the Rust variant `{}`: rename one",
                    m.name, key.1
                ),
            }),
            Some(_) => {}
            None => {
                seen.insert(key, m.name.as_str());
            }
        }
    }
}

/// The names a definition mentions directly, inline items included.
fn direct_refs(d: &Def) -> BTreeSet<String> {
    let mut out: Vec<&str> = Vec::new();
    match &d.kind {
        Kind::Struct(s) => {
            for f in &s.fields {
                f.ty.refs(&mut out);
            }
            if let Some(fl) = &s.flatten {
                out.push(&fl.union);
            }
        }
        Kind::Union(u) => {
            for v in &u.variants {
                if let Payload::Type(t) = &v.payload {
                    t.refs(&mut out);
                }
            }
            if let Some(c) = &u.catch_all {
                for f in &c.fields {
                    f.ty.refs(&mut out);
                }
                for v in &c.one_of {
                    if let Payload::Type(t) = &v.payload {
                        t.refs(&mut out);
                    }
                }
            }
        }
        Kind::Newtype(t) => t.refs(&mut out),
        Kind::Alias(target) => out.push(target),
        Kind::Enum(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    let mut set: BTreeSet<String> = out.into_iter().map(str::to_owned).collect();
    set.extend(d.inline.iter().map(|i| i.name.clone()));
    set
}

fn fill_refs(d: &mut Def) {
    d.refs = direct_refs(d).into_iter().collect();
    for i in &mut d.inline {
        fill_refs(i);
    }
}

/// Every definition (inline ones included) by name.
fn index(module: &Module) -> BTreeMap<&str, &Def> {
    module.defs.iter().flat_map(Def::walk).map(|d| (d.name.as_str(), d)).collect()
}

/// The role the envelopes give each payload they carry: a `params` property
/// of an envelope object with an `id` carries requests, one without an `id`
/// notifications, and a `result` property responses.
fn roles(module: &Module) -> BTreeMap<&str, BTreeSet<MethodKind>> {
    let all = index(module);
    let mut out: BTreeMap<&str, BTreeSet<MethodKind>> = BTreeMap::new();
    for env in module.defs.iter().filter(|d| d.envelope) {
        let own: BTreeSet<&str> = env.walk().iter().map(|d| d.name.as_str()).collect();
        for d in env.walk() {
            let Kind::Struct(s) = &d.kind else { continue };
            let has_id = s.fields.iter().any(|f| f.name == "id");
            for f in &s.fields {
                let kind = match (f.name.as_str(), has_id) {
                    ("params", true) => MethodKind::Request,
                    ("params", false) => MethodKind::Notification,
                    ("result", _) => MethodKind::Response,
                    _ => continue,
                };
                // Through the envelope's own inline unions down to the payloads.
                let mut stack = Vec::new();
                f.ty.refs(&mut stack);
                let mut seen = BTreeSet::new();
                while let Some(n) = stack.pop() {
                    if !seen.insert(n) {
                        continue;
                    }
                    let Some(t) = all.get(n) else { continue };
                    if t.method.is_some() {
                        out.entry(t.name.as_str()).or_default().insert(kind);
                    } else if own.contains(n) {
                        stack.extend(t.refs.iter().map(String::as_str));
                    }
                }
            }
        }
    }
    out
}

/// The uses of every definition: each method payload reaches everything it
/// references; an envelope reaches, besides its payloads, what it references
/// itself (`RequestId`, `Error`) with the uses of the payloads it carries.
fn directions(module: &Module) -> BTreeMap<String, BTreeSet<Use>> {
    let all = index(module);
    let mut uses: BTreeMap<String, BTreeSet<Use>> = BTreeMap::new();
    let spread =
        |root: &str, with: &BTreeSet<Use>, stop_at_payloads: bool, uses: &mut BTreeMap<String, BTreeSet<Use>>| {
            let mut stack = vec![root];
            let mut seen = BTreeSet::new();
            while let Some(n) = stack.pop() {
                if !seen.insert(n) {
                    continue;
                }
                let Some(d) = all.get(n) else { continue };
                if stop_at_payloads && d.method.is_some() {
                    continue;
                }
                uses.entry(n.to_owned()).or_default().extend(with.iter().cloned());
                stack.extend(d.refs.iter().map(String::as_str));
            }
        };
    for d in module.defs.iter().filter(|d| d.method.is_some()) {
        let m = d.method.as_ref().expect("filtered");
        let one: BTreeSet<Use> = [Use { method: m.name.clone(), side: m.side, kind: m.kind }].into();
        spread(&d.name, &one, false, &mut uses);
    }
    for env in module.defs.iter().filter(|d| d.envelope) {
        let carried: BTreeSet<Use> = env
            .walk()
            .iter()
            .flat_map(|i| i.refs.iter())
            .filter(|r| all.get(r.as_str()).is_some_and(|t| t.method.is_some()))
            .flat_map(|r| uses.get(r).cloned().unwrap_or_default())
            .collect();
        spread(&env.name, &carried, true, &mut uses);
    }
    uses
}

fn set_direction(d: &mut Def, uses: &BTreeMap<String, BTreeSet<Use>>) {
    d.direction = Direction::of(uses.get(&d.name).cloned().unwrap_or_default());
    for i in &mut d.inline {
        set_direction(i, uses);
    }
}

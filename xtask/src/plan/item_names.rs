//! The naming pass: every definition's item name, unique within a version and
//! apart from the generator's own items. Naming never refuses a schema: where
//! two definitions would be one item (`ToolCall` and `tool_call`), or a
//! definition would be one of the items the generator writes beside the
//! schema's (`Message`, `RequestToAgent`, `AgentPeer`, the reducer's
//! `SessionReducer`), one side is renamed, deterministically, and a warning
//! says so. The wire is unchanged: names on the wire are the schema's, and a
//! definition's name is never on the wire.
//!
//! Which side: a generator item keeps its name (code written against
//! `rpc::Message` works for every schema) and the definition takes the suffix
//! `Def` (`MessageDef`); of two definitions, the one met first (the stable
//! file before the unstable one, each in schema order) keeps the name and the
//! other takes the first free number (`Attachment2`). A definition keeps its
//! new name in both files of a version. `cargo xtask ir --plan` shows each
//! item's `name` (the schema's) beside its `rust_name`.

use std::collections::{BTreeMap, BTreeSet};

use heck::ToUpperCamelCase;

use crate::model::{Def, MethodKind, Module, Side};
use crate::plan::Payloads;

/// A side's name in item names (`Agent`, `Client`).
pub fn side_name(side: Side) -> String {
    side.as_str().to_upper_camel_case()
}

/// The name of a per-side dispatch enum, which says the direction and never
/// collides with a schema name (the schema's `AgentRequest` is what an agent
/// sends; the requests an agent handles are `RequestToAgent`):
/// `RequestTo{Side}`, `NotificationTo{Side}` for what a side handles and
/// `ResponseFrom{Side}` for what it answers; `$/` methods (either side) use
/// `AnySide`. Every target names its dispatch types so.
pub fn enum_name(side: Side, kind: MethodKind) -> String {
    let side = if side == Side::Protocol { "AnySide".to_owned() } else { side_name(side) };
    match kind {
        MethodKind::Request => format!("RequestTo{side}"),
        MethodKind::Notification => format!("NotificationTo{side}"),
        MethodKind::Response => format!("ResponseFrom{side}"),
    }
}

/// The items every dispatch module declares besides the per-side enums.
pub const FIXED_NAMES: &[&str] = &[
    "Request",
    "Notification",
    "Response",
    "Message",
    "Protocol",
    "DispatchError",
    "DispatchErrorKind",
    "ExtMethod",
    "ParamsForm",
    "Side",
];

/// The item names a side's sans-IO peer adds to the dispatch module: the
/// peer, its event and its role.
pub fn peer_names(side: Side) -> [String; 3] {
    let s = side_name(side);
    [format!("{s}Peer"), format!("{s}Event"), format!("{s}Role")]
}

/// Every item name the dispatch module of these payloads declares.
pub fn generator_items(payloads: &Payloads) -> Vec<String> {
    let mut out: Vec<String> = FIXED_NAMES.iter().map(|n| (*n).to_owned()).collect();
    for (side, kind) in payloads.groups().keys() {
        let name = enum_name(*side, *kind);
        if !out.contains(&name) {
            out.push(name);
        }
    }
    if payloads.peers() {
        for side in super::PEER_SIDES {
            out.extend(peer_names(side));
        }
    }
    out
}

/// Renames what would collide, in every module of one version (`modules`: the
/// stable file first). `reserved` are the generator's own item names in the
/// same namespace. Returns one warning per renamed definition, naming the
/// file and the JSON pointer.
pub fn resolve(modules: &mut [&mut Module], reserved: &[String]) -> Vec<String> {
    // Every name a definition has before the pass: a new name must be none of them.
    let mut before: BTreeSet<String> = reserved.iter().cloned().collect();
    for m in modules.iter() {
        for d in m.defs.iter().flat_map(Def::walk) {
            before.insert(d.rust_name.clone());
            before.extend(d.upsert.as_ref().map(|u| u.state.clone()));
        }
    }
    // Schema name -> its item name, once decided (the same in both files).
    let mut chosen: BTreeMap<String, String> = BTreeMap::new();
    // Item name -> the schema name holding it.
    let mut holder: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut warnings = Vec::new();
    for m in modules.iter_mut() {
        let source = m.source.clone();
        for d in m.defs.iter_mut() {
            each_def(d, &mut |d| {
                if let Some(name) = chosen.get(&d.name) {
                    d.rust_name = name.clone();
                    return;
                }
                let wanted = d.rust_name.clone();
                let clash = if reserved.contains(&wanted) {
                    Some(format!("one of the generator's own items (typed dispatch, peers or reducer) is `{wanted}`"))
                } else {
                    holder
                        .get(&wanted)
                        .filter(|(other, _)| *other != d.name)
                        .map(|(other, at)| format!("`{other}` (#{at}) is the Rust item `{wanted}` already"))
                };
                if let Some(why) = clash {
                    let base = if reserved.contains(&wanted) { format!("{wanted}Def") } else { wanted.clone() };
                    let fresh = std::iter::once(base.clone())
                        .filter(|b| *b != wanted)
                        .chain((2..).map(|n| format!("{base}{n}")))
                        .find(|c| !before.contains(c) && !holder.contains_key(c))
                        .expect("some number is free");
                    warnings.push(format!(
                        "{source}: #{}: `{}` is renamed `{fresh}` in the generated code: {why} (the wire is unchanged)",
                        d.pointer, d.name
                    ));
                    d.rust_name = fresh;
                }
                chosen.insert(d.name.clone(), d.rust_name.clone());
                holder.insert(d.rust_name.clone(), (d.name.clone(), d.pointer.clone()));
            });
        }
    }
    warnings
}

/// `f` on `d` and each of its inline definitions, parents first.
fn each_def(d: &mut Def, f: &mut impl FnMut(&mut Def)) {
    f(d);
    for i in &mut d.inline {
        each_def(i, f);
    }
}

/// The naming pass of one version's files (`stable` and `unstable`, which may
/// be copies of one file), as `codegen` and `ir --plan` run it: the reserved
/// names are the dispatch module's items when one is written (`dispatch`) and
/// the reducer's when the configuration gives the version one (`reducer`).
/// Returns the warnings.
pub fn name_version(stable: &mut Module, unstable: &mut Module, dispatch: bool, reducer: bool) -> Vec<String> {
    let reserved = {
        let plan = super::Plan::version(stable, unstable);
        let mut reserved = if dispatch { generator_items(&plan.payloads()) } else { Vec::new() };
        if reducer {
            reserved.extend(crate::policy::policy().reserved_names.iter().map(|r| r.name.clone()));
        }
        reserved
    };
    resolve(&mut [stable, unstable], &reserved)
}

/// The naming pass of a file generated alone (a fixture, a `--schema` preview).
pub fn name_single(module: &mut Module) -> Vec<String> {
    let reserved = if module.defs.iter().any(|d| d.method.is_some()) {
        generator_items(&super::Plan::single(module).payloads())
    } else {
        Vec::new()
    };
    resolve(&mut [module], &reserved)
}

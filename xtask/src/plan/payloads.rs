//! Decisions about the JSON-RPC payloads of a version: what each method's
//! params or result stands for (aliases followed, in each build), how it
//! treats an omitted or `null` params/result, and whether `Message::decode`
//! reads it in its single pass. The `rpc` emitter renders these.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Gate;
use crate::model::{Def, IntFormat, Kind, MethodKind, Payload, Side, Type};

/// The sides that get a peer (`AgentPeer`, `ClientPeer`).
pub const PEER_SIDES: [Side; 2] = [Side::Agent, Side::Client];

/// The method payloads of one handling side and kind, in the plan's
/// definition order: the variants of one dispatch enum (schema name and gate).
pub type Group = Vec<(String, Gate)>;

/// How a payload treats an omitted or `null` params/result
/// (`runtime::rpc::NullMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NullMode {
    /// Any JSON: `null` is the value.
    Value,
    /// An object whose properties are all optional: omitted or `null` is `{}`.
    Empty,
    /// Anything else: omitted or `null` is refused.
    Refuse,
}

/// The decisions about one method payload in one build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PayloadPlan {
    /// The Rust name of the definition it stands for (aliases followed).
    pub stands_for: String,
    /// That definition is any JSON (no `From<Value>` is generated: it would be a guess).
    pub any_json: bool,
    pub null_mode: NullMode,
    /// Decoded in the single pass of `Message::decode`
    /// (`runtime::rpc::read_streamed`): a struct, which refuses `null`, so
    /// that params of another form always take the usual path and keep their form.
    pub streams: bool,
}

/// The payload decisions of a version, per build (without and with the
/// `unstable` feature), by schema name.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Payloads {
    stable: BTreeMap<String, PayloadPlan>,
    unstable: BTreeMap<String, PayloadPlan>,
    /// The module gets the sans-IO peers ([`peers_supported`]).
    peers: bool,
    /// The dispatch enums: the payloads by handling side and kind
    /// ([`Payloads::groups`]); shown by the enum's name (`RequestToAgent`).
    #[serde(serialize_with = "groups_by_name")]
    groups: BTreeMap<(Side, MethodKind), Group>,
    /// By dispatch enum (a side's, `RequestToAgent`, or a kind's,
    /// `Request`): the payloads that convert into it with `From`
    /// ([`converting_payloads`]).
    from: BTreeMap<String, Group>,
}

impl Payloads {
    /// The decisions about the method payloads among `defs` (a version's
    /// definitions with the gate each is emitted under); each is resolved
    /// against the definitions of its own build.
    pub fn of(defs: &[(&Def, Gate)]) -> Payloads {
        let build = |unstable: bool| -> BTreeMap<String, PayloadPlan> {
            let all: BTreeMap<&str, &Def> =
                defs.iter().filter(|(_, g)| g.in_build(unstable)).map(|(d, _)| (d.name.as_str(), *d)).collect();
            all.values().filter(|d| d.method.is_some()).map(|d| (d.name.clone(), plan(stands_for(d, &all)))).collect()
        };
        let peers = peers_supported(defs);
        let mut groups: BTreeMap<(Side, MethodKind), Group> = BTreeMap::new();
        for (def, gate) in defs {
            if let Some(m) = &def.method {
                groups.entry((m.side, m.kind)).or_default().push((def.name.clone(), *gate));
            }
        }
        // With peers, every agent and client group exists (an empty one
        // holds only extensions).
        if peers {
            for side in PEER_SIDES {
                for kind in [MethodKind::Request, MethodKind::Notification, MethodKind::Response] {
                    groups.entry((side, kind)).or_default();
                }
            }
        }
        let (stable, unstable) = (build(false), build(true));
        let mut from = BTreeMap::new();
        for kind in [MethodKind::Request, MethodKind::Notification, MethodKind::Response] {
            let mut all = Group::new();
            for ((side, _), members) in groups.iter().filter(|((_, k), _)| *k == kind) {
                let name = crate::plan::item_names::enum_name(*side, kind);
                from.insert(name, converting_payloads(members, &stable, &unstable));
                all.extend(members.iter().cloned());
            }
            if groups.keys().any(|(_, k)| *k == kind) {
                from.insert(kind_name(kind).to_owned(), converting_payloads(&all, &stable, &unstable));
            }
        }
        Payloads { stable, unstable, peers, groups, from }
    }

    /// The payloads that convert with `From` into the dispatch enum `name`
    /// (a side's or a kind's): those that no other payload of the enum's
    /// builds stands for the same type as (`converting_payloads`);
    /// none for an enum without payloads (a kind the version has no method of).
    pub fn converting_into(&self, name: &str) -> &[(String, Gate)] {
        self.from.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether the module gets the sans-IO peers.
    pub fn peers(&self) -> bool {
        self.peers
    }

    /// The dispatch enums' variants: the method payloads by handling side
    /// and kind, each group in the plan's definition order.
    pub fn groups(&self) -> &BTreeMap<(Side, MethodKind), Group> {
        &self.groups
    }

    /// The decisions about payload `name` in the build with (`true`) or
    /// without the `unstable` feature.
    pub fn get(&self, name: &str, unstable: bool) -> &PayloadPlan {
        let build = if unstable { &self.unstable } else { &self.stable };
        build.get(name).unwrap_or_else(|| panic!("`{name}` is not a method payload of this build"))
    }

    /// Only the payloads whose name `keep` accepts (`ir --plan` with names).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.stable.retain(|n, _| keep(n));
        self.unstable.retain(|n, _| keep(n));
        for members in self.from.values_mut() {
            members.retain(|(n, _)| keep(n));
        }
        self.from.retain(|_, members| !members.is_empty());
        for members in self.groups.values_mut() {
            members.retain(|(n, _)| keep(n));
        }
        self.groups.retain(|_, members| !members.is_empty());
    }

    /// The decisions about a payload emitted under `gate`, in the build its
    /// gate names (the stable one for items in both).
    pub fn of_gate(&self, name: &str, gate: Gate) -> &PayloadPlan {
        self.get(name, gate == Gate::Unstable)
    }
}

/// The dispatch groups keyed by their enum's name, for `ir --plan`.
fn groups_by_name<S: serde::Serializer>(groups: &BTreeMap<(Side, MethodKind), Group>, s: S) -> Result<S::Ok, S::Error> {
    let named: BTreeMap<String, &Group> =
        groups.iter().map(|((side, kind), g)| (crate::plan::item_names::enum_name(*side, *kind), g)).collect();
    serde::Serialize::serialize(&named, s)
}

/// The name of a version's dispatch enum of one kind of message.
pub fn kind_name(kind: MethodKind) -> &'static str {
    match kind {
        MethodKind::Request => "Request",
        MethodKind::Response => "Response",
        MethodKind::Notification => "Notification",
    }
}

fn plan(d: &Def) -> PayloadPlan {
    let null_mode = match &d.kind {
        Kind::Any => NullMode::Value,
        Kind::Struct(s) if s.flatten.is_none() && s.fields.iter().all(|f| !f.required) => NullMode::Empty,
        _ => NullMode::Refuse,
    };
    PayloadPlan {
        stands_for: d.rust_name.clone(),
        any_json: matches!(d.kind, Kind::Any),
        null_mode,
        streams: matches!(d.kind, Kind::Struct(_)),
    }
}

/// The definition a payload stands for in one build: aliases followed.
fn stands_for<'a>(def: &'a Def, build: &BTreeMap<&str, &'a Def>) -> &'a Def {
    let alias_of = |n: &str| match build.get(n).map(|d| &d.kind) {
        Some(Kind::Alias(target)) if build.contains_key(target.as_str()) => Some(target.as_str()),
        _ => None,
    };
    let Kind::Alias(first) = &def.kind else { return def };
    let Some(first) = build.get(first.as_str()).copied() else { return def };
    build.get(crate::model::follow_aliases(first.name.as_str(), alias_of)).copied().unwrap_or(first)
}

/// Whether the module can have peers: it has methods for an agent or a client,
/// and in every build its `RequestId` is a closed union with one `int64` arm
/// (ids are allocated as integers) whose values hash (pending requests are
/// keyed by id).
fn peers_supported(defs: &[(&Def, Gate)]) -> bool {
    let has_methods = defs.iter().any(|(d, _)| d.method.as_ref().is_some_and(|m| PEER_SIDES.contains(&m.side)));
    let ids: Vec<&Def> = defs.iter().filter(|(d, _)| d.name == "RequestId").map(|(d, _)| *d).collect();
    let all: Vec<&Def> = defs.iter().flat_map(|(d, _)| Def::walk(d)).collect();
    let ordered = super::ordered_defs(&all);
    has_methods
        && !ids.is_empty()
        && ids.iter().all(|d| {
            let Kind::Union(u) = &d.kind else { return false };
            let int64 = |v: &&crate::model::Variant| {
                matches!(&v.payload, Payload::Type(Type::Integer { format: IntFormat::Int64, .. }))
            };
            ordered.contains(&d.name) && u.variants.iter().filter(int64).count() == 1
        })
}

/// The members of a dispatch enum (`members`: every payload it holds, with
/// its gate) that convert into it with `From`, by the rule of
/// [`super::conversions::converts`]: each stands for the type its payload
/// stands for (aliases followed); an any-JSON payload converts in none (a
/// `From<Value>` would be a guess).
fn converting_payloads(
    members: &Group,
    stable: &BTreeMap<String, PayloadPlan>,
    unstable: &BTreeMap<String, PayloadPlan>,
) -> Group {
    let key = |i: usize, unstable_build: bool| -> Option<&str> {
        let name = &members[i].0;
        let p = if unstable_build { &unstable[name] } else { &stable[name] };
        (!p.any_json).then_some(p.stands_for.as_str())
    };
    let in_build = |i: usize, unstable_build: bool| members[i].1.in_build(unstable_build);
    (0..members.len())
        .filter(|&i| super::conversions::converts(members.len(), i, in_build, key))
        .map(|i| members[i].clone())
        .collect()
}

//! Decisions about the JSON-RPC payloads of a version: what each method's
//! params or result stands for (aliases followed, in each build), how it
//! treats an omitted or `null` params/result, and whether `Message::decode`
//! reads it in its single pass. The `rpc` emitter renders these.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Gate;
use crate::model::{Def, Kind};

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
        Payloads { stable: build(false), unstable: build(true) }
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
    }

    /// The decisions about a payload emitted under `gate`, in the build its
    /// gate names (the stable one for items in both).
    pub fn of_gate(&self, name: &str, gate: Gate) -> &PayloadPlan {
        self.get(name, gate == Gate::Unstable)
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

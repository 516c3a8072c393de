//! The Rust plan: what the generator decided for a schema model, as data.
//!
//! The schema model ([`crate::model`]) says only what the schema says. The
//! plan records the generator's decisions on top of it: in which builds each
//! item exists ([`Gate`], from merging a version's stable and unstable
//! schemas), and how each field is represented in Rust ([`Repr`] for wire
//! structs, [`StateRepr`] for the state structs of upserts). Each field's
//! representation is decided once, here ([`Fields`]); the emitter and the
//! converter generator look it up instead of deciding it again, and
//! `cargo xtask ir --plan` prints the same records.

use proc_macro2::TokenStream;
use quote::quote;
use serde::Serialize;

use std::collections::BTreeSet;

use crate::model::{Def, Field, Module, Rule, Type, Upsert};

pub mod conversions;
mod defs;
pub mod item_names;
pub mod merge;
pub mod naming;
mod payloads;
mod read;
pub mod reducer;
pub(crate) use defs::ordered_defs;
pub use defs::{is_direct_method, Decisions, Decoder, Encoder};
pub use merge::Merged;
pub use payloads::{kind_name, Group, NullMode, PayloadPlan, Payloads, PEER_SIDES};
pub use read::{is_scalar, value_field, HiddenKind, ReadRule};

/// Which builds an item belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gate {
    /// Always compiled.
    Always,
    /// Only with the `unstable` feature.
    Unstable,
    /// Only without the `unstable` feature (the stable shape of an item whose
    /// unstable shape differs).
    Stable,
}

impl Gate {
    /// Whether an item with this gate exists in the build with (`true`) or
    /// without (`false`) the `unstable` feature.
    pub fn in_build(self, unstable: bool) -> bool {
        match self {
            Gate::Always => true,
            Gate::Stable => !unstable,
            Gate::Unstable => unstable,
        }
    }

    /// The `#[cfg]` attribute for the gate (nothing for `Always`).
    pub fn cfg(self) -> TokenStream {
        match self {
            Gate::Always => quote!(),
            Gate::Unstable => quote!(#[cfg(feature = "unstable")]),
            Gate::Stable => quote!(#[cfg(not(feature = "unstable"))]),
        }
    }
}

/// One build (with or without the `unstable` feature) of a version, as
/// the converter generator renders it.
#[derive(Debug, Clone)]
pub struct Build<'m> {
    /// The build's top-level definitions.
    pub defs: Vec<&'m Def>,
    /// Their fields, as planned.
    pub fields: Fields,
    /// Aliases without a method (`pub type`): name -> the definition named.
    pub aliases: std::collections::BTreeMap<String, String>,
}

/// What a protocol version's module gets besides its definitions: the
/// choices that depend on the version, made here rather than by the
/// generator's driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VersionChoices {
    /// The protocol version number (`v2` -> 2): `PROTOCOL_VERSION`.
    pub number: u16,
    /// `PROTOCOL_VERSION` has the schema's `ProtocolVersion` newtype (when
    /// every build of the module has it), else it is a bare `u16`.
    pub typed_protocol_version: bool,
    /// The module holds only what the unstable schema has: its items are
    /// behind `unstable`.
    pub unstable_only: bool,
}

impl VersionChoices {
    /// The choices for `version` (`v1`, `v2`) given its plan.
    pub fn of(version: &str, plan: &Plan<'_>, unstable_only: bool) -> VersionChoices {
        let gates: Vec<Gate> = plan
            .items
            .iter()
            .filter(|i| i.def.name == "ProtocolVersion" && matches!(i.def.kind, crate::model::Kind::Newtype(_)))
            .map(|i| i.gate)
            .collect();
        let typed_protocol_version = gates.contains(&Gate::Always)
            || (gates.contains(&Gate::Stable) && gates.contains(&Gate::Unstable))
            || (unstable_only && gates.contains(&Gate::Unstable));
        VersionChoices {
            number: version.trim_start_matches('v').parse().unwrap_or_default(),
            typed_protocol_version,
            unstable_only,
        }
    }
}

/// How an object holds the properties its schema does not name: decided
/// here once, read by the Rust structs and builders, the decoder choice, the
/// converters and the TypeScript types.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rest {
    /// Kept in their order and written back (`runtime::Extra`): every object
    /// unless its schema says otherwise.
    Extra,
    /// Each of the type `additionalProperties` gives (`BTreeMap<String, T>`).
    Typed(Type),
    /// Beside a flattened union, with `additionalProperties: true`: kept as
    /// received (`runtime::JsonObject`).
    Object,
    /// Beside a flattened union otherwise: the union's arm takes them.
    InUnion,
    /// `additionalProperties: false`: none may be there.
    Refused,
}

impl Rest {
    /// The decision for an object.
    pub fn of(s: &crate::model::Struct) -> Rest {
        use crate::model::Additional;
        match (&s.additional, &s.flatten, &s.rest) {
            (Additional::False, _, _) => Rest::Refused,
            (_, _, Some(t)) => Rest::Typed(t.clone()),
            (Additional::Absent | Additional::True, None, None) => Rest::Extra,
            (Additional::True, Some(_), None) => Rest::Object,
            _ => Rest::InUnion,
        }
    }

    /// Whether the object has an `additional_properties` field.
    pub fn has_field(&self) -> bool {
        matches!(self, Rest::Extra | Rest::Typed(_) | Rest::Object)
    }
}

/// How a wire struct's field holds its value type `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Repr {
    /// Required, not nullable: `T`.
    Value,
    /// Required and nullable: `Option<T>`, and the property must be present.
    RequiredNullable,
    /// Optional: `Option<T>`, skipped when `None`.
    Optional,
    /// Optional any-JSON: `Option<Value>`; a present `null` is `Some(Null)`.
    OptionalAny,
    /// Optional and nullable: `runtime::Nullable<T>` (absent, `null`, value).
    Nullable,
    /// A patch field of an upsert: `Patch<T>` (omitted keeps, `null` clears, a
    /// value sets), generated by `#[derive(AcpPatch)]` from the state struct.
    Patch,
}

impl Repr {
    /// The representation of a schema property (decided here only: others
    /// read it from [`Fields`]).
    fn of(f: &Field) -> Repr {
        match (f.required, f.nullable, &f.ty) {
            (true, false, _) => Repr::Value,
            (true, true, _) => Repr::RequiredNullable,
            (false, _, Type::Any) => Repr::OptionalAny,
            (false, false, _) => Repr::Optional,
            (false, true, _) => Repr::Nullable,
        }
    }
}

/// How a field of an upsert's state struct holds its value type `T`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StateRepr {
    /// The key: `T`, `#[acp(key)]`.
    Key,
    /// Required on the wire, replaced every time: `T`, `#[acp(required)]`.
    Required,
    /// `_meta`: `Option<T>`, `#[acp(by_key)]`.
    ByKey,
    /// A list: `Vec<T>`, replaced whole; `[]` and `null` clear.
    List,
    /// `T`, and `null` resets to this enum value, as on the wire (`T::default()`).
    Reset(String),
    /// `Option<T>`: a value replaces, `null` unsets.
    Optional,
    /// Any JSON (a tool call's `rawInput`, `rawOutput`): unset or a value,
    /// on the wire a `null` value and a clear being the same `null`. The
    /// Rust bindings hold it as its JSON text (`Option<RawJson>`, and
    /// `Patch<RawJson>` in the patch): the protocol gives it no shape, so
    /// its readers display or forward it, and as text it is one block to
    /// copy, move and free, where a `serde_json::Value` is one per member
    /// and item.
    AnyValue,
}

impl StateRepr {
    /// The representation of an upsert property in its state struct
    /// (decided here only: others read it from [`Fields`]).
    fn of(f: &Field, upsert: &Upsert) -> StateRepr {
        if upsert.key.as_deref() == Some(f.name.as_str()) {
            return StateRepr::Key;
        }
        match upsert.fields.get(&f.name) {
            Some(Rule::Required) => StateRepr::Required,
            Some(Rule::ByKey) => StateRepr::ByKey,
            Some(Rule::List) => StateRepr::List,
            Some(Rule::Reset { reset }) => StateRepr::Reset(
                reset.as_str().expect("upserts::apply attaches no rule whose reset is not a string").to_owned(),
            ),
            Some(Rule::Replace) | None if f.ty == Type::Any => StateRepr::AnyValue,
            Some(Rule::Replace) | None => StateRepr::Optional,
        }
    }
}

impl StateRepr {
    /// Whether the wire patch holds the field's value boxed (`#[acp(boxed)]`
    /// on the state field): an optional object, a struct or a union
    /// (capabilities, an exit status, a subagent's state: set rarely). Keeps
    /// the patches, and the updates that hold them, small; the state struct
    /// holds the value inline.
    fn boxed_in_patch(&self, ty: &Type, is_object: impl Fn(&str) -> bool) -> bool {
        match self {
            StateRepr::Optional => matches!(ty, Type::Ref(r) if is_object(r)),
            _ => false,
        }
    }
}

/// One planned field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldPlan {
    /// The wire name.
    pub name: String,
    /// The Rust field name.
    pub rust_name: String,
    /// Its representation in the wire struct.
    pub repr: Repr,
    /// Its representation in the upsert's state struct, for upserts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<StateRepr>,
    /// Its value is boxed in the wire struct (its type is on a cycle of
    /// values held in place).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub boxed: bool,
    /// An upsert's patch holds its value boxed (`#[acp(boxed)]` on the state
    /// field; see `StateRepr::boxed_in_patch`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub boxed_in_patch: bool,
    /// How it is read: its decoding rule.
    #[serde(skip_serializing_if = "ReadRule::is_plain")]
    pub read: ReadRule,
}

/// One planned top-level item (its inline items share its gate).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemPlan<'m> {
    /// The schema model of the definition.
    #[serde(skip)]
    pub def: &'m Def,
    /// The schema name.
    pub name: String,
    /// The Rust item name.
    pub rust_name: String,
    /// The builds it exists in.
    pub gate: Gate,
    /// The state struct of an upsert (which derives `AcpPatch` with this item as its patch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Who writes its decoder.
    pub decoder: Decoder,
    /// Who writes its encoder.
    pub encoder: Encoder,
    /// It gets a direct decoder (it is reached from a `direct_methods` payload).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub direct: bool,
    /// It is on a cycle of values held in place: boxed wherever a struct field
    /// or a union arm holds it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub boxed_where_held: bool,
    /// Its union arms whose payload is boxed (by variant name).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boxed_arms: Vec<String>,
    /// Union arms (its own and its inline unions', as `Union.Variant`) that
    /// get no `From` conversion into their union ([`Decisions::no_from`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub no_from: Vec<String>,
    /// Its values have a total order and a hash (`Eq, Hash, PartialOrd, Ord`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ordered: bool,
    /// How it holds the properties its schema does not name, for a struct.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest: Option<Rest>,
    /// Its fields, for a struct.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldPlan>,
    /// How its value is read, for an integer newtype with checked bounds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<ReadRule>,
    /// For an item whose unstable shape only adds fields or arms to its
    /// stable shape (rendered once from `def`, the unstable shape): the
    /// stable build's shape.
    #[serde(skip)]
    pub stable_shape: Option<&'m Def>,
    /// The fields and arms of such an item (and its inline items) that only
    /// the unstable build has, each gated on its own: `Definition.element`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unstable_only: Vec<String>,
}

impl FieldPlan {
    /// The decisions for field `f` of definition `def`, given the file's
    /// object definitions and those on a cycle ([`Decisions`]).
    fn new(def: &Def, f: &Field, sets: &Sets<'_>) -> FieldPlan {
        let Sets { objects, recursive, scalars } = sets;
        let state = def.upsert.as_ref().map(|u| StateRepr::of(f, u));
        let repr = match &state {
            Some(StateRepr::Key | StateRepr::Required) | None => Repr::of(f),
            Some(_) => Repr::Patch,
        };
        let boxed = matches!(&f.ty, Type::Ref(r) if recursive.contains(r));
        let boxed_in_patch =
            repr == Repr::Patch && state.as_ref().is_some_and(|s| s.boxed_in_patch(&f.ty, |r| objects.contains(r)));
        let read = if repr == Repr::Patch {
            ReadRule::Patch { skip_invalid_items: f.skip_invalid_items, scalar: read::is_scalar(&f.ty, scalars) }
        } else {
            ReadRule::of(f, scalars)
        };
        FieldPlan { name: f.name.clone(), rust_name: f.rust_name.clone(), repr, state, boxed, boxed_in_patch, read }
    }

    /// Whether the field is an upsert's patch field (omitted keeps, `null`
    /// clears, a value sets).
    pub fn is_patch(&self) -> bool {
        self.repr == Repr::Patch
    }

    /// How the field's value is held in the wire struct, for a field that is
    /// not an upsert's patch field (whose wire form the derive writes).
    pub fn wire_repr(&self) -> Repr {
        assert!(self.repr != Repr::Patch, "`{}` is an upsert's patch field: its wire form is the derive's", self.name);
        self.repr
    }

    /// The field's representation in its upsert's state struct.
    pub fn state_repr(&self) -> &StateRepr {
        self.state.as_ref().unwrap_or_else(|| panic!("`{}` is not a field of an upsert", self.name))
    }
}

/// Every struct field of `defs` and their nested definitions, with its definition.
fn struct_fields<'a>(defs: impl IntoIterator<Item = &'a Def>) -> impl Iterator<Item = (&'a Def, &'a Field)> {
    defs.into_iter().flat_map(Def::walk).flat_map(|def| match &def.kind {
        crate::model::Kind::Struct(s) => s.fields.iter().map(|f| (def, f)).collect(),
        _ => Vec::new(),
    })
}

/// The sets of definitions a field's decisions depend on ([`Decisions`]).
struct Sets<'a> {
    /// Structs and unions.
    objects: &'a BTreeSet<String>,
    /// On a cycle of values held in place.
    recursive: &'a BTreeSet<String>,
    /// Decodable from one JSON string.
    scalars: &'a BTreeSet<String>,
}

/// The planned fields of every struct of one set of definitions (a schema
/// file's, or one build's), nested definitions included, by the property's
/// JSON pointer (unique within a schema file, and within a build, which
/// takes each definition from one file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fields(std::collections::BTreeMap<String, FieldPlan>);

impl Fields {
    /// The decisions for every struct field of `defs` and their nested
    /// definitions, given the file's object definitions and those on a cycle.
    fn of<'a>(defs: impl IntoIterator<Item = &'a Def>, sets: &Sets<'_>) -> Fields {
        Fields(struct_fields(defs).map(|(def, f)| (f.pointer.clone(), FieldPlan::new(def, f, sets))).collect())
    }

    /// The plan of field `f` (of one of the definitions this was made from).
    pub fn get(&self, f: &Field) -> &FieldPlan {
        self.0.get(&f.pointer).unwrap_or_else(|| panic!("no planned field at `{}`", f.pointer))
    }
}

impl<'m> ItemPlan<'m> {
    fn new(def: &'m Def, gate: Gate, decisions: &Decisions) -> Self {
        let fields = match &def.kind {
            crate::model::Kind::Struct(s) => s.fields.iter().map(|f| decisions.fields.get(f).clone()).collect(),
            _ => Vec::new(),
        };
        ItemPlan {
            def,
            name: def.name.clone(),
            rust_name: def.rust_name.clone(),
            gate,
            state: def.upsert.as_ref().map(|u| u.state.clone()),
            decoder: decisions.decoders.get(&def.name).copied().unwrap_or(Decoder::Emitted),
            encoder: decisions.encoders.get(&def.name).copied().unwrap_or(Encoder::Emitted),
            direct: decisions.direct.contains(&def.name),
            boxed_where_held: decisions.recursive.contains(&def.name),
            boxed_arms: decisions
                .boxed_arms
                .iter()
                .filter(|(union, _)| *union == def.name)
                .map(|(_, arm)| arm.clone())
                .collect(),
            ordered: decisions.ordered.contains(&def.name),
            no_from: Vec::new(),
            rest: match &def.kind {
                crate::model::Kind::Struct(s) => Some(Rest::of(s)),
                _ => None,
            },
            fields,
            read: decisions.values.get(&def.name).cloned(),
            stable_shape: None,
            unstable_only: Vec::new(),
        }
    }
}

/// The plan of one generated module.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan<'m> {
    /// Every item, in emission order. An item whose stable and unstable shapes
    /// differ appears twice (gated `Stable` and `Unstable`), unless the
    /// unstable shape only adds fields or arms: then once, with those gated
    /// ([`ItemPlan::stable_shape`]).
    pub items: Vec<ItemPlan<'m>>,
    /// The decisions about the stable schema's definitions (the one module's, for [`Plan::single`]).
    #[serde(skip)]
    pub stable: Decisions,
    /// The decisions about the unstable schema's definitions, with what is
    /// gated in the items rendered once ([`Decisions::merged`]).
    #[serde(skip)]
    pub unstable: Decisions,
}

impl<'m> Plan<'m> {
    /// One module, every item always compiled (fixtures).
    pub fn single(module: &'m Module) -> Plan<'m> {
        let mut decisions = Decisions::of(&module.defs);
        decisions.no_from = conversions::arms_without_from(&module.defs, &decisions);
        let items = module.defs.iter().map(|d| ItemPlan::new(d, Gate::Always, &decisions)).collect();
        let mut plan = Plan { items, unstable: decisions.clone(), stable: decisions };
        plan.show_no_from();
        plan
    }

    /// The decisions an item of `gate` is emitted with: about the unstable
    /// schema's definitions for an unstable item, the stable schema's otherwise.
    pub fn decisions(&self, gate: Gate) -> &Decisions {
        match gate {
            Gate::Unstable => &self.unstable,
            Gate::Always | Gate::Stable => &self.stable,
        }
    }

    /// The decisions `item` is rendered with: the unstable file's for an
    /// item rendered once from its unstable shape ([`ItemPlan::stable_shape`]),
    /// otherwise those of its gate.
    pub fn decisions_of(&self, item: &ItemPlan<'_>) -> &Decisions {
        if self.renders_unstable(item) {
            &self.unstable
        } else {
            &self.stable
        }
    }

    /// Whether `item` is rendered with the unstable file's decisions (see
    /// [`Plan::decisions_of`]): the emitters pick their renderer by it.
    pub fn renders_unstable(&self, item: &ItemPlan<'_>) -> bool {
        item.stable_shape.is_some() || item.gate == Gate::Unstable
    }

    /// A version's stable and unstable schemas merged: an item equal in both
    /// (ignoring descriptions and pointers) once; one whose unstable shape
    /// only adds fields or arms once, with those gated ([`merge`]); one whose
    /// shape differs otherwise twice, each behind its cfg; one only in the
    /// unstable schema behind `unstable`; one only in the stable schema
    /// behind `not(unstable)`.
    pub fn version(stable: &'m Module, unstable: &'m Module) -> Plan<'m> {
        let (sf, mut uf) = (Decisions::of(&stable.defs), Decisions::of(&unstable.defs));
        let mut items = Vec::new();
        for d in &stable.defs {
            match unstable.defs.iter().find(|u| u.name == d.name) {
                Some(u) if u.without_docs() == d.without_docs() => items.push(ItemPlan::new(d, Gate::Always, &sf)),
                Some(u) => match merge::merge(d, u, &sf, &uf) {
                    Some(m) => {
                        let mut item = ItemPlan::new(u, Gate::Always, &uf);
                        item.stable_shape = Some(d);
                        item.unstable_only = m.unstable_only.iter().map(|(d, e)| format!("{d}.{e}")).collect();
                        uf.merged.unstable_only.extend(m.unstable_only);
                        uf.merged.stable_docs.extend(m.stable_docs);
                        uf.merged.stable_defaults.extend(m.stable_defaults);
                        items.push(item);
                    }
                    None => {
                        items.push(ItemPlan::new(d, Gate::Stable, &sf));
                        items.push(ItemPlan::new(u, Gate::Unstable, &uf));
                    }
                },
                None => items.push(ItemPlan::new(d, Gate::Stable, &sf)),
            }
        }
        for u in unstable.defs.iter().filter(|u| !stable.defs.iter().any(|d| d.name == u.name)) {
            items.push(ItemPlan::new(u, Gate::Unstable, &uf));
        }
        let mut sf = sf;
        sf.no_from = conversions::arms_without_from(&stable.defs, &sf);
        uf.no_from = conversions::arms_without_from(&unstable.defs, &uf);
        let mut plan = Plan { items, stable: sf, unstable: uf };
        plan.show_no_from();
        plan
    }

    /// Each item's [`ItemPlan::no_from`], from the decisions it is rendered with.
    fn show_no_from(&mut self) {
        for i in 0..self.items.len() {
            let decisions = self.decisions_of(&self.items[i]);
            let names: BTreeSet<String> = self.items[i].def.walk().iter().map(|d| d.name.clone()).collect();
            let arms = decisions
                .no_from
                .iter()
                .filter(|(union, _)| names.contains(union))
                .map(|(union, arm)| format!("{union}.{arm}"))
                .collect();
            self.items[i].no_from = arms;
        }
    }

    /// The top-level definitions of the build with (`true`) or without the
    /// `unstable` feature, with the plan's decisions about them.
    pub fn build(&self, unstable: bool) -> Build<'m> {
        let items: Vec<(&'m Def, Gate)> =
            self.gated().into_iter().filter(|(_, gate)| gate.in_build(unstable)).collect();
        // Each field as planned in the file its item's shape comes from.
        let fields = items
            .iter()
            .flat_map(|(def, gate)| {
                struct_fields([*def]).map(|(_, f)| (f.pointer.clone(), self.decisions(*gate).fields.get(f).clone()))
            })
            .collect();
        let aliases = items
            .iter()
            .flat_map(|(def, gate)| {
                let decided = &self.decisions(*gate).aliases;
                def.walk()
                    .into_iter()
                    .filter_map(|d| Some((d.name.clone(), decided.get(&d.name)?.clone())))
                    .collect::<Vec<_>>()
            })
            .collect();
        Build { defs: items.iter().map(|(def, _)| *def).collect(), fields: Fields(fields), aliases }
    }

    /// The items with their gates, as typed dispatch and the registries take
    /// them: an item rendered once with gated elements counts as its two
    /// shapes, each in its build.
    pub fn gated(&self) -> Vec<(&'m Def, Gate)> {
        self.items
            .iter()
            .flat_map(|i| match i.stable_shape {
                Some(s) => vec![(s, Gate::Stable), (i.def, Gate::Unstable)],
                None => vec![(i.def, i.gate)],
            })
            .collect()
    }

    /// The decisions about the version's JSON-RPC payloads ([`Payloads`]).
    pub fn payloads(&self) -> Payloads {
        Payloads::of(&self.gated())
    }

    /// The planned fields of a definition in the build of `gate`.
    pub fn fields(&self, name: &str, gate: Gate) -> Option<&[FieldPlan]> {
        self.items.iter().find(|i| i.name == name && i.gate == gate).map(|i| i.fields.as_slice())
    }

    /// The definitions (schema names) of the unstable schema file that a
    /// target writing each file as a module of its own takes from the stable
    /// module instead of writing them again: those the plan renders once for
    /// both builds ([`Gate::Always`], no `stable_shape`), with their inline
    /// items, unless a definition they name, directly or further down, is
    /// written again (a type binds the names it uses where it is written).
    pub fn shared_with_stable<'u>(&self, unstable: &'u Module) -> std::collections::BTreeSet<&'u str> {
        use std::collections::{BTreeMap, BTreeSet};
        let once: BTreeSet<&str> = self
            .items
            .iter()
            .filter(|i| i.gate == Gate::Always && i.stable_shape.is_none())
            .map(|i| i.name.as_str())
            .collect();
        let mut shared: BTreeSet<&str> = BTreeSet::new();
        for d in unstable.defs.iter().filter(|d| once.contains(d.name.as_str())) {
            shared.extend(d.walk().into_iter().map(|d| d.name.as_str()));
        }
        let refs: BTreeMap<&str, &[String]> =
            unstable.defs.iter().flat_map(Def::walk).map(|d| (d.name.as_str(), d.refs.as_slice())).collect();
        loop {
            let demoted: Vec<&str> = shared
                .iter()
                .copied()
                .filter(|n| refs.get(n).is_some_and(|r| r.iter().any(|r| !shared.contains(r.as_str()))))
                .collect();
            if demoted.is_empty() {
                return shared;
            }
            for n in demoted {
                shared.remove(n);
            }
        }
    }
}

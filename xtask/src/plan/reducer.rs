//! The session reducer of a version: the reviewed configuration
//! (`schema/upserts.json`, `reducer`) checked against the version's merged
//! plan and resolved into what both renderers read (the Rust reducer in the
//! version module, the TypeScript `reducer` table): each collection with the
//! states it holds, each arm of the update union with its rule, its payload's
//! properties and its gate. Nothing here is specific to a language: the Rust
//! identifiers come from the model's naming pass, as every item's do.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Gate, Plan};
use crate::model::{Def, Field, Kind, Payload, Type};
use crate::upserts::{Holds, ReducerConfig, UpdateConfig};

/// A version's session reducer, resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Reducer {
    /// The reducer's item name.
    pub name: String,
    /// Its description.
    pub doc: String,
    /// The update union: its Rust name and its discriminator property.
    pub union: String,
    /// The union's discriminator property.
    pub tag: String,
    /// Its fields, in the order its JSON writes them.
    pub collections: Vec<Collection>,
    /// The rule of each arm that changes the state, in the union's order.
    pub arms: Vec<Arm>,
    /// How compaction writes the state back as updates: for each collection
    /// (and each kind of a `kinds` one) that some update fills, in the
    /// collections' order, the arm that rebuilds an entity from nothing.
    /// `None` when one has no such arm in a build that fills it (a preview of
    /// another revision; the vendored schema's configuration must have one).
    pub rebuild: Option<Vec<Rebuild>>,
}

/// The arm compaction writes the entities of one collection (of one kind) with.
#[derive(Debug, Clone, Serialize)]
pub struct Rebuild {
    /// The collection (an index into [`Reducer::collections`]).
    pub collection: usize,
    /// The kind, in a `kinds` collection (an index into its kinds).
    pub kind: Option<usize>,
    /// The arm (an index into [`Reducer::arms`]): an upsert of the entity's
    /// whole state, or a `put` of its value.
    pub arm: usize,
}

/// One field of the reducer.
#[derive(Debug, Clone, Serialize)]
pub struct Collection {
    /// Its JSON name.
    pub name: String,
    /// Its Rust field name.
    pub field: String,
    /// Its description.
    pub doc: String,
    /// What it holds.
    pub holds: Held,
}

/// An upsert a collection holds the states of.
#[derive(Debug, Clone, Serialize)]
pub struct Upserted {
    /// The wire definition's schema name (the TypeScript `upserts` key).
    pub wire: String,
    /// Its Rust name (the patch type).
    pub patch: String,
    /// The state struct's Rust name.
    pub state: String,
    /// The key property: wire name, Rust name and type (none: keyless).
    pub key: Option<(String, String, Type)>,
    /// Whether the wire definition requires nothing but its key (an entity
    /// can then be created from the key alone: `Patch::new(key)`).
    pub key_alone: bool,
}

/// What a collection holds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Held {
    /// States of one upsert, by key.
    Upsert(Upserted),
    /// States of several upserts that share a key, each under its tag.
    Kinds {
        /// The enum's item name.
        name: String,
        /// Its description.
        doc: String,
        /// The kinds: tag, variant, description, upsert.
        kinds: Vec<(String, String, String, Upserted)>,
        /// The key's type (the same in every kind).
        key: Type,
    },
    /// Values replaced whole, by their string property `key`.
    Whole {
        /// The definition's schema name.
        wire: String,
        /// Its Rust name.
        ty: String,
        /// The property holding the key.
        key: String,
    },
    /// The state of one keyless upsert.
    One(Upserted),
}

/// The rule of one arm of the update union.
#[derive(Debug, Clone, Serialize)]
pub struct Arm {
    /// The discriminator value.
    pub tag: String,
    /// The union variant's Rust name.
    pub variant: String,
    /// Which builds have the arm.
    pub gate: Gate,
    /// The collection it changes (an index into [`Reducer::collections`]).
    pub into: usize,
    /// The rule.
    pub rule: Rule,
}

/// A payload property a rule reads: wire and Rust names.
#[derive(Debug, Clone, Serialize)]
pub struct Prop {
    /// Its wire name.
    pub wire: String,
    /// Its Rust field name.
    pub rust: String,
}

/// What an arm does to its collection.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The payload is applied as a patch (of the kind at this index, in a
    /// `kinds` collection).
    Upsert {
        /// The kind, in a `kinds` collection.
        kind: Option<usize>,
    },
    /// The payload's `from` pushed onto the list `to` of the entity its key names.
    Append {
        /// The kind an entity it creates has.
        kind: Option<usize>,
        /// The payload's key property.
        key: Prop,
        /// The payload's property appended.
        from: Prop,
        /// The state's list property.
        to: Prop,
        /// The list's item type.
        item: Type,
        /// Whether an unknown key creates the entity.
        create: bool,
    },
    /// Base64 text appended at `to.0`'s `to.1`.
    AppendBase64 {
        /// The payload's key property.
        key: Prop,
        /// The payload's base64 property.
        from: Prop,
        /// The state's optional object property, and that object's base64 property.
        to: (Prop, Prop),
        /// The object's Rust type (made with `new(data)` when absent).
        object: String,
        /// Whether an unknown key creates the entity.
        create: bool,
    },
    /// The payload's `from` stored whole.
    Put {
        /// The payload's property stored.
        from: Prop,
        /// The payload's Rust name.
        payload: String,
        /// Whether the payload requires nothing but `from` (compaction can
        /// then write a value back as `Payload::new(value)`).
        alone: bool,
    },
    /// The entity the payload's `from` names removed.
    Remove {
        /// The payload's property holding the key.
        from: Prop,
    },
}

impl Reducer {
    /// Resolves `config` against the version's plan. `strict` (the vendored
    /// schema): every mismatch is an error, all collected. Otherwise (a
    /// preview of another revision) what does not fit is left out and named
    /// in the warnings returned, and a schema without the union has no reducer.
    pub fn of(
        config: &ReducerConfig,
        plan: &Plan<'_>,
        strict: bool,
    ) -> Result<(Option<Reducer>, Vec<String>), Vec<String>> {
        let mut errors = Vec::new();
        let r = Resolver { gated: plan.gated() };
        let union = r.def(&config.union);
        let (union_rust, tag) = match union.map(|d| (d, &d.kind)) {
            Some((d, Kind::Union(crate::model::Union { tag: Some(t), .. }))) => {
                (d.rust_name.clone(), t.property.clone())
            }
            _ => {
                let e = format!("`union`: `{}` is no tagged union of the schema", config.union);
                return if strict { Err(vec![e]) } else { Ok((None, vec![e])) };
            }
        };
        let mut collections = Vec::new();
        for c in &config.collections {
            let holds = match &c.holds {
                Holds::Upsert(wire) | Holds::One(wire) => match r.upserted(wire) {
                    Ok(u) if matches!(c.holds, Holds::One(_)) && u.key.is_some() => {
                        errors.push(format!("`{}`: `one` holds a keyless upsert; `{wire}` has a key", c.name));
                        continue;
                    }
                    Ok(u) if matches!(c.holds, Holds::Upsert(_)) && u.key.is_none() => {
                        errors.push(format!("`{}`: `upsert` holds an upsert by its key; `{wire}` has none", c.name));
                        continue;
                    }
                    Ok(u) if matches!(c.holds, Holds::One(_)) => Held::One(u),
                    Ok(u) => Held::Upsert(u),
                    Err(e) => {
                        errors.push(format!("`{}`: {e}", c.name));
                        continue;
                    }
                },
                Holds::Kinds(k) => {
                    let mut kinds = Vec::new();
                    let mut keys = BTreeSet::new();
                    for (tag, kind) in &k.of {
                        match r.upserted(&kind.upsert) {
                            Ok(u) => {
                                if let Some((wire, _, ty)) = &u.key {
                                    keys.insert((wire.clone(), format!("{ty:?}")));
                                }
                                kinds.push((tag.clone(), kind.variant.clone(), kind.doc.clone(), u));
                            }
                            Err(e) => errors.push(format!("`{}`, kind `{tag}`: {e}", c.name)),
                        }
                    }
                    let key = kinds.first().and_then(|k| k.3.key.as_ref()).map(|k| k.2.clone());
                    match key {
                        Some(key) if keys.len() == 1 && kinds.iter().all(|k| k.3.key.is_some()) => {
                            Held::Kinds { name: k.name.clone(), doc: k.doc.clone(), kinds, key }
                        }
                        _ => {
                            errors.push(format!("`{}`: the kinds' upserts must share one key property", c.name));
                            continue;
                        }
                    }
                }
                Holds::Whole(wire) => match (r.def(wire), &c.key) {
                    (Some(d), Some(key)) => {
                        Held::Whole { wire: wire.clone(), ty: d.rust_name.clone(), key: key.clone() }
                    }
                    (None, _) => {
                        errors.push(format!("`{}`: `{wire}` is not a definition of the schema", c.name));
                        continue;
                    }
                    (_, None) => {
                        errors.push(format!("`{}`: `whole` needs the `key` property of its values", c.name));
                        continue;
                    }
                },
            };
            let field = heck::ToSnakeCase::to_snake_case(c.name.as_str());
            collections.push(Collection { name: c.name.clone(), field, doc: c.doc.clone(), holds });
        }
        let arms = r.arms(config, &collections, &mut errors);
        let rebuild = match rebuilders(&collections, &arms) {
            Ok(r) => Some(r),
            Err(e) => {
                errors.extend(e);
                None
            }
        };
        if strict && !errors.is_empty() {
            return Err(errors);
        }
        let reducer = Reducer {
            name: config.name.clone(),
            doc: config.doc.clone(),
            union: union_rust,
            tag,
            collections,
            arms,
            rebuild,
        };
        Ok((Some(reducer), errors))
    }

    /// The arms of `gate`'s build (all for `None`).
    pub fn arms_in(&self, build: Option<Gate>) -> impl Iterator<Item = &Arm> {
        self.arms.iter().filter(move |a| match build {
            None => true,
            Some(Gate::Stable) => a.gate != Gate::Unstable,
            Some(_) => a.gate != Gate::Stable,
        })
    }
}

/// The arm that rebuilds each collection (each kind of a `kinds` one) for
/// compaction: the first, in the union's order, that makes an entity whole
/// from one update (an upsert of its kind; a `put` whose payload needs
/// nothing but the value) and is in every build where some update can fill
/// the collection. A collection no update fills needs none; one that some
/// update fills but none rebuilds could not be written back as a stream.
fn rebuilders(collections: &[Collection], arms: &[Arm]) -> Result<Vec<Rebuild>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (at, c) in collections.iter().enumerate() {
        let kinds: Vec<Option<usize>> = match &c.holds {
            Held::Kinds { kinds, .. } => (0..kinds.len()).map(Some).collect(),
            _ => vec![None],
        };
        for kind in kinds {
            let fills: Vec<Gate> = arms
                .iter()
                .filter(|a| {
                    a.into == at
                        && match &a.rule {
                            Rule::Upsert { kind: k } | Rule::Append { kind: k, .. } => *k == kind,
                            Rule::AppendBase64 { .. } | Rule::Put { .. } => true,
                            Rule::Remove { .. } => false,
                        }
                })
                .map(|a| a.gate)
                .collect();
            if fills.is_empty() {
                continue;
            }
            // In every build where an update fills it.
            let covers = |g: Gate| [false, true].iter().all(|&u| !fills.iter().any(|f| f.in_build(u)) || g.in_build(u));
            let found = arms.iter().position(|a| {
                a.into == at
                    && covers(a.gate)
                    && match &a.rule {
                        Rule::Upsert { kind: k } => *k == kind,
                        Rule::Put { alone, .. } => *alone,
                        _ => false,
                    }
            });
            match found {
                Some(arm) => out.push(Rebuild { collection: at, kind, arm }),
                None => {
                    let of = match (&c.holds, kind) {
                        (Held::Kinds { kinds, .. }, Some(k)) => format!(", kind `{}`", kinds[k].0),
                        _ => String::new(),
                    };
                    errors.push(format!(
                        "`{}`{of}: no update writes a whole entity (an `upsert` of it, or a `put` whose payload \
                         needs nothing but the value) in every build that fills it, so the state cannot be compacted",
                        c.name
                    ));
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

struct Resolver<'m> {
    /// The plan's items with their builds (computed once: every lookup reads it).
    gated: Vec<(&'m Def, Gate)>,
}

impl<'m> Resolver<'m> {
    /// The rule of each configured update, in the union's order (as the Rust
    /// match and the TypeScript table write them); what does not fit goes to `errors`.
    fn arms(&self, config: &ReducerConfig, collections: &[Collection], errors: &mut Vec<String>) -> Vec<Arm> {
        let variants = self.variants(&config.union);
        let mut arms = Vec::new();
        for (tag, update) in &config.updates {
            let Some((variant, gate, payload)) = variants.iter().find(|v| &v.0 == tag).map(|v| (&v.1, v.2, &v.3))
            else {
                errors.push(format!("update `{tag}`: `{}` has no arm of that tag", config.union));
                continue;
            };
            match self.arm(collections, update, payload) {
                Ok((into, rule)) => arms.push(Arm { tag: tag.clone(), variant: variant.clone(), gate, into, rule }),
                Err(e) => errors.push(format!("update `{tag}`: {e}")),
            }
        }
        arms.sort_by_key(|a| variants.iter().position(|v| v.0 == a.tag));
        arms
    }

    /// The definition of `name` (the unstable build's when the builds differ:
    /// what only that build adds is checked against its gate by the compiler).
    fn def(&self, name: &str) -> Option<&'m Def> {
        let of = |g: Gate| self.gated.iter().find(|(d, gate)| d.name == name && *gate == g).map(|(d, _)| *d);
        of(Gate::Always).or_else(|| of(Gate::Unstable)).or_else(|| of(Gate::Stable))
    }

    /// Each arm of the union: tag, Rust variant, gate, payload definition.
    fn variants(&self, union: &str) -> Vec<(String, String, Gate, Option<&'m Def>)> {
        let mut out: Vec<(String, String, BTreeSet<Gate>, Option<&'m Def>)> = Vec::new();
        for &(def, gate) in self.gated.iter().filter(|(d, _)| d.name == union) {
            let Kind::Union(u) = &def.kind else { continue };
            for v in &u.variants {
                let Some(tag) = &v.tag else { continue };
                let payload = match &v.payload {
                    Payload::Type(Type::Ref(name)) => self.def(name),
                    _ => None,
                };
                match out.iter_mut().find(|o| &o.0 == tag) {
                    Some(o) => {
                        o.2.insert(gate);
                    }
                    None => out.push((tag.clone(), v.rust_name.clone(), [gate].into(), payload)),
                }
            }
        }
        out.into_iter()
            .map(|(tag, variant, gates, payload)| {
                let gate = if gates.contains(&Gate::Always) || gates.len() > 1 {
                    Gate::Always
                } else {
                    *gates.iter().next().expect("an arm is in a build")
                };
                (tag, variant, gate, payload)
            })
            .collect()
    }

    /// The upsert configured for the wire definition `wire`.
    fn upserted(&self, wire: &str) -> Result<Upserted, String> {
        let def = self.def(wire).ok_or_else(|| format!("`{wire}` is not a definition of the schema"))?;
        let upsert = def.upsert.as_ref().ok_or_else(|| format!("`{wire}` is not a configured upsert"))?;
        let Kind::Struct(s) = &def.kind else { return Err(format!("`{wire}` is no object")) };
        let key = match &upsert.key {
            Some(k) => {
                let f = field(s.fields.as_slice(), k).ok_or_else(|| format!("`{wire}` has no key property `{k}`"))?;
                Some((f.name.clone(), f.rust_name.clone(), f.ty.clone()))
            }
            None => None,
        };
        let key_alone = s.fields.iter().all(|f| !f.required || Some(&f.name) == upsert.key.as_ref());
        Ok(Upserted {
            wire: wire.to_owned(),
            patch: def.rust_name.clone(),
            state: upsert.state.clone(),
            key,
            key_alone,
        })
    }

    /// The collection and rule of one update.
    fn arm(
        &self,
        collections: &[Collection],
        update: &UpdateConfig,
        payload: &Option<&Def>,
    ) -> Result<(usize, Rule), String> {
        let into = match update {
            UpdateConfig::Upsert { into, .. }
            | UpdateConfig::Append { into, .. }
            | UpdateConfig::AppendBase64 { into, .. }
            | UpdateConfig::Put { into, .. }
            | UpdateConfig::Remove { into, .. } => into,
        };
        let at = collections.iter().position(|c| &c.name == into).ok_or_else(|| format!("no collection `{into}`"))?;
        let held = &collections[at].holds;
        let payload = payload.ok_or("its arm carries no definition")?;
        let Kind::Struct(ps) = &payload.kind else {
            return Err(format!("its payload `{}` is no object", payload.name));
        };
        let prop = |wire: &str| -> Result<Prop, String> {
            field(&ps.fields, wire)
                .map(|f| Prop { wire: f.name.clone(), rust: f.rust_name.clone() })
                .ok_or_else(|| format!("its payload `{}` has no property `{wire}`", payload.name))
        };
        let kind_of = |kind: &Option<String>| -> Result<Option<usize>, String> {
            match (held, kind) {
                (Held::Kinds { kinds, .. }, Some(k)) => {
                    kinds.iter().position(|x| &x.0 == k).map(Some).ok_or_else(|| format!("`{into}` has no kind `{k}`"))
                }
                (Held::Kinds { .. }, None) => Err(format!("`{into}` holds kinds: say which with `kind`")),
                (_, Some(_)) => Err(format!("`{into}` holds no kinds")),
                (_, None) => Ok(None),
            }
        };
        // The upsert an entity of the rule's kind is made from.
        let upserted = |kind: Option<usize>| -> Option<&Upserted> {
            match (held, kind) {
                (Held::Upsert(u), _) | (Held::One(u), _) => Some(u),
                (Held::Kinds { kinds, .. }, Some(k)) => Some(&kinds[k].3),
                _ => None,
            }
        };
        let key_of = |kind: Option<usize>| -> Result<Prop, String> {
            let u = upserted(kind).ok_or_else(|| format!("`{into}` holds no entities by key"))?;
            let (wire, ..) = u.key.as_ref().ok_or_else(|| format!("`{into}` holds a keyless state"))?;
            prop(wire)
        };
        let can_create = |kind: Option<usize>, create: bool| -> Result<(), String> {
            match upserted(kind) {
                Some(u) if create && !u.key_alone => Err(format!(
                    "`create` makes an entity from its key alone, but `{}` requires more than its key",
                    u.wire
                )),
                _ => Ok(()),
            }
        };
        let rule = match update {
            UpdateConfig::Upsert { kind, .. } => {
                let kind = kind_of(kind)?;
                match (upserted(kind), held) {
                    (Some(u), _) if u.wire == payload.name => Rule::Upsert { kind },
                    (Some(u), _) => {
                        return Err(format!("its payload is `{}`, not the upsert `{}`", payload.name, u.wire))
                    }
                    (None, _) => return Err(format!("`{into}` holds no upserts")),
                }
            }
            UpdateConfig::Append { kind, from, to, create, .. } => {
                let kind = kind_of(kind)?;
                can_create(kind, *create)?;
                let (state, ty) = self.state_field(upserted(kind), to, into)?;
                let Type::Array { items, .. } = ty else { return Err(format!("`{to}` is no list")) };
                let item = (*items).clone();
                Rule::Append { kind, key: key_of(kind)?, from: prop(from)?, to: state, item, create: *create }
            }
            UpdateConfig::AppendBase64 { from, to, create, .. } => {
                can_create(None, *create)?;
                self.append_base64(upserted(None), into, (key_of(None)?, prop(from)?), to, *create)?
            }
            UpdateConfig::Put { from, .. } | UpdateConfig::Remove { from, .. } => {
                let Held::Whole { wire, .. } = held else { return Err(format!("`{into}` holds no whole values")) };
                let from = prop(from)?;
                let ty = field(&ps.fields, &from.wire).map(|f| &f.ty);
                match update {
                    UpdateConfig::Put { .. } if ty != Some(&Type::Ref(wire.clone())) => {
                        return Err(format!("its `{}` is no `{wire}`", from.wire))
                    }
                    UpdateConfig::Put { .. } => Rule::Put {
                        alone: ps.fields.iter().all(|f| !f.required || f.name == from.wire),
                        payload: payload.rust_name.clone(),
                        from,
                    },
                    _ => Rule::Remove { from },
                }
            }
        };
        Ok((at, rule))
    }

    /// `append_base64` into `to` (`object.property`) of the upsert `u`'s states.
    fn append_base64(
        &self,
        u: Option<&Upserted>,
        into: &str,
        (key, from): (Prop, Prop),
        to: &str,
        create: bool,
    ) -> Result<Rule, String> {
        let (outer, inner) = to.split_once('.').ok_or("`to` is `object.property`")?;
        let (outer_prop, outer_ty) = self.state_field(u, outer, into)?;
        let object = match &outer_ty {
            Type::Ref(n) => self.def(n),
            _ => None,
        };
        let object = object.ok_or_else(|| format!("`{outer}` is no object property"))?;
        let Kind::Struct(os) = &object.kind else { return Err(format!("`{outer}` is no object")) };
        let inner_field = field(&os.fields, inner).filter(|f| f.ty == Type::Base64);
        let inner_field = inner_field.ok_or_else(|| format!("`{outer}` has no base64 property `{inner}`"))?;
        if os.fields.iter().any(|f| f.required && f.name != inner) {
            return Err(format!(
                "`{}` requires more than `{inner}`: it cannot be made from appended text",
                object.name
            ));
        }
        let inner_prop = Prop { wire: inner_field.name.clone(), rust: inner_field.rust_name.clone() };
        Ok(Rule::AppendBase64 { key, from, to: (outer_prop, inner_prop), object: object.rust_name.clone(), create })
    }

    /// A property of the state an upsert's entities hold (named as on the wire).
    fn state_field(&self, upsert: Option<&Upserted>, wire: &str, into: &str) -> Result<(Prop, Type), String> {
        let u = upsert.ok_or_else(|| format!("`{into}` holds no upserts"))?;
        let def = self.def(&u.wire).expect("an upsert resolved");
        let Kind::Struct(s) = &def.kind else { unreachable!("an upsert is an object") };
        field(&s.fields, wire)
            .map(|f| (Prop { wire: f.name.clone(), rust: f.rust_name.clone() }, f.ty.clone()))
            .ok_or_else(|| format!("`{}` has no property `{wire}`", u.wire))
    }
}

fn field<'a>(fields: &'a [Field], wire: &str) -> Option<&'a Field> {
    fields.iter().find(|f| f.name == wire)
}

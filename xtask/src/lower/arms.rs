//! `anyOf`/`oneOf`: enums (const arms, with an optional catch-all) and unions
//! (tagged arms, untagged arms, the `none` arm, the `not`-guarded catch-all).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{escape, fixed, tag_of, type_ident, Lowerer, Obj};
use crate::error::Result;
use crate::model::*;

impl Lowerer<'_> {
    // ---- enums ---------------------------------------------------------------

    pub(super) fn closed_enum(&self, values: &Value, pointer: &str) -> Result<Enum> {
        let arr = values.as_array().ok_or_else(|| self.err(pointer, "`enum` must be an array"))?;
        if arr.is_empty() {
            return Err(self.err(pointer, "an empty `enum` allows no value at all"));
        }
        let mut variants = Vec::new();
        for (i, v) in arr.iter().enumerate() {
            let s = v.as_str().ok_or_else(|| self.err(pointer, "only string `enum` values are supported"))?;
            let pointer = format!("{pointer}/{i}");
            variants.push(EnumVariant {
                value: EnumValue::Str(s.to_owned()),
                pointer,
                rust_name: type_ident(s),
                title: None,
                docs: None,
            });
        }
        let e = Enum { repr: EnumRepr::String, variants, fallback: None };
        self.check_variant_names(e.variants.iter().map(|v| &v.rust_name), pointer)?;
        Ok(e)
    }

    /// Recognises `anyOf`/`oneOf` of `const` arms (plus an optional catch-all
    /// arm of the same type) as an enum.
    pub(super) fn enumeration(&self, arms: &[&Obj], pointer: &str, key: &str) -> Result<Option<Enum>> {
        fn scalar(a: &Obj) -> Option<&str> {
            a.get("type").and_then(Value::as_str).filter(|t| *t == "string" || *t == "integer")
        }
        let Some(first_ty) = arms.first().and_then(|a| scalar(a)) else {
            return Ok(None);
        };
        if !arms.iter().all(|a| scalar(a) == Some(first_ty) && !a.contains_key("properties")) {
            return Ok(None);
        }
        // An arm names one value (`const`) or several (`enum`, as schemars
        // writes a closed set of strings next to a catch-all string arm).
        let consts = arms.iter().filter(|a| a.contains_key("const") || a.contains_key("enum")).count();
        if consts == 0 || consts + 1 < arms.len() {
            return Ok(None);
        }
        let repr = if first_ty == "string" {
            EnumRepr::String
        } else {
            match self.integer(arms[0], pointer)? {
                Type::Integer { format, .. } => EnumRepr::Integer(format),
                _ => unreachable!("integer() returns an integer type"),
            }
        };
        let mut variants = Vec::new();
        let mut fallback = None;
        for (i, a) in arms.iter().enumerate() {
            let p = format!("{pointer}/{key}/{i}");
            self.check_keywords(a, &p)?;
            let title = a.get("title").and_then(Value::as_str);
            if let (None, Some(values)) = (a.get("const"), a.get("enum")) {
                if repr != EnumRepr::String {
                    return Err(self.err(&p, "an `enum` arm is understood among string arms"));
                }
                let e = self.closed_enum(values, &format!("{p}/enum"))?;
                for v in e.variants {
                    if variants.iter().any(|x: &EnumVariant| x.value == v.value) {
                        return Err(self.err(&v.pointer, format!("duplicate enum value {}", v.value)));
                    }
                    variants.push(v);
                }
                continue;
            }
            match a.get("const") {
                Some(v) => {
                    let rust_name = match (repr, v) {
                        (EnumRepr::String, Value::String(s)) => type_ident(s),
                        (EnumRepr::Integer(format), Value::Number(n))
                            if !n.as_i64().is_some_and(|n| {
                                let (lo, hi) = format.range();
                                (lo..=hi).contains(&i128::from(n))
                            }) =>
                        {
                            return Err(self.err(&p, {
                                let (lo, hi) = format.range();
                                format!("`const` {v} is not a whole number from {lo} to {}", hi.min(i64::MAX.into()))
                            }))
                        }
                        (EnumRepr::Integer(_), Value::Number(n)) => integer_variant_name(title, a, n),
                        _ => return Err(self.err(&p, format!("`const` {v} does not match the arm's `type`"))),
                    };
                    // A string or a whole number in range: checked just above.
                    let v = EnumValue::from_json(v).expect("a string or an integer");
                    if variants.iter().any(|x: &EnumVariant| x.value == v) {
                        return Err(self.err(&p, format!("duplicate enum value {v}")));
                    }
                    if let Some(x) = variants.iter().find(|x: &&EnumVariant| x.rust_name == rust_name) {
                        return Err(self.err(
                            &p,
                            format!(
                                "the values {} and {v} both make the Rust variant `{rust_name}`: give one a `title`",
                                x.value
                            ),
                        ));
                    }
                    let (title, docs) = (Self::title(a), Self::docs(a));
                    variants.push(EnumVariant { value: v, pointer: p, rust_name, title, docs });
                }
                None => {
                    let rust_name = type_ident(title.unwrap_or("other"));
                    fallback = Some(Fallback { rust_name, title: Self::title(a), pointer: p, docs: Self::docs(a) });
                }
            }
        }
        let names = variants.iter().map(|v| &v.rust_name).chain(fallback.as_ref().map(|f| &f.rust_name));
        self.check_variant_names(names, pointer)?;
        Ok(Some(Enum { repr, variants, fallback }))
    }

    fn check_variant_names<'n>(&self, names: impl Iterator<Item = &'n String>, pointer: &str) -> Result<()> {
        let mut seen = BTreeSet::new();
        for n in names {
            if !seen.insert(n.clone()) {
                return Err(self.err(pointer, format!("two arms map to the Rust variant `{n}`")));
            }
        }
        Ok(())
    }

    // ---- unions ------------------------------------------------------------------

    pub(super) fn union(
        &self,
        name: &str,
        parent: &Obj,
        arms: &[&Obj],
        pointer: &str,
        tag_hint: Option<(String, bool)>,
        inline: &mut Vec<Def>,
    ) -> Result<Union> {
        let hinted = tag_hint.is_some();
        let tag = match tag_hint {
            Some((t, lenient)) => Some(Tag { property: t, lenient, declared: false }),
            None => tag_of(arms).map(|property| Tag { property, lenient: false, declared: false }),
        };
        let tag = self.discriminator(parent, pointer, tag)?;
        // An arm that names the discriminator without fixing it (`"type":
        // {"type": "string"}`) takes any value of it: as JSON Schema means it,
        // the union is told apart by its arms, each arm that fixes a value
        // checking it as a property of its own.
        let mut named_by = None;
        let tag = match tag {
            Some(t) if !hinted => {
                match arms.iter().position(|a| !a.contains_key("not") && names_without_const(a, &t.property)) {
                    Some(i) => {
                        self.warn(
                            &format!("{pointer}/{i}"),
                            format!(
                                "an arm names the discriminator `{}` without a `const`: the union is told apart by \
                                 its arms, each checking its own `{}`",
                                t.property, t.property
                            ),
                        );
                        named_by = Some(t.property);
                        None
                    }
                    None => Some(t),
                }
            }
            t => t,
        };
        let mut variants = Vec::new();
        let mut catch_all_arm = None;
        // The arms other than the catch-all, as written (an untagged
        // catch-all's `not` must list exactly these).
        let mut others = Vec::new();
        let unnamed = unnamed_arm_names(arms, tag.as_ref().map(|t| t.property.as_str()), named_by.as_deref(), |a| {
            self.all_of_ref(a, pointer).ok().flatten()
        });
        for (i, arm) in arms.iter().enumerate() {
            let p = format!("{pointer}/{i}");
            if arm.contains_key("not") {
                if catch_all_arm.is_some() {
                    return Err(self.err(&p, "a union with two catch-all arms"));
                }
                catch_all_arm = Some((*arm, p));
                continue;
            }
            self.check_keywords(arm, &p)?;
            variants.push(self.variant(name, arm, &p, tag.as_ref(), unnamed[i].as_deref(), inline)?);
            others.push((*arm, p));
        }
        let mut known: Vec<&str> = variants.iter().filter_map(|v| v.tag.as_deref()).collect();
        let mut catch_all = None;
        if let Some((arm, p)) = catch_all_arm {
            catch_all = Some(match &tag {
                Some(tag) => self.catch_all(arm, &p, &tag.property, &known)?,
                None => self.untagged_catch_all(arm, &p, &others)?,
            });
        }
        known.sort_unstable();
        if let Some(dup) = known.windows(2).find(|w| w[0] == w[1]) {
            return Err(self.err(pointer, format!("two arms share the discriminator value `{}`", dup[0])));
        }
        let names = variants.iter().map(|v| &v.rust_name).chain(catch_all.as_ref().map(|c| &c.rust_name));
        self.check_variant_names(names, pointer)?;
        Ok(Union { tag, variants, catch_all })
    }

    /// The union's `discriminator` keyword (OpenAPI's, not JSON Schema's: a
    /// hint) checked against the property its arms fix with a `const`. It
    /// must name that property; when the arms fix none, it is ignored with a
    /// warning and the union is told apart by its arms. `pointer` is the
    /// union's `anyOf`/`oneOf`, beside the keyword.
    fn discriminator(&self, parent: &Obj, pointer: &str, tag: Option<Tag>) -> Result<Option<Tag>> {
        let Some(d) = parent.get("discriminator") else {
            return Ok(tag);
        };
        let at = format!("{}/discriminator", pointer.rsplit_once('/').map_or("", |(p, _)| p));
        let Some(property) = d.get("propertyName").and_then(Value::as_str) else {
            return Err(self.err(&at, "`discriminator` must be an object with a string `propertyName`"));
        };
        match tag {
            Some(t) if t.property != property => Err(self.err(
                pointer,
                format!("`discriminator` disagrees with the arms, which discriminate on `{}`", t.property),
            )),
            Some(t) => Ok(Some(Tag { declared: true, ..t })),
            None => {
                self.warn(
                    &at,
                    format!(
                        "`discriminator` (`propertyName` `{property}`) names no property the arms fix with a `const`: \
                         ignored, the union is told apart by its arms"
                    ),
                );
                Ok(None)
            }
        }
    }

    fn variant(
        &self,
        owner: &str,
        arm: &Obj,
        pointer: &str,
        tag: Option<&Tag>,
        unnamed: Option<&str>,
        inline: &mut Vec<Def>,
    ) -> Result<Variant> {
        let title = arm.get("title").and_then(Value::as_str);
        let (docs, written_title) = (Self::docs(arm), Self::title(arm));
        let empty = Map::new();
        let props = match arm.get("properties") {
            Some(p) => self.object(p, &format!("{pointer}/properties"))?,
            None => &empty,
        };
        let tag_value = tag.and_then(|t| props.get(&t.property)).and_then(fixed).and_then(Value::as_str);
        // `allOf: [{$ref}]`, or a `$ref` written directly in the arm.
        let target = match arm.get("$ref") {
            Some(_) => Some(self.resolve_ref(arm, pointer)?),
            None => self.all_of_ref(arm, pointer)?,
        };
        if let Some(tv) = tag_value {
            let rest: Obj = props
                .iter()
                .filter(|(k, _)| Some(k.as_str()) != tag.map(|t| t.property.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let rust_name = type_ident(tv);
            let payload = match (target, rest.is_empty()) {
                (Some(t), true) => Payload::Type(Type::Ref(t)),
                (None, true) => Payload::Unit,
                (None, false) => {
                    let inline_name = format!("{owner}{rust_name}");
                    let mut obj = arm.clone();
                    obj.insert("properties".into(), Value::Object(rest));
                    let req: Vec<Value> = self
                        .required(arm, pointer)?
                        .into_iter()
                        .filter(|r| Some(r.as_str()) != tag.map(|t| t.property.as_str()))
                        .map(Value::from)
                        .collect();
                    obj.insert("required".into(), Value::Array(req));
                    let mut nested = Vec::new();
                    let st = self.structure(&inline_name, &obj, pointer, None, &mut nested)?;
                    inline.push(self.inline_def(inline_name.clone(), arm, pointer, Kind::Struct(st), nested));
                    Payload::Type(Type::Ref(inline_name))
                }
                (Some(_), false) => {
                    return Err(
                        self.err(pointer, "a union arm with both `allOf` and its own properties is not supported")
                    )
                }
            };
            let (pointer, tag) = (pointer.to_owned(), Some(tv.to_owned()));
            return Ok(Variant { rust_name, title: written_title, pointer, docs, tag, payload });
        }
        // An arm without a discriminator value.
        if let Some(t) = tag {
            if let Some(p) = props.get(&t.property) {
                if p.get("type") == Some(&Value::from("null")) && props.len() == 1 {
                    let rust_name = type_ident(title.unwrap_or("none"));
                    let pointer = pointer.to_owned();
                    let title = written_title;
                    return Ok(Variant { rust_name, title, pointer, docs, tag: None, payload: Payload::NoTag });
                }
                return Err(self
                    .err(pointer, format!("an arm that names the discriminator `{}` without a `const`", t.property)));
            }
        }
        if let Some(target) = target {
            let rust_name = type_ident(title.unwrap_or(&target));
            let pointer = pointer.to_owned();
            let payload = Payload::Type(Type::Ref(target));
            return Ok(Variant { rust_name, title: written_title, pointer, docs, tag: None, payload });
        }
        // An arm with neither title nor `$ref` is named from its shape.
        let Some(title) = title.or(unnamed) else {
            return Err(self.err(pointer, "an untagged union arm needs a `title` or a `$ref` to name it"));
        };
        let rust_name = type_ident(title);
        let inline_name = format!("{owner}{rust_name}");
        let (ty, nullable) = self.ty(arm, pointer, &inline_name, inline)?;
        if nullable {
            return Err(self.err(pointer, "a nullable union arm is not supported"));
        }
        self.unchecked_rule(&ty, pointer)?;
        let pointer = pointer.to_owned();
        Ok(Variant { rust_name, title: written_title, pointer, docs, tag: None, payload: Payload::Type(ty) })
    }

    fn catch_all(&self, arm: &Obj, pointer: &str, tag: &str, known: &[&str]) -> Result<CatchAll> {
        let not_ptr = format!("{pointer}/not");
        let uninterpretable = |why: &str| self.err(&not_ptr, format!("a `not` the generator cannot interpret: {why}"));
        let guarded = arm
            .get("not")
            .and_then(|n| n.as_object())
            .filter(|n| n.len() == 1)
            .and_then(|n| n.get("anyOf"))
            .and_then(Value::as_array)
            .ok_or_else(|| uninterpretable("expected `not: {anyOf: [...]}`"))?;
        let mut listed = BTreeSet::new();
        for g in guarded {
            let v = g
                .get("properties")
                .and_then(|p| p.get(tag))
                .and_then(fixed)
                .and_then(Value::as_str)
                .ok_or_else(|| uninterpretable(&format!("every guarded arm must fix `{tag}` with a `const`")))?;
            listed.insert(v);
        }
        let known_set: BTreeSet<&str> = known.iter().copied().collect();
        let missing: Vec<_> = known_set.difference(&listed).collect();
        if !missing.is_empty() {
            return Err(uninterpretable(&format!(
                "it must exclude every known `{tag}` value (not excluded: {missing:?})"
            )));
        }
        // Excluded values without an arm: reserved for arms not added yet.
        let reserved: Vec<String> = listed.difference(&known_set).map(|s| s.to_string()).collect();
        let mut a = arm.clone();
        a.remove("not");
        self.check_keywords(&a, pointer)?;
        let props = match a.get("properties") {
            Some(p) => self.object(p, pointer)?.clone(),
            None => Map::new(),
        };
        match props.get(tag).and_then(|p| p.get("type")) {
            Some(Value::String(t)) if t == "string" => {}
            _ => return Err(self.err(pointer, format!("the catch-all arm must declare `{tag}` as a string"))),
        }
        let required = self.required(&a, pointer)?.into_iter().filter(|r| r != tag).collect();
        let additional = self.untyped_additional(&a, pointer)?;
        let fields = self.catch_all_fields(&props, Some(tag), pointer)?;
        let mut one_of = Vec::new();
        if let Some(key) = ["oneOf", "anyOf"].into_iter().find(|k| a.contains_key(*k)) {
            for (i, arm) in self.arms(&a, key, pointer)?.into_iter().enumerate() {
                let p = format!("{pointer}/{key}/{i}");
                self.check_keywords(arm, &p)?;
                if self.all_of_ref(arm, &p)?.is_none() {
                    return Err(self.err(&p, "an arm of a catch-all's own union must be a `$ref`"));
                }
                one_of.push(self.variant("CatchAll", arm, &p, None, None, &mut Vec::new())?);
            }
        }
        let tag_docs = props.get(tag).and_then(Value::as_object).and_then(Self::docs);
        let title = Self::title(&a);
        Ok(CatchAll {
            rust_name: type_ident(title.as_deref().unwrap_or("other")),
            title,
            pointer: pointer.to_owned(),
            docs: Self::docs(&a),
            tag_docs,
            required,
            fields,
            additional,
            one_of,
            reserved,
        })
    }

    /// The typed properties of a catch-all arm (all but the discriminator).
    pub(super) fn catch_all_fields(&self, props: &Obj, tag: Option<&str>, pointer: &str) -> Result<Vec<Field>> {
        let mut fields = Vec::new();
        for (k, v) in props.iter().filter(|(k, _)| Some(k.as_str()) != tag) {
            let p = format!("{pointer}/properties/{}", escape(k));
            let mut nested = Vec::new();
            let f = self.field("CatchAll", k, v, &p, false, &mut nested)?;
            if !nested.is_empty() {
                return Err(self.err(&p, "an inline type in a catch-all arm is not supported"));
            }
            self.unchecked_rule(&f.ty, &p)?;
            fields.push(f);
        }
        Ok(fields)
    }
}

/// Names for the arms of a union that have neither `title` nor `$ref` (nor a
/// discriminator value): from their shape (`String`, `Integer`, `Number`,
/// `Boolean`, `Null`, `{Item}Array`, `Object`, `Map`, `Any`, or the member
/// of an object that holds exactly one, as serde writes an externally tagged
/// variant); a name that two
/// arms (or a titled arm) would share gets the arm's 1-based position
/// (`Object2`, `Object3`). `None` for the arms named otherwise.
/// Whether `arm` names `property` without fixing its value (and is not the
/// arm where it is `null` alone, which a tagged union reads as its untagged arm).
fn names_without_const(arm: &Obj, property: &str) -> bool {
    let props = arm.get("properties").and_then(Value::as_object);
    let Some(p) = props.and_then(|p| p.get(property)) else { return false };
    let null_alone = p.get("type") == Some(&Value::from("null")) && props.is_some_and(|p| p.len() == 1);
    fixed(p).is_none() && !null_alone
}

/// The names of the arms that have none of their own (no `title`, `$ref`,
/// tag value): from the value they fix of `named_by` (the discriminator of a
/// union told apart by its arms), else from their shape.
fn unnamed_arm_names(
    arms: &[&Obj],
    tag: Option<&str>,
    named_by: Option<&str>,
    target: impl Fn(&Obj) -> Option<String>,
) -> Vec<Option<String>> {
    let tagged = |a: &Obj| {
        tag.and_then(|t| a.get("properties")?.get(t))
            .is_some_and(|p| fixed(p).is_some() || p.get("type") == Some(&Value::from("null")))
    };
    let named = |a: &Obj| {
        a.contains_key("title") || a.contains_key("$ref") || target(a).is_some() || tagged(a) || a.contains_key("not")
    };
    let value_of = |a: &Obj| {
        let p = a.get("properties")?.get(named_by?)?;
        fixed(p)?.as_str().map(type_ident)
    };
    let bases: Vec<Option<String>> =
        arms.iter().map(|a| (!named(a)).then(|| value_of(a).unwrap_or_else(|| shape_name(a)))).collect();
    let titled: BTreeSet<String> =
        arms.iter().filter_map(|a| a.get("title").and_then(Value::as_str)).map(type_ident).collect();
    bases
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let b = b.as_ref()?;
            let shared = bases.iter().filter(|x| x.as_ref() == Some(b)).count() > 1 || titled.contains(b);
            Some(if shared { format!("{b}{}", i + 1) } else { b.clone() })
        })
        .collect()
}

/// The name of a schema's shape, for an arm without a name.
fn shape_name(a: &Obj) -> String {
    match a.get("type").and_then(Value::as_str) {
        Some("string") => "String".into(),
        Some("integer") => "Integer".into(),
        Some("number") => "Number".into(),
        Some("boolean") => "Boolean".into(),
        Some("null") => "Null".into(),
        Some("array") => {
            let item = a.get("items").and_then(Value::as_object).map(|i| match i.get("$ref").and_then(Value::as_str) {
                Some(r) => type_ident(r.rsplit('/').next().unwrap_or("Item")),
                None => shape_name(i),
            });
            format!("{}Array", item.unwrap_or_default())
        }
        // What serde writes for a variant of an externally tagged enum: an
        // object of exactly one required member, named after the variant.
        Some("object") if single_member(a).is_some() => type_ident(single_member(a).unwrap_or_default()),
        Some("object") if a.contains_key("properties") => "Object".into(),
        Some("object") if a.get("additionalProperties").is_some_and(Value::is_object) => "Map".into(),
        Some("object") => "Object".into(),
        _ => "Any".into(),
    }
}

/// The one member of an object that allows exactly one, and requires it
/// (`{"properties": {"Newtype": ..}, "required": ["Newtype"], "additionalProperties": false}`).
fn single_member(a: &Obj) -> Option<&str> {
    let props = a.get("properties")?.as_object()?;
    let required = a.get("required")?.as_array()?;
    if props.len() != 1 || required.len() != 1 || a.get("additionalProperties") != Some(&Value::Bool(false)) {
        return None;
    }
    let name = props.keys().next()?;
    (required[0] == name.as_str()).then_some(name.as_str())
}

/// The Rust variant of an integer enum value: from its `title`, else from the
/// bold lead of its description (`**Parse error**: ...` gives `ParseError`),
/// else from the value (`Code32700` for -32700). Two values that make one
/// name (-32700 and 32700) are an error asking for a `title`.
fn integer_variant_name(title: Option<&str>, arm: &Obj, n: &serde_json::Number) -> String {
    if let Some(t) = title {
        return type_ident(t);
    }
    let lead = arm
        .get("description")
        .and_then(Value::as_str)
        .and_then(|d| d.trim_start().strip_prefix("**"))
        .and_then(|rest| rest.split_once("**"))
        .map(|(bold, _)| type_ident(bold.trim()))
        .filter(|name| name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()));
    lead.unwrap_or_else(|| format!("Code{}", n.to_string().trim_start_matches('-')))
}

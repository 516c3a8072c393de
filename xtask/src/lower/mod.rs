//! JSON Schema -> IR.
//!
//! Every construct is recognised explicitly. Anything else is an error naming
//! the JSON pointer: the generator never guesses and never falls back to
//! `serde_json::Value` for a schema it does not understand. Lowering goes on
//! past a definition or a property it cannot take, so one run reports every
//! such problem of the file ([`Error::Many`]).

use std::collections::BTreeSet;
use std::path::PathBuf;

use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::model::*;

mod arms;
mod driver;
mod graph;
mod guard;
mod not;
mod types;
mod values;

pub use driver::{lower, lower_in, lower_with, Mode};
pub use guard::{without_annotations, ANNOTATIONS};

/// Keywords the generator understands inside a schema object.
const KNOWN_KEYWORDS: &[&str] = &[
    "$ref",
    "$schema",
    "additionalItems",
    "additionalProperties",
    "allOf",
    "anyOf",
    "const",
    "contentEncoding",
    "default",
    "description",
    "discriminator",
    "enum",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maximum",
    "minItems",
    "minLength",
    "minimum",
    "not",
    "oneOf",
    "pattern",
    "prefixItems",
    "properties",
    "required",
    "title",
    "type",
    "unevaluatedProperties",
    "uniqueItems",
    "x-deserialize-default-on-error",
    "x-deserialize-default-on-null",
    "x-deserialize-skip-invalid-items",
    "x-docs-ignore",
    "x-method",
    "x-side",
];

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become",
    "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Escapes one JSON pointer segment.
pub fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// A Rust field name for a wire property name: snake case, keywords as raw identifiers.
pub fn field_ident(name: &str) -> String {
    let snake = name.to_snake_case();
    let snake = if snake.is_empty() { "field".to_owned() } else { snake };
    let snake = if snake.starts_with(|c: char| c.is_ascii_digit()) { format!("n{snake}") } else { snake };
    match snake.as_str() {
        "self" | "Self" | "super" | "crate" => format!("{snake}_"),
        s if RUST_KEYWORDS.contains(&s) => format!("r#{snake}"),
        _ => snake,
    }
}

/// A Rust type or variant name for a schema name, value or title.
pub fn type_ident(name: &str) -> String {
    // A name in capitals only (`BLUE`) is an acronym to Rust's style: `Blue`.
    let shouting =
        name.chars().filter(char::is_ascii_alphabetic).count() > 1 && !name.chars().any(|c| c.is_ascii_lowercase());
    let already = !shouting
        && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().all(|c| c.is_ascii_alphanumeric());
    let camel = if already { name.to_owned() } else { name.to_upper_camel_case() };
    let camel = if camel.is_empty() {
        // Nothing usable: keep the name so that the identifier check reports it.
        name.to_owned()
    } else if camel.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{camel}")
    } else {
        camel
    };
    if camel == "Self" {
        "Self_".to_owned()
    } else {
        camel
    }
}

struct Lowerer<'a> {
    file: PathBuf,
    defs: &'a Map<String, Value>,
    /// Where the file keeps its definitions: `$defs` (2019-09 on), or
    /// `definitions` (draft-07 and before); `$ref`s and pointers use it.
    defs_key: &'static str,
    /// Warnings of the definitions lowered so far (a construct read as less
    /// than it says, such as an ignored `discriminator`), each naming the
    /// file and the pointer; they end in [`Module::warnings`].
    warnings: std::cell::RefCell<Vec<String>>,
}

type Obj = Map<String, Value>;

impl<'a> Lowerer<'a> {
    fn err(&self, pointer: &str, message: impl Into<String>) -> Error {
        Error::Schema { file: self.file.clone(), pointer: format!("#{pointer}"), message: message.into() }
    }

    /// Records a warning naming the file and the pointer, as an error would.
    fn warn(&self, pointer: &str, message: impl Into<String>) {
        self.warnings.borrow_mut().push(self.err(pointer, message).to_string());
    }

    /// A schema in a position that takes any schema (a definition, a
    /// property, `items`, `additionalProperties`): an object, or the boolean
    /// schema `true`, which allows any JSON value, as `{}` does.
    fn schema<'v>(&self, v: &'v Value, pointer: &str) -> Result<&'v Obj> {
        static ANY: std::sync::LazyLock<Obj> = std::sync::LazyLock::new(Obj::new);
        match v {
            Value::Bool(true) => Ok(&ANY),
            Value::Bool(false) => Err(self.err(
                pointer,
                "the schema `false` allows no value: it is understood only as a property, which must then be absent",
            )),
            _ => self.object(v, pointer),
        }
    }

    fn object<'v>(&self, v: &'v Value, pointer: &str) -> Result<&'v Obj> {
        v.as_object().ok_or_else(|| self.err(pointer, format!("expected a schema object, found {}", kind_of(v))))
    }

    fn check_keywords(&self, s: &Obj, pointer: &str) -> Result<()> {
        for key in s.keys() {
            if !KNOWN_KEYWORDS.contains(&key.as_str()) {
                return Err(self.err(pointer, format!("unsupported keyword `{key}`")));
            }
        }
        if s.contains_key("not") {
            return Err(self.err(
                &format!("{pointer}/not"),
                "`not` is understood on a definition (`not: {const}` / `not: {enum}`) and as the guard of a union's catch-all arm (`not: {anyOf: [..]}`), not here",
            ));
        }
        Ok(())
    }

    fn docs(s: &Obj) -> Option<String> {
        s.get("description").and_then(Value::as_str).map(str::to_owned)
    }

    fn flag(&self, s: &Obj, key: &str, pointer: &str) -> Result<bool> {
        match s.get(key) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(self.err(pointer, format!("`{key}` must be a boolean, found {}", kind_of(other)))),
        }
    }

    fn resolve_ref(&self, s: &Obj, pointer: &str) -> Result<String> {
        let r = s["$ref"].as_str().ok_or_else(|| self.err(pointer, "`$ref` must be a string"))?;
        let key = self.defs_key;
        let Some(name) = r.strip_prefix("#/").and_then(|r| r.strip_prefix(key)).and_then(|r| r.strip_prefix('/'))
        else {
            return Err(self.err(pointer, format!("unsupported `$ref` `{r}`: only `#/{key}/<name>` is understood")));
        };
        if !self.defs.contains_key(name) {
            return Err(self.err(pointer, format!("dangling `$ref`: no definition `{name}` in `{key}`")));
        }
        Ok(name.to_owned())
    }

    /// `allOf: [{$ref}]`: the only `allOf` form the schema uses.
    fn all_of_ref(&self, s: &Obj, pointer: &str) -> Result<Option<String>> {
        let Some(all) = s.get("allOf") else {
            return Ok(None);
        };
        let arr = all.as_array().filter(|a| a.len() == 1);
        let Some(only) = arr.and_then(|a| a[0].as_object()).filter(|o| o.contains_key("$ref")) else {
            return Err(
                self.err(&format!("{pointer}/allOf"), "unsupported `allOf`: only a single `$ref` is understood")
            );
        };
        let p = format!("{pointer}/allOf/0");
        self.check_keywords(only, &p)?;
        self.resolve_ref(only, &p).map(Some)
    }

    fn method(&self, name: &str, s: &Obj, pointer: &str) -> Result<Option<Method>> {
        match (s.get("x-method"), s.get("x-side")) {
            (None, None) => Ok(None),
            (Some(Value::String(m)), Some(Value::String(side))) => {
                let side = Side::parse(side).ok_or_else(|| {
                    self.err(
                        &format!("{pointer}/x-side"),
                        format!("unknown `x-side` `{side}`: expected agent, client, protocol or proxy"),
                    )
                })?;
                // Provisional: the envelope that carries the payload decides
                // (`graph::roles`); the suffix only serves schemas without envelopes.
                let kind = if name.ends_with("Request") {
                    MethodKind::Request
                } else if name.ends_with("Response") {
                    MethodKind::Response
                } else {
                    MethodKind::Notification
                };
                let variant = crate::model::method_variant(m);
                if syn::parse_str::<syn::Ident>(&variant).is_err() {
                    return Err(self.err(
                        &format!("{pointer}/x-method"),
                        format!(
                            "method `{m}` gives no Rust variant name (`{variant}`): it needs a letter before any digit, outside `/ $ . - _`, and must not make a keyword"
                        ),
                    ));
                }
                Ok(Some(Method { name: m.clone(), side, kind }))
            }
            _ => Err(self.err(pointer, "`x-method` and `x-side` must both be strings, and come together")),
        }
    }

    fn title(s: &Obj) -> Option<String> {
        s.get("title").and_then(Value::as_str).map(str::to_owned)
    }

    fn def(&self, name: &str, schema: &Value, pointer: &str) -> Result<Def> {
        let full = self.schema(schema, pointer)?;
        // `not` on a definition: values it excludes (`not: {const}` / `not: {enum}`),
        // or, on an object, a property it forbids or fixes (`not: {required: [..]}`).
        let mut rewritten = None;
        let (s, excluded) = match full.get("not") {
            Some(not) if not.get("required").is_some() => {
                let (obj, prop) = self.object_not(full, not, &format!("{pointer}/not"))?;
                rewritten = Some(prop);
                (std::borrow::Cow::Owned(obj), Vec::new())
            }
            Some(not) => {
                let excluded = self.excluded(not, &format!("{pointer}/not"))?;
                let mut rest = full.clone();
                rest.remove("not");
                (std::borrow::Cow::Owned(rest), excluded)
            }
            None => (std::borrow::Cow::Borrowed(full), Vec::new()),
        };
        let s: &Obj = &s;
        self.check_keywords(s, pointer)?;
        let mut inline = Vec::new();
        let mut kind = self.kind(name, s, pointer, &mut inline)?;
        if let Some(prop) = &rewritten {
            not::point_at_not(&mut kind, &mut inline, pointer, prop);
        }
        if !excluded.is_empty() {
            let strings = matches!(&kind, Kind::Newtype(Type::String { .. })) && excluded.iter().all(Value::is_string);
            if !strings {
                return Err(self.err(
                    &format!("{pointer}/not"),
                    "`not` on a definition is understood on a string definition, excluding strings",
                ));
            }
        }
        Ok(Def {
            // Strings only: checked just above.
            excluded: excluded.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            name: name.to_owned(),
            rust_name: type_ident(name),
            pointer: pointer.to_owned(),
            docs: Self::docs(s),
            method: self.method(name, s, pointer)?,
            envelope: self.flag(s, "x-docs-ignore", pointer)?,
            kind,
            inline,
            upsert: None,
            refs: Vec::new(),
            direction: Direction::default(),
        })
    }

    fn inline_def(&self, name: String, s: &Obj, pointer: &str, kind: Kind, inline: Vec<Def>) -> Def {
        Def {
            excluded: Vec::new(),
            rust_name: type_ident(&name),
            name,
            pointer: pointer.to_owned(),
            docs: Self::docs(s),
            method: None,
            envelope: false,
            kind,
            inline,
            upsert: None,
            refs: Vec::new(),
            direction: Direction::default(),
        }
    }

    fn kind(&self, name: &str, s: &Obj, pointer: &str, inline: &mut Vec<Def>) -> Result<Kind> {
        let arms_key = ["anyOf", "oneOf"].into_iter().find(|k| s.contains_key(*k));
        if s.contains_key("properties") || s.get("type") == Some(&Value::from("object")) {
            return self.structure(name, s, pointer, arms_key, inline).map(Kind::Struct);
        }
        if let Some(key) = arms_key {
            let arms = self.arms(s, key, pointer)?;
            if let Some(e) = self.enumeration(&arms, pointer, key)? {
                return Ok(Kind::Enum(e));
            }
            let u = self.union(name, s, &arms, &format!("{pointer}/{key}"), None, inline)?;
            return Ok(Kind::Union(u));
        }
        if let Some(values) = s.get("enum") {
            return self.closed_enum(values, &format!("{pointer}/enum")).map(Kind::Enum);
        }
        if let Some(target) = self.all_of_ref(s, pointer)? {
            return Ok(Kind::Alias(target));
        }
        if s.contains_key("type") || s.contains_key("$ref") {
            let (ty, nullable) = self.ty(s, pointer, name, inline)?;
            if nullable {
                return Err(self.err(pointer, "a nullable definition is only understood as a union with a `null` arm"));
            }
            // A string definition's own rules (a `SemVer` with a `pattern`)
            // are checked by its newtype.
            return Ok(Kind::Newtype(ty));
        }
        Ok(Kind::Any)
    }

    fn arms<'v>(&self, s: &'v Obj, key: &str, pointer: &str) -> Result<Vec<&'v Obj>> {
        let arr = s[key].as_array().ok_or_else(|| self.err(pointer, format!("`{key}` must be an array")))?;
        if arr.is_empty() {
            return Err(self.err(&format!("{pointer}/{key}"), format!("empty `{key}`")));
        }
        arr.iter().enumerate().map(|(i, a)| self.object(a, &format!("{pointer}/{key}/{i}"))).collect()
    }

    // ---- structs -------------------------------------------------------------

    fn structure(
        &self,
        name: &str,
        s: &Obj,
        pointer: &str,
        arms_key: Option<&str>,
        inline: &mut Vec<Def>,
    ) -> Result<Struct> {
        if let Some(t) = s.get("type") {
            if t != "object" {
                return Err(
                    self.err(pointer, format!("an object with `properties` must have `type: object`, found {t}"))
                );
            }
        }
        let required = self.required(s, pointer)?;
        let empty = Map::new();
        let props = match s.get("properties") {
            Some(p) => self.object(p, &format!("{pointer}/properties"))?,
            None => &empty,
        };
        for r in &required {
            if !props.contains_key(r) && arms_key.is_none() {
                return Err(self.err(pointer, format!("`required` names `{r}`, which is not in `properties`")));
            }
        }
        let (additional, rest) = self.additional(name, s, pointer, inline)?;
        let (flatten, tag_property) = match arms_key {
            Some(key) => {
                let (f, tag) = self.flattened_union(name, s, pointer, key, props, inline)?;
                (Some(f), tag)
            }
            None => (None, None),
        };
        let mut fields = Vec::new();
        let mut forbidden = Vec::new();
        let mut errors = Vec::new();
        for (prop, schema) in props {
            if Some(prop) == tag_property.as_ref() {
                continue;
            }
            let p = format!("{pointer}/properties/{}", escape(prop));
            if schema == &Value::Bool(false) {
                // No value is allowed: the property must be absent.
                if required.contains(prop) {
                    errors.push(self.err(&p, format!("`{prop}` is required, and its schema `false` allows no value")));
                }
                forbidden.push(prop.clone());
                continue;
            }
            match self.field(name, prop, schema, &p, required.contains(prop), inline) {
                Ok(f) => fields.push(f),
                Err(e) => errors.push(e),
            }
        }
        Error::all(errors)?;
        let mut seen = BTreeSet::new();
        for f in fields.iter().map(|f| &f.rust_name).chain(flatten.as_ref().map(|f| &f.rust_name)) {
            if !seen.insert(f.clone()) {
                return Err(self.err(pointer, format!("two properties map to the Rust field `{f}`")));
            }
        }
        if rest.is_some() && flatten.is_some() {
            return Err(self.err(
                &format!("{pointer}/additionalProperties"),
                "a typed `additionalProperties` beside a union of properties is not supported",
            ));
        }
        Ok(Struct { fields, flatten, additional, rest, forbidden })
    }

    /// The `anyOf`/`oneOf` of an object with `properties`: its alternative
    /// sets of properties as an inline union flattened into the struct, and
    /// the union's tag property (the struct does not hold it).
    fn flattened_union(
        &self,
        name: &str,
        s: &Obj,
        pointer: &str,
        key: &str,
        props: &Obj,
        inline: &mut Vec<Def>,
    ) -> Result<(Flatten, Option<String>)> {
        let arms = self.arms(s, key, pointer)?;
        let tag = tag_of(&arms);
        let tag_lenient = match tag.as_deref().and_then(|t| props.get(t)) {
            Some(p) => self.flag(self.object(p, pointer)?, "x-deserialize-default-on-error", pointer)?,
            None => false,
        };
        let (union_name, rust_field) = match &tag {
            Some(t) => (format!("{name}{}", type_ident(t)), field_ident(t)),
            None => {
                let suffix = common_suffix(&arms, |a| self.all_of_ref(a, pointer).ok().flatten());
                let suffix = suffix.unwrap_or_else(|| "Kind".to_owned());
                (format!("{name}{suffix}"), field_ident(&suffix))
            }
        };
        let mut nested = Vec::new();
        let u = self.union(
            &union_name,
            s,
            &arms,
            &format!("{pointer}/{key}"),
            tag.as_ref().map(|t| (t.clone(), tag_lenient)),
            &mut nested,
        )?;
        let docs = tag.as_deref().and_then(|t| props.get(t)).and_then(Value::as_object).and_then(Self::docs);
        let arms_schema: Obj = [(key.to_owned(), s[key].clone())].into_iter().collect();
        let mut union_def =
            self.inline_def(union_name.clone(), &arms_schema, &format!("{pointer}/{key}"), Kind::Union(u), nested);
        union_def.docs = Some(match &tag {
            Some(t) => format!("The part of [`{}`] chosen by its `{t}` property.", type_ident(name)),
            None => format!("The alternative sets of properties of [`{}`].", type_ident(name)),
        });
        inline.push(union_def);
        Ok((Flatten { rust_name: rust_field, union: union_name, docs }, tag))
    }

    /// `additionalProperties` of a catch-all arm (absent, `true`, `false`):
    /// the arm keeps the whole object, so a typed one is refused.
    fn untyped_additional(&self, s: &Obj, pointer: &str) -> Result<Additional> {
        match s.get("additionalProperties") {
            None => Ok(Additional::Absent),
            Some(Value::Bool(false)) => Ok(Additional::False),
            Some(Value::Bool(true)) => Ok(Additional::True),
            Some(_) => Err(self.err(pointer, "typed `additionalProperties` on a catch-all arm is not supported")),
        }
    }

    /// `additionalProperties` of an object (absent, `true`, `false`, or a
    /// schema: the type of every other property).
    fn additional(
        &self,
        name: &str,
        s: &Obj,
        pointer: &str,
        inline: &mut Vec<Def>,
    ) -> Result<(Additional, Option<Type>)> {
        match s.get("additionalProperties") {
            Some(v @ Value::Object(_)) => {
                let ap = format!("{pointer}/additionalProperties");
                let (ty, nullable) = self.ty(self.object(v, &ap)?, &ap, &format!("{name}Rest"), inline)?;
                if nullable {
                    return Err(self.err(&ap, "a nullable `additionalProperties` beside `properties` is not supported"));
                }
                self.unchecked_rule(&ty, &ap)?;
                Ok((Additional::Typed, Some(ty)))
            }
            _ => Ok((self.untyped_additional(s, pointer)?, None)),
        }
    }

    fn required(&self, s: &Obj, pointer: &str) -> Result<BTreeSet<String>> {
        match s.get("required") {
            None => Ok(BTreeSet::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or_else(|| self.err(pointer, "`required` must list strings")))
                .collect(),
            Some(_) => Err(self.err(pointer, "`required` must be an array")),
        }
    }

    fn field(
        &self,
        owner: &str,
        prop: &str,
        schema: &Value,
        pointer: &str,
        required: bool,
        inline: &mut Vec<Def>,
    ) -> Result<Field> {
        let s = self.schema(schema, pointer)?;
        self.check_keywords(s, pointer)?;
        let inline_name = format!("{owner}{}", type_ident(prop));
        let (ty, nullable) = self.ty(s, pointer, &inline_name, inline)?;
        let f = Field {
            name: prop.to_owned(),
            pointer: pointer.to_owned(),
            rust_name: field_ident(prop),
            docs: Self::docs(s),
            ty,
            required,
            nullable,
            default_on_error: self.flag(s, "x-deserialize-default-on-error", pointer)?,
            skip_invalid_items: self.flag(s, "x-deserialize-skip-invalid-items", pointer)?,
            default_on_null: self.flag(s, "x-deserialize-default-on-null", pointer)?,
            default: s.get("default").cloned(),
        };
        let is_list = matches!(f.ty, Type::Array { .. });
        if f.ty.string_rule().is_some() && f.default_on_null {
            return Err(self.err(pointer, "`x-deserialize-default-on-null` beside `minLength` or `pattern`"));
        }
        if f.skip_invalid_items && !is_list {
            return Err(self.err(pointer, "`x-deserialize-skip-invalid-items` on a property that is not an array"));
        }
        if f.default_on_null && f.nullable {
            return Err(self.err(pointer, "`x-deserialize-default-on-null` on a property that already allows `null`"));
        }
        if f.required && f.default_on_error && !is_list {
            return Err(
                self.err(pointer, "`x-deserialize-default-on-error` on a required property that is not an array")
            );
        }
        Ok(f)
    }

    // ---- types -----------------------------------------------------------------

    // ---- checks --------------------------------------------------------------

    /// `minLength`, `maxLength` and `pattern` are checked on object properties only; anywhere
    /// else they would be silently ignored, so they are an error.
    fn unchecked_rule(&self, ty: &Type, pointer: &str) -> Result<()> {
        if ty.string_rule().is_some() {
            return Err(self.err(
                pointer,
                "`minLength` / `maxLength` / `pattern` are checked on object properties only, not on items, map values, \
                 union arms or whole definitions",
            ));
        }
        Ok(())
    }

    /// Every name that cannot be a Rust identifier. (Two definitions that would
    /// be one item are not an error: the naming pass, `plan::item_names`,
    /// renames one of them.)
    fn check_names(&self, module: &Module) -> Vec<Error> {
        let mut errors = Vec::new();
        // An opaque definition (lenient lowering) is reviewed, not emitted as
        // its own item: `codegen --lenient` checks its name itself.
        let lowered = module.defs.iter().filter(|d| !matches!(d.kind, Kind::Opaque(_)));
        for d in lowered.flat_map(Def::walk) {
            for name in rust_names(d) {
                let bare = name.strip_prefix("r#").unwrap_or(&name);
                if syn::parse_str::<syn::Ident>(bare).is_err() && !RUST_KEYWORDS.contains(&bare) {
                    errors.push(
                        self.err(&d.pointer, format!("`{name}` (from `{}`) cannot be a Rust identifier", d.name)),
                    );
                }
            }
        }
        errors
    }
}

/// The property every tagged arm fixes with a `const` (or a one-value
/// `enum`, as draft-07 generators such as schemars 0.8 write it), if any.
fn tag_of(arms: &[&Obj]) -> Option<String> {
    arms.iter().find_map(|a| {
        let props = a.get("properties")?.as_object()?;
        let required = a.get("required")?.as_array()?;
        props.iter().find(|(k, v)| fixed(v).is_some() && required.iter().any(|r| r == *k)).map(|(k, _)| k.clone())
    })
}

/// The one value a schema allows: its `const`, or the value of a one-value
/// `enum` (the same in JSON Schema).
fn fixed(schema: &Value) -> Option<&Value> {
    schema.get("const").or_else(|| match schema.get("enum")?.as_array()?.as_slice() {
        [one] => Some(one),
        _ => None,
    })
}

/// The longest common trailing word of the arms' `$ref` names (`Scope` for
/// `ElicitationSessionScope` and `ElicitationRequestScope`).
fn common_suffix(arms: &[&Obj], target: impl Fn(&Obj) -> Option<String>) -> Option<String> {
    let names: Vec<String> = arms.iter().map(|a| target(a)).collect::<Option<_>>()?;
    let words = |n: &str| -> Vec<String> {
        let mut out = Vec::new();
        for c in n.chars() {
            if c.is_ascii_uppercase() || out.is_empty() {
                out.push(String::new());
            }
            out.last_mut().expect("pushed").push(c);
        }
        out
    };
    let last: Vec<String> = names.iter().map(|n| words(n).pop().unwrap_or_default()).collect();
    let first = last.first()?.clone();
    (last.iter().all(|l| *l == first) && names.len() > 1).then_some(first)
}

fn num(s: &Obj, key: &str) -> Option<f64> {
    s.get(key).and_then(Value::as_f64)
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Every Rust name a definition introduces: the item, fields and variants.
fn rust_names(d: &Def) -> Vec<String> {
    let mut out = vec![d.rust_name.clone()];
    match &d.kind {
        Kind::Struct(s) => {
            out.extend(s.fields.iter().map(|f| f.rust_name.clone()));
            out.extend(s.flatten.iter().map(|f| f.rust_name.clone()));
        }
        Kind::Enum(e) => {
            out.extend(e.variants.iter().map(|v| v.rust_name.clone()));
            out.extend(e.fallback.iter().map(|f| f.rust_name.clone()));
        }
        Kind::Union(u) => {
            out.extend(u.variants.iter().map(|v| v.rust_name.clone()));
            out.extend(u.catch_all.iter().map(|c| c.rust_name.clone()));
        }
        Kind::Newtype(_) | Kind::Alias(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    out
}

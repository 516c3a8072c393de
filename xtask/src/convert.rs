//! The v1 ⇄ v2 converter generator: pairs the definitions of the two schema
//! models, classifies each pair by shape, and emits the conversions of the
//! pairs whose own shape agrees (field by field, value by value, arm by arm).
//!
//! Shapes are compared on the schema model with everything that does not
//! change the wire value removed: descriptions, titles, pointers, direction,
//! `x-method`, the upsert rules and the `x-deserialize-*` keywords (they say
//! how a reader recovers from bad input, not what a good value is).
//!
//! Property order does not count either.
//!
//! - *identical*: the definition and everything it references, transitively,
//!   have the same shape;
//! - *reference-only*: its own shape is the same, but a type it references
//!   differs (its conversion is generated and calls that type's conversion);
//! - *shape*: its own shape differs: a hand-written rule in
//!   `generated/src/convert/` converts it.
//!
//! `schema/conversions.json` (reviewed) names the pairs whose names differ
//! (`renamed`) and the pairs that must not be converted by shape
//! (`excluded`, with the reason): those get hand-written rules too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::{Def, Kind, Module, Payload, Type};
use crate::plan::Repr;

/// `schema/conversions.json`: the reviewed part of the pairing.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    /// v1 name -> v2 name, for definitions renamed without a wire change.
    #[serde(default)]
    pub renamed: BTreeMap<String, String>,
    /// Renamed properties: v1 definition -> v1 wire name -> v2 wire name.
    #[serde(default)]
    pub fields: BTreeMap<String, BTreeMap<String, String>>,
    /// Pairs (by v1 name) converted by hand-written rules, with the reason:
    /// their shapes differ in a way the generator does not state as a rule,
    /// or they must not be converted by shape.
    #[serde(default)]
    pub hand_written: BTreeMap<String, String>,
    /// Pairs whose conversion is generated but whose messages the adapters
    /// forward only when the other side's capabilities allow, with the reason.
    #[serde(default)]
    pub gated: BTreeMap<String, String>,
    /// The v1 capability properties the adapters read: definition ->
    /// property -> what reads it. `cargo xtask diff` reports a change to
    /// their descriptions as `dangerous`.
    #[serde(default)]
    pub capabilities: BTreeMap<String, BTreeMap<String, String>>,
}

impl Config {
    /// The property renames v2 -> v1: v2 definition -> v2 wire name -> v1 wire name.
    fn reverse_fields(&self) -> BTreeMap<String, BTreeMap<String, String>> {
        self.fields
            .iter()
            .map(|(def, m)| {
                let v2name = self.renamed.get(def).cloned().unwrap_or_else(|| def.clone());
                (v2name, m.iter().map(|(a, b)| (b.clone(), a.clone())).collect())
            })
            .collect()
    }

    /// Reads the configuration; a missing file is an empty configuration.
    pub fn read(path: &Path, label: &Path) -> Result<Config> {
        if !path.is_file() {
            return Ok(Config::default());
        }
        let json = crate::load::read_json(path, label)?;
        serde_json::from_value(json).map_err(|e| Error::Schema {
            file: label.to_path_buf(),
            pointer: String::new(),
            message: e.to_string(),
        })
    }
}

/// How a pair's shapes relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// Same shape, and so is everything it references.
    Identical,
    /// Same own shape; a referenced type differs.
    RefOnly,
    /// The own shape differs.
    Shape,
}

/// One v1 definition and the v2 definition it converts to.
#[derive(Debug, Clone)]
pub struct Pair<'m> {
    pub v1: &'m Def,
    pub v2: &'m Def,
    pub class: Class,
    /// Named in `hand_written`, with the reason.
    pub excluded: Option<String>,
}

impl Pair<'_> {
    /// Whether the conversion is generated.
    pub fn generated(&self) -> bool {
        self.class != Class::Shape && self.excluded.is_none()
    }
}

/// The pairing of two models.
#[derive(Debug, Clone)]
pub struct Pairing<'m> {
    pub pairs: Vec<Pair<'m>>,
    /// v1 definitions without a v2 counterpart.
    pub v1_only: Vec<&'m Def>,
    /// v2 definitions without a v1 counterpart.
    pub v2_only: Vec<&'m Def>,
}

/// A definition with everything removed that does not change its wire value.
pub fn shape(def: &Def) -> Def {
    let mut d = def.without_docs();
    normalize(&mut d);
    d
}

fn normalize(d: &mut Def) {
    d.method = None;
    d.envelope = false;
    d.upsert = None;
    match &mut d.kind {
        Kind::Struct(s) => {
            for f in &mut s.fields {
                f.default_on_error = false;
                f.skip_invalid_items = false;
                f.default_on_null = false;
            }
            // Property order does not change the wire value.
            s.fields.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Kind::Enum(e) => {
            for v in &mut e.variants {
                v.title = None;
            }
            if let Some(f) = &mut e.fallback {
                f.title = None;
            }
        }
        Kind::Union(u) => {
            if let Some(t) = &mut u.tag {
                t.lenient = false;
                t.declared = false;
            }
            for v in &mut u.variants {
                v.title = None;
            }
            if let Some(c) = &mut u.catch_all {
                c.title = None;
                c.tag_docs = None;
                for v in &mut c.one_of {
                    v.title = None;
                    v.docs = None;
                    v.pointer.clear();
                }
                for f in &mut c.fields {
                    f.docs = None;
                    f.pointer.clear();
                    f.default_on_error = false;
                    f.skip_invalid_items = false;
                    f.default_on_null = false;
                }
            }
        }
        Kind::Newtype(_) | Kind::Alias(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    for i in &mut d.inline {
        normalize(i);
    }
}

/// Pairs the definitions of a v1 and a v2 model (one build's view of each).
pub fn pair<'m>(v1: &'m [&'m Def], v2: &'m [&'m Def], config: &Config) -> Pairing<'m> {
    let by_name =
        |defs: &'m [&'m Def]| -> BTreeMap<&'m str, &'m Def> { defs.iter().map(|d| (d.name.as_str(), *d)).collect() };
    let (m1, m2) = (by_name(v1), by_name(v2));
    let target = |name: &str| config.renamed.get(name).map(String::as_str).unwrap_or(name).to_owned();
    // Own-shape equality, with v1 reference names mapped through the renames.
    let own_equal = |a: &Def, b: &Def| {
        let mut a = shape(a);
        rename_refs(&mut a, &config.renamed);
        a.name = b.name.clone();
        a.rust_name = b.rust_name.clone();
        a == shape(b)
    };
    let mut own: BTreeMap<&str, bool> = BTreeMap::new();
    let mut pairs_raw = Vec::new();
    let mut v1_only = Vec::new();
    for d in v1 {
        match m2.get(target(&d.name).as_str()) {
            Some(e) => {
                own.insert(d.name.as_str(), own_equal(d, e));
                pairs_raw.push((*d, *e));
            }
            None => v1_only.push(*d),
        }
    }
    let paired: BTreeSet<&str> = pairs_raw.iter().map(|(_, e)| e.name.as_str()).collect();
    let v2_only = v2.iter().filter(|d| !paired.contains(d.name.as_str())).copied().collect();
    // Identical: own shape equal for the definition and every definition it
    // reaches (a reference to an unpaired definition is a difference).
    let identical = |name: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![name.to_owned()];
        while let Some(n) = stack.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if own.get(n.as_str()) != Some(&true) {
                return false;
            }
            if let Some(d) = m1.get(n.as_str()) {
                stack.extend(d.walk().into_iter().flat_map(|x| x.refs.iter().cloned()));
            }
        }
        true
    };
    let pairs = pairs_raw
        .into_iter()
        .map(|(a, b)| {
            let class = if !own[a.name.as_str()] {
                Class::Shape
            } else if identical(&a.name) {
                Class::Identical
            } else {
                Class::RefOnly
            };
            Pair { v1: a, v2: b, class, excluded: config.hand_written.get(&a.name).cloned() }
        })
        .collect();
    Pairing { pairs, v1_only, v2_only }
}

fn rename_refs(d: &mut Def, renamed: &BTreeMap<String, String>) {
    fn ty(t: &mut Type, renamed: &BTreeMap<String, String>) {
        match t {
            Type::Ref(r) => {
                if let Some(n) = renamed.get(r) {
                    *r = n.clone();
                }
            }
            Type::Array { items, .. } => ty(items, renamed),
            Type::Tuple(items) => items.iter_mut().for_each(|i| ty(&mut i.ty, renamed)),
            Type::Map { values, .. } => ty(values, renamed),
            _ => {}
        }
    }
    match &mut d.kind {
        Kind::Struct(s) => s.fields.iter_mut().for_each(|f| ty(&mut f.ty, renamed)),
        Kind::Union(u) => {
            for v in &mut u.variants {
                if let Payload::Type(t) = &mut v.payload {
                    ty(t, renamed);
                }
            }
        }
        Kind::Newtype(t) => ty(t, renamed),
        Kind::Alias(a) => {
            if let Some(n) = renamed.get(a) {
                *a = n.clone();
            }
        }
        Kind::Enum(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    for r in &mut d.refs {
        if let Some(n) = renamed.get(r) {
            *r = n.clone();
        }
    }
    d.refs.sort();
    for i in &mut d.inline {
        rename_refs(i, renamed);
    }
}

/// What differs between two definitions' own shapes, one line per difference.
pub fn differences(a: &Def, b: &Def) -> Vec<String> {
    let (a, b) = (shape(a), shape(b));
    let mut out = Vec::new();
    match (&a.kind, &b.kind) {
        (Kind::Struct(x), Kind::Struct(y)) => {
            for f in &x.fields {
                match y.fields.iter().find(|g| g.name == f.name) {
                    None => out.push(format!("-{}", f.name)),
                    Some(g) => {
                        let mut f2 = f.clone();
                        f2.pointer = g.pointer.clone();
                        if f2 != *g {
                            let what = if f.ty != g.ty {
                                format!("{} -> {}", f.ty.describe(), g.ty.describe())
                            } else {
                                let say = |f: &crate::model::Field| {
                                    format!(
                                        "{}{}",
                                        if f.required { "required" } else { "optional" },
                                        if f.nullable { ", nullable" } else { "" }
                                    )
                                };
                                format!("{} -> {}", say(f), say(g))
                            };
                            out.push(format!("~{} {}", f.name, what));
                        }
                    }
                }
            }
            for g in &y.fields {
                if !x.fields.iter().any(|f| f.name == g.name) {
                    out.push(format!("+{}{}", g.name, if g.required { "!" } else { "" }));
                }
            }
            if x.flatten.is_some() || y.flatten.is_some() {
                out.push("flatten".into());
            }
            if x.additional != y.additional {
                out.push(format!("additional {:?} -> {:?}", x.additional, y.additional));
            }
        }
        (Kind::Enum(x), Kind::Enum(y)) => {
            for v in &x.variants {
                if !y.variants.iter().any(|w| w.value == v.value) {
                    out.push(format!("-{}", v.value));
                }
            }
            for w in &y.variants {
                if !x.variants.iter().any(|v| v.value == w.value) {
                    out.push(format!("+{}", w.value));
                }
            }
            if x.fallback.is_some() != y.fallback.is_some() {
                out.push(format!("open {} -> {}", x.fallback.is_some(), y.fallback.is_some()));
            }
        }
        (Kind::Union(x), Kind::Union(y)) => {
            let key = |v: &crate::model::Variant| v.tag.clone().unwrap_or_else(|| v.rust_name.clone());
            for v in &x.variants {
                match y.variants.iter().find(|w| key(w) == key(v)) {
                    None => out.push(format!("-{}", key(v))),
                    Some(w) if w.payload != v.payload => {
                        let say = |p: &Payload| match p {
                            Payload::Unit => "no payload".to_owned(),
                            Payload::NoTag => "no tag".to_owned(),
                            Payload::Type(t) => t.describe(),
                        };
                        out.push(format!("~{} {} -> {}", key(v), say(&v.payload), say(&w.payload)))
                    }
                    Some(_) => {}
                }
            }
            for w in &y.variants {
                if !x.variants.iter().any(|v| key(v) == key(w)) {
                    out.push(format!("+{}", key(w)));
                }
            }
            if x.catch_all.is_some() != y.catch_all.is_some() {
                out.push(format!("open {} -> {}", x.catch_all.is_some(), y.catch_all.is_some()));
            }
            if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
                out.push("tag".into());
            }
        }
        _ => out.push(format!("kind {:?} -> {:?}", std::mem::discriminant(&a.kind), std::mem::discriminant(&b.kind))),
    }
    if a.inline != b.inline {
        out.push(format!("inline {} -> {}", a.inline.len(), b.inline.len()));
    }
    out
}

// ---- emission -------------------------------------------------------------------

/// The direction of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    ToV2,
    ToV1,
}

impl Dir {
    fn src(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(crate::v1),
            Dir::ToV1 => quote!(crate::v2),
        }
    }
    fn dst(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(crate::v2),
            Dir::ToV1 => quote!(crate::v1),
        }
    }
    fn tr(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(crate::convert::ToV2),
            Dir::ToV1 => quote!(crate::convert::ToV1),
        }
    }
    fn f(self) -> Ident {
        Ident::new(if self == Dir::ToV2 { "to_v2" } else { "to_v1" }, Span::call_site())
    }
    fn assoc(self) -> Ident {
        Ident::new(if self == Dir::ToV2 { "V2" } else { "V1" }, Span::call_site())
    }
    fn target(self) -> &'static str {
        if self == Dir::ToV2 {
            "v2"
        } else {
            "v1"
        }
    }
}

/// One version's definitions in one build.
struct View<'m> {
    defs: BTreeMap<&'m str, &'m Def>,
}

impl<'m> View<'m> {
    fn new(defs: &[&'m Def]) -> View<'m> {
        View { defs: defs.iter().flat_map(|d| d.walk()).map(|d| (d.name.as_str(), d)).collect() }
    }
    fn get(&self, name: &str) -> Option<&'m Def> {
        self.defs.get(name).copied()
    }
    /// Follows aliases without a method (`pub type`) to the definition they name.
    fn resolve(&self, name: &str) -> String {
        let mut n = name.to_owned();
        for _ in 0..16 {
            match self.get(&n).map(|d| (&d.kind, d.method.is_some())) {
                Some((Kind::Alias(t), false)) => n = t.clone(),
                _ => break,
            }
        }
        n
    }
}

/// How a struct field holds its value in Rust (the plan's [`Repr`], with the
/// upsert state rule of patch fields).
#[derive(Debug, Clone, PartialEq)]
enum Form {
    Value,
    Opt,
    Nullable,
    Patch(crate::plan::StateRepr),
}

fn form(def: &Def, f: &crate::model::Field) -> Form {
    use crate::plan::StateRepr;
    if let Some(u) = &def.upsert {
        match StateRepr::of(f, u) {
            StateRepr::Key | StateRepr::Required => {}
            s => return Form::Patch(s),
        }
    }
    match Repr::of(f) {
        Repr::Value => Form::Value,
        Repr::RequiredNullable | Repr::Optional | Repr::OptionalAny => Form::Opt,
        Repr::Nullable => Form::Nullable,
        Repr::Patch => unreachable!("Repr::of never plans a patch"),
    }
}

/// A value conversion between two value types.
#[derive(Clone)]
enum Conv {
    /// The same Rust type.
    Id,
    /// An expression of type `Result<T, Fail>`.
    Fallible(std::rc::Rc<dyn Fn(&TokenStream) -> TokenStream>),
    /// An expression of type `Result<T, String>`: a range check whose failure
    /// drops an optional value and makes a required one unconvertible.
    Checked(std::rc::Rc<dyn Fn(&TokenStream) -> TokenStream>),
}

/// Why a pair cannot be generated.
type Why = String;

struct Gen<'a, 'm> {
    dir: Dir,
    src: &'a View<'m>,
    dst: &'a View<'m>,
    /// Source name -> target name, for every pair of this build.
    names: &'a BTreeMap<String, String>,
    /// Field renames of this direction: definition (source name) -> source wire name -> target wire name.
    fields: &'a BTreeMap<String, BTreeMap<String, String>>,
}

fn rust_ident(name: &str) -> Ident {
    crate::emit::ident(name)
}

impl Gen<'_, '_> {
    fn ty_path(&self, def: &Def, dst: bool) -> TokenStream {
        let m = if dst { self.dir.dst() } else { self.dir.src() };
        let i = rust_ident(&def.rust_name);
        quote!(#m::#i)
    }

    fn string_newtype(&self, view: &View, name: &str) -> Option<bool> {
        match view.get(&view.resolve(name)).map(|d| &d.kind) {
            Some(Kind::Newtype(t @ Type::String { .. })) => Some(t.string_rule().is_none()),
            _ => None,
        }
    }

    /// The conversion of a value of type `a` (source) to `b` (target).
    fn conv(&self, a: &Type, b: &Type) -> std::result::Result<Conv, Why> {
        let (tr, f) = (self.dir.tr(), self.dir.f());
        let trait_call = move || -> Conv { Conv::Fallible(std::rc::Rc::new(move |x| quote!(#tr::#f(#x, cx)))) };
        match (a, b) {
            (Type::Ref(x), Type::Ref(y)) => {
                let (x, y) = (self.src.resolve(x), self.dst.resolve(y));
                if self.names.get(&x) == Some(&y) {
                    Ok(trait_call())
                } else {
                    Err(format!("`{x}` does not convert to `{y}`"))
                }
            }
            (Type::String { .. }, Type::Ref(y)) => match self.string_newtype(self.dst, y) {
                Some(true) => {
                    let d = self.dst.get(&self.dst.resolve(y)).expect("resolved");
                    let p = self.ty_path(d, true);
                    Ok(Conv::Fallible(std::rc::Rc::new(
                        move |x| quote!(::core::result::Result::<_, crate::convert::Fail>::Ok(#p(crate::convert::id(#x)))),
                    )))
                }
                _ => Err(format!("a string does not convert to `{y}`")),
            },
            (Type::Ref(x), Type::String { .. }) => match self.string_newtype(self.src, x) {
                Some(_) if b.string_rule().is_none() => Ok(Conv::Fallible(std::rc::Rc::new(
                    |x| quote!(::core::result::Result::<_, crate::convert::Fail>::Ok(::std::string::String::from(&*#x.0))),
                ))),
                _ => Err(format!("`{x}` does not convert to a string")),
            },
            (Type::String { .. }, Type::Base64) => Ok(Conv::Fallible(std::rc::Rc::new(
                |x| quote!(::core::result::Result::<_, crate::convert::Fail>::Ok(crate::runtime::Base64String::from(#x))),
            ))),
            (Type::Base64, Type::String { .. }) if b.string_rule().is_none() => Ok(Conv::Fallible(std::rc::Rc::new(
                |x| quote!(::core::result::Result::<_, crate::convert::Fail>::Ok(#x.as_str().to_owned())),
            ))),
            (
                Type::String { min_length: m1, max_length: x1, pattern: p1, .. },
                Type::String { min_length: m2, max_length: x2, pattern: p2, .. },
            ) => {
                let shorter = x2.is_some_and(|x2| x1.is_none_or(|x1| x2 < x1));
                if (m2.unwrap_or(0) > m1.unwrap_or(0)) || shorter || (p2.is_some() && p2 != p1) {
                    Err("the target string has a rule the source lacks".into())
                } else {
                    Ok(Conv::Id)
                }
            }
            (Type::Integer { format: f1, min: lo1, max: hi1 }, Type::Integer { format: f2, min: lo2, max: hi2 }) => {
                let (r1, r2) = (f1.range(), f2.range());
                let lo_src = lo1.unwrap_or(r1.0).max(r1.0);
                let hi_src = hi1.unwrap_or(r1.1).min(r1.1);
                let lo_dst = lo2.unwrap_or(r2.0).max(r2.0);
                let hi_dst = hi2.unwrap_or(r2.1).min(r2.1);
                if f1 == f2 && lo_dst <= lo_src && hi_dst >= hi_src {
                    return Ok(Conv::Id);
                }
                let t = crate::emit::int_type(*f2);
                let lo = Literal::i128_unsuffixed(lo_dst);
                let hi = Literal::i128_unsuffixed(hi_dst);
                Ok(Conv::Checked(std::rc::Rc::new(move |x| quote!(crate::convert::int::<_, #t>(#x, #lo, #hi)))))
            }
            (Type::Number { min: lo1, max: hi1, .. }, Type::Number { min: lo2, max: hi2, .. }) => {
                let tighter = |s: Option<f64>, d: Option<f64>, lower: bool| match (s, d) {
                    (_, None) => false,
                    (None, Some(_)) => true,
                    (Some(s), Some(d)) => {
                        if lower {
                            d > s
                        } else {
                            d < s
                        }
                    }
                };
                if !tighter(*lo1, *lo2, true) && !tighter(*hi1, *hi2, false) {
                    return Ok(Conv::Id);
                }
                let opt = |v: Option<f64>| match v {
                    Some(v) => quote!(::core::option::Option::Some(#v)),
                    None => quote!(::core::option::Option::None),
                };
                let (lo, hi) = (opt(*lo2), opt(*hi2));
                Ok(Conv::Checked(std::rc::Rc::new(move |x| quote!(crate::convert::number(#x, #lo, #hi)))))
            }
            (
                Type::Array { items: i1, min_items: m1, nullable_items: false, .. },
                Type::Array { items: i2, min_items: m2, nullable_items: false, .. },
            ) => {
                let item = self.conv(i1, i2)?;
                let need = m2.unwrap_or(0) > m1.unwrap_or(0);
                let n = Literal::usize_unsuffixed(m2.unwrap_or(0) as usize);
                let check = move |v: TokenStream| {
                    if need {
                        quote!({ let items = #v; crate::convert::min_items(cx, items, #n) })
                    } else {
                        quote!(::core::result::Result::<_, crate::convert::Fail>::Ok(#v))
                    }
                };
                match item {
                    Conv::Id if !need => Ok(Conv::Id),
                    Conv::Id => Ok(Conv::Fallible(std::rc::Rc::new(move |x| check(x.clone())))),
                    Conv::Fallible(g) => Ok(Conv::Fallible(std::rc::Rc::new(move |x| {
                        let one = g(&quote!(v));
                        let body = quote! {{
                            let mut out = ::std::vec::Vec::with_capacity(#x.len());
                            for (i, v) in #x.into_iter().enumerate() {
                                cx.enter_index(i);
                                // An item with no target form is dropped on its own.
                                let r = cx.or_drop(|cx| #one);
                                cx.leave();
                                out.extend(r?);
                            }
                            out
                        }};
                        check(body)
                    }))),
                    Conv::Checked(g) => Ok(Conv::Fallible(std::rc::Rc::new(move |x| {
                        let one = g(&quote!(v));
                        let body = quote! {{
                            let mut out = ::std::vec::Vec::with_capacity(#x.len());
                            for (i, v) in #x.into_iter().enumerate() {
                                cx.enter_index(i);
                                let r = cx.or_drop(|cx| match #one { ::core::result::Result::Ok(v) => ::core::result::Result::Ok(v), ::core::result::Result::Err(d) => ::core::result::Result::Err(cx.unconvertible(d)) });
                                cx.leave();
                                out.extend(r?);
                            }
                            out
                        }};
                        check(body)
                    }))),
                }
            }
            (Type::Map { values: v1, nullable_values: false }, Type::Map { values: v2, nullable_values: false }) => {
                match self.conv(v1, v2)? {
                    Conv::Id => Ok(Conv::Id),
                    Conv::Fallible(_) if matches!(**v1, Type::Ref(_)) => Ok(trait_call()),
                    _ => Err("map values that need a conversion".into()),
                }
            }
            (x, y) if x == y && !matches!(x, Type::Ref(_)) => Ok(Conv::Id),
            (x, y) => Err(format!("{} does not convert to {}", x.describe(), y.describe())),
        }
    }

    /// An expression of the target type from a present source value.
    fn one_req(c: &Conv, v: &TokenStream) -> TokenStream {
        match c {
            Conv::Id => v.clone(),
            Conv::Fallible(g) => {
                let e = g(v);
                quote!((#e)?)
            }
            Conv::Checked(g) => {
                let e = g(v);
                quote!(match #e {
                    ::core::result::Result::Ok(v) => v,
                    ::core::result::Result::Err(d) => return ::core::result::Result::Err(cx.unconvertible(d)),
                })
            }
        }
    }

    /// An `Option` of the target type from a present source value of an
    /// optional field (a failed range check drops it).
    fn one_opt(c: &Conv, v: &TokenStream) -> TokenStream {
        match c {
            Conv::Checked(g) => {
                let e = g(v);
                quote!(match #e {
                    ::core::result::Result::Ok(v) => ::core::option::Option::Some(v),
                    ::core::result::Result::Err(d) => { cx.dropped(d)?; ::core::option::Option::None }
                })
            }
            _ => {
                let e = Self::one_req(c, v);
                quote!(::core::option::Option::Some(#e))
            }
        }
    }

    /// The target field's value from the source field's.
    fn field(
        &self,
        src_def: &Def,
        a: &crate::model::Field,
        dst_def: &Def,
        b: &crate::model::Field,
    ) -> std::result::Result<TokenStream, Why> {
        let c = self.conv(&a.ty, &b.ty).map_err(|w| format!("property `{}`: {w}", a.name))?;
        let x = {
            let i = rust_ident(&a.rust_name);
            quote!(self.#i)
        };
        let (fa, fb) = (form(src_def, a), form(dst_def, b));
        if matches!(c, Conv::Id) && fa == fb && !matches!(fa, Form::Patch(_)) {
            return Ok(x);
        }
        let collection = matches!(b.ty, Type::Array { .. } | Type::Map { .. });
        let some = |v: TokenStream| Self::one_opt(&c, &v);
        let req = |v: TokenStream| Self::one_req(&c, &v);
        let n = quote!(crate::runtime::Nullable);
        let p = quote!(crate::Patch);
        let none = quote!(::core::option::Option::None);
        // A patch may hold its value boxed (`#[acp(boxed)]` on the state field).
        let boxed = |f: &Form, field: &crate::model::Field, view: &View| matches!(f, Form::Patch(s) if s.boxed_in_patch(&field.ty, |r| view.get(r).is_some_and(|d| matches!(d.kind, Kind::Struct(_) | Kind::Union(_)))));
        let pset =
            if boxed(&fb, b, self.dst) { quote!(#p::Set(::std::boxed::Box::new(v))) } else { quote!(#p::Set(v)) };
        let unbox = if boxed(&fa, a, self.src) { quote!(let v = *v;) } else { quote!() };
        let body = match (&fa, &fb) {
            (Form::Value, Form::Value) => req(x.clone()),
            (Form::Value, Form::Opt) => some(x.clone()),
            (Form::Value, Form::Nullable) => {
                let s = some(x.clone());
                quote!(match #s { ::core::option::Option::Some(v) => #n::Value(v), ::core::option::Option::None => #n::Absent })
            }
            (Form::Value, Form::Patch(_)) => {
                let s = some(x.clone());
                quote!(match #s { ::core::option::Option::Some(v) => #pset, ::core::option::Option::None => #p::Keep })
            }
            (Form::Opt, Form::Value) if collection => {
                let r = req(quote!(v));
                quote!(match #x { ::core::option::Option::Some(v) => #r, ::core::option::Option::None => ::core::default::Default::default() })
            }
            (Form::Nullable, Form::Value) if collection => {
                let r = req(quote!(v));
                quote!(match #x { #n::Value(v) => #r, _ => ::core::default::Default::default() })
            }
            (Form::Opt, Form::Opt) => {
                let s = some(quote!(v));
                quote!(match #x { ::core::option::Option::Some(v) => #s, ::core::option::Option::None => #none })
            }
            (Form::Opt, Form::Nullable) => {
                let s = some(quote!(v));
                quote!(match #x { ::core::option::Option::Some(v) => match #s { ::core::option::Option::Some(v) => #n::Value(v), ::core::option::Option::None => #n::Absent }, ::core::option::Option::None => #n::Absent })
            }
            (Form::Opt, Form::Patch(_)) => {
                let s = some(quote!(v));
                quote!(match #x { ::core::option::Option::Some(v) => match #s { ::core::option::Option::Some(v) => #pset, ::core::option::Option::None => #p::Keep }, ::core::option::Option::None => #p::Keep })
            }
            (Form::Nullable, Form::Opt) => {
                let s = some(quote!(v));
                quote!(match #x { #n::Value(v) => #s, _ => #none })
            }
            (Form::Nullable, Form::Nullable) => {
                let s = some(quote!(v));
                quote!(match #x { #n::Value(v) => match #s { ::core::option::Option::Some(v) => #n::Value(v), ::core::option::Option::None => #n::Absent }, #n::Null => #n::Null, #n::Absent => #n::Absent })
            }
            (Form::Nullable, Form::Patch(_)) => {
                let s = some(quote!(v));
                quote!(match #x { #n::Value(v) => match #s { ::core::option::Option::Some(v) => #pset, ::core::option::Option::None => #p::Keep }, #n::Null => #p::Clear, #n::Absent => #p::Keep })
            }
            (Form::Patch(state), Form::Opt | Form::Nullable) => {
                use crate::plan::StateRepr;
                let wrap = |v: TokenStream| -> TokenStream {
                    if fb == Form::Nullable {
                        quote!(match #v { ::core::option::Option::Some(v) => #n::Value(v), ::core::option::Option::None => #n::Absent })
                    } else {
                        v
                    }
                };
                let keep = if fb == Form::Nullable { quote!(#n::Absent) } else { none.clone() };
                // A clear: `[]` for a list, the reset value for a field that
                // resets, otherwise a loss (v1 cannot express a clear; its
                // `null` reads as "not given").
                let clear = match state {
                    StateRepr::List => wrap(quote!(::core::option::Option::Some(::std::vec::Vec::new()))),
                    StateRepr::Reset(value) => {
                        let st = self.src_value_type(&a.ty)?;
                        let json = Literal::string(&value.to_string());
                        wrap(some(quote!(crate::convert::reset::<#st>(#json))))
                    }
                    _ => {
                        let detail = Literal::string(&format!(
                            "`{}: null` clears the value; {} cannot express a clear",
                            a.name,
                            self.dir.target()
                        ));
                        quote!({ cx.loss(crate::convert::LossKind::Dropped, #detail)?; #keep })
                    }
                };
                let set = wrap(some(quote!(v)));
                quote!(match #x { #p::Set(v) => { #unbox #set } #p::Clear => #clear, _ => #keep })
            }
            (fa, fb) => return Err(format!("property `{}`: {fa:?} -> {fb:?}", a.name)),
        };
        if matches!(c, Conv::Id) && body.to_string() == x.to_string() {
            return Ok(body);
        }
        let wire = Literal::string(&a.name);
        Ok(quote!({ cx.enter(#wire); let v = #body; cx.leave(); v }))
    }

    /// The Rust type of a source value type (for reset values).
    fn src_value_type(&self, t: &Type) -> std::result::Result<TokenStream, Why> {
        match t {
            Type::Ref(r) => {
                let d = self.src.get(&self.src.resolve(r)).ok_or_else(|| format!("unknown `{r}`"))?;
                Ok(self.ty_path(d, false))
            }
            _ => Err("a reset value of a non-definition type".into()),
        }
    }

    /// The whole `impl` of one pair in this direction.
    fn pair(&self, a: &Def, b: &Def) -> std::result::Result<Option<TokenStream>, Why> {
        let (sp, dp) = (self.ty_path(a, false), self.ty_path(b, true));
        let (tr, f, assoc) = (self.dir.tr(), self.dir.f(), self.dir.assoc());
        let body = match (&a.kind, &b.kind) {
            (Kind::Alias(_), Kind::Alias(_)) if a.method.is_none() && b.method.is_none() => return Ok(None),
            (Kind::Alias(x), Kind::Alias(y)) => {
                let c = self.conv(&Type::Ref(x.clone()), &Type::Ref(y.clone()))?;
                let v = Self::one_req(&c, &quote!(self.0));
                quote!(::core::result::Result::Ok(#dp(#v)))
            }
            (Kind::Any, Kind::Any) => quote!(::core::result::Result::Ok(#dp(self.0))),
            (Kind::Newtype(x), Kind::Newtype(y)) => {
                let c = self.conv(x, y)?;
                let v = Self::one_req(&c, &quote!(self.0));
                quote!(::core::result::Result::Ok(#dp(#v)))
            }
            (Kind::Struct(x), Kind::Struct(y)) => self.structure(a, x, b, y)?,
            (Kind::Enum(x), Kind::Enum(y)) => self.enumeration(a, x, y)?,
            (Kind::Union(x), Kind::Union(y)) => self.union(a, x, b, y)?,
            _ => return Err("the kind of definition differs".into()),
        };
        Ok(Some(quote! {
            impl #tr for #sp {
                type #assoc = #dp;
                #[allow(unused_variables, clippy::needless_question_mark, clippy::needless_match, clippy::manual_map, clippy::manual_unwrap_or_default)]
                fn #f(self, cx: &mut crate::convert::Cx) -> ::core::result::Result<#dp, crate::convert::Fail> {
                    #body
                }
            }
        }))
    }

    fn structure(
        &self,
        a: &Def,
        x: &crate::model::Struct,
        b: &Def,
        y: &crate::model::Struct,
    ) -> std::result::Result<TokenStream, Why> {
        let dp = self.ty_path(b, true);
        let renames = self.fields.get(&a.name);
        let target_of = |name: &str| renames.and_then(|r| r.get(name)).cloned().unwrap_or_else(|| name.to_owned());
        let mut drops = Vec::new();
        for fa in &x.fields {
            if y.fields.iter().any(|fb| fb.name == target_of(&fa.name)) {
                continue;
            }
            let i = rust_ident(&fa.rust_name);
            let present = match form(a, fa) {
                Form::Value => quote!(true),
                Form::Opt => quote!(self.#i.is_some()),
                Form::Nullable => quote!(!self.#i.is_absent()),
                Form::Patch(_) => quote!(!self.#i.is_keep()),
            };
            let wire = Literal::string(&fa.name);
            let detail = Literal::string(&format!("`{}` has no {} form", fa.name, self.dir.target()));
            drops.push(quote! {
                if #present { cx.loss_at(#wire, crate::convert::LossKind::Dropped, #detail)?; }
            });
        }
        let mut inits = Vec::new();
        for fb in &y.fields {
            let i = rust_ident(&fb.rust_name);
            match x.fields.iter().find(|fa| target_of(&fa.name) == fb.name) {
                Some(fa) => {
                    let v = self.field(a, fa, b, fb)?;
                    inits.push(quote!(#i: #v));
                }
                None => match form(b, fb) {
                    Form::Opt => inits.push(quote!(#i: ::core::option::Option::None)),
                    Form::Nullable => inits.push(quote!(#i: crate::runtime::Nullable::Absent)),
                    Form::Patch(_) => inits.push(quote!(#i: ::core::default::Default::default())),
                    Form::Value => {
                        return Err(format!(
                            "{} requires `{}`, which the source does not have",
                            self.dir.target(),
                            fb.name
                        ))
                    }
                },
            }
        }
        match (&x.flatten, &y.flatten) {
            (None, None) => {}
            (Some(fa), Some(fb)) => {
                let c = self.conv(&Type::Ref(fa.union.clone()), &Type::Ref(fb.union.clone()))?;
                let (ia, ib) = (rust_ident(&fa.rust_name), rust_ident(&fb.rust_name));
                let v = Self::one_req(&c, &quote!(self.#ia));
                inits.push(quote!(#ib: #v));
            }
            _ => return Err("one side flattens a union into the object".into()),
        }
        // Unknown properties: `Extra` beside plain fields (and in upsert
        // patches), a `JsonObject` beside a flattened union, none when the
        // schema says `additionalProperties: false`.
        let rest = |d: &Def, s: &crate::model::Struct| -> u8 {
            if d.upsert.is_some() || s.keeps_rest() {
                1
            } else if s.keeps_unknown() {
                2
            } else {
                0
            }
        };
        match (rest(a, x), rest(b, y)) {
            (0, 0) => {}
            (r1, r2) if r1 == r2 => {
                inits.push(quote!(additional_properties: cx.extras::<#dp, _>(self.additional_properties)?))
            }
            (_, 0) => drops.push(quote! {
                for (k, _) in self.additional_properties.iter() {
                    cx.enter_owned(k.clone());
                    cx.dropped("a property the target's schema does not allow")?;
                    cx.leave();
                }
            }),
            (0, _) => inits.push(quote!(additional_properties: ::core::default::Default::default())),
            _ => return Err("unknown properties are kept differently".into()),
        }
        Ok(quote! {
            #(#drops)*
            ::core::result::Result::Ok(#dp { #(#inits,)* })
        })
    }

    fn enumeration(
        &self,
        a: &Def,
        x: &crate::model::Enum,
        y: &crate::model::Enum,
    ) -> std::result::Result<TokenStream, Why> {
        let (sp, dp) = (self.ty_path(a, false), self.dst_path_of(a));
        let mut arms = Vec::new();
        for v in &x.variants {
            let vn = rust_ident(&v.rust_name);
            match y.variants.iter().find(|w| w.value == v.value) {
                Some(w) => {
                    let wn = rust_ident(&w.rust_name);
                    arms.push(quote!(#sp::#vn => #dp::#wn));
                }
                None => {
                    let detail = Literal::string(&format!("the value {} has no {} form", v.value, self.dir.target()));
                    arms.push(quote!(#sp::#vn => return ::core::result::Result::Err(cx.unconvertible(#detail))));
                }
            }
        }
        if let Some(fb) = &x.fallback {
            let fnm = rust_ident(&fb.rust_name);
            let json = match x.repr {
                crate::model::EnumRepr::String => quote!(::serde_json::Value::from(u.as_str())),
                crate::model::EnumRepr::Integer(_) => quote!(::serde_json::Value::from(u.get())),
            };
            let _ = y;
            arms.push(quote!(#sp::#fnm(u) => crate::convert::redecode::<#dp>(cx, #json, "the unknown value")?));
        }
        Ok(quote!(::core::result::Result::Ok(match self { #(#arms,)* })))
    }

    fn dst_path_of(&self, a: &Def) -> TokenStream {
        let name = self.names.get(&a.name).cloned().unwrap_or_else(|| a.name.clone());
        let d = self.dst.get(&name).expect("paired");
        self.ty_path(d, true)
    }

    fn union(
        &self,
        a: &Def,
        x: &crate::model::Union,
        b: &Def,
        y: &crate::model::Union,
    ) -> std::result::Result<TokenStream, Why> {
        let (sp, dp) = (self.ty_path(a, false), self.ty_path(b, true));
        if x.tag.as_ref().map(|t| &t.property) != y.tag.as_ref().map(|t| &t.property) {
            return Err("the discriminator differs".into());
        }
        let key = |v: &crate::model::Variant| match &v.tag {
            Some(t) => format!("tag {t}"),
            None => format!("arm {}", v.rust_name),
        };
        // An arm only the source has is unconvertible, unless the target also
        // has arms the source lacks: then the arms may have been renamed or
        // retagged, which only a reviewed rule can say.
        let gone: Vec<String> =
            x.variants.iter().filter(|v| !y.variants.iter().any(|w| key(w) == key(v))).map(key).collect();
        let new: Vec<String> =
            y.variants.iter().filter(|w| !x.variants.iter().any(|v| key(v) == key(w))).map(key).collect();
        if !gone.is_empty() && !new.is_empty() {
            return Err(format!("arms {} have no counterpart and arms {} are new", gone.join(", "), new.join(", ")));
        }
        let mut arms = Vec::new();
        for v in &x.variants {
            let vn = rust_ident(&v.rust_name);
            let pat_any = match &v.payload {
                Payload::Unit => quote!(#sp::#vn),
                Payload::Type(_) => quote!(#sp::#vn(..)),
                Payload::NoTag => quote!(#sp::#vn { .. }),
            };
            let Some(w) = y.variants.iter().find(|w| key(w) == key(v)) else {
                let what = match &v.tag {
                    Some(t) => format!("the `{t}` variant has no {} form", self.dir.target()),
                    None => format!("the `{}` arm has no {} form", v.rust_name, self.dir.target()),
                };
                let detail = Literal::string(&what);
                arms.push(quote!(#pat_any => return ::core::result::Result::Err(cx.unconvertible(#detail))));
                continue;
            };
            let wn = rust_ident(&w.rust_name);
            arms.push(match (&v.payload, &w.payload) {
                (Payload::Unit, Payload::Unit) => quote!(#sp::#vn => #dp::#wn),
                (Payload::NoTag, Payload::NoTag) => {
                    quote!(#sp::#vn { explicit_null } => #dp::#wn { explicit_null })
                }
                (Payload::Type(t1), Payload::Type(t2)) => {
                    let c = self.conv(t1, t2).map_err(|e| format!("{}: {e}", key(v)))?;
                    let e = Self::one_req(&c, &quote!(v));
                    quote!(#sp::#vn(v) => #dp::#wn(#e))
                }
                _ => return Err(format!("{}: the arm's payload changes kind", key(v))),
            });
        }
        if let Some(c) = &x.catch_all {
            let cn = rust_ident(&c.rust_name);
            arms.push(quote!(#sp::#cn(u) => crate::convert::redecode::<#dp>(cx, ::serde_json::Value::Object(u.into_object()), "the unknown variant")?));
        }
        Ok(quote!(::core::result::Result::Ok(match self { #(#arms,)* })))
    }
}

// ---- the generated file ----------------------------------------------------------

/// What `cargo xtask codegen` prints about the conversions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Pairs in the stable build, by how they convert.
    pub identical: usize,
    pub ref_only: usize,
    pub by_rule: usize,
    pub hand_written: usize,
    /// Definitions of one version only (stable build).
    pub v1_only: usize,
    pub v2_only: usize,
    /// Pairs of the unstable build the generator cannot state and no rule
    /// covers: they convert as `unconvertible`.
    pub unstable_unconvertible: Vec<String>,
    /// One line per generated pair whose shapes differ: the rules it follows.
    pub rules: Vec<String>,
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "convert: {} pairs generated ({} identical, {} reference-only, {} by rule), {} hand-written; v1 only {}, v2 only {}",
            self.identical + self.ref_only + self.by_rule,
            self.identical,
            self.ref_only,
            self.by_rule,
            self.hand_written,
            self.v1_only,
            self.v2_only
        )?;
        if !self.unstable_unconvertible.is_empty() {
            write!(f, "; unstable without a rule: {}", self.unstable_unconvertible.join(", "))?;
        }
        Ok(())
    }
}

fn build_defs<'m>(stable: &'m Module, unstable: &'m Module, unstable_build: bool) -> Vec<&'m Def> {
    crate::plan::Plan::version(stable, unstable)
        .items
        .iter()
        .filter(|i| i.gate.in_build(unstable_build))
        .map(|i| i.def)
        .collect()
}

/// How one pair of definitions converts in one build of one schema revision
/// (what `cargo xtask diff` compares between two revisions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The same shape, and so is everything it references: lossless.
    Identical,
    /// The same own shape; converted property by property through
    /// referenced types (lossless unless one of those is lossy).
    RefOnly,
    /// Generated from its differences ([`differences`]); each reports a loss
    /// when a value does not carry over.
    ByRule(Vec<String>),
    /// Converted by a hand-written rule (`hand_written`).
    HandWritten,
    /// The shapes differ in a way the generator cannot state as a rule:
    /// `cargo xtask codegen` fails until the pair is hand-written.
    Refused(String),
    /// Only in v1: nothing to convert to.
    V1Only,
    /// Only in v2: nothing to convert from.
    V2Only,
}

impl Status {
    /// Whether a value of the pair converts at all.
    pub fn converts(&self) -> bool {
        !matches!(self, Status::V1Only | Status::V2Only | Status::Refused(_))
    }

    /// Whether the conversion carries every value over (as far as its own
    /// shape goes).
    pub fn lossless(&self) -> bool {
        matches!(self, Status::Identical | Status::RefOnly)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Identical => f.write_str("identical (lossless)"),
            Status::RefOnly => f.write_str("converted property by property (lossless as far as its own shape goes)"),
            Status::ByRule(d) => write!(f, "generated by rule, lossy where they differ ({})", d.join("; ")),
            Status::HandWritten => f.write_str("a hand-written rule"),
            Status::Refused(why) => {
                write!(f, "not generated ({why}): codegen fails until it is named in `hand_written`")
            }
            Status::V1Only => f.write_str("v1 only (no conversion)"),
            Status::V2Only => f.write_str("v2 only (no conversion)"),
        }
    }
}

/// How every definition of one build converts: `(v1 name, v2 name)` of each
/// pair (an empty name for a definition of one version only) with its
/// [`Status`]. Unlike [`generate`] this never fails: names in the
/// configuration that a revision lacks are ignored, and a pair the
/// generator refuses is [`Status::Refused`].
pub fn statuses(
    v1: (&Module, &Module),
    v2: (&Module, &Module),
    config: &Config,
    unstable: bool,
) -> BTreeMap<(String, String), Status> {
    let d1 = build_defs(v1.0, v1.1, unstable);
    let d2 = build_defs(v2.0, v2.1, unstable);
    let w1: Vec<&Def> = d1.iter().flat_map(|d| d.walk()).collect();
    let w2: Vec<&Def> = d2.iter().flat_map(|d| d.walk()).collect();
    let pairing = pair(&w1, &w2, config);
    let (view1, view2) = (View::new(&d1), View::new(&d2));
    let fwd: BTreeMap<String, String> = pairing.pairs.iter().map(|p| (p.v1.name.clone(), p.v2.name.clone())).collect();
    let back: BTreeMap<String, String> = fwd.iter().map(|(a, b)| (b.clone(), a.clone())).collect();
    let reverse_fields = config.reverse_fields();
    let g2 = Gen { dir: Dir::ToV2, src: &view1, dst: &view2, names: &fwd, fields: &config.fields };
    let g1 = Gen { dir: Dir::ToV1, src: &view2, dst: &view1, names: &back, fields: &reverse_fields };
    // Inline items of a hand-written definition are converted by its rule.
    let parent: BTreeMap<&str, &str> =
        d1.iter().flat_map(|d| d.walk().into_iter().map(move |i| (i.name.as_str(), d.name.as_str()))).collect();
    let mut out = BTreeMap::new();
    for p in &pairing.pairs {
        let top = parent.get(p.v1.name.as_str()).copied().unwrap_or(p.v1.name.as_str());
        let status = if p.excluded.is_some() || config.hand_written.contains_key(top) {
            Status::HandWritten
        } else {
            let mut why: Vec<String> =
                [g2.pair(p.v1, p.v2).err(), g1.pair(p.v2, p.v1).err()].into_iter().flatten().collect();
            why.dedup();
            if !why.is_empty() {
                Status::Refused(why.join("; "))
            } else {
                match p.class {
                    Class::Identical => Status::Identical,
                    Class::RefOnly => Status::RefOnly,
                    Class::Shape => Status::ByRule(differences(p.v1, p.v2)),
                }
            }
        };
        out.insert((p.v1.name.clone(), p.v2.name.clone()), status);
    }
    for d in &pairing.v1_only {
        out.insert((d.name.clone(), String::new()), Status::V1Only);
    }
    for d in &pairing.v2_only {
        out.insert((String::new(), d.name.clone()), Status::V2Only);
    }
    out
}

/// The conversions between two versions (each a stable and an unstable
/// model), as the items of `generated/src/convert/generated.rs`.
///
/// Also returns the by-name conversion registry for `acp-tools` (`convert::to_v2`
/// and `convert::to_v1`: decode a payload as a named definition and convert it).
pub fn generate(
    v1: (&Module, &Module),
    v2: (&Module, &Module),
    config: &Config,
    label: &Path,
) -> Result<(Vec<TokenStream>, TokenStream, Summary)> {
    let mut summary = Summary::default();
    // (direction, v1 name) -> tokens per build.
    let mut impls: BTreeMap<(u8, String), [Option<String>; 2]> = BTreeMap::new();
    // (version, name) -> the `Properties` impl per build.
    let mut properties: BTreeMap<(u8, String), [Option<String>; 2]> = BTreeMap::new();
    let mut lists: BTreeMap<(&'static str, String, String, String), [bool; 2]> = BTreeMap::new();
    let reverse_fields = config.reverse_fields();
    // Every name the configuration mentions must exist (a stale entry would
    // silently stop applying).
    {
        let (all1, all2) = (build_defs(v1.0, v1.1, true), build_defs(v2.0, v2.1, true));
        let has1 = |n: &str| all1.iter().flat_map(|d| d.walk()).any(|d| d.name == n);
        let has2 = |n: &str| all2.iter().flat_map(|d| d.walk()).any(|d| d.name == n);
        let stale = |section: &str, name: &str| Error::Schema {
            file: label.to_path_buf(),
            pointer: format!("#/{section}/{name}"),
            message: format!("no definition `{name}` in the schema"),
        };
        for (a, b) in &config.renamed {
            if !has1(a) {
                return Err(stale("renamed", a));
            }
            if !has2(b) {
                return Err(stale("renamed", b));
            }
        }
        for (section, names) in [
            ("fields", config.fields.keys().collect::<Vec<_>>()),
            ("hand_written", config.hand_written.keys().collect()),
            ("gated", config.gated.keys().collect()),
        ] {
            if let Some(name) = names.into_iter().find(|n| !has1(n)) {
                return Err(stale(section, name));
            }
        }
        for (name, props) in &config.capabilities {
            let def = all1
                .iter()
                .flat_map(|d| d.walk())
                .find(|d| &d.name == name)
                .ok_or_else(|| stale("capabilities", name))?;
            for prop in props.keys() {
                if !matches!(&def.kind, Kind::Struct(s) if s.fields.iter().any(|f| &f.name == prop)) {
                    return Err(Error::Schema {
                        file: label.to_path_buf(),
                        pointer: format!("#/capabilities/{name}/{prop}"),
                        message: format!("`{name}` has no property `{prop}`"),
                    });
                }
            }
        }
    }
    // Properties that only the unstable shape of a hand-written pair's struct
    // has: the rules are written against the stable shape, so these are
    // reported as `dropped` in the unstable build (`UnstableFields`).
    let stable_views = (View::new(&build_defs(v1.0, v1.1, false)), View::new(&build_defs(v2.0, v2.1, false)));
    let mut unstable_fields: BTreeMap<(u8, String), TokenStream> = BTreeMap::new();
    let mut missing = Vec::new();
    for (bi, unstable) in [false, true].into_iter().enumerate() {
        if !missing.is_empty() {
            break;
        }
        let d1 = build_defs(v1.0, v1.1, unstable);
        let d2 = build_defs(v2.0, v2.1, unstable);
        let w1: Vec<&Def> = d1.iter().flat_map(|d| d.walk()).collect();
        let w2: Vec<&Def> = d2.iter().flat_map(|d| d.walk()).collect();
        let pairing = pair(&w1, &w2, config);
        let (view1, view2) = (View::new(&d1), View::new(&d2));
        let fwd: BTreeMap<String, String> =
            pairing.pairs.iter().map(|p| (p.v1.name.clone(), p.v2.name.clone())).collect();
        let back: BTreeMap<String, String> = fwd.iter().map(|(a, b)| (b.clone(), a.clone())).collect();
        if !unstable {
            summary.v1_only =
                d1.len() - pairing.pairs.iter().filter(|p| d1.iter().any(|d| d.name == p.v1.name)).count();
            summary.v2_only =
                d2.len() - pairing.pairs.iter().filter(|p| d2.iter().any(|d| d.name == p.v2.name)).count();
        }
        let g2 = Gen { dir: Dir::ToV2, src: &view1, dst: &view2, names: &fwd, fields: &config.fields };
        let g1 = Gen { dir: Dir::ToV1, src: &view2, dst: &view1, names: &back, fields: &reverse_fields };
        // Inline items belong to their definition: a hand-written definition's
        // inline items are converted by its rule.
        let parent: BTreeMap<&str, &str> =
            d1.iter().flat_map(|d| d.walk().into_iter().map(move |i| (i.name.as_str(), d.name.as_str()))).collect();
        let in_hand_written = |p: &Pair| {
            !d1.iter().any(|d| d.name == p.v1.name)
                && parent.get(p.v1.name.as_str()).is_some_and(|t| config.hand_written.contains_key(*t))
        };
        // Those that cannot be generated, and those that reference one of them.
        let inner: Vec<&Pair> = pairing.pairs.iter().filter(|p| in_hand_written(p)).collect();
        let mut skip: BTreeSet<&str> = inner
            .iter()
            .filter(|p| g2.pair(p.v1, p.v2).is_err() || g1.pair(p.v2, p.v1).is_err())
            .map(|p| p.v1.name.as_str())
            .collect();
        loop {
            let before = skip.len();
            for p in &inner {
                if p.v1.refs.iter().any(|r| skip.contains(r.as_str())) {
                    skip.insert(p.v1.name.as_str());
                }
            }
            if skip.len() == before {
                break;
            }
        }
        // The property names of every struct, for `Cx::extras` (the generated
        // and the hand-written rules carry unknown properties over).
        for (side, defs, module) in [(0u8, &w1, quote!(crate::v1)), (1u8, &w2, quote!(crate::v2))] {
            for d in defs.iter() {
                let Kind::Struct(st) = &d.kind else { continue };
                let tag = st.flatten.as_ref().and_then(|f| match &defs.iter().find(|i| i.name == f.union)?.kind {
                    Kind::Union(u) => u.tag.as_ref().map(|t| t.property.as_str()),
                    _ => None,
                });
                let names: Vec<Literal> = st
                    .fields
                    .iter()
                    .map(|f| f.name.as_str())
                    .chain(tag)
                    .chain(st.forbidden.iter().map(String::as_str))
                    .map(Literal::string)
                    .collect();
                let i = rust_ident(&d.rust_name);
                let tokens = quote! {
                    impl crate::convert::Properties for #module::#i {
                        const PROPERTIES: &'static [&'static str] = &[#(#names),*];
                    }
                };
                properties.entry((side, d.name.clone())).or_default()[bi] = Some(tokens.to_string());
            }
        }
        for p in &pairing.pairs {
            let top = d1.iter().any(|d| d.name == p.v1.name);
            if skip.contains(p.v1.name.as_str()) {
                // Converted by its definition's hand-written rule.
                continue;
            }
            if let Some(_reason) = &p.excluded {
                if !unstable && top {
                    summary.hand_written += 1;
                }
                lists.entry(("hand", p.v1.name.clone(), p.v2.name.clone(), String::new())).or_default()[bi] = true;
                for (side, d, stable, module) in
                    [(0u8, p.v1, &stable_views.0, quote!(crate::v1)), (1u8, p.v2, &stable_views.1, quote!(crate::v2))]
                {
                    let Kind::Struct(st) = &d.kind else { continue };
                    let entry = unstable_fields.entry((side, d.name.clone()));
                    if !unstable {
                        let i = rust_ident(&d.rust_name);
                        entry.or_insert_with(|| quote!(impl crate::convert::UnstableFields for #module::#i {}));
                        continue;
                    }
                    let known: Vec<&str> = match stable.get(&d.name).map(|x| &x.kind) {
                        Some(Kind::Struct(ss)) => ss.fields.iter().map(|f| f.name.as_str()).collect(),
                        _ => Vec::new(),
                    };
                    let checks: Vec<TokenStream> = st
                        .fields
                        .iter()
                        .filter(|f| !known.contains(&f.name.as_str()))
                        .map(|f| {
                            let i = rust_ident(&f.rust_name);
                            let present = match form(d, f) {
                                Form::Value => quote!(true),
                                Form::Opt => quote!(self.#i.is_some()),
                                Form::Nullable => quote!(!self.#i.is_absent()),
                                Form::Patch(_) => quote!(!self.#i.is_keep()),
                            };
                            let wire = Literal::string(&f.name);
                            let detail = Literal::string(&format!(
                                "`{}` exists only in the unstable schema, and the conversion rule of `{}` does not carry it",
                                f.name, d.name
                            ));
                            quote!(if #present { cx.loss_at(#wire, crate::convert::LossKind::Dropped, #detail)?; })
                        })
                        .collect();
                    if checks.is_empty() {
                        continue;
                    }
                    let i = rust_ident(&d.rust_name);
                    let stable_impl = quote!(impl crate::convert::UnstableFields for #module::#i {});
                    let both = quote! {
                        #[cfg(not(feature = "unstable"))]
                        #stable_impl
                        #[cfg(feature = "unstable")]
                        impl crate::convert::UnstableFields for #module::#i {
                            fn check_unstable(&self, cx: &mut crate::convert::Cx) -> ::core::result::Result<(), crate::convert::Fail> {
                                #(#checks)*
                                ::core::result::Result::Ok(())
                            }
                        }
                    };
                    entry.and_modify(|t| *t = both.clone()).or_insert(both);
                }
                continue;
            }
            let results = [g2.pair(p.v1, p.v2), g1.pair(p.v2, p.v1)];
            let why: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
            if !why.is_empty() {
                if !unstable {
                    missing.push(format!(
                        "`{}`/`{}` ({})",
                        p.v1.name,
                        p.v2.name,
                        why.iter().map(|w| w.as_str()).collect::<Vec<_>>().join("; ")
                    ));
                    continue;
                }
                // Unstable only: converting it is an honest `unconvertible`.
                if !summary.unstable_unconvertible.contains(&p.v1.name) {
                    summary.unstable_unconvertible.push(p.v1.name.clone());
                }
                for (di, g) in [(0u8, &g2), (1u8, &g1)] {
                    let (a, b) = if di == 0 { (p.v1, p.v2) } else { (p.v2, p.v1) };
                    let tokens = g.unconvertible(a, b);
                    impls.entry((di, p.v1.name.clone())).or_default()[bi] = tokens.map(|t| t.to_string());
                }
                continue;
            }
            let class = match p.class {
                Class::Identical => "identical",
                Class::RefOnly => "reference-only",
                Class::Shape => "by rule",
            };
            if !unstable && top {
                match p.class {
                    Class::Identical => summary.identical += 1,
                    Class::RefOnly => summary.ref_only += 1,
                    Class::Shape => {
                        summary.by_rule += 1;
                        summary.rules.push(format!("{}: {}", p.v1.name, differences(p.v1, p.v2).join("; ")));
                    }
                }
            }
            lists.entry(("gen", p.v1.name.clone(), p.v2.name.clone(), class.into())).or_default()[bi] = true;
            for (di, r) in results.into_iter().enumerate() {
                let tokens = r.expect("checked").map(|t| t.to_string());
                impls.entry((di as u8, p.v1.name.clone())).or_default()[bi] = tokens;
            }
        }
    }
    if !missing.is_empty() {
        return Err(Error::Schema {
            file: label.to_path_buf(),
            pointer: "#/hand_written".into(),
            message: format!(
                "{} pairs differ in ways the generator cannot state as rules; name each in `hand_written` and write its \
                 conversion in `generated/src/convert/`: {}",
                missing.len(),
                missing.join(", ")
            ),
        });
    }
    let cfg_of = |builds: [bool; 2]| match builds {
        [true, true] => quote!(),
        [true, false] => quote!(#[cfg(not(feature = "unstable"))]),
        [false, true] => quote!(#[cfg(feature = "unstable")]),
        [false, false] => unreachable!("listed in some build"),
    };
    let mut items = Vec::new();
    for ((_, _), builds) in impls.into_iter().chain(properties) {
        match builds {
            [Some(s), Some(u)] if s == u => items.push(s.parse::<TokenStream>().expect("tokens")),
            [s, u] => {
                for (t, cfg) in
                    [(s, quote!(#[cfg(not(feature = "unstable"))])), (u, quote!(#[cfg(feature = "unstable")]))]
                {
                    if let Some(t) = t {
                        let t: TokenStream = t.parse().expect("tokens");
                        items.push(quote!(#cfg #t));
                    }
                }
            }
        }
    }
    items.extend(unstable_fields.into_values());
    let mut gen_rows = Vec::new();
    let mut hand_rows = Vec::new();
    let mut checks = Vec::new();
    for ((list, a, b, class), builds) in &lists {
        let cfg = cfg_of(*builds);
        let (la, lb) = (Literal::string(a), Literal::string(b));
        if *list == "gen" {
            let lc = Literal::string(class);
            gen_rows.push(quote!(#cfg (#la, #lb, #lc),));
        } else {
            hand_rows.push(quote!(#cfg (#la, #lb),));
            let (ia, ib) = (rust_ident(a), rust_ident(b));
            checks.push(quote!(#cfg check::<crate::v1::#ia, crate::v2::#ib>();));
        }
    }
    items.push(quote! {
        /// Every pair whose conversion is generated, in this build: (v1 name,
        /// v2 name, `identical`, `reference-only` or `by rule`).
        pub const GENERATED_PAIRS: &[(&str, &str, &str)] = &[#(#gen_rows)*];
        /// Every pair converted by a hand-written rule, in this build.
        pub const HAND_WRITTEN_PAIRS: &[(&str, &str)] = &[#(#hand_rows)*];
        /// Every hand-written pair converts both ways (a missing rule does not compile).
        #[allow(dead_code)]
        fn hand_written_rules_exist() {
            fn check<A: crate::convert::ToV2<V2 = B>, B: crate::convert::ToV1<V1 = A>>() {}
            #(#checks)*
        }
    });
    let mut to_v2 = Vec::new();
    let mut to_v1 = Vec::new();
    for ((_, a, b, _), builds) in &lists {
        let cfg = cfg_of(*builds);
        let (la, lb) = (Literal::string(a), Literal::string(b));
        let (ia, ib) = (rust_ident(a), rust_ident(b));
        to_v2.push(quote!(#cfg #la => go2::<::acp_bindings::v1::#ia>(json, strict),));
        to_v1.push(quote!(#cfg #lb => go1::<::acp_bindings::v2::#ib>(json, strict),));
    }
    let registry = quote! {
        /// Converts a payload between the versions by definition name, for the tests and tools.
        pub mod convert {
            use ::acp_bindings::convert::{ConvertError, Converted, ToV1, ToV2};
            use ::acp_bindings::runtime::rpc::DispatchError;

            /// Why a by-name conversion produced nothing.
            #[derive(Debug)]
            pub enum Failed {
                /// The payload does not decode as the named definition.
                Rejected(DispatchError),
                /// The payload has no target form (or a loss in strict mode).
                NotConverted(ConvertError),
            }

            fn go2<T: ::serde::de::DeserializeOwned + ToV2>(json: &str, strict: bool) -> ::core::result::Result<Converted<::serde_json::Value>, Failed>
            where T::V2: ::serde::Serialize {
                let v: T = ::acp_bindings::runtime::rpc::decode(json).map_err(Failed::Rejected)?;
                let c = if strict {
                    ::acp_bindings::convert::to_v2_strict(v).map(|value| Converted { value, losses: ::std::vec::Vec::new() })
                } else {
                    ::acp_bindings::convert::to_v2(v)
                };
                let c = c.map_err(Failed::NotConverted)?;
                ::core::result::Result::Ok(Converted { value: ::serde_json::to_value(&c.value).expect("encodes"), losses: c.losses })
            }

            fn go1<T: ::serde::de::DeserializeOwned + ToV1>(json: &str, strict: bool) -> ::core::result::Result<Converted<::serde_json::Value>, Failed>
            where T::V1: ::serde::Serialize {
                let v: T = ::acp_bindings::runtime::rpc::decode(json).map_err(Failed::Rejected)?;
                let c = if strict {
                    ::acp_bindings::convert::to_v1_strict(v).map(|value| Converted { value, losses: ::std::vec::Vec::new() })
                } else {
                    ::acp_bindings::convert::to_v1(v)
                };
                let c = c.map_err(Failed::NotConverted)?;
                ::core::result::Result::Ok(Converted { value: ::serde_json::to_value(&c.value).expect("encodes"), losses: c.losses })
            }

            /// Decodes `json` as the v1 definition `name` and converts it to v2
            /// (`None`: no such paired definition in this build).
            pub fn to_v2(name: &str, json: &str, strict: bool) -> ::core::option::Option<::core::result::Result<Converted<::serde_json::Value>, Failed>> {
                ::core::option::Option::Some(match name {
                    #(#to_v2)*
                    _ => return ::core::option::Option::None,
                })
            }

            /// Decodes `json` as the v2 definition `name` and converts it to v1.
            pub fn to_v1(name: &str, json: &str, strict: bool) -> ::core::option::Option<::core::result::Result<Converted<::serde_json::Value>, Failed>> {
                ::core::option::Option::Some(match name {
                    #(#to_v1)*
                    _ => return ::core::option::Option::None,
                })
            }
        }
    };
    Ok((items, registry, summary))
}

impl Gen<'_, '_> {
    /// The impl of a pair the generator cannot state, in the unstable build:
    /// converting a value is reported as `unconvertible`.
    fn unconvertible(&self, a: &Def, b: &Def) -> Option<TokenStream> {
        if matches!((&a.kind, &b.kind), (Kind::Alias(_), Kind::Alias(_))) && a.method.is_none() && b.method.is_none() {
            return None;
        }
        let (sp, dp) = (self.ty_path(a, false), self.ty_path(b, true));
        let (tr, f, assoc) = (self.dir.tr(), self.dir.f(), self.dir.assoc());
        let detail = Literal::string(&format!(
            "no conversion rule for `{}` to {} (its unstable shapes differ)",
            a.name,
            self.dir.target()
        ));
        Some(quote! {
            impl #tr for #sp {
                type #assoc = #dp;
                fn #f(self, cx: &mut crate::convert::Cx) -> ::core::result::Result<#dp, crate::convert::Fail> {
                    ::core::result::Result::Err(cx.unconvertible(#detail))
                }
            }
        })
    }
}

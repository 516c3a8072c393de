//! Emission of the conversions of one pair: field by field, value by value,
//! arm by arm (the pairing and the shapes are in the parent module).

use std::collections::BTreeMap;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

use super::*;

use crate::plan::Repr;

/// The direction of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    ToV2,
    ToV1,
}

impl Dir {
    fn src(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(::acp_bindings::v1),
            Dir::ToV1 => quote!(::acp_bindings::v2),
        }
    }
    fn dst(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(::acp_bindings::v2),
            Dir::ToV1 => quote!(::acp_bindings::v1),
        }
    }
    fn tr(self) -> TokenStream {
        match self {
            Dir::ToV2 => quote!(crate::ToV2),
            Dir::ToV1 => quote!(crate::ToV1),
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
pub(super) struct View<'m> {
    defs: BTreeMap<&'m str, &'m Def>,
    /// The plan's fields of these definitions.
    fields: crate::plan::Fields,
    /// The plan's `pub type` aliases: name -> the definition named.
    aliases: BTreeMap<String, String>,
}

impl<'m> View<'m> {
    /// One build's top-level definitions and the plan's decisions about them ([`crate::plan::Plan::build`]).
    pub(super) fn new(build: crate::plan::Build<'m>) -> View<'m> {
        let defs = build.defs.iter().flat_map(|d| d.walk()).map(|d| (d.name.as_str(), d)).collect();
        View { defs, fields: build.fields, aliases: build.aliases }
    }

    /// Whether the plan makes `name` a `pub type` alias (converted as what it names).
    pub(super) fn is_type_alias(&self, name: &str) -> bool {
        self.aliases.contains_key(name)
    }

    /// How field `f` (of a definition of this view) holds its value, as the
    /// plan decided.
    pub(super) fn form(&self, f: &crate::model::Field) -> Form {
        let planned = self.fields.get(f);
        match planned.repr {
            Repr::Value => Form::Value,
            Repr::RequiredNullable | Repr::Optional | Repr::OptionalAny => Form::Opt,
            Repr::Nullable => Form::Nullable,
            Repr::Patch => Form::Patch(planned.state_repr().clone()),
        }
    }
    pub(super) fn get(&self, name: &str) -> Option<&'m Def> {
        self.defs.get(name).copied()
    }

    /// Whether field `f` is a parameter of its struct's `new` (the generated
    /// builder's required fields; an upsert patch's key and required fields,
    /// as the derive writes them), rather than a field set after it.
    pub(super) fn in_new(&self, f: &crate::model::Field) -> bool {
        match self.form(f) {
            Form::Patch(s) => matches!(s, crate::plan::StateRepr::Key | crate::plan::StateRepr::Required),
            _ => matches!(self.fields.get(f).repr, Repr::Value | Repr::RequiredNullable),
        }
    }
    /// Follows aliases without a method (`pub type`) to the definition they name.
    fn resolve(&self, name: &str) -> String {
        crate::model::follow_aliases(name, |n| self.aliases.get(n).map(String::as_str)).to_owned()
    }
}

/// How a struct field holds its value in Rust (the plan's [`Repr`], with the
/// upsert state rule of patch fields).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Form {
    Value,
    Opt,
    Nullable,
    Patch(crate::plan::StateRepr),
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

pub(super) struct Gen<'a, 'm> {
    pub(super) dir: Dir,
    pub(super) src: &'a View<'m>,
    pub(super) dst: &'a View<'m>,
    /// Source name -> target name, for every pair of this build.
    pub(super) names: &'a BTreeMap<String, String>,
    /// Field renames of this direction: definition (source name) -> source wire name -> target wire name.
    pub(super) fields: &'a BTreeMap<String, BTreeMap<String, String>>,
}

pub(super) fn rust_ident(name: &str) -> Ident {
    crate::emit::ident(name)
}

/// The arm a match on a source enum needs besides its variants (the types
/// are `#[non_exhaustive]` outside their crate): unreachable while both
/// crates are built with the same features (`lib.rs` asserts it), and an
/// unconvertible value, not a panic, if that ever fails.
fn unknown_to_this_build() -> TokenStream {
    quote!(_ => return ::core::result::Result::Err(cx.unconvertible("a value these conversions were not built for")))
}

impl Gen<'_, '_> {
    fn ty_path(&self, def: &Def, dst: bool) -> TokenStream {
        let m = if dst { self.dir.dst() } else { self.dir.src() };
        let i = rust_ident(&def.rust_name);
        quote!(#m::#i)
    }

    fn string_newtype(&self, view: &View<'_>, name: &str) -> Option<bool> {
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
                        move |x| quote!(::core::result::Result::<_, crate::Fail>::Ok(#p(crate::id(#x)))),
                    )))
                }
                _ => Err(format!("a string does not convert to `{y}`")),
            },
            (Type::Ref(x), Type::String { .. }) => match self.string_newtype(self.src, x) {
                Some(_) if b.string_rule().is_none() => Ok(Conv::Fallible(std::rc::Rc::new(
                    |x| quote!(::core::result::Result::<_, crate::Fail>::Ok(::std::string::String::from(&*#x.0))),
                ))),
                _ => Err(format!("`{x}` does not convert to a string")),
            },
            (Type::String { .. }, Type::Base64) => Ok(Conv::Fallible(std::rc::Rc::new(
                |x| quote!(::core::result::Result::<_, crate::Fail>::Ok(::acp_bindings::runtime::Base64String::from(#x))),
            ))),
            (Type::Base64, Type::String { .. }) if b.string_rule().is_none() => Ok(Conv::Fallible(std::rc::Rc::new(
                |x| quote!(::core::result::Result::<_, crate::Fail>::Ok(#x.as_str().to_owned())),
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
                Ok(int_conv((*f1, *lo1, *hi1), (*f2, *lo2, *hi2)))
            }
            (Type::Number { min: lo1, max: hi1, .. }, Type::Number { min: lo2, max: hi2, .. }) => {
                Ok(number_conv((*lo1, *hi1), (*lo2, *hi2)))
            }
            (
                Type::Array { items: i1, min_items: m1, nullable_items: false, .. },
                Type::Array { items: i2, min_items: m2, nullable_items: false, .. },
            ) => Ok(list_conv(self.conv(i1, i2)?, (*m1, *m2))),
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
    fn field(&self, a: &crate::model::Field, b: &crate::model::Field) -> std::result::Result<TokenStream, Why> {
        let c = self.conv(&a.ty, &b.ty).map_err(|w| format!("property `{}`: {w}", a.name))?;
        let x = {
            let i = rust_ident(&a.rust_name);
            quote!(self.#i)
        };
        let (fa, fb) = (self.src.form(a), self.dst.form(b));
        if matches!(c, Conv::Id) && fa == fb && !matches!(fa, Form::Patch(_)) {
            return Ok(x);
        }
        let collection = matches!(b.ty, Type::Array { .. } | Type::Map { .. });
        let some = |v: TokenStream| Self::one_opt(&c, &v);
        let req = |v: TokenStream| Self::one_req(&c, &v);
        let n = quote!(::acp_bindings::runtime::Nullable);
        let p = quote!(::acp_bindings::Patch);
        let none = quote!(::core::option::Option::None);
        // A patch may hold its value boxed (`#[acp(boxed)]` on the state
        // field), or, for any JSON, as its text (`RawJson`).
        let boxed = |field: &crate::model::Field, view: &View<'_>| view.fields.get(field).boxed_in_patch;
        let raw = |field: &crate::model::Field, view: &View<'_>| {
            view.fields.get(field).state == Some(crate::plan::StateRepr::AnyValue)
        };
        // Any JSON's `null` is v2's clear on the wire: `raw_set` makes a
        // present `null` a `Clear`, as the hand-written rules do.
        let pset = if raw(b, self.dst) {
            quote!(crate::session::raw_set(v))
        } else if boxed(b, self.dst) {
            quote!(#p::Set(::std::boxed::Box::new(v)))
        } else {
            quote!(#p::Set(v))
        };
        let unbox = if raw(a, self.src) {
            quote!(let v = ::serde_json::Value::from(v);)
        } else if boxed(a, self.src) {
            quote!(let v = *v;)
        } else {
            quote!()
        };
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
            (Form::Patch(state), Form::Opt | Form::Nullable) => self.patch_as_plain(a, state, &fb, (&c, &x), &unbox)?,
            (fa, fb) => return Err(format!("property `{}`: {fa:?} -> {fb:?}", a.name)),
        };
        if matches!(c, Conv::Id) && body.to_string() == x.to_string() {
            return Ok(body);
        }
        let wire = Literal::string(&a.name);
        Ok(quote!({ cx.enter(#wire); let v = #body; cx.leave(); v }))
    }

    /// A patch field (`Keep`, `Clear` or `Set`) as an optional or nullable
    /// target field: a clear becomes `[]`, the reset value or a loss.
    fn patch_as_plain(
        &self,
        a: &crate::model::Field,
        state: &crate::plan::StateRepr,
        fb: &Form,
        (c, x): (&Conv, &TokenStream),
        unbox: &TokenStream,
    ) -> std::result::Result<TokenStream, Why> {
        let some = |v: TokenStream| Self::one_opt(c, &v);
        let (n, p, none) = (
            quote!(::acp_bindings::runtime::Nullable),
            quote!(::acp_bindings::Patch),
            quote!(::core::option::Option::None),
        );
        use crate::plan::StateRepr;
        let wrap = |v: TokenStream| -> TokenStream {
            if *fb == Form::Nullable {
                quote!(match #v { ::core::option::Option::Some(v) => #n::Value(v), ::core::option::Option::None => #n::Absent })
            } else {
                v
            }
        };
        let keep = if *fb == Form::Nullable { quote!(#n::Absent) } else { none.clone() };
        // A clear: `[]` for a list, the reset value for a field that
        // resets, otherwise a loss (v1 cannot express a clear; its
        // `null` reads as "not given").
        let clear = match state {
            StateRepr::List => wrap(quote!(::core::option::Option::Some(::std::vec::Vec::new()))),
            StateRepr::Reset(_) => {
                // The field's type resets to the rule's value: its `Default`,
                // emitted with the upsert state (no parse on every clear).
                let st = self.src_value_type(&a.ty)?;
                wrap(some(quote!(<#st as ::core::default::Default>::default())))
            }
            _ => {
                let detail = Literal::string(&format!(
                    "`{}: null` clears the value; {} cannot express a clear",
                    a.name,
                    self.dir.target()
                ));
                quote!({ cx.loss(crate::LossKind::Dropped, #detail)?; #keep })
            }
        };
        let set = wrap(some(quote!(v)));
        Ok(quote!(match #x { #p::Set(v) => { #unbox #set } #p::Clear => #clear, _ => #keep }))
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
    pub(super) fn pair(&self, a: &Def, b: &Def) -> std::result::Result<Option<TokenStream>, Why> {
        let (sp, dp) = (self.ty_path(a, false), self.ty_path(b, true));
        let (tr, f, assoc) = (self.dir.tr(), self.dir.f(), self.dir.assoc());
        let body = match (&a.kind, &b.kind) {
            _ if self.src.is_type_alias(&a.name) && self.dst.is_type_alias(&b.name) => return Ok(None),
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
                fn #f(self, cx: &mut crate::Cx) -> ::core::result::Result<#dp, crate::Fail> {
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
            let present = match self.src.form(fa) {
                Form::Value => quote!(true),
                Form::Opt => quote!(self.#i.is_some()),
                Form::Nullable => quote!(!self.#i.is_absent()),
                Form::Patch(_) => quote!(!self.#i.is_keep()),
            };
            let wire = Literal::string(&fa.name);
            let detail = Literal::string(&format!("`{}` has no {} form", fa.name, self.dir.target()));
            drops.push(quote! {
                if #present { cx.loss_at(#wire, crate::LossKind::Dropped, #detail)?; }
            });
        }
        // The target is built through its `new` (its types are
        // `#[non_exhaustive]` outside their crate) and its other fields set
        // after it; every value is computed first, in the target's field
        // order, so that losses are reported in that order.
        let mut values = Vec::new();
        let (mut params, mut sets) = (Vec::new(), Vec::new());
        for fb in &y.fields {
            let i = rust_ident(&fb.rust_name);
            let local = format_ident!("field_{}", fb.rust_name.trim_start_matches("r#"));
            let value = match x.fields.iter().find(|fa| target_of(&fa.name) == fb.name) {
                Some(fa) => {
                    let v = self.field(fa, fb)?;
                    values.push(quote!(let #local = #v;));
                    quote!(#local)
                }
                None => match self.dst.form(fb) {
                    Form::Opt => quote!(::core::option::Option::None),
                    Form::Nullable => quote!(::acp_bindings::runtime::Nullable::Absent),
                    Form::Patch(_) => quote!(::core::default::Default::default()),
                    Form::Value => {
                        return Err(format!(
                            "{} requires `{}`, which the source does not have",
                            self.dir.target(),
                            fb.name
                        ))
                    }
                },
            };
            if self.dst.in_new(fb) {
                params.push(value);
            } else {
                sets.push(quote!(out.#i = #value;));
            }
        }
        match (&x.flatten, &y.flatten) {
            (None, None) => {}
            (Some(fa), Some(fb)) => {
                let c = self.conv(&Type::Ref(fa.union.clone()), &Type::Ref(fb.union.clone()))?;
                let ia = rust_ident(&fa.rust_name);
                let v = Self::one_req(&c, &quote!(self.#ia));
                values.push(quote!(let field_flattened = #v;));
                params.push(quote!(field_flattened));
            }
            _ => return Err("one side flattens a union into the object".into()),
        }
        Self::rest(x, y, &dp, (&mut values, &mut sets, &mut drops))?;
        let out = if sets.is_empty() { quote!(out) } else { quote!(mut out) };
        Ok(quote! {
            #(#drops)*
            #(#values)*
            let #out = #dp::new(#(#params),*);
            #(#sets)*
            ::core::result::Result::Ok(out)
        })
    }

    /// The properties the schemas do not name (the plan's [`Rest`] of each
    /// side): carried over when both hold them alike, each reported dropped
    /// when the target holds none.
    ///
    /// [`Rest`]: crate::plan::Rest
    fn rest(
        x: &crate::model::Struct,
        y: &crate::model::Struct,
        dp: &TokenStream,
        (values, sets, drops): (&mut Vec<TokenStream>, &mut Vec<TokenStream>, &mut Vec<TokenStream>),
    ) -> std::result::Result<(), Why> {
        let (rx, ry) = (crate::plan::Rest::of(x), crate::plan::Rest::of(y));
        match (rx.has_field(), ry.has_field()) {
            (false, false) => {}
            (true, true) if std::mem::discriminant(&rx) == std::mem::discriminant(&ry) => {
                values.push(quote!(let field_rest = cx.extras::<#dp, _>(self.additional_properties)?;));
                sets.push(quote!(out.additional_properties = field_rest;));
            }
            (true, false) => drops.push(quote! {
                for (k, _) in self.additional_properties.iter() {
                    cx.enter_owned(k.clone());
                    cx.dropped("a property the target's schema does not allow")?;
                    cx.leave();
                }
            }),
            (false, true) => {}
            _ => return Err("unknown properties are kept differently".into()),
        }
        Ok(())
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
            arms.push(quote!(#sp::#fnm(u) => crate::redecode::<#dp>(cx, #json, "the unknown value")?));
        }
        arms.push(unknown_to_this_build());
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
            arms.push(quote!(#sp::#cn(u) => crate::redecode::<#dp>(cx, ::serde_json::Value::Object(u.into_object()), "the unknown variant")?));
        }
        arms.push(unknown_to_this_build());
        Ok(quote!(::core::result::Result::Ok(match self { #(#arms,)* })))
    }
}

impl Gen<'_, '_> {
    /// The impl of a pair the generator cannot state, in the unstable build:
    /// converting a value is reported as `unconvertible`.
    pub(super) fn unconvertible(&self, a: &Def, b: &Def) -> Option<TokenStream> {
        if self.src.is_type_alias(&a.name) && self.dst.is_type_alias(&b.name) {
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
                fn #f(self, cx: &mut crate::Cx) -> ::core::result::Result<#dp, crate::Fail> {
                    ::core::result::Result::Err(cx.unconvertible(#detail))
                }
            }
        })
    }
}

/// An integer: the same when the target's range holds the source's, else checked.
fn int_conv(
    (f1, lo1, hi1): (crate::model::IntFormat, Option<i128>, Option<i128>),
    (f2, lo2, hi2): (crate::model::IntFormat, Option<i128>, Option<i128>),
) -> Conv {
    let (r1, r2) = (f1.range(), f2.range());
    let lo_src = lo1.unwrap_or(r1.0).max(r1.0);
    let hi_src = hi1.unwrap_or(r1.1).min(r1.1);
    let lo_dst = lo2.unwrap_or(r2.0).max(r2.0);
    let hi_dst = hi2.unwrap_or(r2.1).min(r2.1);
    if f1 == f2 && lo_dst <= lo_src && hi_dst >= hi_src {
        return Conv::Id;
    }
    let t = crate::emit::int_type(f2);
    let lo = Literal::i128_unsuffixed(lo_dst);
    let hi = Literal::i128_unsuffixed(hi_dst);
    Conv::Checked(std::rc::Rc::new(move |x| quote!(crate::int::<_, #t>(#x, #lo, #hi))))
}

/// A number: the same unless the target's bounds are tighter, then checked.
fn number_conv((lo1, hi1): (Option<f64>, Option<f64>), (lo2, hi2): (Option<f64>, Option<f64>)) -> Conv {
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
    if !tighter(lo1, lo2, true) && !tighter(hi1, hi2, false) {
        return Conv::Id;
    }
    let opt = |v: Option<f64>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let (lo, hi) = (opt(lo2), opt(hi2));
    Conv::Checked(std::rc::Rc::new(move |x| quote!(crate::number(#x, #lo, #hi))))
}

/// A list: each item converted (one with no target form dropped on its
/// own), and the target's `minItems` checked when the source's is lower.
fn list_conv(item: Conv, (m1, m2): (Option<u64>, Option<u64>)) -> Conv {
    let need = m2.unwrap_or(0) > m1.unwrap_or(0);
    let n = Literal::usize_unsuffixed(m2.unwrap_or(0) as usize);
    let check = move |v: TokenStream| {
        if need {
            quote!({ let items = #v; crate::min_items(cx, items, #n) })
        } else {
            quote!(::core::result::Result::<_, crate::Fail>::Ok(#v))
        }
    };
    // Each item converted inside `or_drop`: one with no target form is dropped on its own.
    let each = {
        let check = check.clone();
        move |one: TokenStream, x: &TokenStream| {
            check(quote! {{
                let mut out = ::std::vec::Vec::with_capacity(#x.len());
                for (i, v) in #x.into_iter().enumerate() {
                    cx.enter_index(i);
                    let r = cx.or_drop(|cx| #one);
                    cx.leave();
                    out.extend(r?);
                }
                out
            }})
        }
    };
    match item {
        Conv::Id if !need => Conv::Id,
        Conv::Id => Conv::Fallible(std::rc::Rc::new(move |x| check(x.clone()))),
        Conv::Fallible(g) => Conv::Fallible(std::rc::Rc::new(move |x| each(g(&quote!(v)), x))),
        // A failed check is the item's `unconvertible` loss.
        Conv::Checked(g) => Conv::Fallible(std::rc::Rc::new(move |x| {
            let one = g(&quote!(v));
            each(
                quote!(match #one { ::core::result::Result::Ok(v) => ::core::result::Result::Ok(v), ::core::result::Result::Err(d) => ::core::result::Result::Err(cx.unconvertible(d)) }),
                x,
            )
        })),
    }
}

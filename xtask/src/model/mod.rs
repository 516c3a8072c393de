//! The schema model: what a schema file says, and nothing about Rust.
//!
//! One plain data model of every `$def`: structs, open/closed enums, tagged and
//! untagged unions (with their catch-all arms), newtypes, aliases and any-JSON;
//! every definition, field, arm and enum value with its JSON pointer; the ACP
//! `x-` annotations; typed sides and payload roles of JSON-RPC methods; the
//! references between definitions and, from them, who sends and who reads each
//! one ([`Direction`]); and the reviewed upsert rules, attached while lowering.
//! The Rust names of items and fields (`rust_name`) are recorded here because
//! lowering checks them for collisions; every other Rust decision (gates, field
//! representations) is in [`crate::plan`]. Emission, the schema diff and the
//! v1/v2 converter generator read this model; none needs the raw JSON Schema.

use serde::Serialize;
use serde_json::Value;

mod shape;
pub mod text;
mod ty;
pub use ty::{IntFormat, StrRule, TupleItem, Type};

/// The Rust variant name of a method in the dispatch enums
/// (`session/update` -> `SessionUpdate`); lowering checks these for
/// collisions, the rpc emitter names its variants with them.
pub fn method_variant(method: &str) -> String {
    use heck::ToUpperCamelCase;
    method.replace(['/', '$', '.', '-'], "_").to_upper_camel_case()
}

/// Everything lowered from one schema file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Module {
    /// The file the module was read from, as given on the command line.
    pub source: String,
    /// Top-level definitions in schema order; inline types hang off their parent.
    pub defs: Vec<Def>,
    /// Warnings found while lowering, each naming the file: a construct read
    /// as less than it says (a `discriminator` no arm fixes), upsert entries
    /// that do not fit, definitions kept opaque (lenient mode).
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// One Rust item and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Def {
    /// The schema name (`$defs` key), or a name made for an inline schema.
    pub name: String,
    /// The Rust item name: the schema name, unless it cannot stand in Rust.
    pub rust_name: String,
    /// JSON pointer of the schema this item was made from.
    pub pointer: String,
    /// The description, used as the item's documentation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
    /// `x-method` / `x-side`: the JSON-RPC method whose payload this is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<Method>,
    /// `x-docs-ignore`: JSON-RPC envelope plumbing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub envelope: bool,
    /// The shape.
    pub kind: Kind,
    /// Values the definition's `not` excludes (`not: {const: ""}` on a string
    /// definition): decoding one is an error.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    /// The upsert configuration (`schema/upserts.json`) of this definition,
    /// attached while lowering.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upsert: Option<Upsert>,
    /// Other definitions this one names (its fields, arms, items, alias
    /// target), sorted; inline items count as references of their parent.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
    /// Which methods reach this definition and so who sends and reads it
    /// (empty for a definition no method payload or envelope reaches).
    #[serde(skip_serializing_if = "Direction::is_empty")]
    pub direction: Direction,
    /// Items made for inline schemas inside this one (union arms with their own
    /// fields, inline unions in properties, flattened unions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inline: Vec<Def>,
}

/// `x-method` and `x-side` of a request, response or notification payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Method {
    /// The wire method name.
    pub name: String,
    /// Which side handles the method (`x-side`).
    pub side: Side,
    /// Whether the payload is a request's params, a response's result or a
    /// notification's params: from the JSON-RPC envelope that carries it
    /// (`params` of an envelope with an `id`, `params` of one without, or
    /// `result`); from the definition name's suffix only in a schema without
    /// envelopes.
    pub kind: MethodKind,
}

/// The role of a method payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MethodKind {
    Request,
    Response,
    Notification,
}

/// `x-side`: the side that handles a method (receives its requests and
/// notifications, and answers its requests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// The coding agent.
    Agent,
    /// The editor or other client.
    Client,
    /// Either side (`$/` protocol-level methods).
    Protocol,
    /// A proxy in a conductor's chain (unstable `proxy/*` methods).
    Proxy,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Side {
    /// The `x-side` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Agent => "agent",
            Side::Client => "client",
            Side::Protocol => "protocol",
            Side::Proxy => "proxy",
        }
    }

    /// Parses an `x-side` value. `both`, the spelling of 0.x and 1.0 schemas
    /// for a method either side handles (`MessageMcpRequest`), reads as
    /// `protocol`, which says the same.
    pub fn parse(s: &str) -> Option<Side> {
        if s == "both" {
            return Some(Side::Protocol);
        }
        [Side::Agent, Side::Client, Side::Protocol, Side::Proxy].into_iter().find(|x| x.as_str() == s)
    }

    /// The peers that handle a method of this side.
    pub fn handlers(self) -> &'static [Peer] {
        match self {
            Side::Agent => &[Peer::Agent],
            Side::Client => &[Peer::Client],
            Side::Protocol => &[Peer::Agent, Peer::Client],
            Side::Proxy => &[Peer::Proxy],
        }
    }

    /// The peers that call a method of this side.
    pub fn callers(self) -> &'static [Peer] {
        match self {
            Side::Agent => &[Peer::Client],
            Side::Client => &[Peer::Agent],
            Side::Protocol => &[Peer::Agent, Peer::Client],
            Side::Proxy => &[Peer::Conductor],
        }
    }
}

/// A party that sends or reads a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Peer {
    Agent,
    Client,
    /// A proxy between a conductor and the agent.
    Proxy,
    /// The conductor that drives a chain of proxies.
    Conductor,
}

/// One method payload through which a definition travels.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Use {
    /// The wire method name.
    pub method: String,
    /// The side that handles the method.
    pub side: Side,
    /// The payload's role in that method.
    pub kind: MethodKind,
}

impl Use {
    /// Who writes a payload of this use: the caller for requests and
    /// notifications, the handler for responses.
    pub fn senders(&self) -> &'static [Peer] {
        match self.kind {
            MethodKind::Request | MethodKind::Notification => self.side.callers(),
            MethodKind::Response => self.side.handlers(),
        }
    }

    /// Who decodes a payload of this use.
    pub fn readers(&self) -> &'static [Peer] {
        match self.kind {
            MethodKind::Request | MethodKind::Notification => self.side.handlers(),
            MethodKind::Response => self.side.callers(),
        }
    }
}

/// Where a definition travels: the method payloads that reach it through
/// references (directly or through other definitions), and so who sends it
/// and who reads it. A type that travels both ways has both peers in both sets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Direction {
    /// The sending peers.
    pub sent_by: Vec<Peer>,
    /// The reading peers.
    pub read_by: Vec<Peer>,
    /// Every method payload that reaches the definition, sorted.
    pub uses: Vec<Use>,
}

impl Direction {
    /// Whether no method reaches the definition.
    pub fn is_empty(&self) -> bool {
        self.uses.is_empty()
    }

    /// The direction of a set of uses.
    pub fn of(uses: impl IntoIterator<Item = Use>) -> Direction {
        let mut uses: Vec<Use> = uses.into_iter().collect();
        uses.sort();
        uses.dedup();
        let mut sent_by: Vec<Peer> = uses.iter().flat_map(|u| u.senders().iter().copied()).collect();
        let mut read_by: Vec<Peer> = uses.iter().flat_map(|u| u.readers().iter().copied()).collect();
        sent_by.sort();
        sent_by.dedup();
        read_by.sort();
        read_by.dedup();
        Direction { sent_by, read_by, uses }
    }
}

/// The rule of one upsert property (`schema/upserts.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// `Option<T>`: a value replaces, `null` unsets.
    Replace,
    /// `Vec<T>`: replaced whole; `[]` and `null` clear.
    List,
    /// `_meta`: patched per top-level key.
    ByKey,
    /// Required on the wire, replaced every time.
    Required,
    /// `T`: `null` resets to this default value.
    #[serde(untagged)]
    Reset {
        /// The wire value of the default.
        reset: Value,
    },
}

/// One configured upsert: the definition is a patch of a stored entity.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upsert {
    /// The state struct generated for it.
    pub state: String,
    /// The property that identifies the entity (none: the session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Every other property's rule, by wire name.
    pub fields: std::collections::BTreeMap<String, Rule>,
}

/// The shape of a definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// An object with named properties.
    Struct(Struct),
    /// A string or integer enum, open (with a fallback) or closed.
    Enum(Enum),
    /// A union of object arms chosen by a discriminator, or an untagged union.
    Union(Union),
    /// A named wrapper around one type (`SessionId`, `ProtocolVersion`).
    Newtype(Type),
    /// The same wire shape as another definition (`allOf` of one `$ref`).
    Alias(String),
    /// Any JSON value (`{}`).
    Any,
    /// A definition the generator does not understand, kept by lenient
    /// lowering (the schema diff, `ir`, `codegen --lenient`) instead of
    /// refusing the whole file.
    Opaque(Opaque),
}

/// What lenient lowering keeps of a definition it cannot lower.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Opaque {
    /// Every problem found in it, each with its JSON pointer.
    pub reason: String,
    /// Its schema as written.
    pub schema: serde_json::Value,
}

/// An object with named properties.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Struct {
    /// The properties, in schema order.
    pub fields: Vec<Field>,
    /// A union whose arms add properties to this object (`anyOf` beside `properties`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flatten: Option<Flatten>,
    /// `additionalProperties` of the object itself, as written.
    pub additional: Additional,
    /// The type of every property `properties` does not name, when
    /// `additionalProperties` is a schema (what schemars writes for a
    /// flattened typed map): `Additional::Typed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rest: Option<Type>,
    /// Properties whose schema is `false`: they must be absent (a decode
    /// error names them), and no Rust field holds them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<String>,
}

impl Struct {
    /// Whether unknown properties are kept (`additionalProperties: true`).
    pub fn keeps_unknown(&self) -> bool {
        self.additional == Additional::True
    }

    /// Whether the struct keeps the properties its schema does not name in an
    /// untyped `additional_properties` (`runtime::Extra`): every struct, unless
    /// the schema says `additionalProperties: false` or gives them a type, or
    /// a flattened union takes the rest of the object (its arms keep it).
    pub fn keeps_rest(&self) -> bool {
        matches!(self.additional, Additional::Absent | Additional::True) && self.flatten.is_none()
    }
}

/// `additionalProperties` beside `properties`, as the schema writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Additional {
    /// Not written: JSON Schema allows any other property.
    Absent,
    /// `true`.
    True,
    /// `false`: no other property is valid.
    False,
    /// A schema: every other property must be of that type ([`Struct::rest`]).
    Typed,
}

/// A union flattened into a struct.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flatten {
    /// The Rust field holding the union.
    pub rust_name: String,
    /// The inline union definition (in the parent's `inline`).
    pub union: String,
    /// Documentation for the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
}

/// One property of a struct.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The wire name.
    pub name: String,
    /// JSON pointer of the property's schema.
    pub pointer: String,
    /// The Rust field name.
    pub rust_name: String,
    /// The description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
    /// The value type (without the optional / nullable wrapper).
    pub ty: Type,
    /// Listed in `required`.
    pub required: bool,
    /// `null` is an allowed value.
    pub nullable: bool,
    /// `x-deserialize-default-on-error`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default_on_error: bool,
    /// `x-deserialize-skip-invalid-items`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skip_invalid_items: bool,
    /// `x-deserialize-default-on-null`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub default_on_null: bool,
    /// The schema's `default`, documented but never written on encoding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A string or integer enum.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Enum {
    /// Whether the values are strings or integers.
    pub repr: EnumRepr,
    /// The known values.
    pub variants: Vec<EnumVariant>,
    /// The catch-all arm, if the enum is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Fallback>,
}

/// The JSON type of an enum's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EnumRepr {
    String,
    Integer(IntFormat),
}

/// An enum value on the wire: a string or an integer (lowering refuses
/// any other `const`). Displayed and serialized as JSON (`"text"`, `1`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum EnumValue {
    Str(String),
    Int(i64),
}

impl EnumValue {
    /// The value of a JSON string or whole number that fits in an `i64`.
    pub fn from_json(v: &Value) -> Option<EnumValue> {
        match v {
            Value::String(s) => Some(EnumValue::Str(s.clone())),
            Value::Number(n) => n.as_i64().map(EnumValue::Int),
            _ => None,
        }
    }

    /// The string, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            EnumValue::Str(s) => Some(s),
            EnumValue::Int(_) => None,
        }
    }

    /// The integer, for an integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            EnumValue::Int(i) => Some(*i),
            EnumValue::Str(_) => None,
        }
    }

    /// The value as JSON.
    pub fn to_json(&self) -> Value {
        match self {
            EnumValue::Str(s) => Value::from(s.as_str()),
            EnumValue::Int(i) => Value::from(*i),
        }
    }
}

impl std::fmt::Display for EnumValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.to_json(), f)
    }
}

/// A known enum value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EnumVariant {
    /// The value on the wire.
    pub value: EnumValue,
    /// JSON pointer of the value (its `const` arm, or its `enum` entry).
    pub pointer: String,
    /// The Rust variant name.
    pub rust_name: String,
    /// The arm's `title`, as written (it names integer values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
}

/// The catch-all arm of an open enum or union.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fallback {
    /// The Rust variant name (from the arm's title).
    pub rust_name: String,
    /// The arm's `title`, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// JSON pointer of the catch-all arm.
    pub pointer: String,
    /// The description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
}

/// A union.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Union {
    /// The discriminator, for tagged unions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<Tag>,
    /// The arms, in schema order.
    pub variants: Vec<Variant>,
    /// The catch-all arm of an open tagged union.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catch_all: Option<CatchAll>,
}

/// The discriminator of a tagged union.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tag {
    /// The property holding the discriminator.
    pub property: String,
    /// A discriminator of the wrong JSON type counts as absent (the property is
    /// `x-deserialize-default-on-error` in the enclosing struct).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lenient: bool,
    /// The schema names the property in a `discriminator` keyword too.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub declared: bool,
}

/// One arm of a union.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// The Rust variant name.
    pub rust_name: String,
    /// The arm's `title`, as written (it names untagged arms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// JSON pointer of the arm.
    pub pointer: String,
    /// The description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
    /// The discriminator value; `None` for an arm chosen when the discriminator
    /// is absent (or for every arm of an untagged union).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// What the arm carries.
    pub payload: Payload,
}

/// What a union arm carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Payload {
    /// Nothing but the discriminator.
    Unit,
    /// The properties of a value of this type (a definition or an inline item).
    Type(Type),
    /// The arm in which the discriminator is absent or `null` (`IdleStateUpdate`'s `none`).
    NoTag,
}

/// The catch-all arm of an open tagged union: an unknown discriminator keeps the
/// whole object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatchAll {
    /// The Rust variant name.
    pub rust_name: String,
    /// The arm's `title`, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// JSON pointer of the catch-all arm.
    pub pointer: String,
    /// The description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docs: Option<String>,
    /// The description of the discriminator property inside the arm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag_docs: Option<String>,
    /// Properties the arm requires besides the discriminator.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
    /// Properties the arm gives a type besides the discriminator, checked
    /// when present (`required` says which must be).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
    /// `additionalProperties` of the arm, as written.
    pub additional: Additional,
    /// Arms of which an unknown object must also match one (the catch-all's
    /// own `oneOf`/`anyOf` of `$ref`s, as `CreateElicitationRequest`'s
    /// scopes). Recorded, not checked on decode: the whole object is kept
    /// anyway.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub one_of: Vec<Variant>,
    /// Discriminator values the `not` guard excludes that no arm has:
    /// reserved for arms not added yet. No arm accepts them, so decoding one
    /// is an error naming it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reserved: Vec<String>,
}

/// The definition an alias chain ends at: from `name`, each name `next`
/// maps to the definition it restates (an alias), until one is not an
/// alias. Emit, rpc and convert follow aliases through this one function,
/// each with its own idea of what counts as an alias (`next`).
///
/// # Panics
///
/// On a cycle of aliases, naming it: lowering refuses every such cycle
/// with an error at the definition that starts it, so meeting one here is
/// a generator bug.
pub fn follow_aliases<'a>(name: &'a str, next: impl Fn(&str) -> Option<&'a str>) -> &'a str {
    let mut chain = vec![name];
    let mut n = name;
    while let Some(target) = next(n) {
        if chain.contains(&target) {
            chain.push(target);
            panic!("alias cycle {} (lowering refuses alias cycles)", chain.join(" -> "));
        }
        chain.push(target);
        n = target;
    }
    n
}

impl Def {
    /// This definition and every inline item below it, depth first.
    pub fn walk(&self) -> Vec<&Def> {
        let mut out = vec![self];
        for d in &self.inline {
            out.extend(d.walk());
        }
        out
    }

    /// A copy with every description removed, to compare shapes.
    pub fn without_docs(&self) -> Def {
        let mut d = self.clone();
        strip_docs(&mut d);
        d
    }
}

fn strip_docs(d: &mut Def) {
    d.docs = None;
    d.pointer.clear();
    d.direction = Direction::default();
    match &mut d.kind {
        Kind::Struct(s) => {
            for f in &mut s.fields {
                f.docs = None;
                f.pointer.clear();
            }
            if let Some(fl) = &mut s.flatten {
                fl.docs = None;
            }
        }
        Kind::Enum(e) => {
            for v in &mut e.variants {
                v.docs = None;
                v.pointer.clear();
            }
            if let Some(f) = &mut e.fallback {
                f.docs = None;
                f.pointer.clear();
            }
        }
        Kind::Union(u) => {
            for v in &mut u.variants {
                v.docs = None;
                v.pointer.clear();
            }
            if let Some(c) = &mut u.catch_all {
                c.docs = None;
                c.pointer.clear();
            }
        }
        Kind::Newtype(_) | Kind::Alias(_) | Kind::Any | Kind::Opaque(_) => {}
    }
    for i in &mut d.inline {
        strip_docs(i);
    }
}

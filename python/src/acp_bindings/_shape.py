"""The decoding tables: every definition's rules, as data, read into typed objects.

``cargo xtask codegen`` writes one table per schema (``_tables/v2.json`` and
the others) from the same plan as the Rust crate, in the TypeScript
package's format. Each is one object::

    {"shapes": {...}, "methods": {...}, "upserts": {...}, "reducer": {...}}

``shapes`` says how each definition decodes (by its name), ``methods`` which
definition each JSON-RPC method's params and result decode as, ``upserts``
and ``reducer`` how the session reducer folds v2's updates (``{}`` for v1).
This module reads them into the frozen objects below once, so that the
decoder (:mod:`acp_bindings._decode`) and the reducer
(:mod:`acp_bindings._session`) interpret checked structures rather than raw
dictionaries. The tables' format, member by member:

A *value type* (:data:`Ty`) is ``"string"``, ``"char"`` (one code point),
``"number"``, ``"boolean"``, ``"null"``, ``"any"`` (any JSON, kept as
received), ``"object"`` (any JSON object, kept), ``{"int": "u16"}`` (an
integer of a Rust type), ``{"ref": "Name"}`` (a definition),
``{"list": T, "nullable": true?}``, ``{"tuple": [{"ty": T, "nullable":
true?}, ...]}`` or ``{"map": T, "nullable": true?}``.

A *definition* (:data:`Shape`) is one of ``{"struct": [field...], "rest":
"deny" | T?, "flatten": "Union"?, "forbidden": [name...]?}``, ``{"enum":
[value...], "open": true?, "int": "i32"?}``, ``{"union": [arm...], "tag":
{"key": k, "lenient": true?}?, "catchAll": {...}?}``, ``{"newtype": T,
"str": check?, "range": check?}``, ``{"alias": "Name"}`` or ``"any"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeAlias

from acp_bindings._write import rust_display

__all__ = [
    "ArmShape",
    "CatchAll",
    "Collection",
    "EnumShape",
    "FieldShape",
    "IntTy",
    "ItemsCheck",
    "ListTy",
    "MapTy",
    "MethodShape",
    "NewtypeShape",
    "PayloadShape",
    "RangeCheck",
    "ReducerShape",
    "RefTy",
    "Reset",
    "Shape",
    "StrCheck",
    "StructShape",
    "Tables",
    "TupleTy",
    "Ty",
    "UnionShape",
    "UpdateRule",
    "UpsertShape",
    "load",
]

#: serde's names of the integer types, as its errors say them.
IntName: TypeAlias = Literal["i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128"]

#: The value types that are words.
SCALARS: Final = frozenset({"string", "char", "number", "boolean", "null", "any", "object"})


@dataclass(frozen=True, slots=True)
class IntTy:
    """An integer of Rust type ``name`` (``u16``): its bounds are the type's."""

    name: str


@dataclass(frozen=True, slots=True)
class RefTy:
    """A definition, by name."""

    name: str


@dataclass(frozen=True, slots=True)
class ListTy:
    """An array of ``item``; ``nullable``: an item may be ``null``."""

    item: Ty
    nullable: bool = False


@dataclass(frozen=True, slots=True)
class TupleTy:
    """An array of exactly ``len(items)`` items, each of its type (and nullable or not)."""

    items: tuple[tuple[Ty, bool], ...]


@dataclass(frozen=True, slots=True)
class MapTy:
    """An object whose every member is of ``value``; ``nullable``: a member may be ``null``."""

    value: Ty
    nullable: bool = False


#: A value type: one of :data:`SCALARS` or a compound type.
Ty: TypeAlias = "str | IntTy | RefTy | ListTy | TupleTy | MapTy"


@dataclass(frozen=True, slots=True)
class StrCheck:
    """``minLength`` / ``maxLength`` (in code points) and ``pattern``
    (unanchored) of a string, at schema pointer ``at``."""

    at: str
    min: int | None = None
    max: int | None = None
    pattern: str | None = None
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True, slots=True)
class RangeCheck:
    """The bounds of a number (``None``: unbounded); ``is_float``: a float property.

    The table writes an integer's bounds as decimal text (exact past 2**53);
    ``min_text`` and ``max_text`` are the bounds as the errors show them.
    """

    at: str
    is_float: bool = False
    min: int | float | None = None
    max: int | float | None = None
    min_text: str = "-inf"
    max_text: str = "inf"


@dataclass(frozen=True, slots=True)
class ItemsCheck:
    """``minItems`` / ``maxItems`` of an array."""

    at: str
    min: int = 0
    max: int | None = None


@dataclass(frozen=True, slots=True)
class FieldShape:
    """One property of an object, and the rule it is read by.

    The table gives a property its ``repr`` (how it is held: ``value``
    required, ``required_nullable``, ``optional`` (the default),
    ``optional_any``, ``nullable``, ``patch``) and its ``read`` rule (what a
    value of the wrong shape does); these flags are what the two mean for
    reading one member:

    - ``required``: it must be present (``value``, ``required_nullable``);
    - ``nullable``: ``null`` is a value (``required_nullable``, ``nullable``,
      ``optional_any``);
    - ``patch``: an upsert's patch field (omitted keeps, ``null`` clears, a
      value of the wrong shape is dropped: the stored value is kept);
    - ``lenient``: a value that fails is the default (dropped when optional)
      and reported (the rules ``lenient*`` and any rule with ``lenient``);
    - ``skip_items``: a list's items that fail are dropped (``items``,
      ``lenient_items``, a patch's ``skipItems``);
    - ``null_as_default``: ``null`` is the default.
    """

    name: str
    ty: Ty
    required: bool
    nullable: bool
    patch: bool
    lenient: bool
    skip_items: bool
    null_as_default: bool
    #: The default a required member falls back to (the Rust type's ``Default``), if the table gives one.
    has_default: bool = False
    default: Any = None
    str_check: StrCheck | None = None
    range_check: RangeCheck | None = None
    items_check: ItemsCheck | None = None


@dataclass(frozen=True, slots=True)
class StructShape:
    """An object: its properties, and what it does with the members it does not name.

    ``rest``: ``"deny"`` (an unknown member is an error), a value type (each
    is of it) or ``None`` (each is kept as received). ``flatten``: a union
    whose arms take the members the struct does not name. ``forbidden``: the
    members whose schema is ``false``.
    """

    fields: tuple[FieldShape, ...]
    by_name: Mapping[str, FieldShape]
    required: tuple[str, ...]
    rest: Ty | None = None
    deny: bool = False
    flatten: str | None = None
    forbidden: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class EnumShape:
    """A string or integer enum (``int_type``: of that integer type); ``open``: any other value is kept."""

    values: tuple[str | int, ...]
    open: bool = False
    int_type: str | None = None


@dataclass(frozen=True, slots=True)
class ArmShape:
    """One arm of a union.

    ``name`` is the Rust variant's (in the crate's errors about untagged
    arms); ``tag`` the discriminator's value (``None``: an arm tried in
    order); ``unit``: nothing but the discriminator (untagged: ``null``);
    ``no_tag``: the arm of an absent or ``null`` discriminator.
    """

    name: str
    tag: str | None = None
    unit: bool = False
    no_tag: bool = False
    ty: Ty | None = None


@dataclass(frozen=True, slots=True)
class CatchAll:
    """What an open union asks of an object of an arm it does not define."""

    required: tuple[str, ...]
    fields: tuple[tuple[str, Ty], ...]
    reserved: frozenset[str]


@dataclass(frozen=True, slots=True)
class UnionShape:
    """A union, tagged (``tag_key``) or untagged, open (``catch_all``) or closed."""

    arms: tuple[ArmShape, ...]
    by_tag: Mapping[str, ArmShape]
    tag_key: str | None = None
    tag_lenient: bool = False
    catch_all: CatchAll | None = None


@dataclass(frozen=True, slots=True)
class NewtypeShape:
    """A named wrapper of one type, with the checks of its value."""

    ty: Ty
    str_check: StrCheck | None = None
    range_check: RangeCheck | None = None


@dataclass(frozen=True, slots=True)
class AliasShape:
    """Another definition under this name."""

    target: str


@dataclass(frozen=True, slots=True)
class AnyShape:
    """Any JSON value, kept as received."""


#: How one definition decodes.
Shape: TypeAlias = "StructShape | EnumShape | UnionShape | NewtypeShape | AliasShape | AnyShape"


@dataclass(frozen=True, slots=True)
class PayloadShape:
    """A method's params or result: the definition it decodes as, and what an omitted or ``null`` one is.

    ``null``: ``"value"`` (decoded as ``null``), ``"empty"`` (as ``{}``, and
    written back as it came) or ``"refuse"`` (an error).
    """

    definition: str
    null: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class MethodShape:
    """A JSON-RPC method: the side that handles it (``agent``, ``client``,
    ``protocol``, ``proxy``), and its payloads."""

    side: str
    request: PayloadShape | None = None
    response: PayloadShape | None = None
    notification: PayloadShape | None = None


@dataclass(frozen=True, slots=True)
class Reset:
    """A state property that ``null`` resets to ``value`` (its default too)."""

    value: Any


#: How a state property takes a patch: ``"key"`` (set once), ``"required"``
#: (replaced), ``"by_key"`` (``_meta``: merged one level deep), ``"list"``
#: (replaced; ``null`` clears to ``[]``), ``"optional"`` / ``"any"``
#: (``null`` unsets), or :class:`Reset`.
StateRule: TypeAlias = "str | Reset"


@dataclass(frozen=True, slots=True)
class UpsertShape:
    """One upsert: the state it patches, its key property, and each property's rule, in order."""

    state: str
    key: str | None
    fields: tuple[tuple[str, StateRule], ...]


@dataclass(frozen=True, slots=True)
class Collection:
    """A collection of the session reducer, under its JSON name.

    Exactly one of: ``upsert`` (the states of one upsert, by key), ``kinds``
    (the states of several upserts sharing a key, each under its tag, written
    as ``kind``), ``whole`` (values replaced whole, by their string property
    ``whole``), ``one`` (the state of one keyless upsert).
    """

    name: str
    upsert: str | None = None
    kinds: Mapping[str, str] | None = None
    whole: str | None = None
    one: str | None = None


@dataclass(frozen=True, slots=True)
class UpdateRule:
    """What one update (by its tag) does to the collection ``into``.

    ``rule``: ``upsert`` (the update patches the collection's upsert, of
    ``kind``), ``append`` (its ``source`` member pushed onto the list
    ``target`` of the entity named by ``key``; an unknown key creates it when
    ``create``), ``append_base64`` (base64 text ``source`` appended at
    ``target[0]``'s ``target[1]``), ``put`` (``source`` stored whole under its
    key) or ``remove`` (the entity named by ``source`` removed).
    """

    rule: str
    into: str
    kind: str | None = None
    key: str | None = None
    source: str | None = None
    target: tuple[str, ...] = ()
    create: bool = False


@dataclass(frozen=True, slots=True)
class ReducerShape:
    """A session reducer as the configuration states it: the upserts it
    patches with, the update union's discriminator, its collections (in the
    order its JSON writes them), the rule of each update by tag, and for
    compaction the tag of the update that rebuilds an entity of each
    collection from nothing (by kind, in a collection of kinds; ``None`` when
    the plan found none for some collection)."""

    upserts: Mapping[str, UpsertShape]
    tag: str
    collections: tuple[Collection, ...]
    updates: Mapping[str, UpdateRule]
    rebuild: Mapping[str, str | Mapping[str, str]] | None = None


@dataclass(frozen=True, slots=True)
class Tables:
    """One schema's tables, read: definitions by name (read on first use), methods, upserts, reducer."""

    raw_shapes: Mapping[str, Any]
    methods: Mapping[str, MethodShape]
    upserts: Mapping[str, UpsertShape]
    reducer: ReducerShape | None
    _shapes: dict[str, Shape] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        """Whether the schema defines ``name``."""
        return name in self.raw_shapes

    def shape(self, name: str) -> Shape:
        """Definition ``name``; ``LookupError`` when the schema has none."""
        s = self._shapes.get(name)
        if s is None:
            raw = self.raw_shapes.get(name)
            if raw is None:
                raise LookupError(f"no definition `{name}`")
            s = self._shapes[name] = _shape(raw)
        return s


def load(table: Mapping[str, Any]) -> Tables:
    """Reads one table (``{"shapes", "methods", "upserts", "reducer"}``)."""
    methods = {name: _method(m) for name, m in table.get("methods", {}).items()}
    upserts = {name: _upsert(u) for name, u in table.get("upserts", {}).items()}
    raw_reducer = table.get("reducer") or {}
    reducer = _reducer(raw_reducer) if raw_reducer else None
    return Tables(table["shapes"], methods, upserts, reducer)


def _ty(t: Any) -> Ty:
    if isinstance(t, str):
        if t not in SCALARS:
            raise ValueError(f"no value type `{t}`")
        return t
    if "int" in t:
        return IntTy(t["int"])
    if "ref" in t:
        return RefTy(t["ref"])
    if "list" in t:
        return ListTy(_ty(t["list"]), bool(t.get("nullable")))
    if "tuple" in t:
        return TupleTy(tuple((_ty(i["ty"]), bool(i.get("nullable"))) for i in t["tuple"]))
    if "map" in t:
        return MapTy(_ty(t["map"]), bool(t.get("nullable")))
    raise ValueError(f"no value type {t!r}")


def _str_check(c: Any) -> StrCheck | None:
    if c is None:
        return None
    pattern = c.get("pattern")
    return StrCheck(c["at"], c.get("min"), c.get("max"), pattern, None if pattern is None else re.compile(pattern))


def _bound(b: Any) -> tuple[int | float | None, str | None]:
    """A bound and its text: a number as JSON gives it, or an integer's decimal text."""
    if b is None:
        return None, None
    if isinstance(b, str):
        return int(b), b
    if isinstance(b, float):
        # The crate shows an `f64` bound by Rust's `Display`: `1` for 1.0, `0.5`.
        return b, rust_display(b)
    return b, str(b)


def _range_check(c: Any) -> RangeCheck | None:
    if c is None:
        return None
    lo, lo_text = _bound(c.get("min"))
    hi, hi_text = _bound(c.get("max"))
    return RangeCheck(c["at"], bool(c.get("float")), lo, hi, lo_text or "-inf", hi_text or "inf")


def _items_check(c: Any) -> ItemsCheck | None:
    return None if c is None else ItemsCheck(c["at"], c.get("min", 0), c.get("max"))


def _field(f: Any) -> FieldShape:
    repr_ = f.get("repr", "optional")
    read = f.get("read", "plain")
    kind = read if isinstance(read, str) else read["kind"]
    # A count is checked after the list's own rule.
    inner = read["inner"] if isinstance(read, dict) and read["kind"] == "item_count" else read
    extra = read if isinstance(read, dict) else {}
    return FieldShape(
        name=f["name"],
        ty=_ty(f["ty"]),
        required=repr_ in ("value", "required_nullable"),
        nullable=repr_ in ("required_nullable", "nullable", "optional_any"),
        patch=kind == "patch",
        lenient=kind.startswith("lenient") or extra.get("lenient") is True,
        skip_items=inner in ("items", "lenient_items") or extra.get("skipItems") is True,
        null_as_default=kind == "null_as_default",
        has_default="default" in f,
        default=f.get("default"),
        str_check=_str_check(f.get("str")),
        range_check=_range_check(f.get("range")),
        items_check=_items_check(f.get("items")),
    )


def _shape(s: Any) -> Shape:
    if s == "any":
        return AnyShape()
    if "alias" in s:
        return AliasShape(s["alias"])
    if "struct" in s:
        fields = tuple(_field(f) for f in s["struct"])
        by_name = {f.name: f for f in fields}
        rest = s.get("rest")
        return StructShape(
            fields=fields,
            by_name=by_name,
            required=tuple(f.name for f in by_name.values() if f.required),
            rest=None if rest is None or rest == "deny" else _ty(rest),
            deny=rest == "deny",
            flatten=s.get("flatten"),
            forbidden=frozenset(s.get("forbidden", ())),
        )
    if "union" in s:
        arms = tuple(
            ArmShape(
                a["name"],
                a.get("tag"),
                bool(a.get("unit")),
                bool(a.get("noTag")),
                None if a.get("ty") is None else _ty(a["ty"]),
            )
            for a in s["union"]
        )
        by_tag: dict[str, ArmShape] = {}
        for a in arms:
            if a.tag is not None:
                by_tag.setdefault(a.tag, a)
        tag = s.get("tag")
        all_ = s.get("catchAll")
        catch_all = (
            None
            if all_ is None
            else CatchAll(
                tuple(all_["required"]),
                tuple((f["name"], _ty(f["ty"])) for f in all_["fields"]),
                frozenset(all_["reserved"]),
            )
        )
        return UnionShape(
            arms,
            by_tag,
            None if tag is None else tag["key"],
            bool(tag and tag.get("lenient")),
            catch_all,
        )
    if "enum" in s:
        return EnumShape(tuple(s["enum"]), bool(s.get("open")), s.get("int"))
    if "newtype" in s:
        return NewtypeShape(_ty(s["newtype"]), _str_check(s.get("str")), _range_check(s.get("range")))
    raise ValueError(f"no shape {s!r}")


def _payload(p: Any) -> PayloadShape | None:
    return None if p is None else PayloadShape(p["def"], p["null"], p.get("name"))


def _method(m: Any) -> MethodShape:
    return MethodShape(
        m["side"], _payload(m.get("request")), _payload(m.get("response")), _payload(m.get("notification"))
    )


def _upsert(u: Any) -> UpsertShape:
    fields: list[tuple[str, StateRule]] = []
    for f in u["fields"]:
        r = f["rule"]
        fields.append((f["name"], Reset(r["reset"]) if isinstance(r, dict) else r))
    return UpsertShape(u["state"], u["key"], tuple(fields))


def _reducer(r: Any) -> ReducerShape:
    collections = tuple(
        Collection(c["name"], c.get("upsert"), c.get("kinds"), c.get("whole"), c.get("one")) for c in r["collections"]
    )
    updates: dict[str, UpdateRule] = {}
    for tag, u in r["updates"].items():
        to = u.get("to")
        target = () if to is None else (to,) if isinstance(to, str) else tuple(to)
        updates[tag] = UpdateRule(
            u["rule"], u["into"], u.get("kind"), u.get("key"), u.get("from"), target, bool(u.get("create"))
        )
    upserts = {n: _upsert(u) for n, u in r["upserts"].items()}
    return ReducerShape(upserts, r["tag"], collections, updates, r.get("rebuild"))

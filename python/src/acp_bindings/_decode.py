"""The decoder: a schema's tables (:mod:`acp_bindings._shape`) applied to a JSON value, as the Rust crate applies them.

A decoded value is a JSON value (``dict`` keeping its members' order,
``list``, ``str``, ``int``, ``float``, ``bool``, ``None``), written back as
it came: members the schema does not name are kept, in their order, and an
object of a union arm this version does not define is kept whole (an
:class:`UnknownArmObject`). The rules, as the crate has them:

- A value of the wrong shape fails the decode, with a message and the JSON
  pointer of the value (:class:`~acp_bindings.DecodeError`), unless the
  property's rule is lenient: then it is not guessed at but dropped (an
  optional member) or set to the property's default (a required one), and
  reported (:class:`Report`) with its pointer and why. The rules of a
  report: ``default-on-error`` (a lenient member dropped or defaulted),
  ``skip-invalid-items`` (an item of a list that skips them dropped),
  ``patch-keeps`` (an upsert's patch field of the wrong shape dropped: the
  stored value is kept), ``default-on-null`` (``null`` became the default),
  ``null-is-absent`` (``null`` in an optional member that is not nullable
  dropped). What the lenient members inside a dropped value reported is
  dropped with it.
- An integer is an ``int`` of its Rust type's range; a whole number written
  as a float (``2.0``) is a float, and no integer (serde's rule).
- A member name repeated in the text is an error of the whole value, which
  no lenient rule recovers from, raised where the crate's decoder meets the
  second occurrence (inside the variant that holds it, say).
- A tagged union picks its arm by the discriminator; an unknown
  discriminator tries the arms that take any value, then the union's
  catch-all (an open union keeps the object), else fails naming the known
  tags. An untagged union tries its arms in order and fails with every
  arm's error.
- The errors are the crate's words (``crate`` wording) or JSON's terms with
  Python's type names (``python``): :mod:`acp_bindings._words`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Final, Generic, Literal, NoReturn, TypeAlias, TypeVar

from acp_bindings import _messages as messages
from acp_bindings._json import DecodeError, Duplicates, pointer_of, read
from acp_bindings._shape import (
    AliasShape,
    AnyShape,
    ArmShape,
    EnumShape,
    FieldShape,
    IntTy,
    ItemsCheck,
    ListTy,
    MapTy,
    RangeCheck,
    RefTy,
    StrCheck,
    StructShape,
    Tables,
    TupleTy,
    Ty,
    UnionShape,
)
from acp_bindings._words import PYTHON, Words
from acp_bindings._write import dumps, js_quote

__all__ = ["Decoded", "Report", "ReportRule", "UnknownArmObject", "decode_value", "read_text", "is_known"]

#: What a lenient rule did instead of failing (see the module's documentation).
ReportRule: TypeAlias = Literal[
    "default-on-error", "skip-invalid-items", "patch-keeps", "default-on-null", "null-is-absent"
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Report:
    """What a lenient rule did instead of failing: where (a JSON pointer into
    the decoded value), by which rule, and why."""

    pointer: str
    rule: ReportRule
    message: str


class Decoded(Generic[T]):
    """A decoded value, and what the lenient rules did on the way (empty when nothing was dropped or defaulted).

    A plain class: one is made for every decoded message, where a frozen dataclass costs twice as long."""

    __slots__ = ("value", "reports")

    def __init__(self, value: T, reports: list[Report]) -> None:
        self.value = value
        self.reports = reports

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decoded) and (self.value, self.reports) == (other.value, other.reports)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Decoded(value={self.value!r}, reports={self.reports!r})"


class UnknownArmObject(dict[str, Any]):
    """An object of an open union's arm that this version does not define
    (an extension, ``_vendor_progress``, or a newer version's arm), kept as
    received: its discriminator and every member, in their order, so that it
    is written back exactly. It is a ``dict`` like any decoded object; the
    type is the mark (:func:`is_known`), and a copy (``dict(value)``) is a
    plain object, which encodes the same."""

    __slots__ = ()


def is_known(value: Any) -> bool:
    """Whether ``value`` is not an :class:`UnknownArmObject`: one of its union's known arms, or no union's."""
    return not isinstance(value, UnknownArmObject)


class _Drop:
    """What a member that is dropped decodes to."""

    __slots__ = ()


_DROP: Final = _Drop()

#: Absent, where ``None`` is JSON's ``null``.
_ABSENT: Final = object()

#: The range of each integer type.
_INT: Final[dict[str, tuple[int, int]]] = {
    "i8": (-(2**7), 2**7 - 1),
    "i16": (-(2**15), 2**15 - 1),
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "i128": (-(2**127), 2**127 - 1),
    "u8": (0, 2**8 - 1),
    "u16": (0, 2**16 - 1),
    "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1),
    "u128": (0, 2**128 - 1),
}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


class _Ctx:
    """One decode: where it is (``path``), what it reported, and how it words and treats errors."""

    __slots__ = ("duplicates", "path", "reports", "strict", "tables", "words")

    def __init__(self, tables: Tables, duplicates: Duplicates | None, strict: bool, words: Words) -> None:
        self.tables = tables
        #: Where the text repeats a member name.
        self.duplicates = duplicates
        #: Validating: no leniency, every recovery is an error.
        self.strict = strict
        self.words = words
        self.path: list[str] = []
        self.reports: list[Report] = []

    def pointer(self) -> str:
        return pointer_of(self.path)

    def fail(self, text: str) -> NoReturn:
        raise DecodeError(text, self.pointer())

    def fail_at(self, token: str, text: str) -> NoReturn:
        """An error at member or item ``token`` of the current value."""
        raise DecodeError(text, pointer_of([*self.path, token]))

    def invalid(self, v: Any, expected: str) -> NoReturn:
        self.fail(f"invalid type: {self.words.found(v)}, expected {expected}")

    def report(self, rule: ReportRule, e: DecodeError, pointer: str | None = None) -> None:
        if self.strict:
            raise e
        self.reports.append(Report(self.pointer() if pointer is None else pointer, rule, e.message))


def _no_repeat(c: _Ctx, v: Any) -> None:
    """The error of an object that repeats a member name (the crate's, at the repeated member)."""
    if c.duplicates is None:
        return
    r = c.duplicates.repeat_of(v)
    if r is not None:
        raise DecodeError(messages.duplicate_field(key=r.key), pointer_of([*c.path, r.key]), fatal=True)


def _kept(c: _Ctx, v: Any) -> Any:
    """A value kept as received: the error of the first object in it that repeats a member name."""
    d = c.duplicates
    if d is None or not isinstance(v, (dict, list)) or not d.holds(v):
        return v
    _no_repeat(c, v)
    items = v.items() if isinstance(v, dict) else ((str(i), x) for i, x in enumerate(v))
    for k, x in items:
        c.path.append(k)
        try:
            _kept(c, x)
        finally:
            c.path.pop()
    return v


def _ty(c: _Ctx, t: Ty, v: Any, skip_items: bool = False) -> Any:
    """``v`` as value type ``t``; ``skip_items``: a list's items that fail are dropped (and reported)."""
    if isinstance(t, str):
        if t == "string":
            if isinstance(v, str):
                return v
            c.invalid(v, "a string")
        if t == "any":
            return _kept(c, v)
        if t == "object":
            if isinstance(v, dict):
                return _kept(c, v)
            c.invalid(v, c.words.expected_object)
        if t == "boolean":
            if isinstance(v, bool):
                return v
            c.invalid(v, "a boolean")
        if t == "number":
            if _is_number(v):
                return v
            c.invalid(v, "a number")
        if t == "char":
            if not isinstance(v, str):
                c.invalid(v, c.words.expected_char)
            if len(v) != 1:
                c.fail(f"invalid value: string {js_quote(v)}, expected {c.words.expected_char}")
            return v
        if t == "null":
            # serde reads `null` as an `Option`: anything else is "Some" to it (the crate's words).
            if v is None:
                return v
            c.fail(f"invalid type: {c.words.not_null(v)}, expected null")
        raise ValueError(f"no value type `{t}`")
    if isinstance(t, RefTy):
        return _def(c, t.name, v)
    if isinstance(t, IntTy):
        return _int(c, v, t.name, c.words.integer(t.name))
    if isinstance(t, ListTy):
        return _list(c, t, v, skip_items)
    if isinstance(t, TupleTy):
        n = len(t.items)
        if not isinstance(v, list):
            c.invalid(v, c.words.tuple_of(n))
        if len(v) != n:
            c.fail(f"invalid length {len(v)}, expected {c.words.tuple_of(n)}")
        items: list[Any] = []
        for i, (ty, nullable) in enumerate(t.items):
            c.path.append(str(i))
            try:
                items.append(None if v[i] is None and nullable else _ty(c, ty, v[i]))
            finally:
                c.path.pop()
        return items
    if isinstance(t, MapTy):
        if not isinstance(v, dict):
            c.invalid(v, c.words.expected_object)
        _no_repeat(c, v)
        out: dict[str, Any] = {}
        for k, x in v.items():
            c.path.append(k)
            try:
                out[k] = None if x is None and t.nullable else _ty(c, t.value, x)
            finally:
                c.path.pop()
        return out
    raise TypeError(f"no value type {t!r}")


def _list(c: _Ctx, t: ListTy, v: Any, skip_items: bool) -> list[Any]:
    if not isinstance(v, list):
        # The skip-invalid-items reader says "an array" in both wordings, serde's own "a sequence".
        c.invalid(v, "an array" if skip_items else c.words.expected_array)
    out: list[Any] = []
    for i, item in enumerate(v):
        reports = len(c.reports)
        c.path.append(str(i))
        try:
            # The crate reads each item whole before it decodes it: a repeated name fails unwrapped.
            if skip_items:
                _kept(c, item)
            try:
                out.append(None if item is None and t.nullable else _ty(c, t.item, item))
            except DecodeError as e:
                if not skip_items or e.fatal:
                    raise
                # What the dropped item's own lenient members reported goes with it.
                del c.reports[reports:]
                c.report("skip-invalid-items", e)
        finally:
            c.path.pop()
    return out


def _int(c: _Ctx, v: Any, name: str, expected: str) -> int:
    """An integer of type ``name``: a float, even a whole one, is not one (serde's rule)."""
    if isinstance(v, bool) or not isinstance(v, int):
        c.invalid(v, expected)
    lo, hi = _INT[name]
    if v < lo or v > hi:
        c.fail(f"invalid value: integer `{v}`, expected {expected}")
    return v


def _one_of(values: list[str]) -> str:
    """serde's list of the values it expected (``one of `a`, `b```)."""
    if not values:
        return "there are no variants"
    if len(values) == 1:
        return f"expected `{values[0]}`"
    if len(values) == 2:
        return f"expected `{values[0]}` or `{values[1]}`"
    return "expected one of " + ", ".join(f"`{v}`" for v in values)


def _def(c: _Ctx, name: str, v: Any, tags: tuple[str, ...] = ()) -> Any:
    """Definition ``name``. ``tags``: the discriminators of the unions whose
    arm ``v`` is (an arm's payload is the object less them; they stay where
    they are)."""
    s = c.tables.shape(name)
    if isinstance(s, StructShape):
        return _struct(c, name, s, v, tags)
    if isinstance(s, UnionShape):
        return _union(c, name, s, v, tags)
    if isinstance(s, AliasShape):
        return _def(c, s.target, v, tags)
    if isinstance(s, AnyShape):
        return _kept(c, v)
    if isinstance(s, EnumShape):
        if s.int_type is not None:
            # An open integer enum reads any `i64` first.
            if s.open:
                return _int(c, v, "i64", c.words.integer("i64"))
            n = _int(c, v, s.int_type, f"a {name} integer")
            if n not in s.values:
                c.fail(f"unknown variant `{n}`, {_one_of([str(x) for x in s.values])}")
            return n
        if not isinstance(v, str):
            c.invalid(v, f"a {name} string")
        if not s.open and v not in s.values:
            c.fail(f"unknown variant `{v}`, {_one_of([str(x) for x in s.values])}")
        return v
    value = _ty(c, s.ty, v)
    _checks(c, s.str_check, s.range_check, None, value)
    return value


def _checks(
    c: _Ctx, str_check: StrCheck | None, range_check: RangeCheck | None, items_check: ItemsCheck | None, v: Any
) -> None:
    """A property's or a newtype's checks: string lengths (in code points) and pattern, bounds, item counts."""
    if str_check is not None and isinstance(v, str):
        r = str_check
        n = len(v)
        q = js_quote(v)
        if r.min is not None and n < r.min:
            c.fail(messages.shorter_than(value=q, min=r.min, at=r.at))
        if r.max is not None and n > r.max:
            c.fail(messages.longer_than(value=q, max=r.max, at=r.at))
        if r.regex is not None and r.regex.search(v) is None:
            c.fail(messages.no_pattern_match(value=q, pattern=js_quote(r.pattern or ""), at=r.at))
    if range_check is not None and _is_number(v):
        b = range_check
        if not ((b.min is None or v >= b.min) and (b.max is None or v <= b.max)):
            # serde_json shows a number as it writes it (`2.0`, `1.5`, `7`).
            c.fail(messages.out_of_range(value=dumps(v), min=b.min_text, max=b.max_text, at=b.at))
    if items_check is not None and isinstance(v, list):
        i = items_check
        n = len(v)
        if n < i.min:
            c.fail(messages.too_few_items(count=n, min=i.min, at=i.at))
        if i.max is not None and n > i.max:
            c.fail(messages.too_many_items(count=n, max=i.max, at=i.at))


def _field(c: _Ctx, f: FieldShape, v: Any) -> Any:
    """One member by its property's rule: the value to keep, or ``_DROP``."""
    if v is None:
        if f.patch or f.nullable or f.ty == "any":
            return None
        if f.null_as_default:
            c.report("default-on-null", DecodeError("`null` is the default", c.pointer()))
            return copy.deepcopy(f.default) if f.has_default and f.default is not None else _DROP
        if not f.required:
            c.report("null-is-absent", DecodeError("`null` in an optional member that is not nullable", c.pointer()))
            return _DROP
    # A lenient member is read whole before it is decoded: a repeated name in it fails unwrapped.
    if (f.lenient or f.patch) and not (f.skip_items and isinstance(v, list)):
        _kept(c, v)
    reports = len(c.reports)
    try:
        out = _ty(c, f.ty, v, f.skip_items)
        _checks(c, f.str_check, f.range_check, f.items_check, out)
        return out
    except DecodeError as e:
        if not (f.patch or f.lenient) or e.fatal:
            raise
        del c.reports[reports:]
        c.report("patch-keeps" if f.patch else "default-on-error", e)
        return copy.deepcopy(f.default) if f.required and f.has_default else _DROP


def _struct(c: _Ctx, name: str, s: StructShape, v: Any, tags: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(v, dict):
        # A struct with a flattened union is read by serde's derive, which says "struct X".
        c.invalid(v, f"a {name} object" if s.flatten is None else c.words.struct(name))
    out: dict[str, Any] = {}
    rest: dict[str, Any] | None = None
    # A repeated name fails where the crate's reader meets its second
    # occurrence: here when the struct reads the member itself (a field, or an
    # enclosing discriminator), inside the flattened union otherwise.
    d = c.duplicates
    repeated = None if d is None else d.repeat_of(v)
    own_repeat = repeated is not None and (s.flatten is None or repeated.key in s.by_name or repeated.key in tags)
    for i, (k, x) in enumerate(v.items()):
        if own_repeat and repeated is not None and repeated.after == i:
            _no_repeat(c, v)
        if k in tags:
            out[k] = x
            continue
        f = s.by_name.get(k)
        if f is not None:
            c.path.append(k)
            try:
                r = _field(c, f, x)
            finally:
                c.path.pop()
            if r is not _DROP:
                out[k] = r
        elif k in s.forbidden:
            c.fail_at(k, messages.not_allowed(key=k, object=name))
        elif s.flatten is not None:
            if rest is None:
                rest = {}
            rest[k] = x
        elif s.deny:
            known = [f.name for f in s.fields]
            c.fail(f"unknown field `{k}`, {_one_of(known) if known else 'there are no fields'}")
        else:
            c.path.append(k)
            try:
                out[k] = _kept(c, x) if s.rest is None else _ty(c, s.rest, x)
            finally:
                c.path.pop()
    if own_repeat and repeated is not None and repeated.after == len(v):
        _no_repeat(c, v)
    for r in s.required:
        if r not in v:
            c.fail(f"missing field `{r}`")
    if s.flatten is None:
        return out
    others: dict[str, Any] = {} if rest is None else rest
    if d is not None and repeated is not None and not own_repeat:
        d.note(others, repeated.key, len(others))
        d.add(others)
    elif d is not None and d.holds(v):
        d.add(others)
    union = c.tables.shape(s.flatten)
    if not isinstance(union, UnionShape):
        raise TypeError(f"`{name}` flattens `{s.flatten}`, which is no union")
    arm = _union(c, s.flatten, union, others)
    if not isinstance(arm, dict):
        return out
    # The members in the order they came.
    merged: dict[str, Any] = {}
    for k in v:
        if k in out:
            merged[k] = out[k]
        elif k in arm:
            merged[k] = arm[k]
    return merged


def _union(c: _Ctx, name: str, u: UnionShape, v: Any, tags: tuple[str, ...] = ()) -> Any:
    if u.tag_key is None:
        return _untagged(c, name, u, v)
    key = u.tag_key
    if not isinstance(v, dict):
        c.invalid(v, f"a {name} object")
    tag = v.get(key, _ABSENT)
    known = u.by_tag.get(tag) if isinstance(tag, str) else None
    if known is not None:
        inner = (*tags, key)
        if known.unit:
            _no_repeat(c, v)
            return _pick(v, inner)
        try:
            return _payload(c, known, v, inner)
        except DecodeError as e:
            text = messages.invalid_variant(tag=tag, union=name, error=e.message)
            raise DecodeError(text, e.pointer, fatal=e.fatal) from None
    # The crate reads an object of an absent, unknown or odd discriminator
    # whole before it looks at it: a repeated name anywhere in it fails first.
    _kept(c, v)
    if tag is _ABSENT:
        state = "missing"
    elif tag is None:
        state = "null"
    elif isinstance(tag, str):
        state = "str"
    else:
        state = "missing" if u.tag_lenient else "invalid"
    if state in ("missing", "null") and any(a.no_tag for a in u.arms):
        return {key: None} if state == "null" else {}

    def tag_error() -> str:
        if state == "str":
            expected = ", ".join(a.tag for a in u.arms if a.tag is not None)
            return messages.unknown_tag(key=key, tag=tag, union=name, expected=expected)
        if state == "missing":
            return messages.missing_tag(key=key, union=name)
        return messages.invalid_tag(key=key, union=name)

    others = [a for a in u.arms if a.tag is None and not a.no_tag]
    errors: list[str] = []
    for a in others:
        r = _attempt(c, a, v, errors)
        if r is not _DROP:
            return r
    if u.catch_all is not None and state == "str":
        return _catch_all(c, name, u, v, tag)
    if not others:
        c.fail(tag_error())
    if state == "missing":
        c.fail(messages.no_arm_matched(union=name, errors="; ".join(errors)))
    c.fail(messages.no_open_arm_matched(tag_error=tag_error(), errors="; ".join(errors)))


def _pick(v: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The members of ``v`` named in ``keys``, in their order."""
    return {k: x for k, x in v.items() if k in keys}


def _payload(c: _Ctx, a: ArmShape, v: dict[str, Any], tags: tuple[str, ...]) -> Any:
    """A known arm's payload: the object less its discriminators (``tags``), which stay in their place."""
    t = a.ty
    if t is None:
        return _pick(v, tags)
    if isinstance(t, RefTy):
        return _def(c, t.name, v, tags)
    return _ty(c, t, v)


def _attempt(c: _Ctx, a: ArmShape, v: Any, errors: list[str]) -> Any:
    """Tries an arm on a value kept whole: ``_DROP`` (and its error in ``errors``) when it does not fit."""
    if a.unit:
        return None if v is None else _DROP
    reports = len(c.reports)
    try:
        return _ty(c, a.ty if a.ty is not None else "null", v)
    except DecodeError as e:
        if e.fatal:
            raise
        del c.reports[reports:]
        errors.append(messages.arm_error(arm=c.words.arm(a), error=e.message))
        return _DROP


def _catch_all(c: _Ctx, name: str, u: UnionShape, v: dict[str, Any], tag: str | None) -> UnknownArmObject:
    """An open union's object of an arm it does not define: checked for what the union asks of any arm, and kept."""
    rule = u.catch_all
    if rule is None:
        raise TypeError(f"`{name}` has no catch-all")
    if tag is not None and tag in rule.reserved:
        c.fail(messages.reserved_tag(key=str(u.tag_key), tag=tag, union=name))
    for r in rule.required:
        if r not in v:
            c.fail(messages.catch_all_missing_field(union=name, key=r))
    for field_name, ty in rule.fields:
        if field_name not in v:
            continue
        reports = len(c.reports)
        error: DecodeError | None = None
        c.path.append(field_name)
        try:
            _ty(c, ty, v[field_name])
        except DecodeError as e:
            if e.fatal:
                raise
            error = e
        finally:
            c.path.pop()
        if error is not None:
            c.fail(messages.catch_all_invalid_field(key=field_name, union=name, error=error.message))
        del c.reports[reports:]
    _kept(c, v)
    return UnknownArmObject(v)


def _untagged(c: _Ctx, name: str, u: UnionShape, v: Any) -> Any:
    _kept(c, v)  # read whole first, as above
    errors: list[str] = []
    for a in u.arms:
        r = _attempt(c, a, v, errors)
        if r is not _DROP:
            return r
    if u.catch_all is not None and isinstance(v, dict):
        return _catch_all(c, name, u, v, None)
    c.fail(messages.no_arm_matched(union=name, errors="; ".join(errors)))


def read_text(text: str | bytes, words: Words = PYTHON) -> tuple[Any, Duplicates | None]:
    """Reads JSON text for :func:`decode_value` (:func:`~acp_bindings._json.read`), a text
    that is not JSON raising :class:`~acp_bindings.DecodeError` (``syntax`` set) in ``words``."""
    try:
        return read(text)
    except DecodeError as e:
        if e.syntax:
            raise DecodeError(words.syntax(e.message), e.pointer, syntax=True) from None
        raise


def decode_value(
    tables: Tables,
    name: str,
    value: Any,
    *,
    duplicates: Duplicates | None = None,
    strict: bool = False,
    words: Words = PYTHON,
) -> Decoded[Any]:
    """Decodes a value already read as definition ``name`` of ``tables``.

    ``duplicates``: where the text it was read from repeats a member name
    (:func:`acp_bindings._json.read`). ``strict``: no leniency, what a
    lenient rule would drop or default is an error (validation).
    """
    c = _Ctx(tables, duplicates, strict, words)
    return Decoded(_def(c, name, value), c.reports)

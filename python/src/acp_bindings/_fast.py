"""The codec's fast path: msgspec reads a value into the generated types and writes it again.

When msgspec reads the value and writes exactly what ``msgspec.json`` writes
of the value itself (the same members, in the same order, the same
numbers), nothing in it is unknown, nothing is of the wrong shape, and so
the careful decoder would give it back unchanged with no report: the codec
takes the value as it is and skips the careful walk. Anything else (an
unknown member or arm, a value of the wrong shape, ``2.0`` where an integer
goes, members in another order) makes msgspec refuse or the two texts
differ, and the careful decoder reads the value as always.

That holds where a generated type is as strict as the schema. Where it is
not, the definition is a *checkpoint*: msgspec reads an untagged union of
objects as ``Any`` (it cannot tell such arms apart), picks an untagged
union's arm by its JSON type alone, and knows no rule that turns ``null``
into a default, takes an unknown arm, or reads members a union adds to an
object. So after msgspec, the fast path walks the value along the schema to
every checkpoint it holds (only down the members that can reach one) and
has the careful decoder read the value there, which must give it back
unchanged with no report. ``tests/test_fast_path.py`` holds the fast path
to the careful decoder on every corpus message and every mutation of one,
and the CLI's differential test holds both to ``acp-tools``.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any, Literal, NamedTuple, TypeAlias

import msgspec

from acp_bindings._json import msgspec_reads_as_serde
from acp_bindings._shape import (
    AliasShape,
    AnyShape,
    EnumShape,
    ListTy,
    MapTy,
    NewtypeShape,
    RefTy,
    StructShape,
    Tables,
    TupleTy,
    Ty,
    UnionShape,
)

_encode = msgspec.json.Encoder().encode

#: Reads a value at a checkpoint with the careful decoder: whether it comes back unchanged, unreported.
Careful = Callable[[str, Any], bool]

#: Whether the checkpoints a value holds read unchanged.
Walk = Callable[[Any], bool]

#: A search of a line for any of a few member names (a compiled pattern's ``search``, in C).
Search = Callable[[bytes], object]


def _search(keys: tuple[bytes, ...] | None) -> Search | None:
    """The search of a line for any of ``keys`` (``None`` for no key: nothing to find; every
    line is found for ``keys`` ``None``). With one name it takes less than half as long as with
    three."""
    if keys is None:
        return lambda data: True
    return re.compile(b"|".join(re.escape(k) for k in keys)).search if keys else None


class _Gate(NamedTuple):
    """Which lines of a payload need the walk to its checkpoints: those where ``search`` finds a
    name under which one can be held (:meth:`FastPath.gates`; ``None``: none can). Where one
    member of the payload alone can reach a checkpoint and is a tagged union (``session/update``'s
    ``update``), ``by_arm`` holds the search of each arm's names by the arm's class (member
    ``attr``): fewer names, and none for an arm that holds no checkpoint."""

    search: Search | None
    attr: str | None = None
    by_arm: dict[type, Search | None] | None = None


class _Envelope(msgspec.Struct):
    """A JSON-RPC line's envelope, the payload left as text (``msgspec.Raw``): to know which
    request a response answers before its result is read."""

    jsonrpc: Any
    id: Any = msgspec.UNSET
    method: Any = msgspec.UNSET
    params: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: Any = msgspec.UNSET


_ENVELOPE = msgspec.json.Decoder(_Envelope)


#: How a line of each kind begins when a peer writes it as msgspec would.
_NOTIFICATION = b'{"jsonrpc":"2.0","method":'
_WITH_ID = b'{"jsonrpc":"2.0","id":'


#: A JSON-RPC line the fast path read: its kind, method, id (``UNSET`` for a notification), and its
#: payload in the generated types (``params`` or ``result``) with the payload's definition.
Line: TypeAlias = tuple[Literal["request", "notification", "response"], str, Any, Any, str]


class FastPath:
    """The fast path of one schema's tables over the module of its generated types."""

    def __init__(self, tables: Tables, module: ModuleType, careful: Careful) -> None:
        self.tables = tables
        self.module = module
        self.careful = careful
        self._types: dict[str, Any] = {}
        self._lines: dict[type, tuple[str, str, bytes, Walk | None, _Gate]] = {}
        self._responses: dict[str, msgspec.json.Decoder[Any] | None] = {}
        self._checkpoint: dict[str, bool] = {}
        self._reaches: dict[str, bool] = {}
        self._walks: dict[str, Walk | None] = {}

    def read(self, name: str, value: Any) -> bool:
        """Whether ``value``, as definition ``name``, is one the careful decoder gives back as it is, unreported."""
        t = self._type(name)
        if t is None:
            return False
        try:
            typed = msgspec.convert(value, t, strict=True)
            if _encode(typed) != _encode(value):
                return False
        except (msgspec.ValidationError, TypeError, ValueError):
            return False
        return self._def(name, typed)

    def line(self, data: bytes, answers: Callable[[Any], str | None] | None) -> Line | None:
        """A JSON-RPC request, notification or response read whole by msgspec into the
        generated types (a response's method is ``answers(id)``): when msgspec writes the line
        back as it came (so it repeats no name and has no member the types do not name), it
        cannot read otherwise than serde_json, and its payload's checkpoints read unchanged
        (as :meth:`read`). ``None`` for any other line; the careful reader reads it."""
        if not msgspec_reads_as_serde(data):
            return None
        if data.startswith(_NOTIFICATION):
            kind: Literal["request", "notification", "response"] = "notification"
        elif data.startswith(_WITH_ID):
            kind = "request"
        else:
            return None
        decoder = self._notifications if kind == "notification" else self._requests
        try:
            if decoder is None:
                raise ValueError(kind)
            read = decoder.decode(data)
        except (msgspec.DecodeError, ValueError):
            if kind == "notification":
                return None
            return self._response(data, answers)
        method, name, head, walk, gate = self._lines[type(read)]
        rid = msgspec.UNSET
        if kind == "request":
            rid = read.id
            head = _WITH_ID + _encode(rid) + head
        params = read.params
        if data != head + _encode(params) + b"}":
            return None
        if walk is not None:
            search = gate.search
            if gate.by_arm is not None:
                search = gate.by_arm.get(type(getattr(params, gate.attr or "")), search)
            if search is not None and search(data) is not None and not walk(params):
                return None
        return kind, method, rid, params, name

    def _response(self, data: bytes, answers: Callable[[Any], str | None] | None) -> Line | None:
        try:
            e = _ENVELOPE.decode(data)
        except (msgspec.DecodeError, ValueError):
            return None
        if answers is None or e.id is msgspec.UNSET or e.result is msgspec.UNSET:
            return None
        method = answers(e.id)
        m = None if method is None else self.tables.methods.get(method)
        if method is None or m is None or m.response is None:
            return None
        name = m.response.definition
        decoder = self._response_decoder(name)
        if decoder is None:
            return None
        try:
            read = decoder.decode(data)
        except (msgspec.DecodeError, ValueError):
            return None
        if _encode(read) != data or not self._def(name, read.result):
            return None
        return "response", method, read.id, read.result, name

    @functools.cached_property
    def _notifications(self) -> msgspec.json.Decoder[Any] | None:
        """:meth:`_by_method` of notifications, made when first asked for (then read as a plain attribute)."""
        return self._by_method("notification")

    @functools.cached_property
    def _requests(self) -> msgspec.json.Decoder[Any] | None:
        """:meth:`_by_method` of requests, made once."""
        return self._by_method("request")

    def _by_method(self, kind: str) -> msgspec.json.Decoder[Any] | None:
        """The decoder of a whole request (``{"jsonrpc","id","method","params"}``) or notification
        line of any method whose payload msgspec can take, told apart by ``method`` (made once
        for each kind, by :attr:`_notifications` and :attr:`_requests`)."""
        lines: list[Any] = []
        for method, m in self.tables.methods.items():
            p = m.request if kind == "request" else m.notification
            t = None if p is None else self._type(p.definition)
            if p is None or t is None:
                continue
            fields = [("jsonrpc", str)] + ([("id", Any)] if kind == "request" else []) + [("params", t)]
            line = msgspec.defstruct(f"{kind.title()}Line", fields, tag_field="method", tag=method)
            head = b',"method":' if kind == "request" else _NOTIFICATION
            walk, gate = self._walk(p.definition), self._gate(p.definition)
            self._lines[line] = (method, p.definition, head + _encode(method) + b',"params":', walk, gate)
            lines.append(line)
        return msgspec.json.Decoder(typing.Union[tuple(lines)]) if lines else None  # noqa: UP007

    def _response_decoder(self, name: str) -> msgspec.json.Decoder[Any] | None:
        if name not in self._responses:
            t = self._type(name)
            fields = [("jsonrpc", str), ("id", Any), ("result", t)]
            self._responses[name] = (
                None if t is None else msgspec.json.Decoder(msgspec.defstruct("ResponseLine", fields))
            )
        return self._responses[name]

    def _type(self, name: str) -> Any:
        if name not in self._types:
            known = self.tables.has(name) and hasattr(self.module, name)
            self._types[name] = getattr(self.module, name) if known and not self.checkpoint(name) else None
        return self._types[name]

    # --- where msgspec is not as strict as the schema -------------------------------------------

    def checkpoint(self, name: str) -> bool:
        """Whether msgspec's type of ``name`` is looser than the schema (the careful decoder reads it)."""
        got = self._checkpoint.get(name)
        if got is None:
            got = self._checkpoint[name] = self._looser(name)
        return got

    def _looser(self, name: str) -> bool:
        if not self.tables.has(name) or not hasattr(self.module, name):
            return True
        shape = self.tables.shape(name)
        if getattr(self.module, name) is typing.Any:
            return not isinstance(shape, AnyShape)
        if isinstance(shape, StructShape):
            return shape.flatten is not None or any(f.null_as_default for f in shape.fields)
        if isinstance(shape, UnionShape):
            tagged = shape.tag_key is not None and all(a.tag is not None and not a.no_tag for a in shape.arms)
            # An open union's catch-all takes only a tag msgspec does not know, and it refuses that.
            return not tagged or shape.tag_lenient
        if isinstance(shape, AliasShape):
            return self.checkpoint(shape.target)
        return not isinstance(shape, (EnumShape, NewtypeShape, AnyShape))

    def reaches(self, name: str) -> bool:
        """Whether a value of ``name`` can hold a checkpoint (itself included)."""
        if not self._reaches:
            self._reaches = self._reaching()
        return self._reaches.get(name, True)

    def _reaching(self) -> dict[str, bool]:
        """Every definition's :meth:`reaches`, to a fixed point (definitions hold each other)."""
        names = list(self.tables.raw_shapes)
        children = {n: self._children(n) for n in names}
        out = {n: self.checkpoint(n) for n in names}
        changed = True
        while changed:
            changed = False
            for n in names:
                if not out[n] and any(out.get(c, True) for c in children[n]):
                    out[n] = changed = True
        return out

    def _children(self, name: str) -> list[str]:
        """The definitions a value of ``name`` names directly."""
        shape = self.tables.shape(name)
        tys: list[Ty] = []
        if isinstance(shape, StructShape):
            tys = [f.ty for f in shape.fields] + ([shape.rest] if shape.rest is not None else [])
        elif isinstance(shape, UnionShape):
            tys = [a.ty for a in shape.arms if a.ty is not None]
        elif isinstance(shape, NewtypeShape):
            tys = [shape.ty]
        elif isinstance(shape, AliasShape):
            return [shape.target]
        out: list[str] = []
        while tys:
            ty = tys.pop()
            if isinstance(ty, RefTy):
                out.append(ty.name)
            elif isinstance(ty, ListTy):
                tys.append(ty.item)
            elif isinstance(ty, MapTy):
                tys.append(ty.value)
            elif isinstance(ty, TupleTy):
                tys.extend(t for t, _ in ty.items)
        return out

    def _gate(self, root: str) -> _Gate:
        """The gate of a payload of definition ``root`` (:class:`_Gate`)."""
        whole = _Gate(_search(self.gates(root)))
        shape = self.tables.shape(root)
        if not isinstance(shape, StructShape) or self.checkpoint(root):
            return whole
        reaching = [f for f in shape.fields if self._ty_reaches(f.ty)]
        rest = shape.rest is not None and self._ty_reaches(shape.rest)
        ty = reaching[0].ty if len(reaching) == 1 and not rest else None
        union = self.tables.shape(ty.name) if isinstance(ty, RefTy) and not self.checkpoint(ty.name) else None
        if not isinstance(union, UnionShape):
            return whole
        cls = getattr(self.module, root)
        attr = dict(zip(cls.__struct_encode_fields__, cls.__struct_fields__, strict=True))[reaching[0].name]
        by_tag = {a.tag: None if a.ty is None else self._arm_search(a.ty, whole.search) for a in union.arms}
        # The arms' classes, as msgspec reads them: the union's generated type names each.
        arms = typing.get_args(getattr(self.module, ty.name)) if isinstance(ty, RefTy) else ()
        by_arm = {c: by_tag.get(c.__struct_config__.tag, whole.search) for c in arms if hasattr(c, "__struct_config__")}
        return _Gate(whole.search, attr, by_arm)

    def _arm_search(self, ty: Ty, whole: Search | None) -> Search | None:
        return _search(self.gates(ty.name)) if isinstance(ty, RefTy) else whole

    def gates(self, root: str) -> tuple[bytes, ...] | None:
        """The member names (as msgspec writes them, ``b'"resource":'``) under which a value of
        ``root`` can hold a checkpoint's value: a line written as msgspec writes it that holds
        none of them holds no checkpoint, and needs no walk. ``None`` where a checkpoint's value
        can be held otherwise (as the value of a map, or as the root itself): always walk."""
        if self._is(RefTy(root)):
            return None
        keys: set[bytes] = set()
        seen: set[str] = set()
        stack = [root]
        while stack:
            name = stack.pop()
            if name in seen or self.checkpoint(name):
                continue
            seen.add(name)
            shape = self.tables.shape(name)
            if isinstance(shape, StructShape):
                keys.update(_encode(f.name) + b":" for f in shape.fields if self._is(f.ty))
            if any(self._in_map(ty) for ty in self._tys(name)):
                return None
            stack.extend(self._children(name))
        return tuple(sorted(keys))

    def _is(self, ty: Ty, seen: frozenset[str] = frozenset()) -> bool:
        """Whether a value of ``ty`` can itself be a checkpoint's value (an item of a list of them,
        an arm of a union, a newtype's or alias's value included)."""
        if isinstance(ty, ListTy):
            return self._is(ty.item, seen)
        if isinstance(ty, TupleTy):
            return any(self._is(t, seen) for t, _ in ty.items)
        if not isinstance(ty, RefTy) or ty.name in seen:
            return False
        if self.checkpoint(ty.name):
            return True
        shape = self.tables.shape(ty.name)
        if isinstance(shape, (UnionShape, NewtypeShape, AliasShape)):
            return any(self._is(t, seen | {ty.name}) for t in self._tys(ty.name))
        return False

    def _in_map(self, ty: Ty) -> bool:
        """Whether ``ty`` holds a map whose values can be a checkpoint's value."""
        if isinstance(ty, MapTy):
            return self._is(ty.value) or self._in_map(ty.value)
        if isinstance(ty, ListTy):
            return self._in_map(ty.item)
        if isinstance(ty, TupleTy):
            return any(self._in_map(t) for t, _ in ty.items)
        return False

    def _tys(self, name: str) -> list[Ty]:
        """The types a value of ``name`` names directly."""
        shape = self.tables.shape(name)
        if isinstance(shape, StructShape):
            return [f.ty for f in shape.fields] + ([shape.rest] if shape.rest is not None else [])
        if isinstance(shape, UnionShape):
            return [a.ty for a in shape.arms if a.ty is not None]
        if isinstance(shape, NewtypeShape):
            return [shape.ty]
        if isinstance(shape, AliasShape):
            return [RefTy(shape.target)]
        return []

    def _ty_reaches(self, ty: Ty) -> bool:
        if isinstance(ty, RefTy):
            return self.reaches(ty.name)
        if isinstance(ty, ListTy):
            return self._ty_reaches(ty.item)
        if isinstance(ty, MapTy):
            return self._ty_reaches(ty.value)
        if isinstance(ty, TupleTy):
            return any(self._ty_reaches(t) for t, _ in ty.items)
        return False

    # --- the walk to the checkpoints, over a value msgspec has read into the generated types ------
    #
    # Each definition's walk is made once: a function of the value that visits only the members
    # that can reach a checkpoint (``None`` where none can). At a checkpoint the value is written
    # as JSON values (``msgspec.to_builtins``, under the wire names) for the careful decoder.

    def _def(self, name: str, value: Any) -> bool:
        walk = self._walk(name)
        return walk is None or walk(value)

    def _walk(self, name: str) -> Walk | None:
        """The walk of definition ``name``, made once. While it is made, a definition it holds
        that holds it back (a cycle) gets a walk that looks it up when called; every other
        definition's walk calls the walks of the definitions it holds directly."""
        if name in self._walks:
            return self._walks[name]
        walks = self._walks
        walks[name] = lambda v: (w := walks[name]) is None or w(v)
        walks[name] = self._make(name)
        return walks[name]

    def _make(self, name: str) -> Walk | None:
        if not self.reaches(name):
            return None
        if self.checkpoint(name):
            careful = self.careful
            return lambda v: careful(name, msgspec.to_builtins(v))
        shape = self.tables.shape(name)
        if isinstance(shape, StructShape):
            cls = getattr(self.module, name)
            attrs = dict(zip(cls.__struct_encode_fields__, cls.__struct_fields__, strict=True))
            members = [(attrs[f.name], w) for f in shape.fields if (w := self._ty(f.ty)) is not None]
            unset = msgspec.UNSET

            def struct(v: Any) -> bool:
                for attr, w in members:
                    x = getattr(v, attr)
                    if x is not None and x is not unset and not w(x):
                        return False
                return True

            return struct
        if isinstance(shape, UnionShape):
            arms = {a.tag: w for a in shape.arms if a.ty is not None and (w := self._ty(a.ty)) is not None}

            def union(v: Any) -> bool:
                w = arms.get(type(v).__struct_config__.tag)
                return w is None or w(v)

            return union
        if isinstance(shape, NewtypeShape):
            return self._ty(shape.ty)
        if isinstance(shape, AliasShape):
            return self._walk(shape.target)
        return None

    def _ty(self, ty: Ty) -> Walk | None:
        if not self._ty_reaches(ty):
            return None
        if isinstance(ty, RefTy):
            return self._walk(ty.name)
        if isinstance(ty, (ListTy, MapTy)):
            inner = self._ty(ty.item if isinstance(ty, ListTy) else ty.value)
            if inner is None:
                return None
            each = inner
            if isinstance(ty, ListTy):
                return lambda v: all(x is None or each(x) for x in v)
            return lambda v: all(x is None or each(x) for x in v.values())
        if isinstance(ty, TupleTy):
            walks = [self._ty(t) for t, _ in ty.items]
            return lambda v: all(w is None or x is None or w(x) for w, x in zip(walks, v, strict=False))
        return None

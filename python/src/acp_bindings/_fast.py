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

import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any

import msgspec

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


class FastPath:
    """The fast path of one schema's tables over the module of its generated types."""

    def __init__(self, tables: Tables, module: ModuleType, careful: Careful) -> None:
        self.tables = tables
        self.module = module
        self.careful = careful
        self._types: dict[str, Any] = {}
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
        return self._def(name, value)

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
            return not tagged or shape.catch_all is not None or shape.tag_lenient
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

    # --- the walk to the checkpoints, over a value msgspec has read -----------------------------
    #
    # Each definition's walk is made once: a function of the value that visits only the members
    # that can reach a checkpoint (``None`` where none can).

    def _def(self, name: str, value: Any) -> bool:
        if name not in self._walks:
            # A walk names other definitions through `_def`, looked up when called: made once, no cycle.
            self._walks[name] = self._make(name)
        walk = self._walks[name]
        return walk is None or walk(value)

    def _make(self, name: str) -> Walk | None:
        if not self.reaches(name):
            return None
        if self.checkpoint(name):
            careful = self.careful
            return lambda v: careful(name, v)
        shape = self.tables.shape(name)
        if isinstance(shape, StructShape):
            members = [(f.name, w) for f in shape.fields if (w := self._ty(f.ty)) is not None]

            def struct(v: Any) -> bool:
                for key, w in members:
                    x = v.get(key)
                    if x is not None and not w(x):
                        return False
                return True

            return struct
        if isinstance(shape, UnionShape):
            key = shape.tag_key
            arms = {a.tag: w for a in shape.arms if a.ty is not None and (w := self._ty(a.ty)) is not None}

            def union(v: Any) -> bool:
                w = arms.get(v.get(key))
                return w is None or w(v)

            return union
        if isinstance(shape, NewtypeShape):
            return self._ty(shape.ty)
        if isinstance(shape, AliasShape):
            target = shape.target
            return lambda v: self._def(target, v)
        return None

    def _ty(self, ty: Ty) -> Walk | None:
        if not self._ty_reaches(ty):
            return None
        if isinstance(ty, RefTy):
            name = ty.name
            return lambda v: self._def(name, v)
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

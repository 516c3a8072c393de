"""Patches that apply (ACP v2), and the session reducer.

:func:`apply_patch` folds one upsert into its stored state by the rules the
``upserts`` table gives each property; :class:`SessionReducer` folds a
``session/update`` stream into the state of a session by the rules of the
``reducer`` table (the configuration's ``reducer`` section, which the Rust
crate's generated ``SessionReducer`` is written from too): the same state,
written as the same JSON (:meth:`SessionReducer.to_json`).

The rules of a patch: an omitted property keeps its value, ``null`` clears
it (a list to ``[]``, a property with a reset value to that value, anything
else to ``null``), a value sets it; the key is set once; ``_meta`` is merged
one level deep, a member ``null`` removing that member.
"""

from __future__ import annotations

import base64
import copy
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from acp_bindings._decode import UnknownArmObject
from acp_bindings._shape import Collection, ReducerShape, Reset, UpsertShape
from acp_bindings._write import dumps

__all__ = ["SessionReducer", "apply_patch", "creating_patch", "from_patch", "merge_by_key"]


def from_patch(u: UpsertShape, patch: dict[str, Any]) -> dict[str, Any]:
    """The state a first patch creates: each property from the patch, or its
    default (``None``, ``[]``, the reset value) where the patch omits it."""
    state: dict[str, Any] = {}
    for name, rule in u.fields:
        state[name] = copy.deepcopy(rule.value) if isinstance(rule, Reset) else [] if rule == "list" else None
    return apply_patch(u, state, patch)


def apply_patch(u: UpsertShape, state: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """Applies ``patch`` to ``state`` (in place, and returned) by the rules of
    upsert ``u`` (the module's documentation). The state holds copies of the
    patch's values."""
    for name, rule in u.fields:
        if name not in patch:
            continue
        v = patch[name]
        if isinstance(rule, Reset):
            state[name] = copy.deepcopy(rule.value if v is None else v)
        elif rule == "list":
            state[name] = [] if v is None else copy.deepcopy(v)
        elif rule == "by_key":
            state[name] = merge_by_key(state.get(name), v)
        elif rule != "key" or (name in state and state[name] is None):
            state[name] = copy.deepcopy(v)
    return state


def creating_patch(u: UpsertShape, state: dict[str, Any]) -> dict[str, Any]:
    """The patch that creates ``state`` from nothing (:func:`from_patch` of it
    gives the same state): the key, and every other property not at its
    default (``None``, ``[]``, the reset value), in the upsert's order."""
    patch: dict[str, Any] = {}
    for name, rule in u.fields:
        v = state.get(name)
        if v is None:
            continue
        if isinstance(rule, Reset) and v == rule.value:
            continue
        if rule == "list" and v == []:
            continue
        patch[name] = copy.deepcopy(v)
    return patch


def merge_by_key(stored: Any, patch: Any) -> Any:
    """``_meta`` merged by key: ``None`` (or anything but an object) clears it;
    an object sets each member it names, or (with ``None``) removes it."""
    if not isinstance(patch, dict):
        return None
    out: dict[str, Any] = dict(stored) if isinstance(stored, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = copy.deepcopy(v)
    return out


_BASE64: Final = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _append_base64(a: str, b: str) -> str:
    """Terminal bytes appended: both base64 decoded and joined, else the texts joined."""
    if _BASE64.fullmatch(a) is None or _BASE64.fullmatch(b) is None:
        return a + b
    return base64.b64encode(base64.b64decode(a) + base64.b64decode(b)).decode("ascii")


def _js_text(v: Any) -> str:
    """A value as text the way JavaScript's ``String(v)`` gives it (``undefined`` for an absent one),
    for the base64 rule, whose members are strings but for a caller's mistake."""
    if v is _MISSING:
        return "undefined"
    if isinstance(v, str):
        return v
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isfinite(v) and v.is_integer() and abs(v) < 1e21:
        return str(int(v))
    if isinstance(v, (int, float)):
        return dumps(v)
    if isinstance(v, list):
        return ",".join("" if x is None else _js_text(x) for x in v)
    return "[object Object]"


#: A member the update does not have.
_MISSING: Final = object()


def _key_of(update: dict[str, Any], name: str, tag: str) -> str:
    """The key an update names its entity by (``toolCallId``): a string, or
    the update is refused (``TypeError``) before anything is stored; the
    crate's typed updates cannot lack it."""
    k = update.get(name, _MISSING)
    if isinstance(k, str):
        return k
    what = "it is missing" if k is _MISSING else f"it is {dumps(k)}"
    raise TypeError(f"a `{_js_text(update.get(tag, _MISSING))}` update names its entity by the string `{name}`: {what}")


class _Entry:
    """One stored entity: its state, and its kind in a collection of kinds."""

    __slots__ = ("kind", "state")

    def __init__(self, kind: str | None, state: Any) -> None:
        self.kind = kind
        self.state = state


class SessionReducer:
    """The state of one session, built from its ``session/update`` stream by
    the rules of a ``reducer`` table (:func:`acp_bindings.session_reducer`
    makes one): each collection by key, in first-seen order, or one state.
    :meth:`to_json` gives it as the Rust ``SessionReducer`` serializes it."""

    def __init__(self, shape: ReducerShape) -> None:
        self.shape = shape
        self._keyed: dict[str, dict[str, _Entry]] = {}
        self._single: dict[str, dict[str, Any] | None] = {}
        for c in shape.collections:
            if c.one is not None:
                self._single[c.name] = None
            else:
                self._keyed[c.name] = {}

    def _upsert(self, name: str) -> UpsertShape:
        u = self.shape.upserts.get(name)
        if u is None:
            raise LookupError(f"no upsert `{name}`")
        return u

    def _collection(self, name: str) -> Collection:
        for c in self.shape.collections:
            if c.name == name:
                return c
        raise LookupError(f"no collection `{name}`")

    def _upsert_of(self, c: Collection, kind: str | None) -> UpsertShape:
        """The upsert whose states ``c`` holds (of ``kind``, in a collection of kinds)."""
        if c.upsert is not None:
            return self._upsert(c.upsert)
        if c.one is not None:
            return self._upsert(c.one)
        if c.kinds is not None and kind is not None and kind in c.kinds:
            return self._upsert(c.kinds[kind])
        raise LookupError(f"`{c.name}` holds no upsert of kind `{kind}`")

    def _entity(
        self, entities: dict[str, _Entry], u: UpsertShape, kind: str | None, key: str, create: bool
    ) -> dict[str, Any] | None:
        """The state of the entity of ``key``, created from the key alone when ``create``."""
        found = entities.get(key)
        if found is None and create:
            found = entities[key] = _Entry(kind, from_patch(u, {u.key or "": key}))
        return found.state if found is not None and isinstance(found.state, dict) else None

    def apply(self, update: Any) -> None:
        """Applies one decoded update (of the version's update union:
        ``SessionUpdate``). Updates the table has no rule for, and arms this
        version does not know (:class:`~acp_bindings.UnknownArmObject`), leave
        the state unchanged; an update without the string key of its entity
        is a ``TypeError``, and nothing is stored."""
        if not isinstance(update, dict) or isinstance(update, UnknownArmObject):
            return
        tag = self.shape.tag
        rule = self.shape.updates.get(_js_text(update.get(tag, _MISSING)))
        if rule is None:
            return
        c = self._collection(rule.into)
        entities = self._keyed.get(c.name)
        if rule.rule == "upsert":
            u = self._upsert_of(c, rule.kind)
            if entities is None:
                stored = self._single.get(c.name)
                self._single[c.name] = from_patch(u, update) if stored is None else apply_patch(u, stored, update)
                return
            key = _key_of(update, u.key or "", tag)
            entry = entities.get(key)
            if entry is not None and entry.kind == rule.kind and isinstance(entry.state, dict):
                apply_patch(u, entry.state, update)
            else:
                # A new entity, or one of another kind replaced (in its place).
                entities[key] = _Entry(rule.kind, from_patch(u, update))
        elif rule.rule == "append":
            if entities is None:
                return
            u = self._upsert_of(c, rule.kind)
            state = self._entity(entities, u, rule.kind, _key_of(update, rule.key or "", tag), rule.create)
            if state is not None:
                items = state.get(rule.target[0])
                if not isinstance(items, list):
                    raise TypeError(f"`{rule.target[0]}` of a `{rule.into}` entity is no list")
                items.append(copy.deepcopy(update.get(rule.source or "")))
        elif rule.rule == "append_base64":
            if entities is None:
                return
            key = _key_of(update, rule.key or "", tag)
            state = self._entity(entities, self._upsert_of(c, None), None, key, rule.create)
            if state is None:
                return
            outer, inner = rule.target
            data = _js_text(update.get(rule.source or "", _MISSING))
            stored = state.get(outer)
            if isinstance(stored, dict):
                state[outer] = {**stored, inner: _append_base64(_js_text(stored.get(inner, _MISSING)), data)}
            else:
                state[outer] = {inner: data}
        elif rule.rule == "put":
            value = update.get(rule.source or "")
            if entities is not None and c.whole is not None and isinstance(value, dict):
                whole = value.get(c.whole)
                if isinstance(whole, str):
                    entities[whole] = _Entry(None, copy.deepcopy(value))
        elif rule.rule == "remove":
            if entities is not None:
                entities.pop(_key_of(update, rule.source or "", tag), None)

    def compact(self) -> list[dict[str, Any]]:
        """The shortest update stream that rebuilds this state, as the Rust
        reducer's ``compact`` writes it: applied in order to a new reducer, it
        gives the same state. One update per entity, collection by collection
        in first-seen order (a message whole instead of its chunks, one upsert
        per tool call with every property not at its default, each plan as its
        latest whole update); what the state does not hold (updates the table
        has no rule for, unknown members, the order between collections) is
        not written."""
        rebuild = self.shape.rebuild
        if rebuild is None:
            raise LookupError("this reducer's table says no update rebuilds some collection")
        tag = self.shape.tag
        out: list[dict[str, Any]] = []
        for c in self.shape.collections:
            by = rebuild.get(c.name)

            def tag_of(kind: str | None, by: str | Mapping[str, str] | None = by, name: str = c.name) -> str:
                t = by if isinstance(by, str) else by.get(kind) if by is not None and kind is not None else None
                if t is None:
                    raise LookupError(f"no update rebuilds `{name}` (kind `{kind}`)")
                return t

            if c.one is not None:
                single = self._single.get(c.name)
                if single is not None:
                    out.append({tag: tag_of(None), **creating_patch(self._upsert(c.one), single)})
                continue
            for e in self._keyed.get(c.name, {}).values():
                t = tag_of(e.kind)
                if c.whole is not None:
                    rule = self.shape.updates.get(t)
                    if rule is None or rule.rule != "put":
                        raise LookupError(f"`{t}` does not put a whole `{c.name}` value")
                    out.append({tag: t, rule.source or "": copy.deepcopy(e.state)})
                elif isinstance(e.state, dict):
                    out.append({tag: t, **creating_patch(self._upsert_of(c, e.kind), e.state)})
        return out

    def to_json(self) -> dict[str, Any]:
        """The state as the Rust reducer writes it: each collection under its
        name, entities in first-seen order, every property present (an
        entity of a collection of kinds with its ``kind``)."""
        out: dict[str, Any] = {}
        for c in self.shape.collections:
            entities = self._keyed.get(c.name)
            if entities is None:
                out[c.name] = self._single.get(c.name)
                continue
            written: dict[str, Any] = {}
            for k, e in entities.items():
                written[k] = (
                    {**e.state, "kind": e.kind} if e.kind is not None and isinstance(e.state, dict) else e.state
                )
            out[c.name] = written
        return out

"""Decoding and encoding by definition name, and JSON-RPC messages typed by method and direction.

:func:`codec` gives the :class:`Codec` of a schema (``v1`` or ``v2``,
stable or unstable): ``decode`` and ``encode`` any of its definitions by
name, ``validate`` a value built at run time, and ``decode_message`` /
``encode_message`` JSON-RPC lines, each request and notification by its
method, each response by the method of the request it answers.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any, Final, Literal, TypeAlias, TypeVar

import msgspec
from msgspec import UNSET

from acp_bindings._decode import Decoded, Report, decode_value, read_text
from acp_bindings._fast import FastPath
from acp_bindings._json import DecodeError, Duplicates, read, syntax_error
from acp_bindings._messages import duplicate_field
from acp_bindings._runtime import ExtensionNotification, ExtensionRequest, ExtensionResponse
from acp_bindings._session import SessionReducer, apply_patch, from_patch
from acp_bindings._shape import MethodShape, PayloadShape, Tables, UpsertShape, load
from acp_bindings._words import Wording, Words, words
from acp_bindings._write import dumps

__all__ = [
    "ERROR_CODES",
    "Codec",
    "Message",
    "MessageError",
    "MessageErrorKind",
    "codec",
    "id_key",
    "one_line",
    "session_reducer",
]

#: The class of a :class:`MessageError` (see :data:`ERROR_CODES`).
MessageErrorKind: TypeAlias = Literal[
    "parse",
    "invalid_message",
    "unknown_method",
    "invalid_payload",
    "unknown_request",
    "duplicate_id",
    "response_mismatch",
    "not_initialized",
]

#: The JSON-RPC error code of each class of error: ``parse`` (not JSON),
#: ``invalid_message`` (not a JSON-RPC 2.0 message of this version),
#: ``unknown_method`` (a method this version or this side does not handle
#: and that does not start with ``_``), ``invalid_payload`` (params or result
#: that do not decode), ``duplicate_id`` (a request reusing the id of one
#: still unanswered), ``not_initialized`` (a request before ``initialize``
#: completed), and the two only a local caller causes: ``unknown_request``
#: (an answer to a request that is not waiting for one) and
#: ``response_mismatch`` (answering a request with another method's result).
ERROR_CODES: Final[dict[str, int]] = {
    "parse": -32700,
    "invalid_message": -32600,
    "unknown_method": -32601,
    "invalid_payload": -32602,
    "unknown_request": -32603,
    "duplicate_id": -32600,
    "response_mismatch": -32603,
    "not_initialized": -32600,
}

_CONTROL = re.compile("[\u0000-\u001f\u007f-\u009f]")


def one_line(text: str) -> str:
    """``text`` with its control characters escaped (``\\n``, ``\\u{1b}``, as Rust's ``escape_default``),
    so that a text quoted from a peer stays on one line."""

    def escape(m: re.Match[str]) -> str:
        c = m.group()
        if c == "\n":
            return "\\n"
        if c == "\r":
            return "\\r"
        if c == "\t":
            return "\\t"
        return f"\\u{{{ord(c):x}}}"

    return _CONTROL.sub(escape, text)


def id_key(request_id: Any) -> str:
    """A JSON-RPC id as a key (``1`` and ``"1"`` differ)."""
    return dumps(request_id)


#: A state class of an upsert (:meth:`Codec.apply_patch`).
_S = TypeVar("_S")


class MessageError(DecodeError):
    """Why a line could not be used as a message: what was wrong (``message``),
    the JSON pointer of the offending value (``/params/update``, ``""`` for the
    whole message), its class (``kind``, with the JSON-RPC ``code``), the id of
    the message it is about (``id``, ``None`` when it had none or a ``null``
    one) and whether JSON-RPC asks for an error reply (``needs_reply``: the
    line was a request, or not a message at all)."""

    def __init__(
        self,
        message: str,
        pointer: str,
        kind: MessageErrorKind = "invalid_message",
        id: Any = None,
        needs_reply: bool = False,
    ) -> None:
        super().__init__(message, pointer)
        self.kind: MessageErrorKind = kind
        self.id = id
        self.needs_reply = needs_reply

    @property
    def code(self) -> int:
        """The JSON-RPC error code of the error's class."""
        return ERROR_CODES[self.kind]

    @property
    def reply_id(self) -> Any:
        """The id the error reply goes to: the request's id, ``None`` when it
        could not be read, ``UNSET`` when no reply is due."""
        return self.id if self.needs_reply else UNSET

    def describe(self) -> str:
        """The error with its pointer, on one line (``... (at /params/update)``): the ``message`` of the error reply."""
        text = one_line(self.message)
        return text if self.pointer == "" else f"{text} (at {one_line(self.pointer)})"

    def error_object(self) -> dict[str, Any]:
        """The JSON-RPC error object to answer with: ``code``, :meth:`describe`
        as ``message``, and ``data.pointer`` when the error points into the message."""
        o: dict[str, Any] = {"code": self.code, "message": self.describe()}
        if self.pointer != "":
            o["data"] = {"pointer": self.pointer}
        return o

    def about(self, id: Any, reply: bool) -> MessageError:
        """The error about the message with id ``id`` (``None``: no id), answered when ``reply``."""
        return MessageError(self.message, self.pointer, self.kind, id, reply)


@dataclass(eq=False, slots=True)
class _Written:
    """How a message was written, so that it is written back the same way."""

    #: The envelope's members in their order, with the ones this package does not read.
    envelope: dict[str, Any]
    #: The payload (``params`` / ``result``) was omitted (``"absent"``) or ``null`` and decoded as ``{}``.
    form: Literal["absent", "null"] | None = None


class Message:
    """A JSON-RPC message: a ``request`` (``id``, ``method``, ``params``), a
    ``notification`` (``method``, ``params``), a ``response`` (``id``, the
    ``method`` of the request it answers, ``result``) or an ``error``
    (``id``, which may be ``None``, and ``error`` as received). ``params`` is
    ``UNSET`` when omitted (an extension method's may be). A decoded message
    is written back by :meth:`Codec.encode_message` with its envelope's
    members as they came.

    ``params`` and ``result`` are JSON values (every member kept, in order);
    :attr:`typed` is the same payload in the generated types.
    """

    __slots__ = ("kind", "method", "id", "_params", "_result", "error", "_written", "_typed", "_definition", "_codec")

    def __init__(
        self,
        kind: Literal["request", "notification", "response", "error"],
        method: str | None = None,
        id: Any = UNSET,
        params: Any = UNSET,
        result: Any = UNSET,
        error: Any = UNSET,
    ) -> None:
        self.kind: Literal["request", "notification", "response", "error"] = kind
        self.method = method
        self.id = id
        self._params = params
        self._result = result
        self.error = error
        self._written: _Written | None = None
        #: The payload in the generated types (``_LATER``: made when asked for).
        self._typed: Any = _LATER
        #: The payload's definition and the codec that read it (``None``: not decoded).
        self._definition: str | None = None
        self._codec: Codec | None = None

    @property
    def params(self) -> Any:
        """A request's or notification's params, as JSON values."""
        if self._params is _LATER:
            self._params = msgspec.to_builtins(self._typed)
        return self._params

    @params.setter
    def params(self, value: Any) -> None:
        self._params, self._typed = value, _LATER

    @property
    def result(self) -> Any:
        """A response's result, as JSON values."""
        if self._result is _LATER:
            self._result = msgspec.to_builtins(self._typed)
        return self._result

    @result.setter
    def result(self, value: Any) -> None:
        self._result, self._typed = value, _LATER

    @property
    def typed(self) -> Any:
        """The payload (``params``, or a response's ``result``) of a decoded message in the
        generated types of its codec's module (``v1.PromptRequest``, say); ``None`` for an error
        or an extension method's payload. Members the types do not name are left out here
        (``params`` keeps them). Raises ``msgspec.ValidationError`` for a payload the types
        cannot hold (an arm of an open union this version does not know)."""
        if self._typed is _LATER:
            c, name = self._codec, self._definition
            types = None if c is None else c.types
            if types is None or name is None or not hasattr(types, name):
                return None
            payload = self.result if self.kind == "response" else self.params
            self._typed = msgspec.convert(payload, getattr(types, name), strict=True)
        return self._typed

    def _fields(self) -> tuple[Any, ...]:
        return (self.kind, self.method, self.id, self.params, self.result, self.error)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        names = ("kind", "method", "id", "params", "result", "error")
        shown = ", ".join(f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True) if v is not UNSET)
        return f"Message({shown})"


#: A value not made yet (:class:`Message`).
_LATER: Any = object()


class Codec:
    """Decoders and encoders of one schema's definitions and of its JSON-RPC messages.

    ``wording``: how errors are worded, ``"python"`` (JSON's terms, Python's
    type names: ``expected an array``, ``expected an integer from 0 to
    65535``, an untagged union's arms as ``int``, ``str``) or ``"crate"`` (as
    the Rust crate says them: ``expected a sequence``, ``expected u16``, arms
    by their Rust variants), to compare with it.
    """

    def __init__(
        self, tables: Tables, wording: Wording = "python", types: ModuleType | None = None, fast: bool = True
    ) -> None:
        self.tables = tables
        self.wording: Wording = wording
        #: The words of :attr:`wording`.
        self.words: Words = words(wording)
        #: The module of the schema's generated types (``acp_bindings.v2``, say; ``None``: none):
        #: what :attr:`Message.typed` and :meth:`dispatch` give, and the fast path reads into.
        self.types = types
        self._fast = None if types is None or not fast else FastPath(tables, types, self._unchanged)

    def with_wording(self, wording: Wording) -> Codec:
        """This codec with its errors worded as ``wording`` says."""
        return self if wording == self.wording else Codec(self.tables, wording, self.types, self._fast is not None)

    def careful(self) -> Codec:
        """This codec without the fast path (the same answers, every value read by the careful decoder)."""
        return Codec(self.tables, self.wording, self.types, fast=False)

    def _unchanged(self, name: str, value: Any) -> bool:
        """Whether the careful decoder gives ``value`` back unchanged and unreported."""
        try:
            d = decode_value(self.tables, name, value, words=self.words)
        except DecodeError:
            return False
        return not d.reports and dumps(d.value) == dumps(value)

    def _value(self, name: str, value: Any, duplicates: Duplicates | None) -> Decoded[Any]:
        """A value read as definition ``name``: by the fast path (:mod:`acp_bindings._fast`) when it
        gives the careful decoder's answer, else by the careful decoder."""
        if self._fast is not None and duplicates is None and self._fast.read(name, value):
            return Decoded(value, [])
        return decode_value(self.tables, name, value, duplicates=duplicates, words=self.words)

    def has(self, name: str) -> bool:
        """Whether the schema defines ``name``."""
        return self.tables.has(name)

    def decode(self, name: str, text: str | bytes) -> Decoded[Any]:
        """Decodes JSON text as definition ``name``.

        Raises :class:`DecodeError` (message and JSON pointer) when it does
        not decode, ``LookupError`` when the schema has no ``name``;
        ``reports`` lists what the schema's lenient rules dropped or defaulted
        on the way. A text msgspec reads into the generated types unchanged
        skips the careful walk (:mod:`acp_bindings._fast`): the answer is the same.
        """
        return self._value(name, *read_text(text, self.words))

    def decode_value(self, name: str, value: Any) -> Decoded[Any]:
        """:meth:`decode` for a value already read (by ``json.loads``, say: a
        whole number it read as a float, ``2.0``, is no integer)."""
        return decode_value(self.tables, name, value, words=self.words)

    def encode(self, name: str, value: Any) -> str:
        """Writes ``value`` of definition ``name`` as JSON text: explicit
        ``None``\\ s are written as ``null``, every object keeps its member
        order (members the schema does not name and an unknown union arm
        included), floats as serde_json writes them; so a decoded value is
        written back as it came. It is not checked: :meth:`validate` checks
        a value built at run time."""
        return dumps(value)

    def validate(self, name: str, value: Any) -> DecodeError | None:
        """Checks ``value`` against definition ``name`` with no leniency
        (what a decoder would drop or default is an error here): the first
        problem, with its pointer, or ``None`` when there is none."""
        try:
            decode_value(self.tables, name, value, strict=True, words=self.words)
        except DecodeError as e:
            return e
        return None

    def method(self, method: str) -> MethodShape | None:
        """The method table's entry of ``method``, if the schema defines it."""
        return self.tables.methods.get(method)

    def decode_message(
        self,
        text: str | bytes,
        answers: Callable[[Any], str | None] | None = None,
        *,
        side: Literal["agent", "client"] | None = None,
        admit: Callable[[str, Any], MessageError | None] | None = None,
    ) -> Decoded[Message]:
        """Decodes one JSON-RPC message: a request or notification by its
        method, a response by the method of the request it answers
        (``answers(id)``, from a table of pending requests, say; ``None`` when
        unknown). An extension method (``_...``) keeps its params as JSON.

        ``side``: the side receiving the message; a request or notification
        of a method the other side handles is refused as an unknown method.
        ``admit``: called for a request once its id is read and before its
        params are, an error to refuse the request with instead (a duplicate
        id, a request before ``initialize``).

        Raises a :class:`MessageError` saying what was wrong, where, its
        JSON-RPC code, and whether and to which id JSON-RPC asks for a reply.
        """
        if self._fast is not None:
            if answers is not None:
                answers = _once(answers)
            quick = self._quick(
                text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"), answers, side
            )
            if quick is not None:
                if admit is not None and quick.kind == "request":
                    refusal = admit(quick.method or "", quick.id)
                    if refusal is not None:
                        raise refusal
                return Decoded(quick, [])
        try:
            raw, duplicates = read(text)
        except DecodeError as e:
            if e.syntax:
                # serde_json's wording when it only checks the text is JSON, as the crate does for a line.
                line = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
                said = self.words.syntax(syntax_error(line) or e.message)
                raise MessageError(f"not JSON: {said}", "", "parse", None, True) from None
            raise
        if not isinstance(raw, dict):
            raise MessageError("a JSON-RPC message is an object", "", "invalid_message", None, True)
        return _MessageReader(self, raw, duplicates, answers, side).read(admit)

    def _quick(self, data: bytes, answers: Callable[[Any], str | None] | None, side: str | None) -> Message | None:
        """A line the fast path reads whole (:meth:`FastPath.line`): a request, notification or
        response of a method this side handles, its payload a value the careful reader gives back
        unchanged, unreported; not admitted yet. ``None`` for any other line: the careful reader
        reads it, finding the same message or saying why not."""
        line = None if self._fast is None else self._fast.line(data, answers)
        if line is None:
            return None
        kind, method, rid, payload, name = line
        if side is not None and kind != "response":
            m = self.tables.methods[method]
            if m.side != side and (kind == "request" or m.side != "protocol"):
                return None
        if rid is not UNSET and not self._fine_id(rid):
            return None
        # No `_written`: the line was written as `encode_message` writes a message of its own.
        if kind == "response":
            message = Message("response", method, rid, UNSET, _LATER)
        else:
            message = Message(kind, method, rid, _LATER)
        message._typed, message._definition, message._codec = payload, name, self
        return message

    def _fine_id(self, rid: Any) -> bool:
        """Whether request id ``rid`` reads as the schema's ``RequestId``, unreported."""
        if not self.has("RequestId"):
            return True
        try:
            return not decode_value(self.tables, "RequestId", rid, words=self.words).reports
        except DecodeError:
            return False

    def dispatch(self, message: Message) -> Any:
        """A decoded request, notification or response as the generated dispatch class of its
        method, with its id and its payload in the generated types: ``RequestToAgentSessionPrompt``
        (``id``, ``params``: a ``PromptRequest``) for a ``session/prompt`` request, of the unions
        ``RequestToAgent``, ``NotificationToClient``, ``ResponseFromAgent`` and the rest (the names of
        the crate's dispatch enums and of the TypeScript package's unions), for ``match``::

            match codec.dispatch(message):
                case v1.RequestToAgentSessionPrompt(id=request_id, params=prompt):
                    ...

        An extension method's message is an :class:`ExtensionRequest`,
        :class:`ExtensionNotification` or :class:`ExtensionResponse`, its payload as JSON values.
        Raises ``ValueError`` for an error message or a codec without generated types, and
        ``msgspec.ValidationError`` for a payload the types cannot hold (:attr:`Message.typed`)."""
        table: dict[tuple[str, str], Any] | None = getattr(self.types, "DISPATCH", None)
        kind, method = message.kind, message.method
        if table is None or kind == "error" or method is None:
            raise ValueError(f"no dispatch class for a message of kind `{kind}` (method {method!r})")
        cls = table.get((kind, method))
        if cls is None:
            if kind == "request":
                return ExtensionRequest(method=method, id=message.id, params=message.params)
            if kind == "notification":
                return ExtensionNotification(method=method, params=message.params)
            return ExtensionResponse(method=method, id=message.id, result=message.result)
        if kind == "notification":
            return cls(params=message.typed)
        if kind == "request":
            return cls(id=message.id, params=message.typed)
        return cls(id=message.id, result=message.typed)

    def apply_patch(self, state: _S, patch: Any) -> _S:
        """A v2 upsert's ``patch`` (``v2.ToolCallUpdate``, or its arm class of a union:
        ``v2.SessionUpdateToolCallUpdate``) applied to the ``state`` it builds (``v2.ToolCall``),
        by the rules the session reducer folds with: an omitted (``UNSET``) property keeps its
        value, ``None`` clears it (a list to ``[]``, a property that resets to its reset value,
        anything else to ``None``), a value sets it; the key is set once; ``_meta`` is merged one
        level deep, a member ``None`` removing that member. A new state; ``state`` is unchanged.
        Raises ``TypeError`` for a patch of no upsert of this version."""
        u, _ = self._upsert_of(patch)
        if not isinstance(state, getattr(self.types, u.state)):
            raise TypeError(f"a `{type(patch).__name__}` patches a `{u.state}`, not a `{type(state).__name__}`")
        out = apply_patch(u, msgspec.to_builtins(state), msgspec.to_builtins(patch))
        patched: _S = msgspec.convert(out, type(state))
        return patched

    def from_patch(self, patch: Any) -> Any:
        """The state a first ``patch`` of an upsert makes (``v2.ToolCall`` from a
        ``v2.ToolCallUpdate``): each property from the patch, or its default (``None``, ``[]``,
        the reset value) where the patch omits it. Raises ``TypeError`` for a patch of no upsert."""
        u, state = self._upsert_of(patch)
        return msgspec.convert(from_patch(u, msgspec.to_builtins(patch)), state)

    def _upsert_of(self, patch: Any) -> tuple[UpsertShape, type]:
        """The upsert a patch's class is of (its own class or a base, an arm class's payload), with its state class."""
        for cls in type(patch).__mro__:
            u = self.tables.upserts.get(cls.__name__)
            if u is not None and getattr(self.types, cls.__name__, None) is cls:
                return u, getattr(self.types, u.state)
        known = ", ".join(self.tables.upserts) or "none"
        raise TypeError(f"`{type(patch).__name__}` is no upsert patch of this schema (its upserts: {known})")

    def encode_message(self, message: Message) -> str:
        """Writes a message: the envelope's members in the order they came (for
        a decoded one), payloads as :meth:`encode` writes them; a payload in the
        generated types (a ``msgspec.Struct``) as msgspec writes it (``UNSET``
        left out, ``None`` as ``null``)."""
        w = message._written
        members: dict[str, Any] = dict(w.envelope) if w is not None else {"jsonrpc": "2.0"}
        if message.kind != "notification":
            members["id"] = None if message.id is UNSET else message.id
        if message.kind in ("request", "notification"):
            members["method"] = message.method
            params = _json_of(message.params)
            empty = isinstance(params, dict) and not params
            if w is not None and w.form is not None and empty:
                if w.form == "absent":
                    members.pop("params", None)
                else:
                    members["params"] = None
            elif params is UNSET:
                members.pop("params", None)
            else:
                members["params"] = params
        elif message.kind == "response":
            result = _json_of(message.result)
            empty = isinstance(result, dict) and not result
            members["result"] = None if w is not None and w.form == "null" and empty else result
        else:
            members["error"] = message.error
        return dumps(members)


def _json_of(payload: Any) -> Any:
    """A payload as JSON values: one in the generated types as msgspec writes it."""
    return msgspec.to_builtins(payload) if isinstance(payload, msgspec.Struct) else payload


def _once(answers: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    """``answers``, asked once (a table of pending requests may forget a request once asked):
    the fast path and then the careful reader may both ask about the same message's id."""
    asked: list[str | None] = []

    def once(request_id: Any) -> str | None:
        if not asked:
            asked.append(answers(request_id))
        return asked[0]

    return once


class _MessageReader:
    """One message's envelope, read (:meth:`Codec.decode_message`)."""

    def __init__(
        self,
        codec: Codec,
        o: dict[str, Any],
        duplicates: Duplicates | None,
        answers: Callable[[Any], str | None] | None,
        side: str | None,
    ) -> None:
        self.codec = codec
        self.o = o
        self.duplicates = duplicates
        self.answers = answers
        self.side = side
        self.reports: list[Report] = []
        self.written = _Written(o)
        #: The payload's definition, once known.
        self.definition: str | None = None

    def raw_id(self) -> Any:
        """The message's id, ``None`` when it has none or a ``null`` one."""
        return self.o.get("id")

    def read(self, admit: Callable[[str, Any], MessageError | None] | None) -> Decoded[Message]:
        o = self.o
        words = self.codec.words
        # A message that is not readable as an envelope is answered with its id (or `null`).
        repeat = None if self.duplicates is None else self.duplicates.repeat_of(o)
        if repeat is not None:
            text = duplicate_field(repeat.key)
            raise MessageError(
                f"not a JSON-RPC message: {text}", f"/{repeat.key}", "invalid_message", self.raw_id(), True
            )
        method = o.get("method")
        if "method" in o and not isinstance(method, str):
            text = f"invalid type: {words.found(method)}, expected a string"
            raise MessageError(f"not a JSON-RPC message: {text}", "/method", "invalid_message", self.raw_id(), True)
        # An envelope error: a message shaped like a response is never answered.
        response_shaped = method is None and ("result" in o or "error" in o)
        if o.get("jsonrpc") != "2.0":
            raise self.invalid("/jsonrpc", '`jsonrpc` must be "2.0"', not response_shaped)
        message: Message
        if method is not None and "result" not in o and "error" not in o:
            if "id" in o:
                rid = self.id(True)
                refusal = None if admit is None else admit(method, rid)
                if refusal is not None:
                    raise refusal
                m = self.entry(method, False)
                params = self.payload("params", None if m is None else m.request, "request", method, True)
                message = Message("request", method, rid, params)
            else:
                m = self.entry(method, True)
                params = self.payload("params", None if m is None else m.notification, "notification", method, False)
                message = Message("notification", method, UNSET, params)
        elif method is None and "id" in o and "result" in o and "error" not in o:
            rid = self.id(False)
            request = None if self.answers is None else self.answers(rid)
            if request is None:
                raise MessageError("a response whose request is not known", "/id", "unknown_request", self.raw_id())
            m = self.codec.method(request)
            result = self.payload("result", None if m is None else m.response, "response", request, False)
            message = Message("response", request, rid, result=result)
        elif method is None and "id" in o and "error" in o and "result" not in o:
            message = Message("error", None, o["id"], error=o["error"])
        elif method is None and "id" not in o:
            raise self.invalid("/id", "a response without an `id`", not response_shaped)
        else:
            text = "not a request, notification or response: check `method`, `id`, `result` and `error`"
            raise self.invalid("", text, not response_shaped)
        message._written = self.written
        message._codec, message._definition = self.codec, self.definition
        return Decoded(message, self.reports)

    def invalid(self, pointer: str, text: str, reply: bool) -> MessageError:
        return MessageError(text, pointer, "invalid_message", self.raw_id(), reply)

    def entry(self, method: str, notification: bool) -> MethodShape | None:
        """The method's entry, for the side receiving it (``None``: not one this side handles)."""
        m = self.codec.method(method)
        if m is None or self.side is None:
            return m
        return m if m.side == self.side or (notification and m.side == "protocol") else None

    def id(self, reply: bool) -> Any:
        """The message's id, checked against the schema's ``RequestId`` when it has one."""
        v = self.o["id"]
        if self.codec.has("RequestId"):
            try:
                decode_value(self.codec.tables, "RequestId", v, duplicates=self.duplicates, words=self.codec.words)
            except DecodeError as e:
                raise MessageError(f"invalid request id: {e.message}", "/id", "invalid_message", None, reply) from None
        return v

    def payload(
        self, member: Literal["params", "result"], p: PayloadShape | None, kind: str, method: str, reply: bool
    ) -> Any:
        """The message's ``params`` or ``result`` decoded as the method's payload ``p`` says
        (``UNSET`` when an extension method's is omitted)."""
        o = self.o
        v = o.get(member, UNSET)
        if p is None:
            if method.startswith("_"):
                return v
            text = f"unknown {kind} method `{method}` (extension methods start with `_`)"
            raise MessageError(text, "/method", "unknown_method", self.raw_id(), reply)
        value = v
        if v is UNSET or v is None:
            if p.null == "empty":
                value = {}
                self.written.form = "absent" if v is UNSET else "null"
            elif p.null == "value":
                value = None
            else:
                found = "null" if v is None else "none"
                text = f"`{method}` needs a payload object, found {found}"
                raise MessageError(text, f"/{member}", "invalid_payload", self.raw_id(), reply)
        self.definition = p.definition
        try:
            d = self.codec._value(p.definition, value, self.duplicates)
        except DecodeError as e:
            raise MessageError(e.message, f"/{member}{e.pointer}", "invalid_payload", self.raw_id(), reply) from None
        self.reports.extend(Report(f"/{member}{r.pointer}", r.rule, r.message) for r in d.reports)
        return d.value


_Version: TypeAlias = Literal["v1", "v2"]


@cache
def _tables(version: _Version, unstable: bool) -> Tables:
    """The tables of a schema, read once from the package's ``_tables/`` (``v2.json``, ``v2.unstable.json``)."""
    if version not in ("v1", "v2"):
        raise ValueError(f"no protocol version `{version}` (v1, v2)")
    name = f"{version}.unstable.json" if unstable else f"{version}.json"
    text = resources.files("acp_bindings").joinpath("_tables", name).read_text(encoding="utf-8")
    return load(json.loads(text))


def codec(version: _Version, *, unstable: bool = False, wording: Wording = "python") -> Codec:
    """The :class:`Codec` of protocol ``version`` (``"v1"`` or ``"v2"``):
    the stable schema's, or with ``unstable`` the unstable schema's (every
    stable definition and what the unstable schema adds or changes).
    ``wording``: ``"python"`` (JSON's terms, Python's type names) or
    ``"crate"`` (the Rust crate's words). Made once and shared."""
    return _codec(version, unstable, wording)


@cache
def _codec(version: _Version, unstable: bool, wording: Wording) -> Codec:
    types = importlib.import_module(f"acp_bindings.unstable.{version}" if unstable else f"acp_bindings.{version}")
    return Codec(_tables(version, unstable), wording, types)


def session_reducer(version: Literal["v2"] = "v2", *, unstable: bool = False) -> SessionReducer:
    """A new :class:`SessionReducer` of protocol ``version`` (v2: v1 has no upserts to fold)."""
    reducer = _tables(version, unstable).reducer
    if reducer is None:
        raise ValueError(f"{version} has no session reducer (its updates are no upserts)")
    return SessionReducer(reducer)

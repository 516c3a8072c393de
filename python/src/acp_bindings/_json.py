"""Reading JSON text as the Rust crate reads it.

``json.loads`` keeps the last of two members of one name, reads a lone
surrogate escape (``"\\ud800"``), accepts ``NaN`` and ``Infinity`` and nests
as deep as Python recurses; the crate refuses all of these. :func:`parse`
reads with ``json.loads`` (in C) and then checks what it read, and only when
something is wrong reads the text again character by character to say what
and where in serde_json's words (``EOF while parsing an object at line 1
column 14``), so that the package's errors are the crate's.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

__all__ = ["DecodeError", "Duplicates", "parse", "pointer_of", "read", "syntax_error"]

#: serde_json's nesting limit: the 128th open bracket is refused.
MAX_DEPTH = 127

#: The integers serde_json reads as integers (``i64`` and ``u64``); it reads any other as a float.
_INT_MIN = -(2**63)
_INT_MAX = 2**64 - 1

_SURROGATE = re.compile("[\ud800-\udfff]")
_WS = " \t\n\r"
_DIGITS = "0123456789"


class DecodeError(ValueError):
    """A value that could not be read: what is wrong (``message``) and where (``pointer``, a JSON pointer)."""

    def __init__(self, message: str, pointer: str = "", *, syntax: bool = False, fatal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.pointer = pointer
        #: The text is not JSON (as opposed to JSON a schema refuses).
        self.syntax = syntax
        #: A repeated member name: an error of the whole value, which no lenient rule recovers from.
        self.fatal = fatal


def pointer_of(path: list[str]) -> str:
    """The JSON pointer of a path of member names and item indexes."""
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in path)


def parse(text: str | bytes, *, duplicates: Literal["error", "last"] = "error") -> Any:
    """Reads JSON text as the crate does.

    Broken JSON raises a :class:`DecodeError` with ``syntax`` set and
    serde_json's message, line and column; so do a lone surrogate escape, a
    number out of range and nesting past 127 levels. A member name repeated at
    any depth raises one at the repeated member (``duplicate field `type```),
    unless ``duplicates`` is ``"last"`` (the last one is kept, as
    ``json.loads`` does).
    """
    text = _text(text)
    repeated: dict[int, list[tuple[str, Any]]] = {}

    def pairs(members: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(members)
        if len(out) != len(members):
            repeated[id(out)] = members
        return out

    def constant(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except (ValueError, RecursionError):
        raise _careful(text) from None
    if _suspect(text) and not _checked(value, 0):
        raise _careful(text)
    if repeated and duplicates == "error":
        found = _first_repeated(value, repeated, [])
        if found is not None:
            raise found
    return value


def syntax_error(text: str) -> str | None:
    """The syntax error serde_json gives for ``text`` when it only checks that
    it is JSON (``IgnoredAny``, what the crate does with a JSON-RPC line before
    reading it as a message), or ``None``. It has no nesting limit and checks
    no number's range or surrogate escape, and words a few errors differently
    from the reader (``{"a":1,`` ends "while parsing an object")."""
    try:
        _Skipper(text).run()
    except DecodeError as e:
        return e.message
    return None


@dataclass(eq=False, slots=True)
class Repeat:
    """The first name an object repeats, and how many distinct members it had read when the name came again."""

    #: The object itself, held so that its ``id`` stays its own while a decoder looks it up.
    owner: Any
    key: str
    after: int


@dataclass(eq=False, slots=True)
class Duplicates:
    """Where a text repeats a member name (:func:`read`): the objects that
    repeat one, and every object or array that holds such an object at any
    depth (itself included), each by its ``id``. A decoder meets the repeat
    where the crate's decoder does, inside the value that holds it, and no
    lenient rule recovers from it."""

    repeated: dict[int, Repeat] = field(default_factory=dict)
    within: dict[int, Any] = field(default_factory=dict)

    def repeat_of(self, value: Any) -> Repeat | None:
        """The repeat of ``value``, if it is an object that repeats a name."""
        return self.repeated.get(id(value))

    def note(self, owner: Any, key: str, after: int) -> None:
        """Notes that ``owner`` repeats ``key`` after ``after`` distinct members."""
        self.repeated[id(owner)] = Repeat(owner, key, after)

    def holds(self, value: Any) -> bool:
        """Whether ``value`` is, or holds at any depth, an object that repeats a name."""
        return id(value) in self.within

    def add(self, value: Any) -> None:
        """Counts ``value`` among the values that hold a repeat."""
        self.within[id(value)] = value


def read(text: str | bytes) -> tuple[Any, Duplicates | None]:
    """Reads JSON text for a decoder, as the crate's decoders see it.

    Broken JSON raises :class:`DecodeError` as :func:`parse` does. A repeated
    member name is not an error here but noted (the returned
    :class:`Duplicates`, ``None`` when there is none), and the *first* of
    the members of one name is kept, so that the decoder fails where the
    crate's decoder meets the second one. Numbers are of serde_json's types:
    an integer literal in the range of ``i64`` or ``u64`` is an ``int``;
    any other number, ``-0`` and integers past that range included, is a
    ``float``.
    """
    text = _text(text)
    plain = _plain(text)
    if plain is not _NOT_PLAIN:
        return plain, None
    repeats: list[tuple[dict[str, Any], str, int]] = []

    def pairs(members: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(members)
        if len(out) == len(members):
            return out
        out = {}
        first: tuple[str, int] | None = None
        for k, v in members:
            if k in out:
                if first is None:
                    first = (k, len(out))
                continue
            out[k] = v
        if first is not None:
            repeats.append((out, first[0], first[1]))
        return out

    def constant(name: str) -> Any:
        raise ValueError(name)

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_int=_serde_int, parse_constant=constant)
    except (ValueError, RecursionError):
        raise _careful(text) from None
    if _suspect(text) and not _checked(value, 0):
        raise _careful(text)
    if not repeats:
        return value, None
    duplicates = Duplicates()
    for owner, key, after in repeats:
        duplicates.note(owner, key, after)
    _mark_within(value, duplicates)
    return value, duplicates


_NOT_PLAIN: Any = object()
_plain_decode = msgspec.json.decode
_plain_encode = msgspec.json.Encoder().encode
#: Every digit as ``0``, ``[`` and ``{`` as ``[``, everything else as a space (:func:`msgspec_reads_as_serde`).
_CLASSES = bytes(0x30 if 0x30 <= b <= 0x39 else 0x5B if b in (0x5B, 0x7B) else 0x20 for b in range(256))
_TWENTY = b"0" * 20


def msgspec_reads_as_serde(data: bytes) -> bool:
    """Whether msgspec may read ``data`` where serde_json would: it has too few brackets to nest
    past :data:`MAX_DEPTH` (msgspec's limit is deeper), and no 20 digits in a row (an integer
    that may be past ``u64`` or ``i64``, which serde_json reads as a float and msgspec as an
    integer). Either may be text inside a string: the answer only errs towards the careful
    reader. One translation, a count and a search, in C: a regular expression takes nine times as
    long on a line of the session-update stream (and ``find`` is quicker than ``in`` here)."""
    classes = data.translate(_CLASSES)
    return classes.count(b"[") <= MAX_DEPTH and classes.find(_TWENTY) < 0


def may_nest_too_deep(text: str) -> bool:
    """Whether ``text`` has enough brackets to nest past :data:`MAX_DEPTH` (or text like them in strings)."""
    return text.count("[") + text.count("{") > MAX_DEPTH


def _plain(text: str) -> Any:
    """The value of ``text`` when it is written as msgspec writes the value it reads from it (a
    compact line, as peers write them), else ``_NOT_PLAIN``. Such a text repeats no member name
    (msgspec would keep one, and its text would be shorter), escapes nothing it need not, holds no
    lone surrogate (msgspec refuses one), no infinite number (msgspec refuses one too) and no
    number serde_json reads as another type than msgspec (``-0`` and ``1e5`` are written back
    otherwise, 20 digits are left to ``json.loads``); with nesting checked, it is what the
    careful reading gives, in a fraction of its time."""
    data = text.encode("utf-8", "surrogatepass")
    if not msgspec_reads_as_serde(data):
        return _NOT_PLAIN
    try:
        value = _plain_decode(data)
    except (msgspec.DecodeError, ValueError):
        return _NOT_PLAIN
    return value if _plain_encode(value) == data else _NOT_PLAIN


def _serde_int(literal: str) -> int | float:
    """An integer literal as serde_json reads it: an integer within ``i64`` and ``u64``, else a float."""
    if literal == "-0":
        return -0.0
    n = int(literal)
    return n if _INT_MIN <= n <= _INT_MAX else float(literal)


def _mark_within(v: Any, duplicates: Duplicates) -> bool:
    """Adds to ``duplicates.within`` every container of ``v`` that holds a repeat; whether ``v`` does."""
    found = False
    if isinstance(v, dict):
        found = duplicates.repeat_of(v) is not None
        for x in v.values():
            found = _mark_within(x, duplicates) or found
    elif isinstance(v, list):
        for x in v:
            found = _mark_within(x, duplicates) or found
    if found:
        duplicates.add(v)
    return found


def _text(text: str | bytes) -> str:
    """``text`` as a string: bytes are UTF-8 (not UTF-8: serde_json's error)."""
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DecodeError(f"invalid unicode code point at byte {e.start}", syntax=True) from None
    return text


#: Text only a lone surrogate escape can be read from (or text like it inside a string).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: Text only an infinite number can be read from: an exponent, or 300 digits in a row (or text like them in a string).
_HUGE_NUMBER = re.compile(r"[0-9][eE]|[0-9]{300}")


def _suspect(text: str) -> bool:
    """Whether ``json.loads`` may have let through from ``text`` what
    :func:`_checked` looks for; when not, the value need not be walked. Each
    test is one pass over the text in C, and may only err towards a walk:
    nesting needs as many brackets, an infinite number an exponent or 309
    digits, a lone surrogate an escape or itself."""
    return (
        may_nest_too_deep(text)
        or _HUGE_NUMBER.search(text) is not None
        or _SURROGATE_ESCAPE.search(text) is not None
        or _SURROGATE.search(text) is not None
    )


def _checked(v: Any, depth: int) -> bool:
    """What ``json.loads`` let through: nothing nested past the limit, no infinite number, no lone surrogate."""
    if isinstance(v, str):
        return _SURROGATE.search(v) is None
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, dict):
        if depth >= MAX_DEPTH:
            return False
        return all(_SURROGATE.search(k) is None and _checked(x, depth + 1) for k, x in v.items())
    if isinstance(v, list):
        if depth >= MAX_DEPTH:
            return False
        return all(_checked(x, depth + 1) for x in v)
    return True


def _first_repeated(v: Any, repeated: dict[int, list[tuple[str, Any]]], path: list[str]) -> DecodeError | None:
    """The first repeated member in reading order: inner objects are read before a later member of their parent."""
    if isinstance(v, list):
        for i, x in enumerate(v):
            path.append(str(i))
            found = _first_repeated(x, repeated, path)
            path.pop()
            if found is not None:
                return found
    elif isinstance(v, dict):
        seen: set[str] = set()
        for k, x in repeated.get(id(v), v.items()):
            path.append(k)
            if k in seen:
                return DecodeError(f"duplicate field `{k}`", pointer_of(path), fatal=True)
            seen.add(k)
            found = _first_repeated(x, repeated, path)
            path.pop()
            if found is not None:
                return found
    return None


def _careful(text: str) -> DecodeError:
    """The error the crate's reader gives for ``text``, which ``json.loads`` refused or let through wrongly."""
    try:
        _Reader(text).run()
    except DecodeError as e:
        return e
    # Only a repeated name is left, which parse() reports itself; json.loads refused nothing else.
    return DecodeError("not JSON", syntax=True)


class _Reader:
    """serde_json's reader, position for position, for its errors only (the value is json.loads')."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.depth = 0

    def fail(self, message: str, at: int) -> DecodeError:
        """serde_json's syntax error at index ``at`` (its column counts UTF-8 bytes of the line, from 1)."""
        before = self.text[:at]
        start = before.rfind("\n") + 1
        line = before.count("\n") + 1
        # The column of the character before ``at`` is the bytes before it, plus one.
        column = len(before[start:-1].encode("utf-8", "surrogatepass")) + 1 if at > start else 0
        return DecodeError(f"{message} at line {line} column {column}", syntax=True)

    def peek_fail(self, message: str) -> DecodeError:
        """An error at the next character (serde's ``peek_error``)."""
        return self.fail(message, min(len(self.text), self.i + 1))

    def ws(self) -> str:
        t = self.text
        while self.i < len(t) and t[self.i] in _WS:
            self.i += 1
        return t[self.i] if self.i < len(t) else ""

    def run(self) -> None:
        self.value()
        if self.ws() != "":
            raise self.peek_fail("trailing characters")

    def value(self) -> None:
        c = self.ws()
        if c == "":
            raise self.peek_fail("EOF while parsing a value")
        if c == '"':
            self.i += 1
            self.string()
        elif c == "{":
            self.object()
        elif c == "[":
            self.array()
        elif c in "tfn":
            self.ident({"t": "true", "f": "false", "n": "null"}[c])
        elif c == "-" or c in _DIGITS:
            self.number()
        else:
            raise self.peek_fail("expected value")

    def ident(self, word: str) -> None:
        self.i += 1
        for k in range(1, len(word)):
            if self.i >= len(self.text):
                raise self.fail("EOF while parsing a value", len(self.text))
            c = self.text[self.i]
            self.i += 1
            if c != word[k]:
                raise self.fail("expected ident", self.i)

    def number(self) -> None:
        t = self.text
        start = self.i
        if t[self.i] == "-":
            self.i += 1
        if self.i >= len(t):
            raise self.fail("EOF while parsing a value", len(t))
        first = t[self.i]
        self.i += 1
        if first == "0":
            if self.i < len(t) and t[self.i] in _DIGITS:
                raise self.peek_fail("invalid number")
        elif first not in _DIGITS:
            raise self.fail("invalid number", self.i)
        while self.i < len(t) and t[self.i] in _DIGITS:
            self.i += 1
        if self.i < len(t) and t[self.i] == ".":
            self.i += 1
            self.digits()
        if self.i < len(t) and t[self.i] in "eE":
            self.i += 1
            if self.i < len(t) and t[self.i] in "+-":
                self.i += 1
            self.digits()
        if math.isinf(float(t[start : self.i])):
            raise self.fail("number out of range", self.i)

    def digits(self) -> None:
        t = self.text
        if self.i >= len(t) or t[self.i] not in _DIGITS:
            if self.i >= len(t):
                raise self.peek_fail("EOF while parsing a value")
            raise self.peek_fail("invalid number")
        while self.i < len(t) and t[self.i] in _DIGITS:
            self.i += 1

    def string(self) -> None:
        t = self.text
        while True:
            if self.i >= len(t):
                raise self.fail("EOF while parsing a string", len(t))
            c = t[self.i]
            if c == '"':
                self.i += 1
                return
            if c < " ":
                raise self.fail("control character (\\u0000-\\u001F) found while parsing a string", self.i + 1)
            self.i += 1
            if c == "\\":
                self.escape()

    def escape(self) -> None:
        t = self.text
        if self.i >= len(t):
            raise self.fail("EOF while parsing a string", len(t))
        c = t[self.i]
        self.i += 1
        if c in '"\\/bfnrt':
            return
        if c != "u":
            raise self.fail("invalid escape", self.i)
        hi = self.hex()
        if hi < 0xD800 or hi > 0xDFFF:
            return
        if hi >= 0xDC00:
            raise self.fail("lone leading surrogate in hex escape", self.i)
        if t[self.i : self.i + 2] != "\\u":
            raise self.fail("unexpected end of hex escape", min(len(t), self.i + 1))
        self.i += 2
        lo = self.hex()
        if lo < 0xDC00 or lo > 0xDFFF:
            raise self.fail("lone leading surrogate in hex escape", self.i)

    def hex(self) -> int:
        t = self.text
        if self.i + 4 > len(t):
            raise self.fail("EOF while parsing a string", len(t))
        # serde_json reads the four characters before it looks at them.
        digits = t[self.i : self.i + 4]
        self.i += 4
        if any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise self.fail("invalid escape", self.i)
        return int(digits, 16)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.peek_fail("recursion limit exceeded")
        self.i += 1

    def array(self) -> None:
        self.enter()
        first = True
        while True:
            c = self.ws()
            if c == "]":
                break
            if not first:
                if c == "":
                    raise self.peek_fail("EOF while parsing a list")
                if c != ",":
                    raise self.peek_fail("expected `,` or `]`")
                self.i += 1
                c = self.ws()
            if c == "]":
                raise self.peek_fail("trailing comma")
            if c == "":
                raise self.peek_fail("EOF while parsing a list" if first else "EOF while parsing a value")
            self.value()
            first = False
        self.i += 1
        self.depth -= 1

    def object(self) -> None:
        self.enter()
        first = True
        while True:
            c = self.ws()
            if c == "}":
                break
            if not first:
                if c == "":
                    raise self.peek_fail("EOF while parsing an object")
                if c != ",":
                    raise self.peek_fail("expected `,` or `}`")
                self.i += 1
                c = self.ws()
            if c == "}":
                raise self.peek_fail("trailing comma")
            if c == "":
                raise self.peek_fail("EOF while parsing an object" if first else "EOF while parsing a value")
            if c != '"':
                raise self.peek_fail("key must be a string")
            self.i += 1
            self.string()
            colon = self.ws()
            if colon == "":
                raise self.peek_fail("EOF while parsing an object")
            if colon != ":":
                raise self.peek_fail("expected `:`")
            self.i += 1
            self.value()
            first = False
        self.i += 1
        self.depth -= 1


class _Skipper(_Reader):
    """serde_json's ``ignore_value``, position for position: the syntax only,
    no nesting limit, no range or surrogate check, and its own words."""

    def error(self, message: str) -> DecodeError:
        """serde's ``error``: at the current position."""
        return self.fail(message, self.i)

    def next_or_null(self) -> str:
        if self.i >= len(self.text):
            return ""
        c = self.text[self.i]
        self.i += 1
        return c

    def peek_or_null(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def run(self) -> None:
        self.skip_value()
        if self.ws() != "":
            raise self.peek_fail("trailing characters")

    def skip_value(self) -> None:
        stack: list[str] = []
        enclosing: str | None = None
        while True:
            peek = self.ws()
            if peek == "":
                raise self.peek_fail("EOF while parsing a value")
            frame: str | None = None
            if peek == "n":
                self.skip_ident("ull")
            elif peek == "t":
                self.skip_ident("rue")
            elif peek == "f":
                self.skip_ident("alse")
            elif peek == "-":
                self.i += 1
                self.skip_integer()
            elif peek in _DIGITS:
                self.skip_integer()
            elif peek == '"':
                self.i += 1
                self.skip_str()
            elif peek in "[{":
                if enclosing is not None:
                    stack.append(enclosing)
                enclosing = None
                self.i += 1
                frame = peek
            else:
                raise self.peek_fail("expected value")
            if frame is not None:
                accept_comma = False
            elif enclosing is not None:
                frame, enclosing, accept_comma = enclosing, None, True
            else:
                if not stack:
                    return
                frame, accept_comma = stack.pop(), True
            while True:
                c = self.ws()
                if c == "," and accept_comma:
                    self.i += 1
                    break
                if (c == "]" and frame == "[") or (c == "}" and frame == "{"):
                    pass  # closes the frame
                elif c != "":
                    if accept_comma:
                        raise self.peek_fail("expected `,` or `]`" if frame == "[" else "expected `,` or `}`")
                    break
                else:
                    raise self.peek_fail("EOF while parsing a list" if frame == "[" else "EOF while parsing an object")
                self.i += 1
                if not stack:
                    return
                frame, accept_comma = stack.pop(), True
            if frame == "{":
                q = self.ws()
                if q == "":
                    raise self.peek_fail("EOF while parsing an object")
                if q != '"':
                    raise self.peek_fail("key must be a string")
                self.i += 1
                self.skip_str()
                colon = self.ws()
                if colon == "":
                    raise self.peek_fail("EOF while parsing an object")
                if colon != ":":
                    raise self.peek_fail("expected `:`")
                self.i += 1
            enclosing = frame

    def skip_ident(self, rest: str) -> None:
        self.i += 1
        for ch in rest:
            if self.i >= len(self.text):
                raise self.error("EOF while parsing a value")
            c = self.text[self.i]
            self.i += 1
            if c != ch:
                raise self.error("expected ident")

    def skip_integer(self) -> None:
        c = self.next_or_null()
        if c == "0":
            if self.peek_or_null() in _DIGITS and self.peek_or_null() != "":
                raise self.peek_fail("invalid number")
        elif c != "" and c in "123456789":
            while self.peek_or_null() != "" and self.peek_or_null() in _DIGITS:
                self.i += 1
        else:
            raise self.error("invalid number")
        p = self.peek_or_null()
        if p == ".":
            self.skip_decimal()
        elif p != "" and p in "eE":
            self.skip_exponent()

    def skip_decimal(self) -> None:
        self.i += 1
        digits = False
        while self.peek_or_null() != "" and self.peek_or_null() in _DIGITS:
            self.i += 1
            digits = True
        if not digits:
            raise self.peek_fail("invalid number")
        p = self.peek_or_null()
        if p != "" and p in "eE":
            self.skip_exponent()

    def skip_exponent(self) -> None:
        self.i += 1
        s = self.peek_or_null()
        if s != "" and s in "+-":
            self.i += 1
        d = self.next_or_null()
        if d == "" or d not in _DIGITS:
            raise self.error("invalid number")
        while self.peek_or_null() != "" and self.peek_or_null() in _DIGITS:
            self.i += 1

    def skip_str(self) -> None:
        """``ignore_str``: after the opening quote."""
        t = self.text
        while True:
            while self.i < len(t) and t[self.i] not in '"\\' and t[self.i] >= " ":
                self.i += 1
            if self.i >= len(t):
                raise self.error("EOF while parsing a string")
            c = t[self.i]
            if c == '"':
                self.i += 1
                return
            if c != "\\":
                raise self.error("control character (\\u0000-\\u001F) found while parsing a string")
            self.i += 1
            if self.i >= len(t):
                raise self.error("EOF while parsing a string")
            e = t[self.i]
            self.i += 1
            if e == "u":
                if self.i + 4 > len(t):
                    self.i = len(t)
                    raise self.error("EOF while parsing a string")
                digits = t[self.i : self.i + 4]
                self.i += 4
                if any(d not in "0123456789abcdefABCDEF" for d in digits):
                    raise self.error("invalid escape")
            elif e not in '"\\/bfnrt':
                raise self.error("invalid escape")

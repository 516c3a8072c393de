"""How decode errors are worded.

The decoder builds every message from the same parts (what was found, what
was expected, which arm of a union failed); a :class:`Words` says each part.
Two wordings:

- ``"python"`` (the default of the Python API) says them in JSON's terms and
  names types as Python does: ``an array``, ``an object``, ``an integer from
  0 to 65535``, an untagged union's arm by its Python type (``int``,
  ``list[ContentBlock]``). It is the TypeScript package's ``json`` wording
  with Python's type names for TypeScript's.
- ``"crate"`` says them as the Rust crate's decoders (and so serde) do: ``a
  sequence``, ``a map``, ``u16``, an arm by its Rust variant's name. The
  command line uses it, so that its lines are the same as ``acp-tools``'
  and the TypeScript CLI's and compare line by line.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias

from acp_bindings._shape import ArmShape, IntTy, ListTy, MapTy, RefTy, TupleTy, Ty
from acp_bindings._write import float_text, js_quote

__all__ = ["CRATE", "PYTHON", "Wording", "Words", "words"]

#: ``"python"``: JSON's terms and Python's type names; ``"crate"``: the Rust crate's (serde's) terms.
Wording: TypeAlias = Literal["python", "crate"]

#: The bounds of each integer type, as decimal text (``None``: the 128-bit types, said as "an integer").
_BOUNDS: Final[dict[str, tuple[str, str] | None]] = {
    "i8": ("-128", "127"),
    "i16": ("-32768", "32767"),
    "i32": ("-2147483648", "2147483647"),
    "i64": ("-9223372036854775808", "9223372036854775807"),
    "i128": None,
    "u8": ("0", "255"),
    "u16": ("0", "65535"),
    "u32": ("0", "4294967295"),
    "u64": ("0", "18446744073709551615"),
    "u128": None,
}


def _scalar(v: Any) -> str | None:
    """The found value's words that do not depend on the wording: ``null``, ``boolean `true```,
    ``integer `7```, ``floating point `1.5```, ``string "x"``; ``None`` for an array or an object."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return f"boolean `{'true' if v else 'false'}`"
    if isinstance(v, float):
        return f"floating point `{float_text(v)}`"
    if isinstance(v, int):
        return f"integer `{v}`"
    if isinstance(v, str):
        return f"string {js_quote(v)}"
    return None


def py_type(t: Ty) -> str:
    """A value type as Python writes it (``str``, ``list[ContentBlock]``, ``dict[str, Any]``)."""
    if isinstance(t, str):
        return {
            "string": "str",
            "char": "str",
            "number": "float",
            "boolean": "bool",
            "null": "None",
            "any": "Any",
            "object": "dict[str, Any]",
        }[t]
    if isinstance(t, IntTy):
        return "int"
    if isinstance(t, RefTy):
        return t.name
    if isinstance(t, ListTy):
        return f"list[{_maybe(t.item, t.nullable)}]"
    if isinstance(t, TupleTy):
        return f"tuple[{', '.join(_maybe(ty, nullable) for ty, nullable in t.items)}]"
    if isinstance(t, MapTy):
        return f"dict[str, {_maybe(t.value, t.nullable)}]"
    raise TypeError(f"no value type {t!r}")


def _maybe(t: Ty, nullable: bool) -> str:
    return f"{py_type(t)} | None" if nullable else py_type(t)


class Words:
    """The parts of a decode error's message, in one wording (this class: the crate's)."""

    #: The wording's name.
    wording: Wording = "crate"
    #: Expected: any array.
    expected_array = "a sequence"
    #: Expected: any object.
    expected_object = "a map"
    #: Expected: a string of one character.
    expected_char = "a character"

    def found(self, v: Any) -> str:
        """A value of the wrong type, as found (``integer `7```, ``sequence``)."""
        return _scalar(v) or ("sequence" if isinstance(v, list) else "map")

    def integer(self, name: str) -> str:
        """An integer type, as expected (``u16``)."""
        return name

    def tuple_of(self, n: int) -> str:
        """Expected: an array of exactly ``n`` items."""
        return f"a tuple of size {n}"

    def not_null(self, v: Any) -> str:
        """Found: ``v``, anything but ``null``, where only ``null`` is allowed (serde reads it as an ``Option``)."""
        return "Option value"

    def struct(self, name: str) -> str:
        """Expected: an object of definition ``name`` that a union extends (serde's ``struct X``)."""
        return f"struct {name}"

    def arm(self, a: ArmShape) -> str:
        """The name of an untagged arm in the union's error."""
        return a.name

    def syntax(self, message: str) -> str:
        """A syntax error of the reader (serde_json's words: ``EOF while parsing a list``)."""
        return message


class PythonWords(Words):
    """JSON's terms, and Python's names of types."""

    wording: Wording = "python"
    expected_array = "an array"
    expected_object = "an object"
    expected_char = "a string of one character"

    def found(self, v: Any) -> str:
        return _scalar(v) or ("array" if isinstance(v, list) else "object")

    def integer(self, name: str) -> str:
        b = _BOUNDS.get(name)
        return "an integer" if b is None else f"an integer from {b[0]} to {b[1]}"

    def tuple_of(self, n: int) -> str:
        return f"an array of {n} item(s)"

    def not_null(self, v: Any) -> str:
        return self.found(v)

    def struct(self, name: str) -> str:
        return f"a {name} object"

    def arm(self, a: ArmShape) -> str:
        return "None" if a.unit else py_type(a.ty if a.ty is not None else "null")

    def syntax(self, message: str) -> str:
        return message.replace("while parsing a list", "while parsing an array", 1).replace(
            "expected ident", "expected `true`, `false` or `null`", 1
        )


#: The crate's words.
CRATE: Final = Words()
#: JSON's terms and Python's type names.
PYTHON: Final = PythonWords()


def words(wording: str) -> Words:
    """The words of ``wording`` (``"json"``, the TypeScript package's name, is the same as ``"python"``)."""
    if wording == "crate":
        return CRATE
    if wording in ("python", "json"):
        return PYTHON
    raise ValueError(f"no wording `{wording}` (crate, python)")

"""Writing JSON as the Rust crate writes it.

serde_json writes members in the order they are held, strings with only the
escapes JSON needs (non-ASCII as it is), and floats with Ryū's shortest text
(``2.0``, ``1e20``, ``1e-7``), where Python's ``json.dumps`` writes
``100000000000000000000.0`` and escapes non-ASCII; :func:`dumps` writes what
serde_json writes, so a value read and written back is the text it came as.
The float helpers also say numbers the way Rust's ``Display`` does, for
messages.
"""

from __future__ import annotations

import math
from json.encoder import encode_basestring
from typing import Any

__all__ = ["dumps", "float_text", "js_quote", "rust_display"]


def js_quote(text: str) -> str:
    """A string as JSON text (``JSON.stringify``'s and serde_json's escapes, non-ASCII as is)."""
    return encode_basestring(text)


def dumps(value: Any, *, indent: int | None = None) -> str:
    """Writes a JSON value as serde_json does: compactly (or, with
    ``indent``, as its pretty printer does), each object's members in their
    order, non-ASCII characters as they are, control characters escaped, an
    integer as its digits and a float as serde_json writes it (``2.0``,
    ``0.5``, ``1e20``; a float that is not finite as ``null``).
    ``JSON.stringify`` writes the same but for floats, which it cannot tell
    from integers (``2``)."""
    out: list[str] = []
    if indent is None:
        _write(value, out)
    else:
        _write_pretty(value, out, " " * indent, "\n")
    return "".join(out)


def _scalar(v: Any) -> str | None:
    if isinstance(v, str):
        return encode_basestring(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        return _ryu(v)
    return None


def _write(v: Any, out: list[str]) -> None:
    if isinstance(v, dict):
        out.append("{")
        first = True
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError(f"a JSON object's member names are strings, not {type(k).__name__}")
            if not first:
                out.append(",")
            first = False
            out.append(encode_basestring(k))
            out.append(":")
            _write(x, out)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _write(x, out)
        out.append("]")
    else:
        text = _scalar(v)
        if text is None:
            raise TypeError(f"{type(v).__name__} is not a JSON value")
        out.append(text)


def _write_pretty(v: Any, out: list[str], step: str, at: str) -> None:
    inner = at + step
    if isinstance(v, dict) and v:
        out.append("{")
        for i, (k, x) in enumerate(v.items()):
            if not isinstance(k, str):
                raise TypeError(f"a JSON object's member names are strings, not {type(k).__name__}")
            out.append("," + inner if i else inner)
            out.append(encode_basestring(k))
            out.append(": ")
            _write_pretty(x, out, step, inner)
        out.append(at + "}")
    elif isinstance(v, (list, tuple)) and v:
        out.append("[")
        for i, x in enumerate(v):
            out.append("," + inner if i else inner)
            _write_pretty(x, out, step, inner)
        out.append(at + "]")
    else:
        _write(v, out)


def _digits(f: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as ``abs(f)`` (not zero),
    and the power of ten of the last one: ``abs(f) == int(digits) * 10**k``."""
    mantissa, _, exponent = repr(abs(f)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    k = (int(exponent) if exponent else 0) - len(fraction)
    trimmed = digits.rstrip("0")
    return trimmed, k + len(digits) - len(trimmed)


def _ryu(f: float) -> str:
    """A float as serde_json writes it (the ``ryu`` crate's format): the
    shortest digits, in decimal when the point falls from 5 places before the
    first digit to 16 after it (``0.0001``, ``1e16``, ``1.5e-7``), and always
    with a point or an exponent (``2.0``)."""
    if not math.isfinite(f):
        return "null"
    if f == 0:
        return "-0.0" if math.copysign(1.0, f) < 0 else "0.0"
    d, k = _digits(f)
    n = len(d)
    point = n + k
    if 0 <= k and point <= 16:
        text = d + "0" * k + ".0"
    elif 0 < point <= 16:
        text = d[:point] + "." + d[point:]
    elif -5 < point <= 0:
        text = "0." + "0" * -point + d
    elif n == 1:
        text = f"{d}e{point - 1}"
    else:
        text = f"{d[0]}.{d[1:]}e{point - 1}"
    return "-" + text if f < 0 else text


def rust_display(f: float) -> str:
    """A float as Rust's ``Display`` writes it: the shortest digits that read
    back as it, every one written out and no exponent (``1``, ``0.5``,
    ``100000000000000000000``, ``0.0000001``, ``NaN``, ``inf``)."""
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    d, k = _digits(f)
    point = len(d) + k
    if k >= 0:
        text = d + "0" * k
    elif point > 0:
        text = d[:point] + "." + d[point:]
    else:
        text = "0." + "0" * -point + d
    return "-" + text if f < 0 else text


def float_text(f: float) -> str:
    """A float as serde's errors show it (``floating point `1.0```): Rust's
    ``Display`` (:func:`rust_display`) with ``.0`` added when it is finite and
    has no point (``1.0``, ``0.5``, ``100000000000000000000.0``)."""
    text = rust_display(f)
    return text + ".0" if math.isfinite(f) and "." not in text else text

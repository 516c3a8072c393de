"""The fast paths give the careful decoder's answers.

The codec takes two shortcuts (``acp_bindings._json._plain``: a line msgspec
writes back as it came is read by msgspec; ``acp_bindings._fast``: a value
msgspec reads into the generated types and writes back unchanged, with the
checkpoints the types cannot hold read carefully, is taken as it is). Every
corpus message, and every one with each of its properties replaced by each of
17 values or removed (as ``tests/differential.py`` makes them), is decoded by
the codec and by the codec without either shortcut: the same value written
the same way, the same reports, or the same error at the same pointer.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import acp_bindings
from acp_bindings import _json

HERE = Path(__file__).resolve().parent


def _differential() -> Any:
    spec = importlib.util.spec_from_file_location("differential", HERE / "differential.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("differential", module)
    spec.loader.exec_module(module)
    return module


differential = _differential()


def outcome(codec: acp_bindings.Codec, name: str, text: str) -> tuple[str, ...]:
    try:
        d = codec.decode(name, text)
    except acp_bindings.DecodeError as e:
        return ("error", e.message, e.pointer)
    return ("value", codec.encode(name, d.value), *(f"{r.pointer} {r.rule} {r.message}" for r in d.reports))


def cases() -> Iterator[tuple[str, str, list[str]]]:
    for (version, name), inputs in differential.corpus().items():
        if name:
            texts = [differential.dumps(v) for v in [*inputs, *differential.mutations(inputs)]]
            yield version, name, texts


@pytest.mark.parametrize(("version", "name", "texts"), list(cases()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_fast_paths_give_the_careful_decoders_answers(
    version: Any, name: str, texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = acp_bindings.codec(version, unstable=True)
    careful = fast.careful()
    ours = [outcome(fast, name, t) for t in texts]
    monkeypatch.setattr(_json, "_plain", lambda text: _json._NOT_PLAIN)
    theirs = [outcome(careful, name, t) for t in texts]
    for text, o, t in zip(texts, ours, theirs, strict=True):
        assert o == t, f"{version} {name}: {text}"


def test_the_fast_paths_are_taken() -> None:
    v1 = acp_bindings.codec("v1")
    assert v1._fast is not None and v1._fast.read(
        "SessionNotification", {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": []}}
    )
    assert _json._plain('{"a":[1,2.5,"x"]}') == {"a": [1, 2.5, "x"]}
    for not_plain in (
        '{"a":1,"a":2}',
        '{"a": 1}',
        '"\\u00e9"',
        "-0",
        "1e5",
        "18446744073709551616",
        "[" * 200 + "]" * 200,
    ):
        assert _json._plain(not_plain) is _json._NOT_PLAIN, not_plain

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

import importlib
import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
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


def message_outcome(
    codec: acp_bindings.Codec, line: str | bytes, method: str, side: Any, admitted: list[Any]
) -> tuple[Any, ...]:
    def admit(m: str, rid: Any) -> acp_bindings.MessageError | None:
        admitted.append((m, rid))
        return acp_bindings.MessageError("refused", "/id", "duplicate_id", rid, True) if rid == "refuse" else None

    asked: list[Any] = []

    def answers(rid: Any) -> str | None:
        asked.append(rid)  # a table that forgets a request once asked, as the CLI's does
        return method if len(asked) == 1 else None

    try:
        d = codec.decode_message(line, answers, side=side, admit=admit)
    except acp_bindings.MessageError as e:
        return ("error", e.message, e.pointer, e.kind, e.id, e.needs_reply)
    m = d.value
    reports = [f"{r.pointer} {r.rule} {r.message}" for r in d.reports]
    return ("value", m.kind, m.method, repr(m.id), codec.encode_message(m), *reports)


def envelopes(method: str, payload: Any) -> Iterator[str]:
    """``payload`` in lines of every kind, as peers write them and otherwise."""
    text = differential.dumps(payload)
    for rid in ("7", '"refuse"', '"s"', "1.5", "null", "18446744073709551616"):
        yield f'{{"jsonrpc":"2.0","id":{rid},"method":"{method}","params":{text}}}'
        yield f'{{"jsonrpc":"2.0","id":{rid},"result":{text}}}'
    yield f'{{"jsonrpc":"2.0","method":"{method}","params":{text}}}'
    yield f'{{"method":"{method}","jsonrpc":"2.0","params":{text}}}'
    yield f'{{"jsonrpc":"2.0", "method":"{method}","params":{text}}}'
    yield f'{{"jsonrpc":"2.0","method":"{method}","params":{text},"x":1}}'
    yield f'{{"jsonrpc":"2.0","method":"{method}","params":{text},"params":{text}}}'
    yield f'{{"jsonrpc":"2.0","method":"{method}","params":{text},"method":"{method}"}}'
    yield f'{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{text},"id":8}}'
    yield f'{{"jsonrpc":"1.0","method":"{method}","params":{text}}}'
    yield f'{{"jsonrpc":"2.0","id":7,"result":{text},"error":null}}'
    yield f'{{"jsonrpc":"2.0","method":"{method}","params":{text}}}  '


def message_cases() -> Iterator[tuple[str, bool, str, list[str]]]:
    corpus = differential.corpus()
    for version in ("v1", "v2"):
        for unstable in (False, True):
            tables = acp_bindings.codec(version, unstable=unstable).tables
            for method, m in sorted(tables.methods.items()):
                names = {p.definition for p in (m.request, m.response, m.notification) if p is not None}
                inputs = [x for n in sorted(names) for x in corpus.get((version, n), [])]
                if not unstable:
                    inputs += differential.mutations(inputs)[::29]
                lines = [line for x in inputs for line in envelopes(method, x)]
                if lines:
                    yield version, unstable, method, lines


@pytest.mark.parametrize(
    ("version", "unstable", "method", "lines"),
    list(message_cases()),
    ids=lambda x: x if isinstance(x, str) else "unstable" if x is True else "",
)
def test_the_message_fast_path_gives_the_careful_readers_answers(
    version: Any, unstable: bool, method: str, lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = acp_bindings.codec(version, unstable=unstable)
    careful = fast.careful()
    for side in (None, "client") if method == "session/update" else (None, "agent"):
        ours: list[Any] = []
        theirs: list[Any] = []
        got = [(message_outcome(fast, line.encode(), method, side, ours), ours[:]) for line in lines]
        with monkeypatch.context() as patched:
            patched.setattr(_json, "_plain", lambda text: _json._NOT_PLAIN)
            want = [(message_outcome(careful, line, method, side, theirs), theirs[:]) for line in lines]
        for line, g, w in zip(lines, got, want, strict=True):
            assert g == w, f"{version} {method} {side}: {line}"


PLAN = b'{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[]}}'
PLAN_V2 = (
    b'{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m",'
    b'"content":{"type":"text","text":"hi"}}}'
)


@pytest.mark.parametrize(("version", "params"), [("v1", PLAN), ("v2", PLAN_V2)])
def test_the_message_fast_path_is_taken_and_gives_the_types(version: Any, params: bytes) -> None:
    codec = acp_bindings.codec(version)
    types = importlib.import_module(f"acp_bindings.{version}")
    line = b'{"jsonrpc":"2.0","method":"session/update","params":' + params + b"}"
    assert codec._quick(line, None, None) is not None
    m = codec.decode_message(line).value
    assert type(m.typed).__name__.endswith("SessionNotification")
    assert isinstance(m.typed, getattr(types, type(m.typed).__name__))
    assert m.params == json.loads(params)
    assert codec.encode_message(m) == line.decode()
    # Not as msgspec writes it: read by the careful reader, the same message and the same types.
    spaced = line.replace(b'"params":', b'"params": ')
    assert codec._quick(spaced, None, None) is None
    slow = codec.decode_message(spaced).value
    assert slow == m and slow.typed == m.typed
    assert codec.encode_message(slow) == line.decode()
    # A request, and the response to it (its method from the table of requests waiting).
    request = b'{"jsonrpc":"2.0","id":3,"method":"session/cancel","params":{"sessionId":"s"}}'
    assert codec._quick(request, None, "agent") is None  # a notification's method as a request
    result = b'{"stopReason":"end_turn"}' if version == "v1" else b'{"messageId":"m"}'
    response = b'{"jsonrpc":"2.0","id":3,"result":' + result + b"}"
    assert codec._quick(response, lambda i: "session/prompt", None) is not None
    r = codec.decode_message(response, lambda i: "session/prompt" if i == 3 else None).value
    assert (r.kind, r.method, r.id, r.result) == ("response", "session/prompt", 3, json.loads(result))
    assert type(r.typed).__name__ == "PromptResponse"


def test_a_payload_the_types_cannot_hold_is_said_so() -> None:
    v2 = acp_bindings.codec("v2")
    line = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"_x"}}}'
    m = v2.decode_message(line).value
    assert m.params["update"] == {"sessionUpdate": "_x"}
    with pytest.raises(msgspec.ValidationError):
        _ = m.typed


def test_the_walk_to_the_checkpoints_is_gated_by_the_updates_arm(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``session/update`` line is searched only for the names its update's arm can hold a
    checkpoint under (a chunk's ``"resource":``), and a plan for none; a line whose embedded
    resource msgspec cannot tell apart is still read carefully, and the answers are the careful
    reader's."""
    codec = acp_bindings.codec("v1")
    fast = codec._fast
    assert fast is not None and fast._notifications is not None
    gate = fast._lines[next(t for t, v in fast._lines.items() if v[0] == "session/update")][4]
    assert gate.attr == "update" and gate.by_arm is not None
    arms = {c.__name__: s for c, s in gate.by_arm.items()}
    assert arms["SessionUpdatePlan"] is None
    chunk = arms["SessionUpdateAgentMessageChunk"]
    assert chunk is not None and chunk(b'"resource":') and not chunk(b'"input":')
    head = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
    resources = ['{"uri":"u","text":"t"}', '{"uri":"u","blob":"Yg=="}', '{"uri":"u"}', '{"uri":"u","text":1}']
    lines = [
        f'{head}{{"sessionUpdate":"agent_message_chunk","content":{{"type":"resource","resource":{r}}}}}}}}}'
        for r in resources
    ]
    entry = '{"content":"\\"resource\\":","priority":"high","status":"pending"}'
    lines.append(f'{head}{{"sessionUpdate":"plan","entries":[{entry}]}}}}}}')
    careful = codec.careful()
    got = [message_outcome(codec, line.encode(), "", None, []) for line in lines]
    with monkeypatch.context() as patched:
        patched.setattr(_json, "_plain", lambda text: _json._NOT_PLAIN)
        want = [message_outcome(careful, line, "", None, []) for line in lines]
    assert got == want
    assert [codec._quick(line.encode(), None, None) is not None for line in lines] == [True, True, False, False, True]

"""Typed dispatch: a decoded message as its method's class of the generated module.

The unions and classes have the Rust crate's names (``RequestToAgent`` and its
``SessionPrompt`` variant are ``RequestToAgent`` and
``RequestToAgentSessionPrompt``), checked against the crate's generated source;
each class holds the payload in the generated types, for ``match``.
"""

from __future__ import annotations

import importlib
import re
import typing
from pathlib import Path
from typing import Any

import pytest

import acp_bindings
from acp_bindings import v1, v2

ROOT = Path(__file__).resolve().parents[2]


def rust_dispatch(version: str, unstable: bool) -> dict[tuple[str, str], tuple[str, str]]:
    """The crate's dispatch enums of a version: (kind, method) -> (enum + variant, payload type)."""
    source = (ROOT / "generated" / "src" / version / "mod.rs").read_text(encoding="utf-8")
    rpc = source[source.index("pub mod rpc {") :]
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for enum, body in re.findall(r"pub enum ((?:RequestTo|NotificationTo|ResponseFrom)\w+) \{(.*?)\n    \}", rpc, re.S):
        kind = {"RequestTo": "request", "NotificationTo": "notification", "ResponseFrom": "response"}
        k = next(v for p, v in kind.items() if enum.startswith(p))
        for gate, method, variant, payload in re.findall(
            r"((?:#\[cfg\(feature = \"unstable\"\)\]\s*)?)(?:///[^\n]*\n\s*)*#\[acp\(method = \"([^\"]+)\"[^\n]*\]\s*"
            r"(\w+)\(super::(\w+)\)",
            body,
        ):
            if unstable or not gate:
                out[(k, method)] = (enum + variant, payload)
    return out


def typescript_dispatch(version: str, unstable: bool) -> dict[tuple[str, str], tuple[str, str]]:
    """The TypeScript package's dispatch unions of a build: (kind, method) -> (union, payload type)."""
    name = f"{version}.unstable.ts" if unstable else f"{version}.ts"
    source = (ROOT / "ts" / "src" / "generated" / name).read_text(encoding="utf-8")
    out: dict[tuple[str, str], tuple[str, str]] = {}
    kinds = {"RequestTo": "request", "NotificationTo": "notification", "ResponseFrom": "response"}
    for union, body in re.findall(
        r"export type ((?:RequestTo|NotificationTo|ResponseFrom)\w+) =(.*?\});\n", source, re.S
    ):
        k = next(v for p, v in kinds.items() if union.startswith(p))
        for method, payload in re.findall(r'\{ method: "([^"]+)"; (?:params|result): (\w+) \}', body):
            out[(k, method)] = (union, payload)
    return out


@pytest.mark.parametrize(("version", "unstable"), [("v1", False), ("v1", True), ("v2", False), ("v2", True)])
def test_the_dispatch_classes_have_the_names_of_the_other_targets(version: str, unstable: bool) -> None:
    module = importlib.import_module(f"acp_bindings.unstable.{version}" if unstable else f"acp_bindings.{version}")
    # The payload's annotation as written (the module defers annotations): the type's name.
    ours = {key: (cls.__name__, cls.__annotations__[cls.__struct_fields__[-1]]) for key, cls in module.DISPATCH.items()}
    # Every group of the TypeScript package's: the same unions, methods and payload types.
    unions = typescript_dispatch(version, unstable)
    assert unions, "no dispatch union found in the TypeScript package's module"
    assert {key: payload for key, (_, payload) in ours.items()} == {key: p for key, (_, p) in unions.items()}
    for key, cls in module.DISPATCH.items():
        union = getattr(module, unions[key][0])  # `Union[X]` of one class is `X`
        assert cls is union or cls in typing.get_args(union), (key, cls)
    # Every variant of the crate's enums (it leaves the `$/` and proxy methods to its runtime): its enum and variant.
    crate = rust_dispatch(version, unstable)
    assert crate, "no dispatch enum found in the crate's source"
    assert {key: ours.get(key) for key in crate} == crate


def test_a_request_a_notification_and_a_response_dispatch_to_their_classes() -> None:
    codec = acp_bindings.codec("v1")
    params = '{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}'
    request = '{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":' + params + "}"
    m = codec.decode_message(request).value
    match codec.dispatch(m):
        case v1.RequestToAgentSessionPrompt(id=request_id, params=prompt):
            assert request_id == 4
            assert isinstance(prompt.prompt[0], v1.ContentBlockText) and prompt.prompt[0].text == "hi"
        case other:
            pytest.fail(f"dispatched to {other!r}")
    update = '{"sessionUpdate":"plan","entries":[]}'
    note = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":' + update + "}}"
    d = codec.dispatch(codec.decode_message(note).value)
    assert isinstance(d, v1.NotificationToClientSessionUpdate) and isinstance(d.params.update, v1.SessionUpdatePlan)
    response = '{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}'
    r = codec.dispatch(codec.decode_message(response, lambda i: "session/prompt").value)
    assert isinstance(r, v1.ResponseFromAgentSessionPrompt) and r.result.stop_reason == "end_turn" and r.id == 4


def test_a_line_read_carefully_dispatches_the_same() -> None:
    codec = acp_bindings.codec("v2")
    params = '{"sessionId":"s","prompt":[{"type":"text","text":"a"}]}'
    line = '{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":' + params + "}"
    spaced = line.replace(":", ": ")
    fast, careful = codec.decode_message(line).value, codec.decode_message(spaced).value
    assert codec._quick(line.encode(), None, None) is not None and codec._quick(spaced.encode(), None, None) is None
    assert isinstance(codec.dispatch(fast), v2.RequestToAgentSessionPrompt)
    assert codec.dispatch(fast) == codec.dispatch(careful) == codec.careful().dispatch(careful)


def test_an_extension_method_dispatches_to_its_json() -> None:
    codec = acp_bindings.codec("v2")
    m = codec.decode_message('{"jsonrpc":"2.0","id":1,"method":"_acme/ping","params":{"n":[1]}}').value
    assert codec.dispatch(m) == acp_bindings.ExtensionRequest(method="_acme/ping", id=1, params={"n": [1]})
    n = codec.decode_message('{"jsonrpc":"2.0","method":"_acme/tick"}').value
    assert codec.dispatch(n) == acp_bindings.ExtensionNotification(method="_acme/tick")
    r = codec.decode_message('{"jsonrpc":"2.0","id":1,"result":null}', lambda i: "_acme/ping").value
    assert codec.dispatch(r) == acp_bindings.ExtensionResponse(method="_acme/ping", id=1, result=None)


def test_an_error_has_no_dispatch_class() -> None:
    codec = acp_bindings.codec("v1")
    e: Any = codec.decode_message('{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}').value
    with pytest.raises(ValueError, match="kind `error`"):
        codec.dispatch(e)

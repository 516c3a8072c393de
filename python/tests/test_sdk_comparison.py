"""The comparison with the official Python SDK that the README and docs/python.md show, measured.

Each input goes through ``agent-client-protocol`` (its pydantic models, as its router validates
the params it receives after ``json.loads``, and its ``serialize_params``, as it writes params)
and through this package's codec; the table is written from what each did. The documents hold
it between ``<!-- python-sdk-comparison -->`` markers; this test fails when they differ from what
it measured. ``ACP_BLESS=1 pytest tests/test_sdk_comparison.py`` writes the measured table.
The SDK has v1's types only, so every row is v1.
"""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pydantic
from acp import schema as sdk
from acp.utils import serialize_params

import acp_bindings

ROOT = Path(__file__).resolve().parents[2]
START = "<!-- python-sdk-comparison: written by python/tests/test_sdk_comparison.py from what it measured -->\n"
END = "<!-- /python-sdk-comparison -->"

v1 = acp_bindings.codec("v1")


def code(s: str) -> str:
    return "`" + s + "`"


def line(update: dict[str, Any]) -> str:
    params = {"sessionId": "s", "update": update}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}, separators=(",", ":"))


def theirs(text: str) -> tuple[dict[str, Any] | None, str]:
    """What the SDK did with a line: the update as it holds it and writes it again, or what it raised."""
    params = json.loads(text)["params"]
    try:
        model = sdk.SessionNotification.model_validate(params)
    except pydantic.ValidationError as e:
        return None, f"`model_validate` raises `ValidationError` ({e.errors()[0]['type']})"
    return serialize_params(model)["update"], ""


def ours(text: str) -> tuple[dict[str, Any] | None, str, str]:
    """What the codec did with a line: the update, its reports, and the line written back; or the error."""
    try:
        decoded = v1.decode_message(text)
    except acp_bindings.DecodeError as e:
        return None, f"refused: {e.message} at {code(e.pointer)}", ""
    reports = "; ".join(f"{code(r.rule)} at {code(r.pointer)}" for r in decoded.reports)
    return decoded.value.params["update"], reports, v1.encode_message(decoded.value)


def member(update: dict[str, Any] | None, name: str, sent: Any) -> str:
    if update is None:
        return "refused"
    if name not in update:
        return "dropped"
    got = update[name]
    return "kept" if got == sent else f"becomes {code(json.dumps(got))}"


def row_member(what: str, update: dict[str, Any], name: str) -> list[str]:
    """A row on what happens to one member of an update."""
    text = line(update)
    got, raised = theirs(text)
    sdk_cell = raised or f"{code(name)} {member(got, name, update[name])}, nothing reported"
    mine, reports, _ = ours(text)
    if mine is None:
        return [what, sdk_cell, reports]
    cell = f"{code(name)} {member(mine, name, update[name])}"
    return [what, sdk_cell, cell + (f", reported: {reports}" if reports else "")]


def row_unknown_update() -> list[str]:
    text = line({"sessionUpdate": "_x"})
    _, raised = theirs(text)
    _, refused, _ = ours(text)
    return ['`session/update` with `sessionUpdate: "_x"`', raised, refused]


def row_unknown_content() -> list[str]:
    content = [
        {"type": "content", "content": {"type": "_x"}},
        {"type": "content", "content": {"type": "text", "text": "a"}},
    ]
    text = line({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "content": content})

    def items(update: dict[str, Any] | None) -> str:
        return "refused" if update is None else f"{len(update.get('content', []))} of 2 items kept"

    got, raised = theirs(text)
    mine, reports, _ = ours(text)
    return [
        "`tool_call` with a content item of an unknown type, then a text one",
        raised or items(got) + ", nothing reported",
        items(mine) + (f", reported: {reports}" if reports else ""),
    ]


def row_order() -> list[str]:
    text = line({"toolCallId": "c", "sessionUpdate": "tool_call_update", "status": "completed"})
    got, _ = theirs(text)
    _, _, written = ours(text)
    sdk_cell = f"changed ({code(json.dumps(got, separators=(',', ':')))})"
    return [
        "the order of members, written back",
        sdk_cell,
        "kept: the line re-encodes byte for byte" if written == text else written,
    ]


def row_null() -> list[str]:
    text = line({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": None})
    got, _ = theirs(text)
    _, _, written = ours(text)
    sdk_cell = "`title` written back" if got is not None and "title" in got else "`title` not written back"
    mine = "`title: null` written back" if '"title":null' in written else "`title` not written back"
    return ["`tool_call_update` with `title: null`, written back", sdk_cell, mine]


def row_repeated() -> list[str]:
    update = '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","text":"b"}}'
    text = '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":' + update + "}}"
    got, _ = theirs(text)
    kept = json.dumps(got["content"]["text"]) if got else "nothing"
    _, refused, _ = ours(text)
    return ['`{"type":"text","text":"a","text":"b"}`', f"`json.loads` keeps {code(kept)}", refused]


def rows() -> list[list[str]]:
    return [
        row_unknown_update(),
        row_member(
            '`tool_call` with `kind: "_deploy"`',
            {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "kind": "_deploy"},
            "kind",
        ),
        row_member(
            "`tool_call_update` with `title: 42`",
            {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": 42},
            "title",
        ),
        row_unknown_content(),
        row_member(
            'a member the schema does not name (`"x-vendor"`)',
            {"sessionUpdate": "tool_call_update", "toolCallId": "c", "x-vendor": 1},
            "x-vendor",
        ),
        row_order(),
        row_null(),
        row_repeated(),
    ]


def table() -> str:
    head = f"| v1 input | official SDK {version('agent-client-protocol')} | `acp-bindings` |\n|---|---|---|\n"
    return head + "".join("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |\n" for r in rows())


def test_the_comparison_tables_are_what_the_sdk_and_the_package_do() -> None:
    measured = table()
    for doc in ("README.md", "docs/python.md"):
        path = ROOT / doc
        text = path.read_text()
        at = text.find(START)
        end = text.find(END, at)
        assert at >= 0 and end > at, f"{doc} has no {START.strip()} ... {END} block"
        if os.environ.get("ACP_BLESS") == "1":
            path.write_text(text[: at + len(START)] + measured + text[end:])
        else:
            shown = text[at + len(START) : end]
            assert shown == measured, f"{doc}: the table differs from what was measured (ACP_BLESS=1 writes it)"

"""Patches that apply, and the session reducer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_bindings import SessionReducer, apply_patch, codec, from_patch, merge_by_key, session_reducer
from acp_bindings._codec import _tables
from acp_bindings._write import dumps

TOOL_CALL = _tables("v2", False).upserts["ToolCallUpdate"]


def test_a_first_patch_starts_from_the_defaults_omitted_keeps_null_clears_or_resets_a_value_sets() -> None:
    state = from_patch(TOOL_CALL, {"toolCallId": "c1", "title": "Read", "kind": "read"})
    assert state == {
        "toolCallId": "c1",
        "name": None,
        "title": "Read",
        "kind": "read",
        "status": "pending",
        "content": [],
        "locations": [],
        "rawInput": None,
        "rawOutput": None,
        "capabilities": None,
        "_meta": None,
    }
    apply_patch(
        TOOL_CALL,
        state,
        {"toolCallId": "c1", "title": None, "kind": None, "status": "completed", "content": [{"type": "content"}]},
    )
    assert state["title"] is None, "null unsets an optional field"
    assert state["kind"] == "other", "null resets `kind` to its default"
    assert state["status"] == "completed"
    apply_patch(TOOL_CALL, state, {"toolCallId": "c1", "content": None})
    assert state["content"] == [], "null clears a list"
    apply_patch(TOOL_CALL, state, {"toolCallId": "c2"})
    assert state["toolCallId"] == "c1", "the key is set once"


def test_meta_is_merged_by_key_one_level_deep() -> None:
    assert merge_by_key({"a": 1, "b": {"x": 1}}, {"b": {"y": 2}, "c": 3}) == {"a": 1, "b": {"y": 2}, "c": 3}
    assert merge_by_key({"a": 1, "b": 2}, {"a": None}) == {"b": 2}, "a member null removes it"
    assert merge_by_key({"a": 1}, None) is None, "null clears"


def test_the_reducer_folds_a_stream_of_decoded_updates() -> None:
    r = session_reducer()
    lines: list[dict[str, Any]] = [
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Build", "status": "pending"},
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "ok"}},
        },
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "Hi"}},
        {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": " there"}},
        {"sessionUpdate": "_acme_unknown", "toolCallId": "c1"},
    ]
    v2 = codec("v2")
    updates = [v2.decode("SessionUpdate", json.dumps(line)).value for line in lines]
    for u in updates:
        r.apply(u)
    state = r.to_json()
    call = state["toolCalls"]["c1"]
    assert len(call["content"]) == 1
    assert call["title"] == "Build"
    assert call["kind"] == "other", "a new tool call starts as `other`"
    message = state["messages"]["m1"]
    assert len(message["content"]) == 2
    assert message["kind"] == "agent_message"
    # The state holds copies: the decoded updates are as they were.
    assert updates[0] == lines[0]


def test_an_update_without_the_key_of_its_entity_is_refused_and_nothing_is_stored() -> None:
    r = session_reducer()
    before = json.dumps(r.to_json())
    with pytest.raises(TypeError, match="`tool_call_update` update names its entity by the string `toolCallId`: it is"):
        r.apply({"sessionUpdate": "tool_call_update", "title": "x"})
    with pytest.raises(TypeError, match="it is 7"):
        r.apply({"sessionUpdate": "tool_call_update", "toolCallId": 7})
    assert json.dumps(r.to_json()) == before
    r.apply({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "x"})
    assert json.dumps(r.to_json()) != before


def test_terminal_output_is_joined_as_bytes() -> None:
    r = session_reducer()
    for data in ("aGVs", "bG8="):
        r.apply({"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": data})
    assert r.to_json()["terminals"]["t"]["output"] == {"data": "aGVsbG8="}
    with pytest.raises(ValueError, match="no session reducer"):
        session_reducer("v1")  # type: ignore[arg-type]


def test_compaction_writes_the_stream_the_crate_writes_and_it_folds_to_the_same_state() -> None:
    file = Path(__file__).resolve().parents[2] / "tests" / "reducer" / "compaction.json"
    cases: list[dict[str, Any]] = json.loads(file.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 40
    v2 = codec("v2")

    def fold(updates: list[Any]) -> SessionReducer:
        r = session_reducer()
        for u in updates:
            r.apply(v2.decode("SessionUpdate", dumps(u)).value)
        return r

    for case in cases:
        seed = case["seed"]
        r = fold(case["stream"])
        assert dumps(r.to_json()) == dumps(case["state"]), f"seed {seed}: the state"
        compacted = r.compact()
        assert [dumps(u) for u in compacted] == [dumps(u) for u in case["compacted"]], f"seed {seed}: the stream"
        assert dumps(fold(compacted).to_json()) == dumps(case["state"]), f"seed {seed}: the refolded state"

"""Patches that apply on the generated types: ``Codec.from_patch`` and ``Codec.apply_patch``.

A v2 upsert's patch class (``v2.ToolCallUpdate``) builds its state class
(``v2.ToolCall``, generated beside it) by the rules the session reducer folds
with; folding a stream with them gives the reducer's state, property for
property.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import acp_bindings
from acp_bindings import UNSET, v2

CODEC = acp_bindings.codec("v2")


def update(text: str) -> Any:
    return msgspec.json.decode(text, type=v2.SessionUpdate)


def test_a_first_patch_makes_the_state_with_the_defaults() -> None:
    patch = v2.ToolCallUpdate(tool_call_id="c", title="Read")
    state = CODEC.from_patch(patch)
    assert isinstance(state, v2.ToolCall)
    assert (state.tool_call_id, state.title, state.name) == ("c", "Read", None)
    assert (state.kind, state.status, state.content, state.locations) == ("other", "pending", [], [])


def test_omitted_keeps_none_clears_a_value_sets() -> None:
    first = update(
        '{"sessionUpdate":"tool_call_update","toolCallId":"c","title":"Read","kind":"read","status":"in_progress",'
        '"locations":[{"path":"/a"}],"_meta":{"a":1,"b":2}}'
    )
    assert isinstance(first, v2.SessionUpdateToolCallUpdate)
    state = CODEC.from_patch(first)
    patch = update(
        '{"sessionUpdate":"tool_call_update","toolCallId":"c","title":null,"kind":null,"status":"completed",'
        '"locations":null,"_meta":{"a":null,"c":3}}'
    )
    after = CODEC.apply_patch(state, patch)
    assert after.title is None  # cleared
    assert after.kind == "other"  # reset to its reset value
    assert after.status == "completed"  # set
    assert after.locations == []  # a list cleared
    assert after.meta == {"b": 2, "c": 3}  # merged one level, `None` removing a member
    assert after.name is None and after.raw_input is None  # omitted: kept
    assert state.title == "Read" and state.meta == {"a": 1, "b": 2}  # the state given is unchanged
    keep = CODEC.apply_patch(after, v2.ToolCallUpdate(tool_call_id="c"))
    assert keep == after
    assert v2.ToolCallUpdate(tool_call_id="c").title is UNSET


def test_the_key_is_set_once() -> None:
    state = CODEC.from_patch(v2.ToolCallUpdate(tool_call_id="c"))
    assert CODEC.apply_patch(state, v2.ToolCallUpdate(tool_call_id="d")).tool_call_id == "c"


def test_a_patch_of_another_state_or_no_upsert_is_refused() -> None:
    state = CODEC.from_patch(v2.ToolCallUpdate(tool_call_id="c"))
    with pytest.raises(TypeError, match="no upsert patch"):
        CODEC.apply_patch(state, v2.ToolCallLocation(path="/a"))
    message = CODEC.from_patch(v2.AgentMessage(message_id="m"))
    with pytest.raises(TypeError, match="patches a `ToolCall`"):
        CODEC.apply_patch(message, v2.ToolCallUpdate(tool_call_id="c"))


def test_folding_with_the_types_gives_the_reducers_state() -> None:
    lines = [
        '{"sessionUpdate":"tool_call_update","toolCallId":"a","title":"Read","kind":"read"}',
        '{"sessionUpdate":"tool_call_update","toolCallId":"b","title":"Edit","rawInput":{"path":"/x"}}',
        '{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"in_progress","locations":[{"path":"/a"}]}',
        '{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed","title":null,"_meta":{"t":1}}',
        '{"sessionUpdate":"tool_call_update","toolCallId":"b","kind":null,"rawInput":null,"_meta":null}',
    ]
    reducer = acp_bindings.session_reducer()
    states: dict[str, Any] = {}
    for line in lines:
        reducer.apply(msgspec.json.decode(line))
        patch = update(line)
        key = patch.tool_call_id
        states[key] = CODEC.apply_patch(states[key], patch) if key in states else CODEC.from_patch(patch)
    assert {k: msgspec.to_builtins(s) for k, s in states.items()} == reducer.to_json()["toolCalls"]

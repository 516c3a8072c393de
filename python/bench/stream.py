"""The v1 ``session/update`` stream read by these bindings and by the official SDK.

``python bench/stream.py`` builds the stream (200 tool calls, each created,
updated, given content and completed, with message and thought chunks and a
plan: 1,400 JSON-RPC lines), then reads every line each way, alternating
passes in one run, and prints each side's median pass:

- the codec (``acp_bindings.codec("v1").decode_message``): each line read by
  the crate's rules into a ``Message`` (its payload in the generated types as
  ``typed``, as JSON values as ``params``). A line msgspec reads whole into
  the generated types and writes back byte for byte is taken as msgspec read
  it; the rest go to the careful reader. These lines are written as peers
  write them, so all are of the first kind;
- the careful reader alone (``codec.careful()``): every line read in pure
  Python, what a line written otherwise costs;
- the types alone: msgspec reads the line into the generated models and
  writes it again, no rule of the crate's applied;
- the official SDK (``agent-client-protocol``): ``json.loads``, then
  ``SessionNotification.model_validate`` of the params (pydantic v2), as its
  connection validates a received notification.

A side's ratio is the median over the rounds of its pass's time over the SDK's pass in the same
round (on a machine whose speed drifts, both passes of a round move together); its time is the
median of its passes.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import msgspec
from acp import schema as sdk

import acp_bindings
from acp_bindings import v1


def stream() -> list[bytes]:
    lines: list[dict[str, Any]] = []
    for i in range(200):
        call = f"call_{i:04d}"
        path = f"/work/src/module_{i}.rs"
        lines.append(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call,
                "title": f"Reading src/module_{i}.rs",
                "kind": "read",
                "status": "pending",
                "locations": [{"path": path, "line": 12}],
                "rawInput": {"path": path, "limit": 200},
            }
        )
        lines.append({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress"})
        lines.append(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call,
                "status": "completed",
                "content": [
                    {"type": "content", "content": {"type": "text", "text": "Found 3 matches"}},
                    {"type": "diff", "path": path, "oldText": "let x = 1;", "newText": "let x = 2;"},
                ],
                "_meta": {"traceId": f"t-{i}"},
            }
        )
        for m in range(2):
            text = f"Chunk {m}: the agent explains what it found in module {i}. "
            lines.append({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})
        lines.append(
            {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Considering the next step."}}
        )
        entries = [
            {"content": "Read the modules", "priority": "high", "status": "completed"},
            {"content": "Write the fix", "priority": "medium", "status": "in_progress"},
        ]
        lines.append({"sessionUpdate": "plan", "entries": entries})
    envelope = {"jsonrpc": "2.0", "method": "session/update"}
    return [
        json.dumps({**envelope, "params": {"sessionId": "sess_abc123", "update": u}}, separators=(",", ":")).encode()
        for u in lines
    ]


class Notification(msgspec.Struct):
    """The JSON-RPC envelope of a ``session/update`` notification."""

    jsonrpc: str
    method: str
    params: v1.SessionNotification


def main() -> None:
    lines = stream()
    decoder = msgspec.json.Decoder(Notification)
    encoder = msgspec.json.Encoder()

    def ours() -> int:
        return sum(encoder.encode(decoder.decode(line)) == line for line in lines)

    codec = acp_bindings.codec("v1")
    careful_codec = codec.careful()

    def decoded() -> int:
        return sum(codec.decode_message(line).value.kind == "notification" for line in lines)

    def careful() -> int:
        return sum(careful_codec.decode_message(line).value.kind == "notification" for line in lines)

    def official() -> int:
        return sum(sdk.SessionNotification.model_validate(json.loads(line)["params"]) is not None for line in lines)

    read, validated = ours(), official()
    assert validated == len(lines), f"the SDK validated {validated} of {len(lines)} lines"
    assert decoded() == careful() == len(lines), "the codec did not read every line"
    typed = sum(codec._quick(line, None, None) is not None for line in lines)
    rounds = int(os.environ.get("BENCH_ROUNDS", "15"))
    sides: dict[str, Callable[[], int]] = {"codec": decoded, "careful": careful, "ours": ours, "official": official}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, side in sides.items():
            start = time.perf_counter()
            side()
            times[name].append((time.perf_counter() - start) * 1000)
    m = {name: statistics.median(t) for name, t in times.items()}
    # Each round's pass over the SDK's pass in the same round, then the median: a machine whose
    # speed drifts between rounds moves both passes of a round together.
    r = {name: statistics.median(a / b for a, b in zip(t, times["official"], strict=True)) for name, t in times.items()}
    sdk_ms = m["official"]
    print(f"v1 session/update stream: {len(lines)} lines, {rounds} alternating passes, medians")
    print(
        f"  acp-bindings, the codec: {m['codec']:.2f} ms, ratio {r['codec']:.3f}"
        f" ({typed} of {len(lines)} lines read whole by msgspec)"
    )
    print(f"  acp-bindings, the careful reader alone: {m['careful']:.2f} ms, ratio {r['careful']:.3f}")
    print(
        f"  acp-bindings, the types alone (msgspec): {m['ours']:.2f} ms, ratio {r['ours']:.3f}"
        f" ({read} of {len(lines)} lines written back exactly)"
    )
    print(f"  official SDK (json.loads + pydantic): {sdk_ms:.2f} ms")


if __name__ == "__main__":
    main()

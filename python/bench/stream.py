"""The v1 ``session/update`` stream read by these models and by the official SDK's.

``python bench/stream.py`` builds the stream (200 tool calls, each created,
updated, given content and completed, with message and thought chunks and a
plan: 1,400 JSON-RPC lines), then reads every line both ways, alternating
passes in one run, and prints each side's median pass:

- these bindings: msgspec reads the line into the generated models and writes
  it again; a line that comes back byte for byte is read (what a compact,
  canonical line of a peer gets; the rest go to the careful reader, which is
  not in this version yet, and are counted);
- the careful codec (``acp_bindings.codec("v1").decode_message``): every
  line read by the crate's rules (unknown members kept, leniency reported),
  to JSON values, in pure Python;
- the official SDK (``agent-client-protocol``): ``json.loads``, then
  ``SessionNotification.model_validate`` of the params (pydantic v2), as its
  connection validates a received notification.

The ratios are each side's median over the SDK's.
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

    def careful() -> int:
        return sum(codec.decode_message(line).value.kind == "notification" for line in lines)

    def official() -> int:
        return sum(sdk.SessionNotification.model_validate(json.loads(line)["params"]) is not None for line in lines)

    read, checked, validated = ours(), careful(), official()
    assert validated == len(lines), f"the SDK validated {validated} of {len(lines)} lines"
    assert checked == len(lines), f"the careful codec read {checked} of {len(lines)} lines"
    rounds = int(os.environ.get("BENCH_ROUNDS", "15"))
    times: dict[str, list[float]] = {"ours": [], "careful": [], "official": []}
    sides: dict[str, Callable[[], int]] = {"ours": ours, "careful": careful, "official": official}
    for _ in range(rounds):
        for name, side in sides.items():
            start = time.perf_counter()
            side()
            times[name].append((time.perf_counter() - start) * 1000)
    a, c, b = (statistics.median(times[k]) for k in ("ours", "careful", "official"))
    print(f"v1 session/update stream: {len(lines)} lines, {rounds} alternating passes, medians")
    print(
        f"  acp-bindings, the types (msgspec): {a:.2f} ms, {read} of {len(lines)} lines read exactly, ratio {a / b:.3f}"
    )
    print(f"  acp-bindings, the careful codec: {c:.2f} ms, ratio {c / b:.3f}")
    print(f"  official SDK (json.loads + pydantic): {b:.2f} ms")


if __name__ == "__main__":
    main()

"""Writes a long v2 replay, as editors receive on ``session/load``: 500 turns,
each an agent message in 45 chunks of 3.9 KB, four patches of one tool call
and a plan replaced whole; 25,000 ``session/update`` lines, about 100 MB.

    python3 tools/bench/long-replay.py OUT.jsonl [--turns N]

``--turns`` writes fewer or more turns (the instruction bench's ``replay``
rows read 50 of them, 10 MB).
"""

import json
import sys

TEXT = "x" * 3900


def line(update: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})


def main(path: str, turns: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for turn in range(turns):
            for _ in range(45):
                chunk = {"type": "text", "text": TEXT}
                out.write(line({"sessionUpdate": "agent_message_chunk", "messageId": f"msg_{turn}", "content": chunk}) + "\n")
            for _ in range(4):
                patch = {"sessionUpdate": "tool_call_update", "toolCallId": f"call_{turn}", "status": "in_progress"}
                out.write(line({**patch, "rawOutput": TEXT}) + "\n")
            entries = [{"content": f"t{turn}", "priority": "high", "status": "completed"}]
            out.write(line({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "main", "entries": entries}}) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--turns"):
        sys.exit("usage: long-replay.py OUT.jsonl [--turns N]")
    main(sys.argv[1], int(sys.argv[3]) if len(sys.argv) == 4 else 500)

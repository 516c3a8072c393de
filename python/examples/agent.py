"""An ACP agent on the Python bindings: ``python examples/agent.py --protocol v1|v2``
speaks JSON-RPC on stdin/stdout, one message a line.

A prompt is answered with a message chunk and a tool call that needs the
client's permission; once the client answers, the tool call completes (or
fails if rejected), another chunk follows, and the turn ends with stop
reason ``end_turn``: in v1 as the response to ``session/prompt``, in v2 as an
idle ``state_update`` (v2 acknowledges the prompt at once).
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from typing import Any

import acp_bindings
from acp_bindings import Connection, is_known, stdio, v1

INFO = {"name": "py-bindings-agent", "version": "0.1.0"}
OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]
INTRO = {"type": "text", "text": "Let me look at README.md."}


def outro(allowed: bool) -> dict[str, str]:
    text = 'README.md starts with "# ACP bindings toolkit".' if allowed else "I was not allowed to read README.md."
    return {"type": "text", "text": text}


def allowed(answer: Any) -> bool:
    """Whether the permission answer selected ``allow`` (an outcome this version does not know is not one)."""
    outcome = answer["outcome"]
    return is_known(outcome) and outcome.get("outcome") == "selected" and outcome.get("optionId") == "allow"


def session_ids() -> Any:
    """A ``session/new`` handler: ``session-1``, ``session-2``, ..."""
    count = itertools.count(1)
    return lambda _: {"sessionId": f"session-{next(count)}"}


def v1_agent(agent: Connection) -> None:
    # The v1 agent in the generated types (its handler `typed`); the v2 one below in JSON values.
    options = [
        v1.PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
        v1.PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
    ]

    async def prompt(params: v1.PromptRequest) -> v1.PromptResponse:
        def update(u: v1.SessionUpdate) -> None:
            agent.notify("session/update", v1.SessionNotification(session_id=params.session_id, update=u))

        def chunk(text: str) -> v1.SessionUpdate:
            return v1.SessionUpdateAgentMessageChunk(content=v1.ContentBlockText(text=text))

        update(chunk(INTRO["text"]))
        update(v1.SessionUpdateToolCall(tool_call_id="call-1", title="Read README.md", kind="read", status="pending"))
        request = v1.RequestPermissionRequest(
            session_id=params.session_id, tool_call=v1.ToolCallUpdate(tool_call_id="call-1"), options=options
        )
        ok = allowed(await agent.request("session/request_permission", request))
        update(v1.SessionUpdateToolCallUpdate(tool_call_id="call-1", status="completed" if ok else "failed"))
        update(chunk(outro(ok)["text"]))
        return v1.PromptResponse(stop_reason="end_turn")

    agent.on_request("initialize", lambda _: {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": INFO})
    agent.on_request("session/new", session_ids())
    agent.on_request("session/prompt", prompt, typed=True)


def v2_agent(agent: Connection) -> None:
    async def turn(session_id: str) -> None:
        def update(u: dict[str, Any]) -> None:
            agent.notify("session/update", {"sessionId": session_id, "update": u})

        update({"sessionUpdate": "agent_message_chunk", "messageId": "reply-1", "content": INTRO})
        call = {"toolCallId": "call-1"}
        update(
            {
                "sessionUpdate": "tool_call_update",
                **call,
                "title": "Read README.md",
                "kind": "read",
                "status": "pending",
            }
        )
        answer = await agent.request(
            "session/request_permission",
            {
                "sessionId": session_id,
                "title": "Read README.md",
                "subject": {"type": "tool_call", "toolCall": call},
                "options": OPTIONS,
            },
        )
        ok = allowed(answer)
        update({"sessionUpdate": "tool_call_update", **call, "status": "completed" if ok else "failed"})
        update({"sessionUpdate": "agent_message_chunk", "messageId": "reply-1", "content": outro(ok)})
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})

    def prompt(params: Any) -> dict[str, str]:
        # Acknowledged at once; the turn goes on in notifications once the answer is out.
        agent.spawn(turn(params["sessionId"]))
        return {"messageId": "user-1"}

    agent.on_request("initialize", lambda _: {"protocolVersion": 2, "capabilities": {}, "info": INFO})
    agent.on_request("session/new", session_ids())
    agent.on_request("session/prompt", prompt)


async def main(protocol: str) -> None:
    reader, write = await stdio()
    agent = Connection(acp_bindings.codec("v1" if protocol == "v1" else "v2"), "agent", write)
    (v1_agent if protocol == "v1" else v2_agent)(agent)
    await agent.run(reader)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--protocol"] or sys.argv[2:3] not in (["v1"], ["v2"]):
        print("usage: python examples/agent.py --protocol v1|v2", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(sys.argv[2]))

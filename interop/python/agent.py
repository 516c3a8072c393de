"""ACP v1 agent on the official Python SDK (`agent-client-protocol` 0.12.1).

Speaks on stdin/stdout. A prompt is answered with a message chunk and a tool
call that needs the client's permission; once it is answered the tool call
completes (or fails if rejected), and the turn ends with the response to
`session/prompt` (stop reason end_turn). Logs, if any, go to stderr.
"""

import asyncio
import sys
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    start_tool_call,
    update_agent_message_text,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import AgentCapabilities, AllowedOutcome, Implementation, PermissionOption, ToolCallUpdate


class ReadmeAgent:
    """The agent side: one scripted turn per prompt."""

    def __init__(self) -> None:
        self._sessions = 0
        self._client: Client | None = None

    def on_connect(self, conn: Client) -> None:
        self._client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="python-sdk-agent", version="0.1.0"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self._sessions += 1
        return NewSessionResponse(session_id=f"session-{self._sessions}")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        client = self._client
        assert client is not None
        await client.session_update(session_id, update_agent_message_text("Let me look at README.md."))
        await client.session_update(
            session_id, start_tool_call("call-1", "Read README.md", kind="read", status="pending")
        )
        answer = await client.request_permission(
            session_id=session_id,
            tool_call=ToolCallUpdate(tool_call_id="call-1"),
            options=[
                PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
            ],
        )
        allowed = isinstance(answer.outcome, AllowedOutcome) and answer.outcome.option_id == "allow"
        if allowed:
            status, text = "completed", 'README.md starts with "# ACP bindings toolkit".'
        else:
            status, text = "failed", "I was not allowed to read README.md."
        await client.session_update(session_id, update_tool_call("call-1", status=status))
        await client.session_update(session_id, update_agent_message_text(text))
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        print(f"agent: cancel for {session_id} (nothing to cancel)", file=sys.stderr)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        pass


if __name__ == "__main__":
    asyncio.run(run_agent(ReadmeAgent()))

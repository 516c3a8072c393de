"""ACP v1 client on the official Python SDK (`agent-client-protocol` 0.12.1).

`client.py AGENT_COMMAND [ARGS...]` starts the agent, runs one prompt turn,
grants the permission the agent asks for (its allow_once option), prints what
happens, and exits 0 once the response to `session/prompt` has ended the turn.
"""

import asyncio
import os
import sys
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent, text_block
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

TIMEOUT_SECONDS = 20


class PrintingClient:
    """The client side: prints session updates and grants permissions."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if isinstance(update, AgentMessageChunk):
            content = update.content
            if isinstance(content, TextContentBlock):
                print(f"agent: {content.text}", flush=True)
            else:
                print(f"agent sent a {content.type} block", flush=True)
        elif isinstance(update, (ToolCallStart, ToolCallProgress)):
            print(f"tool call {update.tool_call_id}: {update.title or ''} [{update.status or ''}]", flush=True)
        else:
            print(f"update `{update.session_update}`", flush=True)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        allow = next((option for option in options if option.kind == "allow_once"), None)
        if allow is None:
            print(f"permission: {tool_call.tool_call_id} -> cancelled (no allow_once option)", flush=True)
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        print(f"permission: {tool_call.tool_call_id} -> {allow.name}", flush=True)
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id))

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        pass


async def run_turn(proc: asyncio.subprocess.Process) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    conn = connect_to_agent(PrintingClient(), proc.stdin, proc.stdout)
    try:
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(),
            client_info=Implementation(name="python-sdk-client", version="0.1.0"),
        )
        name = init.agent_info.name if init.agent_info else "an agent"
        print(f"initialized: {name} (protocol {init.protocol_version})", flush=True)
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        print(f"session: {session.session_id}", flush=True)
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("What does README.md say?")])
        print(f"turn ended: {response.stop_reason}", flush=True)
    finally:
        await conn.close()


async def main(argv: list[str]) -> int:
    if not argv:
        print("usage: client.py AGENT_COMMAND [ARGS...]", file=sys.stderr)
        return 2
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
        )
    except OSError as error:
        print(f"client: cannot start the agent {argv[0]}: {error}", file=sys.stderr)
        return 1
    try:
        await asyncio.wait_for(run_turn(proc), TIMEOUT_SECONDS)
    except Exception as error:  # the agent exited first, answered with an error, or timed out
        reason = "timed out" if isinstance(error, asyncio.TimeoutError) else f"{type(error).__name__}: {error}"
        print(f"client: the turn did not end ({reason}); agent exit status {proc.returncode}", file=sys.stderr)
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
        return 1
    proc.stdin.close()  # the agent sees the end of its input and exits
    try:
        await asyncio.wait_for(proc.wait(), 5)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))

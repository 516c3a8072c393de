"""The connection: requests answered by their handlers, errors answered as JSON-RPC asks,
requests sent and their answers awaited."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

import acp_bindings
from acp_bindings import Connection, RpcError, v2


def run(connection: Connection, lines: list[str]) -> None:
    """Runs ``connection`` on ``lines``, then the end of its input."""

    async def main() -> None:
        reader = asyncio.StreamReader()
        for line in lines:
            reader.feed_data((line + "\n").encode())
        reader.feed_eof()
        await connection.run(reader)

    asyncio.run(main())


def agent(sent: list[Any]) -> Connection:
    a = Connection(acp_bindings.codec("v1"), "agent", lambda line: sent.append(json.loads(line)), initialized=True)
    a.on_request("session/new", lambda params: {"sessionId": "s-1"})
    return a


def test_requests_are_answered_and_errors_replied_as_json_rpc_asks() -> None:
    sent: list[Any] = []
    invalid: list[acp_bindings.MessageError] = []
    a = Connection(
        acp_bindings.codec("v1"), "agent", lambda line: sent.append(json.loads(line)), invalid.append, initialized=True
    )
    a.on_request("session/new", lambda params: {"sessionId": "s-1"})
    lines = [
        '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}',
        '{"jsonrpc":"2.0","id":2,"method":"session/frobnicate","params":{}}',
        '{"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":"s","cwd":"/","mcpServers":[]}}',
        "{not json",
        '{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":7}}',
    ]
    run(a, lines)
    by_id = {json.dumps(m.get("id")): m for m in sent}
    assert by_id["1"] == {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s-1"}}
    assert by_id["2"]["error"]["code"] == -32601
    assert by_id["3"]["error"] == {"code": -32601, "message": "method not found: session/load"}
    assert by_id["null"]["error"]["code"] == -32700
    assert by_id["4"]["error"]["code"] == -32602 and by_id["4"]["error"]["data"] == {"pointer": "/params/cwd"}
    assert len(invalid) == 3


def test_a_request_sent_gets_its_result_or_its_error() -> None:
    sent: list[Any] = []

    async def main() -> tuple[Any, BaseException | None]:
        a = agent(sent)
        reader = asyncio.StreamReader()
        running = asyncio.ensure_future(a.run(reader))
        options = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
        params = {"sessionId": "s", "toolCall": {"toolCallId": "c"}, "options": options}
        first = a.request("session/request_permission", params)
        second = a.request("session/request_permission", params)
        answer = {"outcome": {"outcome": "selected", "optionId": "allow"}}
        reader.feed_data(json.dumps({"jsonrpc": "2.0", "id": 1, "result": answer}).encode() + b"\n")
        reader.feed_data(b'{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"no"}}\n')
        reader.feed_eof()
        result = await first
        try:
            await second
            error: BaseException | None = None
        except RpcError as e:
            error = e
        await running
        return result, error

    result, error = asyncio.run(main())
    assert result == {"outcome": {"outcome": "selected", "optionId": "allow"}}
    assert isinstance(error, RpcError) and error.code == -32000 and error.message == "no"
    assert [m["method"] for m in sent] == ["session/request_permission"] * 2


def test_a_handlers_rpc_error_is_its_reply_and_a_bug_an_internal_error(capsys: pytest.CaptureFixture[str]) -> None:
    sent: list[Any] = []
    a = Connection(acp_bindings.codec("v1"), "agent", lambda line: sent.append(json.loads(line)), initialized=True)

    def refuse(_: Any) -> Any:
        raise RpcError(-32002, "no such session", {"sessionId": "x"})

    def broken(_: Any) -> Any:
        raise KeyError("oops")

    a.on_request("session/load", refuse)
    a.on_request("session/new", broken)
    lines = [
        '{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"x","cwd":"/","mcpServers":[]}}',
        '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}',
    ]
    run(a, lines)
    assert sent[0]["error"] == {"code": -32002, "message": "no such session", "data": {"sessionId": "x"}}
    assert sent[1]["error"] == {"code": -32603, "message": "internal error"}
    assert "the handler of session/new failed" in capsys.readouterr().err


def test_requests_before_initialize_are_refused_and_initialize_opens_the_connection() -> None:
    sent: list[Any] = []
    invalid: list[acp_bindings.MessageError] = []
    a = Connection(acp_bindings.codec("v1"), "agent", lambda line: sent.append(json.loads(line)), invalid.append)
    a.on_request("initialize", lambda params: {"protocolVersion": 1})
    a.on_request("session/new", lambda params: {"sessionId": "s-1"})
    notified: list[Any] = []
    a.on_notification("session/cancel", notified.append)
    new = '{"jsonrpc":"2.0","id":NN,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}'
    assert not a.initialized

    async def main() -> None:
        reader = asyncio.StreamReader()
        running = asyncio.ensure_future(a.run(reader))
        reader.feed_data(new.replace("NN", "1").encode() + b"\n")
        reader.feed_data(b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}\n')
        await asyncio.sleep(0.01)
        reader.feed_data(b'{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}\n')
        await asyncio.sleep(0.01)
        reader.feed_data(new.replace("NN", "3").encode() + b"\n")
        reader.feed_eof()
        await running

    asyncio.run(main())
    assert a.initialized
    assert sent[0] == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {
            "code": -32600,
            "message": "`session/new` before `initialize`: the connection is not initialized (at /method)",
            "data": {"pointer": "/method"},
        },
    }
    assert [invalid[0].kind] == ["not_initialized"] and len(invalid) == 1
    assert notified == [{"sessionId": "s"}]  # a notification passes
    assert sent[1:] == [
        {"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": 1}},
        {"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s-1"}},
    ]


def test_a_request_reusing_an_unanswered_id_is_refused_and_not_answered() -> None:
    sent: list[Any] = []
    invalid: list[acp_bindings.MessageError] = []
    a = Connection(
        acp_bindings.codec("v1"), "agent", lambda line: sent.append(json.loads(line)), invalid.append, initialized=True
    )
    release = asyncio.Event()

    async def slow(params: Any) -> Any:
        await release.wait()
        return {"sessionId": params["cwd"]}

    a.on_request("session/new", slow)

    def new(rid: int, cwd: str) -> bytes:
        line = {"jsonrpc": "2.0", "id": rid, "method": "session/new", "params": {"cwd": cwd, "mcpServers": []}}
        return json.dumps(line).encode() + b"\n"

    async def main() -> None:
        reader = asyncio.StreamReader()
        running = asyncio.ensure_future(a.run(reader))
        reader.feed_data(new(5, "/first"))
        reader.feed_data(new(5, "/again"))
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.sleep(0.01)
        reader.feed_data(new(5, "/after"))  # free again once answered
        reader.feed_eof()
        await running

    asyncio.run(main())
    assert [(e.kind, e.code, e.pointer) for e in invalid] == [("duplicate_id", -32600, "/id")]
    assert "already in use by an unanswered `session/new` request" in invalid[0].message
    assert sent == [
        {"jsonrpc": "2.0", "id": 5, "result": {"sessionId": "/first"}},
        {"jsonrpc": "2.0", "id": 5, "result": {"sessionId": "/after"}},
    ]


def test_a_client_refuses_requests_until_it_has_the_answer_to_initialize() -> None:
    sent: list[Any] = []
    c = Connection(acp_bindings.codec("v1"), "client", lambda line: sent.append(json.loads(line)))
    c.on_request("fs/read_text_file", lambda params: {"content": "x"})
    read = '{"jsonrpc":"2.0","id":NN,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}'

    async def main() -> Any:
        reader = asyncio.StreamReader()
        running = asyncio.ensure_future(c.run(reader))
        answer = c.request("initialize", {"protocolVersion": 1})
        reader.feed_data(read.replace("NN", "7").encode() + b"\n")
        reader.feed_data(b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}\n')
        result = await answer
        reader.feed_data(read.replace("NN", "8").encode() + b"\n")
        reader.feed_eof()
        await running
        return result

    assert asyncio.run(main()) == {"protocolVersion": 1}
    assert sent[1]["id"] == 7 and sent[1]["error"]["code"] == -32600
    assert "before the answer to `initialize`" in sent[1]["error"]["message"]
    assert sent[2] == {"jsonrpc": "2.0", "id": 8, "result": {"content": "x"}}


def test_a_typed_handler_gets_and_returns_the_generated_types() -> None:
    sent: list[Any] = []
    a = Connection(acp_bindings.codec("v2"), "agent", lambda line: sent.append(json.loads(line)), initialized=True)
    seen: list[Any] = []

    def prompt(params: v2.PromptRequest) -> v2.PromptResponse:
        seen.append(params)
        return v2.PromptResponse(message_id="m-1")

    a.on_request("session/prompt", prompt, typed=True)
    text = '{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}'
    unknown = '{"sessionId":"s","prompt":[{"type":"_acme","x":1}]}'
    run(
        a,
        [
            '{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":' + text + "}",
            '{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":' + unknown + "}",
        ],
    )
    assert isinstance(seen[0], v2.PromptRequest) and isinstance(seen[0].prompt[0], v2.ContentBlockText)
    assert sent[0] == {"jsonrpc": "2.0", "id": 1, "result": {"messageId": "m-1"}}
    assert sent[1]["id"] == 2 and sent[1]["error"]["code"] == -32602 and len(seen) == 1


def test_the_connection_is_imported_when_first_asked_for() -> None:
    """``import acp_bindings`` leaves the connection (and asyncio) until ``Connection``,
    ``RpcError`` or ``stdio`` is asked for; ``dir`` lists them before."""
    code = (
        "import sys, acp_bindings\n"
        "before = 'acp_bindings._connection' in sys.modules\n"
        "listed = {'Connection', 'RpcError', 'stdio'} <= set(dir(acp_bindings))\n"
        "from acp_bindings import Connection\n"
        "print(before, listed, Connection.__module__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "acp_bindings._connection"]

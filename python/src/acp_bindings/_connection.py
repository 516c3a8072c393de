"""A JSON-RPC connection over newline-delimited JSON, on the careful codec (asyncio).

Each line read is decoded by :meth:`Codec.decode_message` for this side
(``"agent"`` or ``"client"``): a request goes to the handler registered for
its method (its return value is the result; a :class:`RpcError` it raises is
the error reply), a notification to its handler, a response or an error to
the request waiting for it. A line that does not decode is answered as
JSON-RPC asks (:attr:`MessageError.needs_reply`: a request, or a line that
is no message) with the error's object, and passed to ``on_invalid``; a
request of a method without a handler is answered with ``-32601``.

What the protocol asks of a side, checked as the TypeScript package's
connection checks it:

- until the connection is initialized (the agent has answered
  ``initialize``; the client has the answer), a request other than
  ``initialize`` is refused with ``-32600`` (``not_initialized``) and the
  connection stays as it was; notifications pass. ``initialized=True`` takes
  over a connection already initialized;
- a request reusing the id of one still unanswered is refused
  (``duplicate_id``, passed to ``on_invalid``, not answered: an answer with
  that id would answer the first).
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import msgspec

from acp_bindings._codec import Codec, Message, MessageError, id_key
from acp_bindings._runtime import UNSET

__all__ = ["Connection", "RpcError", "stdio"]

Handler = Callable[[Any], Any]


class RpcError(Exception):
    """A JSON-RPC error: raised by a handler to answer with it, raised by :meth:`Connection.request` when
    the peer answers with one."""

    def __init__(self, code: int, message: str, data: Any = UNSET) -> None:
        super().__init__(f"{message} ({code})")
        self.code = code
        self.message = message
        self.data = data

    def error_object(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        o: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not UNSET:
            o["data"] = self.data
        return o


class Connection:
    """One side (``side``: the side this program is) of a JSON-RPC connection.

    ``write`` takes each line to send (without its newline); :meth:`run`
    reads lines from a :class:`asyncio.StreamReader` until it ends.
    """

    def __init__(
        self,
        codec: Codec,
        side: Literal["agent", "client"],
        write: Callable[[str], None],
        on_invalid: Callable[[MessageError], None] | None = None,
        *,
        initialized: bool = False,
    ) -> None:
        self.codec = codec
        self.side: Literal["agent", "client"] = side
        self._write = write
        self._on_invalid = on_invalid
        #: The handlers by method, each with whether it takes the generated types.
        self._requests: dict[str, tuple[Handler, bool]] = {}
        self._notifications: dict[str, tuple[Handler, bool]] = {}
        #: The requests sent and not answered yet: their method and the future of their result.
        self._pending: dict[str, tuple[str, asyncio.Future[Any]]] = {}
        #: The requests received and not answered yet: their id and method.
        self._received: dict[str, tuple[Any, str]] = {}
        self._next_id = 0
        self._tasks: set[asyncio.Task[None]] = set()
        init = codec.method("initialize")
        #: The version has `initialize` and the connection is not initialized yet.
        self._gated = not initialized and init is not None and init.side == "agent"

    @property
    def initialized(self) -> bool:
        """Whether the connection is initialized (always, for a version without ``initialize``)."""
        return not self._gated

    def on_request(self, method: str, handler: Handler, *, typed: bool = False) -> None:
        """Answers requests of ``method`` with what ``handler(params)`` returns (or awaits to):
        JSON values, or the generated types. ``typed``: ``params`` in the generated types
        (:attr:`Message.typed`: ``v1.PromptRequest`` for ``session/prompt``) rather than JSON
        values; params the types cannot hold (an arm of an open union this program does not
        know) are then answered with ``-32602``."""
        self._requests[method] = (handler, typed)

    def on_notification(self, method: str, handler: Handler, *, typed: bool = False) -> None:
        """Calls ``handler(params)`` on each notification of ``method`` (``typed``: as :meth:`on_request`)."""
        self._notifications[method] = (handler, typed)

    def notify(self, method: str, params: Any) -> None:
        """Sends a notification."""
        self._send(Message("notification", method, UNSET, params))

    def request(self, method: str, params: Any) -> Awaitable[Any]:
        """Sends a request; the result, or :class:`RpcError` when the peer answers with an error."""
        self._next_id += 1
        rid = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[id_key(rid)] = (method, future)
        self._send(Message("request", method, rid, params))
        return future

    def spawn(self, work: Awaitable[None]) -> None:
        """Runs ``work`` beside the connection (a turn that goes on after its request is answered)."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def run(self, reader: asyncio.StreamReader) -> None:
        """Reads and handles lines until the input ends; then fails the requests still waiting."""
        while line := await reader.readline():
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if text.strip():
                self._receive(text)
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the connection closed before the answer"))
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _admit(self, method: str, request_id: Any) -> MessageError | None:
        """Refuses a request reusing the id of one unanswered, or coming before ``initialize``."""
        first = self._received.get(id_key(request_id))
        if first is not None:
            text = f"request id {id_key(request_id)} is already in use by an unanswered `{first[1]}` request"
            return MessageError(text, "/id", "duplicate_id", request_id)
        if self._gated and not (self.side == "agent" and method == "initialize"):
            text = (
                f"`{method}` before `initialize`: the connection is not initialized"
                if self.side == "agent"
                else f"`{method}` before the answer to `initialize`: the connection is not initialized"
            )
            return MessageError(text, "/method", "not_initialized", request_id, True)
        return None

    def _receive(self, text: str) -> None:
        answers = self._pending.get
        try:
            m = self.codec.decode_message(
                text, lambda i: (answers(id_key(i)) or (None,))[0], side=self.side, admit=self._admit
            ).value
        except MessageError as e:
            if e.needs_reply:
                self._send(Message("error", None, e.id, error=e.error_object()))
            if self._on_invalid is not None:
                self._on_invalid(e)
            return
        if m.kind == "request":
            self._received[id_key(m.id)] = (m.id, m.method or "")
            self.spawn(self._answer(m))
        elif m.kind == "notification":
            handler = self._notifications.get(m.method or "")
            if handler is not None:
                self.spawn(self._call(handler, m))
        else:
            _, future = self._pending.pop(id_key(m.id), (None, None))
            if future is not None and not future.done():
                if m.kind == "response":
                    if m.method == "initialize" and self.side == "client":
                        self._gated = False
                    future.set_result(m.result)
                else:
                    err = m.error if isinstance(m.error, dict) else {}
                    code, text = err.get("code", -32603), str(err.get("message", ""))
                    future.set_exception(RpcError(code, text, err.get("data", UNSET)))

    async def _answer(self, m: Message) -> None:
        handler = self._requests.get(m.method or "")
        try:
            if handler is None:
                raise RpcError(-32601, f"method not found: {m.method}")
            result = await self._call(handler, m)
        except RpcError as e:
            self._reply(m, Message("error", None, m.id, error=e.error_object()))
            return
        except msgspec.ValidationError as e:  # a typed handler's params the types cannot hold
            error = {"code": -32602, "message": f"the params do not fit this program's types: {e}"}
            self._reply(m, Message("error", None, m.id, error=error))
            return
        except Exception as e:  # a handler's bug is the peer's internal error, not the end of the connection
            print(f"acp_bindings: the handler of {m.method} failed: {e!r}", file=sys.stderr)
            self._reply(m, Message("error", None, m.id, error={"code": -32603, "message": "internal error"}))
            return
        if m.method == "initialize" and self.side == "agent":
            self._gated = False
        self._reply(m, Message("response", m.method, m.id, result=result))

    def _reply(self, request: Message, answer: Message) -> None:
        """Answers a request received: its id is free again."""
        self._received.pop(id_key(request.id), None)
        self._send(answer)

    @staticmethod
    async def _call(handler: tuple[Handler, bool], m: Message) -> Any:
        call, typed = handler
        result = call(m.typed if typed else m.params)
        return await result if inspect.isawaitable(result) else result

    def _send(self, m: Message) -> None:
        self._write(self.codec.encode_message(m))


async def stdio() -> tuple[asyncio.StreamReader, Callable[[str], None]]:
    """Standard input as a stream reader, and a writer of lines to standard output."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def write(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return reader, write

"""Agent Client Protocol (ACP) types, generated from the protocol's JSON Schema.

``acp_bindings.v1`` and ``acp_bindings.v2`` hold the stable schemas' types;
``acp_bindings.unstable.v1`` and ``acp_bindings.unstable.v2`` the unstable
schemas' (every stable type and what the unstable schema adds or changes).
Each object is a msgspec ``Struct``: an optional property is ``UNSET`` when
omitted, so the three states of a v2 patch field (omitted, ``None``, a value)
stay apart through decoding and encoding.

``parse`` reads JSON text as the Rust crate does: a repeated member name, a
lone surrogate escape, a number out of range and nesting past 127 levels are
errors (``DecodeError``, with serde_json's message and position for broken
text); ``syntax_error`` says what the crate says of a line that is not JSON.

``codec("v2")`` is the careful decoder of a schema, by the same tables as the
Rust crate and the TypeScript package: it decodes any definition by name to
JSON values (``decode``), reporting what the schema's lenient rules dropped
or defaulted (``Report``) and keeping what it does not name, writes them
back as they came (``encode``), and decodes JSON-RPC messages by method
(``decode_message``, errors as ``MessageError`` with their JSON-RPC code),
each message's payload also in the generated types (``Message.typed``) and
as its method's dispatch class (``Codec.dispatch``: ``v2.RequestToAgent``,
``v2.NotificationToClient`` and the rest, the crate's names).
``session_reducer()`` folds a v2 ``session/update`` stream into the state of
a session. ``python -m acp_bindings`` runs the ``check-messages`` and
``replay`` commands of the Rust ``acp-tools``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from acp_bindings._codec import (
    ERROR_CODES,
    Codec,
    Message,
    MessageError,
    MessageErrorKind,
    codec,
    session_reducer,
)
from acp_bindings._decode import Decoded, Report, ReportRule, UnknownArmObject, is_known
from acp_bindings._json import DecodeError, parse, syntax_error
from acp_bindings._runtime import (
    UNSET,
    ExtensionNotification,
    ExtensionRequest,
    ExtensionResponse,
    UnknownArm,
    UnsetType,
)
from acp_bindings._session import SessionReducer, apply_patch, creating_patch, from_patch, merge_by_key
from acp_bindings._words import Wording

if TYPE_CHECKING:
    from acp_bindings._connection import Connection, RpcError, stdio

#: Names whose module is imported when first asked for: the connection brings in asyncio, about a
#: fifth of the package's import time, which the CLI and a codec alone do not need.
_LAZY = {
    "Connection": "acp_bindings._connection",
    "RpcError": "acp_bindings._connection",
    "stdio": "acp_bindings._connection",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "ERROR_CODES",
    "UNSET",
    "Codec",
    "Connection",
    "DecodeError",
    "Decoded",
    "ExtensionNotification",
    "ExtensionRequest",
    "ExtensionResponse",
    "Message",
    "MessageError",
    "MessageErrorKind",
    "Report",
    "ReportRule",
    "RpcError",
    "SessionReducer",
    "UnknownArm",
    "UnknownArmObject",
    "UnsetType",
    "Wording",
    "apply_patch",
    "codec",
    "creating_patch",
    "from_patch",
    "is_known",
    "merge_by_key",
    "parse",
    "session_reducer",
    "stdio",
    "syntax_error",
]

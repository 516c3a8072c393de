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
"""

from acp_bindings._json import DecodeError, parse, syntax_error
from acp_bindings._runtime import UNSET, UnknownArm, UnsetType

__all__ = ["UNSET", "DecodeError", "UnknownArm", "UnsetType", "parse", "syntax_error"]

"""Agent Client Protocol (ACP) types, generated from the protocol's JSON Schema.

``acp_bindings.v1`` and ``acp_bindings.v2`` hold the stable schemas' types;
``acp_bindings.unstable.v1`` and ``acp_bindings.unstable.v2`` the unstable
schemas' (every stable type and what the unstable schema adds or changes).
Each object is a msgspec ``Struct``: an optional property is ``UNSET`` when
omitted, so the three states of a v2 patch field (omitted, ``None``, a value)
stay apart through decoding and encoding.
"""

from acp_bindings._runtime import UNSET, UnknownArm, UnsetType

__all__ = ["UNSET", "UnknownArm", "UnsetType"]

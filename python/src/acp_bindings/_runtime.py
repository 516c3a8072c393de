"""What the generated modules name besides msgspec: the unknown arm of an open union; and the
messages of extension methods, which :meth:`acp_bindings.Codec.dispatch` gives beside the
generated dispatch classes."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, Struct, UnsetType

__all__ = ["UNSET", "ExtensionNotification", "ExtensionRequest", "ExtensionResponse", "UnknownArm", "UnsetType"]


class UnknownArm:
    """An arm of an open union that this version does not define.

    ``tag`` is its discriminator's value and ``members`` every member of the
    object as it came, the discriminator included, in order, so that it is
    written back unchanged.
    """

    __slots__ = ("members", "tag")

    def __init__(self, tag: str, members: dict[str, Any]) -> None:
        self.tag = tag
        self.members = members

    def __repr__(self) -> str:
        return f"UnknownArm(tag={self.tag!r}, members={self.members!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnknownArm) and (self.tag, self.members) == (other.tag, other.members)

    __hash__ = None  # type: ignore[assignment]


class ExtensionRequest(Struct, kw_only=True, frozen=True):
    """A request of an extension method (``_vendor/...``): its id, and its params as JSON values
    (``UNSET`` when omitted)."""

    method: str
    id: Any
    params: Any = UNSET


class ExtensionNotification(Struct, kw_only=True, frozen=True):
    """A notification of an extension method: its params as JSON values (``UNSET`` when omitted)."""

    method: str
    params: Any = UNSET


class ExtensionResponse(Struct, kw_only=True, frozen=True):
    """The response to a request of an extension method: its id and its result as JSON values."""

    method: str
    id: Any
    result: Any

"""What the generated modules name besides msgspec: the unknown arm of an open union."""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, UnsetType

__all__ = ["UNSET", "UnknownArm", "UnsetType"]


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

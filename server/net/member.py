"""A socket as the rooms see it: the small protocol between the rooms and the sockets.

The room logic (:mod:`server.rooms`) joins, seats, snapshots and removes a member through
this and nothing else; :class:`server.net.session.Conn` is the one implementation, and the
rooms never import it, so the socket's framing, rate limit and dispatch can change without
the rooms knowing.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from .hub import Listener


@runtime_checkable
class Member(Listener, Protocol):
    """A client's socket in (or on its way into) a room.

    Attributes:
        name, token: the player's name and session token, once identified.
        address: the client's address as the limits count it (:mod:`server.net.limits`).
        syncing: while a snapshot is being built, the events held for after it (seq, text,
            delay in ms); None otherwise.
    """

    name: str
    token: str
    address: str
    syncing: list[tuple[int, str, int]] | None

    def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""

    def drop_held(self) -> None:
        """Forget the events held for later (the socket leaves the room they came from)."""

    def is_open(self) -> bool:
        """Whether the socket can still be written to."""

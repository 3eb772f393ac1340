"""What an arena uses of its instance, as narrow protocols: the instance's state
(:class:`Host`) and the rooms of its races (:class:`Races`).

The full context (:class:`server.context.Context`) is a :class:`Host` as it is;
:class:`.races.RacesOf` is the rooms' answer on it. An arena's decisions (who is seated,
paired, brought in, taken back to the pool, what a race records, when the arena closes and
with which podium) depend on these and nothing else, so a test decides them with small
fakes and no server.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from ..context import Kept
from ..quick import rooms
from ..store.reviews import Reviews
from ..store.store import RoomRead

T = TypeVar("T")


class Host(rooms.Host, Protocol):
    """What an arena uses of its instance: a pairing's (:class:`server.quick.rooms.Host`),
    the review's outcomes, and what it keeps of each arena (:data:`.standings.KNOWN`)."""

    reviews: Reviews

    def kept(self, key: Kept[T]) -> T:
        """What the concern of ``key`` keeps on this instance (made on first use)."""


class Races(rooms.PairedRooms, Protocol):
    """What an arena asks of the rooms (a pairing's, :class:`server.quick.rooms.PairedRooms`)
    and of the review of a recorded race's finishers."""

    def review(
        self, arena: str, room: str, round_: int, standing: dict[str, Any], read: RoomRead
    ) -> None:
        """In the background: review the race's finishers, then amend its record by what the
        review decided (:func:`.races.amend`)."""

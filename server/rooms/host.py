"""What the rooms use of their instance, as one protocol (:class:`Host`).

A room's membership (who sits, watches, comes back, leaves) and its rounds (the countdown,
the race's limits, give-ups, rematches, the janitor's deadlines) reach the store, this
instance's sockets of the room (the hub and the room cache), the boards, the daily's deals
and watchers, the whereabouts of seated players, and, when a race ends or is left, the
rating and finish paths (:class:`server.ranked.ratings.Rating`,
:class:`server.ranked.finish.Finishing`). That is most of an instance, and this says which
part: a fake of it decides a room's rounds without a server, and
:class:`server.context.Context` is one as it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Coroutine
from typing import Any, Protocol

from ..cache import BoardCache, RoomCache
from ..net.hub import Hub
from ..ranked.finish import Finishing
from ..ranked.ratings import Rating
from ..store.store import Store
from ..whereabouts import Whereabouts


class Host(Rating, Finishing, Protocol):
    """What a room's membership and rounds use of their instance."""

    @property
    def store(self) -> Store:
        """The rooms' store."""

    @property
    def hub(self) -> Hub:
        """The fan-out of room events to this instance's sockets."""

    @property
    def rooms(self) -> RoomCache:
        """The rooms this instance serves, as it last saw them."""

    @property
    def boards(self) -> BoardCache:
        """The boards this instance keeps of its players."""

    @property
    def whereabouts(self) -> Whereabouts:
        """Where this instance's sockets are seated (queues, arenas)."""

    @property
    def sockets_by_address(self) -> Counter[str]:
        """This instance's open sockets, by client address."""

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run ``coro`` in the background (kept until it ends, logged if it fails)."""

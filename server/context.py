"""What a handler may use: the narrow view of one server instance.

Handlers, the session and the room logic depend on this, never on the application that
wires it together (:mod:`server.app`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from .cache import BoardCache, RoomCache
from .daily.services import Daily
from .metrics import Metrics
from .net.hub import Hub
from .net.limits import TokenBuckets
from .quiet import Quiet
from .records.services import Records
from .review.reviewer import Reviewer
from .settings import Settings
from .solver_pool import SolverPool
from .store.keys import Keys
from .store.reviews import Reviews
from .store.store import Store
from .transport.clients import Client
from .whereabouts import Whereabouts

log = logging.getLogger(__name__)
QUIET = Quiet(log)

T = TypeVar("T")


class Kept(Generic[T]):
    """The key of what one concern keeps on an instance beside the rooms (an arena's
    standings, say), with the type it keeps: :meth:`Context.kept` makes it on first use.

    The context names no concern above it (:mod:`server.arena` defines its own key), and
    every use is typed.
    """

    __slots__ = ("make", "name")

    def __init__(self, name: str, make: Callable[[], T]) -> None:
        self.name = name
        self.make = make

    def __repr__(self) -> str:
        return f"Kept({self.name!r})"


@dataclass(slots=True)
class Context:
    """One instance's settings, stores, caches, fan-out and counters.

    Attributes:
        settings: the instance's settings.
        redis: the shared asyncio Redis client (``decode_responses=True``).
        keys: every key name, under the instance's prefix.
        store: the room operations.
        hub: the fan-out of room events to this instance's sockets.
        rooms, boards: what this instance keeps of the rooms and boards it serves.
        daily: the days' deals, leaderboards and their watchers.
        records: replays, race history, solo statistics, perfect games.
        reviews: review outcomes, held finishes, bars, the operator's log.
        reviewer: scores ranked finishes in the solver's processes.
        metrics: the counters behind ``/metrics``.
        solver: the solver's processes, where hints run.
        instance_id: names this instance in events it publishes.
        embedded: whether Redis is the instance's own embedded one.
    """

    settings: Settings
    redis: Client
    keys: Keys
    store: Store
    hub: Hub
    rooms: RoomCache
    boards: BoardCache
    daily: Daily
    records: Records
    reviews: Reviews
    reviewer: Reviewer
    metrics: Metrics
    solver: SolverPool
    instance_id: str
    embedded: bool = False
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    #: Open websockets by client address (as :func:`server.net.limits.bucket_key` counts).
    sockets_by_address: Counter[str] = field(default_factory=Counter)
    #: New identities by client address (made in ``build_context``).
    identities: TokenBuckets | None = None
    #: Where this instance's sockets are: the queue, an arena (a room is the socket's own).
    whereabouts: Whereabouts = field(default_factory=Whereabouts)
    #: What each concern keeps on this instance, by its :class:`Kept` key.
    _kept: dict[Kept[Any], Any] = field(default_factory=dict)
    #: Starts a bot racer in a room: (room, name, token, actions a second); set by the app
    #: once it serves (the bot is a client of this instance's own port).
    launch_bot: Callable[[str, str, str, float], None] | None = None

    def kept(self, key: Kept[T]) -> T:
        """What the concern of ``key`` keeps on this instance (made on first use)."""
        found = self._kept.get(key)
        if found is None:
            found = self._kept[key] = key.make()
        return cast(T, found)

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background, keeping a reference and logging failures."""
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    async def stop_tasks(self) -> None:
        """Cancel the background tasks, again and again until every one has ended.

        One cancellation is not always enough: one that arrives while redis-py waits for a
        connection can come out as a ``RedisError``, which a loop that outlives Redis
        outages catches, and then sleeps on. Left to ``asyncio.run``'s single cancellation,
        a worker stopped at such a moment waited in its shutdown for good.
        """
        while pending := {task for task in self.tasks if not task.done()}:
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=0.5)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            # Throttled: while Redis is gone every background write fails the same way.
            QUIET.failure(type(exc).__name__, "background task failed: %r", exc, exc=exc)

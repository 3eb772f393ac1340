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
from typing import Any

from .cache import BoardCache, RoomCache
from .daily.services import Daily
from .metrics import Metrics
from .net.hub import Hub
from .net.limits import TokenBuckets
from .quiet import Quiet
from .settings import Settings
from .solver_pool import SolverPool
from .store.keys import Keys
from .store.store import Store

log = logging.getLogger(__name__)
QUIET = Quiet(log)


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
        daily: leaderboards, replays, history and leaderboard watchers.
        metrics: the counters behind ``/metrics``.
        solver: the solver's processes, where hints run.
        instance_id: names this instance in events it publishes.
        embedded: whether Redis is the instance's own embedded one.
    """

    settings: Settings
    redis: Any
    keys: Keys
    store: Store
    hub: Hub
    rooms: RoomCache
    boards: BoardCache
    daily: Daily
    metrics: Metrics
    solver: SolverPool
    instance_id: str
    embedded: bool = False
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    #: Open websockets by client address (as :func:`server.net.limits.bucket_key` counts).
    sockets_by_address: Counter[str] = field(default_factory=Counter)
    #: New identities by client address (made in ``build_context``).
    identities: TokenBuckets | None = None
    #: This instance's sockets in the quick-race queue, by player id
    #: (:class:`server.rooms.waiting.Waiting`).
    waiting: dict[str, Any] = field(default_factory=dict)
    #: This instance's sockets seated in an arena, by player id
    #: (:class:`server.rooms.arena_seats.Seat`), and the sockets watching each arena.
    arena_seats: dict[str, Any] = field(default_factory=dict)
    arena_watchers: dict[str, set[Any]] = field(default_factory=dict)
    #: What this instance last worked out of each arena (:mod:`server.rooms.arena`).
    arena_cache: dict[str, Any] = field(default_factory=dict)
    #: Starts a bot racer in a room: (room, name, token, actions a second); set by the app
    #: once it serves (the bot is a client of this instance's own port).
    launch_bot: Callable[[str, str, str, float], None] | None = None

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

"""The daily, replay, leaderboard and history services of one server instance.

They are made on first use from the app's Redis client, with settings from the
environment:

- ``SEAHAVEN_KEY_PREFIX``: put before every key and channel of these services (default
  empty; tests use a unique prefix so that they share a Redis safely).
- ``SEAHAVEN_MIN_MS_PER_ACTION``: the physical floor a ranked win must respect
  (default :data:`server.replays.MIN_MS_PER_ACTION`).
- ``SEAHAVEN_REPLAY_TTL``: seconds an unranked replay is kept (default 30 days; replays
  behind a leaderboard entry are kept for good).
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .history import History
from .leaderboard import Leaderboard
from .replays import MIN_MS_PER_ACTION, ReplayStore

if TYPE_CHECKING:
    from .app import App
    from .session import Conn


@dataclass(slots=True)
class Services:
    """What the daily and replay features keep per instance.

    Attributes:
        leaderboard, replays, history: the Redis-backed stores.
        prefix: the key prefix they share.
        watchers: sockets watching each (date, kind) leaderboard on this instance.
        listener: the task reading leaderboard announcements, once started.
    """

    leaderboard: Leaderboard
    replays: ReplayStore
    history: History
    prefix: str
    watchers: dict[tuple[str, str], set[Conn]] = field(default_factory=dict)
    listener: Any = None

    def daily_room_key(self, room: str) -> str:
        """``{date, kind}`` of a daily game's room."""
        return f"{self.prefix}daily:room:{room}"


_BY_APP: weakref.WeakKeyDictionary[App, Services] = weakref.WeakKeyDictionary()


def services(app: App) -> Services:
    """The services of an instance (made on first use)."""
    found = _BY_APP.get(app)
    if found is None:
        env = os.environ.get
        prefix = env("SEAHAVEN_KEY_PREFIX", "")
        floor = int(env("SEAHAVEN_MIN_MS_PER_ACTION", str(MIN_MS_PER_ACTION)))
        ttl = int(env("SEAHAVEN_REPLAY_TTL", str(30 * 24 * 3600)))
        found = Services(
            leaderboard=Leaderboard(app.redis, prefix, floor),
            replays=ReplayStore(app.redis, prefix, ttl),
            history=History(app.redis, prefix),
            prefix=prefix,
        )
        _BY_APP[app] = found
    return found

"""The daily challenge's stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store.keys import Keys
from .deals import DailyDeals
from .history import History
from .leaderboard import Leaderboard
from .pace import Pace
from .replays import ReplayStore
from .watchers import Watchers


@dataclass(slots=True)
class Daily:
    """The days' deals, leaderboards, replays, race history and leaderboard watchers.

    Attributes:
        deals, leaderboard, replays, history: the Redis-backed stores.
        watchers: the sockets of this instance watching a day's leaderboard.
    """

    deals: DailyDeals
    leaderboard: Leaderboard
    replays: ReplayStore
    history: History
    watchers: Watchers = field(default_factory=Watchers)

    @classmethod
    def build(
        cls,
        redis: Any,
        keys: Keys,
        min_ms_per_action: int,
        replay_ttl: int,
        pace: Pace,
        keep_s: int,
        secret: str | None = None,
    ) -> Daily:
        """The stores on one Redis under one key prefix; what is kept lives ``keep_s``;
        ``secret`` draws the days' deals (None: no daily is served)."""
        deals = DailyDeals(redis, keys, secret, keep_s)
        return cls(
            deals=deals,
            leaderboard=Leaderboard(redis, keys, min_ms_per_action, pace, keep_s, deals=deals),
            replays=ReplayStore(redis, keys, replay_ttl),
            history=History(redis, keys, keep_s),
        )

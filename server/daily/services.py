"""The daily challenge's stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store.keys import Keys
from .history import History
from .leaderboard import Leaderboard
from .pace import Pace
from .replays import ReplayStore
from .solo_stats import SoloStats
from .watchers import Watchers


@dataclass(slots=True)
class Daily:
    """Leaderboards, replays, race history, solo statistics and leaderboard watchers.

    Attributes:
        leaderboard, replays, history, solo: the Redis-backed stores.
        watchers: the sockets of this instance watching a day's leaderboard.
    """

    leaderboard: Leaderboard
    replays: ReplayStore
    history: History
    solo: SoloStats
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
    ) -> Daily:
        """The stores on one Redis under one key prefix; what is kept lives ``keep_s``."""
        return cls(
            leaderboard=Leaderboard(redis, keys, min_ms_per_action, pace, keep_s),
            replays=ReplayStore(redis, keys, replay_ttl),
            history=History(redis, keys, keep_s),
            solo=SoloStats(redis, keys, keep_s),
        )

"""The daily challenge's stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..solver_pool import SolverPool
from ..store.keys import Keys
from ..store.ratings import Bar
from .deals import DailyDeals
from .history import History
from .holds import Holds
from .leaderboard import Leaderboard
from .pace import Pace
from .perfect import Perfects
from .replays import ReplayStore
from .reviewer import Reviewer
from .solo_stats import SoloStats
from .watchers import Watchers


@dataclass(slots=True)
class Daily:
    """The days' deals, leaderboards, replays, race history, held finishes, reviews, solo
    statistics, perfect games and leaderboard watchers.

    Attributes:
        deals, leaderboard, replays, history, holds, solo, perfect: the Redis-backed
            stores.
        reviewer: scores ranked finishes in the solver pool.
        watchers: the sockets of this instance watching a day's leaderboard.
    """

    deals: DailyDeals
    leaderboard: Leaderboard
    replays: ReplayStore
    history: History
    holds: Holds
    reviewer: Reviewer
    solo: SoloStats
    perfect: Perfects
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
        pool: SolverPool | None = None,
        hold_agreement: float = 0.9,
        min_scored: int = 20,
        bar: Bar | None = None,
    ) -> Daily:
        """The stores on one Redis under one key prefix; what is kept lives ``keep_s``;
        ``secret`` draws the days' deals (None: no daily is served); reviews run in
        ``pool`` (None: a thread, for tools); ``bar`` keeps provisional players off the
        public boards (None: everyone is established)."""
        deals = DailyDeals(redis, keys, secret, keep_s)
        leaderboard = Leaderboard(
            redis, keys, min_ms_per_action, pace, keep_s, deals=deals, bar=bar
        )
        return cls(
            deals=deals,
            leaderboard=leaderboard,
            replays=ReplayStore(redis, keys, replay_ttl),
            history=History(redis, keys, keep_s),
            holds=Holds(redis, keys, leaderboard, keep_s),
            reviewer=Reviewer(pool, pace, hold_agreement, min_scored),
            solo=SoloStats(redis, keys, keep_s),
            perfect=leaderboard.perfect,
        )

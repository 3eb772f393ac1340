"""The daily challenge's stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..solver_pool import SolverPool
from ..store.keys import Keys
from .history import History
from .holds import Holds
from .leaderboard import Leaderboard
from .pace import Pace
from .replays import ReplayStore
from .reviewer import Reviewer
from .watchers import Watchers


@dataclass(slots=True)
class Daily:
    """Leaderboards, replays, race history, held finishes, reviews and leaderboard watchers.

    Attributes:
        leaderboard, replays, history, holds: the Redis-backed stores.
        reviewer: scores ranked finishes in the solver pool.
        watchers: the sockets of this instance watching a day's leaderboard.
    """

    leaderboard: Leaderboard
    replays: ReplayStore
    history: History
    holds: Holds
    reviewer: Reviewer
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
        pool: SolverPool | None = None,
        hold_agreement: float = 0.9,
        min_scored: int = 20,
    ) -> Daily:
        """The stores on one Redis under one key prefix; what is kept lives ``keep_s``;
        reviews run in ``pool`` (None: a thread, for tools)."""
        leaderboard = Leaderboard(redis, keys, min_ms_per_action, pace, keep_s)
        return cls(
            leaderboard=leaderboard,
            replays=ReplayStore(redis, keys, replay_ttl),
            history=History(redis, keys, keep_s),
            holds=Holds(redis, keys, leaderboard, keep_s),
            reviewer=Reviewer(pool, pace, hold_agreement, min_scored),
        )

"""The daily challenge's stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..records.perfect import Perfects
from ..store.keys import Keys
from ..store.ratings import Bar
from .deals import DailyDeals
from .leaderboard import Leaderboard
from .watchers import Watchers


@dataclass(slots=True)
class Daily:
    """The days' deals, their leaderboards and the sockets watching them.

    Attributes:
        deals, leaderboard: the Redis-backed stores.
        watchers: the sockets of this instance watching a day's leaderboard.
    """

    deals: DailyDeals
    leaderboard: Leaderboard
    watchers: Watchers = field(default_factory=Watchers)

    @classmethod
    def build(
        cls,
        redis: Any,
        keys: Keys,
        min_ms_per_action: int,
        keep_s: int,
        perfect: Perfects,
        secret: str | None = None,
        bar: Bar | None = None,
    ) -> Daily:
        """The stores on one Redis under one key prefix; what is kept lives ``keep_s``;
        ``secret`` draws the days' deals (None: no daily is served); a perfect daily
        counts in ``perfect``; ``bar`` keeps provisional players off the public boards
        (None: everyone is established)."""
        deals = DailyDeals(redis, keys, secret, keep_s)
        leaderboard = Leaderboard(
            redis, keys, min_ms_per_action, keep_s, deals=deals, bar=bar, perfect=perfect
        )
        return cls(deals=deals, leaderboard=leaderboard)

"""The records' stores of one server instance, made from its Redis and settings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store.keys import Keys
from .history import History
from .perfect import Perfects
from .replays import ReplayStore
from .solo_stats import SoloStats


@dataclass(frozen=True, slots=True)
class Records:
    """What outlives a game: replays, race history, solo statistics, perfect games.

    Attributes:
        replays, history, solo, perfect: the Redis-backed stores.
    """

    replays: ReplayStore
    history: History
    solo: SoloStats
    perfect: Perfects

    @classmethod
    def build(cls, redis: Any, keys: Keys, replay_ttl: int, keep_s: int) -> Records:
        """The stores on one Redis under one key prefix: a replay lives ``replay_ttl``
        unless kept longer, the rest ``keep_s`` after its last change."""
        return cls(
            replays=ReplayStore(redis, keys, replay_ttl),
            history=History(redis, keys, keep_s),
            solo=SoloStats(redis, keys, keep_s),
            perfect=Perfects(redis, keys, keep_s),
        )

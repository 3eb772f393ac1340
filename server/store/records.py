"""The players' records in Redis: race history, solo statistics, perfect games, replays.

The keys (named in :mod:`server.store.keys`): ``player:{PID}:races``, ``:recent`` and
``:counted`` (the race history, written together by ``lua/history_record.lua``),
``player:{PID}:solo:CELLS`` (a variant's solo statistics, ``lua/solo_record.lua``),
``player:{PID}:perfect`` and ``replay:ID``. What a record holds and means is
:mod:`server.records`'s; this module only reads and writes.
"""

from __future__ import annotations

from typing import Any

from .keys import Keys
from .scripts import script


class RecordStore:
    """The records' keys on one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names.
    """

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys

    # -- race history ---------------------------------------------------------------------

    def _history(self, pid: str) -> list[str]:
        k = self.keys
        return [k.player_races(pid), k.player_recent(pid), k.player_counted(pid)]

    async def count_race(self, pid: str, args: list[str | int]) -> bool:
        """Count one race result once (``lua/history_record.lua``, ``args`` as its header
        says); False when it was counted before."""
        return bool(await script(self.redis, "history_record")(keys=self._history(pid), args=args))

    async def races(self, pid: str, recent: int) -> tuple[dict[str, str], list[str]]:
        """A player's race counts and their ``recent`` latest results (JSON)."""
        races_key, recent_key, _ = self._history(pid)
        fields = await self.redis.hgetall(races_key)
        latest = await self.redis.lrange(recent_key, 0, recent - 1)
        return dict(fields), [str(x) for x in latest]

    # -- solo statistics ------------------------------------------------------------------

    async def count_solo(self, pid: str, cells: int, args: list[str | int]) -> list[int]:
        """Count one solo game once (``lua/solo_record.lua``, ``args`` as its header says):
        its flags (counted, best time, fewest moves, best streak)."""
        key = self.keys.solo_stats(pid, cells)
        out = await script(self.redis, "solo_record")(keys=[key], args=args)
        return [int(x) for x in out]

    async def solo(self, pid: str, cells: int) -> dict[str, str]:
        """A player's solo statistics of one variant, as stored."""
        fields = await self.redis.hgetall(self.keys.solo_stats(pid, cells))
        return {str(k): str(v) for k, v in fields.items()}

    # -- perfect games --------------------------------------------------------------------

    async def add_perfect(self, pid: str, mode: str, by: int, keep_s: int) -> None:
        """Count ``by`` perfect games of ``mode`` (never below 0)."""
        key = self.keys.player_perfect(pid)
        if await self.redis.hincrby(key, mode, by) < 0:
            await self.redis.hset(key, mode, 0)
        await self.redis.expire(key, keep_s)

    async def perfects(self, pid: str) -> dict[str, str]:
        """A player's perfect games per mode, as stored."""
        return dict(await self.redis.hgetall(self.keys.player_perfect(pid)))

    # -- replays --------------------------------------------------------------------------

    async def save_replay(self, replay_id: str, text: str, ttl: int) -> bool:
        """Store a replay once (a second save of the same id changes nothing)."""
        return bool(await self.redis.set(self.keys.replay(replay_id), text, nx=True, ex=ttl))

    async def keep_replay(self, replay_id: str, seconds: int) -> None:
        """Keep a replay ``seconds`` from now."""
        await self.redis.expire(self.keys.replay(replay_id), seconds)

    async def replay(self, replay_id: str) -> str | None:
        """A stored replay's JSON, or None."""
        text = await self.redis.get(self.keys.replay(replay_id))
        return None if text is None else str(text)

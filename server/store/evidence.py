"""The evidence of ranked finishes in Redis: each player's latest records, their score, the
flagged players, who of one address finished which deal, the day's field and which few
identities' lines reached each table of a deal (``review:evidence:{P}``,
``review:suspects``, ``review:flagged``, ``review:practice:ID:{A}``, ``review:field:D:K``,
``review:tables:ID``; docs/server.md).

What the evidence means and decides is :mod:`server.fairplay`'s; this module only
reads and writes. All of it is the operator's: no player-facing route reads it.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from ..clock import now_ms
from .keys import Keys

#: Records kept per player (the score reads the newest ``evidence_window`` of them).
KEPT: Final = 20
#: Players the suspects list keeps (the lowest scores drop off).
MAX_SUSPECTS: Final = 50_000
#: Identities of one address whose lines of one deal are kept, and for how long.
PRACTICE_MAX: Final = 8
PRACTICE_KEPT_S: Final = 3 * 86_400
#: Finishers a day's field keeps at most, and for how long.
FIELD_MAX: Final = 2_000
FIELD_KEPT_S: Final = 2 * 86_400
#: Tables a deal's index keeps at most (past it, new tables go unindexed), and how long.
TABLES_MAX: Final = 20_000
TABLES_KEPT_S: Final = 3 * 86_400
#: What an index entry holds once more identities than its cap reached the table.
COMMON: Final = "*"


class EvidenceStore:
    """Evidence records, scores and flags on one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names.
        keep_s: how long a player's records are kept after their latest.
    """

    def __init__(self, redis: Any, keys: Keys, keep_s: int) -> None:
        self.redis = redis
        self.keys = keys
        self.keep_s = keep_s

    async def add(self, pid: str, record: dict[str, Any]) -> list[dict[str, Any]]:
        """Keep a record; the player's records, newest first (at most :data:`KEPT`)."""
        key = self.keys.evidence(pid)
        await self.redis.lpush(key, json.dumps(record, separators=(",", ":")))
        await self.redis.ltrim(key, 0, KEPT - 1)
        await self.redis.expire(key, self.keep_s)
        return await self.records(pid)

    async def records(self, pid: str, limit: int = KEPT) -> list[dict[str, Any]]:
        """A player's records, newest first."""
        raw = await self.redis.lrange(self.keys.evidence(pid), 0, max(0, limit - 1))
        return [json.loads(x) for x in raw]

    async def set_score(self, pid: str, score: float) -> None:
        """Note a player's score (the suspects list's order)."""
        await self.redis.zadd(self.keys.suspects(), {pid: score})
        await self.redis.zremrangebyrank(self.keys.suspects(), 0, -MAX_SUSPECTS - 1)
        await self.redis.expire(self.keys.suspects(), self.keep_s)

    async def flag(self, pid: str, score: float, why: str) -> bool:
        """Flag a player (False: flagged already; the first reason stands)."""
        body = json.dumps({"score": score, "why": why, "at": now_ms()})
        added = bool(await self.redis.hsetnx(self.keys.flagged(), pid, body))
        await self.redis.expire(self.keys.flagged(), self.keep_s)
        return added

    async def flagged(self, pid: str) -> dict[str, Any] | None:
        """Why a player is flagged, or None."""
        text = await self.redis.hget(self.keys.flagged(), pid)
        return None if text is None else cast(dict[str, Any], json.loads(text))

    async def flagged_among(self, pids: list[str]) -> dict[str, dict[str, Any]]:
        """The flags of these players (one call)."""
        if not pids:
            return {}
        raw = await self.redis.hmget(self.keys.flagged(), pids)
        return {p: json.loads(t) for p, t in zip(pids, raw, strict=True) if t is not None}

    async def unflag(self, pid: str) -> bool:
        """Lift a player's flag and forget their records (a fresh start); False: not
        flagged."""
        lifted = bool(await self.redis.hdel(self.keys.flagged(), pid))
        if lifted:
            await self.redis.delete(self.keys.evidence(pid))
            await self.redis.zadd(self.keys.suspects(), {pid: 0})
        return lifted

    async def suspects_page(self, limit: int, after: str | None) -> list[tuple[str, float]]:
        """Players with a score above 0, the highest first: at most ``limit`` of them, from
        the one after player ``after`` in that order (None, or a player no longer listed:
        from the top)."""
        key = self.keys.suspects()
        start = 0
        if after is not None:
            rank = await self.redis.zrevrank(key, after)
            start = 0 if rank is None else int(rank) + 1
        pairs = await self.redis.zrevrange(key, start, start + limit - 1, withscores=True)
        return [(str(pid), float(score)) for pid, score in pairs if float(score) > 0]

    async def note_practice(self, code: str, mark: str, pid: str, replay: str) -> None:
        """Note that an identity of an address finished a deal (its line in ``replay``)."""
        key = self.keys.practice(code, mark)
        if int(await self.redis.hlen(key)) < PRACTICE_MAX or await self.redis.hexists(key, pid):
            await self.redis.hset(key, pid, replay)
        await self.redis.expire(key, PRACTICE_KEPT_S)

    async def practice(self, code: str, mark: str) -> dict[str, str]:
        """Who of an address finished a deal: player id -> replay id (a few at most)."""
        found = cast(
            dict[str, str],
            await self.redis.hgetall(self.keys.practice(code, mark)),
        )
        return dict(list(found.items())[:PRACTICE_MAX])

    async def note_field(
        self, date: str, kind: str, pid: str, time_ms: int, agreement: float | None
    ) -> None:
        """Count a finisher of a day's kind in its field (their time, solver agreement)."""
        key = self.keys.review_field(date, kind)
        if int(await self.redis.hlen(key)) < FIELD_MAX or await self.redis.hexists(key, pid):
            await self.redis.hset(key, pid, json.dumps([time_ms, agreement]))
        await self.redis.expire(key, FIELD_KEPT_S)

    async def field(self, date: str, kind: str) -> dict[str, tuple[int, float | None]]:
        """A day's field: player id -> (time ms, solver agreement or None)."""
        raw = cast(dict[str, str], await self.redis.hgetall(self.keys.review_field(date, kind)))
        out: dict[str, tuple[int, float | None]] = {}
        for pid, text in raw.items():
            time_ms, agreement = json.loads(text)
            out[pid] = (int(time_ms), None if agreement is None else float(agreement))
        return out

    async def note_tables(self, code: str, pid: str, tables: list[str], cap: int) -> None:
        """Index the tables a player's won line of a deal reached: each table keeps the ids
        of up to ``cap`` identities, then becomes :data:`COMMON` (a race between two
        writers may lose one id: the index is evidence, not a ledger)."""
        key = self.keys.review_tables(code)
        tables = list(dict.fromkeys(tables))
        if not tables:
            return
        now = await self.redis.hmget(key, tables)
        room = TABLES_MAX - int(await self.redis.hlen(key))
        updates: dict[str, str] = {}
        for table, text in zip(tables, now, strict=True):
            ids = text.split(",") if text else []
            if text == COMMON or pid in ids:
                continue
            if text is None:
                if room <= 0:
                    continue
                room -= 1
            updates[table] = COMMON if len(ids) >= cap else ",".join([*ids, pid])
        if updates:
            await self.redis.hset(key, mapping=updates)
        await self.redis.expire(key, TABLES_KEPT_S)

    async def tables(self, code: str, tables: list[str]) -> list[str | None]:
        """The index's entries of these tables of a deal (None: nobody's)."""
        if not tables:
            return []
        return cast(list[str | None], await self.redis.hmget(self.keys.review_tables(code), tables))

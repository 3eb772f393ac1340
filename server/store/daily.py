"""The daily challenge in Redis: the days' certified deals, the leaderboards, the ranked
attempts, each player's streak days, and the channel that announces a board's change.

The keys (named in :mod:`server.store.keys`; their meaning is :mod:`server.daily.leaderboard`'s
docstring): ``daily:{DATE:KIND}:deal``, ``daily:{DATE:KIND}:rank``, ``:fewest``,
``:entries``, ``:attempts``, ``player:{PID}:days``, the channel ``daily:DATE:KIND:ch`` and the
certifier's lease ``daily:certifier``. What counts, ranks and shows is
:mod:`server.daily`'s; this module only reads and writes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

from ..transport import atomic
from ..transport.announcements import Announcements
from . import lease
from .keys import Keys
from .scripts import register_batch, script


class DailyStore:
    """The daily's keys on one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True`` (or a Redis Cluster's).
        keys: the key names.
    """

    def __init__(self, redis: Any, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys

    # -- the days' deals ------------------------------------------------------------------

    async def deals(self, days: list[tuple[str, str]]) -> list[str | None]:
        """The stored deal records (JSON) of ``(date, kind)`` pairs, in order (None where
        none is); one pipelined read, a key a command (they are in other slots)."""
        if not days:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for day in days:
                pipe.get(self.keys.daily_deal(*day))
            texts = await pipe.execute()
        return [None if t is None else str(t) for t in texts]

    async def keep_deal(self, date: str, kind: str, record: str, expire_at: int) -> None:
        """Write a day's deal once (``SET NX``), kept until ``expire_at`` (epoch s)."""
        await self.redis.set(self.keys.daily_deal(date, kind), record, nx=True, exat=expire_at)

    async def take_certifier(self, holder: str, ms: int) -> bool:
        """Take the certifier's lease (:mod:`server.store.lease`)."""
        return await lease.take(self.redis, self.keys.daily_certifier(), holder, ms)

    async def renew_certifier(self, holder: str, ms: int) -> bool:
        """Renew the certifier's lease; False when it is no longer ``holder``'s."""
        return await lease.renew(self.redis, self.keys.daily_certifier(), holder, ms)

    async def drop_certifier(self, holder: str) -> None:
        """Give the certifier's lease back (only if ``holder`` still holds it)."""
        await lease.drop(self.redis, self.keys.daily_certifier(), holder)

    # -- ranked attempts ------------------------------------------------------------------

    async def claim_attempt(
        self, date: str, kind: str, player_id: str, room: str, expire_at: int
    ) -> str:
        """Make ``room`` the player's ranked attempt unless one was (``lua/attempt_claim``);
        the room of the attempt."""
        held = await script(self.redis, "attempt_claim")(
            keys=[self.keys.daily_attempts(date, kind)], args=[player_id, room, expire_at]
        )
        return str(held)

    async def attempt(self, date: str, kind: str, player_id: str) -> str | None:
        """The room of the player's ranked attempt of a day and kind, or None."""
        held = await self.redis.hget(self.keys.daily_attempts(date, kind), player_id)
        return None if held is None else str(held)

    # -- entries --------------------------------------------------------------------------

    async def submit(
        self,
        date: str,
        kind: str,
        player_id: str,
        member: str,
        score: int,
        fewest: int,
        entry: str,
        keep_s: int,
    ) -> int:
        """Write an entry and both views' members (``lua/leaderboard_submit``) unless the
        player has one: its rank, or 0."""
        rank = await script(self.redis, "leaderboard_submit")(
            keys=[
                self.keys.leaderboard_rank(date, kind),
                self.keys.leaderboard_entries(date, kind),
                self.keys.leaderboard_fewest(date, kind),
            ],
            args=[player_id, member, score, entry, keep_s, fewest],
        )
        return int(rank)

    async def remove(self, date: str, kind: str, player_id: str, member: str) -> None:
        """Take an entry and its members off a day's board."""
        await self.redis.zrem(self.keys.leaderboard_rank(date, kind), member)
        await self.redis.zrem(self.keys.leaderboard_fewest(date, kind), member)
        await self.redis.hdel(self.keys.leaderboard_entries(date, kind), player_id)

    async def entry(self, date: str, kind: str, player_id: str) -> str | None:
        """A player's entry (JSON) on a day's board, or None."""
        text = await self.redis.hget(self.keys.leaderboard_entries(date, kind), player_id)
        return None if text is None else str(text)

    async def has_entry(self, date: str, kind: str, player_id: str) -> bool:
        """Whether a player has an entry on a day's board."""
        return bool(await self.redis.hexists(self.keys.leaderboard_entries(date, kind), player_id))

    async def entries(self, date: str, kind: str, pids: list[str]) -> list[str | None]:
        """The entries (JSON) of ``pids`` on a day's board, in order (None: none)."""
        if not pids:
            return []
        raw = await self.redis.hmget(self.keys.leaderboard_entries(date, kind), pids)
        return [None if t is None else str(t) for t in raw]

    async def announce(self, date: str, kind: str, player_id: str) -> None:
        """Tell every instance's watchers that a day's board changed."""
        await self.redis.publish(self.keys.leaderboard_channel(date, kind), player_id)

    def announcements(self, on_channel: Callable[[str], Awaitable[None]]) -> Announcements:
        """A reader of every board's announcements, calling ``on_channel`` with the
        channel of each (:meth:`Announcements.start` starts it)."""
        return Announcements(self.redis, self.keys.leaderboard_pattern(), on_channel)

    # -- views ----------------------------------------------------------------------------

    def view(self, date: str, kind: str, by: str) -> str:
        """The sorted set of a view of a day's board (``time`` or ``actions``)."""
        if by == "actions":
            return self.keys.leaderboard_fewest(date, kind)
        return self.keys.leaderboard_rank(date, kind)

    async def finishers(self, date: str, kind: str) -> int:
        """How many players are on a day's board."""
        return int(await self.redis.zcard(self.keys.leaderboard_rank(date, kind)))

    async def members(self, date: str, kind: str, by: str, start: int, stop: int) -> list[str]:
        """The members of a view from 0-based ``start`` to ``stop`` inclusive."""
        found = await self.redis.zrange(self.view(date, kind, by), start, stop)
        return cast(list[str], found)

    async def lead_score(self, date: str, kind: str) -> float | None:
        """The score of the first entry of a day's fastest view, or None on an empty board."""
        found = await self.redis.zrange(self.view(date, kind, "time"), 0, 0, withscores=True)
        return float(found[0][1]) if found else None

    async def rank_of(self, date: str, kind: str, by: str, member: str) -> int | None:
        """A member's 0-based place in a view, or None."""
        found = await self.redis.zrank(self.view(date, kind, by), member)
        return None if found is None else int(found)

    async def ranks_of(self, date: str, kind: str, by: str, members: list[str]) -> list[int | None]:
        """Each member's 0-based place in a view (None: not there), one pipelined read."""
        if not members:
            return []
        key = self.view(date, kind, by)
        async with self.redis.pipeline(transaction=False) as pipe:
            for member in members:
                pipe.zrank(key, member)
            found = await pipe.execute()
        return [None if r is None else int(r) for r in found]

    async def standing(self, pids: list[str], cells: int) -> list[tuple[int, int, int]]:
        """Each player's (rated races of ``cells``, days with a ranked daily, distinct
        established rivals of ``cells``), in order, one pipelined read."""
        if not pids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for pid in pids:
                pipe.hmget(self.keys.rating(pid, cells), "games", "rivals")
                pipe.zcard(self.keys.player_days(pid))
            found = await pipe.execute()
        return [
            (int(found[2 * i][0] or 0), int(found[2 * i + 1] or 0), int(found[2 * i][1] or 0))
            for i in range(len(pids))
        ]

    # -- streak days ----------------------------------------------------------------------

    async def add_day(
        self, player_id: str, date: str, number: int, oldest: int, keep_s: int
    ) -> None:
        """Count a streak day (``number``: its day number), forgetting days before
        ``oldest``; in one atomic step."""
        days = self.keys.player_days(player_id)
        batch = atomic.Batch(register_batch(self.redis)).zadd(days, {date: number})
        batch.zremrangebyscore(days, "-inf", oldest)
        await batch.expire(days, keep_s).execute()

    async def is_day(self, player_id: str, date: str) -> bool:
        """Whether ``date`` is one of the player's streak days."""
        return await self.redis.zscore(self.keys.player_days(player_id), date) is not None

    async def drop_day(self, player_id: str, date: str) -> None:
        """A streak day no longer counts."""
        await self.redis.zrem(self.keys.player_days(player_id), date)

    async def days(
        self, player_id: str, low: float = float("-inf"), high: float = float("inf")
    ) -> list[str]:
        """The player's streak days whose numbers lie from ``low`` to ``high``."""
        found = await self.redis.zrangebyscore(self.keys.player_days(player_id), low, high)
        return cast(list[str], found)

    # -- a player's recent days -----------------------------------------------------------

    async def recent(
        self, player_id: str, slots: list[tuple[str, str]], low: int, high: int
    ) -> tuple[list[str | None], list[str]]:
        """A player's entries of ``(date, kind)`` slots and their streak days numbered
        ``low`` to ``high``, in one pipelined read."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for date, kind in slots:
                pipe.hget(self.keys.leaderboard_entries(date, kind), player_id)
            pipe.zrangebyscore(self.keys.player_days(player_id), low, high)
            found = await pipe.execute()
        entries = [None if t is None else str(t) for t in found[:-1]]
        return entries, cast(list[str], found[-1])

    async def places(self, spots: list[tuple[str, str, str]]) -> list[tuple[int | None, int]]:
        """For each ``(date, kind, member)``: its 0-based place on the fastest view and the
        board's finishers, in one pipelined read."""
        if not spots:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for date, kind, member in spots:
                pipe.zrank(self.keys.leaderboard_rank(date, kind), member)
                pipe.zcard(self.keys.leaderboard_rank(date, kind))
            found = await pipe.execute()
        return [
            (None if found[2 * i] is None else int(found[2 * i]), int(found[2 * i + 1]))
            for i in range(len(spots))
        ]

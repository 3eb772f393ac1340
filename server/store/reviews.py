"""Reviews in Redis: each finish's outcome, the held finishes, the bars and what a bar puts
aside, the operator's log, and the identities each address made.

The keys (all under ``review:`` and ``admin:``, see :mod:`server.store.keys`):

- ``review:done:RESULT``: a finish's review once decided (``passed``, ``held``,
  ``cleared``, ``voided``), kept as long as the history;
- ``review:held`` (result -> the finish as JSON) and ``review:held:at`` (result -> when it
  was held, the order of the held list's pages), until an operator decides;
- ``review:round:{R}:N``: a held rated round's standing, until settled;
- ``review:resettle``: the rounds an operator decided, for any instance to settle;
- ``admin:barred``, ``admin:stash:{P}`` (a barred player's entries and ratings, put back
  when unbarred), ``admin:log`` and ``ident:ADDRESS`` (the identities an address made).

What a review decides, and what an operator's action does, is :mod:`server.ranked`'s; this
module only reads and writes.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from ..clock import now_ms
from .keys import Keys

#: Operator actions the log keeps (the oldest drop off).
MAX_LOG: Final = 10_000
#: Held finishes a page of the held list holds by default, and at most.
HELD_PAGE: Final = 50
MAX_HELD_PAGE: Final = 500
#: Identities one address's record keeps, and for how long (seconds).
MAX_IDENTITIES: Final = 200
IDENTITIES_KEPT_S: Final = 7 * 86_400


class Reviews:
    """Review outcomes, held finishes, bars, the operator's log on one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names.
        keep_s: how long a review's outcome (and a held round's standing) is kept.
    """

    def __init__(self, redis: Any, keys: Keys, keep_s: int) -> None:
        self.redis = redis
        self.keys = keys
        self.keep_s = keep_s

    # -- outcomes -------------------------------------------------------------------------

    async def decided(self, result: str) -> dict[str, Any] | None:
        """A finish's review once decided (``{status, …}``: ``passed``, ``cleared``,
        ``voided``, ``held``), or None."""
        text = await self.redis.get(self.keys.reviewed(result))
        return None if text is None else cast(dict[str, Any], json.loads(text))

    async def decide(self, result: str, status: str, **extra: Any) -> None:
        """Note a finish's review outcome."""
        body = json.dumps({"status": status, "at": now_ms(), **extra})
        await self.redis.set(self.keys.reviewed(result), body, ex=self.keep_s)

    # -- held finishes --------------------------------------------------------------------

    async def hold(self, held: dict[str, Any]) -> None:
        """Keep a held finish (``result``, ``kind``, ``player_id``, ``score`` and, for a
        daily, ``date``, ``daily_kind``, ``entry``; for a race, ``room`` and ``round``)."""
        record = {**held, "held_at": now_ms(), "replay": f"/api/replay/{held['result']}"}
        if await self.redis.hsetnx(self.keys.held(), held["result"], json.dumps(record)):
            await self.redis.zadd(self.keys.held_order(), {held["result"]: record["held_at"]})

    async def take_held(self, result: str) -> dict[str, Any] | None:
        """Remove a held finish, returning it (None if it was not held)."""
        key = self.keys.held()
        text = await self.redis.hget(key, result)
        if text is None or not await self.redis.hdel(key, result):
            return None  # not held, or another operator took it a moment ago
        await self.redis.zrem(self.keys.held_order(), result)
        return cast(dict[str, Any], json.loads(text))

    async def held_page(
        self, offset: int = 0, limit: int = HELD_PAGE, after: str | None = None
    ) -> dict[str, Any]:
        """A page of the held finishes, the oldest first: ``{held, total, offset, limit,
        next_offset, next_after}`` (the next ones None on the last page).

        A page starts at ``offset``, or, given ``after`` (a page's ``next_after``:
        ``HELD_AT:RESULT``), just after that finish in the list's order, whether or not it
        was decided since: an operator who decides as they read misses nothing. (A
        decided finish leaves the list, so with offsets the page after one an operator
        worked through starts at 0 again.)

        Raises:
            ValueError: ``after`` is not ``HELD_AT:RESULT``.
        """
        limit = max(1, min(limit, MAX_HELD_PAGE))
        offset = max(0, offset)
        total = int(await self.redis.hlen(self.keys.held()))
        if int(await self.redis.zcard(self.keys.held_order())) != total:
            await self._reindex()
        order = self.keys.held_order()
        if after is None:
            pairs = await self.redis.zrange(order, offset, offset + limit, withscores=True)
        else:
            at_text, sep, last = after.partition(":")
            if not sep or not at_text.isdigit() or not last:
                raise ValueError("after is HELD_AT:RESULT, as a page's next_after gives it")
            at = int(at_text)
            # Ties of one millisecond are few: read past them, then keep what is after.
            found = await self.redis.zrangebyscore(
                order, at, "+inf", start=0, num=limit + 64, withscores=True
            )
            pairs = [(rid, score) for rid, score in found if (int(score), rid) > (at, last)]
        pairs = cast(list[tuple[str, float]], pairs)
        more = len(pairs) > limit
        pairs = pairs[:limit]
        ids = [rid for rid, _ in pairs]
        texts = cast(list[str | None], await self.redis.hmget(self.keys.held(), ids) if ids else [])
        held = [json.loads(t) for t in texts if t is not None]
        last_pair = pairs[-1] if pairs else None
        return {
            "held": held,
            "total": total,
            "offset": offset,
            "limit": limit,
            "next_offset": offset + limit if more and after is None else None,
            "next_after": f"{int(last_pair[1])}:{last_pair[0]}" if more and last_pair else None,
        }

    async def oldest_held(self, count: int, before_ms: int) -> list[str]:
        """The held finishes past the list's bound: every one held before ``before_ms``,
        and the oldest beyond the newest ``count`` (oldest first)."""
        order = self.keys.held_order()
        old = cast(list[str], await self.redis.zrangebyscore(order, "-inf", f"({before_ms}"))
        total = int(await self.redis.zcard(order))
        over = max(0, total - count)
        extra = cast(list[str], await self.redis.zrange(order, 0, over - 1)) if over else []
        return list(dict.fromkeys([*old, *extra]))

    async def _reindex(self) -> None:
        """Make the held list's order match the held finishes (one held before the order
        was kept, or a call that stopped between the two writes)."""
        held, order = self.keys.held(), self.keys.held_order()
        found: set[str] = set()
        async for rid, text in self.redis.hscan_iter(held, count=500):
            found.add(rid)
            at = json.loads(text).get("held_at", 0)
            await self.redis.zadd(order, {rid: at}, nx=True)
        stale = [rid async for rid, _ in self.redis.zscan_iter(order) if rid not in found]
        if stale:
            await self.redis.zrem(order, *stale)

    # -- held rounds ----------------------------------------------------------------------

    async def keep_round(self, room: str, round_: int, standing: dict[str, Any]) -> None:
        """Keep a held rated round's standing (the first one kept stands)."""
        body = json.dumps(standing, separators=(",", ":"))
        await self.redis.set(self.keys.held_round(room, round_), body, nx=True, ex=self.keep_s)

    async def kept_round(self, room: str, round_: int) -> dict[str, Any] | None:
        """A held round's standing, or None (never held, or settled long ago)."""
        text = await self.redis.get(self.keys.held_round(room, round_))
        return None if text is None else dict(json.loads(text))

    async def resettle(self, room: str, round_: int | str) -> None:
        """Name a rated round for any instance to settle again (an operator decided one of
        its finishers)."""
        await self.redis.sadd(self.keys.resettle(), f"{room}/{round_}")

    async def next_resettle(self) -> str | None:
        """Take one round named to settle again (``ROOM/ROUND``), or None."""
        found = await self.redis.spop(self.keys.resettle())
        return None if found is None else str(found)

    # -- bars -----------------------------------------------------------------------------

    async def is_barred(self, player_id: str) -> bool:
        """Whether an operator barred the player from ranked play."""
        return bool(await self.redis.sismember(self.keys.barred(), player_id))

    async def barred_among(self, player_ids: list[str]) -> set[str]:
        """Which of these players are barred (one call)."""
        if not player_ids:
            return set()
        found = await self.redis.smismember(self.keys.barred(), player_ids)
        return {pid for pid, flag in zip(player_ids, found, strict=True) if flag}

    async def bar(self, player_id: str) -> bool:
        """Bar a player; False if they were barred already."""
        return bool(await self.redis.sadd(self.keys.barred(), player_id))

    async def unbar(self, player_id: str) -> bool:
        """Unbar a player; False if they were not barred."""
        return bool(await self.redis.srem(self.keys.barred(), player_id))

    async def put_aside(self, player_id: str, name: str, value: str) -> None:
        """Keep ``value`` aside for a barred player under ``name`` (``DATE:KIND`` of an
        entry, ``ratings:CELLS`` of a rating)."""
        await self.redis.hset(self.keys.stash(player_id), name, value)

    async def aside(self, player_id: str, name: str) -> str | None:
        """What was put aside for a player under ``name``, or None."""
        found = await self.redis.hget(self.keys.stash(player_id), name)
        return None if found is None else str(found)

    async def drop_aside(self, player_id: str, name: str) -> None:
        """Forget what was put aside under ``name``."""
        await self.redis.hdel(self.keys.stash(player_id), name)

    async def take_aside(self, player_id: str) -> dict[str, str]:
        """Everything put aside for a player, taken away."""
        stash = self.keys.stash(player_id)
        kept = cast(dict[str, str], await self.redis.hgetall(stash))
        await self.redis.delete(stash)
        return kept

    # -- identities and the log -----------------------------------------------------------

    async def note_identity(self, address: str, player_id: str) -> None:
        """Record that ``address`` made the identity ``player_id``."""
        key = self.keys.address_identities(address)
        await self.redis.zadd(key, {player_id: now_ms()})
        await self.redis.zremrangebyrank(key, 0, -MAX_IDENTITIES - 1)
        await self.redis.expire(key, IDENTITIES_KEPT_S)

    async def identities(self, address: str) -> list[tuple[str, int]]:
        """The identities an address made in the last 7 days, the newest first, with when
        (ms)."""
        pairs = cast(
            list[tuple[str, float]],
            await self.redis.zrevrange(
                self.keys.address_identities(address), 0, -1, withscores=True
            ),
        )
        return [(pid, int(at)) for pid, at in pairs]

    async def log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The operator's latest actions, the newest first."""
        raw = await self.redis.lrange(self.keys.admin_log(), 0, max(0, limit - 1))
        return [json.loads(x) for x in raw]

    async def write_log(self, line: dict[str, Any]) -> None:
        """Add an operator's action to the log (the oldest beyond :data:`MAX_LOG` drop)."""
        await self.redis.lpush(self.keys.admin_log(), json.dumps(line))
        await self.redis.ltrim(self.keys.admin_log(), 0, MAX_LOG - 1)

"""Held finishes and what an operator does about them: clear, void, bar, unbar; the log.

A ranked finish the review holds (:mod:`server.daily.review`) waits in ``review:held``
(result id -> the finish, its score and what to write when it is cleared). Nobody but its
player sees it: it is on no leaderboard, in no push and on no player page. An operator
(``seahaven admin``, or ``/api/admin/`` with the admin token) then:

- **clears** it: a daily finish's entry is written as if it had ranked at once (rank,
  streak day, a push); a race's held finisher is counted, and the race's ratings are
  settled once no finisher of it is held;
- **voids** it (held or already ranked): off every leaderboard, its streak day recounted;
  a race's finisher keeps their rating;
- **bars** a player: their entries go off every leaderboard and the ratings lists (kept
  aside, put back by **unbar**), and they may not enter ranked play.

Every action is idempotent (acting twice changes nothing the second time, and says so)
and logged in ``admin:log`` with when, what, on what, by whom and what came of it. The
same functions serve the command line and the HTTP routes: they need only Redis and the
key names.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Any, Final, cast

import redis.asyncio as aioredis

from ..clock import now_ms, utc_now
from ..store.keys import Keys
from .leaderboard import Leaderboard

#: Operator actions the log keeps (the oldest drop off).
MAX_LOG: Final = 10_000
#: Held finishes a page of the held list holds by default, and at most.
HELD_PAGE: Final = 50
MAX_HELD_PAGE: Final = 500
#: Identities one address's record keeps, and for how long (seconds).
MAX_IDENTITIES: Final = 200
IDENTITIES_KEPT_S: Final = 7 * 86_400
#: The rating variants a bar takes a player off.
VARIANTS: Final = (4, 2, 1)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an operator action did.

    Attributes:
        ok: it applied (or had applied already); False: nothing to act on.
        status: ``cleared``, ``voided``, ``barred``, ``unbarred``, ``already_…`` or
            ``not_found``.
        message: in words.
        data: what it touched.
    """

    ok: bool
    status: str
    message: str
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The HTTP answer and the ``--json`` output."""
        return {"ok": self.ok, "status": self.status, "message": self.message, **self.data}


class Holds:
    """Held finishes, bars and the operator's log on one Redis.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names.
        leaderboard: the day's leaderboards (entries written on clear, taken off on void).
        keep_s: how long a review's outcome is kept (the history's lifetime).
    """

    def __init__(
        self, redis: aioredis.Redis, keys: Keys, leaderboard: Leaderboard, keep_s: int
    ) -> None:
        self.redis = redis
        self.keys = keys
        self.leaderboard = leaderboard
        self.keep_s = keep_s

    # -- the server's side ----------------------------------------------------------------

    async def hold(self, held: dict[str, Any]) -> None:
        """Keep a held finish (``result``, ``kind``, ``player_id``, ``score`` and, for a
        daily, ``date``, ``daily_kind``, ``entry``; for a race, ``room`` and ``round``)."""
        record = {**held, "held_at": now_ms(), "replay": f"/api/replay/{held['result']}"}
        if await self.redis.hsetnx(self.keys.held(), held["result"], json.dumps(record)):
            await self.redis.zadd(self.keys.held_order(), {held["result"]: record["held_at"]})

    async def decided(self, result: str) -> dict[str, Any] | None:
        """A finish's review once decided (``{status, …}``: ``passed``, ``cleared``,
        ``voided``, ``held``), or None."""
        text = await self.redis.get(self.keys.reviewed(result))
        return None if text is None else cast(dict[str, Any], json.loads(text))

    async def decide(self, result: str, status: str, **extra: Any) -> None:
        """Note a finish's review outcome."""
        body = json.dumps({"status": status, "at": now_ms(), **extra})
        await self.redis.set(self.keys.reviewed(result), body, ex=self.keep_s)

    async def is_barred(self, player_id: str) -> bool:
        """Whether an operator barred the player from ranked play."""
        return bool(await self.redis.sismember(self.keys.barred(), player_id))

    async def barred_among(self, player_ids: list[str]) -> set[str]:
        """Which of these players are barred (one call)."""
        if not player_ids:
            return set()
        found = await self.redis.smismember(self.keys.barred(), player_ids)
        return {pid for pid, flag in zip(player_ids, found, strict=True) if flag}

    async def note_identity(self, address: str, player_id: str) -> None:
        """Record that ``address`` made the identity ``player_id`` (``identities``)."""
        key = self.keys.address_identities(address)
        await self.redis.zadd(key, {player_id: now_ms()})
        await self.redis.zremrangebyrank(key, 0, -MAX_IDENTITIES - 1)
        await self.redis.expire(key, IDENTITIES_KEPT_S)

    # -- reading --------------------------------------------------------------------------

    async def held_page(self, offset: int = 0, limit: int = HELD_PAGE) -> dict[str, Any]:
        """A page of the held finishes, the oldest first: ``{held, total, offset, limit,
        next_offset}`` (``next_offset`` None on the last page). A decided finish leaves
        the list, so the page after one an operator worked through starts at 0 again."""
        limit = max(1, min(limit, MAX_HELD_PAGE))
        offset = max(0, offset)
        total = int(await self.redis.hlen(self.keys.held()))
        if int(await self.redis.zcard(self.keys.held_order())) != total:
            await self._reindex()
        ids = cast(
            list[str],
            await self.redis.zrange(self.keys.held_order(), offset, offset + limit - 1),
        )
        texts = cast(list[str | None], await self.redis.hmget(self.keys.held(), ids) if ids else [])
        held = [json.loads(t) for t in texts if t is not None]
        more = offset + limit < total
        return {
            "held": held,
            "total": total,
            "offset": offset,
            "limit": limit,
            "next_offset": offset + limit if more else None,
        }

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

    async def identities(self, address: str) -> list[dict[str, Any]]:
        """The identities an address made in the last 7 days, the newest first."""
        pairs = cast(
            list[tuple[str, float]],
            await self.redis.zrevrange(
                self.keys.address_identities(address), 0, -1, withscores=True
            ),
        )
        barred = await self.barred_among([pid for pid, _ in pairs])
        return [
            {"player_id": pid, "made_at": int(at), "barred": pid in barred} for pid, at in pairs
        ]

    async def log(self, limit: int = 100) -> list[dict[str, Any]]:
        """The operator's latest actions, the newest first."""
        raw = await self.redis.lrange(self.keys.admin_log(), 0, max(0, limit - 1))
        return [json.loads(x) for x in raw]

    # -- acting ---------------------------------------------------------------------------

    async def _logged(self, action: str, target: str, by: str, outcome: Outcome) -> Outcome:
        line = {
            "at": now_ms(),
            "action": action,
            "target": target,
            "by": by,
            "status": outcome.status,
            "ok": outcome.ok,
        }
        await self.redis.lpush(self.keys.admin_log(), json.dumps(line))
        await self.redis.ltrim(self.keys.admin_log(), 0, MAX_LOG - 1)
        return outcome

    async def _take_held(self, result: str) -> dict[str, Any] | None:
        """Remove a held finish, returning it (None if it was not held)."""
        key = self.keys.held()
        text = await self.redis.hget(key, result)
        if text is None or not await self.redis.hdel(key, result):
            return None  # not held, or another operator took it a moment ago
        await self.redis.zrem(self.keys.held_order(), result)
        return cast(dict[str, Any], json.loads(text))

    async def clear(self, result: str, by: str) -> Outcome:
        """Let a held finish count (see the module docstring)."""
        held = await self._take_held(result)
        if held is None:
            done = await self.decided(result)
            status = done["status"] if done else None
            if status == "cleared":
                outcome = Outcome(True, "already_cleared", "cleared before", {"result": result})
            else:
                outcome = Outcome(False, "not_found", "no held finish has this id", {})
                if status == "voided":
                    outcome = Outcome(False, "voided", "this finish was voided", {})
            return await self._logged("clear", result, by, outcome)
        data: dict[str, Any] = {"result": result, "player_id": held["player_id"]}
        await self.decide(result, "cleared", by=by)
        if held["kind"] == "daily":
            if await self.is_barred(held["player_id"]):
                # A barred player's entry waits aside, as their others do.
                await self.redis.hset(
                    self.keys.stash(held["player_id"]),
                    f"{held['date']}:{held['daily_kind']}",
                    json.dumps({**held["entry"], "streak": held.get("streak", True)}),
                )
            else:
                written = await self.leaderboard.write(
                    held["date"], held["daily_kind"], held["entry"], held.get("streak", True)
                )
                data["rank"] = written.rank or None
                await self._note(held.get("room"), ranked=True, rank=data["rank"])
        else:
            await self.redis.sadd(self.keys.resettle(), f"{held['room']}/{held['round']}")
        outcome = Outcome(True, "cleared", "the finish counts", data)
        return await self._logged("clear", result, by, outcome)

    async def void(self, result: str, by: str) -> Outcome:
        """Take a finish off every leaderboard and streak, held or ranked."""
        held = await self._take_held(result)
        done = await self.decided(result)
        if held is None and done is not None and done["status"] == "voided":
            outcome = Outcome(True, "already_voided", "voided before", {"result": result})
            return await self._logged("void", result, by, outcome)
        data: dict[str, Any] = {"result": result}
        found = held or await self._ranked_finish(result)
        if found is None:
            outcome = Outcome(False, "not_found", "no held or ranked finish has this id", {})
            return await self._logged("void", result, by, outcome)
        data["player_id"] = found["player_id"]
        await self.decide(result, "voided", by=by)
        if found["kind"] == "daily":
            pid, date, kind = found["player_id"], found["date"], found["daily_kind"]
            taken = await self.leaderboard.remove(date, kind, pid)
            if taken is not None and taken.get("replay_id") != result:
                # The entry is another finish's (never expected): put it back.
                await self.leaderboard.write(date, kind, taken, bool(taken.get("streak")))
            await self.redis.hdel(self.keys.stash(pid), f"{date}:{kind}")
            if held is not None:
                await self._note(held.get("room"), ranked=False, unranked_reason="voided")
        else:
            await self.redis.sadd(self.keys.resettle(), f"{found['room']}/{found['round']}")
        outcome = Outcome(True, "voided", "off every leaderboard and streak", data)
        return await self._logged("void", result, by, outcome)

    async def _note(self, room: str | None, **change: Any) -> None:
        """Update a held daily game's room note (the snapshot's ``daily``), while it lives,
        so that its player's page says what became of it."""
        if not room:
            return
        key = self.keys.daily_room(room)
        text = await self.redis.get(key)
        if text is None:
            return
        note = json.loads(text)
        if change.get("ranked"):
            change["unranked_reason"] = None
        note.update(change)
        await self.redis.set(key, json.dumps(note, separators=(",", ":")), keepttl=True)

    async def _ranked_finish(self, result: str) -> dict[str, Any] | None:
        """A ranked daily finish by its replay id (from the stored replay), or None."""
        text = await self.redis.get(self.keys.replay(result))
        if text is None:
            return None
        replay = json.loads(text)
        daily = replay.get("daily") or {}
        date, kind, pid = daily.get("date"), daily.get("kind"), replay.get("player_id")
        if replay.get("kind") != "daily" or not date or not kind or not pid:
            return None
        entry = await self.redis.hget(self.keys.leaderboard_entries(date, kind), pid)
        stashed = await self.redis.hget(self.keys.stash(pid), f"{date}:{kind}")
        for text_ in (entry, stashed):
            if text_ is not None and json.loads(text_).get("replay_id") == result:
                return {"kind": "daily", "player_id": pid, "date": date, "daily_kind": kind}
        return None

    async def bar(self, player_id: str, by: str) -> Outcome:
        """Bar a player from ranked play; their results go aside (see the module docstring)."""
        if not await self.redis.sadd(self.keys.barred(), player_id):
            outcome = Outcome(True, "already_barred", "barred before", {"player_id": player_id})
            return await self._logged("bar", player_id, by, outcome)
        stash = self.keys.stash(player_id)
        taken = 0
        for date in await self.leaderboard.days_of(player_id):
            for kind in ("daily", "hard"):
                entry = await self.leaderboard.remove(date, kind, player_id)
                if entry is not None:
                    await self.redis.hset(stash, f"{date}:{kind}", json.dumps(entry))
                    taken += 1
        for date, kind in await self._other_days(player_id):
            entry = await self.leaderboard.remove(date, kind, player_id)
            if entry is not None:
                await self.redis.hset(stash, f"{date}:{kind}", json.dumps(entry))
                taken += 1
        for cells in VARIANTS:
            rating = await self.redis.zscore(self.keys.ratings_top(cells), player_id)
            if rating is not None:
                await self.redis.hset(stash, f"ratings:{cells}", str(rating))
                await self.redis.zrem(self.keys.ratings_top(cells), player_id)
        data = {"player_id": player_id, "entries": taken}
        outcome = Outcome(True, "barred", "off every leaderboard; no ranked play", data)
        return await self._logged("bar", player_id, by, outcome)

    async def _other_days(self, player_id: str) -> list[tuple[str, str]]:
        """Days of the last 30 with an entry of the player that counted no streak day (a
        past day's ranked finish is kept even when begun later; rare)."""
        found: list[tuple[str, str]] = []
        today = utc_now().date()
        for back in range(30):
            date = (today - dt.timedelta(days=back)).isoformat()
            for kind in ("daily", "hard"):
                if await self.redis.hexists(self.keys.leaderboard_entries(date, kind), player_id):
                    found.append((date, kind))
        return found

    async def unbar(self, player_id: str, by: str) -> Outcome:
        """Let a barred player rank again; put their entries and ratings back."""
        if not await self.redis.srem(self.keys.barred(), player_id):
            outcome = Outcome(True, "already_unbarred", "not barred", {"player_id": player_id})
            return await self._logged("unbar", player_id, by, outcome)
        stash = self.keys.stash(player_id)
        kept = cast(dict[str, str], await self.redis.hgetall(stash))
        restored = 0
        for field, text in kept.items():
            if field.startswith("ratings:"):
                cells = int(field.split(":", 1)[1])
                await self.redis.zadd(self.keys.ratings_top(cells), {player_id: float(text)})
                continue
            date, kind = field.split(":", 1)
            entry = json.loads(text)
            await self.leaderboard.write(date, kind, entry, bool(entry.pop("streak", True)))
            restored += 1
        await self.redis.delete(stash)
        data = {"player_id": player_id, "entries": restored}
        outcome = Outcome(True, "unbarred", "entries back; ranked play open", data)
        return await self._logged("unbar", player_id, by, outcome)

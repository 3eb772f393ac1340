"""Players' ratings in Redis: one per identity and variant, with its history.

A player's rating keys (``rating:{P}:C``, ``:hist``, ``rating:{P}:applied``, ``:races``)
share the hash tag ``{P}``, so the script that applies a race to one player touches one
slot. A round's changes are settled once per room (``room:{R}:rated:N``, in the room's slot,
``lua/rate_claim.lua``); each player's update is then applied by ``lua/rate_apply.lua``,
which records the ``ROOM/ROUND`` it applied, so a repeated call (another instance, a retry)
changes nothing. The top list ``ratings:C`` holds each established player's shown rating:
a provisional one (:class:`Bar`) is on no public list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from .commit import MAX_EVENTS
from .scripts import script
from .status import Status, status_of
from .store import Store

#: Rating points kept per player and variant, races applied remembered, races listed.
MAX_HISTORY: Final = 100
MAX_APPLIED: Final = 50
MAX_RACES: Final = 20
#: Players the top list of a variant keeps at most.
MAX_RATED: Final = 10_000


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's rating of one variant: the model's ``mu`` and ``sigma``, the shown
    rating, the rated games."""

    mu: float
    sigma: float
    rating: int
    games: int


@dataclass(frozen=True, slots=True)
class Bar:
    """What makes a player established rather than provisional: ``games`` rated races of
    the variant against ``rivals`` distinct established rivals at least, or ranked dailies
    on ``days`` days (0: that way is closed). ``games`` 0 lowers the bar entirely: everyone
    is established at once.

    The rivals' count makes a closed ring of fresh identities worthless: each of them needs
    established rivals first, and the only way in without any is ranked dailies, each of
    them reviewed. A record from before rivals were counted reads as 0 rivals."""

    games: int
    days: int
    rivals: int = 0

    def met(self, games: int, days: int, rivals: int = 0) -> bool:
        """Whether a record of ``games`` rated races against ``rivals`` distinct
        established rivals and ``days`` ranked days clears it."""
        if self.games <= 0:
            return True
        by_races = games >= self.games and rivals >= self.rivals
        return by_races or (self.days > 0 and days >= self.days)


async def standing(store: Store, pids: list[str], cells: int) -> dict[str, tuple[int, int, int]]:
    """Each player's (rated races of ``cells``, days with a ranked daily, distinct
    established rivals of ``cells``): what :meth:`Bar.met` takes."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in pids:
            pipe.hmget(store.keys.rating(pid, cells), "games", "rivals")
            pipe.zcard(store.keys.player_days(pid))
        found = await pipe.execute()
    return {
        pid: (int(found[2 * i][0] or 0), int(found[2 * i + 1] or 0), int(found[2 * i][1] or 0))
        for i, pid in enumerate(pids)
    }


async def skills(store: Store, pids: list[str], cells: int, default: Skill) -> dict[str, Skill]:
    """Each player's rating of ``cells`` (``default`` for a player who has none)."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in pids:
            pipe.hmget(store.keys.rating(pid, cells), "mu", "sigma", "rating", "games")
        found = await pipe.execute()
    out = {}
    for pid, (mu, sigma, rating, games) in zip(pids, found, strict=True):
        if mu is None or sigma is None:
            out[pid] = default
        else:
            out[pid] = Skill(float(mu), float(sigma), int(rating or 0), int(games or 0))
    return out


async def new_rivals(store: Store, cells: int, rivals: dict[str, list[str]]) -> dict[str, int]:
    """How many of each player's ``rivals`` are not yet among their distinct established
    rivals of ``cells``."""
    asked = [(pid, others) for pid, others in rivals.items() if others]
    if not asked:
        return {}
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid, others in asked:
            pipe.smismember(store.keys.rating_rivals(pid, cells), others)
        found = await pipe.execute()
    return {
        pid: sum(1 for x in known if not x) for (pid, _), known in zip(asked, found, strict=True)
    }


async def claim(
    store: Store, room: str, round_: int, marker: str, body: str, origin: str
) -> tuple[bool, str]:
    """Settle a round's changes once: (written now, the marker as stored)."""
    k = store.keys
    raw = await script(store.redis, "rate_claim")(
        keys=[k.room(room), k.events(room), k.room_rated(room, round_)],
        args=[marker, body, origin, MAX_EVENTS, store.ttl],
    )
    return status_of(raw[0]) is Status.OK, str(raw[1])


async def settled(store: Store, room: str, round_: int) -> str | None:
    """The marker of a round already settled, or None."""
    value = await store.redis.get(store.keys.room_rated(room, round_))
    return None if value is None else str(value)


async def apply(
    store: Store,
    pid: str,
    cells: int,
    race_id: str,
    now: int,
    line: dict[str, Any],
    race: dict[str, Any],
    keep_s: int,
    *,
    listed: bool = True,
) -> bool:
    """Apply one racer's line of a settled round (once); then the top list, unless the
    player is not to be ``listed`` (barred by an operator: their results are hidden
    everywhere, and a rating settled after the bar must not put them back on the list)."""
    k = store.keys
    point = {"t": now, "rating": line["rating"], "change": line["change"]}
    counts = line.get("unrated_reason") is None
    applied = await script(store.redis, "rate_apply")(
        keys=[
            k.rating(pid, cells),
            k.rating_history(pid, cells),
            k.rating_applied(pid),
            k.rating_races(pid),
        ],
        args=[
            race_id,
            now,
            1 if counts else 0,
            repr(line["mu"]),
            repr(line["sigma"]),
            line["rating"],
            line["name"],
            json.dumps(point, separators=(",", ":")),
            json.dumps(race, separators=(",", ":")),
            MAX_HISTORY,
            MAX_APPLIED,
            MAX_RACES,
            keep_s,
        ],
    )
    rivals = [str(r) for r in line.get("rivals") or []]
    if counts and rivals:
        # A set, so a repeated call adds nothing; its size is read with the rating.
        key = k.rating_rivals(pid, cells)
        await store.redis.sadd(key, *rivals)
        await store.redis.expire(key, keep_s)
        await store.redis.hset(k.rating(pid, cells), "rivals", await store.redis.scard(key))
    if counts and listed and not line.get("provisional"):
        top = k.ratings_top(cells)
        async with store.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(top, {pid: line["rating"]})
            pipe.zremrangebyrank(top, 0, -(MAX_RATED + 1))
            pipe.expire(top, keep_s)
            await pipe.execute()
    return bool(applied)


async def met(store: Store, pids: list[str], since: int) -> set[frozenset[str]]:
    """The pairs of ``pids`` whose result counted together since ``since`` (ms)."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in pids:
            pipe.zrangebyscore(store.keys.rating_met(pid), since, "+inf")
        found = await pipe.execute()
    among = set(pids)
    return {
        frozenset((pid, other))
        for pid, others in zip(pids, found, strict=True)
        for other in others
        if other in among and other != pid
    }


async def meet(store: Store, pids: list[str], now: int, window_s: int) -> None:
    """The racers ``pids`` were rated together at ``now``: each remembers the others for
    ``window_s`` (their own key, ``rating:{P}:met``, in their own slot)."""
    for pid in pids:
        key = store.keys.rating_met(pid)
        others = {other: now for other in pids if other != pid}
        batch = store.batch().zadd(key, others)
        batch.zremrangebyscore(key, "-inf", now - window_s * 1000)
        await batch.expire(key, window_s).execute()


async def top(store: Store, cells: int, limit: int, bar: Bar) -> list[dict[str, Any]]:
    """The ``limit`` best established players of a variant: rank, player id, name, rating,
    games. (Only established players are listed; one listed before the bar was raised is
    passed over.)"""
    rows = await store.redis.zrevrange(store.keys.ratings_top(cells), 0, 2 * limit - 1)
    if not rows:
        return []
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in rows:
            pipe.hmget(store.keys.rating(pid, cells), "name", "rating", "games", "rivals")
            pipe.zcard(store.keys.player_days(pid))
        found = await pipe.execute()
    out: list[dict[str, Any]] = []
    for i, pid in enumerate(rows):
        (name, rating, games, rivals), days = found[2 * i], found[2 * i + 1]
        if rating is None:
            continue  # its rating expired before its place in the list
        if not bar.met(int(games or 0), int(days or 0), int(rivals or 0)) or len(out) >= limit:
            continue
        out.append(
            {
                "rank": len(out) + 1,
                "player_id": pid,
                "name": name or "",
                "rating": int(rating),
                "games": int(games or 0),
            }
        )
    return out


async def shown(store: Store, pids: list[str], cells: int) -> dict[str, int | None]:
    """Each player's shown rating of ``cells`` (None: never rated)."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in pids:
            pipe.hget(store.keys.rating(pid, cells), "rating")
        found = await pipe.execute()
    return {pid: (None if r is None else int(r)) for pid, r in zip(pids, found, strict=True)}


async def profile(store: Store, pid: str, bar: Bar) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A player's ratings per variant (``rating``, ``games``, ``provisional``, ``history``)
    and their recent public races, newest first."""
    k = store.keys
    variants = (4, 2, 1)
    async with store.redis.pipeline(transaction=False) as pipe:
        for cells in variants:
            pipe.hmget(k.rating(pid, cells), "rating", "games", "rivals")
            pipe.lrange(k.rating_history(pid, cells), 0, -1)
        pipe.zcard(k.player_days(pid))
        pipe.lrange(k.rating_races(pid), 0, -1)
        found = await pipe.execute()
    days = int(found[-2] or 0)
    ratings: dict[str, Any] = {}
    for i, cells in enumerate(variants):
        (rating, games, rivals), history = found[2 * i], found[2 * i + 1]
        if rating is not None:
            ratings[str(cells)] = {
                "rating": int(rating),
                "games": int(games or 0),
                "provisional": not bar.met(int(games or 0), days, int(rivals or 0)),
                "history": [json.loads(p) for p in history],
            }
    return ratings, [json.loads(r) for r in found[-1]]


async def set_rated(store: Store, room: str, pid: str, rated: bool, origin: str) -> Status:
    """The host of an invite room says whether its race is rated (``lua/rated.lua``);
    ``ok`` or the refusal."""
    k = store.keys
    raw = await script(store.redis, "rated")(
        keys=[k.room(room), k.members(room), k.events(room)],
        args=[pid, 1 if rated else 0, origin, MAX_EVENTS, store.ttl],
    )
    status, _seq = raw
    return status_of(status)


async def take_off_list(store: Store, pid: str, cells: int) -> float | None:
    """Take a player off the top list of ``cells`` (a bar); their listed rating, or None."""
    top = store.keys.ratings_top(cells)
    rating = await store.redis.zscore(top, pid)
    if rating is not None:
        await store.redis.zrem(top, pid)
    return None if rating is None else float(rating)


async def put_on_list(store: Store, pid: str, cells: int, rating: float) -> None:
    """Put a player back on the top list of ``cells`` (an unbar)."""
    await store.redis.zadd(store.keys.ratings_top(cells), {pid: rating})

"""Arenas in Redis: each arena's fields, players, pool, pairings, races and results.

Every key of an arena shares the hash tag ``{A}`` (:mod:`server.store.keys`), so each of
its scripts touches one cluster slot: joining (``lua/arena_join.lua``), coming back to the
pool after a race (``lua/arena_back.lua``), a pairing pass (``lua/arena_pair.lua``) and
recording a race once (``lua/arena_record.lua``). The index of arenas (``arenas``) and the
arena a player is in (``player:{P}:arena``) are keys of their own, used one a command.
The rooms of an arena's races are ordinary rooms (their own slots), made after a pairing
pass by the instance that ran it, as the quick race's are (:mod:`server.store.queue`).
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..clock import now_ms
from .lease import take as take_lease
from .queue import marked_groups
from .scripts import script
from .status import Status, status_of
from .store import Store

#: Players one pairing pass looks at.
MAX_SCANNED: Final = 1000
#: How long an arena's keys outlive its end (ms): its table stays readable for a day.
KEEP_MS: Final = 86_400_000
#: How long the pairing lease holds unless renewed (ms).
LEASE_MS: Final = 3_000


def _seat_keys(store: Store, arena: str) -> list[str]:
    k = store.keys
    return [
        k.arena(arena),
        k.arena_players(arena),
        k.arena_pool(arena),
        k.arena_since(arena),
        k.arena_racing(arena),
        k.arena_paired(arena),
    ]


async def create(store: Store, arena: str, fields: dict[str, str | int]) -> bool:
    """Make an arena once (False: it exists already) and index it by its end."""
    key = store.keys.arena(arena)
    made = bool(await store.redis.hsetnx(key, "ends_at", fields["ends_at"]))
    if made:
        await store.redis.hset(key, mapping=fields)
        await store.redis.pexpireat(key, int(fields["ends_at"]) + KEEP_MS)
        index = store.keys.arenas()
        await store.redis.zadd(index, {arena: int(fields["ends_at"])})
        until = int(fields["ends_at"]) + KEEP_MS
        if await store.redis.pttl(index) < until - now_ms():  # the index outlives its last
            await store.redis.pexpireat(index, until)
    return made


async def fields(store: Store, arena: str) -> dict[str, str]:
    """An arena's fields (empty: no such arena, or one still being made).

    :func:`create` claims the arena with its end alone and writes the other fields just
    after: an instance that reads it in between (two instances make each scheduled arena,
    the first wins) would cache an arena with no start. It counts as not made yet.
    """
    found = dict(await store.redis.hgetall(store.keys.arena(arena)))
    return found if "starts_at" in found else {}


async def indexed(store: Store, since: int) -> list[str]:
    """The arenas ending after ``since`` (ms), soonest end first."""
    return [str(a) for a in await store.redis.zrangebyscore(store.keys.arenas(), since, "+inf")]


async def prune(store: Store, before: int) -> None:
    """Forget, in the index, arenas that ended before ``before`` (ms)."""
    await store.redis.zremrangebyscore(store.keys.arenas(), "-inf", f"({before}")


async def join(
    store: Store, arena: str, pid: str, info: dict[str, Any], score: float, now: int, end: int
) -> Status:
    """A player joins an arena (into its pool unless racing in it); the refusal or ``ok``."""
    out = await script(store.redis, "arena_join")(
        keys=_seat_keys(store, arena),
        args=[pid, json.dumps(info, separators=(",", ":")), score, now, end + KEEP_MS],
    )
    return status_of(out)


async def back(
    store: Store, arena: str, pid: str, room: str, score: float, now: int, end: int
) -> Status:
    """A racer is back in the pool after the race of ``room`` (empty: none)."""
    out = await script(store.redis, "arena_back")(
        keys=_seat_keys(store, arena), args=[pid, room, score, now, end + KEEP_MS]
    )
    return status_of(out)


async def leave(store: Store, arena: str, pid: str) -> None:
    """Out of the pool and off the player list of waiting (their races stay recorded)."""
    k = store.keys
    await (
        store.batch()
        .zrem(k.arena_pool(arena), pid)
        .hdel(k.arena_since(arena), pid)
        .hdel(k.arena_players(arena), pid)
        .execute()
    )


async def claim_player(store: Store, pid: str, arena: str, until_ms: int) -> str | None:
    """Mark that ``pid`` is in ``arena`` (one arena at most); None when done, else the
    arena they are in already."""
    key = store.keys.player_arena(pid)
    if await store.redis.set(key, arena, nx=True, pxat=until_ms):
        return None
    found = await store.redis.get(key)
    return None if found is None else str(found)


async def claim_maker(store: Store, pid: str, arena: str, until_ms: int) -> bool:
    """Mark that ``pid`` made ``arena``, a private arena not over yet (one at a time)."""
    key = store.keys.arena_made(pid)
    return bool(await store.redis.set(key, arena, nx=True, pxat=until_ms))


async def claim_address(store: Store, mark: str, arena: str, until_ms: int, most: int) -> bool:
    """Count ``arena`` among the private arenas not over that the address of ``mark``
    made, unless it has ``most`` already (then nothing is kept)."""
    key = store.keys.address_arenas(mark)
    async with store.redis.pipeline(transaction=True) as pipe:
        pipe.zremrangebyscore(key, "-inf", now_ms())
        pipe.zadd(key, {arena: until_ms})
        pipe.zcard(key)
        pipe.zrange(key, -1, -1, withscores=True)
        *_, held, last = await pipe.execute()
    if int(held) > most:
        await store.redis.zrem(key, arena)
        return False
    await store.redis.pexpireat(key, int(last[0][1]))  # as long as its furthest arena
    return True


async def release_maker(store: Store, pid: str, arena: str) -> None:
    """``pid`` no longer counts as the maker of ``arena`` (it was not made after all)."""
    await _drop_if(store, store.keys.arena_made(pid), arena)


async def _drop_if(store: Store, key: str, arena: str) -> None:
    """Delete a player's mark ``key`` if it names ``arena`` (not a later one)."""
    if await store.redis.get(key) == arena:
        await store.redis.delete(key)


async def sizes(store: Store, arena: str) -> tuple[int, int]:
    """How many races the arena recorded, and how many players it has."""
    k = store.keys
    async with store.redis.pipeline(transaction=False) as pipe:
        pipe.llen(k.arena_results(arena))
        pipe.hlen(k.arena_players(arena))
        n, players = await pipe.execute()
    return int(n), int(players)


async def player_arena(store: Store, pid: str) -> str | None:
    """The arena a player is in, or None."""
    found = await store.redis.get(store.keys.player_arena(pid))
    return None if found is None else str(found)


async def release_player(store: Store, pid: str, arena: str) -> None:
    """The player is no longer in ``arena`` (only if that is the one marked)."""
    await _drop_if(store, store.keys.player_arena(pid), arena)


async def lease(store: Store, arena: str, holder: str) -> bool:
    """Take or renew the arena's pairing lease: True while ``holder`` holds it."""
    return await take_lease(store.redis, store.keys.arena_lease(arena), holder, LEASE_MS)


async def pair(store: Store, arena: str, now: int, fourth_ms: int, end: int) -> list[list[str]]:
    """One pairing pass (``lua/arena_pair.lua``): the groups it took out of the pool."""
    return [group for group, _home in await pair_marked(store, arena, now, fourth_ms, end)]


async def pair_marked(
    store: Store, arena: str, now: int, fourth_ms: int, end: int
) -> list[tuple[list[str], bool]]:
    """One pairing pass: the groups it took out of the pool, each with whether it is a
    household's (:func:`.queue.marked_groups`)."""
    k = store.keys
    raw = await script(store.redis, "arena_pair")(
        keys=[
            k.arena_pool(arena),
            k.arena_since(arena),
            k.arena_last(arena),
            k.arena_players(arena),
            k.arena_racing(arena),
        ],
        args=[now, fourth_ms, MAX_SCANNED, end + KEEP_MS],
    )
    return marked_groups(raw)


async def assign(store: Store, arena: str, room: str, pids: list[str], end: int) -> None:
    """The room a pairing made: its racers race there (their instances bring them in)."""
    k = store.keys
    mapping = dict.fromkeys(pids, room)
    ms = end + KEEP_MS
    await (
        store.batch()
        .hset(k.arena_racing(arena), mapping)
        .hset(k.arena_paired(arena), mapping)
        .pexpire(k.arena_racing(arena), max(1, ms - now_ms()))
        .pexpire(k.arena_paired(arena), max(1, ms - now_ms()))
        .execute()
    )


async def look(
    store: Store, arena: str, pids: list[str]
) -> list[tuple[str | None, str | None, bool]]:
    """For players seated on this instance: the room each was paired into (until taken),
    the race each is in, and whether each waits in the pool."""
    k = store.keys
    async with store.redis.pipeline(transaction=False) as pipe:
        pipe.hmget(k.arena_paired(arena), pids)
        pipe.hmget(k.arena_racing(arena), pids)
        for pid in pids:
            pipe.zscore(k.arena_pool(arena), pid)
        found = await pipe.execute()
    paired, racing, pool = found[0], found[1], found[2:]
    return [(p, r, s is not None) for p, r, s in zip(paired, racing, pool, strict=True)]


async def taken(store: Store, arena: str, pid: str) -> bool:
    """Take a pairing (once)."""
    return bool(await store.redis.hdel(store.keys.arena_paired(arena), pid))


async def racing(store: Store, arena: str) -> dict[str, str]:
    """Player id -> room of every race of the arena that is not recorded yet."""
    return dict(await store.redis.hgetall(store.keys.arena_racing(arena)))


async def record(
    store: Store, arena: str, race: str, room: str, record_json: str, pids: list[str], end: int
) -> bool:
    """Record a race once (``lua/arena_record.lua``); True when this call did."""
    k = store.keys
    out = await script(store.redis, "arena_record")(
        keys=[k.arena_counted(arena), k.arena_results(arena), k.arena_racing(arena)],
        args=[race, record_json, room, end + KEEP_MS, *pids],
    )
    return bool(int(out))


async def amend(store: Store, arena: str, record_json: str, read_at: int) -> bool | None:
    """Record a recorded race again, amended (its last record counts:
    :func:`server.arena.points.standings`), if the arena has recorded nothing since its
    records were read (``read_at``: how many there were; ``lua/arena_amend.lua``).

    Returns:
        True when recorded; False when another record came first (read again); None when
        the arena's records are gone (kept :data:`KEEP_MS` past its end: a new list would
        outlive nothing and count alone).
    """
    key = store.keys.arena_results(arena)
    out = int(await script(store.redis, "arena_amend")(keys=[key], args=[record_json, read_at]))
    return None if out < 0 else bool(out)


async def results(
    store: Store, arena: str, start: int = 0, count: int | None = None
) -> list[dict[str, Any]]:
    """The recorded races from the ``start``-th on (``count`` of them at most), as
    recorded."""
    stop = -1 if count is None else start + count - 1
    raw = await store.redis.lrange(store.keys.arena_results(arena), start, stop)
    return [json.loads(x) for x in raw]


async def count(store: Store, arena: str) -> int:
    """How many races the arena recorded."""
    return int(await store.redis.llen(store.keys.arena_results(arena)))


async def players(store: Store, arena: str) -> dict[str, dict[str, Any]]:
    """Everyone in the arena now: id -> ``{name, addr, rating}``."""
    raw = await store.redis.hgetall(store.keys.arena_players(arena))
    return {str(pid): json.loads(text) for pid, text in raw.items()}


async def pledge(store: Store, arena: str, room: str, pid: str, end: int) -> None:
    """A racer's no-take-backs pledge for the race of ``room``."""
    key = store.keys.arena_pledges(arena)
    await (
        store.batch()
        .hset(key, {f"{room}:{pid}": 1})
        .pexpire(key, end + KEEP_MS - now_ms())
        .execute()
    )


async def pledged(store: Store, arena: str, room: str, pids: list[str]) -> set[str]:
    """Who of ``pids`` pledged for the race of ``room``."""
    if not pids:
        return set()
    found = await store.redis.hmget(store.keys.arena_pledges(arena), [f"{room}:{p}" for p in pids])
    return {pid for pid, x in zip(pids, found, strict=True) if x is not None}


async def close(store: Store, arena: str) -> bool:
    """Mark the arena over (once: True for the call that did)."""
    return bool(await store.redis.hsetnx(store.keys.arena(arena), "over", 1))


async def await_review(store: Store, entry: str, at: int) -> None:
    """Note that a recorded race (``ARENA ROOM/ROUND``) waits for its finishers' review."""
    await store.redis.zadd(store.keys.arenas_awaiting(), {entry: at}, nx=True)


async def overdue(store: Store, before: int, limit: int) -> list[str]:
    """The races waiting for a review since before ``before`` (ms), the oldest first."""
    found = await store.redis.zrangebyscore(
        store.keys.arenas_awaiting(), "-inf", before, start=0, num=limit
    )
    return [str(x) for x in found]


async def asked_again(store: Store, entry: str, at: int) -> None:
    """A waiting race's review was asked for again at ``at`` (only if it still waits)."""
    await store.redis.zadd(store.keys.arenas_awaiting(), {entry: at}, xx=True)


async def reviewed(store: Store, entry: str) -> None:
    """A race's review amended its record: it no longer waits."""
    await store.redis.zrem(store.keys.arenas_awaiting(), entry)

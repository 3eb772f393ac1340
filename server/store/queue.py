"""The quick-race queue in Redis: one per variant (4, 2 or 1 cells), shared by every instance.

Every variant's keys (``queue:{q}:C:wait``, ``:info``, ``:paired``) share one hash tag, so
each script touches one cluster slot: joining a queue checks the others in the same script
(two sockets of a player, on two instances, never wait in two queues at once), and the
pairing script never touches a room's keys (the rooms of its groups are made afterwards, by
the instance that ran it). See :mod:`server.quick.pairing`.
"""

from __future__ import annotations

import json
from typing import Any, Final

from .scripts import script
from .status import Status, status_of
from .store import Store

#: The variants (cells) with a queue each.
VARIANTS: Final = (4, 2, 1)
#: Players one variant's queue holds at most (a ``queue`` past it hears ``busy``).
MAX_WAITING: Final = 5000
#: Ready players one pairing pass looks at (the lowest skills first), and groups it makes at
#: most.
MAX_SCANNED: Final = 400
MAX_GROUPS: Final = 100
#: The wait's score of a player held back (a dodger's penalty): this plus the time (ms) they
#: become ready, so that they sort after every ready player, by that time, and a pass looks
#: at ready players only (a crowd held back never hides the rest of the queue from it).
HELD: Final = 10**13
#: Seconds the queue's keys live after their last change.
QUEUE_TTL: Final = 3600
#: Seconds a dodge counts (``player:{P}:dodges`` expires this long after the last one).
DODGE_TTL: Final = 3600


def _keys(store: Store, cells: int) -> list[str]:
    k = store.keys
    return [k.queue_wait(cells), k.queue_info(cells), k.queue_paired(cells)]


async def add(
    store: Store,
    cells: int,
    pid: str,
    mu: float,
    since: int,
    ready: int,
    inst: str,
    now: int,
    addr: str = "",
) -> Status:
    """Put a player in the queue of ``cells``, waiting since ``since`` and ready to be paired
    from ``ready`` (both ms; ``now`` is the time now); ``ok``, ``already_queued`` (waiting in
    this queue or another variant's) or ``full``. ``addr`` marks the client address: the
    pairing never puts two players of one address in a group (empty: an address of its
    own)."""
    entry: dict[str, str | int | float] = {"since": since, "ready": ready, "inst": inst, "mu": mu}
    if addr:
        entry["addr"] = addr
    info = json.dumps(entry, separators=(",", ":"))
    score = mu if ready <= now else HELD + ready
    others = [store.keys.queue_wait(other) for other in VARIANTS if other != cells]
    out = await script(store.redis, "queue_add")(
        keys=[*_keys(store, cells), *others], args=[pid, score, info, MAX_WAITING, QUEUE_TTL]
    )
    return status_of(out)


async def queued_in(store: Store, pid: str) -> int | None:
    """The variant whose queue holds ``pid``, or None."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for cells in VARIANTS:
            pipe.zscore(store.keys.queue_wait(cells), pid)
        found = await pipe.execute()
    for cells, score in zip(VARIANTS, found, strict=True):
        if score is not None:
            return cells
    return None


async def remove(store: Store, cells: int, pid: str) -> bool:
    """Take a player out of the queue; False if they were not waiting in it (already paired,
    say)."""
    k = store.keys
    batch = store.batch().zrem(k.queue_wait(cells), pid).hdel(k.queue_info(cells), pid)
    removed, _ = await batch.execute()
    return bool(removed)


async def pair(store: Store, cells: int, now: int, fourth_ms: int) -> list[list[str]]:
    """One pairing pass (``lua/queue_pair.lua``): the groups it took out of the queue."""
    return [group for group, _home in await pair_marked(store, cells, now, fourth_ms)]


async def pair_marked(
    store: Store, cells: int, now: int, fourth_ms: int
) -> list[tuple[list[str], bool]]:
    """One pairing pass: the groups it took out of the queue, each with whether it is a
    household's (:func:`marked_groups`)."""
    k = store.keys
    raw = await script(store.redis, "queue_pair")(
        keys=[k.queue_wait(cells), k.queue_info(cells)],
        args=[now, fourth_ms, MAX_SCANNED, MAX_GROUPS, QUEUE_TTL, HELD],
    )
    return marked_groups(raw)


def marked_groups(raw: list[Any]) -> list[tuple[list[str], bool]]:
    """The groups a pairing script answered, each with whether it is a household's (its
    size came negative: players of one client address, paired as nobody else waited)."""
    items = [str(x) for x in raw]
    groups: list[tuple[list[str], bool]] = []
    i = 0
    while i < len(items):
        n = int(items[i])
        groups.append((items[i + 1 : i + 1 + abs(n)], n < 0))
        i += 1 + abs(n)
    return groups


async def ready_since(store: Store, cells: int, now: int) -> dict[str, int]:
    """The players of a variant's queue who may be paired now (at most :data:`MAX_SCANNED`,
    as a pairing pass sees them), each with the time (ms) they queued: what the wait for a
    fourth counts from."""
    k = store.keys
    pids = [
        str(p)
        for p in await store.redis.zrangebyscore(
            k.queue_wait(cells), "-inf", f"({HELD}", start=0, num=MAX_SCANNED
        )
    ]
    if not pids:
        return {}
    out: dict[str, int] = {}
    for pid, raw in zip(pids, await store.redis.hmget(k.queue_info(cells), pids), strict=True):
        if raw is None:
            continue
        info = json.loads(raw)
        if int(info["ready"]) <= now:
            out[pid] = int(info["since"])
    return out


async def assign(store: Store, cells: int, room: str, pids: list[str]) -> None:
    """Tell the instances of ``pids`` which room their pairing made (they take it from
    there, see :func:`taken`)."""
    key = store.keys.queue_paired(cells)
    await store.batch().hset(key, dict.fromkeys(pids, room)).expire(key, QUEUE_TTL).execute()


async def look(store: Store, cells: int, pids: list[str]) -> tuple[list[str | None], list[bool]]:
    """For players waiting on this instance: the room each was paired into (or None), and
    whether each is still in the queue."""
    k = store.keys
    async with store.redis.pipeline(transaction=False) as pipe:
        pipe.hmget(k.queue_paired(cells), pids)
        for pid in pids:
            pipe.zscore(k.queue_wait(cells), pid)
        found = await pipe.execute()
    return list(found[0]), [score is not None for score in found[1:]]


async def taken(store: Store, cells: int, pid: str) -> bool:
    """Take a pairing (once: False if another socket or instance took it first)."""
    return bool(await store.redis.hdel(store.keys.queue_paired(cells), pid))


async def waiting(store: Store, cells: int) -> int:
    """How many wait in a variant's queue."""
    return int(await store.redis.zcard(store.keys.queue_wait(cells)))


async def note_dodge(store: Store, pid: str) -> None:
    """A player left a paired room before its start."""
    key = store.keys.dodges(pid)
    await store.batch().incr(key).expire(key, DODGE_TTL).execute()


async def dodges(store: Store, pid: str) -> int:
    """How often a player dodged in the last hour (since the last dodge)."""
    return int(await store.redis.get(store.keys.dodges(pid)) or 0)

"""Repeated results against the same rivals: what each player counted against whom, and
when, for the window of ``contest_repeat_days`` (:func:`server.fairplay.contest.worth`).

Two kinds, each a sorted set of the player's own (``{P}``, one slot): ``rated``
(``rating:{P}:repeats``, every rated result that counted against a rival) and ``arena``
(``player:{P}:beaten``, every arena race in which they placed ahead of a rival). A member
is ``RIVAL\\tROOM/ROUND``, so that a race remembered twice (another instance, a retry)
counts once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

from .store import Store

Kind = Literal["rated", "arena"]
#: Results a player's set keeps at most (the oldest go first).
MAX_REPEATS: Final = 2000


def _key(store: Store, kind: Kind, pid: str) -> str:
    return store.keys.rating_repeats(pid) if kind == "rated" else store.keys.arena_beaten(pid)


async def counted(
    store: Store, kind: Kind, rivals_of: Mapping[str, list[str]], since: int
) -> dict[str, dict[str, int]]:
    """For each player of ``rivals_of``, how many results of ``kind`` they counted against
    each of their rivals since ``since`` (ms)."""
    pids = list(rivals_of)
    async with store.redis.pipeline(transaction=False) as pipe:
        for pid in pids:
            pipe.zrangebyscore(_key(store, kind, pid), since, "+inf")
        found = await pipe.execute()
    out: dict[str, dict[str, int]] = {}
    for pid, members in zip(pids, found, strict=True):
        wanted = set(rivals_of[pid])
        counts = dict.fromkeys(wanted, 0)
        for member in members:
            rival = str(member).split("\t", 1)[0]
            if rival in wanted:
                counts[rival] += 1
        out[pid] = counts
    return out


async def remember(
    store: Store,
    kind: Kind,
    rivals_of: Mapping[str, list[str]],
    race: str,
    at: int,
    keep_s: int,
) -> None:
    """Each player of ``rivals_of`` counted a result of ``kind`` against each of their
    rivals in ``race`` at ``at`` (ms), kept ``keep_s``."""
    for pid, rivals in rivals_of.items():
        if not rivals:
            continue
        key = _key(store, kind, pid)
        batch = store.batch().zadd(key, {f"{rival}\t{race}": at for rival in rivals})
        batch.zremrangebyscore(key, "-inf", at - keep_s * 1000)
        batch.zremrangebyrank(key, 0, -(MAX_REPEATS + 1))
        await batch.expire(key, keep_s).execute()

"""Established players' names, by skeleton: the names nobody else may take.

A name is kept by its UTS #39 skeleton (:func:`protocol.names.skeleton`) in one hash,
``names:skeletons`` (skeleton -> player id), when its player is listed as established
(a rated race's line, :mod:`server.ranked.ratings`; a ranked daily of an established
finisher, :mod:`server.ranked.finish`); a ``hello`` whose name has the skeleton of another
player's is refused (``name_taken``). The hash lives ``keep_s`` after its last write.
"""

from __future__ import annotations

from .store import Store


async def keep(store: Store, skeleton: str, pid: str, keep_s: int) -> None:
    """``pid``, established, holds the name of ``skeleton`` (the first holder keeps it)."""
    key = store.keys.name_skeletons()
    async with store.redis.pipeline(transaction=False) as pipe:
        pipe.hsetnx(key, skeleton, pid)
        pipe.expire(key, keep_s)
        await pipe.execute()


async def holder(store: Store, skeleton: str) -> str | None:
    """The established player whose name has ``skeleton``, or None."""
    found = await store.redis.hget(store.keys.name_skeletons(), skeleton)
    return None if found is None else str(found)

"""Whom each player follows: a bounded hash ``player:{PID}:follows`` (followed player id ->
``{at, name}``), the follower's alone. Nobody else reads it: it is never in a public
answer, and the Friends tab and "friends racing now" only filter what their owner could
see anyway (today's public board, the public rooms live).

A player may be followed only if something of theirs is kept (a race, a daily day, solo
statistics, a rating): an id nobody ever played under is refused, so the list holds
players, not guesses. The name kept is the one a public board last showed for them.
"""

from __future__ import annotations

import json
from typing import Any, Final

from .scripts import script
from .store import Store

#: Players one may follow at most.
MAX_FOLLOWS: Final = 200


def _traces(store: Store, pid: str) -> list[str]:
    """The keys of a player whose existence proves the player played (one slot: ``{P}``)."""
    k = store.keys
    return [
        k.player_races(pid),
        k.player_days(pid),
        *(k.solo_stats(pid, c) for c in (4, 2, 1)),
        *(k.rating(pid, c) for c in (4, 2, 1)),
    ]


async def known(store: Store, pid: str) -> bool:
    """Whether anything of player ``pid`` is kept."""
    return int(await store.redis.exists(*_traces(store, pid))) > 0


async def shown_name(store: Store, pid: str) -> str:
    """The name a public board shows for a player: their rating's, else their last ranked
    daily's, else empty."""
    k = store.keys
    for cells in (4, 2, 1):
        name = await store.redis.hget(k.rating(pid, cells), "name")
        if name:
            return str(name)
    days = await store.redis.zrevrange(k.player_days(pid), 0, 0)
    for date in days:
        for kind in ("daily", "hard"):
            text = await store.redis.hget(k.leaderboard_entries(str(date), kind), pid)
            if text:
                return str(json.loads(text).get("name", ""))
    return ""


async def follow(store: Store, pid: str, other: str, name: str, at: int, keep_s: int) -> bool:
    """Add ``other`` to ``pid``'s follows; False when the list is full."""
    entry = json.dumps({"at": at, "name": name[:64]}, separators=(",", ":"))
    done = await script(store.redis, "follow")(
        keys=[store.keys.follows(pid)], args=[other, entry, MAX_FOLLOWS, keep_s]
    )
    return bool(done)


async def unfollow(store: Store, pid: str, other: str) -> None:
    """Remove ``other`` from ``pid``'s follows (nothing when not followed)."""
    await store.redis.hdel(store.keys.follows(pid), other)


async def follows(store: Store, pid: str) -> list[dict[str, Any]]:
    """``[{player_id, name}]`` whom ``pid`` follows, the most recently followed first."""
    raw = await store.redis.hgetall(store.keys.follows(pid))
    rows = [(json.loads(v), str(k)) for k, v in raw.items()]
    rows.sort(key=lambda row: -int(row[0].get("at", 0)))
    return [{"player_id": p, "name": str(e.get("name", ""))} for e, p in rows]


async def followed(store: Store, pid: str) -> set[str]:
    """The ids ``pid`` follows."""
    return {str(x) for x in await store.redis.hkeys(store.keys.follows(pid))}

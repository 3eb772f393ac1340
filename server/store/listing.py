"""The public rooms that are live, for ``GET /api/rooms/live`` (the web client's Watch list).

A host may make a race room public (``create_room`` with ``public: true``). Such a room is
put in one sorted set, ``rooms:live``, when it is made and again at each rematch (scored by
that moment), and taken out when its race is over. The set keeps the :data:`MAX_LISTED`
most recent rooms and expires a room lifetime after the last listing. A reader takes the
most recent ones and keeps those still live: in the lobby, counting down or racing, with a
racer in them. A room that expired, or whose race ended while no instance that saw it end
was left to unlist it, is dropped from the set by that read.

What a listing shows of a room is what any of its spectators may see at any time: the
racers' names and progress (cards home, moves, finished), the state, the spectator count;
never the game code, a board, or anything of a private room (each room's own field
``public`` is checked on every read, whatever the set holds). The progress is each racer's
last ``progress`` event, which the move script keeps in a public room's hash (``pg:PID``).
"""

from __future__ import annotations

import json
from typing import Any, Final

from .records import RoomPhase, WatchMode
from .store import Store

#: Rooms the index keeps at most (the most recently listed).
MAX_LISTED: Final = 500
#: Rooms one read answers at most.
MAX_ANSWERED: Final = 50
#: The phases in which a room is listed.
LIVE_PHASES: Final = frozenset({RoomPhase.LOBBY, RoomPhase.COUNTDOWN, RoomPhase.RACING})


async def list_room(store: Store, room: str, now: int) -> None:
    """Put a public room in the index (at its creation or a rematch)."""
    key = store.keys.live_rooms()
    batch = store.batch().zadd(key, {room: now}).zremrangebyrank(key, 0, -(MAX_LISTED + 1))
    await batch.expire(key, store.ttl).execute()


async def unlist_room(store: Store, room: str) -> None:
    """Take a room out of the index (its race is over)."""
    await store.redis.zrem(store.keys.live_rooms(), room)


async def live_rooms(store: Store, limit: int = MAX_ANSWERED) -> list[dict[str, Any]]:
    """The most recently listed public rooms that are live, at most ``limit``, newest first.

    One read of the index and one pipeline of two reads per candidate room.
    """
    limit = max(0, min(limit, MAX_ANSWERED))
    if limit == 0:
        return []
    k = store.keys
    rooms: list[str] = await store.redis.zrevrange(k.live_rooms(), 0, 2 * limit - 1)
    if not rooms:
        return []
    async with store.redis.pipeline(transaction=False) as pipe:
        for room in rooms:
            pipe.hgetall(k.room(room))
            pipe.hvals(k.members(room))
        found = await pipe.execute()
    out: list[dict[str, Any]] = []
    gone: list[str] = []
    for i, room in enumerate(rooms):
        fields: dict[str, str] = found[2 * i]
        members: list[str] = found[2 * i + 1]
        if not fields or fields.get("public") != "1" or fields.get("state") not in LIVE_PHASES:
            gone.append(room)  # expired, over, or never public: not for this list
            continue
        view = room_view(fields, members)
        if view["racers"] and len(out) < limit:
            out.append(view)
    if gone:
        await store.redis.zrem(k.live_rooms(), *gone)
    return out


def room_view(fields: dict[str, str], members: list[str]) -> dict[str, Any]:
    """What the list shows of one public room: no code, no board."""
    state = fields["state"]
    round_ = int(fields.get("round") or 1)
    racers = []
    for text in members:
        member = json.loads(text)
        if member.get("role") != "player":
            continue
        pid = str(member["player_id"])
        progress: dict[str, Any] = {}
        last = fields.get(f"pg:{pid}")
        if last:
            progress = json.loads("{" + last)  # a progress body: the JSON without its "{"
            if progress.get("round") != round_:
                progress = {}
        status = fields.get(f"st:{pid}", "waiting")
        racers.append(
            {
                "player_id": pid,
                "name": member["name"],
                "status": status,
                "foundation_cards": int(progress.get("foundation_cards", 0)),
                "moves": int(progress.get("moves", 0)),
                "finished": status == "finished",
            }
        )
    racers.sort(key=lambda r: (-r["foundation_cards"], r["moves"], r["name"]))
    watch = fields.get("watch") or WatchMode.DELAYED
    starts_at = fields.get("starts_at")
    return {
        "room_id": fields["room_id"],
        "cells": int(fields["cells"]),
        "state": state,
        "round": round_,
        "watch": watch,
        "delay_s": int(fields.get("delay_s") or 0) if watch == WatchMode.DELAYED else None,
        "starts_at": int(starts_at) if starts_at and state != RoomPhase.LOBBY else None,
        "spectators": int(fields.get("ns") or 0),
        "racers": racers,
    }


#: The phases in which a listed room may be the featured race.
FEATURED_PHASES: Final = frozenset({RoomPhase.COUNTDOWN, RoomPhase.RACING})


async def rated_view(
    store: Store, rooms: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The listed rooms with each racer's rating of the room's variant (None: unrated), and
    the featured race: the running one whose racers' mean rating is highest (an unrated
    racer counts 1000), or None. It shows what the list shows, nothing more."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for view in rooms:
            for racer in view["racers"]:
                pipe.hget(store.keys.rating(racer["player_id"], view["cells"]), "rating")
        found = iter(await pipe.execute())
    best: tuple[float, int] | None = None
    out: list[dict[str, Any]] = []
    for i, view in enumerate(rooms):
        racers = [
            {**r, "rating": None if (x := next(found)) is None else int(x)} for r in view["racers"]
        ]
        out.append({**view, "racers": racers})
        if view["state"] in FEATURED_PHASES and racers:
            mean = sum(r["rating"] or 1000 for r in racers) / len(racers)
            if best is None or mean > best[0]:
                best = (mean, i)
    return out, (None if best is None else out[best[1]])

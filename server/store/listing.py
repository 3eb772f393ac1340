"""The public rooms that are live, for ``GET /api/rooms/live`` (the web client's Watch list).

A host may make a room public (``create_room`` with ``public: true``). Such a room is
put in the sorted set of lobbies, ``rooms:lobby``, when it is made and again at each rematch
(scored by that moment); at its start it moves to the set of running races,
``rooms:live``; it is taken out when its race is over. Each set keeps the
:data:`MAX_LISTED` most recent rooms. A reader takes the running races first, then the
lobbies younger than ``lobby_ttl_s`` (a lobby that did not start by then is no longer
listed), and keeps those still live with a racer in them: however many lobbies are
made, they never crowd a running race out of the list. A room that expired, or whose race
ended while no instance that saw it end was left to unlist it, is dropped by that read.

Spam is bounded where rooms are made (:func:`open_lobby`, :func:`public_lobbies`): an
identity has one open lobby at a time, an address a handful of public ones.

What a listing shows of a room is what any of its spectators may see at any time: the
racers' names and progress (cards home, moves, finished), the state, the spectator count;
never the game code, a board, or anything of a private room (each room's own field
``public`` is checked on every read, whatever the set holds). The progress is each racer's
last ``progress`` event, which the move script keeps in a public room's hash (``pg:PID``).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from protocol.vocabulary import RoomPhase, WatchMode

from ..quiet import Quiet
from .ratings import Bar
from .store import Store

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Rooms the index keeps at most (the most recently listed).
MAX_LISTED: Final = 500
#: Rooms one read answers at most.
MAX_ANSWERED: Final = 50
#: The phases in which a room is listed.
LIVE_PHASES: Final = frozenset({RoomPhase.LOBBY, RoomPhase.COUNTDOWN, RoomPhase.RACING})


async def list_room(store: Store, room: str, now: int) -> None:
    """Put a public room among the listed lobbies (at its creation or a rematch)."""
    await _listed(store, store.keys.lobby_rooms(), room, now)


async def list_running(store: Store, room: str, now: int) -> None:
    """A listed room started: among the running races from now on."""
    await store.redis.zrem(store.keys.lobby_rooms(), room)
    await _listed(store, store.keys.live_rooms(), room, now)


async def _listed(store: Store, key: str, room: str, now: int) -> None:
    batch = store.batch().zadd(key, {room: now}).zremrangebyrank(key, 0, -(MAX_LISTED + 1))
    await batch.expire(key, store.ttl).execute()


async def unlist_room(store: Store, room: str) -> None:
    """Take a room out of the index (its race is over, or its lobby closed)."""
    await store.redis.zrem(store.keys.live_rooms(), room)
    await store.redis.zrem(store.keys.lobby_rooms(), room)


async def open_lobby(store: Store, pid: str) -> str | None:
    """The lobby ``pid`` opened and is still in, or None (then they may open another)."""
    k = store.keys
    room = await store.redis.get(k.player_lobby(pid))
    if room is None:
        return None
    state = await store.redis.hget(k.room(room), "state")
    here = await store.redis.hexists(k.members(room), pid)
    return str(room) if state == RoomPhase.LOBBY and here else None


async def public_lobbies(store: Store, mark: str, since: int) -> int:
    """How many public rooms an address (its ``mark``) opened since ``since`` (ms) that
    are still in their lobby."""
    key = store.keys.address_lobbies(mark)
    await store.redis.zremrangebyscore(key, "-inf", since - 1)
    rooms: list[str] = await store.redis.zrange(key, 0, -1)
    if not rooms:
        return 0
    async with store.redis.pipeline(transaction=False) as pipe:
        for room in rooms:
            pipe.hget(store.keys.room(room), "state")
        states = await pipe.execute()
    return sum(1 for state in states if state == RoomPhase.LOBBY)


async def opened(
    store: Store, pid: str, mark: str, room: str, public: bool, now: int, ttl_s: int
) -> None:
    """``pid`` (from the address of ``mark``) opened the lobby ``room``."""
    await store.redis.set(store.keys.player_lobby(pid), room, ex=ttl_s)
    if public:
        key = store.keys.address_lobbies(mark)
        await store.batch().zadd(key, {room: now}).expire(key, ttl_s).execute()


async def live_rooms(
    store: Store, limit: int = MAX_ANSWERED, lobby_since: int = 0
) -> list[dict[str, Any]]:
    """The public rooms that are live, at most ``limit``: the running races, the most
    recently started first, then the lobbies listed since ``lobby_since`` (ms), newest
    first.

    Two reads of the index and one pipeline of two reads per candidate room.
    """
    limit = max(0, min(limit, MAX_ANSWERED))
    if limit == 0:
        return []
    k = store.keys
    running: list[str] = await store.redis.zrevrange(k.live_rooms(), 0, 2 * limit - 1)
    lobbies: list[str] = await store.redis.zrevrangebyscore(
        k.lobby_rooms(), "+inf", lobby_since, start=0, num=2 * limit
    )
    seen = set(running)
    rooms = [*running, *(room for room in lobbies if room not in seen)]
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
        try:
            view = room_view(fields, members)
        except (ValueError, KeyError, TypeError):
            # One room the list cannot read (written by another version, say) is left out
            # of this answer; it never fails the whole list.
            QUIET.failure("listing", "the live list could not read room %s", room)
            continue
        if view["racers"] and len(out) < limit:
            out.append(view)
    if gone:
        await store.redis.zrem(k.live_rooms(), *gone)
        await store.redis.zrem(k.lobby_rooms(), *gone)
    out.sort(key=lambda view: view["state"] == RoomPhase.LOBBY)  # stable: running first
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
            # A progress body, the JSON without its "{"; a request of several actions (send
            # home) writes one per action, a line each: the last one is the progress now.
            progress = json.loads("{" + last.rsplit("\n", 1)[-1])
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
        # An arena's race is named by its arena on Watch (the id only: public like its table).
        "arena": fields.get("arena") or None,
    }


#: The phases in which a listed room may be the featured race.
FEATURED_PHASES: Final = frozenset({RoomPhase.COUNTDOWN, RoomPhase.RACING})


async def rated_view(
    store: Store, rooms: list[dict[str, Any]], bar: Bar
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The listed rooms with each racer's rating of the room's variant (None: unrated) and
    whether it is provisional, and the featured race: of the running ones whose racers are
    all established, the one whose racers' mean rating is highest, or None (fresh
    identities cannot put a race up front). It shows what the list shows, nothing more."""
    async with store.redis.pipeline(transaction=False) as pipe:
        for view in rooms:
            for racer in view["racers"]:
                key = store.keys.rating(racer["player_id"], view["cells"])
                pipe.hmget(key, "rating", "games", "rivals")
                pipe.zcard(store.keys.player_days(racer["player_id"]))
        found = iter(await pipe.execute())
    best: tuple[float, int] | None = None
    out: list[dict[str, Any]] = []
    for i, view in enumerate(rooms):
        racers = []
        for r in view["racers"]:
            (rating, games, rivals), days = next(found), next(found)
            provisional = not bar.met(int(games or 0), int(days or 0), int(rivals or 0))
            shown = None if rating is None else int(rating)
            racers.append({**r, "rating": shown, "provisional": provisional})
        out.append({**view, "racers": racers})
        if any(r["provisional"] for r in racers):
            continue
        if view["state"] in FEATURED_PHASES and racers:
            mean = sum(r["rating"] or 1000 for r in racers) / len(racers)
            if best is None or mean > best[0]:
                best = (mean, i)
    return out, (None if best is None else out[best[1]])


async def arena_named(store: Store, rooms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listed rooms, each arena race with its arena's length in minutes
    (``arena_minutes``; None if the arena is gone), so that Watch names it as the arena's page
    titles its arena (level and length). Both are on the arena's public page already."""
    arenas = sorted({str(view["arena"]) for view in rooms if view.get("arena")})
    found: dict[str, Any] = {}
    if arenas:
        async with store.redis.pipeline(transaction=False) as pipe:
            for arena in arenas:
                pipe.hget(store.keys.arena(arena), "minutes")
            found = dict(zip(arenas, await pipe.execute(), strict=True))
    out = []
    for view in rooms:
        minutes = found.get(str(view.get("arena") or ""))
        out.append({**view, "arena_minutes": int(minutes) if minutes else None})
    return out

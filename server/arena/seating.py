"""The arena messages of a player: make a private arena, join one, leave it, watch its
standings, pledge no take-backs in the coming race.

Where a player may be (one room, the queue or one arena) is :mod:`server.whereabouts`'s rule;
an arena's seat is taken in Redis too (``player:{P}:arena``), so that two instances never
seat one player in two arenas.
"""

from __future__ import annotations

import secrets
from typing import Final

from ..clock import now_ms
from ..fairplay.standing import standing
from ..net import wire
from ..net.member import Member
from ..ranked.ratings import START, address_mark, shown
from ..rooms import membership
from ..rooms.records import RoomPhase
from ..store import arenas
from ..store import ratings as stored
from ..store.status import Status
from ..whereabouts import Place, Seat
from .host import Host
from .standings import info, known, phase_of, pool_score, send_standings

ARENA_ALPHABET: Final = membership.ROOM_ALPHABET


async def create_private(
    ctx: Host, conn: Member, cells: int, minutes: int, starts_in_s: int
) -> Status:
    """Make a private arena (``create_arena``) and seat its maker in it."""
    pid = conn.pid or ""
    now = now_ms()
    starts = now + starts_in_s * 1000
    ends = starts + minutes * ctx.settings.arena_minute_ms
    arena = "A" + "".join(secrets.choice(ARENA_ALPHABET) for _ in range(8))
    if not await arenas.claim_maker(ctx.store, pid, arena, ends):
        return Status.ARENA_LIMIT
    most = ctx.settings.private_arenas_per_address
    if not await arenas.claim_address(ctx.store, address_mark(conn.address), arena, ends, most):
        await arenas.release_maker(ctx.store, pid, arena)
        return Status.TOO_MANY_ARENAS
    fields: dict[str, str | int] = {
        "cells": cells,
        "minutes": minutes,
        "starts_at": starts,
        "ends_at": ends,
        "private": 1,
        "made_by": pid,
    }
    await arenas.create(ctx.store, arena, fields)
    return await join(ctx, conn, arena, invite=f"/#/arena/{arena}")


async def join(ctx: Host, conn: Member, arena: str, invite: str | None = None) -> Status:
    """Seat a socket's player in an arena (``arena_join``); ``ok`` or the refusal."""
    pid = conn.pid or ""
    here = ctx.whereabouts
    # A racer whose socket was replaced mid-arena (a reload, a dropped connection) resumes
    # the room of their race first, then joins again: that room is no bar to their seat.
    own = await own_race(ctx, conn, arena)
    refused = await here.refusal(ctx.store, conn, Place.ARENA, own)
    if refused is not None:
        return refused
    entry = await known(ctx, arena)
    if entry is None:
        return Status.ARENA_NOT_FOUND
    if phase_of(entry.fields, now_ms()) == "over" or now_ms() >= int(entry.fields["ends_at"]):
        return Status.ARENA_OVER
    if not (await standing(ctx.reviews, pid)).may_rank:
        return Status.BARRED  # its races are rated
    cells = int(entry.fields["cells"])
    ends = int(entry.fields["ends_at"])
    other = await arenas.claim_player(ctx.store, pid, arena, ends + 900_000)
    if other is not None and other != arena:
        return Status.ALREADY_IN_ARENA
    skill = (await stored.skills(ctx.store, [pid], cells, START))[pid]
    rating = shown(skill.mu, skill.sigma)
    data = {"name": conn.name, "addr": address_mark(conn.address), "rating": rating}
    now = now_ms()
    status = await arenas.join(
        ctx.store, arena, pid, data, pool_score(entry, pid, rating), now, ends
    )
    if status is not Status.OK:
        await arenas.release_player(ctx.store, pid, arena)
        return status
    late = Status.ALREADY_IN_ROOM if not conn.is_open() else here.here(conn, Place.ARENA, own)
    if late is not None:
        await arenas.leave(ctx.store, arena, pid)  # gone or elsewhere meanwhile
        await arenas.release_player(ctx.store, pid, arena)
        return late
    seat = here.seats[pid] = Seat(pid, conn, arena)
    if own is not None and (await arenas.racing(ctx.store, arena)).get(pid) == own:
        seat.room = own  # still racing it: its end brings them back to the pool
    entry = await known(ctx, arena)
    assert entry is not None
    conn.queue(
        wire.arena(
            info(arena, entry.fields, len(entry.players), now, ctx.settings.arena_grace_ms),
            "racing" if seat.room else "pool",
            seat.room,
            now,
            invite,
        )
    )
    send_standings(entry, arena, conn, now)
    return Status.OK


async def own_race(ctx: Host, conn: Member, arena: str) -> str | None:
    """The room the socket is in, when it is a race of ``arena`` (else None)."""
    room = conn.room
    if room is None:
        return None
    return room if (await ctx.store.room_fields(room)).get("arena") == arena else None


async def leave(ctx: Host, conn: Member) -> Status:
    """``arena_leave``: out of the arena (a race you are in goes on)."""
    if not await ctx.whereabouts.leave_arena(ctx.store, conn, "asked"):
        return Status.NOT_IN_ARENA
    return Status.OK


async def watch(ctx: Host, conn: Member, arena: str) -> Status:
    """``arena_watch``: the arena's standings, pushed, without joining it."""
    entry = await known(ctx, arena)
    if entry is None:
        return Status.ARENA_NOT_FOUND
    ctx.whereabouts.unwatch(conn)
    ctx.whereabouts.watching.setdefault(arena, set()).add(conn)
    now = now_ms()
    seat = ctx.whereabouts.seat_of(conn)
    where = "out" if seat is None or seat.arena != arena else ("racing" if seat.room else "pool")
    room = seat.room if seat is not None and seat.arena == arena else None
    conn.queue(
        wire.arena(
            info(arena, entry.fields, len(entry.players), now, ctx.settings.arena_grace_ms),
            where,
            room,
            now,
        )
    )
    send_standings(entry, arena, conn, now)
    return Status.OK


async def pledge(ctx: Host, conn: Member) -> Status:
    """``arena_pledge``: no take-backs in the coming race of your arena."""
    seat = ctx.whereabouts.seat_of(conn)
    room = conn.room
    if seat is None or room is None or seat.room != room:
        return Status.NO_PLEDGE
    fields = await ctx.store.room_fields(room)
    if fields.get("arena") != seat.arena or fields.get("state") not in (
        RoomPhase.LOBBY,
        RoomPhase.COUNTDOWN,
    ):
        return Status.NO_PLEDGE
    entry = await known(ctx, seat.arena, refresh=False)
    ends = int(entry.fields["ends_at"]) if entry else now_ms()
    await arenas.pledge(ctx.store, seat.arena, room, seat.pid, ends)
    conn.queue(wire.arena_pledged(room))
    return Status.OK

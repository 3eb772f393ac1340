"""The sockets of this instance seated in an arena, and those watching one.

The arena itself is in Redis (:mod:`server.store.arenas`); an instance remembers which of
its own sockets sit in which arena (``Context.arena_seats``, by player id), to bring each
into the race a pairing made for it and back to the pool after, and which sockets watch an
arena's standings (``Context.arena_watchers``). :mod:`server.rooms.membership` calls
:func:`entering` on every entry into a room and :func:`closed` on every close: a player in
an arena is never in another room at once, and a socket that closes leaves its arena.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..context import Context
from ..net import wire
from ..net.member import Member
from ..store import arenas


@dataclass(slots=True)
class Seat:
    """One socket in an arena.

    Attributes:
        pid: the player.
        conn: the socket that sent ``arena_join``.
        arena: the arena.
        room: the race they were brought into (None: in the pool).
        missing: since when (ms) Redis holds them neither in the pool nor in a race (0: it
            does), or their socket is out of the race it was paired into.
        joining: their socket is on its way into that race.
    """

    pid: str
    conn: Member
    arena: str
    room: str | None = None
    missing: int = 0
    joining: bool = False


def of(ctx: Context, conn: Member) -> Seat | None:
    """The seat of this socket, or None."""
    seat = ctx.arena_seats.get(conn.pid or "")
    if isinstance(seat, Seat) and seat.conn is conn:
        return seat
    return next((s for s in ctx.arena_seats.values() if s.conn is conn), None)


def seats_in(ctx: Context, arena: str) -> list[Seat]:
    """This instance's seats in ``arena``."""
    return [s for s in ctx.arena_seats.values() if isinstance(s, Seat) and s.arena == arena]


async def leave(ctx: Context, conn: Member, reason: str | None) -> bool:
    """Take this socket's player out of its arena, telling it ``arena_left`` with
    ``reason`` (None: the socket is gone). False when it sat in none here."""
    seat = of(ctx, conn)
    if seat is None:
        return False
    del ctx.arena_seats[seat.pid]
    await arenas.leave(ctx.store, seat.arena, seat.pid)
    await arenas.release_player(ctx.store, seat.pid, seat.arena)
    if reason is not None:
        conn.queue(wire.arena_left(seat.arena, reason))
    return True


async def entering(ctx: Context, conn: Member, room: str) -> None:
    """A socket enters ``room``: unless it is its arena's race, it leaves the arena."""
    seat = of(ctx, conn)
    if seat is not None and seat.room != room:
        await leave(ctx, conn, "room")


def unwatch(ctx: Context, conn: Member) -> None:
    """The socket no longer watches any arena."""
    for arena, sockets in list(ctx.arena_watchers.items()):
        sockets.discard(conn)
        if not sockets:
            del ctx.arena_watchers[arena]


async def closed(ctx: Context, conn: Member) -> None:
    """A socket closed: out of its arena and off every arena it watched."""
    unwatch(ctx, conn)
    await leave(ctx, conn, None)

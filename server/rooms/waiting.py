"""The sockets of this instance that wait in the quick-race queue.

The queue itself is in Redis (:mod:`server.store.queue`); an instance remembers which of
its own sockets wait, by player id (``Context.waiting``), to bring each into the room a
pairing made for it, to offer a bot, and to take it out of the queue when it enters a room
by itself or closes. :mod:`server.rooms.membership` calls :func:`leave` on every entry into
a room and on every close: a player is never in the queue and in a room at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..context import Context
from ..net import wire
from ..net.member import Member
from ..store import queue


@dataclass(slots=True)
class Waiting:
    """One socket in the queue.

    Attributes:
        pid: the player who waits.
        conn: the socket that sent ``queue``.
        cells: the variant.
        since: when it queued (ms).
        rating: its shown rating of the variant (for the bot's pace).
        offered: a bot was offered.
        missing: since when (ms) the queue holds it neither waiting nor paired (0: it does).
        told: the last ``pairing`` it was sent (racers, pair by), to send only news.
    """

    pid: str
    conn: Member
    cells: int
    since: int
    rating: int
    offered: bool = False
    missing: int = 0
    told: tuple[int, int] | None = None


def of(ctx: Context, conn: Member) -> Waiting | None:
    """The wait of this socket, or None (also when the socket has said ``hello`` as someone
    else since it queued: the wait is the socket's, under the player it queued as)."""
    entry = ctx.waiting.get(conn.pid or "")
    if isinstance(entry, Waiting) and entry.conn is conn:
        return entry
    return next(
        (w for w in ctx.waiting.values() if isinstance(w, Waiting) and w.conn is conn), None
    )


async def leave(ctx: Context, conn: Member, reason: str | None) -> bool:
    """Take this socket's player out of the queue, telling it ``unqueued`` with ``reason``
    (None: say nothing, the socket is gone). False when it was not waiting here."""
    entry = of(ctx, conn)
    if entry is None:
        return False
    del ctx.waiting[entry.pid]
    await queue.remove(ctx.store, entry.cells, entry.pid)
    if reason is not None:
        conn.queue(wire.unqueued(entry.cells, reason))
    return True

"""Where a player is: in one room, the quick-race queue or one arena, never two at once.

The queue and the arenas are in Redis (:mod:`server.store.queue`, :mod:`server.store.arenas`),
shared by every instance; an instance remembers which of its own sockets wait in the queue
(:class:`Waiting`) or sit in an arena (:class:`Seat`), by player id, to bring each into the
room a pairing made for it. This module holds that memory and the one rule over it:

- a socket may queue, or join an arena, only when it is in no room, no queue and no arena
  (:meth:`Whereabouts.refusal`), here or, as Redis says, on another instance;
- a socket that enters a room leaves the queue, and its arena unless the room is its
  arena's race (:meth:`Whereabouts.entering`);
- a socket that closes leaves both (:meth:`Whereabouts.closed`).

The quick race (:mod:`server.quick`) and the arenas (:mod:`server.arena`) put their sockets
here; the rooms (:mod:`server.rooms.membership`) call :meth:`Whereabouts.entering` and
:meth:`Whereabouts.closed` without knowing either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .net import wire
from .net.member import Member
from .store import arenas, queue
from .store.status import Status
from .store.store import Store


class Place(StrEnum):
    """Where a socket may go."""

    ROOM = "room"
    QUEUE = "queue"
    ARENA = "arena"


@dataclass(slots=True)
class Waiting:
    """One socket in the quick-race queue.

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


@dataclass(slots=True)
class Whereabouts:
    """This instance's sockets in the queue and in arenas, and those watching an arena.

    Attributes:
        waiting: the sockets in the quick-race queue, by player id.
        seats: the sockets seated in an arena, by player id.
        watching: the sockets watching each arena's standings, by arena.
    """

    waiting: dict[str, Waiting] = field(default_factory=dict)
    seats: dict[str, Seat] = field(default_factory=dict)
    watching: dict[str, set[Member]] = field(default_factory=dict)

    # -- reading --------------------------------------------------------------------------

    def wait_of(self, conn: Member) -> Waiting | None:
        """The wait of this socket, or None (also when the socket has said ``hello`` as
        someone else since it queued: the wait is the socket's, under the player it queued
        as)."""
        entry = self.waiting.get(conn.pid or "")
        if entry is not None and entry.conn is conn:
            return entry
        return next((w for w in self.waiting.values() if w.conn is conn), None)

    def seat_of(self, conn: Member) -> Seat | None:
        """The seat of this socket, or None."""
        seat = self.seats.get(conn.pid or "")
        if seat is not None and seat.conn is conn:
            return seat
        return next((s for s in self.seats.values() if s.conn is conn), None)

    def seats_in(self, arena: str) -> list[Seat]:
        """This instance's seats in ``arena``."""
        return [s for s in self.seats.values() if s.arena == arena]

    def waiting_for(self, cells: int) -> list[Waiting]:
        """This instance's sockets in the queue of ``cells``."""
        return [w for w in self.waiting.values() if w.cells == cells]

    # -- the rule -------------------------------------------------------------------------

    def here(self, conn: Member, place: Place, own_room: str | None = None) -> Status | None:
        """Why this socket may not go to ``place``, as this instance knows it; None: it may.
        ``own_room``: a room the socket may be in all the same (a race of the arena it
        joins again, after its socket was replaced).

        The same check again after an await (the socket may have entered a room or queued
        meanwhile) needs no Redis call.
        """
        pid = conn.pid or ""
        if conn.room is not None and conn.room != own_room:
            return Status.ALREADY_IN_ROOM
        if self.wait_of(conn) is not None or pid in self.waiting:
            return Status.ALREADY_QUEUED
        if self.seat_of(conn) is not None or pid in self.seats:
            return Status.ALREADY_IN_ARENA if place is Place.ARENA else Status.IN_ARENA
        return None

    async def refusal(
        self, store: Store, conn: Member, place: Place, own_room: str | None = None
    ) -> Status | None:
        """Why this socket may not go to ``place`` (the queue or an arena), here or on any
        instance; None: it may (``own_room``: as :meth:`here`)."""
        local = self.here(conn, place, own_room)
        if local is not None:
            return local
        pid = conn.pid or ""
        if await queue.queued_in(store, pid) is not None:
            return Status.ALREADY_QUEUED
        if place is Place.QUEUE and await arenas.player_arena(store, pid) is not None:
            return Status.IN_ARENA  # never in an arena and the quick race at once
        return None

    # -- leaving --------------------------------------------------------------------------

    async def leave_queue(self, store: Store, conn: Member, reason: str | None) -> bool:
        """Take this socket's player out of the queue, telling it ``unqueued`` with
        ``reason`` (None: say nothing, the socket is gone). False when it was not waiting
        here."""
        entry = self.wait_of(conn)
        if entry is None:
            return False
        del self.waiting[entry.pid]
        await queue.remove(store, entry.cells, entry.pid)
        if reason is not None:
            conn.queue(wire.unqueued(entry.cells, reason))
        return True

    async def leave_arena(self, store: Store, conn: Member, reason: str | None) -> bool:
        """Take this socket's player out of its arena, telling it ``arena_left`` with
        ``reason`` (None: the socket is gone). False when it sat in none here."""
        seat = self.seat_of(conn)
        if seat is None:
            return False
        del self.seats[seat.pid]
        await arenas.leave(store, seat.arena, seat.pid)
        await arenas.release_player(store, seat.pid, seat.arena)
        if reason is not None:
            conn.queue(wire.arena_left(seat.arena, reason))
        return True

    async def entering(self, store: Store, conn: Member, room: str) -> None:
        """A socket enters ``room``: out of the queue, and out of its arena unless the room
        is its arena's race."""
        await self.leave_queue(store, conn, "room")
        seat = self.seat_of(conn)
        if seat is not None and seat.room != room:
            await self.leave_arena(store, conn, "room")

    def unwatch(self, conn: Member) -> None:
        """The socket no longer watches any arena."""
        for arena, sockets in list(self.watching.items()):
            sockets.discard(conn)
            if not sockets:
                del self.watching[arena]

    async def closed(self, store: Store, conn: Member) -> None:
        """A socket closed: out of the queue, its arena and every arena it watched."""
        await self.leave_queue(store, conn, None)
        self.unwatch(conn)
        await self.leave_arena(store, conn, None)

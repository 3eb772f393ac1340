"""What the quick race and the arenas use of their instance, as two narrow protocols: the
instance's state (:class:`Host`) and the rooms a pairing makes and brings racers into
(:class:`PairedRooms`).

The full context (:class:`server.context.Context`) is a :class:`Host` as it is;
:class:`RoomsOf` is the rooms' answer on it. The pairing's decisions (who is paired, told,
offered a bot, waits again) depend on these two and nothing else, so a test decides them
with small fakes of both and no server.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Coroutine
from typing import Any, Protocol

from ..clock import now_ms
from ..context import Context
from ..daily.deal import draw_open
from ..net.member import Member
from ..rooms import membership, rounds
from ..rooms.records import Mode, Role
from ..settings import Settings
from ..store import listing
from ..store.status import Status
from ..store.store import Store
from ..whereabouts import Whereabouts


class Host(Protocol):
    """What a pairing uses of its instance: its settings, the store, where its sockets
    are, its name, and a way to run something in the background."""

    settings: Settings
    store: Store
    whereabouts: Whereabouts
    instance_id: str

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        """Run a coroutine in the background."""


class PairedRooms(Protocol):
    """What a pairing asks of the rooms: a paired race's room, its start once its racers
    are in, and a socket brought into it."""

    async def open(self, cells: int, arena: str = "", household: bool = False) -> str:
        """A public, rated, paired room on a certified deal, listed, whose wait for its
        racers ends in Redis (any instance starts it then); its id."""

    def start_when_in(self, room: str, racers: int) -> None:
        """In the background: start the room's countdown once ``racers`` are in, or at the
        end of the wait with those who came."""

    async def start(self, room: str) -> Status:
        """Start a paired room's countdown now with those who came (none: it closes)."""

    async def enter(self, conn: Member, room: str) -> Status:
        """The socket joins ``room`` as a racer (and gets its snapshot); ``ok`` or the
        refusal (``race_in_progress``, ``room_not_found``, ``room_full``, ...)."""

    async def leave(self, conn: Member, room: str) -> None:
        """The socket leaves ``room`` (the room of its last race)."""

    async def time_up(self, room: str, round_: int) -> None:
        """The race's time is up: those still playing give up, and it ends."""


class RoomsOf:
    """:class:`PairedRooms` on a whole instance: the rooms' own operations."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def open(self, cells: int, arena: str = "", household: bool = False) -> str:
        """See :meth:`PairedRooms.open`."""
        ctx = self.ctx
        code = draw_open(cells, await ctx.daily.deals.running()).code
        room = await membership.new_room(
            ctx, Mode.RACE, code, cells, public=True, paired=True, arena=arena, household=household
        )
        await listing.list_room(ctx.store, room, now_ms())
        await start_later(ctx, room)  # before anyone is told of the room
        return room

    def start_when_in(self, room: str, racers: int) -> None:
        """See :meth:`PairedRooms.start_when_in`."""
        self.ctx.spawn(start_when_in(self.ctx, room, racers))

    async def start(self, room: str) -> Status:
        """See :meth:`PairedRooms.start`."""
        return await rounds.start_paired(self.ctx, room)

    async def enter(self, conn: Member, room: str) -> Status:
        """See :meth:`PairedRooms.enter`."""
        return await membership.join(self.ctx, conn, room, Role.PLAYER)

    async def leave(self, conn: Member, room: str) -> None:
        """See :meth:`PairedRooms.leave`."""
        await membership.leave(self.ctx, conn, room)

    async def time_up(self, room: str, round_: int) -> None:
        """See :meth:`PairedRooms.time_up`."""
        await rounds.time_up(self.ctx, room, round_)


async def start_later(ctx: Context, room: str) -> None:
    """The durable end of a paired room's wait for its racers: any instance starts it then
    (:func:`rounds.start_paired`), should the one that made it be gone."""
    deadline = json.dumps({"kind": "pair_start", "room": room})
    await ctx.store.add_deadline(deadline, now_ms() + ctx.settings.pair_join_ms)


async def start_when_in(ctx: Context, room: str, racers: int) -> None:
    """Start a paired room's countdown once its ``racers`` are in, or after
    ``pair_join_ms`` with those who came (none: the room is left to expire)."""
    deadline = time.monotonic() + ctx.settings.pair_join_ms / 1000
    while time.monotonic() < deadline:
        fields = await ctx.store.room_fields(room)
        if int(fields.get("np") or 0) >= racers:
            break
        await asyncio.sleep(0.1)
    await rounds.start_paired(ctx, room)

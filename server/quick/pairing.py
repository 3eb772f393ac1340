"""The quick race: pairing waiting players into public, rated races, and the bot offer.

The queue is in Redis (:mod:`server.store.queue`), one per variant, so players waiting on
different instances are paired together. Every instance runs :func:`pairing_loop`: a
pairing pass per variant (one atomic script takes groups out of the queue, so no player is
paired twice whichever instances run it), a room for each group it took, and then, for the
sockets of this instance that wait, what became of them: paired (they join their room and
get its ``snapshot``), still waiting (a ``bot_offer`` once they waited alone long enough),
or lost on the way (the instance that took them died before telling: they wait again).

A paired room is public and rated, with no host; the instance that made it starts its
countdown once its racers are in, and a deadline in Redis at the end of ``pair_join_ms``
starts it with those who came on whichever instance is up then (:func:`rounds.janitor`),
so a paired room outlives the instance that made it.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import zlib
from typing import Final

from ..clock import now_ms
from ..context import Context
from ..daily.deal import draw_open
from ..net import wire
from ..net.member import Member
from ..periodic import periodic
from ..quiet import Quiet
from ..ranked.ratings import START, address_mark, shown
from ..rooms import membership
from ..rooms.records import Mode, Role
from ..store import queue
from ..store import ratings as stored
from ..store.status import Status
from ..whereabouts import Place, Waiting
from .rooms import Host, PairedRooms, RoomsOf, start_later, start_when_in

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Seconds between two pairing passes of an instance.
TICK_S: Final = 0.25
#: How long a player may be neither waiting nor paired before waiting again (ms): a
#: pairing whose instance died between taking the group and naming its room.
LOST_MS: Final = 3_000
#: The bots' names (one is picked per player, always the same one).
BOT_NAMES: Final = ("Bot Otter", "Bot Heron", "Bot Lynx", "Bot Puffin", "Bot Marten", "Bot Ibis")
VARIANTS: Final = queue.VARIANTS


def penalty_s(dodges: int) -> int:
    """Seconds a player is held back in the queue after ``dodges`` dodges in the last hour:
    15 s from the first, doubling each time, at most 300 s (a free dodge is a free pick of
    one's rivals)."""
    return 0 if dodges <= 0 else min(300, 15 * 2 ** (dodges - 1))


def bot_speed(rating: int) -> float:
    """A bot's actions a second for a player of ``rating``: 0.6 at 1000, doubling every
    400 points, between 0.3 and 3."""
    return max(0.3, min(3.0, 0.6 * 2 ** ((rating - 1000) / 400)))


def bot_name(pid: str) -> str:
    """The bot a player is offered."""
    return BOT_NAMES[zlib.crc32(pid.encode()) % len(BOT_NAMES)]


def _open(conn: Member) -> bool:
    return conn.is_open()


async def enqueue(ctx: Host, conn: Member, cells: int) -> Status:
    """Put a socket's player in the queue of ``cells`` (``queue``); ``ok`` or the refusal."""
    pid = conn.pid or ""
    refused = await ctx.whereabouts.refusal(ctx.store, conn, Place.QUEUE)
    if refused is not None:
        return refused
    skill = (await stored.skills(ctx.store, [pid], cells, START))[pid]
    penalty = penalty_s(await queue.dodges(ctx.store, pid))
    now = now_ms()
    addr = address_mark(conn.address)
    status = await queue.add(
        ctx.store, cells, pid, skill.mu, now, now + penalty * 1000, ctx.instance_id, now, addr
    )
    if status is Status.FULL:
        return Status.BUSY
    if status is not Status.OK:
        return status
    # Meanwhile the socket may have closed, entered a room or queued elsewhere: undo.
    late = Status.OK if not _open(conn) else ctx.whereabouts.here(conn, Place.QUEUE)
    if late is not None:
        await queue.remove(ctx.store, cells, pid)
        return late
    rating = shown(skill.mu, skill.sigma)
    ctx.whereabouts.waiting[pid] = Waiting(pid, conn, cells, now, rating)
    s = ctx.settings  # what makes a player established (as :func:`.ratings.bar` says)
    bar = stored.Bar(s.provisional_games, s.provisional_days, s.established_rivals)
    provisional = not bar.met(*(await stored.standing(ctx.store, [pid], cells))[pid])
    conn.queue(wire.queued(cells, rating, skill.games, penalty, now, provisional))
    return Status.OK


async def pairing_loop(ctx: Context) -> None:
    """Pair, make rooms, bring this instance's paired sockets in; for good."""
    # Redis gone: the queue waits in Redis for the next pass.
    rooms = RoomsOf(ctx)
    await periodic(lambda: tick(ctx, rooms), TICK_S, QUIET, "pairing", "a pairing pass failed")


async def tick(ctx: Host, rooms: PairedRooms) -> None:
    """One pass: pair every variant, then bring in or update this instance's waiting."""
    for cells in VARIANTS:
        groups = await queue.pair_marked(ctx.store, cells, now_ms(), ctx.settings.pair_fourth_ms)
        # The rooms at once: a pass must not fall behind the players arriving.
        await asyncio.gather(*(make_room(ctx, rooms, cells, g, home) for g, home in groups))
    await deliver(ctx, rooms)


async def make_room(
    ctx: Host, rooms: PairedRooms, cells: int, group: list[str], household: bool = False
) -> str:
    """A public, rated room on a certified deal for a group; its racers are told where.
    A ``household``'s room (identities of one address, paired as nobody else waited) says
    so in its snapshot: their race counts nothing between them."""
    room = await rooms.open(cells, household=household)
    await queue.assign(ctx.store, cells, room, group)
    rooms.start_when_in(room, len(group))
    return room


async def deliver(ctx: Host, rooms: PairedRooms) -> None:
    """What became of this instance's waiting sockets: into their paired room, a bot offer,
    or back in the queue when their pairing was lost."""
    now = now_ms()
    for cells in VARIANTS:
        entries = ctx.whereabouts.waiting_for(cells)
        if not entries:
            continue
        pids = [w.pid for w in entries]
        paired, present = await queue.look(ctx.store, cells, pids)
        ready = await queue.ready_since(ctx.store, cells, now)
        # Two or three ready: they are paired when the longest waiting of them has waited
        # the wait for a fourth (lua/queue_pair.lua); each is told by when.
        pair_by = min(ready.values()) + ctx.settings.pair_fourth_ms if ready else 0
        for entry, pid, room, here in zip(entries, pids, paired, present, strict=True):
            if ctx.whereabouts.waiting.get(pid) is not entry:
                continue  # it left (or queued again) meanwhile
            if room is not None:
                del ctx.whereabouts.waiting[pid]  # on its way in: each join runs on its own
                ctx.spawn(bring_in(ctx, rooms, entry, pid, room))
            elif not here:
                await maybe_lost(ctx, entry, pid, now)
            else:
                entry.missing = 0
                if 2 <= len(ready) <= 3 and pid in ready:
                    told = (len(ready), pair_by)
                    if entry.told != told:
                        entry.told = told
                        entry.conn.queue(wire.pairing(cells, len(ready), pair_by, now))
                if not entry.offered and now - entry.since >= ctx.settings.bot_offer_ms:
                    entry.offered = True
                    waited = (now - entry.since) // 1000
                    offer = wire.bot_offer(cells, bot_name(pid), entry.rating, waited)
                    entry.conn.queue(offer)


async def bring_in(ctx: Host, rooms: PairedRooms, entry: Waiting, pid: str, room: str) -> None:
    """A paired socket joins its room (and gets its snapshot)."""
    if not await queue.taken(ctx.store, entry.cells, pid):
        return  # another pass took it
    conn = entry.conn
    if not _open(conn) or conn.room is not None or conn.pid != pid:
        return  # gone, in a room, or someone else now: the race goes on without it
    status = await rooms.enter(conn, room)
    if status in (Status.RACE_IN_PROGRESS, Status.ROOM_NOT_FOUND, Status.ROOM_FULL):
        # Too late for that room (it started without this player): wait again, in place.
        skill = (await stored.skills(ctx.store, [pid], entry.cells, START))[pid]
        now = now_ms()
        addr = address_mark(conn.address)
        added = await queue.add(
            ctx.store, entry.cells, pid, skill.mu, entry.since, now, "", now, addr
        )
        if added is Status.OK:
            if not _open(conn) or conn.room is not None or pid in ctx.whereabouts.waiting:
                await queue.remove(ctx.store, entry.cells, pid)  # gone meanwhile
                return
            entry.missing = 0
            ctx.whereabouts.waiting[pid] = entry
    elif status is not Status.OK:
        conn.error(status)


async def maybe_lost(ctx: Host, entry: Waiting, pid: str, now: int) -> None:
    """Neither waiting nor paired: after :data:`LOST_MS`, wait again (same place in time)."""
    if entry.missing == 0:
        entry.missing = now
        return
    if now - entry.missing < LOST_MS:
        return
    entry.missing = 0
    skill = (await stored.skills(ctx.store, [pid], entry.cells, START))[pid]
    addr = address_mark(entry.conn.address)
    await queue.add(
        ctx.store, entry.cells, pid, skill.mu, entry.since, now, ctx.instance_id, now, addr
    )


async def accept_bot(ctx: Context, conn: Member) -> Status:
    """Race the offered bot now (``accept_bot``); ``ok`` or the refusal."""
    entry = ctx.whereabouts.wait_of(conn)
    if entry is None or not entry.offered:
        return Status.NO_BOT_OFFER
    if ctx.launch_bot is None:
        return Status.UNAVAILABLE
    pid = entry.pid
    if conn.pid != pid:
        return Status.NO_BOT_OFFER
    if not await queue.remove(ctx.store, entry.cells, pid):
        return Status.NO_BOT_OFFER  # paired meanwhile: the room comes with the next pass
    ctx.whereabouts.waiting.pop(pid, None)
    conn.queue(wire.unqueued(entry.cells, "room"))
    cells = entry.cells
    # A race with a bot is practice: not listed, not rated; the server starts it.
    drawn = draw_open(cells, await ctx.daily.deals.running()).code
    room = await membership.new_room(ctx, Mode.RACE, drawn, cells, paired=True)
    status = await membership.join(ctx, conn, room, Role.PLAYER)
    if status is not Status.OK:
        return status
    token, bot_pid, name = secrets.token_urlsafe(24), "b" + secrets.token_hex(6), bot_name(pid)
    await ctx.store.save_session(token, bot_pid, name)
    ctx.launch_bot(room, name, token, bot_speed(entry.rating))
    await start_later(ctx, room)
    ctx.spawn(start_when_in(ctx, room, 2))
    return Status.OK

"""An arena's life on every instance: made when its slot comes (scheduled ones), paired
under a lease, its races made and its racers brought in, taken back to the pool after each
race, and its end with the podium.

An arena has a variant, a start and a length (in arena minutes, ``arena_minute_ms``).
Scheduled arenas come from ``Settings.arenas`` and are made by whichever instance first
sees their slot; anyone may make a private one (:mod:`.seating`). A joined player waits in
the arena's pool (Redis, :mod:`server.store.arenas`); the instance holding the arena's
pairing lease runs a pairing pass four times a second (one atomic script), makes a public,
rated room on a certified deal for each group (a quick race's room, with an ``arena``
field), and each racer's own instance brings their socket in. When a race ends its racers'
instances take them back to the pool, and the race is recorded once (its places, finish
times and pledges; a finish held for review counts as not finished: :mod:`.races`). At the
arena's end no new race is paired; the races running finish and count, then the arena
closes with its podium. The last races have ``arena_grace_ms`` past the end: then those
still racing are given up (:func:`cut_off`), so that the podium always comes.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

from ..clock import now_ms
from ..context import Context
from ..net import wire
from ..periodic import periodic
from ..quiet import Quiet
from ..rooms.records import RoomPhase
from ..store import arenas
from ..store.status import Status
from ..whereabouts import Seat
from .host import Host, Races
from .points import podium
from .races import RacesOf, record, review_overdue
from .standings import (
    KNOWN,
    Known,
    info,
    known,
    line_json,
    pool_score,
    push,
    send_standings,
    sockets_of,
    table_line,
)

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Seconds between two passes of an instance over its arenas.
TICK_S: Final = 0.25
#: Seconds between two looks for recorded races whose review never came back.
OVERDUE_EVERY_S: Final = 10.0
#: How long a seated player may be neither in the pool nor in a race before waiting again.
LOST_MS: Final = 3_000
#: How long a seat's socket may be out of the race it was paired into (joining it, say)
#: before it is taken back to the pool (ms).
LEFT_MS: Final = 2_000
#: An arena further than this from its start (ms), with none of its sockets on an
#: instance, is passed over by that instance's passes.
SOON_MS: Final = 5_000


def schedule(spec: str) -> list[tuple[int, int, int]]:
    """The scheduled arenas of ``Settings.arenas``: (cells, minutes, every minutes)."""
    out = []
    for part in spec.split(","):
        if part.strip():
            cells, minutes, every = (int(x) for x in part.strip().split(":"))
            if minutes > 0 and every > 0:
                out.append((cells, minutes, every))
    return out


def scheduled_id(cells: int, minutes: int, slot: int) -> str:
    """A scheduled arena's id: its variant, length and start (in arena minutes since the
    epoch), the same on every instance."""
    return f"S{cells}-{minutes}-{slot}"


async def arena_loop(ctx: Context) -> None:
    """Make the scheduled arenas, pair, record, push and close; for good."""
    made = asked = 0.0
    races = RacesOf(ctx)

    async def step() -> None:
        nonlocal made, asked
        if time.monotonic() - made > 1:
            await ensure_scheduled(ctx, now_ms())
            made = time.monotonic()
        await tick(ctx, races)
        if time.monotonic() - asked > OVERDUE_EVERY_S:
            await review_overdue(ctx, races, now_ms())
            asked = time.monotonic()

    await periodic(step, TICK_S, QUIET, "arena", "an arena pass failed")


async def ensure_scheduled(ctx: Host, now: int) -> None:
    """Make the running and the next arena of every schedule entry (once, on any
    instance: the first to see a slot makes it)."""
    minute = ctx.settings.arena_minute_ms
    for cells, minutes, every in schedule(ctx.settings.arenas):
        current = now // (every * minute)
        for slot in (current, current + 1):
            start_min = slot * every
            arena = scheduled_id(cells, minutes, start_min)
            if arena in ctx.kept(KNOWN):
                continue
            starts = start_min * minute
            fields: dict[str, str | int] = {
                "cells": cells,
                "minutes": minutes,
                "starts_at": starts,
                "ends_at": starts + minutes * minute,
                "private": 0,
            }
            await arenas.create(ctx.store, arena, fields)
            await known(ctx, arena)


async def tick(ctx: Host, races: Races) -> None:
    """One pass over the arenas that are not over."""
    now = now_ms()
    grace = max(ctx.settings.race_limit_s * 1000, ctx.settings.arena_grace_ms) + 120_000
    for arena in await arenas.indexed(ctx.store, now - grace):
        cached = ctx.kept(KNOWN).get(arena)
        if cached is not None and cached.closed:
            continue
        if (
            cached is not None
            and now < int(cached.fields["starts_at"]) - SOON_MS
            and not sockets_of(ctx, arena)
        ):
            continue  # not begun, nobody of it here: nothing to do (many cost no Redis call)
        entry = await known(ctx, arena)
        if entry is None:
            continue
        await run(ctx, races, arena, entry, now)
    await arenas.prune(ctx.store, now - arenas.KEEP_MS)
    for arena in [a for a, e in ctx.kept(KNOWN).items() if e.closed]:
        if int(ctx.kept(KNOWN)[arena].fields["ends_at"]) < now - arenas.KEEP_MS:
            del ctx.kept(KNOWN)[arena]


async def run(ctx: Host, races: Races, arena: str, entry: Known, now: int) -> None:
    """One arena's pass: pair or close under the lease, bring this instance's seats in and
    back, push the standings."""
    starts, ends = int(entry.fields["starts_at"]), int(entry.fields["ends_at"])
    over = entry.fields.get("over") == "1"
    if not over and now >= starts and await arenas.lease(ctx.store, arena, ctx.instance_id):
        if now < ends:
            fourth = ctx.settings.arena_pair_ms
            groups = await arenas.pair_marked(ctx.store, arena, now, fourth, ends)
            cells = int(entry.fields["cells"])
            await asyncio.gather(
                *(make_room(ctx, races, arena, cells, g, ends, h) for g, h in groups)
            )
        if now >= ends or time.monotonic() - entry.swept > 2:
            entry.swept = time.monotonic()
            open_races = await sweep(ctx, races, arena)
            if open_races and now >= ends + ctx.settings.arena_grace_ms:
                await cut_off(ctx, races, arena)
            if now >= ends and not open_races and await arenas.close(ctx.store, arena):
                entry.fields["over"] = "1"
                over = True
    if over:
        await finish(ctx, arena, entry, now)
        return
    await deliver(ctx, races, arena, entry, now)
    push(ctx, arena, entry, now)


async def make_room(
    ctx: Host,
    races: Races,
    arena: str,
    cells: int,
    group: list[str],
    ends: int,
    household: bool = False,
) -> str:
    """A public, rated room on a certified deal for a group of the arena (a ``household``'s:
    its snapshot says the race counts no point between them)."""
    room = await races.open(cells, arena=arena, household=household)
    await arenas.assign(ctx.store, arena, room, group, ends)
    races.start_when_in(room, len(group))
    return room


async def sweep(ctx: Host, races: Races, arena: str) -> int:
    """Record the arena's races that are over (should no racer's instance have seen the
    end); the number still running."""
    rooms = set((await arenas.racing(ctx.store, arena)).values())
    running = 0
    for room in rooms:
        fields = await ctx.store.room_fields(room)
        if not fields or fields.get("state") == RoomPhase.DONE:
            await record_race(ctx, races, arena, room)
        elif fields.get("state") == RoomPhase.LOBBY and (
            int(fields.get("created") or 0) < now_ms() - 2 * ctx.settings.pair_join_ms
        ):
            if not int(fields.get("np") or 0):
                await record_race(ctx, races, arena, room)  # nobody came: no race
            else:
                # Its racers came after the wait for them ended (a loaded instance): the
                # race starts with them now rather than never.
                await races.start(room)
                running += 1
        else:
            running += 1
    return running


async def cut_off(ctx: Host, races: Races, arena: str) -> None:
    """The arena's grace after its end is over: its races still running end now, the
    server giving up for each racer still playing (as a race's own time limit does: they
    did not finish; the finishers keep their places), and a race that never began is no
    race. The next sweep records them, and the arena closes with its podium.

    A race in its countdown is left to begin (a few seconds): recorded as no race now, its
    racers would race it all the same, for nothing; begun, the next pass ends it."""
    for room in set((await arenas.racing(ctx.store, arena)).values()):
        fields = await ctx.store.room_fields(room)
        state = fields.get("state")
        if state == RoomPhase.RACING:
            await races.time_up(room, int(fields.get("round") or 0))
        elif state == RoomPhase.LOBBY:
            await record_race(ctx, races, arena, room)


async def record_race(ctx: Host, races: Races, arena: str, room: str) -> None:
    """Record a race of the arena once (:func:`.races.record`)."""
    entry = await known(ctx, arena, refresh=False)
    await record(ctx, races, arena, room, int(entry.fields["ends_at"]) if entry else now_ms())


async def race_over(ctx: Context, room: str) -> None:
    """A race ended (its ``race_over`` passed through this instance): see :func:`race_ended`."""
    await race_ended(ctx, RacesOf(ctx), room)


async def race_ended(ctx: Host, races: Races, room: str) -> None:
    """A race ended: if it is an arena's, record it and take this instance's racers of it
    back to the pool."""
    fields = await ctx.store.room_fields(room)
    arena = fields.get("arena")
    if not arena:
        return
    # Recorded first, and the table read again: back in the pool, a racer's line counts
    # this race (their bound of races in the arena, :func:`back_to_pool`).
    await record_race(ctx, races, arena, room)
    await known(ctx, arena)
    for seat in ctx.whereabouts.seats_in(arena):
        if seat.room == room:
            await back_to_pool(ctx, seat)


async def back_to_pool(ctx: Host, seat: Seat) -> None:
    """A seated racer's race is over for them (it ended, or they left it): back in the
    arena's pool, told so (``arena`` with seat ``pool``). Their socket stays in the room of
    the race that ended (its results stay on their screen) until the next race takes it."""
    room, conn = seat.room, seat.conn
    seat.room = None
    entry = await known(ctx, seat.arena, refresh=False)
    if entry is None or ctx.whereabouts.seats.get(seat.pid) is not seat:
        return
    ends = int(entry.fields["ends_at"])
    rating = int((entry.players.get(seat.pid) or {}).get("rating") or 1000)
    now = now_ms()
    if now >= ends:
        return  # no more races: the podium comes once the last ones end
    line = table_line(entry, seat.pid)
    if line is not None and line.races >= ctx.settings.arena_races_per_player:
        # As many races as one player may have in an arena: it is over for them (told
        # when they may race again: at its end; only their own bound is said).
        conn.queue(wire.identities_refused(max(1, (ends - now) // 1000), "slow_down"))
        await ctx.whereabouts.leave_arena(ctx.store, conn, "over")
        return
    status = await arenas.back(
        ctx.store, seat.arena, seat.pid, room or "", pool_score(entry, seat.pid, rating), now, ends
    )
    if status is Status.OK:
        players = len(entry.players)
        shown = info(seat.arena, entry.fields, players, now, ctx.settings.arena_grace_ms)
        conn.queue(wire.arena(shown, "pool", None, now))


async def deliver(ctx: Host, races: Races, arena: str, entry: Known, now: int) -> None:
    """What became of this instance's seats: into their paired race, back to the pool
    after one, or waiting again when a pairing was lost."""
    seats = ctx.whereabouts.seats_in(arena)
    if not seats:
        return
    found = await arenas.look(ctx.store, arena, [s.pid for s in seats])
    ends = int(entry.fields["ends_at"])
    for seat, (paired, racing, pooled) in zip(seats, found, strict=True):
        if ctx.whereabouts.seats.get(seat.pid) is not seat:
            continue
        conn = seat.conn
        if not conn.is_open():
            await ctx.whereabouts.leave_arena(ctx.store, conn, None)
            continue
        if paired is not None and seat.room is None:
            if await arenas.taken(ctx.store, arena, seat.pid):
                seat.room = paired
                ctx.spawn(bring_in(ctx, races, seat, paired))
            continue
        if seat.room is not None:
            if conn.room == seat.room or seat.joining:
                seat.missing = 0  # racing: its end brings them back (race_over)
            elif seat.missing == 0:
                seat.missing = now
            elif now - seat.missing >= LEFT_MS:
                # Out of their race (they left it, or never got in): back to the pool;
                # the race goes on without them.
                seat.missing = 0
                await back_to_pool(ctx, seat)
            continue
        if pooled or racing is not None or now >= ends:
            seat.missing = 0
            continue
        if seat.missing == 0:
            seat.missing = now
        elif now - seat.missing >= LOST_MS:
            seat.missing = 0
            await back_to_pool(ctx, seat)


async def bring_in(ctx: Host, races: Races, seat: Seat, room: str) -> None:
    """A paired seat's socket joins its race (and gets its snapshot)."""
    conn = seat.conn
    if not conn.is_open():
        return
    seat.joining = True
    try:
        if conn.room is not None and conn.room != room:
            await races.leave(conn, conn.room)  # the room of its last race
        status = await races.enter(conn, room)
    finally:
        seat.joining = False
    if status in (Status.RACE_IN_PROGRESS, Status.ROOM_NOT_FOUND, Status.ROOM_FULL):
        # Too late for that race (it started without them, or closed with nobody in): not
        # the player's fault, so no error; back in the pool for the next one.
        await back_to_pool(ctx, seat)
    elif status is not Status.OK:
        conn.error(status)


async def finish(ctx: Host, arena: str, entry: Known, now: int) -> None:
    """The arena is over: its final standings and podium to this instance's sockets (no
    sooner than ``arena_push_ms`` after the last push), and its seats leave it."""
    entry.closed = True
    entry = await known(ctx, arena) or entry
    entry.closed = True
    wait_s = ctx.settings.arena_push_ms / 1000 - (time.monotonic() - entry.pushed_at)
    ctx.spawn(final(ctx, arena, entry, max(0.0, wait_s)))


async def final(ctx: Host, arena: str, entry: Known, wait_s: float) -> None:
    """The final standings, the podium, and the seats out (see :func:`finish`)."""
    await asyncio.sleep(wait_s)
    now = now_ms()
    entry.pushed_at = time.monotonic()
    board = [line_json(x) for x in podium(entry.running.top(3))]  # raced come first
    for conn in sockets_of(ctx, arena):
        send_standings(entry, arena, conn, now)
        mine = table_line(entry, conn.pid or "")
        you = line_json(mine) if mine is not None and mine.races > 0 else None
        if you is not None:  # why a household's races scored nothing: to its player alone
            you["household"] = entry.running.household_of(conn.pid or "")
        conn.queue(wire.arena_over(arena, board, you))
    for seat in ctx.whereabouts.seats_in(arena):
        await ctx.whereabouts.leave_arena(ctx.store, seat.conn, "over")
    ctx.whereabouts.watching.pop(arena, None)

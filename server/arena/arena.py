"""Arenas: scheduled or private tournaments of back-to-back races.

An arena has a variant, a start and a length (in arena minutes, ``arena_minute_ms``).
Scheduled arenas come from ``Settings.arenas`` and are made by whichever instance first
sees their slot; anyone may make a private one (reached by its id, the invite link). A
joined player waits in the arena's pool (Redis, :mod:`server.store.arenas`); the instance
holding the arena's pairing lease runs a pairing pass four times a second (one atomic
script), makes a public, rated room on a certified deal for each group (a quick race's
room, with an ``arena`` field), and each racer's own instance brings their socket in. When
a race ends its racers' instances take them back to the pool, and the race is recorded once
(its places, finish times and pledges; a finish held for review counts as not finished).
The standings are a pure function of the recorded races (:mod:`.arena_points`), pushed to
the arena's sockets at most once per ``arena_push_ms``. At the arena's end no new race is
paired; the races running finish and count, then the arena closes with its podium.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Final

from redis.exceptions import RedisError

from ..clock import now_ms
from ..context import Context, Kept
from ..daily.deal import draw_open
from ..net import wire
from ..net.member import Member
from ..quick import pairing
from ..quiet import Quiet
from ..ranked.ratings import START, address_mark, shown
from ..rooms import membership, rounds
from ..rooms.records import Mode, Role, RoomPhase
from ..store import arenas, listing
from ..store import ratings as stored
from ..store.status import Status
from ..whereabouts import Place, Seat
from .points import Line, Race, podium, standings
from .races import race_of, record

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Seconds between two passes of an instance over its arenas.
TICK_S: Final = 0.25
#: How long a seated player may be neither in the pool nor in a race before waiting again.
LOST_MS: Final = 3_000
#: How long a seat's socket may be out of the race it was paired into (joining it, say)
#: before it is taken back to the pool (ms).
LEFT_MS: Final = 2_000
#: An arena further than this from its start (ms), with none of its sockets on an
#: instance, is passed over by that instance's passes.
SOON_MS: Final = 5_000
#: Lines of the standings a push carries.
TOP: Final = 10
#: Pool score: points count this much more than rating (points first, then rating).
POINT_WEIGHT: Final = 10_000
ARENA_ALPHABET: Final = membership.ROOM_ALPHABET


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


def phase_of(fields: dict[str, str], now: int) -> str:
    """``soon``, ``running`` (its last races may run past its end) or ``over``."""
    if fields.get("over") == "1":
        return "over"
    return "soon" if now < int(fields["starts_at"]) else "running"


def info(arena: str, fields: dict[str, str], players: int, now: int) -> dict[str, Any]:
    """An arena as the wire shows it."""
    return wire.arena_info(
        arena,
        int(fields["cells"]),
        int(fields["minutes"]),
        int(fields["starts_at"]),
        int(fields["ends_at"]),
        phase_of(fields, now),
        fields.get("private") == "1",
        players,
    )


def line_json(line: Line) -> dict[str, Any]:
    """A standings line as the wire shows it."""
    return wire.arena_line(
        line.rank,
        line.pid,
        line.name,
        line.points,
        line.streak,
        line.fire,
        line.races,
        line.wins,
        line.time_ms,
    )


@dataclass(slots=True)
class Known:
    """What this instance last worked out of one arena."""

    fields: dict[str, str]
    races: list[Race] = field(default_factory=list)
    table: list[Line] = field(default_factory=list)
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    pushed_at: float = 0.0
    pushed: tuple[int, int, str] | None = None
    closed: bool = False
    swept: float = 0.0


#: What this instance last worked out of each arena, by arena id.
KNOWN: Final = Kept[dict[str, Known]]("arenas", dict)


async def known(ctx: Context, arena: str, refresh: bool = True) -> Known | None:
    """The arena's fields and table as of now (races read only when new ones came)."""
    entry: Known | None = ctx.kept(KNOWN).get(arena)
    if entry is not None and not refresh:
        return entry
    found = await arenas.fields(ctx.store, arena)
    if not found:
        return None
    if entry is None:
        entry = ctx.kept(KNOWN)[arena] = Known(found)
    entry.fields = found
    n, joined_n = await arenas.sizes(ctx.store, arena)
    if n != len(entry.races) or joined_n != len(entry.players):
        start = len(entry.races)
        if n > start:
            found_races = await arenas.results(ctx.store, arena, start)
            if len(entry.races) == start:  # no other call read them meanwhile
                entry.races += [race_of(r) for r in found_races]
        entry.players = await arenas.players(ctx.store, arena)
        joined = [(pid, str(p.get("name") or "")) for pid, p in entry.players.items()]
        entry.table = standings(entry.races, joined)
    return entry


def table_line(entry: Known, pid: str) -> Line | None:
    """A player's line, or None."""
    return next((x for x in entry.table if x.pid == pid), None)


def pool_score(entry: Known | None, pid: str, rating: int) -> float:
    """Where a player waits in the pool: by points, then rating."""
    line = table_line(entry, pid) if entry is not None else None
    return (line.points if line else 0) * POINT_WEIGHT + rating


# -- the messages -------------------------------------------------------------------------


async def create_private(
    ctx: Context, conn: Member, cells: int, minutes: int, starts_in_s: int
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


async def join(ctx: Context, conn: Member, arena: str, invite: str | None = None) -> Status:
    """Seat a socket's player in an arena (``arena_join``); ``ok`` or the refusal."""
    pid = conn.pid or ""
    here = ctx.whereabouts
    refused = await here.refusal(ctx.store, conn, Place.ARENA)
    if refused is not None:
        return refused
    entry = await known(ctx, arena)
    if entry is None:
        return Status.ARENA_NOT_FOUND
    if phase_of(entry.fields, now_ms()) == "over" or now_ms() >= int(entry.fields["ends_at"]):
        return Status.ARENA_OVER
    if await ctx.reviews.is_barred(pid):
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
    late = Status.ALREADY_IN_ROOM if not conn.is_open() else here.here(conn, Place.ARENA)
    if late is not None:
        await arenas.leave(ctx.store, arena, pid)  # gone or elsewhere meanwhile
        await arenas.release_player(ctx.store, pid, arena)
        return late
    here.seats[pid] = Seat(pid, conn, arena)
    entry = await known(ctx, arena)
    assert entry is not None
    conn.queue(
        wire.arena(info(arena, entry.fields, len(entry.players), now), "pool", None, now, invite)
    )
    send_standings(entry, arena, conn, now)
    return Status.OK


async def leave(ctx: Context, conn: Member) -> Status:
    """``arena_leave``: out of the arena (a race you are in goes on)."""
    if not await ctx.whereabouts.leave_arena(ctx.store, conn, "asked"):
        return Status.NOT_IN_ARENA
    return Status.OK


async def watch(ctx: Context, conn: Member, arena: str) -> Status:
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
    conn.queue(wire.arena(info(arena, entry.fields, len(entry.players), now), where, room, now))
    send_standings(entry, arena, conn, now)
    return Status.OK


async def pledge(ctx: Context, conn: Member) -> Status:
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


# -- standings ----------------------------------------------------------------------------


def send_standings(entry: Known, arena: str, conn: Member, now: int) -> int:
    """Send one socket the standings (top and its own line); the message's size."""
    top = [line_json(x) for x in entry.table[:TOP]]
    mine = table_line(entry, conn.pid or "")
    you = line_json(mine) if mine is not None and mine.races > 0 else None
    text = wire.arena_standings(
        arena,
        phase_of(entry.fields, now),
        len(entry.races),
        len(entry.players),
        top,
        you,
        now,
    )
    conn.queue(text)
    return len(text)


def sockets_of(ctx: Context, arena: str) -> list[Member]:
    """This instance's sockets that hear an arena's standings: its seats and watchers."""
    out: dict[int, Member] = {id(s.conn): s.conn for s in ctx.whereabouts.seats_in(arena)}
    for conn in ctx.whereabouts.watching.get(arena, ()):
        out[id(conn)] = conn
    return [c for c in out.values() if c.is_open()]


def push(ctx: Context, arena: str, entry: Known, now: int) -> None:
    """Push the standings to this instance's sockets of the arena if they changed, at most
    once per ``arena_push_ms``."""
    state = (len(entry.races), len(entry.players), phase_of(entry.fields, now))
    if state == entry.pushed:
        return
    if (time.monotonic() - entry.pushed_at) * 1000 < ctx.settings.arena_push_ms:
        return
    entry.pushed, entry.pushed_at = state, time.monotonic()
    for conn in sockets_of(ctx, arena):
        send_standings(entry, arena, conn, now)


# -- the loop -----------------------------------------------------------------------------


async def arena_loop(ctx: Context) -> None:
    """Make the scheduled arenas, pair, record, push and close; for good."""
    said = 0.0
    made = 0.0
    while True:
        await asyncio.sleep(TICK_S)
        try:
            if time.monotonic() - made > 1:
                await ensure_scheduled(ctx, now_ms())
                made = time.monotonic()
            await tick(ctx)
        except RedisError as exc:
            if time.monotonic() - said > 30:
                said = time.monotonic()
                log.warning("arenas wait for Redis: %s", exc)
        except Exception:
            QUIET.failure("arena", "an arena pass failed")


async def ensure_scheduled(ctx: Context, now: int) -> None:
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


async def tick(ctx: Context) -> None:
    """One pass over the arenas that are not over."""
    now = now_ms()
    grace = (ctx.settings.race_limit_s + 120) * 1000
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
        await run(ctx, arena, entry, now)
    await arenas.prune(ctx.store, now - arenas.KEEP_MS)
    for arena in [a for a, e in ctx.kept(KNOWN).items() if e.closed]:
        if int(ctx.kept(KNOWN)[arena].fields["ends_at"]) < now - arenas.KEEP_MS:
            del ctx.kept(KNOWN)[arena]


async def run(ctx: Context, arena: str, entry: Known, now: int) -> None:
    """One arena's pass: pair or close under the lease, bring this instance's seats in and
    back, push the standings."""
    starts, ends = int(entry.fields["starts_at"]), int(entry.fields["ends_at"])
    over = entry.fields.get("over") == "1"
    if not over and now >= starts and await arenas.lease(ctx.store, arena, ctx.instance_id):
        if now < ends:
            groups = await arenas.pair(ctx.store, arena, now, ctx.settings.arena_pair_ms, ends)
            cells = int(entry.fields["cells"])
            await asyncio.gather(*(make_room(ctx, arena, cells, g, ends) for g in groups))
        if now >= ends or time.monotonic() - entry.swept > 2:
            entry.swept = time.monotonic()
            open_races = await sweep(ctx, arena)
            if now >= ends and not open_races and await arenas.close(ctx.store, arena):
                entry.fields["over"] = "1"
                over = True
    if over:
        await finish(ctx, arena, entry, now)
        return
    await deliver(ctx, arena, entry, now)
    push(ctx, arena, entry, now)


async def make_room(ctx: Context, arena: str, cells: int, group: list[str], ends: int) -> str:
    """A public, rated room on a certified deal for a group of the arena."""
    code = draw_open(cells, await ctx.daily.deals.running()).code
    room = await membership.new_room(
        ctx, Mode.RACE, code, cells, public=True, paired=True, arena=arena
    )
    await listing.list_room(ctx.store, room, now_ms())
    await pairing.start_later(ctx, room)
    await arenas.assign(ctx.store, arena, room, group, ends)
    ctx.spawn(pairing.start_when_in(ctx, room, len(group)))
    return room


async def sweep(ctx: Context, arena: str) -> int:
    """Record the arena's races that are over (should no racer's instance have seen the
    end); the number still running."""
    rooms = set((await arenas.racing(ctx.store, arena)).values())
    running = 0
    for room in rooms:
        fields = await ctx.store.room_fields(room)
        if not fields or fields.get("state") == RoomPhase.DONE:
            await record_race(ctx, arena, room)
        elif fields.get("state") == RoomPhase.LOBBY and (
            int(fields.get("created") or 0) < now_ms() - 2 * ctx.settings.pair_join_ms
        ):
            if not int(fields.get("np") or 0):
                await record_race(ctx, arena, room)  # nobody came: no race
            else:
                # Its racers came after the wait for them ended (a loaded instance): the
                # race starts with them now rather than never.
                await rounds.start_paired(ctx, room)
                running += 1
        else:
            running += 1
    return running


async def record_race(ctx: Context, arena: str, room: str) -> None:
    """Record a race of the arena once (:func:`.arena_races.record`)."""
    entry = await known(ctx, arena, refresh=False)
    await record(ctx, arena, room, int(entry.fields["ends_at"]) if entry else now_ms())


async def race_over(ctx: Context, room: str) -> None:
    """A race ended (its ``race_over`` passed through this instance): if it is an arena's,
    record it and take this instance's racers of it back to the pool."""
    fields = await ctx.store.room_fields(room)
    arena = fields.get("arena")
    if not arena:
        return
    for seat in ctx.whereabouts.seats_in(arena):
        if seat.room == room:
            await back_to_pool(ctx, seat)
    await record_race(ctx, arena, room)


async def back_to_pool(ctx: Context, seat: Seat) -> None:
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
    status = await arenas.back(
        ctx.store, seat.arena, seat.pid, room or "", pool_score(entry, seat.pid, rating), now, ends
    )
    if status is Status.OK:
        players = len(entry.players)
        conn.queue(wire.arena(info(seat.arena, entry.fields, players, now), "pool", None, now))


async def deliver(ctx: Context, arena: str, entry: Known, now: int) -> None:
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
                ctx.spawn(bring_in(ctx, seat, paired))
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


async def bring_in(ctx: Context, seat: Seat, room: str) -> None:
    """A paired seat's socket joins its race (and gets its snapshot)."""
    conn = seat.conn
    if not conn.is_open():
        return
    seat.joining = True
    try:
        if conn.room is not None and conn.room != room:
            await membership.leave(ctx, conn, conn.room)  # the room of its last race
        status = await membership.join(ctx, conn, room, Role.PLAYER)
    finally:
        seat.joining = False
    if status in (Status.RACE_IN_PROGRESS, Status.ROOM_NOT_FOUND, Status.ROOM_FULL):
        # Too late for that race (it started without them, or closed with nobody in): not
        # the player's fault, so no error; back in the pool for the next one.
        await back_to_pool(ctx, seat)
    elif status is not Status.OK:
        conn.error(status)


async def finish(ctx: Context, arena: str, entry: Known, now: int) -> None:
    """The arena is over: its final standings and podium to this instance's sockets (no
    sooner than ``arena_push_ms`` after the last push), and its seats leave it."""
    entry.closed = True
    entry = await known(ctx, arena) or entry
    entry.closed = True
    wait_s = ctx.settings.arena_push_ms / 1000 - (time.monotonic() - entry.pushed_at)
    ctx.spawn(final(ctx, arena, entry, max(0.0, wait_s)))


async def final(ctx: Context, arena: str, entry: Known, wait_s: float) -> None:
    """The final standings, the podium, and the seats out (see :func:`finish`)."""
    await asyncio.sleep(wait_s)
    now = now_ms()
    entry.pushed_at = time.monotonic()
    board = [line_json(x) for x in podium(entry.table)]
    for conn in sockets_of(ctx, arena):
        send_standings(entry, arena, conn, now)
        mine = table_line(entry, conn.pid or "")
        you = line_json(mine) if mine is not None and mine.races > 0 else None
        conn.queue(wire.arena_over(arena, board, you))
    for seat in ctx.whereabouts.seats_in(arena):
        await ctx.whereabouts.leave_arena(ctx.store, seat.conn, "over")
    ctx.whereabouts.watching.pop(arena, None)


# -- HTTP ---------------------------------------------------------------------------------


async def listed(ctx: Context) -> dict[str, list[dict[str, Any]]]:
    """``GET /api/arenas``: the running scheduled arenas (until their end), and the next
    of each."""
    now = now_ms()
    running, upcoming = [], []
    for arena in await arenas.indexed(ctx.store, now - 60_000):
        entry = await known(ctx, arena)
        if entry is None or entry.fields.get("private") == "1":
            continue
        shown_info = info(arena, entry.fields, len(entry.players), now)
        if shown_info["phase"] == "soon":
            upcoming.append(shown_info)
        elif shown_info["phase"] == "running" and now < int(entry.fields["ends_at"]):
            running.append(shown_info)  # (its last races finishing: no longer joinable)
    upcoming.sort(key=lambda x: int(x["starts_at"]))
    return {"running": running, "next": upcoming}


async def table(ctx: Context, arena: str) -> dict[str, Any] | None:
    """``GET /api/arena/ID``: the arena, its full table, its podium once over, and the
    room of its best-placed racer racing now (for the Watch page)."""
    entry = await known(ctx, arena)
    if entry is None:
        return None
    now = now_ms()
    over = phase_of(entry.fields, now) == "over"
    racing = await arenas.racing(ctx.store, arena)
    top_room = next((racing[x.pid] for x in entry.table if x.pid in racing), None)
    return {
        "arena": info(arena, entry.fields, len(entry.players), now),
        "races": len({race.race for race in entry.races}),  # an amended race counts once
        "standings": [line_json(x) for x in entry.table if x.races > 0],
        "podium": [line_json(x) for x in podium(entry.table)] if over else None,
        "top_room": top_room,
    }

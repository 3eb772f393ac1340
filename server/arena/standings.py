"""What an instance knows of an arena and what it shows: its fields, recorded races,
players and standings as of the last look (:class:`Known`, kept per instance under
:data:`KNOWN`), the standings pushed to the arena's sockets at most once per
``arena_push_ms``, and the arenas as ``GET /api/arenas`` and ``GET /api/arena/ID`` show them.

The standings are a pure function of the recorded races (:mod:`.points`), kept running
(:mod:`.table`): a look reads the races recorded since the last one only, and each changes
the lines of its own racers only, so a look costs the same at the arena's 50,000th race as
at its 50th.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Final

from ..clock import now_ms
from ..context import Kept
from ..net import wire
from ..net.member import Member
from ..store import arenas
from .host import Host
from .points import Line, podium
from .races import race_of
from .table import RunningTable

#: Lines of the standings a push carries.
TOP: Final = 10
#: Records one look reads at most: an instance new to a long arena catches up over a few
#: looks (the loop's ticks) rather than in one long call.
READ_AT_ONCE: Final = 2_000
#: Pool score: points count this much more than rating (points first, then rating).
POINT_WEIGHT: Final = 10_000


def phase_of(fields: dict[str, str], now: int) -> str:
    """``soon``, ``running`` (its last races may run past its end) or ``over``."""
    if fields.get("over") == "1":
        return "over"
    return "soon" if now < int(fields["starts_at"]) else "running"


def info(
    arena: str, fields: dict[str, str], players: int, now: int, grace_ms: int = 0
) -> dict[str, Any]:
    """An arena as the wire shows it (``grace_ms``: how long its last races may run past
    its end, ``arena_grace_ms``)."""
    ends = int(fields["ends_at"])
    return wire.arena_info(
        arena,
        int(fields["cells"]),
        int(fields["minutes"]),
        int(fields["starts_at"]),
        ends,
        phase_of(fields, now),
        fields.get("private") == "1",
        players,
        ends + grace_ms,
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
    #: The standings, kept running (:class:`.table.RunningTable`).
    running: RunningTable = field(default_factory=RunningTable)
    #: How many records (amendments included) of the arena were read into it.
    seen: int = 0
    players: dict[str, dict[str, Any]] = field(default_factory=dict)
    pushed_at: float = 0.0
    pushed: tuple[int, int, str] | None = None
    closed: bool = False
    swept: float = 0.0


#: What this instance last worked out of each arena, by arena id.
KNOWN: Final = Kept[dict[str, Known]]("arenas", dict)


async def known(ctx: Host, arena: str, refresh: bool = True) -> Known | None:
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
    start = entry.seen
    if n > start:
        found_races = await arenas.results(ctx.store, arena, start, READ_AT_ONCE)
        if entry.seen == start:  # no other call read them meanwhile
            for record in found_races:
                entry.running.record(race_of(record))
            entry.seen = start + len(found_races)
    if joined_n != len(entry.players):
        entry.players = await arenas.players(ctx.store, arena)
        for pid, player in entry.players.items():
            entry.running.join(pid, str(player.get("name") or ""))
    return entry


def table_line(entry: Known, pid: str) -> Line | None:
    """A player's line with its rank, or None."""
    return entry.running.rank_of(pid)


def races_of(entry: Known) -> int:
    """How many races the arena recorded (an amended race counts once)."""
    return len(entry.running.races)


def pool_score(entry: Known | None, pid: str, rating: int) -> float:
    """Where a player waits in the pool: by points, then rating."""
    line = table_line(entry, pid) if entry is not None else None
    return (line.points if line else 0) * POINT_WEIGHT + rating


def send_standings(entry: Known, arena: str, conn: Member, now: int) -> int:
    """Send one socket the standings (top and its own line); the message's size."""
    top = [line_json(x) for x in entry.running.top(TOP)]
    mine = table_line(entry, conn.pid or "")
    you = line_json(mine) if mine is not None and mine.races > 0 else None
    if you is not None:  # a finish held for review: its player alone is told (no one else)
        you["held"] = entry.running.held_of(conn.pid or "")
        you["household"] = entry.running.household_of(conn.pid or "")
    text = wire.arena_standings(
        arena,
        phase_of(entry.fields, now),
        races_of(entry),
        len(entry.players),
        top,
        you,
        now,
    )
    conn.queue(text)
    return len(text)


def sockets_of(ctx: Host, arena: str) -> list[Member]:
    """This instance's sockets that hear an arena's standings: its seats and watchers."""
    out: dict[int, Member] = {id(s.conn): s.conn for s in ctx.whereabouts.seats_in(arena)}
    for conn in ctx.whereabouts.watching.get(arena, ()):
        out[id(conn)] = conn
    return [c for c in out.values() if c.is_open()]


def push(ctx: Host, arena: str, entry: Known, now: int) -> None:
    """Push the standings to this instance's sockets of the arena if they changed, at most
    once per ``arena_push_ms``."""
    state = (entry.seen, len(entry.players), phase_of(entry.fields, now))
    if state == entry.pushed:
        return
    if (time.monotonic() - entry.pushed_at) * 1000 < ctx.settings.arena_push_ms:
        return
    entry.pushed, entry.pushed_at = state, time.monotonic()
    for conn in sockets_of(ctx, arena):
        send_standings(entry, arena, conn, now)


async def listed(ctx: Host) -> dict[str, list[dict[str, Any]]]:
    """``GET /api/arenas``: the running scheduled arenas (until their end), and the next
    of each."""
    now = now_ms()
    running, upcoming = [], []
    for arena in await arenas.indexed(ctx.store, now - 60_000):
        entry = await known(ctx, arena)
        if entry is None or entry.fields.get("private") == "1":
            continue
        shown_info = info(arena, entry.fields, len(entry.players), now, ctx.settings.arena_grace_ms)
        if shown_info["phase"] == "soon":
            upcoming.append(shown_info)
        elif shown_info["phase"] == "running" and now < int(entry.fields["ends_at"]):
            running.append(shown_info)  # (its last races finishing: no longer joinable)
    upcoming.sort(key=lambda x: int(x["starts_at"]))
    return {"running": running, "next": upcoming}


async def table(ctx: Host, arena: str) -> dict[str, Any] | None:
    """``GET /api/arena/ID``: the arena, its full table, its podium once over, and the
    room of its best-placed racer racing now (for the Watch page)."""
    entry = await known(ctx, arena)
    if entry is None:
        return None
    now = now_ms()
    over = phase_of(entry.fields, now) == "over"
    racing = await arenas.racing(ctx.store, arena)
    table = entry.running.top()
    top_room = next((racing[x.pid] for x in table if x.pid in racing), None)
    return {
        "arena": info(arena, entry.fields, len(entry.players), now, ctx.settings.arena_grace_ms),
        "races": races_of(entry),
        "standings": [line_json(x) for x in table if x.races > 0],
        "podium": [line_json(x) for x in podium(table)] if over else None,
        "top_room": top_room,
    }

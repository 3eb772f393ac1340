"""Who is in a room and as what: one path for creating, joining, resuming, leaving and
closing a socket, and for bringing a socket up to date when it enters.

A membership lives in Redis (``room:{R}:members``) and outlives a socket while a race runs;
a socket *enters* the room on this instance (the hub forwards the room's events to it) and
*leaves* it again when it closes or moves elsewhere.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field
from typing import Final

from protocol.models import DEFAULT_DELAY_S, MAX_PLAYERS

from ..cache import BoardEntry, replay
from ..clock import now_ms
from ..fairplay.standing import standing
from ..net import wire
from ..net.hub import Seen
from ..net.member import Member
from ..ranked import ratings
from ..ranked.finish import record_give_up
from ..store import listing, queue
from ..store.status import Status
from ..store.store import Outcome, RoomRead
from . import rounds
from .host import Host
from .records import (
    IN_PLAY,
    Mode,
    Role,
    RoomPhase,
    WatchMode,
    deal_shown,
    default_watch,
)
from .views import players
from .visibility import Sight, sight

ROOM_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def new_room_id() -> str:
    """A fresh room id: 8 characters, no look-alike letters."""
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(8))


async def new_room(
    ctx: Host,
    mode: Mode,
    code: str,
    cells: int,
    solo: Member | None = None,
    typed: bool = False,
    public: bool = False,
    rated: bool = False,
    paired: bool = False,
    arena: str = "",
    par: tuple[int, bool] | None = None,
    household: bool = False,
) -> str:
    """Create a room in Redis; with ``solo`` it is already racing with that player.

    Args:
        typed: the host typed ``code`` (the lobby then shows it and says so).
        public: anyone may find the room and watch it (never live, see ``watch_modes``);
            a public race is always rated.
        rated: the race changes its racers' ratings.
        paired: the quick-race queue made it: no host, the server starts it.
        arena: the arena whose pairing made it (a race of that arena).
        par: the deal's par and whether it is proven (a daily deal's); None: the pool's,
            if the deal is in one (:func:`.rounds.par_fields`).
        household: the pairing put identities of one client address together (its
            snapshot says so before the race).

    Returns:
        The room id.
    """
    while True:
        room = new_room_id()
        fields: dict[str, str | int] = {
            "room_id": room,
            "code": code,
            "typed": 1 if typed else 0,
            "public": 1 if public else 0,
            "rated": 1 if public or rated else 0,
            "paired": 1 if paired else 0,
            "watch": default_watch(public).value,
            "delay_s": DEFAULT_DELAY_S,
            "cells": cells,
            "mode": mode.value,
            "state": RoomPhase.LOBBY.value,
            "round": 1,
            "host": "",
            "seq": 0,
            "np": 0,
            "ns": 0,
            "playing": 0,
            "finishers": 0,
            "created": now_ms(),
            "starts_at": "",
            **rounds.par_fields(code, par),
        }
        if arena:
            fields["arena"] = arena
        if household:
            fields["household"] = 1
        if solo is not None:
            fields["starts_at"] = now_ms()
            pid = solo.pid or ""
            if await ctx.store.create_solo(
                room, fields, pid, wire.member(pid, solo.name, "player")
            ):
                return room
        elif await ctx.store.create(room, fields):
            return room


@dataclass(slots=True)
class Snap:
    """A ``snapshot`` for one socket, the seq it is as of, and the events it must get after
    it (a delayed spectator's: those since that seq, each released when due)."""

    text: str
    seq: int
    then: list[Seen] = field(default_factory=list)


async def snapshot(ctx: Host, conn: Member, room: str, role: str) -> Snap | None:
    """The ``snapshot`` of a room for one socket, or None if the room is gone."""
    read = await ctx.store.read_room(room)
    if read is None:
        return None
    code, round_ = read.meta["code"], int(read.meta["round"])
    boards = {}
    for pid, log_lines in read.logs.items():
        entry = replay(code, log_lines)
        ctx.boards.put((room, round_, pid), entry)
        boards[pid] = entry
    await ctx.rooms.get(room, refresh=True)
    viewer = conn.pid or ""
    shown = None
    phase, watch = read.meta["state"], read.meta.get("watch") or WatchMode.LIVE
    if sight(phase, watch, role, own=False) is Sight.LATE:  # the table: rivals' boards late
        late = await delayed_snapshot(ctx, conn, read)
        if late is not None:
            return late
        shown = WatchMode.PROGRESS  # the events since then are gone: no board until the end
    # A daily game's snapshot says what it counts for: ranked attempt or practice.
    daily = await ctx.store.daily_note(room) if read.meta.get("mode") == Mode.DAILY else None
    seen = players(read, boards, viewer, role, shown)
    # A settled rated race: its rating changes, so that a reload still shows them.
    changes = await ratings.changes(ctx, room, read.meta)
    text = wire.snapshot(read.meta, viewer, role, now_ms(), seen, daily, changes)
    return Snap(text, int(read.meta.get("seq", 0)))


async def delayed_snapshot(ctx: Host, conn: Member, read: RoomRead) -> Snap | None:
    """A delayed race as its spectator may see it: the boards of ``delay_s`` seconds ago.

    The snapshot is as of the last event before the first action played since then (each
    action's server time is in its board's log, its seq in the board's ids); the events
    after it follow, each held until ``delay_s`` after it happened. None when the room no
    longer keeps those events.
    """
    meta = read.meta
    room, code, round_ = meta["room_id"], meta["code"], int(meta["round"])
    now = now_ms()
    cutoff = now - int(meta.get("delay_s") or DEFAULT_DELAY_S) * 1000
    ids = await ctx.store.read_ids(room, round_, list(read.logs))
    # Each log line is MS<TAB>ID<TAB>ACTION: its server time and the seq of its event.
    timed = {
        pid: [(int(line.split("\t", 2)[0]), ids[pid][line.split("\t", 2)[1]]) for line in log]
        for pid, log in read.logs.items()
    }
    as_of = int(meta.get("seq", 0))
    for pid_timed in timed.values():
        since = [seq for ms, seq in pid_timed if ms > cutoff]
        if since:
            as_of = min(as_of, since[0] - 1)
    found = await ctx.store.events_after(room, as_of)
    if found is None:
        return None
    boards: dict[str, BoardEntry] = {}
    for pid, log_lines in read.logs.items():
        kept = [
            line for line, (_ms, seq) in zip(log_lines, timed[pid], strict=True) if seq <= as_of
        ]
        boards[pid] = replay(code, kept)
    started_at = int(meta.get("starts_at") or 0)

    def age(text: str) -> int:
        # Only a board's delta is held back; its ``t`` is ms since the start.
        return now - (started_at + int(json.loads(text)["t"]))

    viewer = conn.pid or ""
    text = wire.snapshot(
        {**meta, "seq": str(as_of)},
        viewer,
        Role.SPECTATOR,
        now,
        players(read, boards, viewer, Role.SPECTATOR),
    )
    return Snap(text, as_of, ctx.hub.seen(conn, found[1], age))


async def enter(ctx: Host, conn: Member, room: str, role: str, last_seq: int | None = None) -> bool:
    """Put a socket in a room and bring it up to date.

    With ``last_seq`` the events after it are replayed when the room still keeps them and
    they are at most ``resume_max_events``; otherwise a fresh ``snapshot`` is sent. Events
    that arrive meanwhile are held and sent after, without duplicates. A spectator of a race
    that shows spectators less than everything (delayed, progress) always gets a snapshot:
    replayed events would show the boards too early. Returns False if the room is gone.
    """
    # Never in the queue and a room at once, nor in an arena and another room.
    await ctx.whereabouts.entering(ctx.store, conn, room)
    conn.room, conn.role = room, role
    conn.drop_held()
    conn.syncing = []
    try:
        if conn.pid:
            await ctx.store.arrive(room, conn.cid, conn.pid)
            await ctx.store.clear_away(room, conn.pid)  # back: no give-up for this absence
        await ctx.hub.attach(conn, room)
        state = await ctx.rooms.get(room, refresh=True)
        if state is not None and state.mode == Mode.RACE and state.phase in IN_PLAY:
            await rounds.keep_marked(ctx, state)  # this instance serves the race from now on
        if (
            role == Role.SPECTATOR
            and state is not None
            and state.phase == RoomPhase.RACING
            and state.watch != WatchMode.LIVE
        ):
            last_seq = None
        after: list[Seen] = []
        last = -1
        caught_up = False
        if last_seq is not None:
            found = await ctx.store.events_after(room, last_seq)
            # Far behind, a snapshot is smaller than the events it sums up.
            if found is not None and len(found[1]) <= ctx.settings.resume_max_events:
                after = ctx.hub.seen(conn, found[1])
                last = max([last_seq, *(seq for seq, _text, _delay in after)])
                caught_up = True
        if not caught_up:
            snap = await snapshot(ctx, conn, room, role)
            if snap is None:
                await leave_socket(ctx, conn)
                return False
            conn.queue(snap.text)
            after = snap.then
            last = max([snap.seq, *(seq for seq, _text, _delay in after)])
    except BaseException:
        # Half entered (Redis failed, say): out again, so that events are not held forever
        # and the next join is not refused as already_in_room.
        await leave_socket(ctx, conn)
        raise
    ctx.hub.note_seq(room, last)
    held, conn.syncing = conn.syncing, None
    for seq, text, delay in [*after, *(h for h in held or [] if h[0] > last)]:
        if text is not None:
            conn.push(text, seq, delay)
    return True


async def leave_socket(ctx: Host, conn: Member) -> None:
    """Take a socket out of its room on this instance (the membership stays)."""
    room = conn.room
    conn.room, conn.syncing = None, None
    conn.drop_held()
    if room is not None:
        await ctx.hub.detach(conn, room)
        await ctx.store.depart(room, conn.cid)


async def daily_unwatchable(ctx: Host, room: str, fields: dict[str, str], pid: str) -> bool:
    """Whether a room (``fields``, its Redis hash) shows a daily deal whose day is not
    over, which nobody but its own players may watch: a spectator there would see today's
    ranked line played, and play it in their own daily game. A daily room, a solo game or
    a race on that code alike; a race's drawn deal in the lobby is not shown yet, so it
    says nothing. Its players are those with a status this round (``st:PID``, kept when
    they leave a finished round) or a result (a round whose racers left before statuses
    were kept: rooms live for hours across a restart)."""
    if f"st:{pid}" in fields or not await ctx.daily.deals.is_running(fields.get("code", "")):
        return False
    if not deal_shown(fields.get("state", ""), fields.get("typed") == "1"):
        return False
    _meta, _member, result, _log = await ctx.store.finished_board(
        room, int(fields.get("round") or 1), pid
    )
    return result is None


async def join(ctx: Host, conn: Member, room: str, role: str) -> Status:
    """Become a member of ``room`` as ``role`` (or change role) and enter it.

    Returns:
        ``ok``, or the store's refusal (``room_not_found``, ``room_full``,
        ``race_in_progress``, ``racing_here``), or ``daily_running`` for a spectator of a
        running day's deal (:func:`daily_unwatchable`), or ``barred`` for a racer barred
        from ranked play in a rated room.
    """
    pid = conn.pid or ""
    if role == Role.SPECTATOR:
        fields = await ctx.store.room_fields(room)
        if await daily_unwatchable(ctx, room, fields, pid):
            return Status.DAILY_RUNNING
        if await spectators_full(ctx, room, fields):
            return Status.SPECTATORS_FULL
    elif not (await standing(ctx, pid)).may_rank and (
        (await ctx.store.room_fields(room)).get("rated") == "1"
    ):
        return Status.BARRED  # a barred identity enters no ranked play: no seat in a rated race
    out = await seat(ctx, conn, room, role)
    if out.status is not Status.OK:
        return out.status
    await enter(ctx, conn, room, role)
    return Status.OK


async def spectators_full(ctx: Host, room: str, fields: dict[str, str]) -> bool:
    """Whether a room has as many spectators' sockets as it takes: the cap counts sockets
    (each costs the room's fan-out), so one identity's many tabs count many times."""
    watching = await ctx.store.spectator_sockets(room, fields)
    return watching >= ctx.settings.spectators_per_room


async def seat(ctx: Host, conn: Member, room: str, role: str) -> Outcome:
    """The store's join for a socket; a racer's seat keeps a mark of their client address
    (``ad:PID``): two racers of one address are not rated against each other
    (:mod:`server.ranked.ratings`)."""
    pid = conn.pid or ""
    member = wire.member(pid, conn.name, role)
    mark = ratings.address_mark(conn.address)
    return await ctx.store.join(room, pid, role, member, MAX_PLAYERS, ctx.instance_id, mark)


async def resume(ctx: Host, conn: Member, room: str, last_seq: int | None) -> Status:
    """Come back into a room after a dropped connection (on any instance).

    A member keeps their role. A membership that ended with the socket (a spectator, or a
    racer in the lobby or after the race) is taken up again, by the rules of :func:`join`:
    as a racer while the room is in its lobby and has a place, or in the finished round
    the player raced, else as a spectator, which an identity racing this round may not be
    (``racing_here``), nor anyone while the room shows a running day's daily deal
    (``daily_running``).

    Returns:
        ``ok`` or the store's refusal.
    """
    pid = conn.pid or ""
    member = await ctx.store.member(room, pid)
    fields = await ctx.store.room_fields(room)
    if member is not None:
        role = str(member["role"])
        if role == Role.SPECTATOR and await daily_unwatchable(ctx, room, fields, pid):
            return Status.DAILY_RUNNING  # seated before the rule; no way back in
    else:
        if not fields:
            return Status.ROOM_NOT_FOUND
        # Back in the lobby, or in the finished round they raced: a racer's seat again.
        phase = fields.get("state")
        back = phase == RoomPhase.DONE and f"st:{pid}" in fields
        role = Role.PLAYER if phase == RoomPhase.LOBBY or back else Role.SPECTATOR
        if role == Role.SPECTATOR and await daily_unwatchable(ctx, room, fields, pid):
            return Status.DAILY_RUNNING
        if role == Role.SPECTATOR and await spectators_full(ctx, room, fields):
            return Status.SPECTATORS_FULL
        out = await seat(ctx, conn, room, role)
        if out.status is Status.ROOM_FULL:
            role = Role.SPECTATOR
            if await daily_unwatchable(ctx, room, fields, pid):
                return Status.DAILY_RUNNING
            out = await seat(ctx, conn, room, role)
        if out.status is not Status.OK:
            return out.status
    if conn.room is not None and conn.room != room:
        # One room at a time: coming back into another room leaves this one, as `leave`
        # does (a racer of a running race gives up), so no membership is left behind.
        await leave(ctx, conn, conn.room)
    elif conn.room is not None:
        await leave_socket(ctx, conn)
    conn.queue(wire.welcome(pid, conn.token, conn.name, now_ms()))
    await enter(ctx, conn, room, role, last_seq)
    return Status.OK


async def leave(ctx: Host, conn: Member, room: str) -> None:
    """End the membership (the ``leave`` message, or a socket lost in the lobby); a racer in
    a running race gives up."""
    state = await ctx.rooms.get(room)
    pid = conn.pid or ""
    moves = 0
    if state is not None and conn.role == Role.PLAYER:
        entry = await ctx.boards.get(room, state.round, pid, state.code)
        moves = entry.board.moves
    rnd = state.round if state else 0
    if state is not None and state.paired and state.phase in (RoomPhase.LOBBY, RoomPhase.COUNTDOWN):
        ctx.spawn(queue.note_dodge(ctx.store, pid))  # left a paired race before its start
    await ctx.store.leave(
        room,
        pid,
        ctx.instance_id,
        wire.gave_up_body(pid, rnd, moves),
        wire.result(pid, conn.name, "gave_up", None, moves),
    )
    ctx.spawn(record_give_up(ctx, room, rnd, pid))  # a race left mid-way
    if state is not None and state.mode in (Mode.SOLO, Mode.DAILY):
        # A game alone, over: its events and logs go in minutes (it was played alone).
        await ctx.store.let_go_alone(room, rnd, pid, ctx.settings.finished_room_ttl)
    if state is not None and state.mode == Mode.RACE and conn.role == Role.PLAYER:
        # The last racer's leave may end the race after this socket stopped hearing it.
        ctx.spawn(ratings.settle(ctx, room))
    await leave_socket(ctx, conn)


async def on_close(ctx: Host, conn: Member) -> None:
    """A socket closed: in the lobby (or as a spectator) that is leaving the room; a racer
    mid-race has :data:`Settings.away_grace_ms` to come back before giving up."""
    ctx.daily.watchers.forget(conn)
    await ctx.whereabouts.closed(ctx.store, conn)  # out of the queue and its arena
    room = conn.room
    if room is None:
        return
    if any(
        c is not conn and c.pid == conn.pid and c.room == room for c in ctx.hub.rooms.get(room, ())
    ):
        # Another socket of this identity is still here: the membership is still in use.
        await leave_socket(ctx, conn)
        return
    state = await ctx.rooms.get(room)
    if state is not None and (
        conn.role == Role.SPECTATOR or state.phase in (RoomPhase.LOBBY, RoomPhase.DONE)
    ):
        await leave(ctx, conn, room)
        return
    await leave_socket(ctx, conn)
    if state is not None and state.paired and state.phase == RoomPhase.COUNTDOWN and conn.pid:
        ctx.spawn(queue.note_dodge(ctx.store, conn.pid))  # gone before the paired race began
    if state is not None and state.mode == Mode.RACE and conn.role == Role.PLAYER and conn.pid:
        # A racer who does not come back gives up, so the race can end.
        await rounds.mark_away(ctx, conn.pid, room, state.round)


async def race_over(ctx: Host, room: str) -> None:
    """A race ended (its ``race_over`` passed through this instance): its deal is no
    longer being raced, and spectators who saw less than everything see it all now."""
    state = await ctx.rooms.get(room)
    if state is None or state.mode != Mode.RACE:
        return
    ctx.spawn(ratings.settle(ctx, room))  # a rated race changes its racers' ratings, once
    await ctx.store.unmark_racing(state.code, room)
    if state.public:
        await listing.unlist_room(ctx.store, room)  # over: no longer a live race to watch
    if state.watch == WatchMode.LIVE:
        return
    for conn in list(ctx.hub.rooms.get(room, ())):
        if isinstance(conn, Member) and conn.room == room and conn.role == Role.SPECTATOR:
            await enter(ctx, conn, room, Role.SPECTATOR)

"""Who is in a room and as what: one path for creating, joining, resuming, leaving and
closing a socket, and for bringing a socket up to date when it enters.

A membership lives in Redis (``room:{R}:members``) and outlives a socket while a race runs;
a socket *enters* the room on this instance (the hub forwards the room's events to it) and
*leaves* it again when it closes or moves elsewhere.
"""

from __future__ import annotations

import secrets
from typing import Final

from protocol.models import MAX_PLAYERS

from .. import wire
from ..clock import now_ms
from ..context import Context
from ..daily.results import record_give_up
from ..session import Conn
from ..store.cache import replay
from ..store.records import Mode, Role, RoomPhase
from . import rounds
from .views import players

ROOM_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def new_room_id() -> str:
    """A fresh room id: 8 characters, no look-alike letters."""
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(8))


async def new_room(
    ctx: Context, mode: Mode, code: str, cells: int, solo: Conn | None = None
) -> str:
    """Create a room in Redis; with ``solo`` it is already racing with that player.

    Returns:
        The room id.
    """
    while True:
        room = new_room_id()
        fields: dict[str, str | int] = {
            "room_id": room,
            "code": code,
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
        }
        if solo is not None:
            fields["starts_at"] = now_ms()
            pid = solo.pid or ""
            if await ctx.store.create_solo(
                room, fields, pid, wire.member(pid, solo.name, "player")
            ):
                return room
        elif await ctx.store.create(room, fields):
            return room


async def snapshot(ctx: Context, room: str, viewer: str, role: str) -> tuple[str, int] | None:
    """The ``snapshot`` of a room for one viewer and its seq, or None if the room is gone."""
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
    # A daily game's snapshot says what it counts for: ranked attempt or practice.
    daily = await ctx.store.daily_note(room) if read.meta.get("mode") == Mode.DAILY else None
    seen = players(read, boards, viewer, role)
    text = wire.snapshot(read.meta, viewer, role, now_ms(), seen, daily)
    return text, int(read.meta.get("seq", 0))


async def enter(
    ctx: Context, conn: Conn, room: str, role: str, last_seq: int | None = None
) -> bool:
    """Put a socket in a room and bring it up to date.

    With ``last_seq`` the events after it are replayed when the room still keeps them and
    they are at most ``resume_max_events``; otherwise a fresh ``snapshot`` is sent. Events
    that arrive meanwhile are held and sent after, without duplicates. Returns False if the
    room is gone.
    """
    conn.room, conn.role = room, role
    conn.syncing = []
    try:
        if conn.pid:
            await ctx.store.arrive(room, conn.cid, conn.pid)
            await ctx.store.clear_away(room, conn.pid)  # back: no give-up for this absence
        await ctx.hub.attach(conn, room)
        await ctx.rooms.get(room, refresh=True)
        last = -1
        caught_up = False
        if last_seq is not None:
            found = await ctx.store.events_after(room, last_seq)
            # Far behind, a snapshot is smaller than the events it sums up.
            if found is not None and len(found[1]) <= ctx.settings.resume_max_events:
                _seq, entries = found
                last = max(ctx.hub.deliver(conn, entries), last_seq)
                caught_up = True
        if not caught_up:
            snap = await snapshot(ctx, room, conn.pid or "", role)
            if snap is None:
                await leave_socket(ctx, conn)
                return False
            conn.queue(snap[0])
            last = snap[1]
    except BaseException:
        # Half entered (Redis failed, say): out again, so that events are not held forever
        # and the next join is not refused as already_in_room.
        await leave_socket(ctx, conn)
        raise
    held, conn.syncing = conn.syncing, None
    for seq, text in held or []:
        if seq > last:
            conn.queue(text)
    return True


async def leave_socket(ctx: Context, conn: Conn) -> None:
    """Take a socket out of its room on this instance (the membership stays)."""
    room = conn.room
    conn.room, conn.syncing = None, None
    if room is not None:
        await ctx.hub.detach(conn, room)
        await ctx.store.depart(room, conn.cid)


async def join(ctx: Context, conn: Conn, room: str, role: str) -> str:
    """Become a member of ``room`` as ``role`` (or change role) and enter it.

    Returns:
        ``ok``, or the store's refusal (``room_not_found``, ``room_full``,
        ``race_in_progress``).
    """
    pid = conn.pid or ""
    out = await ctx.store.join(
        room, pid, role, wire.member(pid, conn.name, role), MAX_PLAYERS, ctx.instance_id
    )
    if out.status != "ok":
        return out.status
    await enter(ctx, conn, room, role)
    return "ok"


async def resume(ctx: Context, conn: Conn, room: str, last_seq: int | None) -> str:
    """Come back into a room after a dropped connection (on any instance).

    A member keeps their role. A membership that ended with the socket (a spectator, or a
    racer in the lobby) is taken up again: as a racer while the room is in its lobby and
    has a place, else as a spectator.

    Returns:
        ``ok`` or the store's refusal.
    """
    pid = conn.pid or ""
    member = await ctx.store.member(room, pid)
    if member is not None:
        role = str(member["role"])
    else:
        fields = await ctx.store.room_fields(room)
        if not fields:
            return "room_not_found"
        role = Role.PLAYER if fields.get("state") == RoomPhase.LOBBY else Role.SPECTATOR
        out = await ctx.store.join(
            room, pid, role, wire.member(pid, conn.name, role), MAX_PLAYERS, ctx.instance_id
        )
        if out.status == "room_full":
            role = Role.SPECTATOR
            out = await ctx.store.join(
                room, pid, role, wire.member(pid, conn.name, role), MAX_PLAYERS, ctx.instance_id
            )
        if out.status != "ok":
            return out.status
    if conn.room is not None and conn.room != room:
        # One room at a time: coming back into another room leaves this one, as `leave`
        # does (a racer of a running race gives up), so no membership is left behind.
        await leave(ctx, conn, conn.room)
    elif conn.room is not None:
        await leave_socket(ctx, conn)
    conn.queue(wire.welcome(pid, conn.token, conn.name, now_ms()))
    await enter(ctx, conn, room, role, last_seq)
    return "ok"


async def leave(ctx: Context, conn: Conn, room: str) -> None:
    """End the membership (the ``leave`` message, or a socket lost in the lobby); a racer in
    a running race gives up."""
    state = await ctx.rooms.get(room)
    pid = conn.pid or ""
    moves = 0
    if state is not None and conn.role == Role.PLAYER:
        entry = await ctx.boards.get(room, state.round, pid, state.code)
        moves = entry.board.moves
    rnd = state.round if state else 0
    await ctx.store.leave(
        room,
        pid,
        ctx.instance_id,
        wire.gave_up_body(pid, rnd, moves),
        wire.result(pid, conn.name, "gave_up", None, moves),
    )
    ctx.spawn(record_give_up(ctx.store, ctx.daily, room, rnd, pid))  # a race left mid-way
    await leave_socket(ctx, conn)


async def on_close(ctx: Context, conn: Conn) -> None:
    """A socket closed: in the lobby (or as a spectator) that is leaving the room; a racer
    mid-race has :data:`Settings.away_grace_ms` to come back before giving up."""
    ctx.daily.watchers.forget(conn)
    room = conn.room
    if room is None:
        return
    state = await ctx.rooms.get(room)
    if state is not None and (
        conn.role == Role.SPECTATOR or state.phase in (RoomPhase.LOBBY, RoomPhase.DONE)
    ):
        await leave(ctx, conn, room)
        return
    await leave_socket(ctx, conn)
    if state is not None and state.mode == Mode.RACE and conn.role == Role.PLAYER and conn.pid:
        # A racer who does not come back gives up, so the race can end.
        await rounds.mark_away(ctx, conn.pid, room, state.round)

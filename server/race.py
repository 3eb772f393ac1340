"""The websocket handlers of the race: identity, rooms, the countdown and the moves.

Each handler is registered by message type in :data:`server.registry.WS_HANDLERS`. A move
is validated by the engine on the instance's cached board, then committed by one Lua script
that checks the board's version; only then is it acknowledged.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from protocol import models as m
from protocol.models import MAX_PLAYERS, PROTOCOL_VERSION

from .boards import BoardEntry
from .deals import draw_code
from .engine import (
    Action,
    CodeError,
    DoubleTap,
    IllegalAction,
    Move,
    Tap,
    Undo,
    format_code,
    parse_code,
    parse_location,
)
from .registry import ws_handler
from .results import record_finish, record_give_up
from .store import MAX_EVENTS, body
from .views import board_view

if TYPE_CHECKING:
    from .app import App, RoomState
    from .session import Conn
    from .store import Outcome

ROOM_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"


def now_ms() -> int:
    """The server clock, ms since the epoch."""
    return time.time_ns() // 1_000_000


def new_room_id() -> str:
    """A fresh room id: 8 characters, no look-alike letters."""
    return "".join(secrets.choice(ROOM_ALPHABET) for _ in range(8))


def member_entry(conn: Conn, role: str) -> str:
    """The member JSON kept in ``room:{R}:members``."""
    return json.dumps({"player_id": conn.pid, "name": conn.name, "role": role})


# -- identity -----------------------------------------------------------------------------


@ws_handler("hello")
async def on_hello(app: App, conn: Conn, msg: m.Hello) -> None:
    """Identify the player: a known token keeps its player id."""
    if msg.v != PROTOCOL_VERSION:
        await conn.error("unsupported_version", f"this server speaks version {PROTOCOL_VERSION}")
        return
    if conn.room is not None:
        await conn.error("already_in_room")
        return
    pid = None
    if msg.token:
        session = await app.store.load_session(msg.token)
        if session is None:
            await conn.error("bad_token")
            return
        pid = session[0]
        token = msg.token
    if pid is None:
        pid = "p" + secrets.token_hex(6)
        token = secrets.token_urlsafe(24)
    conn.pid, conn.name, conn.token = pid, msg.name, token
    await app.store.save_session(token, pid, msg.name)
    await conn.send(
        {
            "type": "welcome",
            "player_id": pid,
            "token": token,
            "name": msg.name,
            "v": PROTOCOL_VERSION,
            "now": now_ms(),
        }
    )


@ws_handler("ping")
async def on_ping(app: App, conn: Conn, msg: m.Ping) -> None:
    """Keep-alive."""
    await conn.send({"type": "pong", "now": now_ms()})


# -- entering and leaving rooms -----------------------------------------------------------


async def enter(app: App, conn: Conn, room: str, role: str, last_seq: int | None = None) -> bool:
    """Put a socket in a room and bring it up to date.

    With ``last_seq`` the events after it are replayed when the room still keeps them;
    otherwise (or if they are gone) a fresh ``snapshot`` is sent. Events that arrive
    meanwhile are held and sent after, without duplicates. Returns False if the room is gone.
    """
    conn.room, conn.role = room, role
    conn.syncing = []
    try:
        if conn.pid:
            await app.store.clear_away(room, conn.pid)  # back: no give-up for this absence
        await app.hub.attach(conn, room)
        await app.room_state(room, refresh=True)
        last = -1
        caught_up = False
        if last_seq is not None:
            found = await app.store.events_after(room, last_seq)
            if found is not None:
                seq, entries = found
                last = max(await app.hub.deliver(conn, entries), last_seq)
                caught_up = True
        if not caught_up:
            snap = await app.snapshot(room, conn.pid or "", role)
            if snap is None:
                await leave_socket(app, conn)
                return False
            await conn.send(snap)
            last = int(snap["seq"])
    except BaseException:
        # Half entered (Redis failed, say): out again, so that events are not held forever
        # and the next join is not refused as already_in_room.
        await leave_socket(app, conn)
        raise
    held, conn.syncing = conn.syncing, None
    for seq, text in held or []:
        if seq > last:
            await conn.send_text(text)
    return True


async def leave_socket(app: App, conn: Conn) -> None:
    """Take a socket out of its room on this instance (the membership stays)."""
    room = conn.room
    conn.room, conn.syncing = None, None
    if room is not None:
        await app.hub.detach(conn, room)


@ws_handler("create_room")
async def on_create_room(app: App, conn: Conn, msg: m.CreateRoom) -> None:
    """A new race room on a certified deal; the creator joins as its host."""
    if conn.room is not None:
        await conn.error("already_in_room")
        return
    cells: int = msg.cells
    if msg.code is not None:
        try:
            parsed = parse_code(msg.code)
        except CodeError as exc:
            await conn.error("bad_code", str(exc)[:200])
            return
        code, cells = format_code(parsed.deal, parsed.cells), parsed.cells
    else:
        code = draw_code(cells)
    room = await app.new_room("race", code, cells)
    await join_room(app, conn, room, "player")


async def join_room(app: App, conn: Conn, room: str, role: str) -> None:
    """Join as a member and enter."""
    out = await app.store.join(
        room, conn.pid or "", role, member_entry(conn, role), MAX_PLAYERS, app.instance_id
    )
    if out.status != "ok":
        await conn.error(out.status)
        return
    await enter(app, conn, room, role)


@ws_handler("join")
async def on_join(app: App, conn: Conn, msg: m.Join) -> None:
    """Join a room as a racer (before the start) or a spectator."""
    if conn.room is not None:
        await conn.error("already_in_room")
        return
    await join_room(app, conn, msg.room.upper(), msg.role)


@ws_handler("resume")
async def on_resume(app: App, conn: Conn, msg: m.Resume) -> None:
    """Come back after a dropped connection, on any instance."""
    session = await app.store.load_session(msg.token)
    if session is None:
        await conn.error("bad_token")
        return
    if conn.pid is not None and conn.pid != session[0]:
        await conn.error("bad_token", "this connection is already someone else")
        return
    conn.pid, conn.name, conn.token = session[0], session[1], msg.token
    room = msg.room.upper()
    member = await app.store.redis.hget(f"room:{{{room}}}:members", conn.pid)
    if member is not None:
        role = json.loads(member)["role"]
    else:
        # A membership that ended with the socket (a spectator, or a racer in the lobby):
        # come back in, as a racer while the room is in its lobby, else as a spectator.
        fields = await app.store.room_fields(room)
        if not fields:
            await conn.error("room_not_found")
            return
        role = "player" if fields.get("state") == "lobby" else "spectator"
        out = await app.store.join(
            room, conn.pid, role, member_entry(conn, role), MAX_PLAYERS, app.instance_id
        )
        if out.status == "room_full":
            role = "spectator"
            out = await app.store.join(
                room, conn.pid, role, member_entry(conn, role), MAX_PLAYERS, app.instance_id
            )
        if out.status != "ok":
            await conn.error(out.status)
            return
    if conn.room is not None:
        await leave_socket(app, conn)
    await conn.send(
        {
            "type": "welcome",
            "player_id": conn.pid,
            "token": conn.token,
            "name": conn.name,
            "v": PROTOCOL_VERSION,
            "now": now_ms(),
        }
    )
    await enter(app, conn, room, role, msg.last_seq)


@ws_handler("leave")
async def on_leave(app: App, conn: Conn, msg: m.Leave) -> None:
    """Leave the room; a racer in a running race gives up."""
    room = conn.room
    if room is None:
        await conn.error("not_in_room")
        return
    await leave_room(app, conn, room)
    await conn.send({"type": "left", "room_id": room})


async def leave_room(app: App, conn: Conn, room: str) -> None:
    """End the membership (the ``leave`` message, or a socket lost in the lobby)."""
    state = await app.room_state(room)
    moves = 0
    if state is not None and conn.role == "player":
        entry = await app.boards.get(room, state.round, conn.pid or "", state.code)
        moves = entry.board.moves
    rnd = state.round if state else 0
    await app.store.leave(
        room,
        conn.pid or "",
        app.instance_id,
        body({"type": "gave_up", "player_id": conn.pid, "round": rnd, "moves": moves}),
        json.dumps(
            {
                "player_id": conn.pid,
                "name": conn.name,
                "status": "gave_up",
                "rank": None,
                "time_ms": None,
                "moves": moves,
            }
        ),
    )
    app.spawn(record_give_up(app, room, rnd, conn.pid or ""))  # a race left mid-way
    await leave_socket(app, conn)


@ws_handler("solo")
async def on_solo(app: App, conn: Conn, msg: m.Solo) -> None:
    """A game alone at once: a typed code or a certified deal; clocked from the first move."""
    if conn.room is not None:
        await conn.error("already_in_room")
        return
    if msg.code is not None:
        try:
            parsed = parse_code(msg.code)
        except CodeError as exc:
            await conn.error("bad_code", str(exc)[:200])
            return
        code, cells = format_code(parsed.deal, parsed.cells), parsed.cells
    else:
        cells = msg.cells or 4
        code = draw_code(cells)
    await start_solo(app, conn, code, cells, "solo")


async def start_solo(app: App, conn: Conn, code: str, cells: int, mode: str) -> str:
    """Create a one-player room already racing and enter it (also used by the daily).

    Returns:
        The room id.
    """
    room = await app.new_room(
        mode, code, cells, solo_pid=conn.pid, entry=member_entry(conn, "player")
    )
    await enter(app, conn, room, "player")
    return room


# -- the move path -------------------------------------------------------------------------


def to_action(msg: m.MoveMsg | m.TapMsg | m.DoubleTapMsg | m.UndoMsg) -> Action:
    """The engine action of a message (locations are already checked by the model)."""
    if isinstance(msg, m.MoveMsg):
        return Move(parse_location(msg.src), parse_location(msg.dst))
    if isinstance(msg, m.TapMsg):
        return Tap(parse_location(msg.at))
    if isinstance(msg, m.DoubleTapMsg):
        return DoubleTap(parse_location(msg.at))
    return Undo()


async def reject(app: App, conn: Conn, action_id: int, reason: str, message: str) -> None:
    """Send ``reject``."""
    app.metrics.rejects += 1
    await conn.send({"type": "reject", "id": action_id, "reason": reason, "message": message})


REJECT_TEXT = {**m.SERVER_REJECT_REASONS}


@ws_handler("move")
@ws_handler("tap")
@ws_handler("double_tap")
@ws_handler("undo")
async def on_action(
    app: App, conn: Conn, msg: m.MoveMsg | m.TapMsg | m.DoubleTapMsg | m.UndoMsg
) -> None:
    """Validate an action with the engine, commit it atomically, then acknowledge it."""
    started = time.perf_counter()
    room = conn.room
    if room is None or conn.role != "player":
        await reject(app, conn, msg.id, "not_racing", REJECT_TEXT["not_racing"])
        return
    state = await app.room_state(room)
    if state is None:
        await reject(app, conn, msg.id, "not_racing", "the room is gone")
        return
    if state.state == "countdown" and now_ms() >= state.starts_at:
        app.metrics.late_begins += 1
        await app.begin(room)
        state = await app.room_state(room, refresh=True) or state
    if state.state in ("lobby", "countdown"):
        await reject(app, conn, msg.id, "not_started", REJECT_TEXT["not_started"])
        return
    pid = conn.pid or ""
    action = to_action(msg)
    for _attempt in range(3):
        entry = await app.boards.get(room, state.round, pid, state.code)
        async with entry.lock:  # one action at a time per board copy
            if await commit(app, conn, msg.id, action, state, entry):
                break
    else:
        await reject(app, conn, msg.id, "conflict", REJECT_TEXT["conflict"])
        return
    app.metrics.observe_move(time.perf_counter() - started)


async def commit(
    app: App, conn: Conn, action_id: int, action: Action, state: RoomState, entry: BoardEntry
) -> bool:
    """Play and commit one action on a cached board; False means retry on a fresh copy."""
    room, pid = state.room, conn.pid or ""
    if entry.dropped:  # another action on this board failed meanwhile: start afresh
        return False
    seq = entry.acked.get(action_id)
    if seq is not None:  # a resent action: acknowledge again, never apply twice
        await conn.send({"type": "ack", "id": action_id, "seq": seq})
        return True
    board = entry.board
    if entry.over or board.is_won():
        await reject(app, conn, action_id, "finished", REJECT_TEXT["finished"])
        return True
    try:
        delta = board.play(action)
    except IllegalAction as exc:
        # Before refusing, make sure the copy is current and the action not already in.
        seq, version = await app.store.check(room, state.round, pid, action_id)
        if seq is not None:
            await conn.send({"type": "ack", "id": action_id, "seq": seq})
        elif version != entry.version:
            app.boards.drop(room, state.round, pid)
            return False
        else:
            await reject(app, conn, action_id, exc.reason, str(exc))
        return True
    now = now_ms()
    first = entry.first_ms if entry.first_ms is not None else now
    clock_from = first if state.mode != "race" else state.starts_at
    elapsed = max(0, now - clock_from)
    won = board.is_won()
    lost = board.is_lost()
    found = sum(board.foundations)
    text = str(action)
    delta_json = delta.to_json()
    delta_body = body(
        {
            "type": "delta",
            "player_id": pid,
            "round": state.round,
            "action": text,
            "changes": delta_json["changes"],
            "points": delta.points,
            "score": delta.score,
            "undo": delta.undo,
            "moves": board.moves,
            "foundation_cards": found,
            "finished": won,
            "lost": lost,
            "t": elapsed,
        }
    )
    progress_body = body(
        {
            "type": "progress",
            "player_id": pid,
            "round": state.round,
            "foundation_cards": found,
            "moves": board.moves,
            "finished": won,
        }
    )
    finished_body = result_prefix = ""
    if won:
        finished_body = (
            body(
                {
                    "type": "finished",
                    "player_id": pid,
                    "round": state.round,
                    "time_ms": elapsed,
                    "moves": board.moves,
                }
            )[:-1]
            + ',"rank":'
        )
        result_prefix = (
            json.dumps(
                {
                    "player_id": pid,
                    "name": conn.name,
                    "status": "finished",
                    "time_ms": elapsed,
                    "moves": board.moves,
                }
            )[:-1]
            + ',"rank":'
        )
    acked = False

    def acknowledge(out: Outcome) -> None:
        """A committed action: acknowledge it (called as soon as Redis's answer is read)."""
        nonlocal acked
        if acked or out.status != "ok":
            return
        acked = True
        entry.version += 1
        entry.acked[action_id] = out.seq
        if entry.first_ms is None:
            entry.first_ms = now
        entry.last_ms = now
        # The ack and the mover's own delta leave at once, in one write (the channel skips
        # this socket); waiting for the next loop turn would only add latency here.
        conn.queue(f'{{"type":"ack","id":{action_id},"seq":{out.seq}}}')
        conn.queue(f'{{"seq":{out.seq},{delta_body}')
        if lost:
            conn.queue(json.dumps({"type": "lost", "player_id": pid}))
        conn.flush()

    redis_started = time.perf_counter()
    try:
        out = await app.store.move(
            room,
            state.round,
            pid,
            [
                pid,
                state.round,
                action_id,
                entry.version,
                f"{now}\t{action_id}\t{text}",
                delta_body,
                progress_body,
                1 if won else 0,
                finished_body,
                result_prefix,
                conn.cid,
                MAX_EVENTS,
                app.store.ttl,
            ],
            acknowledge,
        )
    except BaseException:
        # The copy already holds the action; Redis may not. Rebuild it from the log next
        # time (a resend with the same id is then acked if the commit did land).
        app.boards.drop(room, state.round, pid)
        raise
    app.metrics.redis_move_seconds += time.perf_counter() - redis_started
    app.metrics.redis_moves += 1
    if out.status == "ok":
        acknowledge(out)  # already done when Redis's answer was read; not twice
        if won:  # keep the replay; verify and rank a daily win; race history
            app.spawn(record_finish(app, room, state.round, pid))
        return True
    app.boards.drop(room, state.round, pid)  # the copy took an action Redis did not
    if out.status == "stale":
        return False
    if out.status == "dup":
        await conn.send({"type": "ack", "id": action_id, "seq": out.seq})
        return True
    if out.status in ("round", "room_not_found", "not_started"):
        await app.room_state(room, refresh=True)
        reason = "not_started" if out.status == "not_started" else "not_racing"
    else:
        reason = out.status
    await reject(app, conn, action_id, reason, REJECT_TEXT.get(reason, reason))
    return True


@ws_handler("hint")
async def on_hint(app: App, conn: Conn, msg: m.HintReq) -> None:
    """A hint from the solver, computed in a worker thread so the socket keeps flowing.

    Refused (``reject hints_off``) in a race room until its race is over.
    """
    room = conn.room
    state = await app.room_state(room) if room else None
    if room is None or state is None or conn.role != "player":
        await conn.error("not_racing")
        return
    if state.mode == "race" and state.state != "done":
        # A race where the server hands out the winning line is not a race.
        await reject(app, conn, msg.id, "hints_off", REJECT_TEXT["hints_off"])
        return
    entry = await app.boards.get(room, state.round, conn.pid or "", state.code)
    board = entry.board.copy()
    app.spawn(send_hint(conn, msg.id, board))


async def send_hint(conn: Conn, hint_id: int, board: Any) -> None:
    """Run the solver's ``hint`` off the event loop and send the answer."""
    from .engine.solver import hint

    answer = await asyncio.to_thread(hint, board, timeout=1.0)
    reply: dict[str, Any] = {"type": "hint", "id": hint_id, "status": answer.status}
    if answer.move is not None:
        reply["move"] = answer.move
    await conn.send(reply)


def started_body(state: RoomState) -> str:
    """The ``started`` event without its closing ``players`` (the script adds them)."""
    from .engine import Board

    return body(
        {
            "type": "started",
            "round": state.round,
            "code": state.code,
            "cells": state.cells,
            "started_at": state.starts_at,
            "board": board_view(Board.from_code(state.code)),
        }
    )[:-1]

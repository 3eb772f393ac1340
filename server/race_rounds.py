"""A race's rounds: the host's start and countdown, giving up (by message or by staying
away), and the rematch. The moves themselves are :mod:`server.race`'s."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import TYPE_CHECKING

from protocol import models as m

from .deals import draw_code
from .race import now_ms
from .registry import ws_handler
from .results import record_give_up
from .store import body

if TYPE_CHECKING:
    from .app import App
    from .session import Conn


@ws_handler("start")
async def on_start(app: App, conn: Conn, msg: m.Start) -> None:
    """Host: 3-second countdown, then every board starts at the same server time."""
    room = conn.room
    if room is None:
        await conn.error("not_in_room")
        return
    now = now_ms()
    starts_at = now + app.config.countdown_ms
    out = await app.store.start(room, conn.pid or "", starts_at, now, app.instance_id)
    if out.status != "ok":
        await conn.error(out.status)
        return
    app.spawn(begin_at(app, room, starts_at))


async def begin_at(app: App, room: str, starts_at: int) -> None:
    """Wait for the start time, then start the race (idempotent across instances)."""
    await asyncio.sleep(max(0, starts_at - now_ms()) / 1000)
    await app.begin(room)


@ws_handler("give_up")
async def on_give_up(app: App, conn: Conn, msg: m.GiveUp) -> None:
    """Give up this round; the result is kept."""
    room = conn.room
    state = await app.room_state(room) if room else None
    if room is None or state is None or conn.role != "player":
        await conn.error("not_racing")
        return
    status = await give_up_racer(app, room, state.round, state.code, conn.pid or "", conn.name)
    if status != "ok":
        await conn.error(status)


async def give_up_racer(app: App, room: str, rnd: int, code: str, pid: str, name: str) -> str:
    """Record that a racer gives up this round; returns the store's status (``ok``...)."""
    entry = await app.boards.get(room, rnd, pid, code)
    moves = entry.board.moves
    out = await app.store.give_up(
        room,
        rnd,
        pid,
        body({"type": "gave_up", "player_id": pid, "round": rnd, "moves": moves}),
        json.dumps(
            {
                "player_id": pid,
                "name": name,
                "status": "gave_up",
                "rank": None,
                "time_ms": None,
                "moves": moves,
            }
        ),
        app.instance_id,
    )
    if out.status == "ok":
        entry.over = True
        app.spawn(record_give_up(app, room, rnd, pid))  # race history
    return out.status


async def give_up_if_away(app: App, conn: Conn, room: str, rnd: int) -> None:
    """After a racer's socket closed mid-race: give up if they have not resumed in time.

    The absence is marked in Redis, and any return (``resume`` or ``join``, on any instance)
    clears it, so only the instance that saw the socket close acts, and only on a real
    absence. Without it one closed tab would keep a race open until the room expires.
    """
    pid, name = conn.pid or "", conn.name
    grace = app.config.away_grace_ms / 1000
    nonce = secrets.token_hex(8)
    await app.store.mark_away(room, pid, nonce, int(grace) + 60)
    await asyncio.sleep(grace)
    if not await app.store.still_away(room, pid, nonce):
        return
    state = await app.room_state(room, refresh=True)
    if state is None or state.round != rnd or state.state not in ("countdown", "racing"):
        return
    await give_up_racer(app, room, rnd, state.code, pid, name)


@ws_handler("rematch")
async def on_rematch(app: App, conn: Conn, msg: m.Rematch) -> None:
    """Host, once the race is over: a new deal in the same room, back to the lobby."""
    room = conn.room
    state = await app.room_state(room) if room else None
    if room is None or state is None:
        await conn.error("not_in_room")
        return
    out = await app.store.rematch(room, conn.pid or "", draw_code(state.cells), app.instance_id)
    if out.status != "ok":
        await conn.error(out.status)

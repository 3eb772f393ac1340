"""A race's rounds: the host's watch mode and start, the countdown, the start itself,
giving up (by message or by staying away), and the rematch; and the mark that a deal is
being raced, which keeps the solver's hints off it. The moves are
:mod:`server.play.moves`'s."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from typing import Final

from .. import wire
from ..clock import now_ms
from ..context import Context
from ..daily.results import record_give_up
from ..pools import draw
from ..store.records import IN_PLAY, Mode, RoomPhase, RoomState, WatchMode, watch_modes

#: How long a mark "this deal is being raced" holds unless an instance serving the race
#: renews it (every :data:`RENEW_S`): after a crash of every such instance it lapses.
RACING_LEASE_MS: Final = 300_000
RENEW_S: Final = 30.0


async def keep_marked(ctx: Context, state: RoomState) -> None:
    """Mark (or renew the mark) that ``state``'s room races its deal: no hints for it."""
    lease = max(RACING_LEASE_MS, 2 * ctx.settings.away_grace_ms)
    await ctx.store.mark_racing(state.code, state.room, now_ms(), lease)


async def set_watch(ctx: Context, room: str, host: str, mode: str, delay_s: int) -> str:
    """The host picks what spectators see during the race (in the lobby only).

    Returns:
        ``ok`` or the refusal (``not_host``, ``wrong_state``).
    """
    if WatchMode(mode) not in watch_modes(public=False):  # every room is an invite room
        return "wrong_state"
    out = await ctx.store.set_watch(room, host, mode, delay_s, ctx.instance_id)
    return out.status


async def start(ctx: Context, room: str, host: str) -> str:
    """The host starts the countdown; every board opens at the same server time.

    Returns:
        ``ok`` or the store's refusal (``not_host``, ``wrong_state``, ...).
    """
    now = now_ms()
    starts_at = now + ctx.settings.countdown_ms
    out = await ctx.store.start(room, host, starts_at, now, ctx.instance_id)
    if out.status == "ok":
        ctx.spawn(begin_at(ctx, room, starts_at))
        state = await ctx.rooms.get(room, refresh=True)
        if state is not None:
            await keep_marked(ctx, state)
    return out.status


async def begin_at(ctx: Context, room: str, starts_at: int) -> None:
    """Wait for the start time, then start the race (idempotent across instances)."""
    await asyncio.sleep(max(0, starts_at - now_ms()) / 1000)
    await begin(ctx, room)


async def begin(ctx: Context, room: str) -> None:
    """End a room's countdown if it is due (any instance may; only the first counts)."""
    state = await ctx.rooms.get(room, refresh=True)
    if state is None or state.phase != RoomPhase.COUNTDOWN:
        return
    await ctx.store.begin(room, state.round, ctx.instance_id, now_ms())
    await ctx.rooms.get(room, refresh=True)


async def janitor(ctx: Context) -> None:
    """Start races whose countdown ended on an instance that went away, and renew the
    marks of the races this instance serves."""
    loop = asyncio.get_running_loop()
    renewed = loop.time()
    while True:
        await asyncio.sleep(0.5)
        renew = loop.time() - renewed >= RENEW_S
        if renew:
            renewed = loop.time()
        for room in list(ctx.hub.rooms):
            state = ctx.rooms.rooms.get(room)
            if state is None:
                continue
            if state.phase == RoomPhase.COUNTDOWN and now_ms() > state.starts_at + 300:
                with contextlib.suppress(Exception):
                    await begin(ctx, room)
            if renew and state.mode == Mode.RACE and state.phase in IN_PLAY:
                with contextlib.suppress(Exception):
                    await keep_marked(ctx, state)


async def give_up(ctx: Context, room: str, rnd: int, code: str, pid: str, name: str) -> str:
    """Record that a racer gives up this round; returns the store's status (``ok``...)."""
    entry = await ctx.boards.get(room, rnd, pid, code)
    moves = entry.board.moves
    out = await ctx.store.give_up(
        room,
        rnd,
        pid,
        wire.gave_up_body(pid, rnd, moves),
        wire.result(pid, name, "gave_up", None, moves),
        ctx.instance_id,
    )
    if out.status == "ok":
        entry.over = True
        ctx.spawn(record_give_up(ctx.store, ctx.daily, room, rnd, pid))  # race history
    return out.status


async def give_up_if_away(ctx: Context, pid: str, name: str, room: str, rnd: int) -> None:
    """After a racer's socket closed mid-race: give up if they have not come back in time.

    The absence is marked in Redis, and any return (``resume`` or ``join``, on any instance)
    clears it, so only the instance that saw the socket close acts, and only on a real
    absence. Without it one closed tab would keep a race open until the room expires.
    """
    grace = ctx.settings.away_grace_ms / 1000
    nonce = secrets.token_hex(8)
    await ctx.store.mark_away(room, pid, nonce, int(grace) + 60)
    await asyncio.sleep(grace)
    if not await ctx.store.still_away(room, pid, nonce):
        return
    if any(c.pid == pid and c.room == room for c in ctx.hub.rooms.get(room, ())):
        return  # back on this instance: its return may have cleared the mark before it was set
    state = await ctx.rooms.get(room, refresh=True)
    if (
        state is None
        or state.round != rnd
        or state.phase
        not in (
            RoomPhase.COUNTDOWN,
            RoomPhase.RACING,
        )
    ):
        return
    await give_up(ctx, room, rnd, state.code, pid, name)


async def rematch(ctx: Context, room: str, host: str, cells: int) -> str:
    """The host, once the race is over: a new deal in the same room, back to the lobby.

    Returns:
        ``ok`` or the store's refusal.
    """
    out = await ctx.store.rematch(room, host, draw(cells).code, ctx.instance_id)
    return out.status

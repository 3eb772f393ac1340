"""A race's rounds: the host's watch mode and start, the countdown, the start itself,
giving up (by message or by staying away), and the rematch; and the mark that a deal is
being raced, which keeps the solver's hints off it. The moves are
:mod:`server.play.moves`'s.

What falls due later (the end of a countdown, the end of a racer's away grace, the end of a
paired room's wait for its racers, a race's time limit) is a deadline in Redis, not a timer
in one process: :func:`janitor` runs on every instance and acts on the deadlines that are
due, whichever instance set them, so a restart of every server loses none.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Final

from ..cache import RoomState
from ..clock import now_ms
from ..daily.deal import draw_open
from ..net import wire
from ..periodic import periodic
from ..pools import find
from ..quiet import Quiet
from ..ranked import ratings
from ..ranked.finish import record_give_up
from ..store import listing
from ..store.status import Status
from .host import Host
from .records import IN_PLAY, Mode, RoomPhase, WatchMode, watch_modes

#: How long a mark "this deal is being raced" holds unless an instance serving the race
#: renews it (every :data:`RENEW_S`): after a crash of every such instance it lapses.
RACING_LEASE_MS: Final = 300_000
RENEW_S: Final = 30.0


async def keep_marked(ctx: Host, state: RoomState) -> None:
    """Mark (or renew the mark) that ``state``'s room races its deal: no hints for it."""
    lease = max(RACING_LEASE_MS, 2 * ctx.settings.away_grace_ms)
    await ctx.store.mark_racing(state.code, state.room, now_ms(), lease)


async def set_watch(ctx: Host, room: str, host: str, mode: str, delay_s: int) -> Status:
    """The host picks what spectators see during the race (in the lobby only).

    Returns:
        ``ok`` or the refusal (``not_host``, ``wrong_state``, ``public_room``: a public
        room never shows the boards live; ``rated_room``: nor does a rated one, see
        ``lua/watch.lua``).
    """
    state = await ctx.rooms.get(room)
    if state is not None and WatchMode(mode) not in watch_modes(state.public):
        return Status.PUBLIC_ROOM
    out = await ctx.store.set_watch(room, host, mode, delay_s, ctx.instance_id)
    return out.status


log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How often each instance looks for deadlines that are due, in seconds.
JANITOR_PERIOD: Final = 0.5
#: How long an instance holds a deadline it took before another may take it (ms).
LEASE_MS: Final = 2_000
#: How often an instance renews its heartbeat, and how long one lasts (seconds).
HEARTBEAT_S: Final = 5.0
HEARTBEAT_TTL_S: Final = 15


async def start(ctx: Host, room: str, host: str) -> Status:
    """The host starts the countdown; every board opens at the same server time.

    Returns:
        ``ok`` or the store's refusal (``not_host``, ``wrong_state``, ...).
    """
    now = now_ms()
    starts_at = now + ctx.settings.countdown_ms
    out = await ctx.store.start(room, host, starts_at, now, ctx.instance_id)
    if out.status is Status.OK:
        fields = await ctx.store.room_fields(room)
        if fields.get("public") == "1":  # among the running races, ahead of every lobby
            await listing.list_running(ctx.store, room, now)
        # The deadline is the durable record; the local timer only makes the start punctual.
        await ctx.store.add_deadline(json.dumps({"kind": "begin", "room": room}), starts_at)
        ctx.spawn(begin_at(ctx, room, starts_at))
        state = await ctx.rooms.get(room, refresh=True)
        if state is not None:
            await keep_marked(ctx, state)
    return out.status


async def start_paired(ctx: Host, room: str) -> Status:
    """A paired room (no host) whose racers are in, or whose wait for them is over: start
    its countdown with those who came; with none, close it (a racer who comes later is
    told it is too late, and queues again), take it off the list of live races and leave
    it to expire. Safe twice and on any instance (only a room still in its lobby is
    started).

    Returns:
        ``ok``, ``empty`` (nobody came), ``wrong_state`` (started already) or the store's
        refusal.
    """
    state = await ctx.rooms.get(room, refresh=True)
    if state is None or state.phase != RoomPhase.LOBBY:
        return Status.WRONG_STATE
    status = await start(ctx, room, "")
    if status is Status.EMPTY:  # closed: whoever comes later queues again (lua/start.lua)
        await listing.unlist_room(ctx.store, room)
        return status
    if status not in (Status.OK, Status.WRONG_STATE):
        QUIET.failure("pair_start", "a paired room did not start: %s", status)
    return status


async def begin_at(ctx: Host, room: str, starts_at: int) -> None:
    """Wait for the start time, then start the race (idempotent across instances)."""
    await asyncio.sleep(max(0, starts_at - now_ms()) / 1000)
    await begin(ctx, room)


async def begin(ctx: Host, room: str) -> None:
    """End a room's countdown if it is due (any instance may; only the first counts)."""
    state = await ctx.rooms.get(room, refresh=True)
    if state is None or state.phase != RoomPhase.COUNTDOWN:
        return
    await ctx.store.begin(room, state.round, ctx.instance_id, now_ms())
    if state.mode == Mode.RACE:
        # One racer who idles must not hold a race (and its ratings) hostage for good.
        limit = {"kind": "race_limit", "room": room, "round": state.round}
        due = state.starts_at + ctx.settings.race_limit_s * 1000
        await ctx.store.add_deadline(json.dumps(limit), due)
    await ctx.rooms.get(room, refresh=True)


async def close_later(ctx: Host, room: str) -> None:
    """A public lobby closes if it has not started within ``lobby_ttl_s``."""
    deadline = json.dumps({"kind": "lobby_close", "room": room})
    await ctx.store.add_deadline(deadline, now_ms() + ctx.settings.lobby_ttl_s * 1000)


async def close_lobby(ctx: Host, room: str) -> None:
    """A public room still in its first lobby after ``lobby_ttl_s``: off the Watch list,
    and gone a minute later (a lobby nobody starts is spam or forgotten)."""
    fields = await ctx.store.room_fields(room)
    if fields.get("state") != RoomPhase.LOBBY or fields.get("round") != "1":
        return
    await listing.unlist_room(ctx.store, room)
    await ctx.store.expire_room(room, 60)


async def first_finish(ctx: Host, room: str, rnd: int) -> None:
    """A race's first finisher: those still racing have ``race_limit_after_finish_s``
    left (the race's time limit may come sooner)."""
    state = await ctx.rooms.get(room)
    if state is None or state.mode != Mode.RACE:
        return
    limit = {"kind": "race_limit_finish", "room": room, "round": rnd}
    due = now_ms() + ctx.settings.race_limit_after_finish_s * 1000
    await ctx.store.add_deadline(json.dumps(limit), due)


async def time_up(ctx: Host, room: str, rnd: int) -> None:
    """A race's time is up: the server gives up for each racer still playing (their
    progress places them, :func:`server.ranked.ratings.order`), so the race ends."""
    state = await ctx.rooms.get(room, refresh=True)
    if state is None or state.round != rnd or state.phase != RoomPhase.RACING:
        return
    fields = await ctx.store.room_fields(room)
    for field, status in fields.items():
        if not field.startswith("st:") or status != "playing":
            continue
        pid = field[3:]
        member = await ctx.store.member(room, pid)
        name = str(member["name"]) if member else ""
        await give_up(ctx, room, rnd, state.code, pid, name)


async def note_presence(ctx: Host) -> None:
    """This instance's counts for the quick-race page: open sockets, and sockets in a race
    in play (racers and their watchers). Counts only: no name, no room leaves here."""
    racing = 0
    for room, listeners in list(ctx.hub.rooms.items()):
        state = ctx.rooms.rooms.get(room)
        if state is not None and state.mode == Mode.RACE and state.phase in IN_PLAY:
            racing += len(listeners)
    online = sum(ctx.sockets_by_address.values())
    await ctx.store.note_presence(ctx.instance_id, online, racing, now_ms())


async def janitor(ctx: Host) -> None:
    """Act on the deadlines that are due, on whichever instance set them; say that this
    instance runs (its sockets count as present in their rooms only while it does); and
    renew the marks of the races this instance serves."""
    beat = renewed = 0.0

    async def step() -> None:
        nonlocal beat, renewed
        if time.monotonic() - beat > HEARTBEAT_S:
            await ctx.store.heartbeat(ctx.instance_id, HEARTBEAT_TTL_S)
            await note_presence(ctx)
            beat = time.monotonic()
        due = await ctx.store.claim_deadlines(now_ms(), LEASE_MS, 100)
        for member in due:
            await act(ctx, json.loads(member))
            await ctx.store.drop_deadline(member)
        if time.monotonic() - renewed >= RENEW_S:
            renewed = time.monotonic()
            for room in list(ctx.hub.rooms):
                state = ctx.rooms.rooms.get(room)
                if state is not None and state.mode == Mode.RACE and state.phase in IN_PLAY:
                    await keep_marked(ctx, state)

    # Redis gone: the lease runs out and the deadline comes back.
    await periodic(step, JANITOR_PERIOD, QUIET, "janitor", "acting on deadlines failed")


async def act(ctx: Host, deadline: dict[str, str | int]) -> None:
    """Do what a deadline says (every action is safe to do twice)."""
    room = str(deadline["room"])
    if deadline["kind"] == "begin":
        await begin(ctx, room)
    elif deadline["kind"] == "pair_start":
        await start_paired(ctx, room)
    elif deadline["kind"] in ("race_limit", "race_limit_finish"):
        await time_up(ctx, room, int(deadline["round"]))
    elif deadline["kind"] == "lobby_close":
        await close_lobby(ctx, room)
    elif deadline["kind"] == "away":
        pid, nonce = str(deadline["pid"]), str(deadline["nonce"])
        if not await ctx.store.still_away(room, pid, nonce):
            return  # back in time (a resume or a join cleared the mark, or is here now)
        state = await ctx.rooms.get(room, refresh=True)
        if state is None or state.round != int(deadline["round"]):
            return
        if state.phase not in (RoomPhase.COUNTDOWN, RoomPhase.RACING):
            return
        member = await ctx.store.member(room, pid)
        name = str(member["name"]) if member else ""
        await give_up(ctx, room, state.round, state.code, pid, name)


async def give_up(ctx: Host, room: str, rnd: int, code: str, pid: str, name: str) -> Status:
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
    if out.status is Status.OK:
        entry.over = True
        ctx.spawn(record_give_up(ctx, room, rnd, pid))  # race history
        ctx.spawn(ratings.settle(ctx, room))  # the last give-up ends a rated race
    return out.status


async def mark_away(ctx: Host, pid: str, room: str, rnd: int) -> None:
    """A racer's socket closed mid-race: they give up unless they come back in time.

    The absence is marked in Redis and any return (``resume`` or ``join``, on any instance)
    clears it; the deadline at the end of the grace gives up only a real absence. Without it
    one closed tab would keep a race open until the room expires.
    """
    grace = ctx.settings.away_grace_ms
    nonce = secrets.token_hex(8)
    await ctx.store.mark_away(room, pid, nonce, grace // 1000 + 60)
    deadline = {"kind": "away", "room": room, "round": rnd, "pid": pid, "nonce": nonce}
    await ctx.store.add_deadline(json.dumps(deadline), now_ms() + grace)


def par_fields(code: str, par: tuple[int, bool] | None = None) -> dict[str, str | int]:
    """A room's ``par`` and ``par_optimal`` fields for its deal: ``par`` if given, else the
    shipped pool's (:func:`server.pools.find`); ``par`` is '' for a deal of no pool (a typed
    code), whose games are never called perfect."""
    if par is None:
        entry = find(code)
        par = None if entry is None else (entry.par, entry.optimal)
    if par is None:
        return {"par": "", "par_optimal": 0}
    return {"par": par[0], "par_optimal": 1 if par[1] else 0}


async def rematch(ctx: Host, room: str, host: str, cells: int) -> Status:
    """The host, once the race is over: a new deal in the same room, back to the lobby.

    Returns:
        ``ok`` or the store's refusal.
    """
    drawn = draw_open(cells, await ctx.daily.deals.running())
    par = par_fields(drawn.code, (drawn.par, drawn.optimal))
    out = await ctx.store.rematch(room, host, drawn.code, ctx.instance_id, par)
    state = await ctx.rooms.get(room)
    if out.status is Status.OK and state is not None and state.public:
        await listing.list_room(ctx.store, room, now_ms())  # a live race to watch again
    return out.status

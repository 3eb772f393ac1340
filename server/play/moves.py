"""The move path: ``move``, ``tap``, ``double_tap`` and ``undo``.

An action goes through three steps: the engine decides it on the instance's cached copy of
the board (:func:`decide`), a pure function writes its events (:func:`events`), and the
store commits them in one script that checks the board's version (:func:`commit`). Only
then is it acknowledged; the ack and the mover's own delta leave in one write.
"""

from __future__ import annotations

import time

from protocol import models as m

from .. import wire
from ..clock import now_ms
from ..context import Context
from ..daily.results import record_finish
from ..engine import Action, Delta, DoubleTap, IllegalAction, Move, Tap, Undo, parse_location
from ..registry import Routes
from ..rooms import rounds
from ..session import Conn
from ..store.cache import BoardEntry
from ..store.records import Mode, Role, RoomPhase, RoomState
from ..store.store import MoveCommit, Outcome

routes = Routes()

ActionMsg = m.MoveMsg | m.TapMsg | m.DoubleTapMsg | m.UndoMsg


def to_action(msg: ActionMsg) -> Action:
    """The engine action of a message (its locations are already checked by the model)."""
    if isinstance(msg, m.MoveMsg):
        return Move(parse_location(msg.src), parse_location(msg.dst))
    if isinstance(msg, m.TapMsg):
        return Tap(parse_location(msg.at))
    if isinstance(msg, m.DoubleTapMsg):
        return DoubleTap(parse_location(msg.at))
    return Undo()


@routes.ws("move", "tap", "double_tap", "undo")
async def on_action(ctx: Context, conn: Conn, msg: ActionMsg) -> None:
    """Validate an action with the engine, commit it atomically, then acknowledge it."""
    started = time.perf_counter()
    room = conn.room
    if room is None or conn.role != Role.PLAYER:
        conn.reject(msg.id, "not_racing")
        return
    state = await ctx.rooms.get(room)
    if state is None:
        conn.reject(msg.id, "not_racing", "the room is gone")
        return
    if state.phase == RoomPhase.COUNTDOWN and now_ms() >= state.starts_at:
        ctx.metrics.late_begins.inc()
        await rounds.begin(ctx, room)
        state = await ctx.rooms.get(room, refresh=True) or state
    if state.phase in (RoomPhase.LOBBY, RoomPhase.COUNTDOWN):
        conn.reject(msg.id, "not_started")
        return
    pid = conn.pid or ""
    action = to_action(msg)
    for _attempt in range(3):
        entry = await ctx.boards.get(room, state.round, pid, state.code)
        async with entry.lock:  # one action at a time per board copy
            if await play(ctx, conn, msg.id, action, state, entry):
                break
    else:
        conn.reject(msg.id, "conflict")
        return
    ctx.metrics.move_latency.observe(time.perf_counter() - started)


async def play(
    ctx: Context, conn: Conn, action_id: int, action: Action, state: RoomState, entry: BoardEntry
) -> bool:
    """Decide, write and commit one action on a cached board.

    Returns:
        False when the copy turned out stale: retry on a fresh one.
    """
    if entry.dropped:  # another action on this board failed meanwhile: start afresh
        return False
    seq = entry.acked.get(action_id)
    if seq is not None:  # a resent action: acknowledge again, never apply twice
        conn.queue(wire.ack(action_id, seq))
        return True
    if entry.over or entry.board.is_won():
        conn.reject(action_id, "finished")
        return True
    try:
        delta = decide(entry, action)
    except IllegalAction as exc:
        return await refuse(ctx, conn, action_id, state, entry, exc)
    now = now_ms()
    commit_ = events(state, conn, action_id, action, entry, delta, now)
    return await commit(ctx, conn, commit_, entry, now)


def decide(entry: BoardEntry, action: Action) -> Delta:
    """Step one: the engine plays the action on the cached board.

    Raises:
        IllegalAction: the rules refuse it (the board is unchanged).
    """
    return entry.board.play(action)


def events(
    state: RoomState,
    conn: Conn,
    action_id: int,
    action: Action,
    entry: BoardEntry,
    delta: Delta,
    now: int,
) -> MoveCommit:
    """Step two: what committing an accepted action writes (a pure function).

    The clock of a race runs from its start; of a daily game, from the reveal (the room's
    ``starts_at``, when its snapshot showed the deal); of a solo game, from its first action.
    """
    pid, board = conn.pid or "", entry.board
    first = entry.first_ms if entry.first_ms is not None else now
    clock_from = state.starts_at if state.mode in (Mode.RACE, Mode.DAILY) else first
    elapsed = max(0, now - clock_from)
    text = str(action)
    won = board.is_won()
    return MoveCommit(
        room=state.room,
        round=state.round,
        pid=pid,
        action_id=action_id,
        version=entry.version,
        log_entry=f"{now}\t{action_id}\t{text}",
        delta_body=wire.delta_body(pid, state.round, text, delta, board, elapsed),
        progress_body=wire.progress_body(pid, state.round, board),
        finishing=won,
        time_ms=elapsed,
        moves=board.moves,
        result=wire.result(pid, conn.name, "finished", elapsed, board.moves) if won else "",
        origin=conn.cid,
        now=now,
    )


async def commit(ctx: Context, conn: Conn, move: MoveCommit, entry: BoardEntry, now: int) -> bool:
    """Step three: the store commits the events; then the action is acknowledged.

    Returns:
        False when the copy turned out stale: retry on a fresh one.
    """
    acked = False
    lost = entry.board.is_lost()

    def acknowledge(out: Outcome) -> None:
        # Called as soon as Redis's answer is read (a loop turn before the await returns).
        nonlocal acked
        if acked or out.status != "ok":
            return
        acked = True
        entry.version += 1
        entry.acked[move.action_id] = out.seq
        if entry.first_ms is None:
            entry.first_ms = now
        entry.last_ms = now
        # The ack and the mover's own delta leave in one write (the channel skips this
        # socket); waiting for the next loop turn would only add latency here.
        conn.queue(wire.ack(move.action_id, out.seq))
        conn.queue(wire.stamp(out.seq, move.delta_body))
        if lost:
            conn.queue(wire.lost(move.pid))
        conn.flush()

    redis_started = time.perf_counter()
    try:
        out = await ctx.store.move(move, acknowledge)
    except BaseException:
        # The copy already holds the action; Redis may not. Rebuild it from the log next
        # time (a resend with the same id is then acked if the commit did land).
        ctx.boards.drop(move.room, move.round, move.pid)
        raise
    ctx.metrics.move_script.observe(time.perf_counter() - redis_started)
    if out.status == "ok":
        acknowledge(out)  # already done when Redis's answer was read; not twice
        if move.finishing:  # keep the replay; verify and rank a daily win; race history
            ctx.spawn(finish(ctx, conn, move, out.rank))
        return True
    ctx.boards.drop(move.room, move.round, move.pid)  # the copy took an action Redis did not
    if out.status == "stale":
        return False
    if out.status == "dup":
        await ack_again(ctx, conn, move.room, move.action_id, out.seq)
        return True
    if out.status in ("round", "room_not_found", "not_started"):
        await ctx.rooms.get(move.room, refresh=True)
        reason = "not_started" if out.status == "not_started" else "not_racing"
    else:
        reason = out.status
    conn.reject(move.action_id, reason)
    return True


async def finish(ctx: Context, conn: Conn, move: MoveCommit, rank: int) -> None:
    """Record a won board; a daily game's player alone hears what it counts for."""
    outcome = await record_finish(ctx.store, ctx.daily, move.room, move.round, move.pid, rank)
    if outcome is not None:
        conn.queue(
            wire.daily_result(
                outcome.date,
                outcome.kind,
                outcome.rank,
                outcome.unranked_reason,
                outcome.message,
                outcome.replay_id,
            )
        )


async def refuse(
    ctx: Context,
    conn: Conn,
    action_id: int,
    state: RoomState,
    entry: BoardEntry,
    exc: IllegalAction,
) -> bool:
    """An action the engine refused: before saying so, make sure the copy is current and
    the action not already committed (a resend after a lost ack)."""
    pid = conn.pid or ""
    seq, version = await ctx.store.check(state.room, state.round, pid, action_id)
    if seq is not None:
        await ack_again(ctx, conn, state.room, action_id, seq)
    elif version != entry.version:
        ctx.boards.drop(state.room, state.round, pid)
        return False
    else:
        conn.reject(action_id, exc.reason, str(exc))
    return True


async def ack_again(ctx: Context, conn: Conn, room: str, action_id: int, seq: int) -> None:
    """Acknowledge an action committed earlier (a resend), with its delta: the first answer
    may never have left (Redis answered after the mover had heard ``busy``), and the
    channel skips the mover's own events."""
    conn.queue(wire.ack(action_id, seq))
    found = await ctx.store.events_after(room, seq - 1)
    if found is not None and found[1]:
        for event_seq, text, delay in ctx.hub.seen(conn, found[1][:1]):
            if text is not None and event_seq == seq:
                conn.push(text, event_seq, delay)

"""The move path: ``move``, ``tap``, ``double_tap``, ``undo`` and ``send_home``.

An action goes through three steps: the engine decides it on the instance's cached copy of
the board (:func:`decide`), a pure function writes its events (:func:`events`), and the
store commits them in one script that checks the board's version (:func:`commit`). Only
then is it acknowledged; the ack and the mover's own delta leave in one write, the delta
with the board's legal moves (``legal``: for that player alone, see :mod:`server.net.hub`).

A ``send_home`` is one request for several actions: the engine lists the taps it stands for
(RULES.md, "No automatic moves, tap and double tap"), each is played, logged and sent as a
``tap`` of its own (its own delta and seq; replays and their verification see taps), and
the move script commits them all at once. The board's rate limit counts it once: it is one
press, and a bucket of taps paced out would only delay the player's finish (and bunch the
end of every replay anyway).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, NamedTuple

from protocol import models as m

from ..cache import BoardEntry, RoomState
from ..clock import now_ms
from ..context import Context
from ..engine import (
    Action,
    Board,
    Delta,
    DoubleTap,
    IllegalAction,
    Move,
    Tap,
    Undo,
    parse_location,
)
from ..net import wire
from ..net.registry import Routes
from ..net.session import Conn
from ..pools import is_perfect
from ..ranked.finish import DailyOutcome, record_finish
from ..records.solo_stats import Counted
from ..rooms import rounds
from ..rooms.records import Mode, Role, RoomPhase
from ..store.commit import MoveCommit
from ..store.events import move_event
from ..store.status import Status
from ..store.store import Outcome

routes = Routes()

ActionMsg = m.MoveMsg | m.TapMsg | m.DoubleTapMsg | m.UndoMsg | m.SendHomeMsg


class SendHome(NamedTuple):
    """A send home: every card left to the foundations, as the taps it stands for."""


#: What one request asks: an engine action, or a send home.
Request = Action | SendHome


class Step(NamedTuple):
    """One action played: the action, its delta, the board just after it and that board's
    legal moves (``LegalMoves`` as a dict)."""

    action: Action
    delta: Delta
    board: Board
    legal: dict[str, Any]


def to_action(msg: ActionMsg) -> Request:
    """The engine action of a message (its locations are already checked by the model)."""
    if isinstance(msg, m.MoveMsg):
        return Move(parse_location(msg.src), parse_location(msg.dst))
    if isinstance(msg, m.TapMsg):
        return Tap(parse_location(msg.at))
    if isinstance(msg, m.DoubleTapMsg):
        return DoubleTap(parse_location(msg.at))
    if isinstance(msg, m.SendHomeMsg):
        return SendHome()
    return Undo()


@routes.ws("move", "tap", "double_tap", "undo", "send_home")
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
    ctx: Context, conn: Conn, action_id: int, action: Request, state: RoomState, entry: BoardEntry
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
        steps = decide(entry, action)
    except IllegalAction as exc:
        return await refuse(ctx, conn, action_id, state, entry, exc)
    now = now_ms()
    board = entry.board
    # Read only for a win that would be perfect: a hinted player's is not (server/play/hints).
    hinted = (
        board.is_won()
        and is_perfect(board.moves, state.par, state.par_optimal)
        and await ctx.store.was_hinted(state.room, state.round, conn.pid or "")
    )
    hub = ctx.hub
    others, here = hub.others_here(state.room, conn.pid or ""), hub.follows(state.room)
    commit_ = events(
        state, conn, action_id, steps, entry, now, hinted=hinted, others=others, here=here
    )
    return await commit(ctx, conn, commit_, entry, now, steps[-1].legal)


def decide(entry: BoardEntry, request: Request) -> list[Step]:
    """Step one: the engine plays the action on the cached board; a send home, each tap it
    stands for (the board of every tap but the last is a copy, for its events).

    Raises:
        IllegalAction: the rules refuse it (the board is unchanged); a send home while not
            every card left can go home by foundation moves alone: ``cannot_send_home``.
    """
    board = entry.board
    if entry.legal is None:  # a fresh copy: its legal moves before the action, for the change
        entry.legal = wire.legal_view(board)
    if not isinstance(request, SendHome):
        delta = board.play(request)
        return [Step(request, delta, board, wire.legal_view(board))]
    taps = board.send_home_taps()
    steps = []
    for n, tap in enumerate(taps, 1):
        delta = board.play(tap)  # each is a foundation move: the engine listed it so
        steps.append(
            Step(tap, delta, board if n == len(taps) else board.copy(), wire.legal_view(board))
        )
    return steps


def events(
    state: RoomState,
    conn: Conn,
    action_id: int,
    steps: list[Step],
    entry: BoardEntry,
    now: int,
    *,
    hinted: bool = False,
    others: bool = False,
    here: bool = False,
) -> MoveCommit:
    """Step two: what committing the accepted actions writes (a pure function).

    ``hinted``: the player was sent a hint in this round, so a win is not perfect.
    ``others``: the player has another socket in the room here; ``here``: this instance's
    subscription to the room's channel is confirmed (see :class:`MoveCommit`).

    The clock of a race runs from its start; of a daily game, from the reveal (the room's
    ``starts_at``, when its snapshot showed the deal); of a solo game, from its first action.
    The actions of one send home share its time; each has a log id of its own (``ID.N``).
    """
    pid, board = conn.pid or "", entry.board
    first = entry.first_ms if entry.first_ms is not None else now
    clock_from = state.starts_at if state.mode in (Mode.RACE, Mode.DAILY) else first
    elapsed = max(0, now - clock_from)
    won = board.is_won()
    # Perfect: the server's word, from the deal's par as the room keeps it, without a hint.
    perfect = won and not hinted and is_perfect(board.moves, state.par, state.par_optimal)
    log_entries: list[str] = []
    delta_bodies: list[str] = []
    progress_bodies: list[str] = []
    legal: list[str] = []
    before = entry.legal
    if before is None:  # decide() keeps them before it plays: the change is made from them
        raise RuntimeError("the board's legal moves before the action are not known")
    lost = False
    for n, step in enumerate(steps, 1):  # one loop: this runs for every action
        text = str(step.action)
        log_id = action_id if len(steps) == 1 else f"{action_id}.{n}"
        lost = step.board.is_lost()
        log_entries.append(f"{now}\t{log_id}\t{text}")
        delta_bodies.append(
            wire.delta_body(pid, state.round, text, step.delta, step.board, elapsed, lost)
        )
        progress_bodies.append(wire.progress_body(pid, state.round, step.board))
        legal.append(wire.legal_change(before, step.legal))
        before = step.legal
    return MoveCommit(
        room=state.room,
        round=state.round,
        pid=pid,
        action_id=action_id,
        version=entry.version,
        log_entries=tuple(log_entries),
        delta_bodies=tuple(delta_bodies),
        progress_bodies=tuple(progress_bodies),
        legal=tuple(legal),
        finishing=won,
        time_ms=elapsed,
        moves=board.moves,
        result=(
            wire.result(pid, conn.name, "finished", elapsed, board.moves, perfect) if won else ""
        ),
        origin=conn.cid,
        now=now,
        lost=lost,  # the last step's board is the board itself
        perfect=perfect,
        others=others,
        here=here,
    )


async def commit(
    ctx: Context,
    conn: Conn,
    move: MoveCommit,
    entry: BoardEntry,
    now: int,
    legal_after: dict[str, Any],
) -> bool:
    """Step three: the store commits the events; then the action is acknowledged (and the
    copy keeps ``legal_after``, the legal moves its player's deltas now lead to).

    Returns:
        False when the copy turned out stale: retry on a fresh one.
    """
    acked = False
    lost = move.lost
    hub = ctx.hub

    def acknowledge(out: Outcome) -> None:
        # Called as soon as Redis's answer is read (a loop turn before the await returns).
        nonlocal acked
        if acked or out.status is not Status.OK:
            return
        acked = True
        entry.version += len(move.log_entries)
        entry.acked[move.action_id] = out.seq
        entry.legal = legal_after  # what the deltas below change the player's copy to
        if entry.first_ms is None:
            entry.first_ms = now
        entry.last_ms = now
        # The ack and the mover's own deltas, with their legal moves, leave in one write
        # (the fan-out skips this socket); waiting for the next loop turn only adds latency.
        conn.queue(wire.ack(move.action_id, out.seq))
        made = [
            move_event(move.pid, out.first + n, body, progress, out.watch, legal, move.origin)
            for n, (body, progress, legal) in enumerate(
                zip(move.delta_bodies, move.progress_bodies, move.legal, strict=True)
            )
        ]
        for event in made:
            conn.queue(wire.own_view(event.full, event.own))
        if lost:
            conn.queue(wire.lost(move.pid))
        conn.flush()
        # Then this instance's other sockets in the room, from this answer rather than
        # from the room's channel (other instances read it there): at the next turn of the
        # loop, once the acks of every answer read with this one have gone out.
        asyncio.get_running_loop().call_soon(hub.committed, move.room, made, out.published)

    redis_started = time.perf_counter()
    hub.expect(move.room, move.origin)
    try:
        out = await ctx.store.move(move, acknowledge)
    except BaseException:
        # The copy already holds the action; Redis may not. Rebuild it from the log next
        # time (a resend with the same id is then acked if the commit did land).
        ctx.boards.drop(move.room, move.round, move.pid)
        raise
    finally:
        hub.settle(move.room, move.origin)
    ctx.metrics.move_script.observe(time.perf_counter() - redis_started)
    if out.status is Status.OK:
        acknowledge(out)  # already done when Redis's answer was read; not twice
        if move.finishing:  # keep the replay; verify and rank a daily win; race history
            ctx.spawn(finish(ctx, conn, move, out.rank))
        return True
    ctx.boards.drop(move.room, move.round, move.pid)  # the copy took an action Redis did not
    if out.status is Status.STALE:
        return False
    if out.status is Status.DUP:
        await ack_again(ctx, conn, move.room, move.action_id, out.seq)
        return True
    if out.status in (Status.ROUND, Status.ROOM_NOT_FOUND, Status.NOT_STARTED):
        await ctx.rooms.get(move.room, refresh=True)
        reason = Status.NOT_STARTED if out.status is Status.NOT_STARTED else Status.NOT_RACING
    else:
        reason = out.status
    conn.reject(move.action_id, reason)
    return True


async def finish(ctx: Context, conn: Conn, move: MoveCommit, rank: int) -> None:
    """Record a won board; a daily game's player alone hears what it counts for (one that
    may rank: at once that it is pending review, then the review's decision). A race's
    first finish starts the shorter time limit of those still racing."""
    if rank == 1:
        await rounds.first_finish(ctx, move.room, move.round)

    def pending(early: DailyOutcome) -> None:
        # The player's own day says "won, pending review" while the review runs.
        conn.queue(wire.daily_pending(early.date, early.kind, early.message, early.replay_id))

    outcome = await record_finish(
        ctx, move.room, move.round, move.pid, rank, move.perfect, conn.address, pending
    )
    # A game alone, won and kept (replay, statistics): its events and logs go in minutes.
    await ctx.store.let_go_alone(move.room, move.round, move.pid, ctx.settings.finished_room_ttl)
    if isinstance(outcome, Counted):
        if outcome.counted:  # the player alone hears which records the win set
            records = [
                name
                for name, set_ in (
                    ("best_time", outcome.best_time),
                    ("fewest_moves", outcome.fewest_moves),
                    ("best_streak", outcome.best_streak),
                )
                if set_
            ]
            conn.queue(wire.solo_stats(outcome.cells, outcome.stats, records))
    elif outcome is not None:
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

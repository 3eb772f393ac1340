"""Games alone: ``solo`` (a typed code or a certified deal) and ``daily`` (a day's deal).

Either is a one-player room already racing, on the same validated, Redis-backed move path
as a race. A solo game is clocked from its first move; a daily game from the reveal (the
snapshot that shows its deal). A daily game's room notes its day, kind and whether it is
the player's ranked attempt, so that its win is verified and ranked
(:mod:`server.ranked.finish`).

A solo game left for another without a finish is a loss in the player's solo statistics.
The page leaves it first (``leave`` gives it up), but a tab closed mid-game leaves nothing:
so each new solo game notes its room as the player's open one, and the one noted before, if
begun, still being played and with no socket of the player in it, is given up then.
"""

from __future__ import annotations

from protocol import models as m

from ..context import Context
from ..daily.deal import KIND_CELLS, DailyError, is_running, today
from ..fairplay.standing import standing
from ..net.registry import Routes
from ..net.session import Conn
from ..rooms import membership, rounds
from ..rooms.records import Mode, Role, RoomPhase
from .rooms import deal_for, may_make_room

routes = Routes()


async def start_solo(ctx: Context, conn: Conn, code: str, cells: int, mode: Mode) -> str:
    """Create a one-player room already racing and enter it.

    Returns:
        The room id.
    """
    room = await membership.new_room(ctx, mode, code, cells, solo=conn)
    if mode == Mode.SOLO:
        await _replace_open(ctx, conn.pid or "", room)
    await membership.enter(ctx, conn, room, Role.PLAYER)
    return room


async def _replace_open(ctx: Context, pid: str, room: str) -> None:
    """Give up the player's previous solo game if it was abandoned (see the module)."""
    old = await ctx.store.swap_open_solo(pid, room)
    if old is None or old == room:
        return
    here = ctx.hub.rooms.get(old, ())
    if any(c.pid == pid for c in here) or await ctx.store.present(old, pid):
        return  # still played in another tab (here, or on another instance): not replaced
    fields = await ctx.store.room_fields(old)
    if fields.get("mode") != Mode.SOLO or fields.get("state") != RoomPhase.RACING:
        return
    if fields.get(f"st:{pid}") != "playing":
        return  # won or given up already
    state = await ctx.rooms.get(old, refresh=True)
    if state is None:
        return
    member = await ctx.store.member(old, pid)
    # Its result is a give-up; the statistics count it only if it was begun.
    await rounds.give_up(
        ctx, old, state.round, state.code, pid, str(member["name"]) if member else ""
    )


@routes.ws("solo")
async def on_solo(ctx: Context, conn: Conn, msg: m.Solo) -> None:
    """A game alone at once: a typed code or a certified deal."""
    if conn.room is not None:
        conn.error("already_in_room")
        return
    found = await deal_for(ctx, conn, msg.code, msg.cells or 4)
    if found is None:
        return
    code, cells = found
    if await may_make_room(ctx, conn):
        await start_solo(ctx, conn, code, cells, Mode.SOLO)


@routes.ws("daily")
async def on_daily(ctx: Context, conn: Conn, msg: m.Daily) -> None:
    """Reveal a day's deal (today's if no date, the hard one if asked): its clock starts now.

    The first game of a day and kind that a player begins is their one ranked attempt,
    claimed in Redis as its deal is revealed. A ``daily`` while that game is still being
    played brings the player back into it (its clock runs on, from the reveal); once it is
    won or given up, every later game of the day is practice, as is any game of a day
    that is over.
    """
    if conn.room is not None:
        conn.error("already_in_room")
        return
    kind = "hard" if msg.hard else "daily"
    try:
        deal = await ctx.daily.deals.get(msg.date or today().isoformat(), kind)
    except DailyError as exc:
        conn.error("unavailable" if exc.reason == "unavailable" else "bad_date", str(exc))
        return
    pid, board = conn.pid or "", ctx.daily.leaderboard
    if is_running(deal.date) and not (await standing(ctx, pid)).may_rank:
        # A running day's deal is played only as the day's ranked game or its practice.
        conn.error("barred", "this player is barred from ranked play: no daily while it runs")
        return
    held = await board.attempt(deal.date, kind, pid)
    if held is not None and await _still_playing(ctx, held, pid):
        await membership.enter(ctx, conn, held, Role.PLAYER)  # back in: no new clock
        return
    if not await may_make_room(ctx, conn):
        return
    # The room is made as the deal is revealed: its starts_at is the clock's start.
    room = await membership.new_room(
        ctx, Mode.DAILY, deal.code, KIND_CELLS[kind], solo=conn, par=(deal.par, deal.optimal)
    )
    attempt, reason = "practice", "practice" if is_running(deal.date) else "after_day"
    if held is None and reason == "practice":
        held = await board.claim_attempt(deal.date, kind, pid, room)
        if held == room:
            attempt = "ranked"
        elif await _still_playing(ctx, held, pid):  # taken a moment ago elsewhere: join it
            await ctx.store.discard(room)
            await membership.enter(ctx, conn, held, Role.PLAYER)
            return
    ranked = attempt == "ranked"
    note = {
        "date": deal.date,
        "kind": kind,
        "attempt": attempt,
        "ranked": None if ranked else False,
        "rank": None,
        "unranked_reason": None if ranked else reason,
    }
    # Noted before the socket enters: no move can arrive before this is written.
    await ctx.store.set_daily(room, note)
    await membership.enter(ctx, conn, room, Role.PLAYER)


async def _still_playing(ctx: Context, room: str, pid: str) -> bool:
    """Whether the player's game in ``room`` is still on (not won, given up or expired)."""
    fields = await ctx.store.room_fields(room)
    return fields.get("state") == RoomPhase.RACING and fields.get(f"st:{pid}") == "playing"

"""Games alone: ``solo`` (a typed code or a certified deal) and ``daily`` (a day's deal).

Either is a one-player room already racing, clocked from the first move, on the same
validated, Redis-backed move path as a race. A daily game's room notes its day and kind,
so that its win is verified and ranked (:mod:`server.daily.results`).
"""

from __future__ import annotations

from protocol import models as m

from ..context import Context
from ..daily.deal import KIND_CELLS, DailyError, daily_deal, today
from ..pools import draw
from ..registry import Routes
from ..rooms import membership
from ..session import Conn
from ..store.records import Mode, Role
from .rooms import typed_code

routes = Routes()


async def start_solo(ctx: Context, conn: Conn, code: str, cells: int, mode: Mode) -> str:
    """Create a one-player room already racing and enter it.

    Returns:
        The room id.
    """
    room = await membership.new_room(ctx, mode, code, cells, solo=conn)
    await membership.enter(ctx, conn, room, Role.PLAYER)
    return room


@routes.ws("solo")
async def on_solo(ctx: Context, conn: Conn, msg: m.Solo) -> None:
    """A game alone at once: a typed code or a certified deal."""
    if conn.room is not None:
        conn.error("already_in_room")
        return
    if msg.code is not None:
        found = typed_code(conn, msg.code)
        if found is None:
            return
        code, cells = found
    else:
        cells = msg.cells or 4
        code = draw(cells).code
    await start_solo(ctx, conn, code, cells, Mode.SOLO)


@routes.ws("daily")
async def on_daily(ctx: Context, conn: Conn, msg: m.Daily) -> None:
    """Start a game on a day's deal (today's if no date), the hard one if asked."""
    if conn.room is not None:
        conn.error("already_in_room")
        return
    kind = "hard" if msg.hard else "daily"
    try:
        deal = daily_deal(msg.date or today().isoformat(), kind)
    except DailyError as exc:
        conn.error("unavailable" if exc.reason == "unavailable" else "bad_date", str(exc))
        return
    room = await membership.new_room(ctx, Mode.DAILY, deal.code, KIND_CELLS[kind], solo=conn)
    # Noted before the socket enters: no move can arrive before this is written.
    await ctx.store.set_daily(room, deal.date, kind)
    await membership.enter(ctx, conn, room, Role.PLAYER)

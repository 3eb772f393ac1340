"""``watch_leaderboard``: a day's leaderboard now and again on every change."""

from __future__ import annotations

from protocol import models as m

from ..context import Context
from ..daily.deal import DailyError, parse_date
from ..net.registry import Routes
from ..net.session import Conn

routes = Routes()


@routes.ws("watch_leaderboard")
async def on_watch(ctx: Context, conn: Conn, msg: m.WatchLeaderboard) -> None:
    """Send a day's leaderboard now and on every change (until another watch)."""
    try:
        date = parse_date(msg.date).isoformat()
    except DailyError as exc:
        conn.error("bad_date", str(exc))
        return
    daily = ctx.daily
    await daily.watchers.watch(conn, date, msg.kind, daily.leaderboard, msg.by)

"""``follow``, ``unfollow``, ``friends``: the players you follow, yours alone.

Each is answered by ``friends`` with your whole list, to your socket only; nothing here is
ever sent to anyone else. What following gives is a filter over what you could see
anyway: today's public leaderboard (its Friends tab) and the public rooms live (friends
racing now), both in :mod:`server.http.api`.
"""

from __future__ import annotations

from protocol import models as m

from ..clock import now_ms
from ..context import Context
from ..net import wire
from ..net.registry import Routes
from ..net.session import Conn
from ..store import follows

routes = Routes()


async def _answer(ctx: Context, conn: Conn) -> None:
    conn.queue(wire.friends(await follows.follows(ctx.store, conn.pid or "")))


@routes.ws("follow")
async def on_follow(ctx: Context, conn: Conn, msg: m.Follow) -> None:
    """Follow a player something of whom is kept (an unknown id is refused)."""
    pid, other = conn.pid or "", msg.player_id
    if other == pid:
        conn.error("self_follow")
        return
    if not await follows.known(ctx.store, other):
        conn.error("unknown_player", f"no player {other} is known here")
        return
    name = await follows.shown_name(ctx.store, other)
    keep_s = ctx.settings.history_s
    if not await follows.follow(ctx.store, pid, other, name, now_ms(), keep_s):
        conn.error("too_many_follows")
        return
    await _answer(ctx, conn)


@routes.ws("unfollow")
async def on_unfollow(ctx: Context, conn: Conn, msg: m.Unfollow) -> None:
    """Stop following a player (a player not followed: the list as it is)."""
    await follows.unfollow(ctx.store, conn.pid or "", msg.player_id)
    await _answer(ctx, conn)


@routes.ws("friends")
async def on_friends(ctx: Context, conn: Conn, msg: m.Friends) -> None:
    """The players you follow."""
    await _answer(ctx, conn)

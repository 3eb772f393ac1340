"""The quick-race messages: ``queue``, ``unqueue``, ``accept_bot``; and ``rated``, the host's
choice that an invite room's race changes ratings. The pairing is
:mod:`server.quick.pairing`'s."""

from __future__ import annotations

from protocol import models as m

from ..context import Context
from ..fairplay.standing import standing, standings
from ..net.registry import Routes
from ..net.session import Conn
from ..quick import pairing
from ..store import ratings

routes = Routes()


@routes.ws("queue")
async def on_queue(ctx: Context, conn: Conn, msg: m.Queue) -> None:
    """Wait for a quick race of ``cells`` cells (rated: not for a barred player)."""
    if not (await standing(ctx, conn.pid or "")).may_rank:
        conn.error("barred", "this player is barred from ranked play: no quick race")
        return
    conn.error_unless_ok(await pairing.enqueue(ctx, conn, msg.cells))


@routes.ws("unqueue")
async def on_unqueue(ctx: Context, conn: Conn, msg: m.Unqueue) -> None:
    """Stop waiting."""
    if not await ctx.whereabouts.leave_queue(ctx.store, conn, "asked"):
        conn.error("not_queued")


@routes.ws("accept_bot")
async def on_accept_bot(ctx: Context, conn: Conn, msg: m.AcceptBot) -> None:
    """Race the bot offered."""
    conn.error_unless_ok(await pairing.accept_bot(ctx, conn))


@routes.ws("rated")
async def on_rated(ctx: Context, conn: Conn, msg: m.SetRated) -> None:
    """The host of an invite room, in the lobby: whether its race is rated."""
    if conn.room is None:
        conn.error("not_in_room")
        return
    if msg.rated and await _barred_racer(ctx, conn.room):
        conn.error("barred", "a racer of this room is barred from ranked play")
        return
    status = await ratings.set_rated(
        ctx.store, conn.room, conn.pid or "", msg.rated, ctx.instance_id
    )
    conn.error_unless_ok(status)


async def _barred_racer(ctx: Context, room: str) -> bool:
    """Whether a racer of the room is barred from ranked play."""
    members = await ctx.store.members(room)
    racers = [pid for pid, member in members.items() if member.get("role") == "player"]
    return any(not s.may_rank for s in (await standings(ctx, racers)).values())

"""The arena messages: ``create_arena``, ``arena_join``, ``arena_leave``, ``arena_watch``,
``arena_unwatch`` and ``arena_pledge``. The arenas themselves are
:mod:`server.arena`'s."""

from __future__ import annotations

from protocol import models as m

from ..arena import seating
from ..context import Context
from ..net.registry import Routes
from ..net.session import Conn

routes = Routes()


@routes.ws("create_arena")
async def on_create_arena(ctx: Context, conn: Conn, msg: m.CreateArena) -> None:
    """Make a private arena and join it."""
    conn.error_unless_ok(
        await seating.create_private(ctx, conn, msg.cells, msg.minutes, msg.starts_in_s)
    )


@routes.ws("arena_join")
async def on_arena_join(ctx: Context, conn: Conn, msg: m.ArenaJoin) -> None:
    """Join an arena."""
    conn.error_unless_ok(await seating.join(ctx, conn, msg.arena))


@routes.ws("arena_leave")
async def on_arena_leave(ctx: Context, conn: Conn, msg: m.ArenaLeave) -> None:
    """Leave the arena."""
    conn.error_unless_ok(await seating.leave(ctx, conn))


@routes.ws("arena_watch")
async def on_arena_watch(ctx: Context, conn: Conn, msg: m.ArenaWatch) -> None:
    """Watch an arena's standings."""
    conn.error_unless_ok(await seating.watch(ctx, conn, msg.arena))


@routes.ws("arena_unwatch")
async def on_arena_unwatch(ctx: Context, conn: Conn, msg: m.ArenaUnwatch) -> None:
    """Stop watching."""
    ctx.whereabouts.unwatch(conn)


@routes.ws("arena_pledge")
async def on_arena_pledge(ctx: Context, conn: Conn, msg: m.ArenaPledge) -> None:
    """Pledge no take-backs in the coming arena race."""
    conn.error_unless_ok(await seating.pledge(ctx, conn))

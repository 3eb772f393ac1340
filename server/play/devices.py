"""A player on several devices: a transfer code signs another device in, "sign out
everywhere" ends every other session, and a player may delete themself.

Fair play. Signing in (here or by passkey, :mod:`server.play.passkeys`) makes this socket
the player the code or passkey proves: the identity it was before keeps its own results,
and nothing of the two is ever merged (no rating moves from one to the other). A code is
its player's alone: it is sent to their socket only, and a sign-in with it answers only the
``welcome`` any device of theirs gets. Nothing here touches a rating, provisional status, a
review or a bar.
"""

from __future__ import annotations

import io

import segno

from protocol import models as m

from ..clock import now_ms
from ..context import Context
from ..net import wire
from ..net.registry import Routes
from ..net.session import Conn
from ..net.wire import devices as out
from ..store import accounts
from .erase import erase_player

routes = Routes()


def settled(ctx: Context, conn: Conn) -> bool:
    """Whether the socket may change who it is: not in a room, the queue or an arena (they
    are the player's it joined as); else it hears why."""
    where = ctx.whereabouts
    if conn.room is not None or where.wait_of(conn) is not None or where.seat_of(conn) is not None:
        conn.error("already_in_room", "leave your room, the queue or the arena first")
        return False
    return True


async def signed_in(ctx: Context, conn: Conn) -> bool:
    """Whether the socket's session still works (else it hears ``bad_token``): a device
    signed out everywhere, whose socket is still open, may not make a transfer code or a
    passkey to come back with, nor see or change the player's devices."""
    session = await ctx.store.load_session(conn.token) if conn.token else None
    if session is None or session[0] != conn.pid:
        conn.error("bad_token", "this device was signed out: sign in again")
        return False
    return True


async def become(ctx: Context, conn: Conn, pid: str, name: str) -> None:
    """Make this socket player ``pid`` with a new session of theirs, and say ``welcome``."""
    token = accounts.new_token()
    name = name or conn.name or "player"
    await ctx.store.save_session(token, pid, name)
    conn.pid, conn.name, conn.token = pid, name, token
    conn.queue(wire.welcome(pid, token, name, now_ms()))


def qr_svg(text: str) -> str:
    """``text`` as a QR code, an SVG document (made by ``segno``)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="svg", scale=4, border=2, xmldecl=False)
    return buffer.getvalue().decode()


@routes.ws("transfer_new")
async def on_transfer_new(ctx: Context, conn: Conn, msg: m.TransferNew) -> None:
    """Make a transfer code for this player (replacing their previous one)."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    code, expires = await accounts.new_transfer(ctx.store, conn.pid, conn.name)
    # The link's code is in the fragment: a browser never sends it to a server, so no log
    # of a request (a proxy's, say) ever holds it.
    link = f"{msg.origin}/#/claim/{code}" if msg.origin else None
    conn.queue(out.transfer_code(code, link, qr_svg(link or code), expires))


@routes.ws("transfer_claim")
async def on_transfer_claim(ctx: Context, conn: Conn, msg: m.TransferClaim) -> None:
    """Sign this socket in as the player whose transfer code it typed."""
    if not settled(ctx, conn):
        return
    claim = await accounts.claim_transfer(ctx.store, msg.code, conn.address)
    if claim.status != "ok":
        ctx.metrics.errors.inc()
        retry = claim.retry_s if claim.status == "transfer_limited" else None
        conn.queue(out.refused(claim.status, retry))
        return
    await become(ctx, conn, claim.pid, claim.name)


@routes.ws("sign_out_everywhere")
async def on_sign_out_everywhere(ctx: Context, conn: Conn, msg: m.SignOutEverywhere) -> None:
    """End every session of this player, then give this socket a new one."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    await accounts.end_sessions(ctx.store, conn.pid)
    await accounts.drop_transfer(ctx.store, conn.pid)
    await become(ctx, conn, conn.pid, conn.name)


@routes.ws("delete_player")
async def on_delete_player(ctx: Context, conn: Conn, msg: m.DeletePlayer) -> None:
    """Delete this player for good (see :mod:`server.play.erase`); the socket is nobody's
    until it says ``hello`` again."""
    assert conn.pid is not None
    if not await signed_in(ctx, conn):
        return
    if msg.player_id != conn.pid:
        conn.queue(out.refused("confirm_mismatch"))
        return
    if not settled(ctx, conn):
        return
    await erase_player(ctx, conn.pid)
    conn.pid, conn.token = None, ""
    conn.queue(out.player_deleted())

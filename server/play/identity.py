"""Who a client is: ``hello`` makes or recognises a player; ``ping`` keeps a socket alive."""

from __future__ import annotations

import math
import secrets

from protocol import models as m
from protocol.models import PROTOCOL_VERSION
from protocol.names import skeleton

from ..clock import now_ms
from ..context import Context
from ..net import wire
from ..net.registry import Routes
from ..net.session import Conn
from ..store import names
from .devices import seen

routes = Routes()


@routes.ws("hello")
async def on_hello(ctx: Context, conn: Conn, msg: m.Hello) -> None:
    """Identify the player: a known token keeps its player id, else a new one is made."""
    if msg.v != PROTOCOL_VERSION:
        conn.error("unsupported_version", f"this server speaks version {PROTOCOL_VERSION}")
        return
    if conn.room is not None:
        conn.error("already_in_room")
        return
    session = await ctx.store.load_session(msg.token) if msg.token else None
    if msg.token and session is None:
        conn.error("bad_token")
        return
    # A name that passes for an established player's (the same UTS #39 skeleton: the
    # Cyrillic "Аnn" for "Ann") is theirs alone.
    holder = None
    if not ctx.settings.open_names:
        holder = await names.holder(ctx.store, skeleton(msg.name))
    if holder is not None and (session is None or session[0] != holder):
        conn.error("name_taken")
        return
    if session is not None and msg.token:
        pid, token = session[0], msg.token
    else:
        # A new identity costs the address a token: ranking with throwaway identities, or
        # filling Redis with sessions, is slow work.
        wait = ctx.identities.take(conn.address) if ctx.identities is not None else 0.0
        if wait > 0:
            ctx.metrics.errors.inc()
            conn.queue(wire.identities_refused(math.ceil(wait)))
            return
        pid, token = "p" + secrets.token_hex(6), secrets.token_urlsafe(24)
        # Kept for the operator (``seahaven admin identities ADDRESS``): who made whom.
        await ctx.reviews.note_identity(conn.address or "unknown", pid)
    conn.pid, conn.name, conn.token = pid, msg.name, token
    await ctx.store.save_session(token, pid, msg.name)
    seen(ctx, conn)
    conn.queue(wire.welcome(pid, token, msg.name, now_ms()))


@routes.ws("ping")
async def on_ping(ctx: Context, conn: Conn, msg: m.Ping) -> None:
    """Keep-alive."""
    conn.queue(wire.pong(now_ms()))

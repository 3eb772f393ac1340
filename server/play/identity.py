"""Who a client is: ``hello`` makes or recognises a player; ``ping`` keeps a socket alive."""

from __future__ import annotations

import math
import secrets
from typing import Protocol

from protocol import models as m
from protocol.models import PROTOCOL_VERSION
from protocol.names import skeleton

from ..clock import now_ms
from ..metrics import Metrics
from ..net import wire
from ..net.limits import TokenBuckets
from ..net.registry import Routes
from ..settings import Settings
from ..store import names
from ..store.reviews import Reviews
from ..store.store import Store
from .devices import Keeping, Player, seen

routes = Routes()


class Identifying(Keeping, Protocol):
    """What ``hello`` needs of an instance: the sessions and the names kept (the store),
    the new identities an address may make, the operator's note of who made whom (the
    reviews), the sockets of players (kept), the settings and the counters.
    :class:`server.context.Context` has them."""

    @property
    def settings(self) -> Settings:
        """The instance's settings (``open_names``)."""

    @property
    def store(self) -> Store:
        """Sessions and kept names."""

    @property
    def metrics(self) -> Metrics:
        """The counters."""

    @property
    def reviews(self) -> Reviews:
        """The operator's note of who made whom."""

    @property
    def identities(self) -> TokenBuckets | None:
        """New identities by client address (None: unbounded)."""


@routes.ws("hello")
async def on_hello(ctx: Identifying, conn: Player, msg: m.Hello) -> None:
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
async def on_ping(ctx: Identifying, conn: Player, msg: m.Ping) -> None:
    """Keep-alive."""
    conn.queue(wire.pong(now_ms()))

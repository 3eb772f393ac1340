"""``follow``, ``unfollow``, ``friends``: the players you follow, yours alone.

Each is answered by ``friends`` with your whole list, to your socket only; nothing here is
ever sent to anyone else. What following gives is a filter over what you could see
anyway: today's public leaderboard (its Friends tab) and the public rooms live (friends
racing now), both in :mod:`server.http.api`.
"""

from __future__ import annotations

from typing import Protocol

from protocol import models as m

from ..clock import now_ms
from ..net import wire
from ..net.registry import Routes
from ..settings import Settings
from ..store import follows
from ..store.store import Store

routes = Routes()


class Following(Protocol):
    """What following needs of an instance: the store the lists live in and how long they
    are kept. :class:`server.context.Context` has them."""

    @property
    def settings(self) -> Settings:
        """The instance's settings (``history_s``)."""

    @property
    def store(self) -> Store:
        """The store."""


class Follower(Protocol):
    """A socket that follows: its player and how to answer it
    (:class:`server.net.session.Conn`)."""

    @property
    def pid(self) -> str | None:
        """The player, once identified."""

    def error(self, code: str, message: str | None = None) -> None:
        """Send ``error``."""

    def queue(self, text: str) -> None:
        """Send a frame."""


async def _answer(ctx: Following, conn: Follower) -> None:
    conn.queue(wire.friends(await follows.follows(ctx.store, conn.pid or "")))


@routes.ws("follow")
async def on_follow(ctx: Following, conn: Follower, msg: m.Follow) -> None:
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
async def on_unfollow(ctx: Following, conn: Follower, msg: m.Unfollow) -> None:
    """Stop following a player (a player not followed: the list as it is)."""
    await follows.unfollow(ctx.store, conn.pid or "", msg.player_id)
    await _answer(ctx, conn)


@routes.ws("friends")
async def on_friends(ctx: Following, conn: Follower, msg: m.Friends) -> None:
    """The players you follow."""
    await _answer(ctx, conn)

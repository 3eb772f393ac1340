"""The sockets of one instance watching a day's leaderboard, and the pushes they get.

Pushes work across instances: :meth:`Leaderboard.submit` publishes on the day's channel,
and every instance with watchers of that day sends them the new top.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Final

from ..net import wire
from ..net.hub import Listener
from ..quiet import Quiet
from .leaderboard import BY, Leaderboard

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Entries in a pushed leaderboard.
PUSH_LIMIT: Final = 20


@dataclass(slots=True)
class Watchers:
    """Watchers by (date, kind, view), and the task reading leaderboard announcements."""

    by_day: dict[tuple[str, str, str], set[Listener]] = field(default_factory=dict)
    listener: asyncio.Task[None] | None = None

    async def watch(
        self,
        conn: Listener,
        date: str,
        kind: str,
        redis: Any,
        leaderboard: Leaderboard,
        by: str = "time",
    ) -> None:
        """Send a day's leaderboard in the view ``by`` now and on every change (until
        another watch)."""
        for conns in self.by_day.values():  # one board per socket
            conns.discard(conn)
        self.by_day.setdefault((date, kind, by), set()).add(conn)
        self.prune()
        if self.listener is None:
            pubsub = redis.pubsub()
            await pubsub.psubscribe(leaderboard.keys.leaderboard_pattern())
            self.listener = asyncio.create_task(self._listen(pubsub, leaderboard, redis))
        conn.queue(await push_text(leaderboard, date, kind, by))

    def forget(self, conn: Listener) -> None:
        """A socket closed."""
        for conns in self.by_day.values():
            conns.discard(conn)
        self.prune()

    def prune(self) -> None:
        """Drop days nobody watches."""
        for key in [k for k, conns in self.by_day.items() if not conns]:
            del self.by_day[key]

    async def close(self) -> None:
        """Stop the listener."""
        if self.listener is not None:
            self.listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.listener

    async def _listen(self, pubsub: Any, leaderboard: Leaderboard, redis: Any) -> None:
        try:
            while True:
                try:
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                except asyncio.CancelledError:
                    raise
                except Exception:  # Redis went away: retry; the next change pushes again
                    QUIET.failure("listener", "leaderboard listener failed")
                    await asyncio.sleep(0.5)
                    # Subscribe afresh: on a Redis Cluster the node it listened on may be
                    # gone for good (a PUBLISH reaches every node, so any other will do).
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                    pubsub = redis.pubsub()
                    with contextlib.suppress(Exception):
                        await pubsub.psubscribe(leaderboard.keys.leaderboard_pattern())
                    continue
                if msg is None or msg.get("type") != "pmessage":
                    continue
                found = leaderboard.parse_channel(str(msg["channel"]))
                if found is not None:
                    await self._push(leaderboard, *found)
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def _push(self, leaderboard: Leaderboard, date: str, kind: str) -> None:
        for by in BY:  # each view watched: its new top, built once
            conns = list(self.by_day.get((date, kind, by), ()))
            if not conns:
                continue
            text = await push_text(leaderboard, date, kind, by)
            for conn in conns:
                conn.queue(text)


async def push_text(leaderboard: Leaderboard, date: str, kind: str, by: str = "time") -> str:
    """A ``leaderboard`` message: the top :data:`PUSH_LIMIT` entries of the view ``by``."""
    return wire.leaderboard(await leaderboard.board_json(date, kind, PUSH_LIMIT, by=by))

"""The sockets of one instance watching a day's leaderboard, and the pushes they get.

Pushes work across instances: :meth:`Leaderboard.submit` publishes on the day's channel,
and every instance with watchers of that day sends them the new top.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..net import wire
from ..net.hub import Listener
from ..transport.announcements import Announcements
from .leaderboard import BY, Leaderboard

#: Entries in a pushed leaderboard.
PUSH_LIMIT: Final = 20


@dataclass(slots=True)
class Watchers:
    """Watchers by (date, kind, view), and the reader of the boards' announcements."""

    by_day: dict[tuple[str, str, str], set[Listener]] = field(default_factory=dict)
    feed: Announcements | None = None

    async def watch(
        self,
        conn: Listener,
        date: str,
        kind: str,
        leaderboard: Leaderboard,
        by: str = "time",
    ) -> None:
        """Send a day's leaderboard in the view ``by`` now and on every change (until
        another watch)."""
        for conns in self.by_day.values():  # one board per socket
            conns.discard(conn)
        self.by_day.setdefault((date, kind, by), set()).add(conn)
        self.prune()
        if self.feed is None:

            async def changed(channel: str) -> None:
                found = leaderboard.parse_channel(channel)
                if found is not None:
                    await self._push(leaderboard, *found)

            feed = leaderboard.daily.announcements(changed)
            await feed.start()
            self.feed = feed
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
        """Stop reading the announcements."""
        if self.feed is not None:
            await self.feed.close()

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

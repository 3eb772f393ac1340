"""Each player's perfect games: wins in exactly the deal's proven par, counted per mode.

A game is perfect when the deal's par is proven the fewest actions that win it and the win
took exactly that many (:func:`server.pools.is_perfect`); the server says so when the
winning action is committed (``finished.perfect``), never the page. What the player page
shows is counted here, once per game: a race and a solo win when their history or
statistics count them (each of those counts a room and round once), a daily when its entry
is written on the leaderboard (once per player and day), and taken back when an operator
voids that entry. One small hash per player, ``player:{PID}:perfect`` (named in
:mod:`server.store.keys`), fields ``race`` (rated races, counted once reviewed),
``solo``, ``daily`` and ``unrated`` (unrated races); it lives as long as the race history
after the player's last perfect game. Anyone sees the reviewed counts (:data:`PUBLIC`);
the player also sees their solo and unrated ones (:meth:`Perfects.read`).
"""

from __future__ import annotations

from typing import Any, Final

from ..store.keys import Keys
from ..store.records import RecordStore

#: The modes a perfect game is counted under: a rated race's (``race``), a solo game's, a
#: daily's, an unrated race's (``unrated``).
MODES: Final = ("race", "solo", "daily", "unrated")
#: The modes anyone may see counted: reviewed results only (a rated race's finishers and a
#: ranked daily are reviewed). A solver's line typed into a solo game or an unrated room is
#: perfect too, and proves nothing: those counts are their player's own.
PUBLIC: Final = ("race", "daily")


class Perfects:
    """Perfect games per player.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names (with the instance's prefix).
        keep_s: seconds the count lives after the player's last perfect game.
    """

    def __init__(self, redis: Any, keys: Keys, keep_s: int) -> None:
        self.store = RecordStore(redis, keys)
        self.keep_s = keep_s

    async def add(self, pid: str, mode: str, by: int = 1) -> None:
        """Count a perfect game of ``mode`` (``by=-1``: take one back, never below 0)."""
        if mode not in MODES:
            raise ValueError(f"no perfect games of mode {mode!r}")
        await self.store.add_perfect(pid, mode, by, self.keep_s)

    async def read(self, pid: str, own: bool = True) -> dict[str, int]:
        """The player's perfect games: to the player themselves (``own``) ``{race, solo,
        daily, unrated, total}``; to anyone else the reviewed ones only, ``{race, daily,
        total}``."""
        fields = await self.store.perfects(pid)
        modes = MODES if own else PUBLIC
        counts = {mode: max(0, int(fields.get(mode, 0))) for mode in modes}
        return {**counts, "total": sum(counts.values())}

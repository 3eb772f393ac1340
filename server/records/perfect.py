"""Each player's perfect games: wins in exactly the deal's proven par, counted per mode.

A game is perfect when the deal's par is proven the fewest actions that win it and the win
took exactly that many (:func:`server.pools.is_perfect`); the server says so when the
winning action is committed (``finished.perfect``), never the page. What the player page
shows is counted here, once per game: a race and a solo win when their history or
statistics count them (each of those counts a room and round once), a daily when its entry
is written on the leaderboard (once per player and day), and taken back when an operator
voids that entry. One small hash per player, ``player:{PID}:perfect`` (named in
:mod:`server.store.keys`), fields ``race``, ``solo`` and ``daily``; it lives as long as the
race history after the player's last perfect game.
"""

from __future__ import annotations

from typing import Any, Final

from ..store.keys import Keys
from ..store.records import RecordStore

#: The modes a perfect game is counted under.
MODES: Final = ("race", "solo", "daily")


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

    async def read(self, pid: str) -> dict[str, int]:
        """``{race, solo, daily, total}``: the player's perfect games."""
        fields = await self.store.perfects(pid)
        counts = {mode: max(0, int(fields.get(mode, 0))) for mode in MODES}
        return {**counts, "total": sum(counts.values())}

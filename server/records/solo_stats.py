"""Each player's solo statistics, per variant: games, wins, streaks, best time, fewest moves.

A solo game counts once it is won, given up, or abandoned after its first move (left, or
replaced by another game); a loss unless won. Daily games and races are not solo and never
count here. One small hash per player and variant, ``player:{PID}:solo:CELLS`` (named in
:mod:`server.store.keys`), written by ``lua/solo_record.lua`` in one step: it keeps the ids
of the last :data:`IDS_KEPT` games it counted, so a game reported twice (a give-up, then
the leave that follows it) counts once, and the last :data:`GAMES_KEPT` outcomes for the
player page's chart. It lives as long as the race history after the player's last game.

These are the player's own solo games, on deals anyone may play at any time: they may be
shown on the public player page (as the daily results are). They hold no deal and no line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..store.keys import Keys
from ..store.records import RecordStore

#: The variants (free cells) a solo game may have.
VARIANTS: Final = (4, 2, 1)
#: Ids of the last games counted, kept to count each once.
IDS_KEPT: Final = 16
#: The last games kept for the chart.
GAMES_KEPT: Final = 30


@dataclass(frozen=True, slots=True)
class Counted:
    """What one counted game changed: the new records and the variant's statistics after it.

    Attributes:
        cells: the variant.
        counted: False when the game was counted already (nothing changed).
        best_time, fewest_moves, best_streak: whether the game set that record.
        stats: the variant's statistics after the game (:meth:`SoloStats.read_variant`).
    """

    cells: int
    counted: bool
    best_time: bool
    fewest_moves: bool
    best_streak: bool
    stats: dict[str, Any]


def _games(text: str) -> list[dict[str, Any]]:
    """The last games of the hash's ``last`` field: ``w<ms>.<moves>`` or ``l<moves>``."""
    out: list[dict[str, Any]] = []
    for one in text.split(",") if text else []:
        if one.startswith("w") and "." in one:
            ms, moves = one[1:].split(".", 1)
            out.append({"won": True, "time_ms": int(ms), "moves": int(moves)})
        elif one.startswith("l"):
            out.append({"won": False, "time_ms": None, "moves": int(one[1:] or 0)})
    return out


def _variant(fields: dict[str, str]) -> dict[str, Any]:
    games, wins = int(fields.get("games", 0)), int(fields.get("wins", 0))
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(wins / games, 3) if games else None,
        "streak": int(fields.get("streak", 0)),
        "best_streak": int(fields.get("best_streak", 0)),
        "best_ms": int(fields["best_ms"]) if "best_ms" in fields else None,
        "fewest_moves": int(fields["fewest"]) if "fewest" in fields else None,
        "last": _games(fields.get("last", "")),
    }


class SoloStats:
    """Solo statistics per player and variant.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names (with the instance's prefix).
        keep_s: seconds a player's statistics live after their last solo game.
    """

    def __init__(self, redis: Any, keys: Keys, keep_s: int) -> None:
        self.store = RecordStore(redis, keys)
        self.keep_s = keep_s

    async def record(
        self, pid: str, cells: int, game: str, *, won: bool, time_ms: int | None, moves: int
    ) -> Counted:
        """Count one solo game (``game``: its ``ROOM/ROUND``), once."""
        args: list[str | int] = [
            *(game, 1 if won else 0, time_ms or 0, moves),
            *(self.keep_s, IDS_KEPT, GAMES_KEPT),
        ]
        flags = await self.store.count_solo(pid, cells, args)
        return Counted(
            cells=cells,
            counted=flags[0] == 1,
            best_time=flags[1] == 1,
            fewest_moves=flags[2] == 1,
            best_streak=flags[3] == 1,
            stats=await self.read_variant(pid, cells),
        )

    async def read_variant(self, pid: str, cells: int) -> dict[str, Any]:
        """``{games, wins, win_rate, streak, best_streak, best_ms, fewest_moves, last}``."""
        return _variant(await self.store.solo(pid, cells))

    async def read(self, pid: str) -> dict[str, dict[str, Any]]:
        """Every variant's statistics, ``{"4": {...}, "2": {...}, "1": {...}}`` (zeros when
        never played)."""
        return {str(c): await self.read_variant(pid, c) for c in VARIANTS}

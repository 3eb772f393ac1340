"""Each player's race history in Redis: races played, won, and best times per cell count.

Keys (named in :mod:`server.store.keys`):

- ``player:{PID}:races``: hash ``played``, ``finished``, ``won`` (placed first), and
  ``best:C4`` / ``best:C2`` / ``best:C1`` (best finishing time in ms).
- ``player:{PID}:recent``: list of the last :data:`RECENT` results as JSON, newest first.
- ``player:{PID}:counted``: sorted set of ``ROOM/ROUND`` counted in the last week (scored by
  time), so that recording one result twice (two instances, a retry) counts it once.

Each lives :data:`~server.settings.KEEP_S` after the player's last race.
"""

from __future__ import annotations

import json
from typing import Any, Final

from ..settings import KEEP_S
from ..store.keys import Keys
from ..store.records import RecordStore

#: Results kept in the recent list.
RECENT: Final = 20
#: Seconds a player's history lives after their last race (a year and a bit).
#: A result counted longer ago than this cannot be counted again (its room is long gone:
#: rooms live hours), so it is forgotten from the counted set.
FORGET_MS: Final = 7 * 86_400_000


class History:
    """Race results per player.

    Args:
        redis: an asyncio client with ``decode_responses=True``.
        keys: the key names (with the instance's prefix).
        keep_s: seconds a player's history lives after their last race.
    """

    def __init__(self, redis: Any, keys: Keys, keep_s: int = KEEP_S) -> None:
        self.store = RecordStore(redis, keys)
        self.keep_s = keep_s

    async def record(
        self,
        pid: str,
        room: str,
        round_: int,
        *,
        code: str,
        cells: int,
        rank: int | None,
        time_ms: int | None,
        moves: int,
        replay_id: str | None,
        at: int,
        perfect: bool = False,
    ) -> bool:
        """Count one race result (a finish with its rank, or a give-up with no rank);
        ``perfect`` marks a win in the deal's proven par.

        Returns:
            False when this room and round were already counted for the player.
        """
        finished = rank is not None and time_ms is not None
        entry = {
            "room": room,
            "round": round_,
            "code": code,
            "rank": rank,
            "time_ms": time_ms,
            "moves": moves,
            "replay_id": replay_id,
            "at": at,
            "perfect": perfect and finished,
        }
        return await self.store.count_race(
            pid,
            [
                f"{room}/{round_}",
                1 if finished else 0,
                1 if rank == 1 else 0,
                time_ms if time_ms is not None else 0,
                cells,
                json.dumps(entry, separators=(",", ":")),
                RECENT,
                at,
                FORGET_MS,
                self.keep_s,
            ],
        )

    async def read(self, pid: str) -> dict[str, Any]:
        """``{races: {played, finished, won, best_ms: {C4, C2, C1}}, recent: [...]}``."""
        fields, recent = await self.store.races(pid, RECENT)
        best = {f"C{c}": int(fields[f"best:C{c}"]) for c in (4, 2, 1) if f"best:C{c}" in fields}
        return {
            "races": {
                "played": int(fields.get("played", 0)),
                "finished": int(fields.get("finished", 0)),
                "won": int(fields.get("won", 0)),
                "best_ms": best,
            },
            "recent": [json.loads(x) for x in recent],
        }

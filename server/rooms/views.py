"""What a viewer may see of a room: the racers of a ``snapshot``.

Fair view: a racer sees their own board and only the progress of the other racers
(foundation cards, moves, finished or not); a spectator sees every board.
"""

from __future__ import annotations

import json
from typing import Any

from .. import wire
from ..store.cache import BoardEntry
from ..store.records import Role
from ..store.store import RoomRead


def players(
    read: RoomRead, boards: dict[str, BoardEntry], viewer: str, role: str
) -> list[dict[str, Any]]:
    """Each racer of the round as ``viewer`` in ``role`` may see them."""
    out = []
    for pid, entry in boards.items():
        member = read.members.get(pid)
        result = read.results.get(pid, {})
        name = json.loads(member)["name"] if member else result.get("name", pid[:24])
        board = entry.board
        state: dict[str, Any] = {
            "player_id": pid,
            "name": name,
            "status": read.meta.get(f"st:{pid}", "waiting"),
            "foundation_cards": sum(board.foundations),
            "moves": board.moves,
            "time_ms": result.get("time_ms"),
            "rank": result.get("rank"),
        }
        if role == Role.SPECTATOR or pid == viewer:
            state["score"] = board.score
            state["lost"] = board.is_lost()
            state["board"] = wire.board_view(board)
        out.append(state)
    return out

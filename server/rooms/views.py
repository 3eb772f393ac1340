"""What a viewer may see of a room: the racers of a ``snapshot``.

Fair view (:mod:`.visibility`, one table for snapshots and live events): nobody sees a board
before the start (the deal stays secret until ``started``); a racer sees their own board,
with its legal moves while they play it, and only the progress of the other racers
(foundation cards, moves, finished or not); a spectator sees every board as the room's
watch mode allows: live, as it was some seconds ago (delayed: the caller passes those
boards), or not at all until the race is over (progress).
"""

from __future__ import annotations

import json
from typing import Any

from ..cache import BoardEntry
from ..net import wire
from ..store.store import RoomRead
from .records import Role, WatchMode
from .visibility import Sight, sight


def sees_board(phase: str, watch: str, role: str, own: bool) -> bool:
    """Whether a viewer sees one racer's board in a snapshot, as the visibility table says
    (a late board too: a delayed spectator's snapshot is made of the boards as they were).

    Args:
        phase: the room's phase.
        watch: the room's watch mode.
        role: the viewer's role.
        own: the board is the viewer's own.
    """
    return sight(phase, watch, role, own) is not Sight.COUNTS


def players(
    read: RoomRead,
    boards: dict[str, BoardEntry],
    viewer: str,
    role: str,
    watch: str | None = None,
) -> list[dict[str, Any]]:
    """Each racer of the round as ``viewer`` in ``role`` may see them.

    ``boards`` are the boards as of the snapshot's seq (for a delayed spectator, older than
    the room's fields): a racer whose board is not won there is still playing there.
    ``watch`` shows boards as that watch mode would instead of the room's.
    """
    phase = read.meta["state"]
    watch = watch or read.meta.get("watch") or WatchMode.LIVE
    out = []
    for pid, entry in boards.items():
        member = read.members.get(pid)
        result = read.results.get(pid, {})
        name = json.loads(member)["name"] if member else result.get("name", pid[:24])
        board = entry.board
        status = read.meta.get(f"st:{pid}", "waiting")
        if status == "finished" and not board.is_won():
            status, result = "playing", {}
        state: dict[str, Any] = {
            "player_id": pid,
            "name": name,
            "status": status,
            "foundation_cards": sum(board.foundations),
            "moves": board.moves,
            "time_ms": result.get("time_ms"),
            "rank": result.get("rank"),
            "perfect": status == "finished" and result.get("perfect") is True,
        }
        if sees_board(phase, watch, role, pid == viewer):
            state["score"] = board.score
            state["lost"] = board.is_lost()
            state["board"] = wire.board_view(board)
            if pid == viewer and role == Role.PLAYER and status == "playing":
                state["legal"] = wire.legal_view(board)
        out.append(state)
    return out

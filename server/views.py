"""What a viewer may see of a room: the ``snapshot`` and ``room`` messages.

Fair view: a racer sees their own board and only the progress of the other racers
(foundation cards, moves, finished or not); a spectator sees every board.
"""

from __future__ import annotations

import json
from typing import Any

from .boards import BoardEntry, replay
from .engine import Board


def board_view(board: Board) -> dict[str, Any]:
    """The wire form of a whole board (``BoardView``)."""
    data = board.to_json()
    data.pop("code", None)
    return data


def room_message(meta: dict[str, str], members: dict[str, str]) -> dict[str, Any]:
    """The ``room`` message of a room's fields and members."""
    return {
        "type": "room",
        "seq": int(meta.get("seq", 0)),
        "room_id": meta["room_id"],
        "invite": meta["invite"],
        "code": meta["code"],
        "cells": int(meta["cells"]),
        "mode": meta["mode"],
        "state": meta["state"],
        "round": int(meta["round"]),
        "host": meta.get("host") or None,
        "players": [json.loads(v) for v in members.values()],
        "spectators": int(meta.get("ns", 0)),
    }


def snapshot_message(
    meta: dict[str, str],
    members: dict[str, str],
    results: dict[str, str],
    boards: dict[str, BoardEntry],
    viewer: str,
    role: str,
    now: int,
) -> dict[str, Any]:
    """The ``snapshot`` of a room as ``viewer`` in ``role`` may see it."""
    players = []
    for pid, entry in boards.items():
        member = members.get(pid)
        result = json.loads(results[pid]) if pid in results else {}
        name = json.loads(member)["name"] if member else result.get("name", pid[:24])
        board = entry.board
        state: dict[str, Any] = {
            "player_id": pid,
            "name": name,
            "status": meta.get(f"st:{pid}", "waiting"),
            "foundation_cards": sum(board.foundations),
            "moves": board.moves,
            "time_ms": result.get("time_ms"),
            "rank": result.get("rank"),
        }
        if role == "spectator" or pid == viewer:
            state["score"] = board.score
            state["lost"] = board.is_lost()
            state["board"] = board_view(board)
        players.append(state)
    starts = meta.get("starts_at")
    return {
        "type": "snapshot",
        "room_id": meta["room_id"],
        "seq": int(meta.get("seq", 0)),
        "round": int(meta["round"]),
        "mode": meta["mode"],
        "state": meta["state"],
        "code": meta["code"],
        "cells": int(meta["cells"]),
        "host": meta.get("host") or None,
        "you": viewer,
        "role": role,
        "starts_at": int(starts) if starts else None,
        "now": now,
        "players": players,
        "spectators": int(meta.get("ns", 0)),
    }


def boards_of(code: str, logs: dict[str, list[str]]) -> dict[str, BoardEntry]:
    """Replay each racer's log."""
    return {pid: replay(code, log) for pid, log in logs.items()}

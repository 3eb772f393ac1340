"""A client's legal moves as protocol/README.md ("Your legal moves") tells it to keep them:
the whole listing from its ``started`` or snapshot, then each of its own deltas'
``legal_change`` applied, written here from the README, not from the server's code."""

from __future__ import annotations

import json
from typing import Any

from server.engine import Board
from server.net import wire


def view(board: Board) -> dict[str, Any]:
    """The engine's legal moves of ``board`` as the wire carries them (``LegalMoves``)."""
    data: dict[str, Any] = json.loads(wire.legal(board))
    return data


def changed(legal: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """``legal`` after a delta's ``legal_change``: the listed sources' destinations
    replaced, the gone ones deleted, ``send_home`` taken as it is."""
    moves = dict(legal["moves"])
    moves.update(change["moves"])
    for src in change.get("gone", []):
        del moves[src]
    return {"moves": moves, "send_home": change["send_home"]}


def opening(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``legal`` of the last ``started`` or snapshot a client received (its own board's
    whole listing, from which its deltas' changes go on)."""
    for msg in reversed(messages):
        if msg.get("type") == "started" and "legal" in msg:
            return dict(msg["legal"])
        if msg.get("type") == "snapshot":
            you = msg.get("you")
            mine = next(p for p in msg["players"] if p["player_id"] == you)
            return dict(mine["legal"])
    raise AssertionError("no started or snapshot with legal moves was received")

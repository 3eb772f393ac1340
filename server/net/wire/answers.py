"""The answers to one client: who it is, its errors and refusals, its acks, hints and the
results that are its own (a daily game's rank, solo statistics, its friends)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from protocol.models import ERROR_CODES, PROTOCOL_VERSION, SERVER_REJECT_REASONS

from .compact import dumps


def welcome(pid: str, token: str, name: str, now: int) -> str:
    """``welcome``: who you are and the token to resume with."""
    return dumps(
        {
            "type": "welcome",
            "player_id": pid,
            "token": token,
            "name": name,
            "v": PROTOCOL_VERSION,
            "now": now,
        }
    )


def pong(now: int) -> str:
    """``pong``."""
    return dumps({"type": "pong", "now": now})


def error(code: str, message: str | None = None) -> str:
    """``error``: a code of :data:`protocol.models.ERROR_CODES` and its explanation."""
    return dumps({"type": "error", "code": code, "message": message or ERROR_CODES[code]})


def reject(action_id: int, reason: str, message: str | None = None) -> str:
    """``reject``: an action refused, with the engine's or the server's reason."""
    text = message or SERVER_REJECT_REASONS.get(reason, reason)
    return dumps({"type": "reject", "id": action_id, "reason": reason, "message": text})


def ack(action_id: int, seq: int) -> str:
    """``ack``: the action is committed as event ``seq``."""
    return f'{{"type":"ack","id":{int(action_id)},"seq":{int(seq)}}}'


def left(room: str) -> str:
    """``left``."""
    return dumps({"type": "left", "room_id": room})


def lost(pid: str) -> str:
    """``lost``: the position has no useful move left."""
    return dumps({"type": "lost", "player_id": pid})


def hint(
    hint_id: int,
    status: str,
    move: str | None,
    remaining: int | None = None,
    source: str | None = None,
) -> str:
    """``hint``: the solver's next move, which search named it (and the fewest actions
    left, when proven), or why there is none."""
    data: dict[str, Any] = {"type": "hint", "id": hint_id, "status": status}
    if move is not None:
        data["move"] = move
    if source is not None:
        data["source"] = source
    if remaining is not None:
        data["remaining"] = remaining
    return dumps(data)


def leaderboard(board: Mapping[str, Any]) -> str:
    """``leaderboard``: a day's top entries (``board`` as the leaderboard reads it)."""
    return dumps({"type": "leaderboard", **board})


def daily_result(
    date: str,
    kind: str,
    rank: int | None,
    unranked_reason: str | None,
    message: str,
    replay_id: str,
) -> str:
    """``daily_result``: a won daily game is on the leaderboard (``rank``), or why not."""
    return dumps(
        {
            "type": "daily_result",
            "date": date,
            "kind": kind,
            "ranked": rank is not None,
            "rank": rank,
            "unranked_reason": unranked_reason,
            "message": message,
            "replay_id": replay_id,
        }
    )


def daily_pending(date: str, kind: str, message: str, replay_id: str) -> str:
    """``daily_pending``: a won daily game that may rank is being reviewed; its
    ``daily_result`` follows when the review decides."""
    return dumps(
        {
            "type": "daily_pending",
            "date": date,
            "kind": kind,
            "message": message,
            "replay_id": replay_id,
        }
    )


def solo_stats(cells: int, stats: Mapping[str, Any], records: list[str]) -> str:
    """``solo_stats``: a solo win counted; the variant's statistics and the records it set."""
    return dumps({"type": "solo_stats", "cells": cells, "stats": stats, "records": records})


def friends(entries: list[dict[str, Any]]) -> str:
    """``friends``: the players you follow (to you alone)."""
    return dumps({"type": "friends", "follows": entries})


def identities_refused(retry_s: int, code: str = "too_many_identities") -> str:
    """``error too_many_identities`` (or ``slow_down``): with when to come back."""
    return dumps({"type": "error", "code": code, "message": ERROR_CODES[code], "retry_s": retry_s})

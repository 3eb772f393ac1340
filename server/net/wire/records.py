"""The messages of the room events whose values only the scripts know, from their records
(:func:`render`), and the ``snapshot`` of a whole room as one viewer may see it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from protocol.vocabulary import WatchMode, deal_shown

from ...engine import Board
from ...store.events import RECORDS, RoomEvent
from .compact import dumps


def board_view(board: Board) -> dict[str, Any]:
    """The wire form of a whole board (``BoardView``)."""
    data = board.to_json()
    data.pop("code", None)
    return data


def _deal_fields(fields: Mapping[str, str]) -> dict[str, Any]:
    """The deal and watch fields of ``room`` and ``snapshot``: the code only once it may be
    known (:func:`~protocol.vocabulary.deal_shown`), whether the room is public, the watch
    mode and its delay."""
    typed = fields.get("typed", "0") == "1"
    watch = fields.get("watch") or WatchMode.LIVE
    return {
        "code": fields["code"] if deal_shown(fields["state"], typed) else None,
        "code_typed": typed,
        "public": fields.get("public", "0") == "1",
        "rated": fields.get("rated", "0") == "1",
        "paired": fields.get("paired", "0") == "1",
        "watch": watch,
        "delay_s": int(fields.get("delay_s") or 0) if watch == WatchMode.DELAYED else None,
    }


def room(
    seq: int,
    fields: Mapping[str, str],
    members: list[str],
) -> str:
    """``room``: a room's identity and members (``fields`` as in its hash)."""
    room_id = fields["room_id"]
    return dumps(
        {
            "seq": seq,
            "type": "room",
            "room_id": room_id,
            "invite": f"/?room={room_id}",
            **_deal_fields(fields),
            "cells": int(fields["cells"]),
            "mode": fields["mode"],
            "state": fields["state"],
            "round": int(fields["round"]),
            "host": fields.get("host") or None,
            "players": [json.loads(m) for m in members],
            "spectators": int(fields.get("ns") or 0),
        }
    )


def countdown(seq: int, round_: int, starts_at: int, now: int) -> str:
    """``countdown``: the race starts at server time ``starts_at``."""
    return dumps(
        {"seq": seq, "type": "countdown", "round": round_, "starts_at": starts_at, "now": now}
    )


def started(
    seq: int, round_: int, code: str, cells: int, started_at: int, players: list[str]
) -> str:
    """``started``: every racer's opening board, at the same server time."""
    return dumps(
        {
            "seq": seq,
            "type": "started",
            "round": round_,
            "code": code,
            "cells": cells,
            "started_at": started_at,
            "board": board_view(Board.from_code(code)),
            "players": players,
        }
    )


def finished(
    seq: int, pid: str, round_: int, time_ms: int, moves: int, rank: int, perfect: bool = False
) -> str:
    """``finished``: a racer won their board, ``rank``-th (``perfect``: in exactly the
    deal's proven par)."""
    return dumps(
        {
            "seq": seq,
            "type": "finished",
            "player_id": pid,
            "round": round_,
            "time_ms": time_ms,
            "moves": moves,
            "rank": rank,
            "perfect": perfect,
        }
    )


def race_over(
    seq: int,
    round_: int,
    results: list[dict[str, Any]],
    par: int | None = None,
    par_optimal: bool = False,
) -> str:
    """``race_over``: finishers by rank, then the others, and the deal's par (null when not
    known) with whether it is proven the fewest actions."""
    return dumps(
        {
            "seq": seq,
            "type": "race_over",
            "round": round_,
            "par": par,
            "par_optimal": par_optimal and par is not None,
            "results": results,
        }
    )


def render(event: RoomEvent) -> str:
    """The message of an event: a stamped body as it is, a record's built here.

    Raises:
        ValueError: a record of no kind of :data:`~server.store.events.RECORDS`.
    """
    kind, seq = event.kind, event.seq
    if not kind:
        return event.full
    if kind not in RECORDS:
        raise ValueError(f"unknown event record {kind!r}")
    if kind == "room":
        return room(seq, event.fields(), list(event.rest()))
    v = event.fields()
    if kind == "countdown":
        return countdown(seq, int(v["round"]), int(v["starts_at"]), int(v["now"]))
    if kind == "started":
        at, players = int(v["started_at"]), list(event.rest())
        return started(seq, int(v["round"]), v["code"], int(v["cells"]), at, players)
    if kind == "finished":
        time_ms, moves, perfect = int(v["time_ms"]), int(v["moves"]), v.get("perfect") == "1"
        return finished(seq, v["pid"], int(v["round"]), time_ms, moves, int(v["rank"]), perfect)
    rest = event.rest()  # race_over: each result its rank ('' for none) and its JSON
    results = []
    for rank, text in zip(rest[0::2], rest[1::2], strict=True):
        entry = json.loads(text)
        entry["rank"] = int(rank) if rank else None
        results.append(entry)
    par = int(v["par"]) if v.get("par") else None
    return race_over(seq, int(v["round"]), results, par, v.get("par_optimal") == "1")


def snapshot(
    meta: Mapping[str, str],
    you: str,
    role: str,
    now: int,
    players: list[dict[str, Any]],
    daily: Mapping[str, Any] | None = None,
    ratings: list[dict[str, Any]] | None = None,
) -> str:
    """``snapshot``: the whole room as one viewer may see it (``players`` already cut to
    what that viewer may see, see :mod:`server.rooms.views`; ``meta["seq"]`` the seq the
    view is as of); a daily game's says what it counts for (``daily``, the room's note), a
    settled rated round its racers' rating changes (``ratings``, see :func:`rating_change`)."""
    starts = meta.get("starts_at")
    extra: dict[str, Any] = {} if daily is None else {"daily": dict(daily)}
    # The par once the round is over; a daily game's at once (GET /api/daily publishes it).
    if meta.get("par") and (meta["state"] == "done" or meta["mode"] == "daily"):
        extra["par"] = int(meta["par"])
        extra["par_optimal"] = meta.get("par_optimal") == "1"
    if ratings is not None:
        extra["ratings"] = ratings
    if meta.get("household") == "1":
        extra["household"] = True
    return dumps(
        {
            "type": "snapshot",
            "room_id": meta["room_id"],
            "seq": int(meta.get("seq", 0)),
            "round": int(meta["round"]),
            "mode": meta["mode"],
            "state": meta["state"],
            **_deal_fields(meta),
            "cells": int(meta["cells"]),
            "host": meta.get("host") or None,
            "you": you,
            "role": role,
            "starts_at": int(starts) if starts else None,
            "now": now,
            "players": players,
            "spectators": int(meta.get("ns", 0)),
            **extra,
        }
    )

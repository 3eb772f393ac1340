"""Every message the server sends, built here and nowhere else.

Each builder returns the JSON text of one message of :mod:`protocol.models` (the tests check
every builder against its model and the examples of ``protocol/README.md``). Room events
are built in two halves: the server writes a message *body* (a JSON object without its
opening brace, see :func:`body`) and the store's script stamps the room's ``seq`` in front;
events whose values only the script knows (the members, a rank, the results) come back from
Redis as *records* (``[kind, seq, values...]``, read by :mod:`server.store.events`) that
:func:`render` turns into messages.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import orjson

from protocol.models import ERROR_CODES, PROTOCOL_VERSION, SERVER_REJECT_REASONS
from protocol.vocabulary import WatchMode, deal_shown

from ..engine import Board, Delta
from ..store.events import RECORDS, RoomEvent

_SEPARATORS: Final = (",", ":")


def dumps(data: Mapping[str, Any]) -> str:
    """Compact JSON."""
    return json.dumps(data, separators=_SEPARATORS)


def fast_dumps(data: Mapping[str, Any]) -> str:
    """:func:`dumps` of the messages built for every move (no floats in them), byte for byte,
    in a fraction of the time: ``orjson`` writes the same compact JSON as long as the text
    is ASCII (``json`` escapes everything else, ``orjson`` does not), and ``json`` writes
    what ``orjson`` refuses (a lone surrogate, an integer past 64 bits)."""
    try:
        out = orjson.dumps(data)
    except orjson.JSONEncodeError:
        return dumps(data)
    return out.decode() if out.isascii() else dumps(data)


def body(data: Mapping[str, Any]) -> str:
    """A message without its opening brace, for a script to stamp the ``seq`` in front."""
    return dumps(data)[1:]


# -- answers to one client ----------------------------------------------------------------


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


def hint(hint_id: int, status: str, move: str | None, remaining: int | None = None) -> str:
    """``hint``: the solver's next move (and the fewest actions left, when proven), or why
    there is none."""
    data: dict[str, Any] = {"type": "hint", "id": hint_id, "status": status}
    if move is not None:
        data["move"] = move
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


def solo_stats(cells: int, stats: Mapping[str, Any], records: list[str]) -> str:
    """``solo_stats``: a solo win counted; the variant's statistics and the records it set."""
    return dumps({"type": "solo_stats", "cells": cells, "stats": stats, "records": records})


def friends(entries: list[dict[str, Any]]) -> str:
    """``friends``: the players you follow (to you alone)."""
    return dumps({"type": "friends", "follows": entries})


def queued(
    cells: int, rating: int, games: int, penalty_s: int, now: int, provisional: bool = False
) -> str:
    """``queued``: you wait for a quick race of ``cells`` cells."""
    return dumps(
        {
            "type": "queued",
            "cells": cells,
            "rating": rating,
            "games": games,
            "provisional": provisional,
            "penalty_s": penalty_s,
            "now": now,
        }
    )


def unqueued(cells: int, reason: str) -> str:
    """``unqueued``: you no longer wait for a quick race (``asked`` or ``room``)."""
    return dumps({"type": "unqueued", "cells": cells, "reason": reason})


def arena_info(
    arena: str,
    cells: int,
    minutes: int,
    starts_at: int,
    ends_at: int,
    phase: str,
    private: bool,
    players: int,
) -> dict[str, Any]:
    """An arena as ``arena`` and ``GET /api/arenas`` show it."""
    return {
        "arena_id": arena,
        "cells": cells,
        "minutes": minutes,
        "starts_at": starts_at,
        "ends_at": ends_at,
        "phase": phase,
        "private": private,
        "players": players,
    }


def arena_line(
    rank: int,
    pid: str,
    name: str,
    points: int,
    streak: int,
    fire: bool,
    races: int,
    wins: int,
    time_ms: int,
) -> dict[str, Any]:
    """One line of an arena's standings."""
    return {
        "rank": rank,
        "player_id": pid,
        "name": name,
        "points": points,
        "streak": streak,
        "fire": fire,
        "races": races,
        "wins": wins,
        "time_ms": time_ms,
    }


def arena(
    info: dict[str, Any], seat: str, room: str | None, now: int, invite: str | None = None
) -> str:
    """``arena``: an arena you joined or watch, and where you are in it."""
    data: dict[str, Any] = {"type": "arena", "arena": info, "seat": seat, "room": room}
    if invite is not None:
        data["invite"] = invite
    data["now"] = now
    return dumps(data)


def arena_standings(
    arena: str,
    phase: str,
    races: int,
    players: int,
    top: list[dict[str, Any]],
    you: dict[str, Any] | None,
    now: int,
) -> str:
    """``arena_standings``: the top of the table and your own line."""
    return dumps(
        {
            "type": "arena_standings",
            "arena_id": arena,
            "phase": phase,
            "races": races,
            "players": players,
            "top": top,
            "you": you,
            "now": now,
        }
    )


def arena_over(arena: str, podium: list[dict[str, Any]], you: dict[str, Any] | None) -> str:
    """``arena_over``: the arena ended; its podium."""
    return dumps({"type": "arena_over", "arena_id": arena, "podium": podium, "you": you})


def arena_left(arena: str, reason: str) -> str:
    """``arena_left``: you are out of the arena (``asked``, ``room``, ``over``)."""
    return dumps({"type": "arena_left", "arena_id": arena, "reason": reason})


def arena_pledged(room: str) -> str:
    """``arena_pledged``: your pledge for the race of ``room`` is taken."""
    return dumps({"type": "arena_pledged", "room": room})


def pairing(cells: int, racers: int, pair_by: int, now: int) -> str:
    """``pairing``: ``racers`` ready players (you among them) race by ``pair_by`` at the
    latest."""
    return dumps(
        {"type": "pairing", "cells": cells, "racers": racers, "pair_by": pair_by, "now": now}
    )


def bot_offer(cells: int, bot_name: str, bot_rating: int, waited_s: int) -> str:
    """``bot_offer``: nobody else waits; race a bot at about your pace."""
    return dumps(
        {
            "type": "bot_offer",
            "cells": cells,
            "bot": {"name": bot_name, "rating": bot_rating},
            "waited_s": waited_s,
        }
    )


def rating_change(
    pid: str,
    name: str,
    rating: int,
    change: int,
    games: int,
    unrated_reason: str | None,
    provisional: bool = False,
) -> dict[str, Any]:
    """One racer's line of ``ratings``."""
    return {
        "player_id": pid,
        "name": name,
        "rating": rating,
        "change": change,
        "games": games,
        "unrated_reason": unrated_reason,
        "provisional": provisional,
    }


def identities_refused(retry_s: int) -> str:
    """``error too_many_identities``: with when this address may make a new player."""
    return dumps(
        {
            "type": "error",
            "code": "too_many_identities",
            "message": ERROR_CODES["too_many_identities"],
            "retry_s": retry_s,
        }
    )


# -- room events (bodies for the scripts) -------------------------------------------------


def member(pid: str, name: str, role: str) -> str:
    """A member of a room as ``room`` lists it (kept in ``room:{R}:members``)."""
    return dumps({"player_id": pid, "name": name, "role": role})


def result(
    pid: str, name: str, status: str, time_ms: int | None, moves: int, perfect: bool = False
) -> str:
    """A racer's result of a round, without its rank (the script keeps the rank beside);
    ``perfect``: a win in exactly the deal's proven par (the server's word, kept with it)."""
    return dumps(
        {
            "player_id": pid,
            "name": name,
            "status": status,
            "time_ms": time_ms,
            "moves": moves,
            "perfect": perfect,
        }
    )


def delta_body(
    pid: str,
    round_: int,
    action: str,
    delta: Delta,
    board: Board,
    elapsed: int,
    lost: bool | None = None,
) -> str:
    """The ``delta`` of one action, for the board's player and spectators (``lost``: the
    board's :meth:`~server.engine.Board.is_lost`, if already known)."""
    return fast_dumps(
        {
            "type": "delta",
            "player_id": pid,
            "round": round_,
            "action": action,
            "changes": delta.to_json()["changes"],
            "points": delta.points,
            "score": delta.score,
            "undo": delta.undo,
            "moves": board.moves,
            "foundation_cards": sum(board.foundations),
            "finished": board.is_won(),
            "lost": board.is_lost() if lost is None else lost,
            "t": elapsed,
        }
    )[1:]


def legal_view(board: Board) -> dict[str, Any]:
    """``LegalMoves`` of a player's own board: each source's legal destinations (foundations
    by suit) and whether every card left can go home by foundation moves alone."""
    return {"moves": board.target_names(), "send_home": board.can_send_home()}


def legal(board: Board) -> str:
    """:func:`legal_view` as JSON, as the move script keeps it beside a ``delta``."""
    return fast_dumps(legal_view(board))


def own_view(message: str, legal_json: str) -> str:
    """The player's own view of an event about their board: its message with the board's
    legal moves (``legal``, see :func:`legal`) added at its end, which that player's sockets
    alone receive instead of the message everyone else may get. The one place it is made:
    for the mover with the ack (``server/play/moves.py``), for their other sockets and on a
    replay from the event (:func:`own_text`)."""
    return f'{message[:-1]},"legal":{legal_json}}}'


def own_text(event: RoomEvent, full: str) -> str | None:
    """The player's own view of ``event`` (``full`` its message): a ``delta`` with the
    ``legal`` the move script kept beside it, the opening board of ``started`` with its
    legal moves (for each racer of the round); None for an event that has none."""
    if event.own:
        return own_view(full, event.own)
    if event.kind == "started":
        return own_view(full, legal(Board.from_code(event.fields()["code"])))
    return None


def progress_body(pid: str, round_: int, board: Board) -> str:
    """The ``progress`` the other racers get instead of a ``delta``."""
    return fast_dumps(
        {
            "type": "progress",
            "player_id": pid,
            "round": round_,
            "foundation_cards": sum(board.foundations),
            "moves": board.moves,
            "finished": board.is_won(),
        }
    )[1:]


def ratings_body(round_: int, cells: int, changes: list[dict[str, Any]]) -> str:
    """``ratings``: each racer's rating change after a rated race (see
    :func:`rating_change`), a room event for the script to stamp."""
    return body({"type": "ratings", "round": round_, "cells": cells, "changes": changes})


def gave_up_body(pid: str, round_: int, moves: int) -> str:
    """``gave_up``."""
    return body({"type": "gave_up", "player_id": pid, "round": round_, "moves": moves})


# -- records the scripts fill in ----------------------------------------------------------


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
        entry.setdefault("perfect", False)  # a result kept before par
        results.append(entry)
    par = int(v["par"]) if v.get("par") else None
    return race_over(seq, int(v["round"]), results, par, v.get("par_optimal") == "1")


# -- the snapshot -------------------------------------------------------------------------


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

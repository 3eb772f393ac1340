"""The bodies of the room events the server writes, for the store's scripts to stamp with
the room's ``seq``: a member, a result, a move's ``delta`` and ``progress``, the mover's
legal moves, their change and own view, ``ratings``, ``gave_up``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...engine import Board, Delta
from ...store.events import APART, RoomEvent
from .compact import body, dumps, fast_dumps


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
    """:func:`legal_view` as JSON, as a racer's ``started`` carries it."""
    return fast_dumps(legal_view(board))


def legal_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """What changed from the legal moves ``before`` an action to those ``after`` it (both
    :func:`legal_view`), as JSON (``LegalChange``), as the move script keeps it beside a
    ``delta``: the sources whose destinations are new or different, those that have none any
    more (``gone``, left out when none), and ``send_home`` as it now is. An action changes a
    few piles, so most sources keep their destinations: the whole listing each time was
    most of the bytes a move sent its player."""
    was, now = before["moves"], after["moves"]
    change: dict[str, Any] = {"moves": {s: d for s, d in now.items() if was.get(s) != d}}
    gone = [s for s in was if s not in now]
    if gone:
        change["gone"] = gone
    change["send_home"] = after["send_home"]
    return fast_dumps(change)


def own_view(message: str, change_json: str) -> str:
    """The player's own view of a ``delta`` of their board: its message with the change of
    the board's legal moves (``legal_change``, see :func:`legal_change`) added at its end,
    which that player's sockets alone receive instead of the message everyone else may get.
    The one place it is made: for the mover with the ack (``server/play/moves.py``), for
    their other sockets and on a replay from the event (:func:`own_text`)."""
    return f'{message[:-1]},"legal_change":{change_json}}}'


def opening_view(message: str, legal_json: str) -> str:
    """A racer's own view of ``started``: its message with the opening board's legal moves
    whole (``legal``, see :func:`legal`), from which that player's deltas change them."""
    return f'{message[:-1]},"legal":{legal_json}}}'


def own_text(event: RoomEvent, full: str) -> str | None:
    """The player's own view of ``event`` (``full`` its message): a ``delta`` with the
    ``legal_change`` the move script kept beside it, the opening board of ``started`` with its
    legal moves (for each racer of the round); None for an event that has none, '' for one
    whose legal moves the channel did not carry (:data:`~server.store.events.APART`: the
    player's sockets here have no part of it)."""
    if event.own:
        return "" if event.own == APART else own_view(full, event.own)
    if event.kind == "started":
        return opening_view(full, legal(Board.from_code(event.fields()["code"])))
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

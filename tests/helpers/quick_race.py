"""Racing on real servers: an action's message, a deal played to its win or for a few
actions, the settings of established players and of no pace review, a server stopped for a
moment."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from typing import Any

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from tests.helpers.serverproc import REVIEW_OFF, ServerProc, WsClient

#: Scripted players act faster than people, on the solver's line: the review is off unless
#: a test is about it.
PACE_OFF = REVIEW_OFF


def action(text: str, action_id: int) -> dict[str, Any]:
    """The protocol message of a line's action."""
    parsed = parse_action(text)
    assert isinstance(parsed, Move)
    return {"type": "move", "id": action_id, "src": str(parsed.src), "dst": str(parsed.dst)}


async def play_to_win(client: WsClient, code: str) -> None:
    """Play the solver's line of ``code`` to the win."""
    line = solve(Board.from_code(code), timeout=20).moves
    assert line, code
    for i, text in enumerate(line):
        await client.send(action(text, i))
        await client.expect("ack", id=i)
    await client.expect("finished", player_id=client.player_id)


#: Every player established from the start (no provisional players).
ESTABLISHED = ["--provisional-games", "0"]

#: The actions a racer must play for a result to count (``--rated-min-actions``, default).
MIN_ACTIONS = 10


async def play_some(client: WsClient, code: str, n: int) -> None:
    """Play the first ``n`` actions of the solver's line of ``code`` (not to the win)."""
    line = solve(Board.from_code(code), timeout=20).moves
    assert len(line) > n, code
    for i, text in enumerate(line[:n]):
        await client.send(action(text, i))
        await client.expect("ack", id=i)


@contextlib.contextmanager
def stopped(srv: ServerProc) -> Iterator[None]:
    """``srv`` stopped (SIGSTOP) for the block: it neither pairs nor answers meanwhile."""
    os.kill(srv.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(srv.proc.pid, signal.SIGCONT)

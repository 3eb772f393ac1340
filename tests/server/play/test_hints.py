"""A hint always names a move when a win exists: when the proof of a shortest line runs out
of time (a busy host, or ``--hint-seconds 0``), it is the fast solver's move and says so;
``lost`` only for a table with no win; and a proven hint says it is proven.

Real server processes on the machine's Redis, real websockets. When a hint is refused, and
the hints answered from a line named before without the solver, are decided without a
server in :mod:`tests.server.play.test_hint_decisions`.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from server.engine import Board, format_code, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import solve
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    drop_keys,
    redis_url,
    running_server,
)

#: Openings whose fast solve expands more than the 256 tables between two looks at the
#: clock (4-cell deals 2 and 3, about 2,300 tables), and a 1-cell deal of the pool.
OPENINGS = (format_code(2, 4), format_code(3, 4), format_code(158, 1))

#: A 4-cell deal that one move makes lost: the fast solver proves it in about 800 tables.
LOST_CODE = format_code(2, 4)
LOST_MOVE = "col10 cell3"


@pytest.fixture(scope="module")
def no_time_server() -> Iterator[ServerProc]:
    """A server whose hints get no time at all to prove a shortest line: what a host so
    busy that the solver gets none of its second amounts to. Its keys under a prefix of
    its own: a race of another server on one of these deals would refuse its hints."""
    prefix = f"test:hints:{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    with running_server(redis_url(), args=[*FAST, "--hint-seconds", "0"], env=env) as srv:
        yield srv
    drop_keys(prefix)


@pytest.fixture(scope="module")
def patient_server() -> Iterator[ServerProc]:
    """A server whose hints have all the time a proof of the opening needs."""
    prefix = f"test:hints:{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    with running_server(redis_url(), args=[*FAST, "--hint-seconds", "30"], env=env) as srv:
        yield srv
    drop_keys(prefix)


async def solo(url: str, code: str) -> WsClient:
    """A player alone on ``code``, its snapshot in."""
    client = await WsClient.connect(url, "hinter")
    await client.send({"type": "solo", "code": code})
    await client.expect("snapshot")
    return client


@pytest.mark.parametrize("code", OPENINGS)
async def test_with_no_time_to_prove_the_hint_is_the_fast_solvers_winning_move(
    no_time_server: ServerProc, code: str
) -> None:
    player = await solo(no_time_server.ws_url, code)
    await player.send({"type": "hint", "id": 1})
    answer = await player.expect("hint", id=1)
    assert answer["status"] == "move", answer
    assert answer["source"] == "solver" and "remaining" not in answer
    board = Board.from_code(code)
    board.play(parse_action(answer["move"]))  # legal, or the engine raises
    assert solve(board, timeout=30).result == "solved"  # and the table still wins
    # The server takes the move it named.
    src, dst = answer["move"].split()
    await player.send({"type": "move", "id": 2, "src": src, "dst": dst})
    await player.expect("ack", id=2)
    await player.close()


async def test_a_lost_table_gets_no_move(no_time_server: ServerProc) -> None:
    player = await solo(no_time_server.ws_url, LOST_CODE)
    src, dst = LOST_MOVE.split()
    await player.send({"type": "move", "id": 1, "src": src, "dst": dst})
    await player.expect("ack", id=1)
    await player.send({"type": "hint", "id": 2})
    answer = await player.expect("hint", id=2)
    assert answer == {"type": "hint", "id": 2, "status": "lost"}
    # Undone, the table wins again and the hint names a move.
    await player.send({"type": "undo", "id": 3})
    await player.expect("ack", id=3)
    await player.send({"type": "hint", "id": 4})
    assert (await player.expect("hint", id=4))["status"] == "move"
    await player.close()


async def test_a_proven_hint_says_so_with_the_actions_left(patient_server: ServerProc) -> None:
    code = format_code(1, 4)
    player = await solo(patient_server.ws_url, code)
    await player.send({"type": "hint", "id": 1})
    answer = await player.expect("hint", id=1, timeout=45)
    assert answer["status"] == "move" and answer["source"] == "proven"
    board = Board.from_code(code)
    assert answer["remaining"] == len(optimal_par(board, timeout=60).moves)
    await player.close()

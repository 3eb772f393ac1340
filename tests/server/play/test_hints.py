"""A hint always names a move when a win exists: when the proof of a shortest line runs out
of time (a busy host, or ``--hint-seconds 0``), it is the fast solver's move and says so;
``lost`` only for a table with no win; and a proven hint says it is proven.

The solver's own processes (:class:`server.solver_pool.SolverPool`), in the test's process,
without a server: what a hint message sets off on one (the instance's ``hint_seconds``
included), and when it is refused, is decided in
:mod:`tests.server.play.test_hint_decisions`; hints through a real server's sockets are in
:mod:`tests.server.test_hint_pool` and the race rooms' tests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.engine import Board, format_code, parse_action
from server.engine.optimal import optimal_par
from server.engine.solver import Hint, solve
from server.solver_pool import SolverPool

#: Openings whose fast solve expands more than the 256 tables between two looks at the
#: clock (4-cell deals 2 and 3, about 2,300 tables), and a 1-cell deal of the pool.
OPENINGS = (format_code(2, 4), format_code(3, 4), format_code(158, 1))

#: A 4-cell deal that one move makes lost: the fast solver proves it in about 800 tables.
LOST_CODE = format_code(2, 4)
LOST_MOVE = "col10 cell3"


@pytest.fixture
async def pool() -> AsyncIterator[SolverPool]:
    """One solver process at the test's own priority (at its default, idle, a busy machine
    may give it no time in seconds)."""
    solver = SolverPool(1, 4, policy="normal", nice=0)
    await solver.start()
    yield solver
    await solver.close()


async def hint(pool: SolverPool, board: Board, seconds: float) -> Hint:
    """The pool's hint for ``board`` with ``seconds`` to prove a shortest line."""
    answer = pool.submit_hint("p1", board.copy(), seconds)
    assert answer is not None, "the pool refused the hint"
    return await answer


@pytest.mark.parametrize("code", OPENINGS)
async def test_with_no_time_to_prove_the_hint_is_the_fast_solvers_winning_move(
    pool: SolverPool, code: str
) -> None:
    found = await hint(pool, Board.from_code(code), 0)
    assert found.status == "move", found
    assert found.source == "solver" and found.remaining is None
    assert found.move is not None
    board = Board.from_code(code)
    board.play(parse_action(found.move))  # legal, or the engine raises
    assert solve(board, timeout=30).result == "solved"  # and the table still wins


async def test_a_lost_table_gets_no_move(pool: SolverPool) -> None:
    board = Board.from_code(LOST_CODE)
    board.play(parse_action(LOST_MOVE))
    found = await hint(pool, board, 0)
    assert (found.status, found.move, found.source) == ("lost", None, None)
    # Undone, the table wins again and the hint names a move.
    assert (await hint(pool, Board.from_code(LOST_CODE), 0)).status == "move"


async def test_a_proven_hint_says_so_with_the_actions_left(pool: SolverPool) -> None:
    code = format_code(1, 4)
    found = await hint(pool, Board.from_code(code), 30)
    assert found.status == "move" and found.source == "proven"
    assert found.remaining == len(optimal_par(Board.from_code(code), timeout=60).moves)

"""The solver: certify deals winnable, prove positions lost, and give hints.

:func:`solve` searches a position under RULES.md exactly (the app's group formula, 4, 2
or 1 cells) and answers ``solved`` with the actions of a win in RULES.md notation,
``unsolvable`` when the search was exhaustive (a proof), or ``unknown`` when its state or
time budget ran out. :func:`hint` gives the next action of a winning line.

The search itself is in :mod:`server.engine.solver_search`, and
:mod:`server.engine.solver_shorten` takes shortcuts out of the line it finds (short lines
are preferred: a line's length is the deal's par). This module converts between
a :class:`~server.engine.board.Board` and the solver's compact table, and turns the
solver's moves into actions that ``Board.play(parse_action(line))`` accepts in order.
Everything here is pure and keeps no state between calls, so it is safe to run in worker
threads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from .board import Board
from .moves import CELL, COL, OWN_FOUNDATION, Loc, Move
from .solver_search import FROM_CELL, TO_CELL, TO_FOUND, InnerMove, Result, Table, search
from .solver_shorten import shorten

HintStatus = Literal["move", "lost", "unknown"]
#: Where a hint's move comes from: ``proven`` (the first move of a line proven shortest) or
#: ``solver`` (the first move of the fast solver's win: it wins, but may not be shortest).
HintSource = Literal["proven", "solver"]


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The answer of :func:`solve`.

    Attributes:
        result: ``solved``, ``unsolvable`` (proven: the search was exhaustive) or
            ``unknown`` (a budget ran out first).
        moves: for ``solved``, the actions of a win in RULES.md notation; else empty.
        states: distinct tables the search saw.
        seconds: wall time spent.
    """

    result: Result
    moves: tuple[str, ...]
    states: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Hint:
    """The answer of :func:`hint`.

    Attributes:
        status: ``move`` (``move`` is the next action of a winning line), ``lost`` (no
            win exists from here: proven), or ``unknown`` (not decided within the budget,
            or the game is already won).
        move: the action in RULES.md notation when ``status`` is ``move``.
        remaining: when ``move`` is on a line proven shortest, the fewest actions that
            win from here (the move included); else None.
        line: the winning line ``move`` begins (the move included), when known: the
            server answers the hints along it without searching again.
    """

    status: HintStatus
    move: str | None = None
    remaining: int | None = None
    line: tuple[str, ...] = ()

    @property
    def source(self) -> HintSource | None:
        """Which search named the move (None when there is no move)."""
        if self.status != "move":
            return None
        return "proven" if self.remaining is not None else "solver"


def to_table(board: Board) -> Table:
    """The solver's compact table of a board."""
    cells = bytes(sorted(c for c in board.cells if c is not None))
    f = board.foundations
    return Table(tuple(bytes(col) for col in board.columns), cells, (f[0], f[1], f[2], f[3]))


def _to_action(board: Board, move: InnerMove) -> Move:
    """The engine move for a solver move on the board as it now stands."""
    src, dst = move
    if src >= FROM_CELL:
        src_loc: Loc = CELL[board.cells.index(src - FROM_CELL)]
    else:
        src_loc = COL[src]
    if dst == TO_FOUND:
        return Move(src_loc, OWN_FOUNDATION)
    if dst == TO_CELL:
        return Move(src_loc, CELL[board.cells.index(None)])
    return Move(src_loc, COL[dst])


def to_notation(board: Board, moves: tuple[InnerMove, ...]) -> tuple[str, ...]:
    """Play solver moves on a copy of ``board`` and return them in RULES.md notation.

    Raises:
        IllegalAction: a move is refused by the engine (a solver bug, never expected).
    """
    table = board.copy()
    out: list[str] = []
    for move in moves:
        action = _to_action(table, move)
        table.push(action)
        out.append(str(action))
    return tuple(out)


def solve(
    board: Board, *, max_states: int | None = None, timeout: float | None = None
) -> SolveResult:
    """Solve a position under RULES.md.

    Args:
        board: the position; it is not changed.
        max_states: give up (``unknown``) after this many distinct tables.
        timeout: give up (``unknown``) after this many seconds.

    Returns:
        The result, the winning actions if solved, the states seen and the time taken.
    """
    began = time.monotonic()
    deadline = None if timeout is None else began + timeout
    table = to_table(board)
    outcome = search(table, len(board.cells), max_states, deadline)
    moves: tuple[str, ...] = ()
    if outcome.result == "solved":
        line = shorten(table, outcome.moves, len(board.cells), deadline)
        moves = to_notation(board, line)
    return SolveResult(outcome.result, moves, outcome.states, time.monotonic() - began)


def hint(board: Board, *, timeout: float = 1.0) -> Hint:
    """The next action of a winning line from a position, if one is found in time.

    Args:
        board: the position; it is not changed.
        timeout: the time budget in seconds.

    Returns:
        ``move`` with the action, ``lost`` when no win exists (proven), or ``unknown``.
    """
    if board.is_won():
        return Hint("unknown")
    result = solve(board, timeout=timeout)
    if result.result == "solved":
        return Hint("move", result.moves[0])
    if result.result == "unsolvable":
        return Hint("lost")
    return Hint("unknown")

"""Optimal par: the proven fewest actions that win a position, as RULES.md actions.

:func:`optimal_par` is what the command line, the pool certification and the daily's
certification call: it seeds the A* search of :mod:`server.engine.solver_optimal` with
the fast solver's line (an upper bound, found in milliseconds) and returns a line that
``Board.play(parse_action(line))`` accepts in order, with whether it is proven shortest
or else a lower bound on the fewest actions. Pure, and keeps no state between calls.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from .board import Board
from .errors import IllegalAction
from .moves import CELL, COL, OWN_FOUNDATION, Loc, Move
from .notation import parse_action
from .solver import Hint, solve
from .solver_optimal import TO_CELL, TO_EMPTY, TO_FOUND, CardMove, State, search

#: Of the time budget, the share the fast solver may use to find the first line.
_SEED_SHARE = 0.2
#: The fewest tables the fast solver may keep for the first line.
_SEED_STATES = 100_000
#: The fast solver's budget for a hint, in tables kept: an opening takes a few thousand,
#: and a lost table whose proof needs more takes about 2 CPU-s to give up on.
HINT_FAST_STATES = 100_000
#: The longest a hint's fast solver may run in wall time (a process starved that long).
HINT_CEILING_SECONDS = 20.0

OptimalStatus = Literal["optimal", "best", "unsolvable", "unknown"]


@dataclass(frozen=True, slots=True)
class OptimalResult:
    """The answer of :func:`optimal_par`.

    Attributes:
        result: ``optimal`` (``moves`` is a proven shortest win), ``best`` (a budget ran
            out: ``moves`` is the shortest win found), ``unsolvable`` (proven) or
            ``unknown`` (no win found within the budget).
        moves: the win in RULES.md notation (empty unless optimal or best).
        lower_bound: no win is shorter; equal to ``len(moves)`` when optimal.
        states: distinct tables the optimal search kept.
        seconds: wall time spent.
    """

    result: OptimalStatus
    moves: tuple[str, ...]
    lower_bound: int
    states: int
    seconds: float

    @property
    def optimal(self) -> bool:
        """Whether ``moves`` is proven to be a shortest win."""
        return self.result == "optimal"


def state_of_board(board: Board) -> State:
    """The optimal search's compact table of a board."""
    f = board.foundations
    return State(
        tuple(sorted(bytes(col) for col in board.columns)),
        bytes(sorted(c for c in board.cells if c is not None)),
        (f[0], f[1], f[2], f[3]),
    )


def card_moves(board: Board, line: tuple[str, ...]) -> tuple[CardMove, ...]:
    """A line of RULES.md moves (no take-backs) as the search names moves, by cards.

    Raises:
        IllegalAction: the line does not play on the board.
    """
    table = board.copy()
    out: list[CardMove] = []
    for text in line:
        action = parse_action(text)
        if not isinstance(action, Move) or action.src.kind == "found":
            raise IllegalAction("no_destination")  # the fast solver makes only moves
        dst = action.dst
        if dst.kind == "col":
            target = table.columns[dst.index]
            code = target[-1] if target else TO_EMPTY
        else:
            code = TO_FOUND if dst.kind == "found" else TO_CELL
        delta = table.push(action)
        out.append((delta.changes[0].cards[0], code))
    return tuple(out)


def to_actions(board: Board, line: tuple[CardMove, ...]) -> tuple[str, ...]:
    """Play a line named by cards on a copy of ``board``, in RULES.md notation.

    The source is where the bottom card lies; a cell is the leftmost free one, an empty
    column the leftmost empty one.

    Raises:
        IllegalAction: the engine refuses a move (a solver bug, never expected).
    """
    table = board.copy()
    out: list[str] = []
    for card, code in line:
        src: Loc | None = None
        for i, col in enumerate(table.columns):
            if card in col:
                src = COL[i]
        for i, held in enumerate(table.cells):
            if held == card:
                src = CELL[i]
        if src is None:
            raise IllegalAction("empty_source")
        if code == TO_FOUND:
            dst = OWN_FOUNDATION
        elif code == TO_CELL:
            dst = CELL[table.cells.index(None)]
        elif code == TO_EMPTY:
            dst = COL[next(i for i, col in enumerate(table.columns) if not col)]
        else:
            dst = COL[next(i for i, col in enumerate(table.columns) if col and col[-1] == code)]
        move = Move(src, dst)
        table.push(move)
        out.append(str(move))
    if not table.is_won():
        raise IllegalAction("no_destination")
    return tuple(out)


def optimal_hint(
    board: Board,
    *,
    timeout: float = 1.0,
    max_states: int = 300_000,
    fast_states: int = HINT_FAST_STATES,
    ceiling: float = HINT_CEILING_SECONDS,
    proving: Callable[[], None] | None = None,
) -> Hint:
    """A hint that teaches when it can, and always names a winning move when one is found.

    The fast solver goes first, bounded by the tables it may keep (``fast_states``) rather
    than by the clock, so that a busy machine, which gives the process fewer of its seconds,
    delays its answer instead of changing it; ``ceiling`` only stops a process starved for
    that long. Then, with what is left of ``timeout`` (wall time: what the player waits),
    the optimal search tries to prove a shortest win: the hint is its first move with how
    many actions remain at best; else the first move of the fast solver's win. ``lost`` is
    a proof that no win exists; ``unknown`` only when the fast solver found neither a win
    nor a proof within its budget (in practice a table lost but costly to prove).

    Args:
        board: the position; it is not changed.
        timeout: the budget in seconds of wall time for the proof of a shortest win.
        max_states: the optimal search's memory budget, in tables kept.
        fast_states: the fast solver's budget, in tables kept.
        ceiling: the most seconds of wall time the fast solver may take.
        proving: called once the fast solver found a win, before the proof starts (the
            solver's process lowers its priority there).
    """
    if board.is_won():
        return Hint("unknown")
    began = time.monotonic()
    fast = solve(board, max_states=fast_states, timeout=max(timeout, ceiling))
    if fast.result == "unsolvable":
        return Hint("lost")
    if fast.result != "solved":
        return Hint("unknown")
    left = timeout - (time.monotonic() - began)
    if left > 0:
        if proving is not None:
            proving()
        answer = optimal_par(board, timeout=left, max_states=max_states, line=fast.moves)
        if answer.result == "optimal":
            return Hint("move", answer.moves[0], len(answer.moves), answer.moves)
    return Hint("move", fast.moves[0], line=fast.moves)


def optimal_par(
    board: Board,
    *,
    timeout: float | None = 10.0,
    max_states: int | None = 2_000_000,
    clock: Callable[[], float] = time.monotonic,
    line: tuple[str, ...] | None = None,
) -> OptimalResult:
    """The fewest actions that win a position, proven within a budget if possible.

    Args:
        board: the position; it is not changed.
        timeout: the time budget in seconds (None: no limit).
        max_states: the memory budget, in distinct tables kept (None: no limit).
        clock: the clock ``timeout`` is measured on: wall time by default,
            ``time.process_time`` for CPU time (a certification on a busy machine).
        line: a known win from ``board`` in RULES.md notation (the fast solver is not
            run when it is given).

    Returns:
        The proven shortest win, or the best win found and a lower bound, or a proof
        that none exists, or ``unknown``.
    """
    began = time.monotonic()
    deadline = None if timeout is None else clock() + timeout
    if board.is_won():
        return OptimalResult("optimal", (), 0, 1, 0.0)
    # The seed's tables are freed before the optimal search starts, so it may keep at
    # least a few of its own even when the optimal search's budget is tiny.
    if line is None:
        seed = solve(
            board,
            timeout=None if timeout is None else timeout * _SEED_SHARE,
            max_states=None if max_states is None else max(max_states, _SEED_STATES),
        )
        if seed.result == "unsolvable":
            return OptimalResult("unsolvable", (), 0, seed.states, time.monotonic() - began)
        line = seed.moves if seed.result == "solved" else None
    best = card_moves(board, line) if line is not None else None
    found = search(
        state_of_board(board),
        len(board.cells),
        best,
        max_states=max_states,
        deadline=deadline,
        clock=clock,
    )
    moves = to_actions(board, found.moves) if found.moves else ()
    return OptimalResult(found.outcome, moves, found.bound, found.states, time.monotonic() - began)

"""The review of a ranked finish: how closely its line follows a solver, and its pace.

:func:`review` scores one finished line (a ranked daily finish, a rated race's finisher)
from the code, the actions and the server's timestamps. It is pure (the engine and the
standard library only) and runs in a solver process (``server.solver_pool``), so the
server's event loop never waits for it; ``bench/review.py`` and the tests call the same
function.

The features (``protocol/DAILY.md``, "Review"):

- ``agreement``: of the line's **kept** decisions (actions not undone later, forced ones
  left out: :func:`server.review.pace.forced`), the share that are the move the solver
  plays from that position. Each position is compared by the table it leads to, so a tap
  and the move it stands for are the same choice. The solver is asked from a position only
  when no earlier answer covers it: one winning line answers for every position along it,
  so a line that follows the solver costs one search, and the searches are bounded
  (:data:`MAX_SOLVES`, :data:`SOLVE_STATES`); positions left unasked are not scored.
- ``detours``: actions later undone; ``undos``: undo actions; ``dead_ends``: positions
  reached with no useful move left (RULES.md, "The end of a game").
- ``spread``: the standard deviation of the natural log of the decision times (a script
  with a fixed delay has nearly none).
- ``recovery``: of the scored decisions that are not the solver's move (followed by another
  scored decision), the share whose next scored decision is the solver's move again. A
  person who sees the table otherwise than the solver follows a plan of their own for a few
  moves; a solver re-asked after a deliberate deviation is back on its line at once
  (``bench/fairplay.py`` measures both). None with fewer than :data:`MIN_DEVIATIONS`.

A finish is **held** when its pace is not a person's (:func:`server.review.pace.judge`), or
when at least :data:`MIN_SCORED` decisions were scored and ``agreement`` is
:data:`HOLD_AGREEMENT` or more: a person finding the win herself picks the solver's very
move much less often (``bench/review.py`` measures both).
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from ..engine import Board, EngineError, parse_action
from ..engine.solver import solve
from .pace import Pace, aces_home, forced, judge

#: The least share of kept decisions equal to the solver's that holds a finish.
HOLD_AGREEMENT: Final = 0.9
#: Fewer scored decisions than this never hold a finish on agreement alone.
MIN_SCORED: Final = 20
#: The most solver searches one review makes, and each one's budget in tables seen: a
#: budget in states, not seconds, makes the review's answer the same on a busy machine as on
#: an idle one (50,000 tables: half a second of CPU at most on the pool's deals).
MAX_SOLVES: Final = 40
SOLVE_STATES: Final = 50_000
#: One review's whole budget for searches, in seconds of wall time: a last resort only (a
#: review runs at the lowest priority, and on a starved machine it waits for CPU).
REVIEW_SECONDS: Final = 60.0

#: Fewer scored deviations from the solver than this leave ``recovery`` unmeasured.
MIN_DEVIATIONS: Final = 3

#: Why a finish is held (besides the pace's reasons).
SOLVER_LIKE: Final = "solver_like"

TableKey = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Score:
    """What :func:`review` found.

    Attributes:
        held: the finish waits for an operator.
        reason: ``ok``, ``solver_like`` or a pace reason (``server.review.pace``).
        message: the reason in words.
        agreement: share of scored decisions equal to the solver's (None: none scored).
        scored: decisions scored; decisions: all decisions of the line.
        detours, undos, dead_ends: see the module docstring.
        spread: the standard deviation of log decision times (0 with fewer than two).
        solves: solver searches made.
        recovery: the share of deviations from the solver whose next scored decision is
            the solver's move again (None: too few deviations).
    """

    held: bool
    reason: str
    message: str
    agreement: float | None
    scored: int
    decisions: int
    detours: int
    undos: int
    dead_ends: int
    spread: float
    solves: int
    recovery: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The score as JSON (for the held list and the log)."""
        data = asdict(self)
        if self.agreement is not None:
            data["agreement"] = round(self.agreement, 3)
        data["spread"] = round(self.spread, 3)
        if self.recovery is not None:
            data["recovery"] = round(self.recovery, 3)
        return data


def table_key(board: Board) -> TableKey:
    """A table as the solver sees it: which cell holds a card does not matter."""
    cells = tuple(sorted(c for c in board.cells if c is not None))
    return tuple(tuple(col) for col in board.columns), cells, tuple(board.foundations)


class SolverMemo:
    """The solver's next table from each table it has answered for (one search answers
    for every table along its winning line)."""

    def __init__(self, max_solves: int, solve_states: int, budget_s: float) -> None:
        self.next: dict[TableKey, TableKey] = {}
        self.lost: set[TableKey] = set()
        self.solves = 0
        self.max_solves = max_solves
        self.solve_states = solve_states
        self.deadline = time.monotonic() + budget_s

    def answer(self, board: Board, key: TableKey) -> TableKey | None:
        """The table the solver's move leads to from ``board`` (None: not known)."""
        found = self.next.get(key)
        if found is not None or key in self.lost:
            return found
        if self.solves >= self.max_solves or time.monotonic() >= self.deadline:
            return None
        self.solves += 1
        result = solve(board, max_states=self.solve_states)
        if result.result != "solved":
            self.lost.add(key)  # unsolvable, or not within its budget: not scored
            return None
        walk = board.copy()
        before = key
        for text in result.moves:
            walk.play(parse_action(text))
            after = table_key(walk)
            self.next.setdefault(before, after)
            before = after
        return self.next.get(key)


def review(
    code: str,
    started_at: int,
    actions: Sequence[str],
    times: Sequence[int],
    pace: Pace,
    *,
    max_solves: int = MAX_SOLVES,
    solve_states: int = SOLVE_STATES,
    budget_s: float = REVIEW_SECONDS,
    hold_agreement: float = HOLD_AGREEMENT,
    min_scored: int = MIN_SCORED,
) -> Score:
    """Score a finished line (see the module docstring).

    Args:
        code: the deal's game code.
        started_at: the clock's start (a daily's reveal, a race's start), ms.
        actions: the line in RULES.md notation, as the server committed it.
        times: each action's commit time, ms.
        pace: the pace model.
        max_solves, solve_states, budget_s: the solver's bounds for this review.
        hold_agreement, min_scored: the agreement that holds a finish, and the decisions
            it needs scored (server settings ``review_hold_agreement``,
            ``review_min_scored``).
    """
    flags = forced(code, actions)
    board = Board.from_code(code)
    before: list[TableKey] = []
    after: list[TableKey] = []
    boards: list[Board] = []
    stack: list[int] = []
    undos = detours = dead_ends = 0
    for i, text in enumerate(actions[: len(flags)]):
        key = table_key(board)
        snapshot = board.copy()
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        before.append(key)
        boards.append(snapshot)
        after.append(table_key(board))
        if text == "undo":
            undos += 1
            if stack:
                stack.pop()
                detours += 1
        else:
            stack.append(i)
        if board.is_lost():
            dead_ends += 1
    # An agreement that can never hold (above 1) needs no search at all.
    memo = SolverMemo(max_solves if hold_agreement <= 1 else 0, solve_states, budget_s)
    scored = agreed = 0
    matches: list[bool] = []
    for i in stack:
        if flags[i]:
            continue
        wanted = memo.answer(boards[i], before[i])
        if wanted is None:
            continue
        scored += 1
        agreed += wanted == after[i]
        matches.append(wanted == after[i])
    decisions = [times[i] - times[i - 1] for i in range(1, len(flags)) if not flags[i]]
    logs = [math.log(max(d, 1)) for d in decisions]
    spread = statistics.pstdev(logs) if len(logs) >= 2 else 0.0
    agreement = agreed / scored if scored else None
    verdict = judge(started_at, times, flags, pace, aces_home(code, actions))
    if not verdict.ok:
        held, reason, message = True, verdict.reason, verdict.message
    elif agreement is not None and scored >= min_scored and agreement >= hold_agreement:
        held, reason = True, SOLVER_LIKE
        message = (
            f"{agreed} of {scored} decisions are the solver's move "
            f"(a finish is held from {hold_agreement:.0%})"
        )
    else:
        held, reason, message = False, "ok", verdict.message
    return Score(
        held=held,
        reason=reason,
        message=message,
        agreement=agreement,
        scored=scored,
        decisions=len(decisions),
        detours=detours,
        undos=undos,
        dead_ends=dead_ends,
        spread=spread,
        solves=memo.solves,
        recovery=recovery(matches),
    )


def recovery(matches: Sequence[bool]) -> float | None:
    """Of the deviations from the solver (``False``) that another scored decision follows,
    the share followed by the solver's move (None with fewer than :data:`MIN_DEVIATIONS`).

    >>> recovery([True, False, True, False, True, False, True])
    1.0
    >>> recovery([False, False, False, True, False, False, True])
    0.4
    """
    turns = [after for before, after in itertools.pairwise(matches) if not before]
    if len(turns) < MIN_DEVIATIONS:
        return None
    return sum(turns) / len(turns)


def review_job(
    code: str,
    started_at: int,
    actions: list[str],
    times: list[int],
    pace: dict[str, Any],
) -> dict[str, Any]:
    """:func:`review` as a solver process runs it: plain data in and out (``pace`` holds
    the model's fields and ``hold_agreement``, ``min_scored``)."""
    model = Pace(
        read_ms=int(pace["read_ms"]),
        game_ms=int(pace["game_ms"]),
        decision_ms=int(pace["decision_ms"]),
        bursts=tuple((int(k), int(w)) for k, w in pace["bursts"]),
    )
    return review(
        code,
        started_at,
        actions,
        times,
        model,
        hold_agreement=float(pace["hold_agreement"]),
        min_scored=int(pace["min_scored"]),
    ).to_json()

"""The evidence of one ranked finish, kept across games (a patient cheater spreads it thin).

One review (:mod:`.scoring`) looks at one game. A patient cheater adds noise until one game
passes: a solver re-asked after each deliberate mistake, the engine's optimal search, or a
line practised on another identity. No single game of theirs is damning, but every one of
them leans the same way. So each ranked finish leaves a small, bounded record (:class:`Evidence`)
and a player's score is taken over their recent finishes (:mod:`server.fairplay`).

The record (pure: the engine and the standard library; it runs in a solver process, beside
the review, and ``bench/fairplay.py`` calls the same code):

- ``solver``: the review's agreement with the fast solver (:mod:`.scoring`), over
  ``solver_scored`` decisions, and its ``recovery`` (how often a deviation from the
  solver is followed by the solver's move again);
- ``optimal``: the same with the engine's optimal search (:func:`server.engine.optimal.
  optimal_par`), asked from at most :data:`OPTIMAL_SEARCHES` positions with a budget of
  tables each, so it costs a bounded amount whatever the line;
- ``excess``: the line's kept actions beyond the shortest win found from the deal (a person
  finding the win herself wanders; a reference line barely does);
- ``decision_ms`` and ``spread``: the median time of a decision and the spread of their logs;
- ``field``: the game's time over the median time of the day's established players (None
  without enough of them);
- ``known``: the share of the line's kept decisions that lead to a table one of the lines
  *practised* before reached (the same deal finished by another identity of the same
  address, as the server saw it).

:func:`server.fairplay.decide.suspicion` folds a record into one number from 0 (a
person's) to 1 (a reference's); what it decides is :mod:`server.fairplay`'s (docs/fairplay.md).
"""

from __future__ import annotations

import hashlib
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from ..engine import Board, EngineError, parse_action
from ..engine.optimal import optimal_par
from .pace import Pace, forced
from .scoring import (
    MAX_SOLVES,
    REVIEW_SECONDS,
    SOLVE_STATES,
    SolverMemo,
    TableKey,
    review,
    table_key,
)

#: The most optimal searches one record makes, and each one's budget in tables kept: a
#: search from the deal's start, then from where the line first leaves each answer.
OPTIMAL_SEARCHES: Final = 3
OPTIMAL_STATES: Final = 20_000
#: A last resort on a starved machine: the optimal searches' whole wall time, seconds.
OPTIMAL_SECONDS: Final = 20.0


@dataclass(frozen=True, slots=True)
class Evidence:
    """One finish's record (see the module docstring). Kept as JSON, a few hundred bytes."""

    solver: float | None
    solver_scored: int
    recovery: float | None
    optimal: float | None
    optimal_scored: int
    excess: int | None
    decisions: int
    decision_ms: int
    spread: float
    time_ms: int
    field: float | None
    known: float
    optimal_searches: int

    def to_json(self) -> dict[str, Any]:
        """The record as JSON, rounded."""
        data = asdict(self)
        for name in ("solver", "recovery", "optimal", "field", "known", "spread"):
            if data[name] is not None:
                data[name] = round(float(data[name]), 3)
        return data


class OptimalMemo:
    """The optimal search's next table from each table it answered for (as
    :class:`.scoring.SolverMemo`, with a search bounded in tables and count)."""

    def __init__(self, searches: int, states: int, budget_s: float) -> None:
        self.next: dict[TableKey, TableKey] = {}
        self.asked: set[TableKey] = set()
        self.searches = 0
        self.max_searches = searches
        self.states = states
        self.deadline = time.monotonic() + budget_s
        self.length: int | None = None

    def answer(self, board: Board, key: TableKey) -> TableKey | None:
        found = self.next.get(key)
        if found is not None or key in self.asked:
            return found
        if self.searches >= self.max_searches or time.monotonic() >= self.deadline:
            return None
        self.searches += 1
        self.asked.add(key)
        result = optimal_par(board, timeout=None, max_states=self.states)
        if result.result not in ("optimal", "best"):
            return None
        if self.length is None:
            self.length = len(result.moves)
        walk, before = board.copy(), key
        for text in result.moves:
            walk.play(parse_action(text))
            after = table_key(walk)
            self.next.setdefault(before, after)
            before = after
        return self.next.get(key)


def kept_tables(code: str, actions: Sequence[str]) -> set[TableKey]:
    """The tables a line's kept actions (not undone later) lead to."""
    board = Board.from_code(code)
    stack: list[TableKey] = []
    for text in actions:
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        if text == "undo":
            if stack:
                stack.pop()
        else:
            stack.append(table_key(board))
    return set(stack)


def gather(
    code: str,
    started_at: int,
    actions: Sequence[str],
    times: Sequence[int],
    solver_agreement: float | None,
    *,
    solver_scored: int = 0,
    recovery: float | None = None,
    practised: Sequence[Sequence[str]] = (),
    field_ms: int | None = None,
    searches: int = OPTIMAL_SEARCHES,
    states: int = OPTIMAL_STATES,
    budget_s: float = OPTIMAL_SECONDS,
) -> Evidence:
    """One finish's record.

    Args:
        code, started_at, actions, times: the finish as the review sees it.
        solver_agreement: the review's agreement with the fast solver.
        solver_scored: the decisions that agreement is over.
        recovery: the review's share of deviations from the solver followed by its move.
        practised: lines of the same deal that identities of the same address finished
            before (the server's own record of them).
        field_ms: the median time of the day's established players (None: too few).
        searches, states, budget_s: the optimal search's bounds.
    """
    flags = forced(code, actions)
    board = Board.from_code(code)
    kept: list[tuple[int, Board, TableKey, TableKey]] = []
    for i, text in enumerate(actions[: len(flags)]):
        snapshot, before = board.copy(), table_key(board)
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        if text == "undo":
            if kept:
                kept.pop()
        else:
            kept.append((i, snapshot, before, table_key(board)))
    known_tables: set[TableKey] = set()
    for line in practised:
        known_tables |= kept_tables(code, line)
    memo = OptimalMemo(searches, states, budget_s)
    scored = agreed = known = decided = 0
    for i, snapshot, before, after in kept:
        if flags[i]:
            continue
        decided += 1
        known += after in known_tables
        wanted = memo.answer(snapshot, before)
        if wanted is None:
            continue
        scored += 1
        agreed += wanted == after
    gaps = [times[i] - times[i - 1] for i in range(1, len(flags)) if not flags[i]]
    logs = [math.log(max(d, 1)) for d in gaps]
    took = times[-1] - started_at if times else 0
    return Evidence(
        solver=solver_agreement,
        solver_scored=solver_scored,
        recovery=recovery,
        optimal=agreed / scored if scored else None,
        optimal_scored=scored,
        excess=len(kept) - memo.length if memo.length is not None else None,
        decisions=len(gaps),
        decision_ms=int(statistics.median(gaps)) if gaps else 0,
        spread=statistics.pstdev(logs) if len(logs) >= 2 else 0.0,
        time_ms=took,
        field=took / field_ms if field_ms else None,
        known=known / decided if decided else 0.0,
        optimal_searches=memo.searches,
    )


def evidence_job(
    code: str,
    started_at: int,
    actions: list[str],
    times: list[int],
    settings: dict[str, Any],
    practised: list[list[str]],
    field_ms: int | None,
) -> dict[str, Any]:
    """The review and the record in one solver-process job: the review's score
    (``Score.to_json()``) with ``evidence`` (the record as JSON) added."""
    model = Pace(
        read_ms=int(settings["read_ms"]),
        game_ms=int(settings["game_ms"]),
        decision_ms=int(settings["decision_ms"]),
        bursts=tuple((int(k), int(w)) for k, w in settings["bursts"]),
    )
    score = review(
        code,
        started_at,
        actions,
        times,
        model,
        hold_agreement=float(settings["hold_agreement"]),
        min_scored=int(settings["min_scored"]),
    )
    record = gather(
        code,
        started_at,
        actions,
        times,
        score.agreement,
        solver_scored=score.scored,
        recovery=score.recovery,
        practised=practised,
        field_ms=field_ms,
        searches=int(settings.get("optimal_searches", OPTIMAL_SEARCHES)),
        states=int(settings.get("optimal_states", OPTIMAL_STATES)),
    )
    _kept, decided = line_digests(code, actions)
    return {**score.to_json(), "evidence": record.to_json(), "tables": {"decided": decided}}


def digest(key: TableKey) -> str:
    """A table's short name (12 hex digits): the index of who reached it is keyed by it."""
    return hashlib.blake2b(repr(key).encode(), digest_size=6).hexdigest()


def line_digests(code: str, actions: Sequence[str]) -> tuple[list[str], list[str]]:
    """The tables a line's kept actions lead to, and those of its kept decisions (not
    forced), as :func:`digest` names them, in the line's order."""
    flags = forced(code, actions)
    board = Board.from_code(code)
    stack: list[tuple[str, bool]] = []
    for i, text in enumerate(actions[: len(flags)]):
        try:
            board.play(parse_action(text))
        except EngineError:
            break
        if text == "undo":
            if stack:
                stack.pop()
        else:
            stack.append((digest(table_key(board)), not flags[i]))
    return [d for d, _ in stack], [d for d, decision in stack if decision]


def marks(
    code: str,
    actions: list[str],
    hold_agreement: float,
    searches: int = OPTIMAL_SEARCHES,
    states: int = OPTIMAL_STATES,
) -> list[dict[str, Any]]:
    """Each action of a line for the operator's replay: ``kept`` (not undone later),
    ``forced``, and whether it is the fast solver's (``solver``) and the optimal search's
    (``optimal``) move from where it was played (None: not a scored decision, or not asked
    within the bounds), asked as the review and :func:`gather` ask them."""
    flags = forced(code, actions)
    board = Board.from_code(code)
    rows: list[dict[str, Any]] = []
    stack: list[int] = []
    snapshots: list[tuple[Board, TableKey, TableKey]] = []
    for i, text in enumerate(actions[: len(flags)]):
        snapshot, before = board.copy(), table_key(board)
        board.play(parse_action(text))
        snapshots.append((snapshot, before, table_key(board)))
        rows.append({"action": text, "forced": flags[i], "kept": False})
        if text == "undo":
            if stack:
                stack.pop()
        else:
            stack.append(i)
    solver = SolverMemo(MAX_SOLVES if hold_agreement <= 1 else 0, SOLVE_STATES, REVIEW_SECONDS)
    best = OptimalMemo(searches if hold_agreement <= 1 else 0, states, OPTIMAL_SECONDS)
    for i in stack:
        row = rows[i]
        row["kept"] = True
        if row["forced"]:
            continue
        snapshot, before, after = snapshots[i]
        for name, memo in (("solver", solver), ("optimal", best)):
            wanted = memo.answer(snapshot, before)
            row[name] = None if wanted is None else wanted == after
    return rows

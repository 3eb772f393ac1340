"""The review of a finish (server/review/scoring.py), pure: the solver's line is held however
it is timed, a person's search is not, a machine's pace is held, and each feature counts
what it says. The players are bench/review.py's (the bench measures the rates on 200
deals; a few deals here)."""

from __future__ import annotations

import doctest
import importlib.util
import random
import sys
from types import ModuleType

import server.review.scoring as scoring
from server.engine import Board, format_code, parse_action
from server.engine.solver import solve
from server.review.pace import Pace
from server.review.scoring import SOLVER_LIKE, recovery, review, review_job, table_key
from tests import ROOT
from tests.helpers.waits import until

T0 = 1_780_000_000_000
BENCH = ROOT / "bench" / "review.py"


def bench() -> ModuleType:
    """bench/review.py as a module (its players)."""
    spec = importlib.util.spec_from_file_location("bench_review", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_review"] = module
    spec.loader.exec_module(module)
    return module


DEALS = (3, 20, 45)


def test_a_noisy_solver_line_is_held_and_a_persons_search_is_not() -> None:
    players = bench()
    searched = 0
    for deal in DEALS:
        code = format_code(deal, 4)
        cheat = players.noisy_solver(code, random.Random(deal), 0.1, 0.6)
        score = review(code, T0, cheat.actions, cheat.times, Pace())
        assert score.held and score.reason == SOLVER_LIKE, score
        assert score.agreement is not None and score.agreement >= 0.9
        assert score.detours > 0 and score.undos == score.detours and score.solves <= 3
        person = players.human(code, random.Random(deal), 0.6, 3000)
        if person is None:
            continue  # she gave up: no finish to review
        mine = review(code, T0, person.actions, person.times, Pace())
        assert not mine.held, mine
        assert mine.agreement is not None and mine.agreement < 0.9
        searched += mine.dead_ends > 0 and mine.undos > 0
    assert searched  # she met dead ends and undid her way out of them


def test_a_machine_pace_is_held_whatever_the_line() -> None:
    # The attack: the solver's line with a quarter of the gaps at 5 ms, a quarter at
    # 100 ms, half at 300 ms and the tail as one send home: about 13 s on a 90-action deal.
    code = format_code(20, 4)
    board = Board.from_code(code)
    line = solve(board, timeout=10).moves
    rng = random.Random(5)
    times = [T0 + 2500]  # past the read floor: the rest gives it away
    for _ in line[1:]:
        times.append(times[-1] + rng.choice((5, 100, 300, 300)))
    score = review(code, T0, line, times, Pace(), hold_agreement=2)
    assert score.held and score.reason in ("fast_finish", "too_fast", "fast_bursts"), score
    assert score.solves == 0  # an agreement that cannot hold asks the solver nothing


def test_the_solver_line_at_a_persons_pace_holds_only_on_agreement() -> None:
    players = bench()
    code = format_code(45, 4)
    cheat = players.noisy_solver(code, random.Random(1), 0.0, 0.6)
    assert review(code, T0, cheat.actions, cheat.times, Pace()).reason == SOLVER_LIKE
    off = review(code, T0, cheat.actions, cheat.times, Pace(), hold_agreement=2)
    assert not off.held and off.agreement is None
    few = review(code, T0, cheat.actions, cheat.times, Pace(), min_scored=10_000)
    assert not few.held and few.agreement == 1.0


def test_the_features_count_what_they_say() -> None:
    code = format_code(7, 4)
    board = Board.from_code(code)
    line = list(solve(board, timeout=10).moves)
    useful = [m for m in board.useful_moves() if str(m) != line[0]]
    # A detour undone, then the line; every press 1.5 s apart after a 3 s read.
    actions = [str(useful[0]), "undo", *line]
    times = [T0 + 3000 + 1500 * i for i in range(len(actions))]
    score = review(code, T0, actions, times, Pace())
    assert (score.detours, score.undos, score.dead_ends) == (1, 1, 0)
    assert score.spread < 0.01  # one fixed delay: no spread at all
    assert score.agreement == 1.0 and score.solves == 1
    assert score.scored <= len(line) and score.decisions >= score.scored
    data = review_job(
        code,
        T0,
        actions,
        times,
        {
            "read_ms": 2000,
            "game_ms": 60_000,
            "decision_ms": 1100,
            "bursts": [[3, 600]],
            "hold_agreement": 0.9,
            "min_scored": 20,
        },
    )
    assert data["held"] is True and data["reason"] == SOLVER_LIKE and data["agreement"] == 1.0


def test_tables_compare_as_the_solver_sees_them() -> None:
    board = Board.from_code(format_code(9, 4))
    before = table_key(board)
    other = board.copy()
    free = [i + 1 for i, c in enumerate(board.cells) if c is None]
    assert len(free) >= 2
    board.play(parse_action(f"col1 cell{free[0]}"))
    other.play(parse_action(f"col1 cell{free[-1]}"))
    assert table_key(board) == table_key(other) != before  # which cell: the same table


async def test_a_burst_of_reviews_takes_one_slot_and_leaves_the_rest_to_hints() -> None:
    """Reviews queue in a lane of their own: ten finishes at once (ten identities, say)
    take one slot of the solver pool, and a player's hint still finds room meanwhile."""
    import asyncio

    from server.review.reviewer import REVIEWS_AT_ONCE, Reviewer
    from server.solver_pool import SolverPool

    code = format_code(3, 4)
    line = list(solve(Board.from_code(code), timeout=10).moves)
    times = [1000 + 1500 * i for i in range(len(line))]
    pool = SolverPool(1, 3, policy="normal", nice=0)
    await pool.start()
    try:
        reviewer = Reviewer(pool, Pace(), 0.9, 20)
        burst = [
            asyncio.create_task(reviewer.score(f"p{i}", code, 0, line, times)) for i in range(10)
        ]
        await until(lambda: pool.jobs, what="the first review in the pool")
        assert pool.jobs == REVIEWS_AT_ONCE
        assert pool.has_room("hinting-player")
        scores = await asyncio.gather(*burst)
        assert all(s["reason"] != "unreviewed" for s in scores)
    finally:
        await pool.close()


def test_recovery_is_how_often_a_deviation_is_followed_by_the_solvers_move() -> None:
    failed, tried = doctest.testmod(scoring)
    assert tried >= 2 and failed == 0
    assert recovery([False, True, False, True]) is None  # two deviations: not measured
    assert recovery([True, False, True, False, True, False, True, True]) == 1.0
    assert recovery([False, False, True, False, False, True, False, True]) == 0.6
    # The last decision has no next one: it is not a turn.
    assert recovery([False, True, False, True, False, True, False]) == 1.0

"""No honest quick first move breaks the read floor.

A person who sees an ace free on the table taps it home at once, then reads the table: the
read floor (``pace_read_ms``, 2 s) times the first *decision*, so that tap is not held. A
first decision sooner than the floor still is.
"""

from __future__ import annotations

import random

from server.engine import Board, format_code, parse_action
from server.engine.solver import solve
from server.review.pace import Pace, aces_home, fastest_times, forced, judge
from server.review.scoring import review

T0 = 1_780_000_000_000


def _deal_with_a_free_ace() -> tuple[str, list[str]]:
    """A pool deal with an ace free at the start, and a winning line that taps it first."""
    for deal in range(200):
        code = format_code(deal, 4)
        board = Board.from_code(code)
        found = [str(m) for m in board.useful_moves() if aces_home(code, [str(m)]) == [True]]
        if not found:
            continue
        first = found[0]
        board.play(parse_action(first))
        rest = solve(board, max_states=200_000).moves
        if rest:
            return code, [first, *rest]
    raise AssertionError("no deal of the first 200 has a free ace")


def _person(n: int, first_ms: int, read_ms: int, seed: int) -> list[int]:
    """A person's commit times: the first action at ``first_ms``, the next after a read of
    ``read_ms`` more, then 1.5 to 2.6 s a move."""
    rng = random.Random(seed)
    times = [T0 + first_ms, T0 + first_ms + read_ms]
    while len(times) < n:
        times.append(times[-1] + rng.randint(1_500, 2_600))
    return times


def test_an_ace_tapped_home_at_once_is_not_held() -> None:
    code, line = _deal_with_a_free_ace()
    flags, aces = forced(code, line), aces_home(code, line)
    assert aces[0] and not flags[0]  # a choice, but an obvious one
    times = _person(len(line), 250, 3_000, seed=1)
    verdict = judge(T0, times, flags, Pace(), aces)
    assert verdict.ok, verdict
    # Before: the floor timed the first action, whatever it was.
    assert judge(T0, times, flags, Pace()).reason == "fast_start"
    score = review(code, T0, line, times, Pace(), hold_agreement=2)
    assert not score.held and score.reason == "ok", score


def test_a_first_decision_before_the_read_floor_is_still_held() -> None:
    code, line = _deal_with_a_free_ace()
    flags, aces = forced(code, line), aces_home(code, line)
    at = next(i for i, f in enumerate(flags) if not f and not aces[i])  # needs reading
    times = _person(len(line), 250, 3_000, seed=2)
    # Every action up to and including the first decision within 1.5 s of the reveal.
    early = [T0 + 100 * (i + 1) for i in range(at + 1)]
    shift = times[at] - early[-1]
    moved = early + [t - shift for t in times[at + 1 :]]
    verdict = judge(T0, moved, flags, Pace(), aces)
    assert (verdict.ok, verdict.reason) == (False, "fast_start"), verdict


def test_the_fastest_schedule_still_passes() -> None:
    code, line = _deal_with_a_free_ace()
    flags = forced(code, line)
    pace = Pace()
    times = fastest_times(flags, pace, T0)
    assert judge(T0, times, flags, pace, aces_home(code, line)).ok
    assert judge(T0, times, flags, pace).ok

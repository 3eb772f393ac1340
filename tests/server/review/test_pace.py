"""The pace model (server/review/pace.py) on server timestamps: each bound at its edge, the
forced actions it leaves out, the fastest schedule it admits (and that nothing faster
passes), the settings that set it, and the target: the solver's line of a 90-action deal
at the fastest admitted pace takes a minute or more."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.app import pace_of
from server.engine import Board, format_code
from server.engine.solver import solve
from server.review.pace import (
    PACE_REASONS,
    Pace,
    fastest_ms,
    fastest_times,
    forced,
    format_bursts,
    gaps,
    judge,
    parse_bursts,
    presses,
)
from server.settings import Settings
from tests import ROOT

T0 = 1_780_000_000_000
SOLVER_90 = ROOT / "tests" / "data" / "solver90.txt"


def timeline(first_ms: int, steps: list[int]) -> list[int]:
    """Action times: the first ``first_ms`` after the reveal at T0, then each step after."""
    times = [T0 + first_ms]
    for step in steps:
        times.append(times[-1] + step)
    return times


def person(n: int, seed: int = 1) -> list[int]:
    """A person's think times: log-normal, median 1.2 s (as bench/review.py's human)."""
    rng = random.Random(seed)
    return [round(1200 * math.exp(rng.gauss(0, 0.6))) for _ in range(n)]


def decisions(n: int) -> list[bool]:
    """Flags of ``n`` actions, none forced."""
    return [False] * n


def test_a_person_keeps_the_pace() -> None:
    for seed in range(20):
        verdict = judge(T0, timeline(4000, person(150, seed)), decisions(151), Pace())
        assert verdict.ok and verdict.reason == "ok", verdict


def test_the_first_action_needs_time_to_see_the_board() -> None:
    steps = person(80)
    assert judge(T0, timeline(1999, steps), decisions(81), Pace()).reason == "fast_start"
    assert judge(T0, timeline(2000, steps), decisions(81), Pace()).ok


def test_a_win_takes_the_game_floor() -> None:
    pace = Pace(decision_ms=0, bursts=())
    steps = [500] * ((pace.game_ms - 2000) // 500)  # 2 s to read, then the floor exactly
    verdict = judge(T0, timeline(2000, [*steps[:-1], 499]), decisions(len(steps) + 1), pace)
    assert (verdict.ok, verdict.reason) == (False, "fast_finish"), verdict
    assert judge(T0, timeline(2000, steps), decisions(len(steps) + 1), pace).ok


def test_decisions_take_their_time_on_average() -> None:
    pace = Pace(game_ms=0, bursts=())
    floor = pace.decision_ms
    steps = [floor] * 59 + [floor - 1]
    verdict = judge(T0, timeline(2000, steps), decisions(61), pace)
    assert (verdict.ok, verdict.reason) == (False, "too_fast"), verdict
    assert "60 decisions" in verdict.message
    assert judge(T0, timeline(2000, [floor] * 60), decisions(61), pace).ok
    # Long pauses make up for a quick run only as far as the bursts allow (next test).
    assert judge(T0, timeline(2000, [300] * 30 + [1900] * 30), decisions(61), pace).ok


def test_a_run_of_decisions_is_bounded() -> None:
    pace = Pace(game_ms=0, decision_ms=0, bursts=((10, 6000),))
    quick = [2000] * 20 + [600] * 9 + [599] + [2000] * 20  # 10 decisions in 5999 ms
    verdict = judge(T0, timeline(3000, quick), decisions(51), pace)
    assert (verdict.ok, verdict.reason) == (False, "fast_bursts"), verdict
    assert "10 decisions in 5999 ms" in verdict.message
    assert judge(T0, timeline(3000, [2000] * 20 + [600] * 10 + [2000] * 20), decisions(51), pace).ok
    # A game with fewer decisions than K needs W scaled to them, in total.
    assert not judge(T0, timeline(3000, [550] * 4), decisions(5), pace).ok  # 2200 < 2400
    assert judge(T0, timeline(3000, [600] * 4), decisions(5), pace).ok


def test_forced_actions_are_not_decisions() -> None:
    pace = Pace(game_ms=0)
    steps = [1000] * 40 + [0] * 30  # 30 actions at once: a send home
    flags = decisions(41) + [True] * 30
    assert judge(T0, timeline(3000, steps), flags, pace).ok
    assert judge(T0, timeline(3000, steps), decisions(71), pace).reason == "too_fast"


def test_forced_moves_of_a_real_line() -> None:
    code = format_code(1, 4)
    line = solve(Board.from_code(code), timeout=10).moves
    flags = forced(code, line)
    assert len(flags) == len(line)
    board = Board.from_code(code)
    from server.engine import parse_action

    for text, flag in zip(line, flags, strict=True):
        # Once a send home is possible nothing is a choice: home moves or a card moved aside.
        assert flag == (board.can_send_home() or len(board.useful_moves()) <= 1), text
        board.play(parse_action(text))
    assert forced(code, ["undo"]) == []  # not a game: the list ends where the engine refuses
    assert forced(code, [line[0], "undo"]) == [flags[0], False]  # an undo is a decision


@settings(max_examples=200, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_the_fastest_schedule_is_admitted(flags: list[bool]) -> None:
    pace = Pace()
    times = fastest_times(flags, pace, T0)
    assert all(b >= a for a, b in itertools.pairwise(times))
    assert judge(T0, times, flags, pace).ok


def test_nothing_faster_than_the_fastest_schedule_passes() -> None:
    rng = random.Random(3)
    pace = Pace(game_ms=0)
    for _ in range(30):
        flags = [rng.random() < 0.2 for _ in range(90)]
        flags[1] = False
        times = fastest_times(flags, pace, T0)
        assert judge(T0, times, flags, pace).ok
        # The last decision a millisecond sooner (and everything after it) breaks a bound.
        last = max(i for i, f in enumerate(flags) if not f and i > 0)
        sooner = [t - 1 if i >= last else t for i, t in enumerate(times)]
        assert not judge(T0, sooner, flags, pace).ok


def solver_90_deals() -> list[int]:
    """Deals whose fast solver's line is 90 actions long (``tests/data/solver90.txt``: the
    pool's par no longer says, once re-certified: its par is the optimum, shorter than the
    line the review scores). The test checks each line's length, so the list cannot lie."""
    text = SOLVER_90.read_text(encoding="utf-8")
    return [int(line) for line in text.splitlines() if line and not line.startswith("#")]


def test_the_solver_line_of_a_90_action_deal_takes_the_game_floor_at_least() -> None:
    # bench/review.py --fastest measures every 90-action deal of the pool; a sample here.
    deals = solver_90_deals()
    assert len(deals) == 8
    for deal in deals:
        code = format_code(deal, 4)
        line = solve(Board.from_code(code), timeout=10).moves
        assert len(line) == 90
        assert fastest_ms(code, line, Pace()) >= Pace().game_ms, deal


def test_bursts_parse_and_reasons() -> None:
    assert parse_bursts("3:600, 10:6000,30:25000") == ((3, 600), (10, 6000), (30, 25000))
    assert parse_bursts("") == ()
    assert format_bursts(parse_bursts("10:6000,3:600")) == "3:600,10:6000"
    for bad in ("3", "3:", ":600", "0:600", "3:0", "a:b"):
        with pytest.raises(ValueError):
            parse_bursts(bad)
    assert gaps([5, 7, 7, 20]) == [2, 0, 13]
    assert set(PACE_REASONS) == {"fast_start", "fast_finish", "too_fast", "fast_bursts"}
    assert judge(T0, [], [], Pace()).ok
    assert judge(T0, timeline(0, [1] * 50), decisions(51), Pace.off()).ok


def test_the_model_is_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pace_of(Settings()) == Pace()
    monkeypatch.setenv("SEAHAVEN_PACE_READ_MS", "500")
    monkeypatch.setenv("SEAHAVEN_PACE_GAME_MS", "15000")
    monkeypatch.setenv("SEAHAVEN_PACE_DECISION_MS", "275")
    monkeypatch.setenv("SEAHAVEN_PACE_BURSTS", "3:150,10:1500")
    assert pace_of(Settings()) == Pace(500, 15000, 275, ((3, 150), (10, 1500)))
    monkeypatch.setenv("SEAHAVEN_PACE_BURSTS", "3-150")
    with pytest.raises(ValueError):
        Settings()


def test_a_send_home_is_one_press() -> None:
    # A person's game whose last 20 actions are the taps of one send home, at one time.
    moves = ["col1 col2"] * 50
    taps = [f"tap col{i % 10 + 1}" for i in range(20)]
    times = timeline(1800, person(49))
    times += [times[-1] + 700] * 20
    actions = moves + taps
    assert presses(actions, times) == times[:51]
    # Only taps that end the game at its last time are one press.
    later = [*times[:-1], times[-1] + 1]
    assert presses(actions, later) == later
    assert presses([*actions[:-1], "col3 found"], times) == times
    assert presses(["col1 col2", "tap col3"], [5, 5]) == [5, 5]  # a tap alone: as it is
    assert presses(["tap col1", "tap col2"], [5, 5]) == [5]
    assert presses([], []) == []


def test_a_planned_run_after_a_long_think_is_a_persons_pace() -> None:
    # A strong player thinks 8 s, then plays the 15 moves she saw at 0.55-0.65 s each:
    # before, 10 of them in under 6 s broke the bursts (16 % of such games held).
    rng = random.Random(4)
    for seed in range(10):
        think = person(40, seed)
        run = [rng.randint(550, 650) for _ in range(15)]
        steps = [*think, 8_000, *run, *person(40, seed + 100)]
        verdict = judge(T0, timeline(4000, steps), decisions(len(steps) + 1), Pace())
        assert verdict.ok, verdict
    # Two planned runs in a game, each after its own think.
    steps = [*person(30), 9_000, *[600] * 14, *person(30, 2), 7_000, *[580] * 12, *person(20, 3)]
    assert judge(T0, timeline(4000, steps), decisions(len(steps) + 1), Pace()).ok


def test_a_script_with_a_fixed_small_delay_is_still_held() -> None:
    # No thinks: nothing is planned, the bursts hold it.
    steps = [600] * 10 + [550] * 100
    verdict = judge(T0, timeline(4000, steps), decisions(111), Pace(game_ms=0))
    assert not verdict.ok and verdict.reason in ("too_fast", "fast_bursts"), verdict
    # Pausing now and then does not buy a quick game: its pauses count in its average.
    paced = ([3_000] + [450] * 12) * 8
    verdict = judge(T0, timeline(4000, paced), decisions(len(paced) + 1), Pace())
    assert not verdict.ok and verdict.reason == "too_fast", verdict
    # A planned run is still a person's: 0.2 s a move is not.
    quick = [*person(30), 9_000, *[200] * 14, *person(40, 5)]
    verdict = judge(T0, timeline(4000, quick), decisions(len(quick) + 1), Pace())
    assert not verdict.ok and verdict.reason == "fast_bursts", verdict

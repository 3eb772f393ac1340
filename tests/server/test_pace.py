"""The human pace rules (server/daily/pace.py) on server timestamps: each rule on its own,
its boundary, the rule that is off at 0, and the settings that set them."""

from __future__ import annotations

import random

import pytest

from server.app import pace_of
from server.daily.pace import PACE_REASONS, Pace, gaps, judge, presses
from server.settings import Settings

T0 = 1_780_000_000_000


def timeline(first_ms: int, steps: list[int]) -> list[int]:
    """Action times: the first ``first_ms`` after the reveal at T0, then each step after."""
    times = [T0 + first_ms]
    for step in steps:
        times.append(times[-1] + step)
    return times


def person(n: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(600, 1500) for _ in range(n)]


def test_a_person_keeps_the_pace() -> None:
    verdict = judge(T0, timeline(1800, person(78)), Pace())
    assert verdict.ok and verdict.reason == "ok"


def test_a_script_at_60_ms_an_action_is_too_fast() -> None:
    verdict = judge(T0, timeline(1800, [60] * 78), Pace())
    assert (verdict.ok, verdict.reason) == (False, "too_fast")
    assert "60 ms" in verdict.message and "300 ms" in verdict.message


def test_the_first_action_needs_time_to_see_the_board() -> None:
    assert judge(T0, timeline(499, person(10)), Pace()).reason == "fast_start"
    assert judge(T0, timeline(500, person(10)), Pace()).ok


def test_the_median_is_measured_not_the_mean() -> None:
    # Long pauses do not buy fast moves: half the gaps at 200 ms put the median there.
    steps = [200] * 40 + [5000] * 38
    assert judge(T0, timeline(1000, steps), Pace()).reason == "too_fast"
    assert judge(T0, timeline(1000, [300] * 40 + [5000] * 38), Pace()).ok


def test_a_few_bunched_actions_pass_and_many_do_not() -> None:
    slow = person(60)
    few = [50] * 15 + slow  # 15 of 75: a fifth, as a network can bunch a few
    assert judge(T0, timeline(1000, few), Pace()).ok
    many = [50] * 25 + slow  # 25 of 85: more than a quarter
    verdict = judge(T0, timeline(1000, many), Pace())
    assert (verdict.ok, verdict.reason) == (False, "fast_bursts")
    assert "25 of 85" in verdict.message


def test_a_rule_at_zero_is_off() -> None:
    assert judge(T0, timeline(0, [1] * 50), Pace.off()).ok
    assert not judge(T0, timeline(0, [1] * 50), Pace(read_ms=0, median_ms=0)).ok  # bursts
    assert judge(T0, [], Pace()).ok and judge(T0, [T0 + 600], Pace()).ok


def test_gaps_and_reasons() -> None:
    assert gaps([5, 7, 7, 20]) == [2, 0, 13]
    assert set(PACE_REASONS) == {"fast_start", "too_fast", "fast_bursts"}


def test_the_thresholds_are_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert pace_of(Settings()) == Pace()
    monkeypatch.setenv("SEAHAVEN_PACE_MEDIAN_MS", "75")
    monkeypatch.setenv("SEAHAVEN_PACE_FAST_SHARE", "0.1")
    assert pace_of(Settings()) == Pace(median_ms=75, fast_share=0.1)


def test_a_send_home_is_one_press() -> None:
    # A person's game whose last 20 actions are the taps of one send home, at one time.
    moves = ["col1 col2"] * 50
    taps = [f"tap col{i % 10 + 1}" for i in range(20)]
    times = timeline(1800, person(49))
    times += [times[-1] + 700] * 20
    actions = moves + taps
    assert judge(T0, times, Pace()).reason == "fast_bursts"  # 19 gaps of 0 ms, taken alone
    assert presses(actions, times) == times[:51]
    assert judge(T0, presses(actions, times), Pace()).ok
    # Only taps that end the game at its last time are one press.
    later = [*times[:-1], times[-1] + 1]
    assert presses(actions, later) == later
    assert presses([*actions[:-1], "col3 found"], times) == times
    assert presses(["col1 col2", "tap col3"], [5, 5]) == [5, 5]  # a tap alone: as it is
    assert presses(["tap col1", "tap col2"], [5, 5]) == [5]
    assert presses([], []) == []

"""Replay verification: honest records verify; every kind of forgery is refuted."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import (
    Board,
    Change,
    Delta,
    apply_delta,
    format_action,
    parse_action,
    parse_card,
    parse_location,
)
from server.records.replays import (
    MIN_MS_PER_ACTION,
    REFUTATIONS,
    Replay,
    ReplayFormatError,
    parse_log,
    replay_id,
    verify,
    view_json,
)
from tests.helpers.replay_support import edit, honest, solution, won_time

CODE = "SH1-C4-AAAAAAA"
HARD = "SH1-C1-AAAAAB4"


def test_an_honest_win_verifies() -> None:
    replay = honest(CODE)
    verdict = verify(replay)
    assert verdict.ok, verdict.message
    assert verdict.won and verdict.moves == len(replay.actions)
    assert replay.result.time_ms == 120 * (len(replay.actions) - 1)


def test_an_honest_race_win_counts_from_the_race_start() -> None:
    start = 1_780_000_000_000
    replay = honest(CODE, kind="race", start=start + 2500, race_started_at=start)
    assert verify(replay).ok
    assert replay.result.time_ms == 2500 + 120 * (len(replay.actions) - 1)


def test_undos_count_as_moves() -> None:
    moves = solution(CODE)
    with_undo = (moves[0], "undo", *moves)
    replay = honest(CODE, with_undo)
    verdict = verify(replay)
    assert verdict.ok, verdict.message
    assert replay.result.moves == len(moves) + 2


def test_an_unfinished_game_verifies_as_not_won() -> None:
    replay = honest(CODE, solution(CODE)[:10])
    verdict = verify(replay)
    assert verdict.ok and not verdict.won
    assert verify(edit(replay, result_won=True, result_time_ms=1080)).reason == "won_mismatch"


def test_a_hard_deal_verifies() -> None:
    assert verify(honest(HARD)).ok


# -- forgeries ----------------------------------------------------------------------------


def test_impossible_time_is_refused() -> None:
    # Every action 1 ms apart: the engine agrees with the claims, but no human plays so.
    replay = honest(CODE, step_ms=1)
    verdict = verify(replay)
    assert not verdict.ok and verdict.reason == "too_fast"
    # Exactly at the floor passes; one ms under it does not.
    n = len(replay.actions)
    at_floor = honest(CODE, step_ms=MIN_MS_PER_ACTION)
    assert verify(at_floor).ok
    times = list(at_floor.times_ms)
    times[-1] -= 1
    under = edit(at_floor, times_ms=tuple(times), result_time_ms=won_time(at_floor) - 1)
    assert verify(under).reason == "too_fast"
    assert n > 50


def test_a_claimed_time_that_is_not_the_timestamps_is_refused() -> None:
    replay = honest(CODE)
    forged = edit(replay, result_time_ms=won_time(replay) - 5000)
    assert verify(forged).reason == "time_mismatch"


def test_timestamps_going_backwards_are_refused() -> None:
    replay = honest(CODE)
    times = list(replay.times_ms)
    times[5], times[6] = times[6], times[5]
    assert verify(edit(replay, times_ms=tuple(times))).reason == "times_decrease"


def test_missing_timestamps_are_refused() -> None:
    replay = honest(CODE)
    assert verify(edit(replay, times_ms=replay.times_ms[:-1])).reason == "times_mismatch"


def test_a_daily_clock_starts_at_the_reveal_and_a_solo_clock_at_the_first_action() -> None:
    replay = honest(CODE)
    later = edit(
        replay, started_at=replay.started_at + 1000, result_time_ms=won_time(replay) - 1000
    )
    assert verify(later).reason == "clock_mismatch"
    race = edit(replay, kind="race", started_at=replay.times_ms[0] + 1)
    assert verify(race).reason == "clock_mismatch"
    # A daily game is clocked from its reveal, before its first action: that verifies, and
    # the time includes the seconds spent looking at the board.
    time_ms = replay.result.time_ms
    assert time_ms is not None
    revealed = edit(replay, started_at=replay.started_at - 4000, result_time_ms=time_ms + 4000)
    assert verify(revealed).ok
    assert verify(edit(revealed, result_time_ms=replay.result.time_ms)).reason == "time_mismatch"
    assert verify(edit(revealed, kind="solo")).reason == "clock_mismatch"


def test_the_physical_floor_is_measured_between_the_actions() -> None:
    # Waiting at the reveal buys no speed: 2 ms an action is too fast however long the wait.
    fast = honest(CODE, step_ms=2)
    waited = edit(fast, started_at=fast.started_at - 600_000)
    waited = edit(waited, result_time_ms=fast.times_ms[-1] - waited.started_at)
    assert verify(waited).reason == "too_fast"


def send_home_ending(code: str) -> tuple[str, ...]:
    """The solver's line up to the first board where every card left can go home, then the
    taps of the send home."""
    board = Board.from_code(code)
    actions: list[str] = []
    for text in solution(code):
        if board.can_send_home():
            break
        board.play(parse_action(text))
        actions.append(text)
    return (*actions, *(str(tap) for tap in board.send_home_taps()))


def test_a_send_home_counts_once_against_the_floor() -> None:
    actions = send_home_ending(CODE)
    taps = sum(1 for a in actions if a.startswith("tap "))
    assert taps > 5
    # The moves before at the floor exactly; the send home's taps at one server time.
    before = len(actions) - taps
    start = 1_780_000_000_000
    times = [start + i * MIN_MS_PER_ACTION for i in range(before)]
    times += [times[-1] + MIN_MS_PER_ACTION] * taps
    replay = honest(CODE, actions, times=tuple(times))
    assert verify(replay).ok, verify(replay).message
    # The same taps a millisecond apart are separate actions, each under the floor.
    spread = [*times[:before], *(times[before] + i for i in range(taps))]
    assert verify(honest(CODE, actions, times=tuple(spread))).reason == "too_fast"


def test_an_illegal_action_is_refused() -> None:
    replay = honest(CODE)
    board = Board.from_code(CODE)
    legal = {format_action(m) for m in board.legal_moves()}
    illegal = next(
        f"col{a} col{b}"
        for a in range(1, 11)
        for b in range(1, 11)
        if a != b and f"col{a} col{b}" not in legal
    )
    forged = edit(replay, actions=(illegal, *replay.actions[1:]))
    verdict = verify(forged)
    assert verdict.reason == "illegal_action"
    assert "action 1" in verdict.message


def test_bad_notation_is_refused() -> None:
    replay = honest(CODE)
    forged = edit(replay, actions=("col11 found", *replay.actions[1:]))
    assert verify(forged).reason == "bad_notation"


def test_an_edited_log_with_an_action_removed_is_refused() -> None:
    replay = honest(CODE)
    # Drop one action (and its timestamp): either a later action becomes illegal or the
    # game no longer ends won; never a verified win.
    for drop in (0, 10, len(replay.actions) - 1):
        actions = replay.actions[:drop] + replay.actions[drop + 1 :]
        times = replay.times_ms[: len(actions)]
        forged = edit(replay, actions=actions, times_ms=times, result_moves=len(actions))
        verdict = verify(forged)
        assert not verdict.ok
        assert verdict.reason in ("illegal_action", "won_mismatch")


def test_actions_after_the_win_are_refused() -> None:
    replay = honest(CODE)
    last = replay.actions[-1]
    undo_after = edit(
        replay,
        actions=(*replay.actions, "undo", last),
        times_ms=(*replay.times_ms, replay.times_ms[-1] + 100, replay.times_ms[-1] + 200),
        result_moves=replay.result.moves + 2,
        result_time_ms=won_time(replay) + 200,
    )
    assert verify(undo_after).reason == "after_win"


def test_claimed_moves_and_score_must_match() -> None:
    replay = honest(CODE)
    assert verify(edit(replay, result_moves=replay.result.moves - 1)).reason == "moves_mismatch"
    assert verify(edit(replay, result_score=replay.result.score + 10)).reason == "score_mismatch"


def test_a_different_deal_is_refused() -> None:
    replay = honest(CODE)
    assert not verify(edit(replay, code="SH1-C4-AAAAAAB")).ok
    assert verify(edit(replay, code="SH1-C9-AAAAAAA")).reason == "bad_code"
    assert verify(edit(replay, kind="tournament")).reason == "bad_kind"


def test_every_refutation_code_is_documented() -> None:
    reasons = {
        verify(edit(honest(CODE), result_moves=1)).reason,
        verify(honest(CODE, step_ms=1)).reason,
    }
    assert reasons <= set(REFUTATIONS)


# -- records ------------------------------------------------------------------------------


def test_records_round_trip_through_json() -> None:
    replay = honest(CODE, daily=("2026-03-01", "daily"))
    again = Replay.from_json(json.loads(json.dumps(replay.to_json())))
    assert again == replay


@pytest.mark.parametrize(
    "change",
    [
        {"actions": "col1 found"},
        {"times_ms": [1.5]},
        {"result": None},
        {"code": 7},
        {"result": {"won": True, "time_ms": "fast", "moves": 1, "score": 0}},
        {"result": {"won": 1, "time_ms": 5, "moves": 1, "score": 0}},
        {"daily": "today"},
    ],
)
def test_malformed_records_are_format_errors(change: dict[str, object]) -> None:
    data = honest(CODE).to_json()
    data.update(change)
    with pytest.raises(ReplayFormatError):
        Replay.from_json(data)


def test_the_view_has_what_a_rule_less_viewer_needs() -> None:
    replay = honest(CODE)
    view: dict[str, Any] = view_json(replay)  # read as a client reads the JSON
    assert view["verified"] == {"ok": True, "reason": "ok", "message": verify(replay).message}
    deltas = view["deltas"]
    assert isinstance(deltas, list) and len(deltas) == len(replay.actions)
    assert view["start"] == Board.from_code(CODE).to_json()
    assert view["elapsed_ms"][0] == 0
    # A viewer that knows no rules reaches the engine's table at every step.
    shown = Board.from_json(view["start"])
    board = Board.from_code(CODE)
    for text, delta in zip(replay.actions, deltas, strict=True):
        board.play(parse_action(text))
        apply_delta(shown, delta_of(delta))
        assert shown.key() == board.key() and shown.score == board.score
    assert shown.is_won()


def test_the_view_of_a_refuted_replay_still_has_its_steps() -> None:
    fast = honest(CODE, step_ms=1)
    view: dict[str, Any] = view_json(fast)
    assert view["verified"]["reason"] == "too_fast"
    assert len(view["deltas"]) == len(fast.actions)
    lenient: dict[str, Any] = view_json(fast, min_ms_per_action=1)
    assert lenient["verified"]["ok"] is True


def delta_of(data: dict[str, Any]) -> Delta:
    """A Delta from its JSON form, as a client would read it."""
    changes = tuple(
        Change(
            tuple(parse_card(c) for c in ch["cards"]),
            parse_location(ch["src"]),
            parse_location(ch["dst"]),
        )
        for ch in data["changes"]
    )
    return Delta(changes, int(data["points"]), int(data["score"]), bool(data["undo"]))


def test_replay_ids_are_stable_and_distinct() -> None:
    assert replay_id("ROOM1", 1, "p1") == replay_id("ROOM1", 1, "p1")
    assert len({replay_id("ROOM1", r, p) for r in range(5) for p in ("a", "b")}) == 10


def test_parse_log_reads_the_servers_log_entries() -> None:
    actions, times = parse_log(["1000\t1\tcol1 found", "1100\t2\tundo"])
    assert actions == ("col1 found", "undo") and times == (1000, 1100)


# -- properties ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**35 - 1), st.integers(0, 2**32), st.integers(1, 60))
def test_any_honest_record_of_random_play_verifies(deal: int, seed: int, length: int) -> None:
    """Random legal play, honestly recorded, always verifies; a wrong count never does."""
    rng = random.Random(seed)
    board = Board.deal(deal, rng.choice((4, 2, 1)))
    code = board.code or ""
    played: list[str] = []
    for _ in range(length):
        options = [format_action(m) for m in board.legal_moves()]
        if board.can_undo():
            options.append("undo")
        if not options:
            break
        text = rng.choice(options)
        board.play(parse_action(text))
        played.append(text)
    replay = honest(code, tuple(played))
    assert verify(replay).ok
    assert not verify(edit(replay, result_moves=replay.result.moves + 1)).ok

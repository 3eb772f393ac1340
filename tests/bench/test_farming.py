"""``bench/farming.py`` run small: one arena race of the farmer's noisy line against three
move/undo puppets, with the contest rule (no point, no fire, no podium: its target met)
and without it (``--control``: the farmer wins the race's points, the target missed), so
the benchmark is seen to tell a farmer from none; and the borrowed line (scenario c) with
the server's review at its defaults but its pace model, and the players' think times,
divided by 8: A's own line ranks, B's replay of it is held as borrowed."""

from __future__ import annotations

import pytest

from bench import farming
from server.settings import Settings

SMALL = ["--only", "a", "--races", "1", "--pace-ms", "40"]
#: Scenario c eight times quicker than a person, the server's pace model likewise.
QUICK_C = ["--pace-scale", "8", "--pace-ms", str(farming.PERSON_MS // 8), "--later-s", "2.5"]


@pytest.mark.slow
async def test_the_arena_puppets_earn_nothing_and_the_control_sees_a_farmer() -> None:
    for control, met in ((False, True), (True, False)):
        args = farming.parser().parse_args([*SMALL, *(["--control"] if control else [])])
        args.only = ["a"]
        (row,) = await farming.run_async(args)
        assert row["target_met"] is met, row
        assert row["on_podium"] is control, row


@pytest.mark.slow
async def test_a_borrowed_line_is_held_and_the_line_it_borrowed_ranks() -> None:
    args = farming.parser().parse_args(["--only", "c", *QUICK_C])
    args.only = ["c"]
    (row,) = await farming.run_async(args)
    assert row["on_ratings"] is False, row  # B: not ranked, not on the leaderboard
    high = Settings.model_fields["evidence_borrowed_high"].default
    assert row["b_held"] is True and row["b_borrowed"] >= high, row
    assert row["a_ranked"] is True, row
    assert row["target_met"] is True, row

"""``bench/farming.py`` run small: one arena race of the farmer's noisy line against three
move/undo puppets, with the contest rule (no point, no fire, no podium: its target met)
and without it (``--control``: the farmer wins the race's points, the target missed), so
the benchmark is seen to tell a farmer from none."""

from __future__ import annotations

import pytest

from bench import farming

SMALL = ["--only", "a", "--races", "1", "--pace-ms", "40"]


@pytest.mark.slow
async def test_the_arena_puppets_earn_nothing_and_the_control_sees_a_farmer() -> None:
    for control, met in ((False, True), (True, False)):
        args = farming.parser().parse_args([*SMALL, *(["--control"] if control else [])])
        args.only = ["a"]
        (row,) = await farming.run_async(args)
        assert row["target_met"] is met, row
        assert row["on_podium"] is control, row

"""A borrowed line is one that largely repeats ONE other identity's line of the deal: the
share is taken over all of the line's decisions, tables many reached counting for nothing."""

from __future__ import annotations

from server.fairplay.evidence import borrowed_share
from server.store.evidence import COMMON


def test_a_replayed_line_is_borrowed() -> None:
    decided = [f"t{i}" for i in range(40)]
    entries = [COMMON] * 4 + ["ann"] * 36  # A's own tables, B walks every one of them
    assert borrowed_share("bob", decided, entries, 20) == 0.9


def test_two_people_sharing_a_stretch_after_a_common_opening_are_not() -> None:
    # On a day many play, the opening is everyone's; two honest lines then share a stretch
    # nobody else took, and go their own ways.
    decided = [f"t{i}" for i in range(40)]
    entries = [COMMON] * 20 + ["ann"] * 10 + [None] * 10
    assert borrowed_share("bob", decided, entries, 20) == 0.25


def test_the_player_s_own_tables_and_short_lines() -> None:
    decided = [f"t{i}" for i in range(8)]
    assert borrowed_share("bob", decided, ["bob"] * 8, 20) == 0.0
    # Eight decisions, all on Ann's tables: counted over the least (20), not over eight.
    assert borrowed_share("bob", decided, ["ann,bob"] * 8, 20) == 0.4

"""The pure rules of contested results: who contested a race (progress, not actions:
:mod:`server.fairplay.contest`), what a repeated result against the same rival is worth, what
makes a player established (:class:`server.store.ratings.Bar`), and how provisional and
repeated rivals soften every racer's change (:func:`server.ranked.ratings.soften`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from server.engine import Board
from server.engine.solver import solve
from server.fairplay.contest import absent, field_worth, made, worth
from server.ranked.ratings import START, compute, forfeits, soften
from server.store.ratings import Bar, Skill

RULE = SimpleNamespace(
    contest_min_tables=20, contest_min_home=8, contest_min_s=60, contest_min_share=0.8
)
CODE = "SH1-C4-AAAAAJ2"


def standing(**racers: tuple[str, int, int, int]) -> dict[str, Any]:
    """A standing of racers ``name=(status, new tables, cards home, last new table s)``."""
    at = 1_000_000
    return {
        "started_at": at,
        "results": {p: {"status": s} for p, (s, _n, _h, _t) in racers.items()},
        "progress": {p: h for p, (_s, _n, h, _t) in racers.items()},
        "finished_at": {
            p: at + t * 1000 for p, (s, _n, _h, t) in racers.items() if s == "finished"
        },
        "last_at": {p: at + t * 1000 for p, (_s, _n, _h, t) in racers.items()},
        "made": {p: [n, h, at + t * 1000] for p, (_s, n, h, t) in racers.items()},
    }


def log(actions: list[str], every_ms: int = 1000) -> list[str]:
    """A board's log of ``actions``, one each ``every_ms`` from 0."""
    return [f"{i * every_ms}\t{i}\t{a}" for i, a in enumerate(actions)]


def test_a_finisher_always_contested_and_a_quick_quitter_never() -> None:
    found = standing(
        ann=("finished", 90, 52, 40),  # fast, but finishing is the race
        pup=("gave_up", 1, 0, 39),  # shuffled: one new table
        cy=("gave_up", 24, 2, 33),  # past 0.8 of the first finish (40 s < 60 s)
        dee=("gave_up", 12, 9, 35),  # few tables, but nine cards home
        eve=("gave_up", 50, 3, 15),  # played a share, then idled (last new table at 15 s)
    )
    assert absent(found, RULE) == {"pup", "eve"}


def test_without_a_finish_the_time_bar_is_the_settings() -> None:
    found = standing(ann=("gave_up", 40, 5, 59), bob=("gave_up", 40, 5, 61))
    assert absent(found, RULE) == {"ann"}
    off = SimpleNamespace(
        contest_min_tables=0, contest_min_home=0, contest_min_s=0, contest_min_share=0
    )
    assert absent(found, off) == set()


def test_a_standing_kept_before_the_rule_has_nobody_absent() -> None:
    found = standing(ann=("finished", 90, 52, 80), pup=("gave_up", 1, 0, 1))
    del found["last_at"]
    assert absent(found, RULE) == set()


def test_a_standing_kept_before_progress_is_read_by_cards_home() -> None:
    found = standing(
        ann=("finished", 90, 52, 80), pup=("gave_up", 40, 0, 81), bob=("gave_up", 0, 9, 70)
    )
    del found["made"]
    assert absent(found, RULE) == {"pup"}


def test_moves_and_their_undos_make_no_progress() -> None:
    line = list(solve(Board.from_code(CODE), timeout=20).moves)
    shuffle = [a for m in line[:1] for a in (m, "undo")] * 15
    assert made(CODE, log(shuffle)) == (0, 0, 0)
    # ... and one action after the first finish counts for nothing either.
    late = log([*shuffle, line[0]])
    assert made(CODE, late, until_ms=29_500) == (0, 0, 0)
    assert made(CODE, late)[0] == 1
    # The line itself: each move a new table, the last at its time.
    tables, home, at = made(CODE, log(line[:25]))
    assert tables == 25 and at == 24_000 and home >= 0
    # Undone, a move is no progress; played again, it counts once, when played again.
    again = made(CODE, log([*line[:10], "undo", "undo", *line[8:10]]))
    assert again[0] == 10 and again[2] == 13_000
    assert made(CODE, ["not a log line"]) == (0, 0, 0)


def test_a_card_moved_from_cell_to_cell_is_no_new_table() -> None:
    # The deal's cells 1 and 2 hold cards: one from col1 hops between cells 3 and 4.
    hops = ["col1 cell3", "cell3 cell4", "cell4 cell3", "cell3 cell4"]
    assert made(CODE, log(hops))[0] == 1


def test_repeated_results_are_worth_less_past_the_full_ones() -> None:
    assert [worth(k, 3) for k in (1, 3)] == [1.0, 1.0]
    assert worth(4, 3) == 0.75 and worth(30, 3) == 0.1 and worth(99, 0) == 1.0
    # Thirty wins over one rival add up to about full x (1 + ln(30 / full)), not 30.
    assert 9 < sum(worth(k, 3) for k in range(1, 31)) < 10
    assert field_worth({"a": 5, "b": 0}, ["a", "b"], 3) == (0.5 + 1.0) / 2
    assert field_worth({}, [], 3) == 1.0


def test_a_repeated_rival_softens_the_change() -> None:
    before = {"far": START, "pup": START}
    full = compute([("far", 1), ("pup", 2)], before)
    est = {"far": True, "pup": True}
    repeated = soften(full, before, est, 0.25, None, {"far": {"pup": 5}, "pup": {"far": 5}}, 3)
    gain = repeated["far"][0] - START.mu
    assert abs(gain - 0.5 * (full["far"][0] - START.mu)) < 1e-9  # the 6th: 3 / 6
    assert soften(full, before, est, 0.25, None, {"far": {"pup": 2}}, 3)["far"] == full["far"]


def test_established_needs_distinct_established_rivals_or_days() -> None:
    bar = Bar(games=10, days=3, rivals=3)
    assert not bar.met(100, 0, 2)  # a hundred races against puppets: provisional
    assert bar.met(10, 0, 3)
    assert not bar.met(9, 0, 5)
    assert bar.met(0, 3, 0)  # ranked dailies on three days
    assert not bar.met(100, 0)  # a record from before rivals were counted: 0 of them
    assert Bar(games=0, days=3, rivals=3).met(0, 0, 0)  # games 0: everyone established
    assert Bar(games=10, days=0).met(10, 0)  # rivals 0: the old rule


def test_a_win_over_provisional_rivals_is_small_for_everyone() -> None:
    before = {"far": START, "pup": START}
    full = compute([("far", 1), ("pup", 2)], before)
    soft = soften(full, before, {"far": False, "pup": False}, 0.25)
    gain = soft["far"][0] - START.mu
    assert abs(gain - 0.25 * (full["far"][0] - START.mu)) < 1e-9
    # Against an established rival, the change is the model's.
    hard = soften(full, before, {"far": False, "pup": True}, 0.25)
    assert hard["far"] == full["far"]


def test_the_absent_lose_alone_and_nobody_gains_from_them() -> None:
    before = {p: START for p in ("far", "p1", "p2")}
    rivals: dict[str, list[str]] = {}
    lost = forfeits({"p1", "p2"}, [("far", 1)], [("far", 1), ("p1", 2), ("p2", 2)], before, rivals)
    assert set(lost) == {"p1", "p2"} and all(mu < START.mu for mu, _s in lost.values())
    assert rivals == {"p1": ["far"], "p2": ["far"]}
    assert forfeits({"p1"}, [], [("p1", 1)], before, {}) == {}
    assert isinstance(START, Skill)


def test_with_the_rule_off_a_racer_without_a_table_contests() -> None:
    off = SimpleNamespace(
        contest_min_tables=0, contest_min_home=0, contest_min_s=0, contest_min_share=0.8
    )
    found = standing(ann=("finished", 90, 52, 80), cy=("gave_up", 0, 0, 0))
    found["made"]["cy"] = [0, 0, 0]  # no new table: made() says 0 for its time
    assert absent(found, off) == set()
    assert absent(found, RULE) == {"cy"}

"""The pure rules of issue 34: who contested a race (:mod:`server.ranked.contest`), what
makes a player established (:class:`server.store.ratings.Bar`), and how provisional rivals
soften every racer's change (:func:`server.ranked.ratings.soften`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from server.ranked.contest import absent
from server.ranked.ratings import START, compute, forfeits, soften
from server.store.ratings import Bar, Skill

RULE = SimpleNamespace(contest_min_actions=30, contest_min_home=8, contest_min_s=60)


def standing(**racers: tuple[str, int, int, int]) -> dict[str, Any]:
    """A standing of racers ``name=(status, actions, cards home, last action s)``."""
    return {
        "started_at": 1_000_000,
        "results": {p: {"status": s, "moves": n} for p, (s, n, _h, _t) in racers.items()},
        "progress": {p: h for p, (_s, _n, h, _t) in racers.items()},
        "finished_at": {
            p: 1_000_000 + t * 1000 for p, (s, _n, _h, t) in racers.items() if s == "finished"
        },
        "last_at": {p: 1_000_000 + t * 1000 for p, (_s, _n, _h, t) in racers.items()},
    }


def test_a_finisher_always_contested_and_a_quick_quitter_never() -> None:
    found = standing(
        ann=("finished", 90, 52, 40),  # fast, but finishing is the race
        pup=("gave_up", 14, 1, 10),
        cy=("gave_up", 31, 2, 45),  # past the first finish (40 s < 60 s)
        dee=("gave_up", 12, 9, 50),  # few actions, but nine cards home
        eve=("gave_up", 50, 3, 20),  # played a share, then idled (last action at 20 s)
    )
    assert absent(found, RULE) == {"pup", "eve"}


def test_without_a_finish_the_time_bar_is_the_settings() -> None:
    found = standing(ann=("gave_up", 40, 5, 59), bob=("gave_up", 40, 5, 61))
    assert absent(found, RULE) == {"ann"}
    off = SimpleNamespace(contest_min_actions=0, contest_min_home=0, contest_min_s=0)
    assert absent(found, off) == set()


def test_a_standing_kept_before_the_rule_has_nobody_absent() -> None:
    found = standing(ann=("finished", 90, 52, 80), pup=("gave_up", 1, 0, 1))
    del found["last_at"]
    assert absent(found, RULE) == set()


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

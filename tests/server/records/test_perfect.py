"""Perfect games and the fewest-actions board.

A finish is perfect when the deal's par is proven the fewest actions that win it and the
win took exactly that many; the server says so (``finished.perfect``, the results, the
snapshot, the player page), never the page. A par that is only a best line makes no claim.
The daily board's fewest-actions view ranks by actions, then time, under the daily's rules
(a held finish is on no view until an operator clears it). On the leaderboard over real
Redis, without a server; the server's word on each finish (``finished.perfect``, the
results, the player page): ``test_records_server.py``.
"""

from __future__ import annotations

from server.daily.leaderboard import Leaderboard, entry_of, fewest_score_of, score_of
from server.fairplay.holds import Holds
from server.pools import find, is_perfect
from tests.helpers.dailies import daily_deal
from tests.helpers.leaderboards import DATE, spaced, submit
from tests.helpers.leaderboards import play as daily_play
from tests.helpers.perfect import CODE, one_longer, shortest
from tests.helpers.replay_support import edit, honest


def test_is_perfect_only_with_a_proven_par_and_exactly_its_actions() -> None:
    # RULES.md, "Par and perfect games": exactly par actions of a proven par.
    assert is_perfect(69, 69, True)
    assert not is_perfect(70, 69, True)  # one action more
    assert not is_perfect(69, 69, False)  # a best line: a shorter win may exist
    assert not is_perfect(69, None, False)  # a deal of no pool
    entry = find(CODE)
    assert entry is not None and (entry.par, entry.optimal) == (69, True)
    assert len(shortest(CODE)) == 69
    assert len(one_longer(CODE, shortest(CODE))) == 70
    assert find("SH1-C4-ZZZZZZZ") is None and find("nonsense") is None


# -- the fewest-actions board ---------------------------------------------------------------


def test_fewest_scores_order_by_actions_then_time() -> None:
    assert fewest_score_of(10_000, 70) < fewest_score_of(5_000, 71)
    assert fewest_score_of(5_000, 70) < fewest_score_of(10_000, 70)
    assert score_of(5_000, 71) < score_of(10_000, 70)  # the fastest view: time first
    assert fewest_score_of(1 << 40, 1 << 20) < 2**53  # clamped, exact in a double


async def test_the_fewest_actions_view_orders_by_actions_then_time(lb: Leaderboard) -> None:
    quick = daily_play("quick", step_ms=150, undos=2)  # fastest, four actions more
    lean = daily_play("lean", step_ms=300)  # fewest actions, slowest
    brisk = daily_play("brisk", step_ms=200)  # fewest actions too, faster: before lean
    for replay in (lean, quick, brisk):
        assert (await submit(lb, replay)).status == "ranked"
    fastest = await lb.top(DATE, "daily", 10)
    fewest = await lb.top(DATE, "daily", 10, by="actions")
    assert [e["player_id"] for e in fastest] == ["quick", "brisk", "lean"]
    assert [e["player_id"] for e in fewest] == ["brisk", "lean", "quick"]
    assert [e["rank"] for e in fewest] == [1, 2, 3]
    assert await lb.rank(DATE, "daily", "quick", by="actions") == 3
    assert await lb.rank(DATE, "daily", "quick") == 1
    board = await lb.board_json(DATE, "daily", 1, around="lean", by="actions")
    assert board["by"] == "actions" and board["player"]["rank"] == 2
    assert [e["player_id"] for e in board["entries"]] == ["lean"]
    among = await lb.among(DATE, "daily", ["quick", "lean"], by="actions")
    assert [(e["player_id"], e["rank"]) for e in among] == [("lean", 2), ("quick", 3)]


async def test_a_held_finish_is_on_no_view_until_cleared(lb: Leaderboard) -> None:
    holds = Holds.on(lb.redis, lb.keys, 3600)
    lean = daily_play("lean", step_ms=300)
    assert (await submit(lb, lean)).status == "ranked"
    held = spaced(daily_play("held"), 10_000)  # fewest actions and fastest: would lead both
    await holds.reviews.hold(
        {
            "result": held.id,
            "kind": "daily",
            "room": held.room,
            "player_id": "held",
            "name": "HELD",
            "date": DATE,
            "daily_kind": "daily",
            "time_ms": held.result.time_ms,
            "moves": held.result.moves,
            "score": {},
            "entry": entry_of(held),
            "streak": True,
        }
    )
    for by in ("time", "actions"):
        board = await lb.board_json(DATE, "daily", 10, by=by)
        assert [e["player_id"] for e in board["entries"]] == ["lean"], by
        # Nobody finds it around its player either: it is not ranked.
        around = await lb.board_json(DATE, "daily", 10, around="held", by=by)
        assert around["player"]["rank"] is None and "held" not in str(around["entries"])
    assert (await holds.clear(held.id, "op")).status == "cleared"
    assert [e["player_id"] for e in await lb.top(DATE, "daily", 10, by="actions")] == [
        "held",
        "lean",
    ]
    await lb.remove(DATE, "daily", "held")  # as a void or a bar takes it off
    assert [e["player_id"] for e in await lb.top(DATE, "daily", 10, by="actions")] == ["lean"]


async def test_a_daily_entry_in_the_proven_par_is_perfect(lb: Leaderboard) -> None:
    deal = daily_deal(DATE)
    assert deal.optimal
    line = shortest(deal.code)
    assert len(line) == deal.par
    exact = honest(
        deal.code,
        line,
        step_ms=200,
        start=1_773_500_000_000,
        player_id="exact",
        name="EXACT",
        daily=(DATE, "daily"),
        replay_id="r-exact",
    )
    exact = edit(exact, room="R-exact")
    more = daily_play("more")  # the solver's line, longer than par
    assert len(more.actions) > deal.par
    for replay in (exact, more):
        assert (await submit(lb, replay)).status == "ranked"
    marks = {e["player_id"]: e["perfect"] for e in await lb.top(DATE, "daily", 10)}
    assert marks == {"exact": True, "more": False}
    assert (await lb.perfect.read("exact"))["daily"] == 1
    assert (await lb.perfect.read("more"))["total"] == 0
    # Taken off the board (a void), the perfect game is not counted any more.
    await lb.remove(DATE, "daily", "exact")
    assert (await lb.perfect.read("exact"))["daily"] == 0

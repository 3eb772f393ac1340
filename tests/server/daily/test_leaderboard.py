"""Daily leaderboards on the machine's Redis: ranking, one ranked attempt,
entries taken off and put back, forgeries refused.

Every test uses its own key prefix, so tests share the Redis safely and never flush it. The
pace is the review's (:mod:`tests.server.review.test_review`), not the leaderboard's: the scripted
games here rank.
"""

from __future__ import annotations

import datetime as dt
import secrets

import redis
from hypothesis import given, settings
from hypothesis import strategies as st

from server.daily.deal import KINDS
from server.daily.leaderboard import MAX_MOVES, MAX_TIME_MS, Leaderboard, member_of, score_of
from server.records.replays import Replay
from server.store.ratings import Bar
from tests.helpers.dailies import daily_deal
from tests.helpers.leaderboards import DATE, T0, code_of, play, spaced, submit
from tests.helpers.replay_support import edit, honest, solution
from tests.helpers.serverproc import decoded, redis_url


async def test_ranking_is_time_then_moves_then_earlier_finish(lb: Leaderboard) -> None:
    slow = play("slow", step_ms=300)
    fast = play("fast", step_ms=150)
    # Same time as "mid" but two more moves: ranks after it.
    mid = spaced(play("mid"), 20_000)
    mid_more = spaced(play("midmore", undos=1), 20_000)
    # Same time and moves as "mid", finished 5 s later (started later): after "mid".
    mid_late = spaced(play("midlate", start=T0 + 5000), 20_000)
    for replay in (slow, mid_late, mid_more, fast, mid):
        result = await submit(lb, replay)
        assert result.status == "ranked", result.message
    top = await lb.top(DATE, "daily", 10)
    assert [e["player_id"] for e in top] == ["fast", "mid", "midlate", "midmore", "slow"]
    assert [e["rank"] for e in top] == [1, 2, 3, 4, 5]
    assert top[0] == {
        "rank": 1,
        "player_id": "fast",
        "name": "FAST",
        "time_ms": fast.result.time_ms,
        "moves": fast.result.moves,
        "perfect": False,  # the solver's line, longer than the day's proven par
        "new": False,  # no bar here: everyone is established
        "replay_id": fast.id,
    }
    assert await lb.finishers(DATE, "daily") == 5
    assert await lb.rank(DATE, "daily", "midmore") == 4
    assert await lb.rank(DATE, "daily", "nobody") is None


async def test_only_the_ranked_attempt_is_ranked(lb: Leaderboard) -> None:
    first = play("ann", step_ms=400)
    # The first game Ann began is her ranked attempt, claimed when its deal was revealed.
    assert await lb.claim_attempt(DATE, "daily", "ann", str(first.room)) == first.room
    # A later game, begun after it, is practice: it does not rank even when won first.
    faster = edit(play("ann", step_ms=100, start=T0 + 60_000), id="r-second")
    assert await lb.claim_attempt(DATE, "daily", "ann", str(faster.room)) == first.room
    second = await lb.submit(faster)
    assert (second.status, second.reason) == ("not_ranked", "practice")
    assert await lb.finishers(DATE, "daily") == 0
    assert (await lb.submit(first)).status == "ranked"
    top = await lb.top(DATE, "daily", 10)
    assert len(top) == 1 and top[0]["time_ms"] == first.result.time_ms
    assert top[0]["replay_id"] == first.id
    # A game with no room (not played on a server) is never anyone's ranked attempt.
    assert (await lb.submit(edit(play("bob"), room=None))).reason == "practice"
    # The hard challenge of the same day is a separate leaderboard.
    assert (await submit(lb, play("ann", kind="hard"))).status == "ranked"
    assert await lb.attempt(DATE, "hard", "ann") == play("ann", kind="hard").room


async def test_top_around_and_finishers(lb: Leaderboard) -> None:
    for i in range(12):
        assert (await submit(lb, play(f"p{i:02d}", step_ms=100 + 10 * i))).status == "ranked"
    assert [e["player_id"] for e in await lb.top(DATE, "daily", 3)] == ["p00", "p01", "p02"]
    around = await lb.around(DATE, "daily", "p06", 5)
    assert [e["rank"] for e in around] == [5, 6, 7, 8, 9]
    assert around[2]["player_id"] == "p06"
    # At the ends the window slides instead of shrinking.
    assert [e["rank"] for e in await lb.around(DATE, "daily", "p00", 5)] == [1, 2, 3, 4, 5]
    assert [e["rank"] for e in await lb.around(DATE, "daily", "p11", 5)] == [8, 9, 10, 11, 12]
    assert await lb.around(DATE, "daily", "ghost", 5) == []
    body = await lb.board_json(DATE, "daily", 3, around="p06")
    assert body["finishers"] == 12
    assert [e["rank"] for e in body["entries"]] == [6, 7, 8]  # p06 is 7th: centred on it
    assert body["player"] == {"player_id": "p06", "rank": 7, "streak": 1, "provisional": False}
    plain = await lb.board_json(DATE, "daily", 2)
    assert set(plain) == {"date", "kind", "by", "finishers", "entries"}


async def test_streak_counts_consecutive_days(lb: Leaderboard) -> None:
    days = ["2026-03-10", "2026-03-11", "2026-03-12", "2026-03-14"]
    for day in days:
        start = int(dt.datetime.fromisoformat(day + "T10:00:00+00:00").timestamp() * 1000)
        assert (await submit(lb, play("ann", date=day, start=start))).status == "ranked"
    assert await lb.streak("ann", "2026-03-12") == 3
    assert await lb.streak("ann", "2026-03-13") == 3  # the 13th is not over yet
    assert await lb.streak("ann", "2026-03-14") == 1
    assert await lb.streak("ann", "2026-03-16") == 0
    assert await lb.streak("bob", "2026-03-14") == 0
    # The 13th played on the 14th is kept but not ranked, and makes no streak.
    late = play("ann", date="2026-03-13", start=T0)
    assert (await submit(lb, late)).reason == "after_day"
    assert await lb.finishers("2026-03-13", "daily") == 0
    assert await lb.streak("ann", "2026-03-14") == 1


# -- forged entries are refused and write nothing ------------------------------------------


async def clear(lb: Leaderboard) -> None:
    """Empty the day's leaderboard."""
    keys = lb.keys
    await lb.redis.delete(
        keys.leaderboard_rank(DATE, "daily"), keys.leaderboard_entries(DATE, "daily")
    )


async def assert_refused(
    lb: Leaderboard, replay: Replay, reason: str, status: str = "refused"
) -> None:
    result = await submit(lb, replay)
    assert result.status == status, result
    assert result.reason == reason, result.message
    assert await lb.finishers(DATE, "daily") == 0
    assert await lb.redis.hlen(lb.keys.leaderboard_entries(DATE, "daily")) == 0


async def test_an_impossible_time_is_refused(lb: Leaderboard) -> None:
    await assert_refused(lb, play("bot", step_ms=2), "too_fast")


async def test_a_claimed_time_not_matching_the_timestamps_is_refused(lb: Leaderboard) -> None:
    honest_win = play("liar")
    await assert_refused(lb, edit(honest_win, result_time_ms=1000), "time_mismatch")


async def test_an_illegal_log_is_refused(lb: Leaderboard) -> None:
    win = play("cheat")
    actions = list(win.actions)
    actions[0] = "col1 found" if actions[0] != "col1 found" else "col2 found"
    await assert_refused(lb, edit(win, actions=tuple(actions)), "illegal_action")


async def test_an_edited_log_is_refused(lb: Leaderboard) -> None:
    win = play("cut")
    # Remove a stretch of actions and claim the shorter count: the game is no longer won.
    actions = win.actions[:20] + win.actions[30:]
    forged = edit(win, actions=actions, times_ms=win.times_ms[: len(actions)])
    forged = edit(forged, result_moves=len(actions))
    result = await submit(lb, forged)
    assert result.status == "refused" and result.reason in ("illegal_action", "won_mismatch")
    assert await lb.finishers(DATE, "daily") == 0


async def test_a_claimed_result_that_does_not_match_is_refused(lb: Leaderboard) -> None:
    win = play("boast")
    await assert_refused(lb, edit(win, result_moves=win.result.moves - 10), "moves_mismatch")
    await assert_refused(lb, edit(win, result_score=9999), "score_mismatch")


async def test_another_deal_is_refused(lb: Leaderboard) -> None:
    other_day = "2026-03-15"
    other = play("swap", date=other_day)
    forged = edit(other, daily_date=DATE)
    assert code_of(other_day) != code_of(DATE)
    await assert_refused(lb, forged, "wrong_deal")


async def test_a_future_day_and_a_non_daily_game_are_refused(lb: Leaderboard) -> None:
    win = play("early")
    future = (dt.datetime.now(dt.UTC).date() + dt.timedelta(days=2)).isoformat()
    await assert_refused(lb, edit(win, daily_date=future), "future_date")
    await assert_refused(lb, edit(win, kind="solo"), "not_daily")


async def test_a_game_begun_before_its_day_or_ending_in_the_future_is_refused(
    lb: Leaderboard,
) -> None:
    day_start = 1_773_446_400_000  # 2026-03-14T00:00:00Z
    await assert_refused(lb, play("early", start=day_start - 1000), "before_day")
    assert (await submit(lb, play("midnight", start=day_start))).status == "ranked"
    await clear(lb)
    # Begun after the day ended: not ranked, however honest (the deal could be studied).
    await assert_refused(lb, play("late", start=day_start + 86_400_000), "after_day", "not_ranked")
    # Begun on the day but won after it: not ranked (its day's replays are public by then).
    await assert_refused(
        lb, play("over", start=day_start + 86_399_000), "late_finish", "not_ranked"
    )
    assert (await submit(lb, play("last", start=day_start + 86_340_000))).status == "ranked"
    await clear(lb)
    now = dt.datetime.now(dt.UTC)
    far = int((now + dt.timedelta(minutes=10)).timestamp() * 1000)
    today_iso = now.date().isoformat()
    for kind in KINDS:
        await lb.deals.store(daily_deal(today_iso, kind))
    if (now + dt.timedelta(minutes=30)).date() == now.date():  # not across midnight
        await assert_refused(lb, play("later", date=today_iso, start=far), "future_time")


async def test_an_unfinished_game_is_not_ranked(lb: Leaderboard) -> None:
    code = code_of()
    partial = honest(code, solution(code)[:30], daily=(DATE, "daily"), player_id="quit")
    partial = edit(partial, room="R-quit")
    await assert_refused(lb, partial, "not_won")


async def test_a_finish_is_checked_apart_from_its_entry(lb: Leaderboard) -> None:
    # The server reviews a finish between check() and enter() (server/ranked/finish.py):
    # nothing is written before the review says so.
    win = play("ann")
    assert win.room is not None
    await lb.claim_attempt(DATE, "daily", "ann", win.room)
    assert (await lb.check(win)).status == "eligible"
    assert await lb.finishers(DATE, "daily") == 0
    assert (await lb.enter(win)).status == "ranked"
    assert (await lb.enter(win)).reason == "practice"  # the entry of the day is written


async def test_an_entry_taken_off_recounts_the_streak_day(lb: Leaderboard) -> None:
    await submit(lb, play("ann"))
    await submit(lb, play("ann", kind="hard"))
    await submit(lb, play("bob"))
    assert await lb.days_of("ann") == [DATE]
    taken = await lb.remove(DATE, "daily", "ann")
    assert taken is not None and taken["replay_id"] == f"r-ann-{DATE}" and taken["streak"]
    assert await lb.days_of("ann") == [DATE]  # the hard finish still counts the day
    assert await lb.remove(DATE, "hard", "ann") is not None
    assert await lb.days_of("ann") == []
    assert await lb.remove(DATE, "hard", "ann") is None
    assert [e["player_id"] for e in await lb.top(DATE, "daily", 5)] == ["bob"]
    # Put back, it ranks where its time puts it, with its streak day.
    assert (await lb.write(DATE, "daily", taken, True)).status == "ranked"
    assert await lb.days_of("ann") == [DATE]


def test_scores_are_exact_in_a_double() -> None:
    biggest = score_of(MAX_TIME_MS, MAX_MOVES)
    assert biggest < 2**53 and float(biggest) == biggest
    assert score_of(1000, 5) < score_of(1000, 6) < score_of(1001, 0)
    assert score_of(MAX_TIME_MS + 10, MAX_MOVES + 10) == biggest


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, MAX_TIME_MS),
            st.integers(0, MAX_MOVES),
            st.integers(1_700_000_000_000, 1_900_000_000_000),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_redis_orders_entries_by_time_then_moves_then_finish(
    rows: list[tuple[int, int, int]],
) -> None:
    """The score and member encoding, sorted by Redis itself, is the ranking rule."""
    client = redis.Redis.from_url(redis_url(), decode_responses=True)
    key = f"test:lb:order:{secrets.token_hex(6)}"
    try:
        entries = {member_of(fin, f"p{i}"): score_of(t, m) for i, (t, m, fin) in enumerate(rows)}
        client.zadd(key, entries)
        got = [m.split(":", 1)[1] for m in decoded(client.zrange(key, 0, -1))]
        expected = sorted(
            range(len(rows)), key=lambda i: (rows[i][0], rows[i][1], rows[i][2], f"p{i}")
        )
        assert got == [f"p{i}" for i in expected]
    finally:
        client.delete(key)
        client.close()


async def test_newcomers_are_listed_from_their_first_day_marked_new(lb: Leaderboard) -> None:
    # 45 finishers, of whom only p25..p29 and p44 are established (10 rated races).
    lb.bar = Bar(games=10, days=2)
    for i in range(45):
        pid = f"p{i:02d}"
        entry = {
            "player_id": pid,
            "name": pid,
            "time_ms": 100_000 + i,
            "moves": 90,
            "replay_id": f"r{i}",
            "finished_at": T0 + i,
            "member": member_of(T0 + i, pid),
        }
        assert (await lb.write(DATE, "daily", entry, True)).status == "ranked"
        if 25 <= i <= 29 or i == 44:
            await lb.redis.hset(lb.keys.rating(pid, 4), "games", 10)
    # Everyone is listed, ranks are places with no gap, newcomers marked new.
    top = await lb.top(DATE, "daily", 5)
    assert [(e["player_id"], e["rank"], e["new"]) for e in top] == [
        (f"p{i:02d}", i + 1, True) for i in range(5)
    ]
    around = await lb.board_json(DATE, "daily", 5, around="p27")
    assert around["player"]["provisional"] is False
    assert [(e["player_id"], e["new"]) for e in around["entries"]] == [
        ("p25", False),
        ("p26", False),
        ("p27", False),
        ("p28", False),
        ("p29", False),
    ]
    mine = await lb.board_json(DATE, "daily", 3, around="p10")
    assert mine["player"]["provisional"] is True and mine["player"]["rank"] == 11
    assert [e["rank"] for e in mine["entries"]] == [10, 11, 12]
    # The Friends view lists every followed player, new or not.
    friends = await lb.among(DATE, "daily", ["p03", "p26", "p44"], owner="p03")
    assert [(e["player_id"], e["new"]) for e in friends] == [
        ("p03", True),
        ("p26", False),
        ("p44", False),
    ]
    assert [e["player_id"] for e in await lb.among(DATE, "daily", ["p03", "p26"])] == ["p03", "p26"]
    # Only a finish ahead of the leader would lead.
    assert await lb.would_lead(DATE, "daily", 99_999, 90)
    assert not await lb.would_lead(DATE, "daily", 100_000, 90)
    assert await lb.would_lead("2001-01-01", "daily", 500_000, 200)  # an empty board

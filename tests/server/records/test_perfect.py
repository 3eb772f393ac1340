"""Perfect games and the fewest-actions board.

A finish is perfect when the deal's par is proven the fewest actions that win it and the
win took exactly that many; the server says so (``finished.perfect``, the results, the
snapshot, the player page), never the page. A par that is only a best line makes no claim.
The daily board's fewest-actions view ranks by actions, then time, under the daily's rules
(a held finish is on no view until an operator clears it). On a real server, real sockets
and real Redis, and on the leaderboard over real Redis.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

import redis as redis_sync

from server.daily.leaderboard import Leaderboard, entry_of, fewest_score_of, score_of
from server.fairplay.holds import Holds
from server.pools import find, is_perfect
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import daily_server, get, play, start_daily, wait_for
from tests.helpers.leaderboards import DATE, spaced, submit
from tests.helpers.leaderboards import play as daily_play
from tests.helpers.perfect import CODE, one_longer, shortest
from tests.helpers.replay_support import edit, honest
from tests.helpers.serverproc import FAST, REVIEW_OFF, WsClient, http_request, redis_url
from tests.helpers.waits import until


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


def plant_deal(prefix: str, date: str, *, optimal: bool) -> None:
    """A past day whose daily deal is deal 1, its par 69, proven or only a best line."""
    deal = dataclasses.replace(daily_deal(date), code=CODE, par=69, optimal=optimal)
    client = redis_sync.Redis.from_url(redis_url(), decode_responses=True)
    client.set(Keys(prefix).daily_deal(date, "daily"), deal.to_json(), ex=3600)
    client.close()


async def finish(client: WsClient, line: tuple[str, ...]) -> dict[str, Any]:
    await play(client, line, pace=0)
    return await client.expect("finished", player_id=client.player_id, timeout=10)


async def test_a_perfect_finish_is_marked_and_one_action_more_is_not() -> None:
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    best, longer = shortest(CODE), one_longer(CODE, shortest(CODE))
    plant_deal(prefix, "2026-03-10", optimal=True)
    plant_deal(prefix, "2026-03-11", optimal=False)
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        # A solo game on a pool deal of proven par, won in exactly par actions: perfect.
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is True
        over = await ann.expect("race_over")
        assert (over["par"], over["par_optimal"]) == (69, True)
        assert [r["perfect"] for r in over["results"]] == [True]
        mine = f"{srv.http_url}/api/player/{ann.player_id}"
        await until(lambda: http_request(mine, token=ann.token)[1]["perfect"]["solo"] == 1)
        own = http_request(mine, token=ann.token)[1]["perfect"]
        assert own == {"race": 0, "solo": 1, "daily": 0, "unrated": 0, "total": 1}
        # Issue 34: a solo game proves nothing (a solver's line typed in): its own count.
        status, body = get(srv, f"/api/player/{ann.player_id}")
        assert status == 200 and body["perfect"] == {"race": 0, "daily": 0, "total": 0}
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # The same deal won in one action more: no claim.
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        done = await finish(ann, longer)
        assert done["moves"] == 70 and done["perfect"] is False
        over = await ann.expect("race_over", round=1, timeout=10)
        assert [r["perfect"] for r in over["results"]] == [False]
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # RULES.md, "Par and perfect games": the same deal won in par actions after a hint is
        # not perfect (and the player page's count stays at one).
        await ann.send({"type": "solo", "code": CODE})
        await ann.expect("snapshot")
        await ann.send({"type": "hint", "id": 900})
        assert (await ann.expect("hint", id=900, timeout=20))["status"] == "move"
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is False
        over = await ann.expect("race_over", round=1, timeout=10)
        assert [r["perfect"] for r in over["results"]] == [False]
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # A daily deal of proven par 69: perfect in 69 actions, not in 70.
        snap = await start_daily(ann, date="2026-03-10")
        assert (snap["par"], snap["par_optimal"]) == (69, True)
        assert (await finish(ann, best))["perfect"] is True
        await ann.send({"type": "leave"})
        await ann.expect("left")
        await start_daily(ann, date="2026-03-10")
        assert (await finish(ann, longer))["perfect"] is False
        await ann.send({"type": "leave"})
        await ann.expect("left")
        # A par that is only a best line: 69 actions make no perfect claim.
        snap = await start_daily(ann, date="2026-03-11")
        assert (snap["par"], snap["par_optimal"]) == (69, False)
        done = await finish(ann, best)
        assert done["moves"] == 69 and done["perfect"] is False
        # Only the first solo game counted: the dailies were practice, the rest not perfect.
        status, body = http_request(f"{srv.http_url}/api/player/{ann.player_id}", token=ann.token)
        assert status == 200 and body["perfect"]["total"] == 1
        await ann.close()


def race_counted(page: dict[str, Any], mode: str = "race") -> bool:
    """Whether a player page shows one perfect race (of ``mode``) and its entry. The page
    reads the history before the perfect counts while a finish writes them the other way
    about: a read between the two writes can show the count without the entry."""
    return bool(page["perfect"].get(mode) == 1 and page["recent"])


async def test_a_race_result_says_the_par_and_who_was_perfect() -> None:
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        await ann.send({"type": "create_room", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await bob.send({"type": "join", "room": room})
        await bob.expect("snapshot")
        await ann.send({"type": "start"})
        await ann.expect("started", timeout=10)
        await bob.expect("started", timeout=10)
        done = await finish(ann, shortest(CODE))
        assert done["perfect"] is True
        # Bob, still racing, hears Ann's finish as it is; not the par (the round runs).
        seen = await bob.expect("finished", player_id=ann.player_id)
        assert seen["perfect"] is True
        await bob.send({"type": "give_up"})
        over = await bob.expect("race_over", timeout=10)
        assert (over["par"], over["par_optimal"]) == (69, True)
        assert {r["name"]: (r["moves"], r["perfect"]) for r in over["results"]} == {
            "Ann": (69, True),
            "Bob": (0, False),
        }
        # An unrated race is not reviewed: its perfect game is its player's own count.
        mine = f"{srv.http_url}/api/player/{ann.player_id}"
        await until(lambda: race_counted(http_request(mine, token=ann.token)[1], "unrated"))
        status, body = get(srv, f"/api/player/{ann.player_id}")
        assert body["recent"][0]["perfect"] is True and body["perfect"]["total"] == 0
        status, bob_page = get(srv, f"/api/player/{bob.player_id}")
        assert status == 200 and bob_page["perfect"]["total"] == 0
        # A view the server does not rank is refused, over the socket and over HTTP.
        await bob.send({"type": "watch_leaderboard", "date": "2026-03-14", "by": "luck"})
        assert (await bob.expect("error"))["code"] == "invalid_message"
        status, refused = get(srv, "/api/daily/2026-03-14/leaderboard?by=luck")
        assert status == 400 and refused["error"] == "bad_by"
        await ann.close()
        await bob.close()


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


async def test_a_rated_races_perfect_win_counts_once_its_round_settles() -> None:
    # A rated race's history is written when its round settles (after the review), not at
    # the finish: the perfect mark and count must come with it.
    prefix = f"test:perfect:{secrets.token_hex(6)}:"
    args = [*FAST, *REVIEW_OFF, "--rated-min-actions", "0", "--provisional-games", "0"]
    with daily_server(prefix, args) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        await ann.send({"type": "create_room", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        await bob.send({"type": "join", "room": room})
        await bob.expect("snapshot")
        await ann.send({"type": "rated", "rated": True})
        await bob.expect("room", rated=True)
        await ann.send({"type": "start"})
        await ann.expect("started", timeout=10)
        await bob.expect("started", timeout=10)
        assert (await finish(ann, shortest(CODE)))["perfect"] is True
        await bob.send({"type": "give_up"})
        await ann.expect("ratings", timeout=10)
        body = await wait_for(srv, f"/api/player/{ann.player_id}", race_counted)
        assert body["recent"][0]["perfect"] is True and body["perfect"]["total"] == 1
        await ann.close()
        await bob.close()

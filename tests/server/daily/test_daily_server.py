"""The daily challenge on real server processes, real sockets and the machine's Redis.

The servers share a unique key prefix for the daily keys (``SEAHAVEN_KEY_PREFIX``), so runs
never see each other's leaderboards. The physical floor is lowered to 20 ms per action and
the review is off (the pace model, and no line solver-like enough to hold), so that a test
player (25 ms between actions, the solver's line) is ranked in about two seconds, while a
player with no pause at all is refused; the review and the other fair-play rules are tested
in :mod:`tests.server.daily.test_daily_fair` and :mod:`tests.server.review.test_review_server`.
What a won daily game counts for (ranked, pending review, held, unreviewed, barred,
practice, under the floor, a past day's) is decided without a server in
:mod:`tests.server.ranked.test_finish_decisions`; here, the journeys through the sockets, and
the finisher who hears "won, pending review" at once while the solver is paused, and the
newcomers on the board: a provisional finisher ranked and listed to everyone, marked
``new``, in the pushes, the top, anyone's ``around`` and Friends view (its token, the follow
list private), with no gap in the ranks, while a fresh identity that would lead the day is
held (every new leader's evidence counts as unusual there: the threshold at 0).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.daily.deal import daily_json, today
from server.engine import Board
from server.records.replays import replay_id
from server.store.keys import Keys
from tests.helpers.cli import run_seahaven
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import (
    ENV,
    ESTABLISHED,
    PACE,
    PAST,
    PREFIX,
    daily_server,
    get,
    line_of,
    play,
    start_daily,
    wait_for,
    wire,
)
from tests.helpers.fairplay_lines import own_line
from tests.helpers.serverproc import FAST, ServerProc, WsClient, redis_url, running_server
from tests.helpers.solver_procs import paused_solver


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProc]:
    with daily_server(PREFIX) as (srv, _env):
        yield srv


@dataclass
class Today:
    """A server with leaderboards of its own, today's daily deal and a winning line of it."""

    server: ServerProc
    env: dict[str, str]
    date: str
    code: str
    line: tuple[str, ...]


@pytest.fixture
def fresh() -> Iterator[Today]:
    """For tests that rank games of today: nobody else's finishes on these leaderboards."""
    with daily_server(f"test:daily:{secrets.token_hex(6)}:") as (srv, env):
        date = today().isoformat()
        code = daily_deal(date).code
        yield Today(srv, env, date, code, line_of(code))


# -- the daily deal over HTTP ---------------------------------------------------------------


def test_get_daily_today_and_past_days(server: ServerProc) -> None:
    status, body = get(server, "/api/daily")
    assert status == 200
    day = today().isoformat()
    assert body == daily_json(daily_deal(day), daily_deal(day, "hard")) and body["date"] == day
    assert "code" not in body and body["running"] is True  # revealed by starting it
    status, past = get(server, f"/api/daily/{PAST}")
    expected = daily_json(daily_deal(PAST), daily_deal(PAST, "hard"))
    assert status == 200 and past == expected and past["running"] is False
    assert past["code"].startswith("SH1-C4-") and past["hard"]["code"].startswith("SH1-C1-")


@pytest.mark.parametrize(
    "date,status,error",
    [
        ("2999-01-01", 404, "future_date"),
        ("2026-02-30", 400, "bad_date"),
        ("2020-01-01", 400, "bad_date"),
    ],
)
def test_get_daily_refuses_days_without_a_challenge(
    server: ServerProc, date: str, status: int, error: str
) -> None:
    got, body = get(server, f"/api/daily/{date}")
    assert got == status and body["error"] == error
    got, body = get(server, f"/api/daily/{date}/leaderboard")
    assert got == status and body["error"] == error


def test_the_daily_is_the_same_on_other_instances_and_after_a_restart(server: ServerProc) -> None:
    dates = [PAST, today().isoformat()]
    first = [get(server, f"/api/daily/{d}")[1] for d in dates]
    with running_server(redis_url(), args=FAST, env=ENV) as other:
        assert [get(other, f"/api/daily/{d}")[1] for d in dates] == first
    with running_server(redis_url(), args=FAST, env=ENV) as restarted:
        assert [get(restarted, f"/api/daily/{d}")[1] for d in dates] == first


def test_leaderboard_parameters_are_checked(server: ServerProc) -> None:
    assert get(server, f"/api/daily/{PAST}/leaderboard?limit=0")[0] == 400
    assert get(server, f"/api/daily/{PAST}/leaderboard?limit=x")[0] == 400
    assert get(server, f"/api/daily/{PAST}/leaderboard?kind=easy")[0] == 400
    assert get(server, "/api/replay/nosuchreplay")[0] == 404


# -- playing it -----------------------------------------------------------------------------


@pytest.mark.slow
async def test_a_daily_win_is_ranked_once_and_its_replay_verifies(
    fresh: Today,
) -> None:
    server, date, code, line = fresh.server, fresh.date, fresh.code, fresh.line
    ann = await WsClient.connect(server.ws_url, "ann")
    snap = await start_daily(ann, date=date)
    assert snap["code"] == code and snap["cells"] == 4
    room = str(snap["room_id"])

    # One take-back on the way: it is allowed and counted.
    await play(ann, (line[0], "undo", *line))
    fin = await ann.expect("finished", player_id=ann.player_id)
    assert fin["moves"] == len(line) + 2
    path = f"/api/daily/{date}/leaderboard?limit=10&around={ann.player_id}"
    board = await wait_for(server, path, lambda b: b["finishers"] == 1)
    entry = board["entries"][0]
    assert entry["player_id"] == ann.player_id and entry["name"] == "ann"
    assert (entry["rank"], entry["time_ms"], entry["moves"]) == (1, fin["time_ms"], fin["moves"])
    assert board["player"] == {
        "player_id": ann.player_id,
        "rank": 1,
        "streak": 1,
        "provisional": False,
    }
    assert "replay_id" not in entry  # private while the day runs
    rid = replay_id(room, 1, ann.player_id)

    # The replay holds what a viewer needs, and its player can verify it from its URL
    # (anyone can, once the day is over).
    assert get(server, f"/api/replay/{rid}")[0] == 404
    status, replay = get(server, f"/api/replay/{rid}", ann.token)
    assert status == 200
    assert replay["kind"] == "daily" and replay["code"] == code
    assert replay["daily"] == {"date": date, "kind": "daily"}
    assert replay["actions"] == [line[0], "undo", *line]
    assert len(replay["times_ms"]) == len(replay["deltas"]) == len(line) + 2
    assert replay["result"]["time_ms"] == fin["time_ms"] and replay["result"]["won"]
    assert replay["start"] == Board.from_code(code).to_json()
    assert replay["verified"]["ok"] is True
    url = f"{server.http_url}/api/replay/{rid}"
    out = run_seahaven("verify", url, "--min-ms-per-action", "20", "--token", ann.token)
    assert out.returncode == 0, out.stdout + out.stderr
    # The day's code is the deployment's secret until the day ends: not checked yet.
    assert "VERIFIED" in out.stdout and f"{date} is still running" in out.stdout

    # The player page shows today's result; its replay id is its player's alone while the
    # day runs (the history's rules: tests/server/daily/test_player_daily.py).
    status, page = get(server, f"/api/player/{ann.player_id}")
    shown = page["daily"]["results"][-1]
    assert status == 200 and (shown["date"], shown["rank"]) == (date, 1)
    assert "replay_id" not in shown and page["streak"] == 1
    _, own = get(server, f"/api/player/{ann.player_id}", ann.token)
    assert own["daily"]["results"][-1]["replay_id"] == rid

    # A second game of the same player (same token) is practice: played, kept, not ranked.
    await ann.send({"type": "leave"})
    again = await WsClient.connect(server.ws_url, "ann", token=ann.token)
    assert again.player_id == ann.player_id
    snap2 = await start_daily(again, date=date)
    await play(again, line)
    fin2 = await again.expect("finished", player_id=ann.player_id)
    second_id = replay_id(str(snap2["room_id"]), 1, ann.player_id)
    assert snap2["daily"]["attempt"] == "practice"
    result = await again.expect("daily_result")
    assert (result["ranked"], result["unranked_reason"]) == (False, "practice")
    await wait_for(
        server, f"/api/replay/{second_id}", lambda r: r["result"]["won"], token=ann.token
    )
    board = await wait_for(server, path, lambda b: True)
    assert board["finishers"] == 1
    assert board["entries"][0]["time_ms"] == fin["time_ms"] != fin2["time_ms"]
    for c in (ann, again):
        await c.close()


@pytest.mark.slow
async def test_ranking_and_live_pushes_to_watchers(
    fresh: Today,
) -> None:
    server, date, line = fresh.server, fresh.date, fresh.line
    watcher = await WsClient.connect(server.ws_url, "watcher")
    await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
    first = await watcher.expect("leaderboard", date=date)
    assert first["kind"] == "daily"
    assert first["finishers"] == 0 and first["entries"] == []

    slow = await WsClient.connect(server.ws_url, "slow")
    quick = await WsClient.connect(server.ws_url, "quick")
    for c in (slow, quick):
        await start_daily(c, date=date)
    await asyncio.gather(play(quick, line, PACE), play(slow, line, PACE * 1.6))
    push1 = await watcher.expect("leaderboard", date=date, finishers=1)
    assert push1["entries"][0]["player_id"] == quick.player_id
    push2 = await watcher.expect("leaderboard", date=date, finishers=2)
    assert [e["player_id"] for e in push2["entries"]] == [quick.player_id, slow.player_id]
    assert push2["entries"][0]["time_ms"] < push2["entries"][1]["time_ms"]
    assert [e["rank"] for e in push2["entries"]] == [1, 2]
    for c in (watcher, slow, quick):
        await c.close()


async def test_the_hard_daily_and_bad_days_over_the_socket(server: ServerProc) -> None:
    ann = await WsClient.connect(server.ws_url, "ann")
    await ann.send({"type": "daily", "date": "2999-01-01"})
    assert (await ann.expect("error"))["code"] == "bad_date"
    await ann.send({"type": "watch_leaderboard", "date": "2999-01-01"})
    assert (await ann.expect("error"))["code"] == "bad_date"
    snap = await start_daily(ann, date=PAST, hard=True)
    assert snap["code"] == daily_deal(PAST, "hard").code and snap["cells"] == 1
    await ann.send({"type": "daily"})
    assert (await ann.expect("error"))["code"] == "already_in_room"
    await ann.close()
    bob = await WsClient.connect(server.ws_url, "bob")
    snap = await start_daily(bob)
    assert snap["code"] == daily_deal(today().isoformat()).code
    await bob.close()


# -- race history ---------------------------------------------------------------------------


async def test_race_results_feed_the_players_history(server: ServerProc) -> None:
    code = "SH1-C4-AAAAAAF"
    line = line_of(code)
    ann = await WsClient.connect(server.ws_url, "ann")
    bob = await WsClient.connect(server.ws_url, "bob")
    cat = await WsClient.connect(server.ws_url, "cat")
    await ann.send({"type": "create_room", "code": code})
    room = str((await ann.expect("snapshot"))["room_id"])
    for c in (bob, cat):
        await c.send({"type": "join", "room": room})
        await c.expect("snapshot")
    await ann.send({"type": "start"})
    for c in (ann, bob, cat):
        await c.expect("started")
    await play(cat, line[:5], 0)
    await cat.send({"type": "give_up"})
    await cat.expect("gave_up", player_id=cat.player_id)
    await play(ann, line, 0)
    await ann.expect("finished", player_id=ann.player_id)
    await play(bob, line, 0)
    await bob.expect("finished", player_id=bob.player_id)
    ann_hist = await wait_for(
        server, f"/api/player/{ann.player_id}", lambda b: b["races"]["played"] == 1
    )
    bob_hist = await wait_for(
        server, f"/api/player/{bob.player_id}", lambda b: b["races"]["played"] == 1
    )
    assert ann_hist["races"]["won"] == 1 and bob_hist["races"]["won"] == 0
    cat_hist = await wait_for(
        server, f"/api/player/{cat.player_id}", lambda b: b["races"]["played"] == 1
    )
    assert cat_hist["races"] == {"played": 1, "finished": 0, "won": 0, "best_ms": {}}
    assert cat_hist["recent"][0]["rank"] is None and cat_hist["recent"][0]["moves"] == 5
    assert ann_hist["races"]["best_ms"]["C4"] <= bob_hist["races"]["best_ms"]["C4"]
    recent = ann_hist["recent"][0]
    assert recent["rank"] == 1 and recent["code"] == code
    # The room is Ann's to know (her token proves it), nobody else's.
    assert "room" not in recent
    path = f"/api/player/{ann.player_id}"
    assert "room" not in server.get_json(path, bob.token)[1]["recent"][0]
    assert server.get_json(path, ann.token)[1]["recent"][0]["room"] == room
    status, replay = get(server, f"/api/replay/{recent['replay_id']}")
    assert status == 200 and replay["kind"] == "race" and replay["verified"]["ok"] is False
    # A race replay counts from the race start; with no pause the floor refutes it, but the
    # engine accepts every action.
    assert replay["verified"]["reason"] == "too_fast"
    for c in (ann, bob, cat):
        await c.close()


async def test_a_daily_survives_a_dropped_connection(
    fresh: Today,
) -> None:
    server, date, line = fresh.server, fresh.date, fresh.line
    ann = await WsClient.connect(server.ws_url, "ann")
    snap = await start_daily(ann, date=date)
    room = str(snap["room_id"])
    half = len(line) // 2
    await play(ann, line[:half])
    last_seq = max(int(m["seq"]) for m in ann.messages if m.get("type") == "ack")
    await ann.ws.close()
    await asyncio.sleep(0.2)

    back = await WsClient.connect(server.ws_url)
    await back.send({"type": "resume", "room": room, "token": ann.token, "last_seq": last_seq})
    await back.expect("welcome")
    for i, text in enumerate(line[half:]):
        await back.send(wire(text, 1000 + i))
        await back.expect("ack", id=1000 + i)
        await asyncio.sleep(PACE)
    fin = await back.expect("finished", player_id=ann.player_id)
    assert fin["moves"] == len(line)
    board = await wait_for(server, f"/api/daily/{date}/leaderboard", lambda b: b["finishers"] == 1)
    entry = board["entries"][0]
    assert entry["player_id"] == ann.player_id and entry["time_ms"] == fin["time_ms"]
    # The clock ran from the first move, through the drop.
    assert fin["time_ms"] >= 200 + int(PACE * 1000) * (len(line) - 2)
    await back.close()


@pytest.mark.slow
async def test_pushes_reach_watchers_on_another_instance(
    fresh: Today,
) -> None:
    server, env, date, line = fresh.server, fresh.env, fresh.date, fresh.line
    with running_server(redis_url(), args=[*FAST, *ESTABLISHED], env=env) as other:
        watcher = await WsClient.connect(other.ws_url, "watcher")
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
        assert (await watcher.expect("leaderboard", date=date))["finishers"] == 0
        # A watch of the hard board on the same socket replaces the daily one.
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "hard"})
        assert (await watcher.expect("leaderboard", date=date))["kind"] == "hard"
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
        assert (await watcher.expect("leaderboard", date=date))["kind"] == "daily"
        ann = await WsClient.connect(server.ws_url, "ann")
        await start_daily(ann, date=date)
        await play(ann, line)
        push = await watcher.expect("leaderboard", date=date, finishers=1)
        assert push["kind"] == "daily"
        assert push["entries"][0]["player_id"] == ann.player_id
        await asyncio.sleep(0.2)
        assert watcher.find("leaderboard") is None  # one push, for the watched board only
        for c in (watcher, ann):
            await c.close()


# -- the finisher knows at once ---------------------------------------------------------


async def _snapshot(url: str, room: str, token: str) -> dict[str, Any]:
    """The room as a reload sees it: another socket of the player resumes it."""
    back = await WsClient.connect(url)
    try:
        await back.send({"type": "resume", "room": room, "token": token, "last_seq": 10**15})
        return await back.expect("snapshot", timeout=10)
    finally:
        await back.close()


@pytest.mark.slow
async def test_a_ranked_daily_win_is_pending_review_at_once_then_ranked() -> None:
    prefix = f"test:dpend:{secrets.token_hex(6)}:"
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    mine_of = f"/api/daily/{date}/mine?kind=daily"
    board_of = f"/api/daily/{date}/leaderboard?kind=daily"
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        room = str((await start_daily(ann, date=date))["room_id"])
        await play(ann, line[:-1])
        with paused_solver(srv):
            last = len(line)
            await ann.send(wire(line[-1], last))
            await ann.expect("ack", id=last)
            # From the winning move's ack on, the player's own day is never "over".
            _, mine = get(srv, mine_of, ann.token)
            assert (mine["state"], mine.get("reason")) == ("held", "pending_review"), mine
            won = await ann.expect("finished", player_id=ann.player_id)
            assert (mine["time_ms"], mine["moves"]) == (won["time_ms"], won["moves"])
            pending = await ann.expect("daily_pending", timeout=10)
            assert (pending["date"], pending["kind"]) == (date, "daily")
            assert "pending review" in pending["message"]
            # The review cannot have run: its solver is stopped.
            assert ann.find("daily_result") is None
            _, mine = get(srv, mine_of, ann.token)
            assert mine["state"] == "held" and mine["replay_id"] == pending["replay_id"]
            assert mine["time_ms"] == won["time_ms"] and "rank" not in mine
            snap = await _snapshot(srv.ws_url, room, ann.token)
            assert snap["daily"] == {
                "date": date,
                "kind": "daily",
                "attempt": "ranked",
                "ranked": False,
                "rank": None,
                "unranked_reason": "pending_review",
                "replay_id": pending["replay_id"],
            }
            # Nothing public before the decision: no entry, no streak.
            _, board = get(srv, board_of)
            assert board["finishers"] == 0 and board["entries"] == []
            assert mine["streak"] == 0
        # The solver runs again: the review decides, and the decision replaces "pending".
        result = await ann.expect("daily_result", timeout=120)
        assert (result["ranked"], result["rank"]) == (True, 1)
        assert result["replay_id"] == pending["replay_id"]
        _, mine = get(srv, mine_of, ann.token)
        assert (mine["state"], mine["rank"], mine["streak"]) == ("ranked", 1, 1)
        snap = await _snapshot(srv.ws_url, room, ann.token)
        assert (snap["daily"]["ranked"], snap["daily"]["rank"]) == (True, 1)
        assert snap["daily"]["unranked_reason"] is None
        await ann.close()


# -- newcomers on the board ------------------------------------------------------------

#: Established by ranked dailies on 2 days (rated races never, in this test).
BAR = ["--provisional-games", "1000", "--provisional-days", "2"]
#: Any new leader's evidence is unusual enough to hold it.
STRICT = ["--evidence-new-leader-suspicion", "0"]


@pytest.mark.slow
async def test_a_newcomer_is_listed_marked_new_but_never_leads_unreviewed() -> None:
    prefix = f"test:dprov:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    board = f"/api/daily/{date}/leaderboard?kind=daily"
    with daily_server(prefix, [*FAST, *BAR, *STRICT]) as (srv, _env):
        watcher = await WsClient.connect(srv.ws_url, "watcher")
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
        await watcher.expect("leaderboard", date=date, finishers=0)
        first, old, fresh = [
            await WsClient.connect(srv.ws_url, name) for name in ("First", "Old", "Fresh")
        ]
        # Old ranked a daily yesterday: today's finish makes it 2 days, established.
        yesterday = dt.date.fromisoformat(date) - dt.timedelta(days=1)
        redis = aioredis.from_url(redis_url(), decode_responses=True)
        try:
            days = {yesterday.isoformat(): yesterday.toordinal()}
            await redis.zadd(keys.player_days(old.player_id), days)
        finally:
            await redis.aclose()
        for racer in (first, old, fresh):
            await start_daily(racer, date=date)
        # A fresh identity first on an empty board would lead the day: held for review.
        await play(first, line, PACE)
        result = await first.expect("daily_result", timeout=10)
        assert result["ranked"] is False and result["unranked_reason"] == "pending_review"
        # Each plays a line of their own (a line repeating another's is borrowed: held).
        await play(old, own_line(daily_deal(date).code, 1), PACE)
        assert (await old.expect("daily_result", timeout=10))["rank"] == 1
        # Fresh is slower than the established leader: ranked and listed at once, new.
        await play(fresh, own_line(daily_deal(date).code, 2), PACE)
        assert (await fresh.expect("daily_result", timeout=10))["rank"] == 2

        push = await watcher.expect("leaderboard", date=date, finishers=2)
        shown = [(e["player_id"], e["rank"], e["new"]) for e in push["entries"]]
        assert shown == [(old.player_id, 1, False), (fresh.player_id, 2, True)]
        body = await wait_for(srv, board, lambda b: b["finishers"] == 2)
        assert [e["player_id"] for e in body["entries"]] == [old.player_id, fresh.player_id]

        # Fresh sees themself, flagged provisional; Old's view around him shows Fresh too.
        _, mine = get(srv, f"{board}&around={fresh.player_id}")
        assert mine["player"]["rank"] == 2 and mine["player"]["provisional"] is True
        _, his = get(srv, f"{board}&around={old.player_id}")
        assert his["player"] == {
            "player_id": old.player_id,
            "rank": 1,
            "streak": 2,
            "provisional": False,
        }
        assert [e["player_id"] for e in his["entries"]] == [old.player_id, fresh.player_id]

        # The Friends view: Old follows Fresh and sees them the same day; and Fresh, Old.
        # (The rules of following: tests/server/play/test_friends.py.)
        await old.send({"type": "follow", "player_id": fresh.player_id})
        await old.expect("friends")
        assert fresh.find("friends") is None  # being followed tells Fresh nothing
        await fresh.send({"type": "follow", "player_id": old.player_id})
        await fresh.expect("friends")
        for who in (old, fresh):
            _, view = get(srv, f"{board}&friends=1", who.token)
            assert view["friends"] is True
            assert [e["player_id"] for e in view["entries"]] == [old.player_id, fresh.player_id]
        for token in (None, "x" * 32):  # the Friends tab is its owner's: the token proves it
            status, body = get(srv, f"{board}&friends=1", token)
            assert status == 401 and body["error"] == "bad_token"
        # The follow list is its owner's alone: on their own player page only.
        page_of = f"/api/player/{old.player_id}"
        assert get(srv, page_of, old.token)[1]["follows"] == [
            {"player_id": fresh.player_id, "name": "Fresh"}
        ]
        assert "follows" not in get(srv, page_of, fresh.token)[1]
        assert "follows" not in get(srv, page_of)[1]

        # Each player's own day (the Daily page's card): held, ranked; only with a token.
        mine_of = f"/api/daily/{date}/mine?kind=daily"
        _, held = get(srv, mine_of, first.token)
        assert held["state"] == "held" and held["replay_id"] == result["replay_id"]
        assert isinstance(held["time_ms"], int) and held["time_ms"] > 0
        _, ranked = get(srv, mine_of, old.token)
        assert (ranked["state"], ranked["rank"], ranked["finishers"]) == ("ranked", 1, 2)
        assert ranked["streak"] == 2 and "code" not in ranked
        _, none = get(srv, f"/api/daily/{date}/mine?kind=hard", old.token)
        assert none["state"] == "none"
        assert get(srv, mine_of)[0] == 401
        for c in (watcher, first, old, fresh):
            await c.close()

"""Newcomers on the daily board from their first day, on a real server, Redis and sockets
(newcomers count): a provisional finisher is ranked and listed to everyone, marked ``new``, in the
pushes, the top, anyone's ``around`` and Friends view (its token, the follow list private),
with no gap in the ranks; a fresh
identity whose finish would lead the day with unusual evidence is held for review instead
of taking #1 (here every finish's evidence counts as unusual: the threshold at 0; a new
community's usual finishes rank, tests/server/fairplay/test_fairplay_server.py)."""

from __future__ import annotations

import datetime as dt
import secrets

import pytest
import redis.asyncio as aioredis

from server.daily.deal import today
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import PACE, daily_server, get, line_of, play, start_daily, wait_for
from tests.helpers.fairplay_lines import own_line
from tests.helpers.serverproc import FAST, WsClient, redis_url

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

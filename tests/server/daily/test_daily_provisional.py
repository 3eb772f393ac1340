"""The public daily board lists established players only, on a real server, Redis and
sockets: a provisional finisher is ranked and sees their own place, but is on no public
list (the top, the pushes to watchers, anyone else's ``around`` or Friends view)."""

from __future__ import annotations

import datetime as dt
import secrets

import pytest
import redis.asyncio as aioredis

from server.daily.deal import today
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import PACE, daily_server, get, line_of, play, start_daily, wait_for
from tests.helpers.serverproc import FAST, WsClient, redis_url

#: Established by ranked dailies on 2 days (rated races never, in this test).
BAR = ["--provisional-games", "1000", "--provisional-days", "2"]


@pytest.mark.slow
async def test_a_provisional_finisher_is_ranked_but_listed_only_to_themselves() -> None:
    prefix = f"test:dprov:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    board = f"/api/daily/{date}/leaderboard?kind=daily"
    with daily_server(prefix, [*FAST, *BAR]) as (srv, _env):
        watcher = await WsClient.connect(srv.ws_url, "watcher")
        await watcher.send({"type": "watch_leaderboard", "date": date, "kind": "daily"})
        await watcher.expect("leaderboard", date=date, finishers=0)
        new, old = [await WsClient.connect(srv.ws_url, name) for name in ("New", "Old")]
        # Old ranked a daily yesterday: today's finish makes it 2 days, established.
        yesterday = dt.date.fromisoformat(date) - dt.timedelta(days=1)
        redis = aioredis.from_url(redis_url(), decode_responses=True)
        try:
            days = {yesterday.isoformat(): yesterday.toordinal()}
            await redis.zadd(keys.player_days(old.player_id), days)
        finally:
            await redis.aclose()
        for racer in (new, old):
            await start_daily(racer, date=date)
        # The provisional player finishes first: ahead of Old on the board.
        await play(new, line, PACE)
        assert (await new.expect("daily_result", timeout=10))["ranked"] is True
        await play(old, line, PACE)
        assert (await old.expect("daily_result", timeout=10))["ranked"] is True

        # The pushes and the top: Old alone, at his place among every finisher.
        push = await watcher.expect("leaderboard", date=date, finishers=2)
        assert [(e["player_id"], e["rank"]) for e in push["entries"]] == [(old.player_id, 2)]
        body = await wait_for(srv, board, lambda b: b["finishers"] == 2)
        assert [e["player_id"] for e in body["entries"]] == [old.player_id]

        # New sees their own entry and rank, flagged provisional.
        _, mine = get(srv, f"{board}&around={new.player_id}")
        assert mine["player"]["rank"] == 1 and mine["player"]["provisional"] is True
        assert [e["player_id"] for e in mine["entries"]] == [new.player_id, old.player_id]
        # Old's view around himself does not show New.
        _, his = get(srv, f"{board}&around={old.player_id}")
        assert his["player"] == {
            "player_id": old.player_id,
            "rank": 2,
            "streak": 2,
            "provisional": False,
        }
        assert [e["player_id"] for e in his["entries"]] == [old.player_id]

        # The Friends view: Old follows New, and still does not see New; New sees both.
        await old.send({"type": "follow", "player_id": new.player_id})
        await old.expect("friends")
        await new.send({"type": "follow", "player_id": old.player_id})
        await new.expect("friends")
        _, his = get(srv, f"{board}&friends=1", old.token)
        assert [e["player_id"] for e in his["entries"]] == [old.player_id]
        _, mine = get(srv, f"{board}&friends=1", new.token)
        assert [e["player_id"] for e in mine["entries"]] == [new.player_id, old.player_id]
        for c in (watcher, new, old):
            await c.close()

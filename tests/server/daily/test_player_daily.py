"""``GET /api/player/ID``'s daily history, for the player page, on a real server and Redis:
the ranked results of the last 30 days with their ranks, the ranked days of the last 13
weeks, bounded; a running day's time is shown but its replay id only to its player."""

from __future__ import annotations

import datetime as dt
import json
import secrets

import pytest
import redis.asyncio as aioredis

from server.daily.deal import today
from server.daily.leaderboard import member_of, score_of
from server.daily.profile import CALENDAR_DAYS, CHART_DAYS
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.daily_server import daily_server, line_of, play, start_daily, wait_for
from tests.helpers.serverproc import WsClient, redis_url


async def seed(r: aioredis.Redis, keys: Keys, date: str, pid: str, name: str, ms: int) -> None:
    """A ranked entry of a past day, as the leaderboard script writes it, and its day."""
    finished_at = int(dt.datetime.fromisoformat(date).replace(tzinfo=dt.UTC).timestamp()) * 1000
    member = member_of(finished_at + ms, pid)
    entry = {"player_id": pid, "name": name, "time_ms": ms, "moves": 90}
    entry |= {"replay_id": f"rp{date.replace('-', '')}", "finished_at": finished_at + ms}
    await r.hset(
        keys.leaderboard_entries(date, "daily"), pid, json.dumps({**entry, "member": member})
    )
    await r.zadd(keys.leaderboard_rank(date, "daily"), {member: score_of(ms, 90)})
    other = member_of(finished_at + 1, "pother")  # someone faster that day
    await r.zadd(keys.leaderboard_rank(date, "daily"), {other: score_of(1000, 80)})
    day = dt.date.fromisoformat(date).toordinal()
    await r.zadd(keys.player_days(pid), {date: day})


@pytest.mark.slow
async def test_the_player_page_gets_the_daily_results_of_the_last_30_days() -> None:
    prefix = f"test:player:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    date = today().isoformat()
    line = line_of(daily_deal(date).code)
    with daily_server(prefix) as (srv, _env):
        ann = await WsClient.connect(srv.ws_url, "Ann")
        bob = await WsClient.connect(srv.ws_url, "Bob")
        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        try:
            day = today()
            past = [(day - dt.timedelta(days=n)).isoformat() for n in (1, 2, 29, 30, 95)]
            for n, d in enumerate(past):
                await seed(r, keys, d, ann.player_id, "Ann", 100_000 + n)
        finally:
            await r.aclose()
        await start_daily(ann)
        await play(ann, line)
        result = await ann.expect("daily_result", timeout=10)
        assert result["ranked"] is True
        path = f"/api/player/{ann.player_id}"
        body = await wait_for(srv, path, lambda b: b["daily"]["results"][-1]["date"] == date)
        daily = body["daily"]
        assert daily["name"] == "Ann"
        # The last 30 days, today included, oldest first: not the day 30 days ago.
        assert [x["date"] for x in daily["results"]] == [*reversed(past[:3]), date]
        assert len(daily["results"]) <= 2 * CHART_DAYS
        first = daily["results"][0]
        assert first["rank"] == 2 and first["finishers"] == 2 and first["time_ms"] == 100_002
        assert first["replay_id"] == f"rp{past[2].replace('-', '')}"  # a past day's is public
        mine = daily["results"][-1]
        assert mine["kind"] == "daily" and mine["rank"] == 1 and mine["finishers"] == 1
        assert mine["moves"] == len(line) and mine["time_ms"] > 0
        # Today runs: its time is shown to all (the leaderboard shows it), its replay id is
        # Ann's alone.
        assert "replay_id" not in mine
        assert "replay_id" not in srv.get_json(path, bob.token)[1]["daily"]["results"][-1]
        own = srv.get_json(path, ann.token)[1]["daily"]["results"][-1]
        assert own["replay_id"] == result["replay_id"]
        # The ranked days of the last 13 weeks, as the streak counts them.
        within = [d for d in [*past, date] if d > (day - dt.timedelta(CALENDAR_DAYS)).isoformat()]
        assert daily["days"] == sorted(within)
        assert body["streak"] == 3  # today, yesterday and the day before
        # Someone without a daily result.
        assert srv.get_json(f"/api/player/{bob.player_id}")[1]["daily"] == {
            "name": None,
            "results": [],
            "days": [],
        }
        for c in (ann, bob):
            await c.close()

"""A player's daily history, for the player page (``GET /api/player/ID``), read from the
leaderboards on the machine's Redis without a server: the ranked results of the last 30
days with their ranks, the ranked days of the last 13 weeks, bounded; a running day's time
is shown but its replay id only to its player. The route's own journey (the owner proved by
their token) is in :mod:`tests.server.daily.test_daily_server`."""

from __future__ import annotations

import datetime as dt
import json

import redis.asyncio as aioredis

from server.daily.deal import today
from server.daily.leaderboard import member_of, score_of
from server.daily.profile import CALENDAR_DAYS, CHART_DAYS, daily_history
from server.store.keys import Keys
from server.transport.clients import Client
from tests.helpers.fakes_ranked import instance, won_today
from tests.helpers.leaderboards import submit


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


async def test_the_daily_results_of_the_last_30_days(redis_client: Client, key_prefix: str) -> None:
    assert isinstance(redis_client, aioredis.Redis)
    day = today()
    date = day.isoformat()
    ctx = await instance(redis_client, key_prefix, date)
    board = ctx.daily.leaderboard
    past = [(day - dt.timedelta(days=n)).isoformat() for n in (1, 2, 29, 30, 95)]
    for n, d in enumerate(past):
        await seed(redis_client, ctx.keys, d, "pann", "Ann", 100_000 + n)
    won = won_today("pann")
    ranked = await submit(board, won)
    assert ranked.status == "ranked", ranked

    daily = await daily_history(board, "pann", day, owner=False)
    assert daily["name"] == won.name == "PANN"  # the latest entry's, not the seeded "Ann"
    # The last 30 days, today included, oldest first: not the day 30 days ago.
    assert [x["date"] for x in daily["results"]] == [*reversed(past[:3]), date]
    assert len(daily["results"]) <= 2 * CHART_DAYS
    first = daily["results"][0]
    assert first["rank"] == 2 and first["finishers"] == 2 and first["time_ms"] == 100_002
    assert first["replay_id"] == f"rp{past[2].replace('-', '')}"  # a past day's is public
    mine = daily["results"][-1]
    assert mine["kind"] == "daily" and mine["rank"] == 1 and mine["finishers"] == 1
    assert (mine["moves"], mine["time_ms"]) == (won.result.moves, won.result.time_ms)
    # Today runs: its time is shown to all (the leaderboard shows it), its replay id is
    # its player's alone.
    assert "replay_id" not in mine
    own = await daily_history(board, "pann", day, owner=True)
    assert own["results"][-1]["replay_id"] == won.id
    # The ranked days of the last 13 weeks, as the streak counts them.
    within = [d for d in [*past, date] if d > (day - dt.timedelta(CALENDAR_DAYS)).isoformat()]
    assert daily["days"] == sorted(within)
    assert await board.streak("pann", date) == 3  # today, yesterday and the day before
    # Someone without a daily result.
    nobody = await daily_history(board, "pbob", day, owner=True)
    assert nobody == {"name": None, "results": [], "days": []}

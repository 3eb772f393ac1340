"""Fixtures of the server tests: a real server process on the machine's Redis
(``REDIS_URL``)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from server.daily.deal import KINDS, TEST_SECRET
from server.daily.deals import DailyDeals
from server.daily.leaderboard import Leaderboard
from server.store.keys import Keys
from tests.helpers.dailies import daily_deal
from tests.helpers.leaderboards import DATE
from tests.helpers.race_keys import RACE_PREFIX
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.serverproc import FAST, ServerProc, drop_keys, redis_url, running_server


@pytest.fixture(scope="session")
def race_server() -> Iterator[ServerProc]:
    """One server for the session's race tests, on the machine's Redis."""
    with running_server(redis_url(), args=FAST, env={"SEAHAVEN_KEY_PREFIX": RACE_PREFIX}) as srv:
        yield srv
    drop_keys(RACE_PREFIX)


@pytest.fixture
async def key_prefix() -> AsyncIterator[str]:
    """A Redis key prefix of the test's own (for servers started with it), its keys removed
    afterwards."""
    name = f"test-{secrets.token_hex(4)}:"
    yield name
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    async for key in r.scan_iter(match=f"{name}*", count=1000):
        await r.delete(key)
    await r.aclose()


@pytest.fixture
async def redis_client() -> AsyncIterator[aioredis.Redis]:
    """A client of the machine's Redis (decoded replies) of the test's own."""
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    yield client
    await client.aclose()


@pytest.fixture
async def lb() -> AsyncIterator[Leaderboard]:
    """A daily leaderboard in process on the machine's Redis, under a prefix of the test's own,
    with the deals of the days around :data:`~tests.helpers.leaderboards.DATE` stored."""
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    prefix = f"test:lb:{secrets.token_hex(6)}:"
    keys = Keys(prefix)
    # The days' deals of the documented test key, as a server would have stored them.
    deals = DailyDeals(client, keys, TEST_SECRET, 400 * 86_400)  # deleted below
    for date in ("2026-03-10", "2026-03-11", "2026-03-12", "2026-03-13", DATE, "2026-03-15"):
        for kind in KINDS:
            await deals.store(daily_deal(date, kind))
    board = Leaderboard(client, keys, deals=deals)
    try:
        yield board
    finally:
        left = [k async for k in client.scan_iter(match=prefix + "*", count=500)]
        if left:
            await client.delete(*left)
        await client.aclose()


@pytest.fixture(scope="module")
def cluster() -> Iterator[RedisClusterProc]:
    """A fresh cluster of 3 masters and 3 replicas for the module's tests (a SIGKILLed node
    rejoins as a replica)."""
    with RedisClusterProc.start() as started:
        print(f"\ncluster up in {started.startup_s:.2f} s")
        yield started


@pytest.fixture
async def cluster_client(cluster: RedisClusterProc) -> AsyncIterator[RedisCluster]:
    """A cluster client of the test's own."""
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    yield r
    await r.aclose()

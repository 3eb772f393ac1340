"""Fixtures of the server tests: a real server process on the machine's Redis
(``REDIS_URL``)."""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from server.store.keys import Keys
from tests.helpers.rediscluster import RedisClusterProc, available
from tests.helpers.serverproc import FAST, ServerProc, drop_keys, redis_url, running_server

#: Tests on a real Redis Cluster: skipped where ``redis-server`` is missing, failing instead
#: under ``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI).
needs_cluster = pytest.mark.skipif(
    not available() and not os.environ.get("SEAHAVEN_REQUIRE_CLUSTER"),
    reason="redis-server and redis-cli are needed for a Redis Cluster",
)

#: The race tests' keys, under a prefix of this session's own: rooms a test session leaves
#: behind (racing on, say, since their sockets closed) never meet another session's, whose
#: deals they would keep "being raced" (no hints for them).
RACE_PREFIX = f"test:race:{os.getpid()}:"
RACE_KEYS = Keys(RACE_PREFIX)


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

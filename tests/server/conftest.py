"""Fixtures of the server tests: a real server process on the machine's Redis
(``REDIS_URL``)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from tests.serverproc import FAST, ServerProc, redis_url, running_server


@pytest.fixture(scope="session")
def race_server() -> Iterator[ServerProc]:
    """One server for the session's race tests, on the machine's Redis."""
    with running_server(redis_url(), args=FAST) as srv:
        yield srv


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

"""Auto-pipelined script calls: each call answered on its own, and a lost script cache
recovers. Uses a private embedded Redis (SCRIPT FLUSH must not touch the shared one)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from server.app import start_embedded_redis, stop_embedded_redis
from server.batch import ScriptBatcher

LUA = """
if ARGV[1] == 'boom' then return redis.error_reply('boom') end
return redis.call('INCRBY', KEYS[1], ARGV[1])
"""


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[str]:
    lite, url = start_embedded_redis(str(tmp_path / "redis"))
    try:
        yield url
    finally:
        stop_embedded_redis(lite)


async def test_batched_calls(private_redis: str) -> None:
    r: Any = aioredis.Redis.from_url(private_redis, decode_responses=True)
    batch = ScriptBatcher(r, r.register_script(LUA))
    results = await asyncio.gather(*(batch(keys=[f"k{i % 3}"], args=[1]) for i in range(300)))
    assert sorted(results)[-1] == 100 and sum(1 for x in results if x == 1) == 3
    assert [int(await r.get(f"k{i}")) for i in range(3)] == [100, 100, 100]
    # One call's error fails that call only.
    good, bad = await asyncio.gather(
        batch(keys=["k0"], args=[1]), batch(keys=["k0"], args=["boom"]), return_exceptions=True
    )
    assert good == 101 and isinstance(bad, ResponseError)
    # Redis forgets its scripts: the batcher loads the script again.
    await r.script_flush()
    assert await batch(keys=["k1"], args=[5]) == 105
    await batch.aclose()
    await r.aclose()

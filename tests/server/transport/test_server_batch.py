"""Auto-pipelined script calls: each call answered on its own (in order, cancelled callers
skipped), a lost script cache recovers, a lost connection fails its calls and reconnects.
Uses a private embedded Redis (SCRIPT FLUSH and CLIENT KILL must not touch the shared one)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.transport.batch import ScriptBatcher
from server.transport.embedded import start_embedded_redis, stop_embedded_redis
from tests import ROOT

#: Lua for the tests lives in files, as the server's does (tests/data/lua).
DATA = ROOT / "tests" / "data" / "lua"
LUA = (DATA / "incr.lua").read_text(encoding="utf-8")


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
    answers = await asyncio.gather(
        batch(keys=["k0"], args=[1]), batch(keys=["k0"], args=["boom"]), return_exceptions=True
    )
    good, bad = answers  # in two steps: mypy cannot type names unpacked from the await itself
    assert good == 101 and isinstance(bad, ResponseError)
    # Redis forgets its scripts: the batcher loads the script again.
    await r.script_flush()
    assert await batch(keys=["k1"], args=[5]) == 105
    await batch.aclose()
    await r.aclose()


async def test_answers_go_to_their_callers_in_order(private_redis: str) -> None:
    """Many calls in flight on one connection, some cancelled: each live caller gets its own
    answer; in the database of the URL (not 0)."""
    url = private_redis + "?db=3"
    r: Any = aioredis.Redis.from_url(url, decode_responses=True)
    batch = ScriptBatcher(r, r.register_script(LUA))
    calls = [asyncio.ensure_future(batch(keys=[f"n{i}"], args=[i + 1])) for i in range(200)]
    await asyncio.sleep(0)
    for call in calls[::7]:
        call.cancel()
    for i, call in enumerate(calls):
        if i % 7:
            assert await call == i + 1
    assert await r.get("n199") == "200"
    zero: Any = aioredis.Redis.from_url(private_redis, decode_responses=True)
    assert await zero.get("n199") is None  # db 0 saw nothing
    await zero.aclose()
    await batch.aclose()
    await r.aclose()


async def test_a_lost_connection_fails_its_calls_and_the_next_reconnects(
    private_redis: str,
) -> None:
    r: Any = aioredis.Redis.from_url(private_redis, decode_responses=True)
    batch = ScriptBatcher(r, r.register_script(LUA))
    assert await batch(keys=["c"], args=[1]) == 1
    await r.client_kill_filter(_type="normal", skipme=True)  # the batcher's connection goes
    await asyncio.sleep(0.05)
    with contextlib.suppress(RedisConnectionError):
        await batch(keys=["c"], args=[1])  # on the dead connection it fails, never hangs ...
    assert await batch(keys=["c"], args=[1]) in (2, 3)  # ... and the next one reconnects
    await batch.aclose()
    await r.aclose()


async def test_on_reply_runs_when_the_answer_is_read(private_redis: str) -> None:
    """The callback sees a successful answer before the caller resumes; never an error."""
    r: Any = aioredis.Redis.from_url(private_redis, decode_responses=True)
    batch = ScriptBatcher(r, r.register_script(LUA))
    seen: list[Any] = []
    call = asyncio.ensure_future(batch(keys=["cb"], args=[4], on_reply=seen.append))
    while not seen:  # the callback fires while the call is still pending
        assert not call.done()
        await asyncio.sleep(0)
    assert seen == [4] and await call == 4
    with pytest.raises(ResponseError):
        await batch(keys=["cb"], args=["boom"], on_reply=seen.append)
    assert seen == [4]
    await batch.aclose()
    await r.aclose()


SLOW = (DATA / "slow_incr.lua").read_text(encoding="utf-8")


async def test_calls_made_while_a_batch_is_answered_go_out_together(private_redis: str) -> None:
    """One batch in flight at a time: the calls of many loop turns that come while Redis runs
    the first one are written in one go when its answer comes, and answered in order."""
    r: Any = aioredis.Redis.from_url(private_redis, decode_responses=True)
    batch = ScriptBatcher(r, r.register_script(SLOW))
    assert await batch(keys=["w"], args=[1, 0]) == 1  # connected, script loaded
    pipe = await batch._links[""].get()
    writes: list[int] = []
    transport = pipe.transport
    assert transport is not None
    real_write = transport.write

    def counted(data: bytes | bytearray | memoryview) -> None:
        writes.append(len(data))
        real_write(data)

    transport.write = counted  # type: ignore[method-assign]
    first = asyncio.ensure_future(batch(keys=["w"], args=[1, 50_000]))  # 50 ms in Redis
    await asyncio.sleep(0.005)
    later = []
    for _ in range(20):  # one call a loop turn, while the first runs
        later.append(asyncio.ensure_future(batch(keys=["w"], args=[1, 0])))
        await asyncio.sleep(0)
    assert await first == 2
    assert [await call for call in later] == list(range(3, 23))
    assert len(writes) == 2, writes  # the first call, then the twenty together
    await batch.aclose()
    await r.aclose()

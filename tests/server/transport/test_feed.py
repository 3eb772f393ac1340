"""The room channels' reader (``server.transport.feed``) on a Redis of the test's own: messages
as they are published, and a connection that stops answering is opened again, its channels
subscribed again and reported for catch-up."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import redis.asyncio as aioredis

from server.transport import feed as feed_module
from server.transport.feed import Feed
from tests.helpers.private_redis import needs_redis_server, private_redis, redis_pid
from tests.helpers.waits import until

pytestmark = needs_redis_server


async def test_a_hung_connection_is_opened_again_and_its_channels_resubscribed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(feed_module, "HEALTH_CHECK_S", 0.3)
    with private_redis() as port:
        client = aioredis.Redis(port=port, decode_responses=True)
        for _ in range(100):  # the server may still be starting
            try:
                await client.ping()
                break
            except Exception:
                await asyncio.sleep(0.05)
        got: list[tuple[str, str]] = []
        again: list[str] = []
        failures: list[int] = []
        feed = Feed(
            client,
            lambda c, d: got.append((c, d)),
            again.append,
            lambda: failures.append(1),
            timeout=0.5,
        )
        feed.start()
        try:
            await feed.subscribe("room:1")
            assert again == []  # a first subscription is awaited, not reported
            assert feed.live == {"room:1"}  # Redis holds it: the move script may count on it
            await client.publish("room:1", "one")
            await client.publish("room:2", "not followed")
            await until(lambda: got == [("room:1", "one")])

            pid = redis_pid(port)
            os.kill(pid, signal.SIGSTOP)  # the socket stays open but nothing answers
            try:
                await until(lambda: failures, timeout=5.0)
                assert feed.live == set()  # the connection is given up: nothing is held
            finally:
                os.kill(pid, signal.SIGCONT)
            await until(lambda: again == ["room:1"])
            assert feed.live == {"room:1"}
            await client.publish("room:1", "two")
            await until(lambda: got[-1] == ("room:1", "two"))

            feed.unsubscribe("room:1")
            assert feed.live == set()

            async def unsubscribed() -> bool:
                return dict(await client.pubsub_numsub("room:1")).get("room:1") == 0

            await until(unsubscribed, what="Redis has the channel unsubscribed")
            assert await client.publish("room:1", "three") == 0  # nobody hears it
            await asyncio.sleep(0.1)  # nor does the feed, a moment later
            assert got[-1] == ("room:1", "two")
        finally:
            await feed.close()
            await client.aclose()

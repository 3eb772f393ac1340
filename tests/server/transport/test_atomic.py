"""Atomic batches (``server/transport/atomic.py``, ``lua/batch.lua``) on a real Redis and on a
real Redis Cluster: every batch the store runs answers alike on both, and on the cluster
none of them starts a thread (``redis-py``'s cluster transaction pipeline ran each queued
command in a thread of its own and held the event loop meanwhile); a failing command stops
the batch with a clear error; a batch across slots is refused by the cluster."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisClusterException, RedisError, ResponseError

from server.store import listing, queue
from server.store.keys import Keys
from server.store.store import Store
from tests.helpers.markers import needs_cluster
from tests.helpers.serverproc import redis_url

NOW = 1_800_000_000_000


async def every_batch(store: Store) -> dict[str, Any]:
    """Runs each batch of the store on one room and player; what each read back."""
    seen: dict[str, Any] = {}
    await store.save_session("tok-1", "p1", "Ann")
    seen["session"] = await store.load_session("tok-1")
    fields: dict[str, str | int] = {"round": 1, "code": "SH1-x", "st:p1": "playing", "np": 1}
    assert await store.create("R1", fields)
    await store.arrive("R1", "c1", "p1")
    seen["here"] = await store.redis.hgetall(store.keys.here("R1"))
    read = await store.read_room("R1")
    assert read is not None
    seen["room"] = (read.meta, read.members, read.results, read.logs)
    seen["finished"] = await store.finished_board("R1", 1, "p1")
    await store.mark_racing("SH1-x", "R1", NOW, 60_000)
    seen["racing"] = await store.redis.zrange(store.keys.racing("SH1-x"), 0, -1)
    await listing.list_room(store, "R1", NOW)
    seen["listed"] = await store.redis.zrange(store.keys.lobby_rooms(), 0, -1)
    await queue.note_dodge(store, "p1")
    seen["dodges"] = await queue.dodges(store, "p1")
    await queue.add(store, 4, "p1", 25.0, NOW, NOW, "i1", NOW)
    await queue.assign(store, 4, "R2", ["p2", "p3"])
    seen["removed"] = (await queue.remove(store, 4, "p1"), await queue.remove(store, 4, "p1"))
    seen["paired"] = await store.redis.hgetall(store.keys.queue_paired(4))
    return seen


EXPECTED = {
    "session": ("p1", "Ann"),
    "here": {"c1": "p1"},
    "room": (
        {"round": "1", "code": "SH1-x", "st:p1": "playing", "np": "1"},
        {},
        {},
        {"p1": []},
    ),
    "finished": ({"round": "1", "code": "SH1-x", "st:p1": "playing", "np": "1"}, None, None, []),
    "racing": ["R1"],
    "listed": ["R1"],
    "dodges": 1,
    "removed": (True, False),
    "paired": {"p2": "R2", "p3": "R2"},
}


@pytest.fixture
async def plain_store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=60)
    yield store
    await store.aclose()
    await client.aclose()


async def test_every_batch_on_a_plain_redis(plain_store: Store) -> None:
    assert await every_batch(plain_store) == EXPECTED
    assert await plain_store.redis.ttl(plain_store.keys.session("tok-1")) > 0
    assert await plain_store.redis.ttl(plain_store.keys.here("R1")) > 0


async def test_a_failing_command_stops_the_batch_with_its_error(plain_store: Store) -> None:
    k = plain_store.keys
    await plain_store.redis.set(k.dodges("p9"), "not a number")
    batch = plain_store.batch().expire(k.dodges("p9"), 30).incr(k.dodges("p9"))
    with pytest.raises(ResponseError, match="not an integer"):
        await batch.execute()
    # Like MULTI/EXEC, what ran before the failing command stays done: the expiry is set.
    assert await plain_store.redis.get(k.dodges("p9")) == "not a number"
    assert 0 < await plain_store.redis.ttl(k.dodges("p9")) <= 30
    assert await plain_store.batch().execute() == []


@needs_cluster
async def test_every_batch_on_the_cluster_answers_alike_without_a_thread(
    cluster_client: RedisCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(cluster_client, Keys("atomic:"), ttl=60)
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    seen = await every_batch(store)
    monkeypatch.undo()
    assert seen == EXPECTED
    assert started == []  # the event loop never waited on a thread
    # Keys of two slots in one batch: the cluster refuses it, nothing runs.
    crossing = store.batch().incr("atomic:{a}").incr("atomic:{b}")
    with pytest.raises((RedisError, RedisClusterException), match=r"same key slot|CROSSSLOT"):
        await crossing.execute()
    assert await cluster_client.get("atomic:{a}") is None
    await store.aclose()

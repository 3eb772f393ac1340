"""The shared Redis client of an instance, on one Redis or a Redis Cluster, and what an
instance asks of the server itself (is it there, has it replicas).

Room operations and every key's meaning are :mod:`server.store`'s; the move connection and
pub/sub are :mod:`.batch`, :mod:`.feed` and :mod:`.shards`.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from .gated import NODE_CONNECTIONS, GatedCluster

#: The asyncio client of a Redis or of a Redis Cluster (``decode_responses=True``).
Client = aioredis.Redis | RedisCluster


def redis_client(url: str, timeout: float) -> aioredis.Redis:
    """The shared client of an instance.

    A blocking pool: under a burst, commands wait for a free connection instead of failing.
    Every call fails after ``timeout`` seconds without an answer (a hung Redis makes the
    client hear ``busy``, never silence). Moves do not use this pool: their scripts are
    pipelined on a connection of their own (:mod:`server.transport.batch`).
    """
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        decode_responses=True,
        health_check_interval=30,
        max_connections=256,
        timeout=10,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )
    return aioredis.Redis(connection_pool=pool)


def cluster_client(url: str, timeout: float) -> RedisCluster:
    """The shared client of an instance on a Redis Cluster, from one seed node's URL.

    The client learns every node and slot from the seed, follows ``MOVED``/``ASK`` and reads
    the slot map again when a node fails; a burst of commands waits for connections instead
    of failing (:mod:`server.transport.gated`). Moves and room channels do not use its
    connections (:mod:`server.transport.batch`, :mod:`server.transport.shards`), but its slot map.

    Raises:
        ValueError: the URL is not ``redis://HOST:PORT`` or, for TLS, ``rediss://HOST:PORT``
            (with the ``ssl_*`` query of redis-py's URLs, say ``?ssl_ca_certs=PATH``).
    """
    if not url.startswith(("redis://", "rediss://")):
        raise ValueError(f"--redis-cluster takes redis://HOST:PORT or rediss://, not {url!r}")
    return GatedCluster.from_url(
        url,
        decode_responses=True,
        health_check_interval=30,
        max_connections=NODE_CONNECTIONS,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )


async def connect(cluster: RedisCluster) -> None:
    """Learn a cluster's nodes and slots from its seed (raises when it does not answer)."""
    await cluster.initialize()


async def replicas(redis: Any) -> int:
    """How many replicas the Redis has connected now (``INFO replication``)."""
    return int((await redis.info("replication")).get("connected_slaves", 0))


async def answers(redis: Any) -> bool:
    """Whether the Redis answers a ``PING`` (raises when it does not answer at all)."""
    return bool(await redis.ping())


async def memory(redis: Any) -> tuple[int, int]:
    """``(used, maximum)`` bytes of the Redis's memory (``INFO memory``; maximum 0: no cap).

    On a Redis Cluster every primary answers: the fullest one (by its share of its cap)
    stands for the store, since a write to any slot of it fails once it is full.
    """
    found = await redis.info("memory")
    answers = (
        [found] if "used_memory" in found else [v for v in found.values() if isinstance(v, dict)]
    )
    best = (0, 0)
    for node in answers:
        used, most = int(node.get("used_memory", 0)), int(node.get("maxmemory", 0))
        share = used / most if most else 0.0
        if share >= (best[0] / best[1] if best[1] else 0.0):
            best = (used, most)
    return best

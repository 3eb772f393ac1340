"""An atomic batch on a Redis Cluster: ``server/transport/atomic.py`` (one call of
``lua/batch.lua``) against its peer, ``redis-py``'s cluster transaction pipeline (which
runs each queued command in a thread with an event loop of its own).

Starts a cluster of 3 masters and 3 replicas (``tests/helpers/rediscluster.py``; ``--redis-cluster
URL`` uses a running one) and times the store's room read, four commands on one slot, both
ways, interleaved, ``--calls`` calls a round. Prints CPU and wall time per call for each
(medians of the rounds), their ratio, and how many threads each way started.

Run: ``.venv/bin/python bench/cluster_batch.py [--rounds 5] [--calls 300]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from bench.redis_procs import started_cluster
from server.store.scripts import register_batch as register
from server.transport.atomic import Batch

KEYS = ("bench:{r1}:room", "bench:{r1}:members", "bench:{r1}:results", "bench:{r1}:log")


@contextlib.contextmanager
def counting_threads() -> Iterator[list[int]]:
    """Counts the threads started in the block (into the list's one item)."""
    count = [0]
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        count[0] += 1
        start(thread)

    setattr(threading.Thread, "start", counted)  # noqa: B010 (patched for the block only)
    try:
        yield count
    finally:
        setattr(threading.Thread, "start", start)  # noqa: B010


async def transaction(client: RedisCluster) -> None:
    room, members, results, log = KEYS
    async with client.pipeline(transaction=True) as pipe:
        pipe.hgetall(room)
        pipe.hget(members, "p1")
        pipe.hgetall(results)
        pipe.lrange(log, 0, -1)
        await pipe.execute()


async def batch(script: AsyncScript) -> None:
    room, members, results, log = KEYS
    one = Batch(script).hgetall(room).hget(members, "p1")
    await one.hgetall(results).lrange(log, 0, -1).execute()


async def measure(url: str, rounds: int, calls: int) -> None:
    client = RedisCluster.from_url(url, decode_responses=True)
    await client.initialize()
    script = register(client)
    await client.hset(KEYS[0], mapping={"round": 1, "code": "SH1-x"})
    await client.rpush(KEYS[3], "1\t1\tc1c2", "2\t2\tc3h")
    figures: dict[str, list[tuple[float, float]]] = {"transaction": [], "batch": []}
    threads = {"transaction": 0, "batch": 0}
    for _ in range(rounds):
        for name in ("transaction", "batch"):
            with counting_threads() as started:
                wall, cpu = time.perf_counter(), time.process_time()
                for _ in range(calls):
                    if name == "batch":
                        await batch(script)
                    else:
                        await transaction(client)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            threads[name] += started[0]
            figures[name].append((cpu / calls * 1000, wall / calls * 1000))
    await client.delete(*KEYS)
    await client.aclose()
    print(f"a room read of 4 commands on one slot, {rounds} rounds of {calls} calls each way")
    medians = {}
    for name, runs in figures.items():
        cpu = statistics.median(c for c, _ in runs)
        wall = statistics.median(w for _, w in runs)
        medians[name] = cpu
        shown = ", ".join(f"{c:.3f}" for c, _ in runs)
        print(
            f"  {name:11} CPU {cpu:.3f} ms a call (rounds: {shown}), wall {wall:.3f} ms, "
            f"threads started {threads[name]}"
        )
    ratio = medians["batch"] / medians["transaction"]
    print(f"  batch / transaction pipeline, CPU a call: {ratio:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--redis-cluster", help="a running cluster's seed node")
    args = parser.parse_args()
    if args.redis_cluster:
        asyncio.run(measure(args.redis_cluster, args.rounds, args.calls))
        return
    with started_cluster() as url:
        asyncio.run(measure(url, args.rounds, args.calls))


if __name__ == "__main__":
    main()

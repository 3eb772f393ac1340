"""Pairing benchmark: players arrive at random times and queue for a quick race.

Starts real ``seahaven serve`` processes (``--instances``, default 2, on ``--redis-url``,
default the machine's Redis, under a key prefix of the run's own), then ``--players``
players (default 2000) each connect, say hello and send ``queue`` at a moment drawn
uniformly over ``--seconds`` (default 60), spread over the instances in turn. A player is
paired when its room's ``snapshot`` arrives; it waits for the countdown and leaves. Prints
the median and p99 time from ``queue`` to the snapshot, how many were paired, and the rooms
by number of racers (the share of rooms of 4).

Run: ``.venv/bin/python bench/pairing.py`` (or ``--players 200 --seconds 10`` for a check).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from bench.stats import percentile  # noqa: E402
from tests.helpers.serverproc import QUICK, ServerProc, redis_url, start_server  # noqa: E402


async def player(
    url: str, n: int, at: float, cells: int, waits: list[float], rooms: dict[str, int]
) -> None:
    """One player: queue at ``at`` (loop time), note the time until paired, then leave."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(max(0.0, at - loop.time()))
    # Each player behind an address of its own (the test servers believe 127.0.0.1's
    # X-Forwarded-For): the pairing never groups two identities of one address.
    own = {"X-Forwarded-For": f"198.18.{n // 250 % 250}.{n % 250 + 1}"}
    async with connect(url, max_size=2**20, additional_headers=own) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"P{n}"}))
        async for raw in ws:
            if json.loads(raw)["type"] == "welcome":
                break
        sent = time.perf_counter()
        await ws.send(json.dumps({"type": "queue", "cells": cells}))
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "snapshot":
                waits.append(time.perf_counter() - sent)
                rooms[msg["room_id"]] = rooms.get(msg["room_id"], 0) + 1
            elif msg["type"] == "countdown":
                await ws.send(json.dumps({"type": "leave"}))
                return
            elif msg["type"] == "error":
                print(f"P{n}: error {msg['code']}: {msg['message']}", file=sys.stderr)
                return


async def run(urls: list[str], players: int, seconds: float, cells: int) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time() + 1.0
    rng = random.Random(14)
    waits: list[float] = []
    rooms: dict[str, int] = {}
    tasks = [
        asyncio.create_task(
            player(urls[n % len(urls)], n, start + rng.uniform(0, seconds), cells, waits, rooms)
        )
        for n in range(players)
    ]
    done, pending = await asyncio.wait(tasks, timeout=seconds + 60)
    for task in pending:
        task.cancel()
    failed = sum(1 for t in done if t.exception() is not None)
    sizes = Counter(rooms.values())
    print(f"players {players} over {seconds:.0f} s on {len(urls)} instance(s), cells {cells}")
    print(f"paired {len(waits)} ({players - len(waits)} not paired, {failed} failed)")
    print(
        f"time to be paired: median {percentile(waits, 50) * 1000:.0f} ms, "
        f"p99 {percentile(waits, 99) * 1000:.0f} ms, max {max(waits, default=0) * 1000:.0f} ms"
    )
    total = sum(sizes.values())
    by_size = ", ".join(f"{k}: {sizes[k]}" for k in sorted(sizes))
    share = sizes[4] / total if total else 0.0
    print(f"rooms {total} by racers ({by_size}); share of rooms of 4: {share:.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2000, help="players queueing")
    parser.add_argument("--seconds", type=float, default=60, help="the span of their arrivals")
    parser.add_argument("--instances", type=int, default=2, help="server processes")
    parser.add_argument("--cells", type=int, choices=(4, 2, 1), default=4, help="the variant")
    parser.add_argument("--redis-url", default=None, help="the Redis (default: the machine's)")
    args = parser.parse_args()
    prefix = f"bench-pairing-{secrets.token_hex(3)}:"
    url = args.redis_url or redis_url()
    flags = [*QUICK, "--sockets-per-address", "100000", "--countdown-ms", "500"]
    flags += ["--bot-offer-ms", "600000"]
    servers: list[ServerProc] = []
    try:
        for _ in range(args.instances):
            servers.append(start_server(url, args=flags, env={"SEAHAVEN_KEY_PREFIX": prefix}))
        asyncio.run(run([s.ws_url for s in servers], args.players, args.seconds, args.cells))
    finally:
        for srv in servers:
            srv.stop()
        client = redis.Redis.from_url(url, decode_responses=True)
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

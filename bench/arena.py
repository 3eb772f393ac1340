"""Arena benchmark: bot players in one arena over real server instances, at a human pace.

Starts real ``seahaven serve`` processes (``--instances``, default 2, on ``--redis-url``,
default the machine's Redis, under a key prefix of the run's own). One bot makes a private
arena of ``--minutes`` (default 10; ``--minute-ms`` shortens a minute for a quick run)
starting in 10 s, and ``--players`` bots (default 1000, the maker among them, spread over
the instances in turn, each behind an address of its own) join it. Each bot races every
race it is paired into: it plays the solver's line of the deal (the moves of
:mod:`server.clients.bot`) at about ``--speed`` actions a second (each bot its own pace, a
human's: 0.6 to 1.4 times it), pledges no take-backs in half its races, and is back in the
pool after each. Prints the pairing wait (from the pool to the race's ``snapshot``: median,
p99), the races played, the ack p99 of every move, the largest ``arena_standings`` push,
the acknowledged moves lost (a finisher's acked moves against the moves the server counted
for it), and whether the final table of ``GET /api/arena/ID`` equals the one recomputed
from the races Redis recorded (:mod:`server.arena.points`).

Run: ``.venv/bin/python bench/arena.py`` (or ``--players 60 --minutes 3 --minute-ms 20000``
for a check).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402

from bench.stats import percentile  # noqa: E402
from server.arena.points import Race, Racer, standings  # noqa: E402
from server.clients.bot import action_message, plan  # noqa: E402
from server.engine import Board  # noqa: E402
from server.store.keys import Keys  # noqa: E402
from tests.helpers.serverproc import QUICK, REVIEW_OFF, ServerProc, redis_url, start_server  # noqa: E402


def line_of(code: str) -> tuple[str, ...]:
    """The solver's winning line of a deal (in a worker process)."""
    return plan(Board.from_code(code))


class Figures:
    """What the bots measured."""

    def __init__(self) -> None:
        self.waits: list[float] = []
        self.acks: list[float] = []
        self.races: set[str] = set()
        self.largest_push = 0
        self.lost = 0
        self.checked = 0
        self.over = 0
        self.errors: list[str] = []
        self.stuck = 0


class Lines:
    """Solver lines by deal, each worked out once in the process pool."""

    def __init__(self, pool: ProcessPoolExecutor) -> None:
        self.pool = pool
        self.found: dict[str, asyncio.Future[tuple[str, ...]]] = {}

    def of(self, code: str) -> asyncio.Future[tuple[str, ...]]:
        if code not in self.found:
            loop = asyncio.get_running_loop()
            self.found[code] = asyncio.ensure_future(loop.run_in_executor(self.pool, line_of, code))
        return self.found[code]


async def bot(
    url: str,
    n: int,
    arena: asyncio.Future[str] | None,
    made: asyncio.Future[str],
    figures: Figures,
    lines: Lines,
    speed: float,
    minutes: int,
) -> None:
    """One player: join (or make) the arena, race every race until the podium."""
    own = {"X-Forwarded-For": f"198.18.{n // 250 % 250}.{n % 250 + 1}"}
    rng = random.Random(n)
    pace = speed * rng.uniform(0.6, 1.4)
    async with connect(url, max_size=2**22, additional_headers=own, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "hello", "name": f"B{n}"}))
        pending: dict[int, float] = {}
        acked = 0
        me = ""
        pooled = time.perf_counter()
        playing: asyncio.Task[None] | None = None

        async def race(code: str) -> None:
            nonlocal acked
            line = await lines.of(code)
            await asyncio.sleep(rng.uniform(1.0, 3.0))  # reading the deal
            for i, text in enumerate(line):
                pending[i] = time.perf_counter()
                await ws.send(json.dumps(action_message(text, i)))
                await asyncio.sleep(rng.expovariate(pace))

        async for raw in ws:
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "welcome":
                me = msg["player_id"]
                if arena is None:
                    await ws.send(
                        json.dumps(
                            {
                                "type": "create_arena",
                                "cells": 4,
                                "minutes": minutes,
                                "starts_in_s": 10,
                            }
                        )
                    )
                else:
                    await ws.send(json.dumps({"type": "arena_join", "arena": await arena}))
            elif kind == "arena":
                if arena is None and not made.done():
                    made.set_result(msg["arena"]["arena_id"])
                if msg["seat"] == "pool":
                    # Waiting from now, or from the arena's start if it is still to come.
                    to_start = (msg["arena"]["starts_at"] - msg["now"]) / 1000
                    pooled = time.perf_counter() + max(0.0, to_start)
            elif kind == "snapshot" and msg.get("paired"):
                figures.waits.append(max(0.0, time.perf_counter() - pooled))
                figures.races.add(msg["room_id"])
                pending.clear()
                acked = 0
                if rng.random() < 0.5:
                    await ws.send(json.dumps({"type": "arena_pledge"}))
            elif kind == "started":
                playing = asyncio.create_task(race(msg["code"]))
            elif kind == "ack":
                sent = pending.pop(int(msg["id"]), None)
                if sent is not None:
                    figures.acks.append(time.perf_counter() - sent)
                    acked += 1
            elif kind == "finished" and msg["player_id"] == me:
                figures.checked += 1
                if int(msg["moves"]) < acked:
                    figures.lost += acked - int(msg["moves"])
            elif kind == "race_over" and playing is not None:
                playing.cancel()
                playing = None
            elif kind == "arena_standings":
                figures.largest_push = max(figures.largest_push, len(raw))
            elif kind == "arena_over":
                figures.over += 1
                return
            elif kind == "error" and msg["code"] not in ("no_pledge",):
                figures.errors.append(f"B{n}: {msg['code']}")
                if msg["code"] in ("arena_not_found", "arena_over"):
                    return


async def run(
    urls: list[str], players: int, minutes: int, minute_ms: int, speed: float
) -> tuple[str, Figures]:
    figures = Figures()
    loop = asyncio.get_running_loop()
    made: asyncio.Future[str] = loop.create_future()
    with ProcessPoolExecutor(1) as pool:
        lines = Lines(pool)
        tasks = [asyncio.create_task(bot(urls[0], 0, None, made, figures, lines, speed, minutes))]
        for n in range(1, players):
            tasks.append(
                asyncio.create_task(
                    bot(urls[n % len(urls)], n, made, made, figures, lines, speed, minutes)
                )
            )
            if n % 50 == 0:
                await asyncio.sleep(0.05)  # connections over a moment, not one burst
        # The arena's end, the last races' time limit after it, and a margin.
        budget = 10 + minutes * minute_ms / 1000 + 200
        _done, pending = await asyncio.wait(tasks, timeout=budget)
        figures.stuck = len(pending)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        failed = [t.exception() for t in tasks if not t.cancelled() and t.exception() is not None]
        if failed:
            print(f"{len(failed)} bots failed, the first: {failed[0]!r}", file=sys.stderr)
    return made.result(), figures


def recomputed(raw: list[str]) -> list[tuple[str, int, int, int]]:
    """The table from the recorded races, read here."""
    races = []
    for text in raw:
        r = json.loads(text)
        racers = tuple(
            Racer(x["pid"], x["place"], x["time_ms"], x["pledged"], x["kept"]) for x in r["racers"]
        )
        races.append(Race(r["race"], r["at"], racers))
    return [(x.pid, x.points, x.streak, x.races) for x in standings(races) if x.races]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=1000, help="bot players")
    parser.add_argument("--minutes", type=int, default=10, help="the arena's length")
    parser.add_argument("--minute-ms", type=int, default=60_000, help="an arena minute")
    parser.add_argument("--speed", type=float, default=1.0, help="a bot's actions a second")
    parser.add_argument("--instances", type=int, default=2, help="server processes")
    parser.add_argument("--redis-url", default=None, help="the Redis (default: the machine's)")
    args = parser.parse_args()
    prefix = f"bench-arena-{secrets.token_hex(3)}:"
    url = args.redis_url or redis_url()
    flags = [*QUICK, *REVIEW_OFF, "--sockets-per-address", "100000", "--countdown-ms", "2000"]
    flags += ["--arenas", "", "--arena-minute-ms", str(args.minute_ms)]
    flags += ["--provisional-games", "0", "--bot-offer-ms", "6000000"]
    servers: list[ServerProc] = []
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        for _ in range(args.instances):
            servers.append(start_server(url, args=flags, env={"SEAHAVEN_KEY_PREFIX": prefix}))
        began = time.perf_counter()
        urls = [s.ws_url for s in servers]
        arena, f = asyncio.run(run(urls, args.players, args.minutes, args.minute_ms, args.speed))
        took = time.perf_counter() - began
        status, table = servers[0].get_json(f"/api/arena/{arena}")
        raw = [str(x) for x in client.lrange(Keys(prefix).arena_results(arena), 0, -1)]
        api = [(x["player_id"], x["points"], x["streak"], x["races"]) for x in table["standings"]]
        print(
            f"players {args.players} in one arena of {args.minutes} min "
            f"(a minute {args.minute_ms} ms) on {args.instances} instances; ran {took:.0f} s"
        )
        print(
            f"pairing wait: median {percentile(f.waits, 50) * 1000:.0f} ms, "
            f"p99 {percentile(f.waits, 99) * 1000:.0f} ms ({len(f.waits)} pairings)"
        )
        print(
            f"races played {len(f.races)} (recorded {len(raw)}); podium heard by {f.over} bots"
            f" ({f.stuck} still waiting at the budget's end)"
        )
        print(
            f"ack p99 {percentile(f.acks, 99) * 1000:.1f} ms, median "
            f"{percentile(f.acks, 50) * 1000:.1f} ms ({len(f.acks)} moves)"
        )
        print(f"largest standings push {f.largest_push} bytes")
        print(f"acknowledged moves lost: {f.lost} (over {f.checked} finishes)")
        print(
            f"final standings equal the recomputation: {status == 200 and api == recomputed(raw)}"
        )
        if f.errors:
            print(f"errors heard: {len(f.errors)}, the first: {f.errors[:3]}")
    finally:
        for srv in servers:
            srv.stop()
        keys = list(client.scan_iter(match=prefix + "*", count=1000))
        for i in range(0, len(keys), 500):
            client.delete(*keys[i : i + 500])
        client.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

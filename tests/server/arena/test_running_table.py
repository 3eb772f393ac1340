"""The running standings equal the definition (:func:`server.arena.points.standings`)
however races arrive (late, amended), and each race costs the same at the 50,000th as at
the 50th: counted as the races folded, through the store on a real Redis and the arena's
page (``GET /api/arena/ID``'s body), with a small fake of the instance."""

from __future__ import annotations

import functools
import json
import random

import redis.asyncio as aioredis

from server.arena import standings as shown
from server.arena.points import Race, Racer, standings
from server.arena.standings import known
from server.arena.table import RunningTable
from server.clock import now_ms
from server.store import arenas
from tests.helpers.fakes_arena import FakeHost, settings
from tests.helpers.waits import until

PLAYERS = [f"p{i}" for i in range(12)]


def a_race(rng: random.Random, n: int, at: int) -> Race:
    """A race of 2 to 4 random players, some finishing, some absent (not finished), some
    of one household."""
    pids = rng.sample(PLAYERS, rng.randint(2, 4))
    places = list(range(1, len(pids) + 1))
    racers = []
    for pid in pids:
        finished = rng.random() < 0.7
        place = places.pop(0) if finished else None
        racers.append(
            Racer(
                pid,
                place,
                rng.randint(30_000, 90_000) if finished else None,
                pledged=rng.random() < 0.3,
                kept=rng.random() < 0.7,
                name=pid.upper(),
                absent=not finished and rng.random() < 0.5,
                home=1 if rng.random() < 0.2 else 0,
            )
        )
    return Race(f"R{n}/1", at, tuple(racers))


def test_the_running_table_is_the_defined_one_whatever_the_order() -> None:
    rng = random.Random(37)
    for _trial in range(30):
        races = [a_race(rng, n, 1000 * n + rng.randint(0, 999)) for n in range(60)]
        arrived = list(races)
        rng.shuffle(arrived)  # recorded in any order (a review ends late)
        # Some amended later: a finisher's place given back, recorded again.
        for race in rng.sample(races, 8):
            first = race.racers[0]
            arrived.append(
                Race(race.race, race.at, (Racer(first.pid, 1, 40_000), *race.racers[1:]))
            )
        table = RunningTable()
        joined = [(pid, pid.upper()) for pid in PLAYERS[:10]]
        for pid, name in joined:
            table.join(pid, name)
        for i, race in enumerate(arrived):
            table.record(race)
            if i % 17 == 0 or i == len(arrived) - 1:
                assert table.top() == standings(arrived[: i + 1], joined)
        for line in standings(arrived, joined):
            assert table.rank_of(line.pid) == line


def test_a_race_in_time_costs_its_racers_only() -> None:
    table = RunningTable()
    rng = random.Random(5)
    costs = {}
    for n in range(1, 50_001):
        race = a_race(rng, n, n * 1000)
        before = table.work
        table.record(race)
        if n in (50, 50_000):
            costs[n] = (table.work - before, len(race.racers))
    assert costs[50][0] == costs[50][1] and costs[50_000][0] == costs[50_000][1]


async def test_the_standings_cost_the_same_at_race_50000_as_at_race_50(
    redis_client: aioredis.Redis, key_prefix: str
) -> None:
    ctx = FakeHost.on(redis_client, key_prefix, settings())
    arena, costs = "Atablecost", {}
    fields: dict[str, str | int] = {
        "cells": 4,
        "minutes": 60,
        "starts_at": 0,
        "ends_at": now_ms() + 86_400_000,
        "private": 1,
        "made_by": "p0",
    }
    await arenas.create(ctx.store, arena, fields)
    rng = random.Random(50)
    recorded = 0
    for upto in (50, 50_000):
        # The races before, as recorded (in bulk: the test's own writes).
        key = ctx.store.keys.arena_results(arena)
        batch = []
        while recorded < upto - 1:
            recorded += 1
            race = a_race(rng, recorded, recorded * 1000)
            batch.append(json.dumps(record_of(race)))
            if len(batch) == 5000 or recorded == upto - 1:
                await redis_client.rpush(key, *batch)
                batch = []

        async def caught_up(want: int) -> bool:
            found = await known(ctx, arena)
            return found is not None and len(found.running.races) == want

        await until(functools.partial(caught_up, recorded), timeout=60, what="all read")
        entry = await known(ctx, arena)
        assert entry is not None
        before = entry.running.work
        # The next race, recorded by the server's own script, then looked at (by the
        # test or the instance's arena loop: the work is counted whoever looks).
        recorded += 1
        race = a_race(rng, recorded, recorded * 1000)
        pids = [r.pid for r in race.racers]
        room = race.race.split("/")[0]
        end = now_ms() + 86_400_000
        await arenas.record(
            ctx.store, arena, race.race, room, json.dumps(record_of(race)), pids, end
        )
        await until(functools.partial(caught_up, recorded), timeout=10, what="the new read")
        costs[upto] = (entry.running.work - before, len(race.racers))
    # Each look folded the one new race into its racers' lines: the same work.
    assert costs[50][0] == costs[50][1] and costs[50_000][0] == costs[50_000][1]
    body = await shown.table(ctx, arena)
    assert body is not None and body["races"] == 50_000


def record_of(race: Race) -> dict[str, object]:
    """A race as the arena's results list holds it."""
    return {
        "race": race.race,
        "at": race.at,
        "racers": [
            {
                "pid": r.pid,
                "name": r.name,
                "place": r.place,
                "time_ms": r.time_ms,
                "pledged": r.pledged,
                "kept": r.kept,
                "absent": r.absent,
                "home": r.home,
            }
            for r in race.racers
        ],
    }

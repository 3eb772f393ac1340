"""A game alone that is over keeps its events and logs minutes, not hours
(:meth:`server.store.store.Store.let_go_alone`, ``lua/room_done_alone.lua``), on a real
Redis through the store's own scripts: won, or given up by leaving; the player's statistics
stay; a race room, a game someone else is in, or one still played keeps its hours. Through
a server (a win and a leave let the room go): ``test_storage.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.engine import Board
from server.engine.solver import solve
from server.net import wire
from server.store.commit import BoardLimits
from server.store.keys import Keys
from server.store.status import Status
from server.store.store import Store
from tests.helpers.serverproc import redis_url
from tests.helpers.store_rooms import CODE, joined, made, played

SHORT = 120
ROOM_TTL = 6 * 3600
LINE = solve(Board.from_code(CODE), timeout=10).moves


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=ROOM_TTL, limits=BoardLimits(burst=1000))
    yield store
    await store.aclose()
    await client.aclose()


async def ttls(store: Store, room: str, pid: str) -> dict[str, int]:
    """The seconds each of a room's keys has left (-2: gone, as an empty hash is)."""
    keys = store.keys
    names = {
        "room": keys.room(room),
        "members": keys.members(room),
        "events": keys.events(room),
        "log": keys.log(room, 1, pid),
        "ids": keys.ids(room, 1, pid),
        "res": keys.results(room, 1),
    }
    return {name: int(await store.redis.ttl(key)) for name, key in names.items()}


def short(left: dict[str, int]) -> bool:
    return all(t == -2 or 0 < t <= SHORT for t in left.values())


async def leave(store: Store, room: str, pid: str, moves: int) -> None:
    body, result = wire.gave_up_body(pid, 1, moves), wire.result(pid, pid, "gave_up", None, moves)
    assert (await store.leave(room, pid, "c0", body, result)).status is Status.OK


async def test_a_game_alone_won_or_left_goes_in_minutes_and_its_statistics_stay(
    store: Store,
) -> None:
    stats = store.keys.solo_stats("ann", 4)
    await store.redis.hset(stats, "games", 1)
    await store.redis.expire(stats, 400 * 86_400)
    await made(store, "WONALONE", ("ann",), mode="solo")
    await played(store, "WONALONE", "ann", Board.from_code(CODE), list(LINE))
    assert await store.redis.hget(store.keys.room("WONALONE"), "state") == "done"
    assert not short(await ttls(store, "WONALONE", "ann"))  # hours, before it is let go
    assert await store.let_go_alone("WONALONE", 1, "ann", SHORT)
    assert short(won := await ttls(store, "WONALONE", "ann")), won
    await leave(store, "WONALONE", "ann", len(LINE))
    assert await store.let_go_alone("WONALONE", 1, "ann", SHORT)
    assert short(left := await ttls(store, "WONALONE", "ann")), left
    assert await store.redis.ttl(stats) > ROOM_TTL  # the statistics are not the room's
    # Given up by leaving after some moves: the same.
    await made(store, "GAVEUPAL", ("ann",), mode="solo")
    await played(store, "GAVEUPAL", "ann", Board.from_code(CODE), list(LINE[:3]))
    await leave(store, "GAVEUPAL", "ann", 3)
    assert await store.let_go_alone("GAVEUPAL", 1, "ann", SHORT)
    assert short(gone := await ttls(store, "GAVEUPAL", "ann")), gone
    # A daily game alone is let go as a solo one.
    await made(store, "DAILYALO", ("ann",), mode="daily")
    await leave(store, "DAILYALO", "ann", 0)
    assert await store.let_go_alone("DAILYALO", 1, "ann", SHORT)


async def test_a_race_a_game_watched_or_one_still_played_keeps_its_hours(
    store: Store,
) -> None:
    # A race room with two racers, over: its hours.
    await made(store, "RACEROOM", ("bob", "cy"))
    for pid in ("bob", "cy"):
        body, result = wire.gave_up_body(pid, 1, 0), wire.result(pid, pid, "gave_up", None, 0)
        assert (await store.give_up("RACEROOM", 1, pid, body, result, "c0")).status is Status.OK
    assert await store.redis.hget(store.keys.room("RACEROOM"), "state") == "done"
    await leave(store, "RACEROOM", "bob", 0)
    assert not await store.let_go_alone("RACEROOM", 1, "bob", SHORT)
    kept = await ttls(store, "RACEROOM", "bob")
    assert kept["room"] > SHORT and kept["events"] > SHORT, kept
    await leave(store, "RACEROOM", "cy", 0)  # nobody left in it: a race all the same
    assert not await store.let_go_alone("RACEROOM", 1, "cy", SHORT)
    kept = await ttls(store, "RACEROOM", "cy")
    assert kept["room"] > SHORT and kept["events"] > SHORT, kept
    # A game alone someone else still watches: its hours.
    await made(store, "WATCHED1", ("ann",), mode="solo")
    assert await joined(store, "WATCHED1", "eve", "spectator") is Status.OK
    await played(store, "WATCHED1", "ann", Board.from_code(CODE), list(LINE))
    assert not await store.let_go_alone("WATCHED1", 1, "ann", SHORT)
    assert (await ttls(store, "WATCHED1", "ann"))["room"] > SHORT
    # A game alone still played: its hours.
    await made(store, "STILLPLA", ("ann",), mode="solo")
    await played(store, "STILLPLA", "ann", Board.from_code(CODE), list(LINE[:3]))
    assert not await store.let_go_alone("STILLPLA", 1, "ann", SHORT)
    assert (await ttls(store, "STILLPLA", "ann"))["log"] > SHORT


async def test_a_key_already_going_sooner_is_not_kept_longer(store: Store) -> None:
    await made(store, "SOONGONE", ("ann",), mode="solo")
    await leave(store, "SOONGONE", "ann", 0)
    await store.redis.expire(store.keys.events("SOONGONE"), 30)
    assert await store.let_go_alone("SOONGONE", 1, "ann", SHORT)
    assert 0 < await store.redis.ttl(store.keys.events("SOONGONE")) <= 30

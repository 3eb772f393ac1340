"""The Watch list (``GET /api/rooms/live``, :func:`server.store.listing.live_rooms`) reads
every state a public room can be in, on a real Redis through the store's own scripts.

A racer who finishes with "Send all home" commits several actions in one request, and the
move script keeps each one's progress, a line each, in the room's progress field: the list
once read that field as one JSON object and answered 500 to every visitor while such a race
ran. One room it cannot read never fails the whole list either.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.store.commit import BoardLimits
from server.store.keys import Keys
from server.store.listing import list_room, list_running, live_rooms
from server.store.status import Status
from server.store.store import Store
from tests.helpers.serverproc import redis_url
from tests.helpers.store_rooms import CODE, NOW, commit, made, played


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    # The solver's line in one instant: the board's rate out of the way.
    store = Store(client, Keys(key_prefix), ttl=60, limits=BoardLimits(burst=1000))
    yield store
    await store.aclose()
    await client.aclose()


def line_to_send_home(code: str) -> list[str]:
    """The solver's line up to the first board where every card left can go home."""
    board = Board.from_code(code)
    played: list[str] = []
    for text in solve(Board.from_code(code)).moves:
        if board.can_send_home():
            return played
        board.play(parse_action(text))
        played.append(text)
    raise AssertionError("the line never reaches a send home")


async def listed(store: Store, room: str, racers: tuple[str, ...], start: bool) -> None:
    """A public room of ``racers``, among the lobbies, and among the races if ``start``."""
    await made(store, room, racers, public=True, start=start)
    await list_room(store, room, NOW)
    if start:
        await list_running(store, room, NOW)


async def test_a_send_home_finish_while_a_rival_races_keeps_the_list_reading(
    store: Store,
) -> None:
    room = "SENDHOME"
    await listed(store, room, ("ann", "bob"), start=True)
    board = Board.from_code(CODE)
    line = line_to_send_home(CODE)
    version = await played(store, room, "ann", board, line)
    taps = [str(tap) for tap in board.send_home_taps()]
    assert len(taps) > 1
    finish = commit(room, "ann", board, taps, version)
    assert finish.finishing
    assert (await store.move(finish)).status is Status.OK
    # The move script kept one progress line per tap.
    kept = await store.redis.hget(store.keys.room(room), "pg:ann")
    assert kept is not None and kept.count("\n") == len(taps) - 1
    # Bob still races: the room is live, Ann's progress is that of several actions at once.
    (entry,) = await live_rooms(store)
    assert entry["room_id"] == room and entry["state"] == "racing"
    mine = next(r for r in entry["racers"] if r["name"] == "Ann")
    assert mine["finished"] and mine["foundation_cards"] == 52
    assert mine["moves"] > len(line)  # the taps the send home stood for count as moves
    bob = next(r for r in entry["racers"] if r["name"] == "Bob")
    assert not bob["finished"] and bob["moves"] == 0


async def test_one_room_the_list_cannot_read_is_left_out_not_the_list(store: Store) -> None:
    await listed(store, "GOODROOM", ("gus",), start=False)
    await listed(store, "BADROOM1", ("bea",), start=False)
    assert {r["room_id"] for r in await live_rooms(store)} == {"GOODROOM", "BADROOM1"}
    await store.redis.hset(store.keys.room("BADROOM1"), "pg:bea", "not json at all")
    listed_now = await live_rooms(store)
    assert [r["room_id"] for r in listed_now] == ["GOODROOM"]

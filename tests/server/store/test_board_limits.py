"""A board's limits, checked by the move script whatever socket sends (so that no client
can slow or fill the store by opening more sockets or playing forever), and a room's events
that count its spectators instead of listing them: on the store of an instance's context
built from ``seahaven serve``'s flags, on a real Redis, without a server."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator

import pytest

from server.engine import Board, parse_action
from server.engine.solver import solve
from server.net import wire
from server.store.status import Status
from server.store.store import Store
from tests.helpers.fakes_http import on_redis
from tests.helpers.inproc import settings
from tests.helpers.store_rooms import CODE, NOW, commit, joined, made

LINE = solve(Board.from_code(CODE)).moves


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    """The store of a context whose boards take 5 actions a second (bursts of 5) and 100
    actions at most, and whose rooms take 40 spectators."""
    args = ["--board-rate-per-s", "5", "--board-burst", "5", "--max-actions", "100"]
    args += ["--spectators-per-room", "40"]
    env = {"SEAHAVEN_KEY_PREFIX": f"test-limits-{secrets.token_hex(4)}:"}
    async with on_redis(settings(args, env)) as ctx:
        yield ctx.store


async def test_many_sockets_of_one_player_share_one_boards_rate(store: Store) -> None:
    await made(store, "RATEROOM", ("ann", "bob"))
    board, version, answers = Board.from_code(CODE), 0, []
    for n in range(20):  # five sockets of Ann's take turns, all in one moment
        text = LINE[version]
        request = commit("RATEROOM", "ann", board.copy(), [text], version, origin=f"c{n % 5}")
        answers.append((await store.move(request)).status)
        if answers[-1] is Status.OK:
            board.play(parse_action(text))
            version += 1
    assert answers == [Status.OK] * 5 + [Status.RATE_LIMITED] * 15
    # Bob's board has a bucket of its own.
    bob = commit("RATEROOM", "bob", Board.from_code(CODE), [LINE[0]], 0)
    assert (await store.move(bob)).status is Status.OK
    # A second later, Ann's bucket holds five again.
    for _ in range(5):
        request = commit("RATEROOM", "ann", board, [LINE[version]], version, now=NOW + 1000)
        assert (await store.move(request)).status is Status.OK
        version += 1
    request = commit("RATEROOM", "ann", board, [LINE[version]], version, now=NOW + 1000)
    assert (await store.move(request)).status is Status.RATE_LIMITED


async def test_a_board_takes_a_bounded_number_of_actions(store: Store) -> None:
    await made(store, "LONGGAME", ("ann",), mode="solo")
    board = Board.from_code(CODE)
    # A move and its undo, again and again, a second apart (the rate out of the way).
    for version in range(100):
        text = LINE[0] if version % 2 == 0 else "undo"
        request = commit("LONGGAME", "ann", board, [text], version, now=NOW + 1000 * version)
        assert (await store.move(request)).status is Status.OK, version
    last = commit("LONGGAME", "ann", board, [LINE[0]], 100, now=NOW + 200_000)
    assert (await store.move(last)).status is Status.TOO_MANY_ACTIONS
    assert await store.redis.llen(store.keys.log("LONGGAME", 1, "ann")) == 100


async def test_room_events_count_spectators_instead_of_listing_them(store: Store) -> None:
    await made(store, "WATCHED3", ("ann",), start=False)
    for i in range(30):
        assert await joined(store, "WATCHED3", f"w{i}", "spectator") is Status.OK
    found = await store.events_after("WATCHED3", 0)
    assert found is not None
    rooms = [json.loads(wire.render(e)) for e in found[1]]
    rooms = [e for e in rooms if e["type"] == "room"]
    assert [e["spectators"] for e in rooms[-30:]] == list(range(1, 31))
    for event in rooms[-30:]:
        assert [p["player_id"] for p in event["players"]] == ["ann"]
    sizes = [len(json.dumps(e)) for e in rooms[-30:]]
    # The 30th spectator's event is as small as the first's (a count grows by a digit).
    assert sizes[-1] - sizes[0] <= 2

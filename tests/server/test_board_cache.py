"""An instance's board cache (:class:`server.cache.BoardCache`) deals the opening board of a
round that has just started to each of its racers with a socket here, so that their first
actions read no log; a copy an action already made newer is kept, and a copy replaced by a
newer one is marked dropped (whoever holds it fetches a fresh one). On a store on a real
Redis, without a server; across two server processes: ``transport/test_server_instances.py``."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.cache import BoardCache, BoardEntry
from server.engine import Board, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from server.store.store import Store
from tests.helpers.serverproc import redis_url

CODE = "SH1-C4-AAAAAAE"
LINE = solve(Board.from_code(CODE)).moves


@pytest.fixture
async def store(key_prefix: str) -> AsyncIterator[Store]:
    client = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    store = Store(client, Keys(key_prefix), ttl=60)
    yield store
    await store.aclose()
    await client.aclose()


class Rebuilds:
    """Counts the boards a cache rebuilt from their log."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> None:
        self.count += 1


async def test_a_dealt_board_is_the_opening_and_reads_no_log(store: Store) -> None:
    rebuilt = Rebuilds()
    boards = BoardCache(store, rebuilt)
    boards.deal("ROOM", 2, ["ann", "bob"], CODE)
    ann = await boards.get("ROOM", 2, "ann", CODE)
    bob = await boards.get("ROOM", 2, "bob", CODE)
    assert rebuilt.count == 0
    assert ann.version == 0 and ann.board == Board.from_code(CODE) and ann.first_ms is None
    assert ann.board is not bob.board  # each racer's own copy
    ann.board.play(parse_action(LINE[0]))
    assert bob.board == Board.from_code(CODE)
    # A racer with no socket here is not dealt: their board is read from the log at need.
    await store.redis.rpush(store.keys.log("ROOM", 2, "cy"), f"1\t1\t{LINE[0]}")
    cy = await boards.get("ROOM", 2, "cy", CODE)
    assert rebuilt.count == 1 and cy.version == 1


async def test_a_copy_an_action_made_newer_is_kept_at_the_deal(store: Store) -> None:
    boards = BoardCache(store)
    board = Board.from_code(CODE)
    board.play(parse_action(LINE[0]))
    newer = BoardEntry(board, 1, 5, 5)
    boards.put(("ROOM", 1, "ann"), newer)
    boards.deal("ROOM", 1, ["ann"], CODE)
    assert await boards.get("ROOM", 1, "ann", CODE) is newer and not newer.dropped


async def test_a_copy_replaced_by_a_newer_one_is_dropped(store: Store) -> None:
    boards = BoardCache(store)
    boards.deal("ROOM", 1, ["ann"], CODE)
    dealt = await boards.get("ROOM", 1, "ann", CODE)
    board = Board.from_code(CODE)
    board.play(parse_action(LINE[0]))
    boards.put(("ROOM", 1, "ann"), BoardEntry(board, 1, 5, 5))  # read after another's action
    assert dealt.dropped
    assert (await boards.get("ROOM", 1, "ann", CODE)).version == 1
    same = BoardEntry(Board.from_code(CODE), 1, 5, 5)
    boards.put(("ROOM", 1, "ann"), same)  # a copy of the same version changes nothing
    assert (await boards.get("ROOM", 1, "ann", CODE)) is not same

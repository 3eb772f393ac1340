"""An arena's records are bounded, through a real server: a race nobody contested (the
rivals gave up at once) is recorded as no race and costs the standings nothing; a player
past ``--arena-races-per-player`` recorded races is out of the arena, told ``slow_down``
with when it ends (their own bound only)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.serverproc import (
    FAST,
    REVIEW_OFF,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
)

ARGS = [
    *FAST,
    *REVIEW_OFF,
    *("--provisional-games", "0", "--bot-offer-ms", "600000"),
    *("--arenas", "", "--arena-minute-ms", "1000", "--arena-pair-ms", "800"),
    *("--arena-races-per-player", "1"),
    # The contest rule as shipped (the tests' shared flags turn it off): rivals who give up
    # at once are absent.
    *("--contest-min-tables", "20", "--contest-min-home", "8", "--contest-min-s", "60"),
]


@pytest.fixture
def server(key_prefix: str) -> Iterator[ServerProc]:
    with running_server(redis_url(), args=ARGS, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        yield srv


async def started(clients: list[WsClient]) -> str:
    """Everyone is brought into one race, and it starts; its deal's code."""
    snaps = [await c.expect("snapshot", timeout=15) for c in clients]
    assert len({s["room_id"] for s in snaps}) == 1
    codes = [(await c.expect("started", timeout=10))["code"] for c in clients]
    return str(codes[0])


async def win(client: WsClient, line: list[str]) -> None:
    for i, text in enumerate(line):
        await client.send(action_message(text, i))
        await client.expect("ack", id=i, timeout=10)
    await client.expect("finished", player_id=client.player_id, timeout=10)


@pytest.mark.slow
async def test_uncontested_races_cost_nothing_and_a_player_has_a_bound(
    server: ServerProc, key_prefix: str, redis_client: aioredis.Redis
) -> None:
    ann = await WsClient.connect(server.ws_url, "Ann")
    bob = await WsClient.connect(server.ws_url, "Bob")
    await ann.send({"type": "create_arena", "cells": 4, "minutes": 60, "starts_in_s": 1})
    arena = str((await ann.expect("arena"))["arena"]["arena_id"])
    await bob.send({"type": "arena_join", "arena": arena})
    await bob.expect("arena")
    results = Keys(key_prefix).arena_results(arena)

    # Race 1: both give up at once: no race recorded, both back in the pool.
    await started([ann, bob])
    for c in (ann, bob):
        await c.send({"type": "give_up"})
    for c in (ann, bob):
        await c.expect("race_over", timeout=15)
        await c.expect("arena", seat="pool", timeout=10)
    assert await redis_client.llen(results) == 0
    status, table = server.get_json(f"/api/arena/{arena}")
    assert status == 200 and table["races"] == 0

    # Race 2: both win it: recorded; each has had their one race and is out.
    code = await started([ann, bob])
    line = await asyncio.to_thread(lambda: list(solve(Board.from_code(code), timeout=20).moves))
    await win(ann, line)
    await win(bob, line)
    for c in (ann, bob):
        await c.expect("race_over", timeout=15)
        refused = await c.expect("error", code="slow_down", timeout=10)
        assert 0 < refused["retry_s"] <= 3600
        assert (await c.expect("arena_left", timeout=10))["reason"] == "over"
    assert await redis_client.llen(results) == 1
    status, table = server.get_json(f"/api/arena/{arena}")
    assert table["races"] == 1 and table["standings"][0]["player_id"] == ann.player_id
    for c in (ann, bob):
        await c.close()

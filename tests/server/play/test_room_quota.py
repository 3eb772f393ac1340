"""Rooms an hour per identity and per address, through a real server: past either, a new
game is refused with ``slow_down`` and when to come back; what was made is all still there;
the refusal says nothing of anyone else, and a refused attempt counts for nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.ranked.ratings import address_mark
from server.store.keys import Keys
from tests.helpers.serverproc import FAST, ServerProc, WsClient, redis_url, running_server

ADDRESS = "198.18.250.7"


@pytest.fixture
async def server(key_prefix: str) -> AsyncIterator[ServerProc]:
    args = [*FAST, "--rooms-per-hour", "3", "--rooms-per-hour-per-address", "5"]
    with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        yield srv


async def player(srv: ServerProc, name: str) -> WsClient:
    """A player of the one address the test counts."""
    headers = {"X-Forwarded-For": ADDRESS}
    return await WsClient.connect(srv.ws_url, name, additional_headers=headers)


async def solo(c: WsClient) -> dict[str, Any]:
    """Start a solo game and leave it: the snapshot, or the refusal."""
    await c.send({"type": "solo"})
    while True:
        for kind in ("snapshot", "error"):
            found = c.find(kind)
            if found is not None:
                if kind == "snapshot":
                    await c.send({"type": "leave"})
                    await c.expect("left")
                return found
        await _wait(c)


async def _wait(c: WsClient) -> None:
    await c.send({"type": "ping"})
    await c.expect("pong")


async def test_rooms_an_hour_per_identity_then_per_address(
    server: ServerProc, key_prefix: str
) -> None:
    ann = await player(server, "ann")
    rooms = []
    for _ in range(3):
        got = await solo(ann)
        assert got["type"] == "snapshot", got
        rooms.append(got["room_id"])
    refused = await solo(ann)
    assert refused["type"] == "error" and refused["code"] == "slow_down", refused
    assert 0 < refused["retry_s"] <= 3600
    # Its message names no one and no count of anyone else's.
    assert "ann" not in refused["message"] and ADDRESS not in refused["message"]
    # Every other way to make a room is refused too; a race room as well.
    await ann.send({"type": "create_room"})
    again = await ann.expect("error", code="slow_down")
    assert again["retry_s"] <= refused["retry_s"]
    # Nothing made is lost: the first game is still there to come back to.
    await ann.send({"type": "resume", "room": rooms[0], "token": ann.token, "last_seq": 0})
    await ann.expect("room", room_id=rooms[0])
    await ann.send({"type": "leave"})
    await ann.expect("left")

    # Bob, of the same address, may make the address's last two, then hears slow_down.
    bob = await player(server, "bob")
    for _ in range(2):
        assert (await solo(bob))["type"] == "snapshot"
    late = await solo(bob)
    assert late["type"] == "error" and late["code"] == "slow_down"
    # A player of another address is not touched.
    cy = await WsClient.connect(server.ws_url, "cy")
    assert (await solo(cy))["type"] == "snapshot"

    # The refusals took nothing: the counters stand at the allowances.
    keys = Keys(key_prefix)
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:
        assert await r.get(keys.rooms_made(ann.player_id)) == "3"
        assert await r.get(keys.rooms_made(bob.player_id)) == "2"
        assert await r.get(keys.address_rooms(address_mark(ADDRESS))) == "5"
        assert 0 < await r.ttl(keys.address_rooms(address_mark(ADDRESS))) <= 3600
    finally:
        await r.aclose()
    for c in (ann, bob, cy):
        await c.close()

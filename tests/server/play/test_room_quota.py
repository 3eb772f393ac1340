"""Rooms an hour per identity and per address, decided without a server (the counters real
on Redis, the socket a fake): past either allowance a new room is refused with
``slow_down`` and when to come back; the refusal says nothing of anyone else, and a
refused attempt counts for nothing. That every way to make a room asks it, and that what
was made stays, is the journey in :mod:`tests.server.play.test_play_server`."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.play.rooms import may_make_room
from server.ranked.ratings import address_mark
from server.transport.clients import Client
from tests.helpers.fakes_play import Instance, Socket, instance

ADDRESS = "198.18.250.7"
ALLOWANCES = {"SEAHAVEN_ROOMS_PER_HOUR": "3", "SEAHAVEN_ROOMS_PER_HOUR_PER_ADDRESS": "5"}


@pytest.fixture
async def ctx(redis_client: Client, key_prefix: str) -> AsyncIterator[Instance]:
    yield await instance(redis_client, key_prefix, env=ALLOWANCES)


async def make(ctx: Instance, conn: Socket, times: int) -> list[bool]:
    return [await may_make_room(ctx, conn) for _ in range(times)]


async def test_rooms_an_hour_per_identity_then_per_address(ctx: Instance) -> None:
    ann = Socket(pid="pann", address=ADDRESS)
    assert await make(ctx, ann, 3) == [True, True, True]
    assert ann.sent == []
    assert await make(ctx, ann, 1) == [False]
    (refused,) = ann.sent
    assert (refused["type"], refused["code"]) == ("error", "slow_down")
    assert 0 < refused["retry_s"] <= 3600
    # Its message names no one and no count of anyone else's.
    assert "pann" not in refused["message"] and ADDRESS not in refused["message"]
    assert ctx.metrics.registry.get_sample_value("seahaven_errors_total") == 1

    # Bob, of the same address, may make the address's last two, then hears slow_down.
    bob = Socket(pid="pbob", address=ADDRESS)
    assert await make(ctx, bob, 3) == [True, True, False]
    assert bob.sent[-1]["code"] == "slow_down"
    # A player of another address is not touched.
    cy = Socket(pid="pcy", address="203.0.113.9")
    assert await make(ctx, cy, 1) == [True]

    # The refusals took nothing: the counters stand at the allowances.
    redis, keys = ctx.store.redis, ctx.store.keys
    assert await redis.get(keys.rooms_made("pann")) == "3"
    assert await redis.get(keys.rooms_made("pbob")) == "2"
    assert await redis.get(keys.address_rooms(address_mark(ADDRESS))) == "5"
    assert 0 < await redis.ttl(keys.address_rooms(address_mark(ADDRESS))) <= 3600
    # The counters name the address by its mark alone.
    assert not [k async for k in redis.scan_iter(match=f"*{ADDRESS}*")]

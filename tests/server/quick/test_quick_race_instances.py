"""A quick race's paired room across instances that come and go: it starts although the
instance that made it died; a player brought in too late waits again in place; racers who
all come after the wait race in a room of their own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from server.store.keys import Keys
from tests.helpers.quick_race import PACE_OFF, stopped
from tests.helpers.serverproc import FAST, ServerProc, WsClient, redis_url, running_server
from tests.helpers.waits import until


@contextlib.contextmanager
def maker_and_keeper(key_prefix: str, join_ms: int) -> Iterator[tuple[ServerProc, ServerProc]]:
    """Two instances that pair groups of 2 or 3 after 1 s, waiting ``join_ms`` for them."""
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    args = [*FAST, *PACE_OFF, "--bot-offer-ms", "60000"]
    args += ["--pair-fourth-ms", "1000", "--pair-join-ms", str(join_ms)]
    with (
        running_server(redis_url(), args=args, env=env) as maker,
        running_server(redis_url(), args=args, env=env) as keeper,
    ):
        yield maker, keeper


async def queue_up(*players: tuple[ServerProc, str]) -> list[WsClient]:
    """Each (instance, name) connects there and queues for a 4-cell quick race."""
    clients = [await WsClient.connect(srv.ws_url, name) for srv, name in players]
    for c in clients:
        await c.send({"type": "queue", "cells": 4})
        await c.expect("queued")
    return clients


@pytest.mark.slow
async def test_a_paired_room_starts_although_the_instance_that_made_it_died(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Two players wait on the keeper; the maker pairs them (the keeper is stopped meanwhile,
    # so only the maker runs pairing passes) and is killed before their sockets can come in
    # and it could start the room. The end of the wait is a deadline in Redis: the keeper
    # starts the race with them.
    paired_key = Keys(key_prefix).queue_paired(4)
    with maker_and_keeper(key_prefix, 1500) as (maker, keeper):
        ann, bob = await queue_up((keeper, "Ann"), (keeper, "Bob"))
        with stopped(keeper):

            async def paired() -> bool:
                return await redis_client.hget(paired_key, ann.player_id) is not None

            await until(paired, timeout=10)
            maker.proc.kill()
            maker.proc.wait(timeout=10)
            room = await redis_client.hget(paired_key, bob.player_id)
        for c in (ann, bob):
            snap = await c.expect("snapshot", timeout=8)
            assert snap["room_id"] == room and snap["paired"] and snap["host"] is None
        started = [await c.expect("started", timeout=10) for c in (ann, bob)]
        assert sorted(started[0]["players"]) == sorted((ann.player_id, bob.player_id))
        for c in (ann, bob):
            await c.close()


@pytest.mark.slow
async def test_a_player_brought_in_too_late_waits_again_in_place(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Ann and Bob wait on the maker, Cy on the keeper, which is stopped while the maker pairs
    # the three and, Cy not coming, starts the race with two. Cy's instance, back, finds
    # the race under way: Cy waits again (no snapshot of that room) and is paired with the
    # next player at once, having waited longer than the wait for a fourth.
    wait_key = Keys(key_prefix).queue_wait(4)
    with maker_and_keeper(key_prefix, 1000) as (maker, keeper):
        cy, ann, bob = await queue_up((keeper, "Cy"), (maker, "Ann"), (maker, "Bob"))
        with stopped(keeper):
            room = (await ann.expect("snapshot", timeout=10))["room_id"]
            started = await ann.expect("started", timeout=10)
            assert sorted(started["players"]) == sorted((ann.player_id, bob.player_id))

        async def back_in_queue() -> bool:
            return await redis_client.zscore(wait_key, cy.player_id) is not None

        await until(back_in_queue)
        [dee] = await queue_up((maker, "Dee"))
        again = await cy.expect("snapshot", timeout=8)
        assert again["room_id"] != room
        assert (await dee.expect("snapshot", timeout=8))["room_id"] == again["room_id"]
        assert not [m for m in cy.messages if m.get("room_id") == room]
        for c in (ann, bob, cy, dee):
            await c.close()


@pytest.mark.slow
async def test_racers_who_all_come_after_the_wait_race_in_a_room_of_their_own(
    key_prefix: str, redis_client: aioredis.Redis
) -> None:
    # Ann and Bob wait on the keeper, stopped while the maker pairs them and waits for them
    # in vain: their room closes, nobody in. Back, their instance is told it is too late:
    # both queue again in place and race in a new room, never left in a lobby that nobody
    # will start.
    keys = Keys(key_prefix)
    with maker_and_keeper(key_prefix, 300) as (_maker, keeper):
        ann, bob = await queue_up((keeper, "Ann"), (keeper, "Bob"))
        with stopped(keeper):

            async def paired() -> bool:
                return await redis_client.hget(keys.queue_paired(4), ann.player_id) is not None

            await until(paired, timeout=10)
            room = str(await redis_client.hget(keys.queue_paired(4), ann.player_id))

            async def closed() -> bool:
                return await redis_client.hget(keys.room(room), "closed") == "1"

            await until(closed, timeout=10)
        snaps = [await c.expect("snapshot", timeout=10) for c in (ann, bob)]
        assert snaps[0]["room_id"] == snaps[1]["room_id"] != room
        started = [await c.expect("started", timeout=10) for c in (ann, bob)]
        assert sorted(started[0]["players"]) == sorted((ann.player_id, bob.player_id))
        assert not [m for c in (ann, bob) for m in c.messages if m.get("room_id") == room]
        assert await redis_client.hget(keys.room(room), "np") in {None, "0"}
        for c in (ann, bob):
            await c.close()

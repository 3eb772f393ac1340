"""Deadlines outlive the process that set them, and a socket is in one room at a time.

The end of a countdown and the end of a racer's away grace are deadlines in Redis that any
instance acts on: every server process may die mid-race and the race still ends. And a
player who comes back into another room leaves the one they were in, instead of staying a
member there and holding its race open."""

from __future__ import annotations

import json

import pytest
import redis.asyncio as aioredis

from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    redis_url,
    running_server,
    start_server,
)
from tests.helpers.waits import until

CODE = "SH1-C4-AAAAAAB"


async def deadlines(prefix: str, kind: str, count: int) -> None:
    """Wait until ``count`` deadlines of ``kind`` are written."""
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    try:

        async def written() -> bool:
            members = await r.zrange(f"{prefix}deadlines", 0, -1)
            kinds = [str(json.loads(str(m))["kind"]) for m in members]
            return kinds.count(kind) >= count

        await until(written, what=f"{count} {kind} deadlines written")
    finally:
        await r.aclose()


async def race(srv: ServerProc) -> tuple[WsClient, WsClient, str]:
    """Two racers in a room on ``srv``, its countdown started."""
    ann = await WsClient.connect(srv.ws_url, "Ann")
    bob = await WsClient.connect(srv.ws_url, "Bob")
    await ann.send({"type": "create_room", "code": CODE})
    room = str((await ann.expect("snapshot"))["room_id"])
    await bob.send({"type": "join", "room": room, "role": "player"})
    await bob.expect("snapshot")
    await ann.send({"type": "start"})
    await ann.expect("countdown")
    return ann, bob, room


async def watch_until(srv: ServerProc, room: str, state: str, event: str) -> None:
    """A spectator on ``srv`` sees the room reach ``state`` (in its snapshot or by ``event``)."""
    eve = await WsClient.connect(srv.ws_url, "Eve")
    await eve.send({"type": "join", "room": room, "role": "spectator"})
    snap = await eve.expect("snapshot")
    if snap["state"] != state:
        await eve.expect(event, timeout=10)
    await eve.close()


@pytest.mark.slow
async def test_racers_gone_and_every_server_restarted_the_race_still_ends(key_prefix: str) -> None:
    prefix = key_prefix
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    args = [*FAST, "--away-grace-ms", "1500"]
    first = start_server(redis_url(), args=args, env=env)
    try:
        ann, bob, room = await race(first)
        await ann.expect("started")
        await ann.close()
        await bob.close()
        await deadlines(prefix, "away", 2)  # one away grace per racer
    finally:
        first.kill()  # no goodbye: its in-memory state is gone
    with running_server(redis_url(), args=args, env=env) as second:
        await watch_until(second, room, "done", "race_over")


async def test_a_countdown_whose_server_died_still_starts(key_prefix: str) -> None:
    prefix = key_prefix
    env = {"SEAHAVEN_KEY_PREFIX": prefix}
    first = start_server(redis_url(), args=["--countdown-ms", "1500"], env=env)
    try:
        _, _, room = await race(first)
        await deadlines(prefix, "begin", 1)
    finally:
        first.kill()
    with running_server(redis_url(), env=env) as second:
        await watch_until(second, room, "racing", "started")


async def test_resuming_into_another_room_leaves_the_first(race_server: ServerProc) -> None:
    ann = await WsClient.connect(race_server.ws_url, "Ann")
    bob = await WsClient.connect(race_server.ws_url, "Bob")
    cat = await WsClient.connect(race_server.ws_url, "Cat")
    await ann.send({"type": "create_room", "code": CODE})
    x = (await ann.expect("snapshot"))["room_id"]
    await bob.send({"type": "join", "room": x, "role": "player"})
    await bob.expect("snapshot")
    await cat.send({"type": "create_room"})
    y = (await cat.expect("snapshot"))["room_id"]

    # Bob, in X's lobby, comes back into Y: he is no member of X any more.
    await bob.send({"type": "resume", "room": y, "token": bob.token, "last_seq": 0})
    await bob.expect("room", room_id=y)
    room = await ann.expect("room", timeout=5)
    while any(p["player_id"] == bob.player_id for p in room["players"]):
        room = await ann.expect("room", timeout=5)

    # So a race in X is Ann's alone, and ends when she gives up.
    await ann.send({"type": "start"})
    started = await ann.expect("started")
    assert started["players"] == [ann.player_id]
    await ann.send({"type": "give_up"})
    await ann.expect("race_over")
    for c in (ann, bob, cat):
        await c.close()

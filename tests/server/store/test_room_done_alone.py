"""A game alone that is over keeps its events and logs minutes, not hours, through a real
server: its replay and the player's statistics stay; a race room, or a game someone else
is in, keeps its hours."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.serverproc import FAST, ServerProc, WsClient, redis_url, running_server

CODE = "SH1-C4-AAAAAAB"
SHORT = 120
ROOM_TTL = 6 * 3600


@pytest.fixture
async def server(key_prefix: str) -> AsyncIterator[ServerProc]:
    args = [*FAST, "--finished-room-ttl", str(SHORT)]
    with running_server(redis_url(), args=args, env={"SEAHAVEN_KEY_PREFIX": key_prefix}) as srv:
        yield srv


async def ttls(r: aioredis.Redis, keys: Keys, room: str, pid: str) -> dict[str, int]:
    """The seconds each of a room's keys has left (-2: gone, as an empty hash is)."""
    names = {
        "room": keys.room(room),
        "members": keys.members(room),
        "events": keys.events(room),
        "log": keys.log(room, 1, pid),
        "ids": keys.ids(room, 1, pid),
        "res": keys.results(room, 1),
    }
    return {name: int(await r.ttl(key)) for name, key in names.items()}


async def test_a_game_alone_over_keeps_its_events_and_logs_minutes(
    server: ServerProc, key_prefix: str
) -> None:
    keys = Keys(key_prefix)
    r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
    line = solve(Board.from_code(CODE), timeout=10).moves
    try:
        # Won, then left: everything of the room goes within minutes, the replay stays.
        ann = await WsClient.connect(server.ws_url, "ann")
        await ann.send({"type": "solo", "code": CODE})
        room = (await ann.expect("snapshot"))["room_id"]
        for i, text in enumerate(line, 1):
            await ann.send(action_message(text, i))
            await ann.expect("ack", id=i)
        await ann.expect("finished")
        await ann.expect("solo_stats")
        won = await ttls(r, keys, room, ann.player_id)
        assert all(left == -2 or 0 < left <= SHORT for left in won.values()), won
        await ann.send({"type": "leave"})
        await ann.expect("left")
        left_ = await ttls(r, keys, room, ann.player_id)
        assert all(left == -2 or 0 < left <= SHORT for left in left_.values()), left_
        replays = [k async for k in r.scan_iter(match=f"{key_prefix}replay:*")]
        assert replays and await r.ttl(replays[0]) > ROOM_TTL
        stats = keys.solo_stats(ann.player_id, 4)
        assert await r.hgetall(stats) and await r.ttl(stats) > ROOM_TTL

        # Given up by leaving after some moves: the same.
        await ann.send({"type": "solo", "code": CODE})
        snap = await ann.expect("snapshot")
        room2 = snap["room_id"]
        for i, text in enumerate(line[:3], 1):
            await ann.send(action_message(text, i))
            await ann.expect("ack", id=i)
        await ann.send({"type": "leave"})
        await ann.expect("left")
        gone = await ttls(r, keys, room2, ann.player_id)
        assert all(left == -2 or 0 < left <= SHORT for left in gone.values()), gone

        # A race room with two racers keeps its hours after its race.
        bob = await WsClient.connect(server.ws_url, "bob")
        cy = await WsClient.connect(server.ws_url, "cy")
        await bob.send({"type": "create_room", "code": CODE})
        race = (await bob.expect("snapshot"))["room_id"]
        await cy.send({"type": "join", "room": race, "role": "player"})
        await cy.expect("snapshot", room_id=race)
        await bob.send({"type": "start"})
        await bob.expect("started", timeout=10)
        for c in (bob, cy):
            await c.send({"type": "give_up"})
        await bob.expect("race_over", timeout=10)
        await bob.send({"type": "leave"})
        await bob.expect("left")
        kept = await ttls(r, keys, race, bob.player_id)
        assert kept["room"] > SHORT and kept["events"] > SHORT, kept
        for c in (ann, bob, cy):
            await c.close()
    finally:
        await r.aclose()

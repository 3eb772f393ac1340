"""Boards dealt at the start: when a race starts every racer presses at once, so each
instance keeps the opening board of the racers it has sockets of, and no first action waits
for its log to be read from Redis. A dealt copy that another instance has made stale is
caught by the move script's version check and rebuilt, as any copy."""

from __future__ import annotations

import urllib.request

import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.serverproc import (
    FAST,
    ServerProc,
    WsClient,
    decoded,
    open_race,
    redis_url,
    running_server,
)

CODE = "SH1-C4-AAAAAAE"


def rebuilds(srv: ServerProc) -> float:
    """The server's count of boards rebuilt from their log."""
    with urllib.request.urlopen(srv.http_url + "/metrics", timeout=5) as res:
        for line in res.read().decode().splitlines():
            if line.startswith("seahaven_board_rebuilds_total "):
                return float(line.split()[1])
    raise AssertionError("no seahaven_board_rebuilds_total in /metrics")


async def rematch(host: WsClient, racers: list[WsClient]) -> str:
    """Every racer gives up round 1, the host calls a rematch and starts round 2 (a new
    deal, a new board for each racer): its code."""
    for racer in racers:
        await racer.send({"type": "give_up"})
    await host.expect("race_over")
    await host.send({"type": "rematch"})
    await host.expect("room", round=2)
    await host.send({"type": "start"})
    code = str((await host.expect("started", round=2))["code"])
    for racer in racers:
        if racer is not host:
            await racer.expect("started", round=2)
    return code


async def test_the_first_actions_of_a_rematch_read_no_log(key_prefix: str) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with running_server(redis_url(), args=FAST, env=env) as srv:
        ann = await WsClient.connect(srv.ws_url, "ann")
        bob = await WsClient.connect(srv.ws_url, "bob")
        spy = await WsClient.connect(srv.ws_url, "spy")
        await open_race(CODE, ann, [bob], [spy])
        code = await rematch(ann, [ann, bob])
        before = rebuilds(srv)
        line = solve(Board.from_code(code), timeout=10).moves
        for i in range(3):
            for racer in (ann, bob):
                await racer.send(action_message(line[i], i))
                await racer.expect("ack", id=i)
        assert rebuilds(srv) == before
        for c in (ann, bob, spy):
            await c.close()


async def test_a_copy_dealt_on_two_instances_goes_stale_and_is_rebuilt(key_prefix: str) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with (
        running_server(redis_url(), args=FAST, env=env) as one,
        running_server(redis_url(), args=FAST, env=env) as two,
    ):
        ann = await WsClient.connect(one.ws_url, "ann")
        await ann.send({"type": "create_room", "code": CODE})
        room = str((await ann.expect("snapshot"))["room_id"])
        # Ann's second socket, on the other instance, in the room before the start.
        ann2 = await WsClient.connect(two.ws_url)
        await ann2.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 0})
        await ann2.expect("welcome")
        await ann2.expect("room")
        bob = await WsClient.connect(one.ws_url, "bob")
        await bob.send({"type": "join", "room": room, "role": "player"})
        await bob.expect("snapshot")
        await ann.send({"type": "start"})
        for c in (ann, ann2, bob):
            await c.expect("started")
        code = await rematch(ann, [ann, bob])
        await ann2.expect("started", round=2)
        line = solve(Board.from_code(code), timeout=10).moves
        before = rebuilds(one), rebuilds(two)

        # Both instances dealt ann's new board; her first action goes through instance one,
        # so the copy on instance two is one action behind when her second comes there.
        await ann.send(action_message(line[0], 0))
        await ann.expect("ack", id=0)
        await ann2.send(action_message(line[1], 1))
        await ann2.expect("ack", id=1)
        await ann2.expect("delta", moves=2)
        assert (rebuilds(one), rebuilds(two)) == (before[0], before[1] + 1)

        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        log = decoded(await r.lrange(Keys(key_prefix).log(room, 2, ann.player_id), 0, -1))
        await r.aclose()
        assert [entry.split("\t")[2] for entry in log] == list(line[:2])
        for c in (ann, ann2, bob):
            await c.close()

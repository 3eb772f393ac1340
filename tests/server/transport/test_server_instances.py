"""Two server processes on one Redis: a race across them, one instance killed mid-race, and
the boards each instance deals at a race's start.

Boards dealt at the start: when a race starts every racer presses at once, so each
instance keeps the opening board of the racers it has sockets of, and no first action waits
for its log to be read from Redis. A dealt copy that another instance has made stale is
caught by the move script's version check and rebuilt, as any copy. (What the board cache
decides, without a server: ``tests/server/test_board_cache.py``.)"""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.clients.bot import action_message
from server.engine import Board, Move, parse_action
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

ids_key, log_key = Keys().ids, Keys().log

CODE = "SH1-C4-AAAAAAD"


def wire(text: str, action_id: int) -> dict[str, Any]:
    action = parse_action(text)
    assert isinstance(action, Move)
    return {"type": "move", "id": action_id, "src": str(action.src), "dst": str(action.dst)}


@pytest.mark.slow
async def test_race_across_instances_survives_a_killed_instance() -> None:
    with (
        running_server(redis_url(), args=FAST) as one,
        running_server(redis_url(), args=FAST) as two,
    ):
        ann = await WsClient.connect(one.ws_url, "ann")
        bob = await WsClient.connect(two.ws_url, "bob")
        spy1 = await WsClient.connect(one.ws_url, "spy1")
        spy2 = await WsClient.connect(two.ws_url, "spy2")
        room = await open_race(CODE, ann, [bob], [spy1, spy2])
        line = solve(Board.from_code(CODE), timeout=10).moves

        acked: dict[int, int] = {}
        for i in range(10):
            await ann.send(wire(line[i], i))
            acked[i] = int((await ann.expect("ack", id=i))["seq"])
            await bob.send(wire(line[i], i))
            await bob.expect("ack", id=i)
        # Each spectator, on either instance, sees every board move live.
        for spy in (spy1, spy2):
            for who in (ann, bob):
                await spy.expect("delta", player_id=who.player_id, moves=10)
        # Bob, on the other instance, sees only ann's progress.
        await bob.expect("progress", player_id=ann.player_id, moves=10)
        seen = max(int(m["seq"]) for m in ann.messages if "seq" in m and m["type"] != "ack")

        # Instance one dies; ann's socket drops and she resumes on instance two.
        one.kill()
        again = await WsClient.connect(two.ws_url)
        await again.send({"type": "resume", "room": room, "token": ann.token, "last_seq": seen})
        await again.expect("welcome")
        # A resend of an acked move is acked with its old seq, never applied twice.
        await again.send(wire(line[9], 9))
        assert (await again.expect("ack", id=9))["seq"] == acked[9]
        for i in range(10, len(line)):
            await again.send(wire(line[i], i))
            await again.expect("ack", id=i)
        fin = await again.expect("finished", player_id=ann.player_id)
        assert fin["rank"] == 1 and fin["moves"] == len(line)
        await spy2.expect("finished", player_id=ann.player_id)
        await spy2.expect("delta", player_id=ann.player_id, moves=len(line))

        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        log = decoded(await r.lrange(log_key(room, 1, ann.player_id), 0, -1))
        ids = await r.hgetall(ids_key(room, 1, ann.player_id))
        await r.aclose()
        assert [e.split("\t")[2] for e in log] == list(line)
        assert all(int(ids[str(i)]) == seq for i, seq in acked.items())
        assert two.health()["ok"] is True
        for c in (again, bob, spy2):
            await c.close()


DEALT = "SH1-C4-AAAAAAE"


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


async def test_boards_dealt_at_a_rematch_read_no_log_and_a_stale_copy_is_rebuilt(
    key_prefix: str,
) -> None:
    env = {"SEAHAVEN_KEY_PREFIX": key_prefix}
    with (
        running_server(redis_url(), args=FAST, env=env) as one,
        running_server(redis_url(), args=FAST, env=env) as two,
    ):
        ann = await WsClient.connect(one.ws_url, "ann")
        await ann.send({"type": "create_room", "code": DEALT})
        room = str((await ann.expect("snapshot"))["room_id"])
        # Ann's second socket, on the other instance, in the room before the start.
        ann2 = await WsClient.connect(two.ws_url)
        await ann2.send({"type": "resume", "room": room, "token": ann.token, "last_seq": 0})
        await ann2.expect("welcome")
        await ann2.expect("room")
        bob = await WsClient.connect(one.ws_url, "bob")
        await bob.send({"type": "join", "room": room, "role": "player"})
        await bob.expect("snapshot")
        spy = await WsClient.connect(one.ws_url, "spy")
        await spy.send({"type": "join", "room": room, "role": "spectator"})
        await spy.expect("snapshot")
        await ann.send({"type": "start"})
        for c in (ann, ann2, bob, spy):
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
        # Bob's board was dealt on instance one too: his first actions read no log either.
        for i in range(3):
            await bob.send(action_message(line[i], i))
            await bob.expect("ack", id=i)
        assert rebuilds(one) == before[0]

        r = aioredis.Redis.from_url(redis_url(), decode_responses=True)
        log = decoded(await r.lrange(Keys(key_prefix).log(room, 2, ann.player_id), 0, -1))
        await r.aclose()
        assert [entry.split("\t")[2] for entry in log] == list(line[:2])
        for c in (ann, ann2, bob, spy):
            await c.close()

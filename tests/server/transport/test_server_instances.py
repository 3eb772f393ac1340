"""Two server processes on one Redis: a race across them, and one instance killed mid-race."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from server.engine import Board, Move, parse_action
from server.engine.solver import solve
from server.store.keys import Keys
from tests.helpers.serverproc import FAST, WsClient, decoded, open_race, redis_url, running_server

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

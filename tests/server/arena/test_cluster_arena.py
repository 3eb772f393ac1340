"""An arena on a real Redis Cluster (3 masters, 3 replicas): three players on two server
instances play a private arena of seconds to its podium, a race running at its end
counting; the points, the pledge and the table recomputed from the recorded races agree.

Every key of an arena shares the arena's tag: its scripts (join, the pool, the pairing, the
record) touch one slot each, which only a real cluster proves (a cross-slot script fails
there with ``CROSSSLOT``). Skipped where ``redis-server`` is missing; under
``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI) they fail instead.
"""

from __future__ import annotations

import asyncio
import json

from redis.asyncio.cluster import RedisCluster

from server.store.keys import Keys
from tests.helpers.arenas import ARGS, line_of, next_race, play, race_over, recomputed
from tests.helpers.markers import needs_cluster
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.serverproc import WsClient, running_server

KEYS = Keys()

pytestmark = needs_cluster


async def test_three_players_on_two_instances_play_an_arena_on_a_cluster(
    cluster: RedisClusterProc, cluster_client: RedisCluster
) -> None:
    args = ["--redis-cluster", cluster.seed_url, *ARGS]
    with running_server(None, args=args) as one, running_server(None, args=args) as two:
        ann = await WsClient.connect(one.ws_url, "Ann")
        bob = await WsClient.connect(two.ws_url, "Bob")
        cy = await WsClient.connect(one.ws_url, "Cy")
        racers = [ann, bob, cy]
        loop = asyncio.get_running_loop()
        await ann.send({"type": "create_arena", "cells": 4, "minutes": 15, "starts_in_s": 3})
        made = await ann.expect("arena")
        t0 = loop.time()
        arena, ends_at = made["arena"]["arena_id"], made["arena"]["ends_at"]
        for c in (bob, cy):
            await c.send({"type": "arena_join", "arena": arena})
            await c.expect("arena")
        # One arena at a time, from another instance too.
        await bob.send({"type": "arena_join", "arena": arena})
        assert (await bob.expect("error"))["code"] == "already_in_arena"

        # Race 1: Ann wins with her pledge kept (3 + 1), Bob second (1), Cy gives up.
        code = await next_race(racers, pledgers=(ann,))
        line = await line_of(code)
        await play(ann, line)
        await play(bob, line)
        await cy.send({"type": "give_up"})
        await race_over(racers, ann)

        # Race 2 runs past the arena's end and counts: Bob wins (3), Ann second (1).
        code = await next_race(racers)
        line = await line_of(code)
        await asyncio.sleep(max(0.0, (ends_at - made["now"]) / 1000 - (loop.time() - t0)) + 0.5)
        await play(bob, line)
        await play(ann, line)
        await cy.send({"type": "give_up"})

        expected = [(ann.player_id, 5, 0, 2), (bob.player_id, 4, 1, 2), (cy.player_id, 0, 0, 2)]
        for c in racers:
            over = await c.expect("arena_over", timeout=20)
            assert [x["player_id"] for x in over["podium"]] == [p for p, pts, *_ in expected if pts]
        status, table = two.get_json(f"/api/arena/{arena}")
        assert status == 200 and table["arena"]["phase"] == "over"
        api = [(x["player_id"], x["points"], x["streak"], x["races"]) for x in table["standings"]]
        raw = await cluster_client.lrange(KEYS.arena_results(arena), 0, -1)
        records = [json.loads(x) for x in raw]
        assert max(r["at"] for r in records) < ends_at  # race 2 began before the end
        assert api == recomputed(records) == expected
        for c in racers:
            await c.close()

"""The quick race on a real Redis Cluster (3 masters, 3 replicas): players queueing on two
server instances are paired into one rated room, race it, and their ratings are applied once.

The queue's keys share the variant's tag, a room's keys the room's, a player's ratings the
player's: the scripts of the pairing touch one slot each, which only a real cluster proves
(a cross-slot script fails there with ``CROSSSLOT``). Skipped where ``redis-server`` is
missing; under ``SEAHAVEN_REQUIRE_CLUSTER=1`` (CI) they fail instead.
"""

from __future__ import annotations

import asyncio

from redis.asyncio.cluster import RedisCluster

from server.store.keys import Keys
from tests.helpers.markers import needs_cluster
from tests.helpers.quick_race import PACE_OFF, play_to_win
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.serverproc import FAST, WsClient, running_server
from tests.helpers.waits import until

KEYS = Keys()

pytestmark = needs_cluster


async def test_three_players_on_two_instances_pair_race_and_are_rated_on_a_cluster(
    cluster: RedisClusterProc, cluster_client: RedisCluster
) -> None:
    # A short wait for a fourth: three players start as a room of three.
    args = ["--redis-cluster", cluster.seed_url, *FAST, *PACE_OFF]
    args += ["--pair-fourth-ms", "1500", "--bot-offer-ms", "60000"]
    # Bob and Cy give up at once and still count; everyone established (listed) at once.
    args += ["--rated-min-actions", "0", "--provisional-games", "0"]
    with running_server(None, args=args) as one, running_server(None, args=args) as two:
        ann = await WsClient.connect(one.ws_url, "Ann")
        bob = await WsClient.connect(two.ws_url, "Bob")
        cy = await WsClient.connect(one.ws_url, "Cy")
        racers = (ann, bob, cy)
        for c in racers:
            await c.send({"type": "queue", "cells": 4})
            await c.expect("queued")
        # Queueing twice from another instance is refused on the cluster too.
        await bob.send({"type": "queue", "cells": 4})
        assert (await bob.expect("error"))["code"] == "already_queued"
        snaps = [await c.expect("snapshot", timeout=10) for c in racers]
        assert len({s["room_id"] for s in snaps}) == 1
        assert snaps[0]["rated"] and snaps[0]["paired"]
        started = [await c.expect("started", timeout=10) for c in racers]
        code = started[0]["code"]
        assert await cluster_client.zcard(KEYS.queue_wait(4)) == 0

        status, live = two.get_json("/api/rooms/live")
        assert status == 200 and live["featured"]["room_id"] == snaps[0]["room_id"]

        await play_to_win(ann, code)
        await bob.send({"type": "give_up"})
        await cy.send({"type": "give_up"})
        over = await cy.expect("race_over", timeout=10)
        assert over["results"][0]["player_id"] == ann.player_id
        # The ratings event goes out on the room's shard like every other room event.
        got = await bob.expect("ratings", timeout=10)
        changes = {x["player_id"]: x for x in got["changes"]}
        assert set(changes) == {c.player_id for c in racers}
        assert changes[ann.player_id]["change"] > 0 > changes[bob.player_id]["change"]

        for c in racers:

            async def applied(pid: str = c.player_id) -> bool:
                return await cluster_client.hget(KEYS.rating(pid, 4), "games") == "1"

            await until(applied, timeout=10)
        # Both instances saw the end: the race still counted once for each racer.
        await asyncio.sleep(1.0)
        for c in racers:
            assert await cluster_client.hget(KEYS.rating(c.player_id, 4), "games") == "1"
            assert await cluster_client.llen(KEYS.rating_history(c.player_id, 4)) == 1
        status, top = one.get_json("/api/ratings?cells=4&limit=5")
        assert status == 200 and top["players"][0]["player_id"] == ann.player_id
        for c in racers:
            await c.close()

"""The instance's Redis Cluster client (``server.transport.clients.cluster_client``) on a
real cluster: a burst of commands far past one node's connections waits for them instead of
failing (the players of hundreds of rooms starting or leaving at once heard ``busy``); and
its room channels, subscribed again on a slot map read in the middle of a move."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.transport.clients import cluster_client
from server.transport.gated import IN_FLIGHT
from server.transport.shards import ShardSubscriber
from tests.helpers.markers import needs_cluster
from tests.helpers.rediscluster import RedisClusterProc
from tests.helpers.waits import until


@needs_cluster
async def test_a_burst_of_commands_waits_for_connections_instead_of_failing(
    cluster: RedisClusterProc,
) -> None:
    client = cluster_client(cluster.seed_url, timeout=10)
    await client.initialize()
    tags = 7  # spread over the three masters
    burst = 12 * IN_FLIGHT
    answers = await asyncio.gather(*(client.incr(f"burst:{{t{n % tags}}}") for n in range(burst)))
    assert sorted(answers) == sorted(
        k for t in range(tags) for k in range(1, len(range(t, burst, tags)) + 1)
    )
    counts = [int(str(await client.get(f"burst:{{t{t}}}"))) for t in range(tags)]
    assert sum(counts) == burst
    await client.aclose()


@needs_cluster
async def test_a_channel_subscribed_again_on_a_stale_slot_map_is_tried_again(
    cluster: RedisClusterProc, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A master gives a room's slot away and says so (``sunsubscribe``); the instance reads
    # the slot map again, but a map read in the middle of the move still names the wrong
    # master, which answers MOVED. The channel must be tried again, not taken as followed
    # (a spectator's board stopped in mid-race, seen once under load).
    client = cluster_client(cluster.seed_url, timeout=10)
    await client.initialize()
    heard: list[tuple[str, str]] = []
    again: list[str] = []
    shards = ShardSubscriber(client, lambda c, d: heard.append((c, d)), again.append, lambda: None)
    channel = "test:mend:{room}:events"
    await shards.subscribe(channel)
    owner = client.get_node_from_key(channel)
    assert owner is not None
    wrong = next(n for n in client.get_primaries() if n.name != owner.name)
    manager = client.nodes_manager
    manager.slots_cache[client.keyslot(channel)] = [wrong]
    fresh = type(manager).initialize
    reads = 0

    async def stale_once(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal reads  # the first reading still has the move half done
        reads += 1
        if reads > 1:
            await fresh(self, *args, **kwargs)

    monkeypatch.setattr(type(manager), "initialize", stale_once)
    shards._push(shards.nodes[owner.name], ["sunsubscribe", channel, 0])
    await until(lambda: channel in again, timeout=15, what="the channel subscribed again")
    assert reads >= 2 and shards.where[channel] == owner.name
    await client.spublish(channel, "after the move")
    await until(lambda: (channel, "after the move") in heard, what="a message after the move")
    await shards.close()
    await client.aclose()

"""The instance's Redis Cluster client (``server.app.cluster_client``) on a real cluster: a
burst of commands far past one node's connections waits for them instead of failing (the
players of hundreds of rooms starting or leaving at once heard ``busy``)."""

from __future__ import annotations

import asyncio

from server.app import cluster_client
from server.transport.gated import IN_FLIGHT
from tests.rediscluster import RedisClusterProc
from tests.server.conftest import needs_cluster


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

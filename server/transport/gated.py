"""A Redis Cluster client whose commands wait for a connection instead of failing.

``redis-py``'s asyncio cluster client keeps at most ``max_connections`` connections per
node and fails a command at once (``MaxConnectionsError``) when a burst wants more: the
players of hundreds of rooms starting or leaving in the same second heard ``busy``. The
plain client has a blocking pool for this; here a gate bounds the commands in flight, so
that a burst queues for a moment instead, as it does on a plain Redis.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from redis.asyncio.cluster import RedisCluster

#: Commands in flight at once through one client. Each node's pool holds more connections
#: than this (:data:`NODE_CONNECTIONS`), so a command never finds its node's pool empty.
IN_FLIGHT: Final = 256
#: The most connections a client opens to one node: the gated commands, and the pipelines
#: (which take a connection per node for a moment) beside them.
NODE_CONNECTIONS: Final = 1024


class GatedCluster(RedisCluster):
    """``RedisCluster`` with at most :data:`IN_FLIGHT` commands in flight; the others wait."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._gate = asyncio.Semaphore(IN_FLIGHT)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run a command once fewer than :data:`IN_FLIGHT` are in flight."""
        async with self._gate:
            return await super().execute_command(*args, **kwargs)

"""Sharded pub/sub on a real Redis Cluster: a channel subscribed again after its master's
connection was lost is reported before its new subscription's first message.

The hub catches a room up from the last seq it forwarded when its channel is reported
subscribed again; reported after messages of the new subscription were forwarded, the
catch-up starts after them and skips what the room published while it was not followed
(a spectator missed a move while the room's slot moved to another master).
"""

from __future__ import annotations

import asyncio
import threading

import redis
from redis.asyncio.cluster import RedisCluster

from server.store.keys import Keys
from server.transport.shards import ShardSubscriber
from tests.helpers.markers import needs_cluster
from tests.helpers.rediscluster import RedisClusterProc, cli
from tests.helpers.waits import until

pytestmark = needs_cluster

KEYS = Keys()
ROUNDS = 5


def publish_until(port: int, channel: str, stop: threading.Event) -> None:
    """SPUBLISH 1, 2, 3... on ``channel`` at its master (a room's events), until ``stop``."""
    r = redis.Redis(host="127.0.0.1", port=port)
    try:
        n = 0
        while not stop.is_set():
            n += 1
            r.spublish(channel, str(n))
    finally:
        r.close()


async def test_a_channel_subscribed_again_is_reported_before_its_first_message(
    cluster: RedisClusterProc,
) -> None:
    # A room's channel and a player's own channel in it: one slot, one master, mended in
    # one round (an instance follows both while the player has a socket in the room).
    room_ch, own_ch = KEYS.channel("mend1"), KEYS.own_channel("mend1", "ann")
    port = cluster.master_of(room_ch)
    assert cluster.master_of(own_ch) == port
    seen: list[tuple[str, str]] = []
    r = RedisCluster.from_url(cluster.seed_url, decode_responses=True)
    await r.initialize()
    shards = ShardSubscriber(
        r,
        lambda ch, data: seen.append((ch, data)),
        lambda ch: seen.append((ch, "again")),
        lambda: None,
    )
    stop = threading.Event()
    publisher = asyncio.create_task(asyncio.to_thread(publish_until, port, room_ch, stop))
    try:
        await shards.subscribe(room_ch)
        await shards.subscribe(own_ch)
        for _ in range(ROUNDS):
            await until(lambda: sum(ch == room_ch for ch, _ in seen) > 20, timeout=10)
            lost = len(seen)
            # The subscriber's connection ends (its last messages may still be read after).
            await asyncio.to_thread(cli, port, "client", "kill", "type", "pubsub")

            def mended(n: int = lost) -> bool:
                return (room_ch, "again") in seen[n:] and (own_ch, "again") in seen[n:]

            def heard_again(n: int = lost) -> bool:
                return sum(ch == room_ch for ch, _ in seen[n:]) > 20

            await until(mended, timeout=20)
            await until(heard_again, timeout=10)
            room = [d for ch, d in seen if ch == room_ch]
            before = [int(d) for d in room[: room.index("again")]]
            assert before == list(range(before[0], before[0] + len(before))), (
                "messages of the new subscription came before it was reported: a catch-up "
                "from the last one forwarded would skip what was published before them",
                room[room.index("again") - 5 : room.index("again") + 2],
            )
            del seen[:]
    finally:
        stop.set()
        await publisher
        await shards.close()
        await r.aclose()

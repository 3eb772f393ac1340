"""The Lua scripts of the store, read from ``lua/*.lua`` beside this module, and the one
registry that registers them on a client.

Each file starts with a comment giving its ``KEYS`` and ``ARGV``. A file whose first line
is ``-- uses: common`` gets ``common.lua`` (the event helpers) put in front of it.

On a Redis Cluster the room scripts publish with ``SPUBLISH`` (sharded pub/sub: the room's
channel lives on the room's shard, where only the instances that subscribed to it hear its
events) instead of ``PUBLISH``, which a cluster sends to every node, and count a channel's
subscribers with ``PUBSUB SHARDNUMSUB`` instead of ``PUBSUB NUMSUB``. A plain Redis keeps
``PUBLISH``: the embedded one (Redis 6.2) has no sharded pub/sub.

:func:`script` is the only place a script is registered (``tests/server/test_house.py``
fails on ``register_script`` anywhere else, and on Lua written in a Python string): each
client registers each script once, whichever module asks for it.
"""

from __future__ import annotations

import weakref
from functools import cache
from importlib import resources
from typing import Any

from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

_USES_COMMON = "-- uses: common"
_PUBLISH = ".call('PUBLISH', "
_NUMSUB = ".call('PUBSUB', 'NUMSUB', "

#: Each client's registered scripts, by name (gone with the client).
_REGISTERED: weakref.WeakKeyDictionary[Any, dict[str, AsyncScript]] = weakref.WeakKeyDictionary()


def _read(name: str) -> str:
    return (resources.files(__package__) / "lua" / f"{name}.lua").read_text(encoding="utf-8")


@cache
def source(name: str, sharded: bool = False) -> str:
    """The full source of the script ``name`` (``lua/NAME.lua``), helpers included;
    ``sharded``: publishing with ``SPUBLISH``.

    Raises:
        FileNotFoundError: there is no such script.
    """
    text = _read(name)
    if text.startswith(_USES_COMMON):
        text = _read("common") + text
    if not sharded:
        return text
    return text.replace(_PUBLISH, ".call('SPUBLISH', ").replace(
        _NUMSUB, ".call('PUBSUB', 'SHARDNUMSUB', "
    )


def script(redis: Any, name: str) -> AsyncScript:
    """The script ``lua/NAME.lua`` registered on ``redis`` (once per client): publishing
    with ``SPUBLISH`` on a Redis Cluster.

    Raises:
        FileNotFoundError: there is no such script.
    """
    known = _REGISTERED.get(redis)
    if known is None:
        known = _REGISTERED[redis] = {}
    found = known.get(name)
    if found is None:
        sharded = isinstance(redis, RedisCluster)
        found = known[name] = redis.register_script(source(name, sharded))
    return found


def register_batch(redis: Any) -> AsyncScript:
    """``lua/batch.lua`` registered on ``redis``, for the atomic batches run on it
    (:class:`server.transport.atomic.Batch`, which runs whatever script it is given)."""
    return script(redis, "batch")

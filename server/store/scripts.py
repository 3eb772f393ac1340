"""The Lua scripts of the store, read from ``lua/*.lua`` beside this module.

Each file starts with a comment giving its ``KEYS`` and ``ARGV``. A file whose first line
is ``-- uses: common`` gets ``common.lua`` (the event helpers) put in front of it.

On a Redis Cluster the room scripts publish with ``SPUBLISH`` (sharded pub/sub: the room's
channel lives on the room's shard, where only the instances that subscribed to it hear its
events) instead of ``PUBLISH``, which a cluster sends to every node. A plain Redis keeps
``PUBLISH``: the embedded one (Redis 6.2) has no sharded pub/sub.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from redis.commands.core import AsyncScript

_USES_COMMON = "-- uses: common"
_PUBLISH = "redis.call('PUBLISH', "


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
    return text.replace(_PUBLISH, "redis.call('SPUBLISH', ") if sharded else text


def register_batch(redis: Any) -> AsyncScript:
    """``lua/batch.lua`` registered on ``redis``, for the atomic batches run on it
    (:class:`server.transport.atomic.Batch`, which runs whatever script it is given)."""
    script: AsyncScript = redis.register_script(source("batch"))
    return script

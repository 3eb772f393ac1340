"""Batches of commands on one slot, run atomically in one call of ``lua/batch.lua``.

A batch is what a ``MULTI``/``EXEC`` transaction gives (no other client's command runs in
between), without it: on a Redis Cluster, ``redis-py``'s transaction pipeline (8.x) runs
each command queued in it in a thread of its own, on an event loop of its own, and waits
for that thread on the caller's loop, which stops every socket of the instance meanwhile
(1.9 ms of CPU for a room read of four commands, and four threads, against 0.18 ms as one
script call: ``bench/cluster_batch.py``). A script call is routed by its first key like any
command, and takes the same path on a plain Redis.

The commands of a batch must share a slot (on a cluster, one hash tag): every key is given
to the script as a key, so a cluster refuses a batch that would cross slots.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from redis.commands.core import AsyncScript

Word = str | int | float


def _as_dict(raw: Any) -> dict[str, str]:
    """``HGETALL``'s flat answer as a mapping."""
    items = list(raw or [])
    return dict(zip(items[::2], items[1::2], strict=True))


def _same(raw: Any) -> Any:
    return raw


class Batch:
    """The commands of one atomic step, queued by name like a pipeline's; :meth:`execute`
    runs them and returns their answers in order.

    Args:
        script: ``lua/batch.lua`` registered on the shared client (``decode_responses=True``),
            plain or a ``RedisCluster`` (:func:`server.store.scripts.register_batch`).
    """

    def __init__(self, script: AsyncScript) -> None:
        self._script = script
        self._keys: dict[str, None] = {}
        self._words: list[Word] = []
        self._shapes: list[Callable[[Any], Any]] = []

    def _add(self, shape: Callable[[Any], Any], name: str, key: str, *args: Word) -> Batch:
        self._keys[key] = None
        self._words += [len(args) + 2, name, key, *args]
        self._shapes.append(shape)
        return self

    def hset(self, key: str, mapping: Mapping[str, Word]) -> Batch:
        """``HSET key field value ...``."""
        pairs = [word for field, value in mapping.items() for word in (field, value)]
        return self._add(_same, "HSET", key, *pairs)

    def hget(self, key: str, field: str) -> Batch:
        """``HGET``: the value, or None."""
        return self._add(_same, "HGET", key, field)

    def hgetall(self, key: str) -> Batch:
        """``HGETALL``, answered as a dict."""
        return self._add(_as_dict, "HGETALL", key)

    def lrange(self, key: str, start: int, stop: int) -> Batch:
        """``LRANGE``."""
        return self._add(_same, "LRANGE", key, start, stop)

    def zadd(self, key: str, mapping: Mapping[str, float | int]) -> Batch:
        """``ZADD key score member ...``."""
        pairs = [word for member, score in mapping.items() for word in (score, member)]
        return self._add(_same, "ZADD", key, *pairs)

    def zremrangebyscore(self, key: str, low: Word, high: Word) -> Batch:
        """``ZREMRANGEBYSCORE``."""
        return self._add(_same, "ZREMRANGEBYSCORE", key, low, high)

    def zremrangebyrank(self, key: str, start: int, stop: int) -> Batch:
        """``ZREMRANGEBYRANK``."""
        return self._add(_same, "ZREMRANGEBYRANK", key, start, stop)

    def zrem(self, key: str, member: str) -> Batch:
        """``ZREM``."""
        return self._add(_same, "ZREM", key, member)

    def hdel(self, key: str, field: str) -> Batch:
        """``HDEL``."""
        return self._add(_same, "HDEL", key, field)

    def incr(self, key: str) -> Batch:
        """``INCR``."""
        return self._add(_same, "INCR", key)

    def sadd(self, key: str, member: str) -> Batch:
        """``SADD``."""
        return self._add(_same, "SADD", key, member)

    def expire(self, key: str, seconds: int) -> Batch:
        """``EXPIRE``."""
        return self._add(_same, "EXPIRE", key, seconds)

    def pexpire(self, key: str, ms: int) -> Batch:
        """``PEXPIRE``."""
        return self._add(_same, "PEXPIRE", key, ms)

    async def execute(self) -> list[Any]:
        """Run the batch as one atomic step; the answers in order.

        Raises:
            RedisError: Redis refused a command (the commands before it stay done, none
                after it runs), or the call failed.
        """
        if not self._shapes:
            return []
        raw = await self._script(keys=list(self._keys), args=self._words)
        return [shape(answer) for shape, answer in zip(self._shapes, raw, strict=True)]

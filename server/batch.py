"""Auto-pipelining: calls of one Lua script made in the same turn of the event loop go to
Redis together, in one pipeline (one write, one read), instead of one round trip each.

Under load this turns many small round trips into a few larger ones, which costs less
CPU in the server and in Redis and fewer wake-ups, so acknowledgements come back sooner.
Each call still runs as its own atomic script; only the transport is shared.

The pipelines run on connections of their own (at most :data:`MAX_INFLIGHT`, as many as
pipelines in flight), never on the instance's shared pool: a burst of other commands
(sockets arriving, snapshots, a stall of Redis that piles them up) can then never make a
move wait for a free connection, let alone fail with "No connection available".
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError

#: Pipelines in flight at once (and connections), and calls per pipeline.
MAX_INFLIGHT = 8
MAX_BATCH = 256


class ScriptBatcher:
    """Batches calls of one registered script.

    Args:
        redis: the client whose server (and connection settings) the pipelines use.
        script: the script, from ``redis.register_script``.
    """

    def __init__(self, redis: aioredis.Redis, script: AsyncScript) -> None:
        shared = redis.connection_pool
        self._shared = shared
        # A plain pool as large as the pipelines in flight: getting a connection never waits.
        self._pool = aioredis.ConnectionPool(
            connection_class=shared.connection_class,
            max_connections=MAX_INFLIGHT,
            **shared.connection_kwargs,
        )
        self.redis = aioredis.Redis(connection_pool=self._pool)
        self.script = script
        self._queue: list[tuple[list[Any], list[Any], asyncio.Future[Any]]] = []
        self._inflight: set[asyncio.Task[None]] = set()
        self._scheduled = False

    async def __call__(self, keys: list[Any], args: list[Any]) -> Any:
        """Run the script with ``keys`` and ``args``; returns its answer.

        Raises:
            RedisError: the call failed (the script's own errors included).
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append((keys, args, future))
        if not self._inflight and not self._scheduled:
            self._start()  # nothing in flight: go now rather than a loop turn later
        else:
            self._schedule()
        return await future

    async def aclose(self) -> None:
        """Close the batcher's own connections."""
        await self._pool.aclose()

    def _schedule(self) -> None:
        if not self._scheduled and self._queue and len(self._inflight) < MAX_INFLIGHT:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._start)

    def _start(self) -> None:
        self._scheduled = False
        if not self._queue:
            return
        batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
        task = asyncio.create_task(self._run(batch))
        self._inflight.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._inflight.discard(task)
        self._schedule()

    async def _run(self, batch: list[tuple[list[Any], list[Any], asyncio.Future[Any]]]) -> None:
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for keys, args, _ in batch:
                    pipe.evalsha(self.script.sha, len(keys), *keys, *args)
                results = await pipe.execute(raise_on_error=False)
        except Exception as exc:  # the whole pipeline failed: every call fails
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if isinstance(exc, RedisConnectionError | OSError):
                # Redis went away: the shared pool's idle connections are dead too. Drop
                # them, so that the next commands connect afresh instead of failing once each.
                with contextlib.suppress(Exception):
                    await self._shared.disconnect(inuse_connections=False)
            return
        for (keys, args, future), result in zip(batch, results, strict=True):
            if future.done():
                continue
            if isinstance(result, NoScriptError):  # Redis lost its script cache: load it
                try:
                    future.set_result(await self.script(keys=keys, args=args, client=self.redis))
                except Exception as exc:
                    future.set_exception(exc)
            elif isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

"""The race server: one port for the websocket (``/ws``), the web client and HTTP routes.

This module only wires the parts together: :func:`build_context` makes one instance's
stores, caches and fan-out from its :class:`~server.settings.Settings`,
:func:`build_registry` names every handler module, and :func:`run` serves until SIGINT or
SIGTERM. Any number of instances may share one Redis, since every room's truth and every
event lives there.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import secrets
import signal
from typing import Any

import redis.asyncio as aioredis
from websockets.asyncio.server import Server, ServerConnection, serve

from .context import Context
from .daily.services import Daily
from .embedded import start_embedded_redis, stop_embedded_redis
from .http import api
from .http import server as http_server
from .hub import Hub
from .metrics import Metrics
from .play import hints, identity, leaderboard, moves, rooms, solo
from .registry import Registry
from .rooms import membership
from .rooms.rounds import janitor
from .session import serve_connection
from .settings import Settings
from .solver_pool import SolverPool
from .store.cache import BoardCache, RoomCache
from .store.keys import Keys
from .store.store import Store

log = logging.getLogger(__name__)

#: Every module that offers handlers, by name: nothing registers by being imported.
HANDLER_MODULES = (identity, rooms, solo, moves, hints, leaderboard, http_server, api)


def build_registry() -> Registry:
    """The handlers of every message type and route.

    Raises:
        DuplicateHandler: two modules answer the same message type or route.
    """
    registry = Registry()
    for module in HANDLER_MODULES:
        registry.include(module.routes)
    return registry


def build_context(settings: Settings, redis: aioredis.Redis, embedded: bool = False) -> Context:
    """One instance's context on a Redis client (``decode_responses=True``)."""
    keys = Keys(settings.key_prefix)
    metrics = Metrics()
    store = Store(redis, keys, settings.room_ttl)
    boards = BoardCache(store)
    solver = SolverPool(settings.solver_workers, settings.solver_queue)
    metrics.solver_jobs.set_function(lambda: solver.jobs)
    ctx = Context(
        settings=settings,
        redis=redis,
        keys=keys,
        store=store,
        hub=Hub(redis, keys, metrics),
        rooms=RoomCache(store, boards),
        boards=boards,
        daily=Daily.build(redis, keys, settings.min_ms_per_action, settings.replay_ttl),
        metrics=metrics,
        solver=solver,
        instance_id=secrets.token_hex(4),
        embedded=embedded,
    )

    def follow(room: str, full: str) -> None:
        data = json.loads(full)
        ctx.rooms.follow(room, str(data.get("type")), data)

    ctx.hub.on_room_event = follow
    ctx.hub.on_room_empty = ctx.rooms.forget
    return ctx


def tune_gc() -> None:
    """Fewer, cheaper pauses of the cyclic garbage collector.

    Everything loaded so far lives for good: ``gc.freeze`` takes it out of every future
    scan. Higher thresholds make collections rarer; most of the server's garbage has no
    cycles and is freed by reference counting anyway.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


async def watch_loop(metrics: Metrics) -> None:
    """Measure how late the event loop wakes a 50 ms sleep (its lag), for /metrics."""
    loop = asyncio.get_running_loop()
    while True:
        start = loop.time()
        await asyncio.sleep(0.05)
        metrics.observe_lag(loop.time() - start - 0.05)


def redis_client(url: str) -> aioredis.Redis:
    """The shared client of an instance.

    A blocking pool: under a burst, commands wait for a free connection instead of failing.
    Moves do not use it: their scripts are pipelined on a connection of their own
    (:mod:`server.store.batch`).
    """
    pool = aioredis.BlockingConnectionPool.from_url(
        url, decode_responses=True, health_check_interval=30, max_connections=256, timeout=10
    )
    return aioredis.Redis(connection_pool=pool)


async def run(settings: Settings, ready: asyncio.Event | None = None) -> None:
    """Serve until SIGINT/SIGTERM."""
    registry = build_registry()
    lite: Any = None
    url = settings.redis_url or ""
    if not url:
        lite, url = await asyncio.to_thread(
            start_embedded_redis, settings.data_dir, settings.embedded_fsync
        )
        log.info("embedded redis at %s", url)
    redis = redis_client(url)
    await redis.ping()
    ctx = build_context(settings, redis, embedded=lite is not None)
    await ctx.solver.start()
    try:
        await serve_until_stopped(ctx, registry, ready)
    finally:
        await ctx.solver.close()
    await ctx.daily.watchers.close()
    await ctx.hub.close()
    await ctx.store.aclose()
    ctx.metrics.close()
    await redis.aclose()
    if lite is not None:
        await asyncio.to_thread(stop_embedded_redis, lite)


async def serve_until_stopped(
    ctx: Context, registry: Registry, ready: asyncio.Event | None = None
) -> None:
    """Serve the port of ``ctx.settings`` until SIGINT/SIGTERM (``ready`` set once bound)."""
    settings = ctx.settings
    front = http_server.HttpFront(ctx, registry)
    tune_gc()
    ctx.hub.start()
    ctx.spawn(janitor(ctx))
    ctx.spawn(watch_loop(ctx.metrics))

    async def handler(ws: ServerConnection) -> None:
        await serve_connection(ctx, ws, registry.ws, membership.on_close)

    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(sig, stop.set_result, None)
    server: Server
    async with serve(
        handler,
        settings.host,
        settings.port,
        process_request=front.process_request,
        max_size=64 * 1024,
        close_timeout=2,
        ping_interval=20,
        ping_timeout=20,
        compression=None,
    ) as server:
        port = server.sockets[0].getsockname()[1] if server.sockets else settings.port
        print(f"seahaven serving on http://{settings.host}:{port}/ (ws at /ws)", flush=True)
        if ready is not None:
            ready.set()
        await stop

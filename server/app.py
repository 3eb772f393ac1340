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
import logging
import os
import secrets
import signal
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import redis.asyncio as aioredis
from pydantic import SecretStr
from redis.asyncio.cluster import RedisCluster
from websockets.asyncio.server import Server, ServerConnection, serve

from . import health
from .arena import loop as arena_loop
from .arena import races as arena_races
from .cache import BoardCache, RoomCache
from .clients.bot import Bot
from .context import Context
from .daily.deals import certify_loop
from .daily.services import Daily
from .fairplay import race_review
from .fairplay.holds import expiry_loop
from .http import admin, api, mydata
from .http import arenas as http_arenas
from .http import server as http_server
from .http.connection import HttpConnection
from .metrics import Metrics
from .net.hub import Hub
from .net.limits import MAX_SOCKET_FRAME, TokenBuckets
from .net.registry import Registry
from .net.session import serve_connection
from .periodic import periodic
from .play import (
    arenas,
    devices,
    friends,
    hints,
    identity,
    leaderboard,
    moves,
    passkeys,
    queue,
    rooms,
    solo,
)
from .quick.pairing import pairing_loop
from .quiet import Quiet
from .records.services import Records
from .review.pace import Pace, parse_bursts
from .review.reviewer import Reviewer
from .rooms import membership, visibility
from .rooms.rounds import janitor
from .settings import Settings
from .solver_pool import SolverPool
from .store.commit import BoardLimits
from .store.events import RoomEvent
from .store.keys import Keys
from .store.ratings import Bar
from .store.retag import retag
from .store.reviews import Reviews
from .store.store import Store
from .transport.clients import answers, cluster_client, connect, redis_client, replicas
from .transport.embedded import (
    embedded_secret,
    end_embedded_redis,
    start_embedded_redis,
    stop_embedded_redis,
    supervise,
)

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: Seconds from the order to stop (SIGTERM, SIGINT, the embedded Redis lost) to the
#: process's end at most: a container's grace is 10 s, and the interpreter's own exit comes
#: after. Past it, what the shutdown still waits for is abandoned: every acknowledged move
#: is in Redis already.
STOP_DEADLINE_S: Final = 7.5
#: The same once the embedded Redis died for good: nothing is left to save, and the 10 s
#: count from its death has run for up to :data:`~server.transport.embedded.RESTART_S`.
LOST_DEADLINE_S: Final = 3.0

#: Every module that offers handlers, by name: nothing registers by being imported.
HANDLER_MODULES = (
    identity,
    rooms,
    solo,
    moves,
    hints,
    leaderboard,
    queue,
    friends,
    arenas,
    http_server,
    api,
    http_arenas,
    admin,
    devices,
    passkeys,
    mydata,
)


def build_registry() -> Registry:
    """The handlers of every message type and route.

    Raises:
        DuplicateHandler: two modules answer the same message type or route.
    """
    registry = Registry()
    for module in HANDLER_MODULES:
        registry.include(module.routes)
    registry.guard(devices.STARTS, devices.gated)
    return registry


def pace_of(settings: Settings) -> Pace:
    """The pace model of a ranked finish, from the settings."""
    return Pace(
        read_ms=settings.pace_read_ms,
        game_ms=settings.pace_game_ms,
        decision_ms=settings.pace_decision_ms,
        bursts=parse_bursts(settings.pace_bursts),
    )


def reviewer_of(settings: Settings, solver: SolverPool | None) -> Reviewer:
    """The reviewer of ranked finishes, from the settings (``bench/fairplay.py`` hands its
    jobs the same)."""
    return Reviewer(
        solver,
        pace_of(settings),
        settings.review_hold_agreement,
        settings.review_min_scored,
        # No reference is asked while the review's agreement is off (above 1).
        settings.evidence_optimal_searches if settings.review_hold_agreement <= 1 else 0,
        settings.evidence_optimal_states,
    )


def build_context(
    settings: Settings, redis: aioredis.Redis | RedisCluster, embedded: bool = False
) -> Context:
    """One instance's context on a Redis (or Redis Cluster) client
    (``decode_responses=True``)."""
    keys = Keys(settings.key_prefix)
    metrics = Metrics()
    limits = BoardLimits(settings.board_rate_per_s, settings.board_burst, settings.max_actions)
    store = Store(
        redis,
        keys,
        settings.room_ttl,
        settings.redis_timeout,
        limits,
        settings.spectators_per_room,
        settings.durable_timeout_ms if settings.durable else 0,
    )
    boards = BoardCache(store, metrics.board_rebuilds.inc)
    solver = SolverPool(
        settings.solver_workers,
        settings.solver_queue,
        policy=settings.solver_policy,
        nice=settings.solver_nice,
    )
    metrics.solver_jobs.set_function(lambda: solver.jobs)
    keep_s = settings.history_s
    records = Records.build(redis, keys, settings.replay_ttl, keep_s)
    ctx = Context(
        settings=settings,
        redis=redis,
        keys=keys,
        store=store,
        hub=Hub(redis, keys, metrics, visibility.board_wait),
        rooms=RoomCache(store, boards),
        boards=boards,
        daily=Daily.build(
            redis,
            keys,
            settings.min_ms_per_action,
            keep_s,
            records.perfect,
            settings.daily_key,
            Bar(settings.provisional_games, settings.provisional_days, settings.established_rivals),
        ),
        records=records,
        reviews=Reviews(redis, keys, keep_s),
        reviewer=reviewer_of(settings, solver),
        metrics=metrics,
        solver=solver,
        instance_id=secrets.token_hex(4),
        embedded=embedded,
        identities=TokenBuckets(
            settings.identities_per_hour / 3600, settings.identities_per_address
        ),
    )

    def follow(room: str, event: RoomEvent) -> None:
        ctx.rooms.follow(room, event)
        kind = event.kind
        if kind == "started":  # before the racers' first actions, which all come at once
            racers = set(event.rest())
            here = [c.pid for c in ctx.hub.rooms.get(room, ()) if c.pid and c.pid in racers]
            values = event.fields()
            ctx.boards.deal(room, int(values["round"]), here, values["code"])
        if kind == "race_over":  # hints for its deal again; spectators see everything
            ctx.spawn(membership.race_over(ctx, room))
            ctx.spawn(arena_loop.race_over(ctx, room))  # an arena's race: record, back to the pool

    ctx.hub.on_room_event = follow
    ctx.hub.fetch_after = store.events_after
    ctx.hub.on_room_empty = ctx.rooms.forget
    return ctx


def with_embedded_secret(settings: Settings) -> Settings:
    """The settings of a server on its embedded Redis: without a daily secret given, the
    one kept in its data folder (made on the first start)."""
    if settings.daily_secret is not None:
        return settings
    secret = embedded_secret(settings.data_dir)
    return settings.model_copy(update={"daily_secret": SecretStr(secret)})


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
    last = loop.time()

    async def step() -> None:
        nonlocal last
        now = loop.time()
        metrics.observe_lag(now - last - 0.05)
        last = now

    await periodic(step, 0.05, QUIET, "lag", "measuring the loop's lag failed")


async def run(
    settings: Settings,
    ready: asyncio.Event | None = None,
    *,
    worker: bool = False,
    shared_embedded: bool = False,
) -> int:
    """Serve until SIGINT/SIGTERM (or the embedded Redis dies).

    Args:
        settings: the instance's settings.
        ready: set once the port is bound.
        worker: run as one worker of ``seahaven serve --workers N``
            (:mod:`server.commands.serve.workers`): bind the port with ``SO_REUSEPORT``,
            beside the other workers, and leave announcing the port to the parent.
        shared_embedded: ``settings.redis_url`` is the embedded Redis that the parent
            started for all its workers (``/healthz`` says so).

    Returns:
        The exit status: 0, or :data:`EMBEDDED_DIED`.
    """
    registry = build_registry()
    lite: Any = None
    url = settings.redis_url or ""
    if settings.redis_cluster:
        cluster = cluster_client(settings.redis_cluster, settings.redis_timeout)
        await connect(cluster)
        redis: aioredis.Redis | RedisCluster = cluster
    elif not url:
        lite, url = await asyncio.to_thread(
            start_embedded_redis,
            settings.data_dir,
            settings.embedded_fsync,
            settings.embedded_maxmemory,
        )
        log.info("embedded redis at %s", url)
        settings = with_embedded_secret(settings)
    if not settings.redis_cluster:
        redis = redis_client(url, settings.redis_timeout)
    await answers(redis)
    if settings.durable and not settings.redis_cluster and not await replicas(redis):
        log.warning("--durable: the Redis has no replica now; every move answers busy")
    if not settings.redis_cluster:  # keys written before the hash tags: their new names
        renamed = await retag(redis, settings.key_prefix)
        if renamed:
            log.warning("renamed %d player and daily keys to their hash-tagged names", renamed)
    ctx = build_context(settings, redis, embedded=lite is not None or shared_embedded)
    await ctx.solver.start()
    try:
        status = await serve_until_stopped(ctx, registry, ready, lite, worker=worker)
    finally:
        await ctx.stop_tasks()
        await ctx.solver.close()
    await close(ctx)
    if lite is not None:
        await asyncio.to_thread(end_embedded_redis, lite, status)
    return status


async def close(ctx: Context) -> None:
    """Close what an instance holds once it no longer serves (its solver processes are
    closed apart, as they may outlive a failed start): the watchers, the fan-out, the
    store's connections, the metrics and the Redis client."""
    await ctx.daily.watchers.close()
    await ctx.hub.close()
    await ctx.store.aclose()
    ctx.metrics.close()
    await ctx.redis.aclose()  # the client's own connections (a client call, no command)


def bot_launcher(ctx: Context, port: int) -> Callable[[str, str, str, float], None]:
    """How this instance starts a bot racer: a client of its own port, through the same
    checks and move path as any player (the quick race's ``accept_bot``)."""
    host = ctx.settings.host if ctx.settings.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    url = f"ws://{'[' + host + ']' if ':' in host else host}:{port}/ws"

    async def race(room: str, name: str, token: str, speed: float) -> None:
        bot = Bot(url, name=name, speed=speed, say=None, token=token)
        await bot.run(room=room)

    return lambda room, name, token, speed: ctx.spawn(race(room, name, token, speed))


def _finish(stop: asyncio.Future[int], status: int) -> None:
    """End the serving with ``status`` (a second signal, or a signal after the embedded
    Redis died, changes nothing)."""
    if not stop.done():
        stop.set_result(status)


async def serve_until_stopped(
    ctx: Context,
    registry: Registry,
    ready: asyncio.Event | None = None,
    lite: Any = None,
    *,
    worker: bool = False,
) -> int:
    """Serve the port of ``ctx.settings`` until SIGINT/SIGTERM, or until the embedded Redis
    ``lite`` dies (``ready`` set once bound). A ``worker`` shares the port with its
    siblings (``SO_REUSEPORT``) and does not announce it.

    Returns:
        The exit status: 0, or :data:`EMBEDDED_DIED`.
    """
    tune_gc()
    start_tasks(ctx)
    stop: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            asyncio.get_running_loop().add_signal_handler(sig, _finish, stop, 0)
    if lite is not None:
        ctx.spawn(supervise(lite, stop))
    async with listening(ctx, registry, worker=worker) as port:
        if not worker:
            print(f"seahaven serving on http://{ctx.settings.host}:{port}/ (ws at /ws)", flush=True)
        if ready is not None:
            ready.set()
        status = await stop
        leave_by(LOST_DEADLINE_S if status else STOP_DEADLINE_S, status, ctx, lite)
        return status


def leave_by(seconds: float, status: int, ctx: Context, lite: Any = None) -> None:
    """End the process with ``status`` ``seconds`` from now if the shutdown has not ended it
    by then, whatever it waits for (a connection that does not close, a Redis that does not
    answer, the loop itself blocked): a thread of its own kills the solver processes, asks
    the embedded Redis to save and stop (after a clean stop only) and leaves."""

    def overrun() -> None:
        pending = sorted(getattr(task.get_coro(), "__qualname__", "?") for task in list(ctx.tasks))
        log.error(
            "the shutdown was not done %.1f s after it began: leaving now (still waiting: %s)",
            seconds,
            ", ".join(pending) or "no background task",
        )
        ctx.solver.abandon()
        if lite is not None and status == 0:
            stop_embedded_redis(lite, timeout=1.5)
        logging.shutdown()
        os._exit(status)

    timer = threading.Timer(seconds, overrun)
    timer.daemon = True  # a shutdown done in time ends the process without it
    timer.start()


def start_tasks(ctx: Context) -> None:
    """Start an instance's fan-out and its background work: the janitor, the quick race's
    pairing, the arenas, the resettling of reviewed races, the loop-lag probe, the daily
    certifier and the reader of sign-outs."""
    ctx.hub.start()
    ctx.spawn(janitor(ctx))
    ctx.spawn(pairing_loop(ctx))
    ctx.spawn(arena_loop.arena_loop(ctx))
    ctx.spawn(race_review.resettle_loop(ctx, arena_races.resettle))
    ctx.spawn(watch_loop(ctx.metrics))
    ctx.spawn(health.memory_loop(ctx))
    settings = ctx.settings
    ctx.spawn(expiry_loop(admin.operator(ctx), settings.held_max, settings.held_days))
    ctx.spawn(certify_loop(ctx.daily.deals, ctx.solver, ctx.instance_id))
    ctx.spawn(devices.follow_sign_outs(ctx))


@contextlib.asynccontextmanager
async def listening(
    ctx: Context, registry: Registry, *, worker: bool = False
) -> AsyncIterator[int]:
    """Serve websockets and HTTP on the port of ``ctx.settings`` (0: any free one) while the
    block runs; yields the port bound. A ``worker`` shares the port with its siblings
    (``SO_REUSEPORT``)."""
    settings = ctx.settings
    front = http_server.HttpFront(ctx, registry)

    async def handler(ws: ServerConnection) -> None:
        await serve_connection(ctx, ws, registry.ws, membership.on_close)

    server: Server
    async with serve(
        handler,
        settings.host,
        settings.port,
        process_request=front.process_request,
        create_connection=HttpConnection,
        max_size=MAX_SOCKET_FRAME,
        close_timeout=2,
        ping_interval=20,
        ping_timeout=20,
        compression=None,
        # The kernel spreads new connections over every worker's socket on the port.
        reuse_port=worker or None,
    ) as server:
        port = server.sockets[0].getsockname()[1] if server.sockets else settings.port
        ctx.launch_bot = bot_launcher(ctx, port)
        yield port

"""Whether the store can take what players will do next: the truth ``/healthz`` tells and
the store's memory ``/metrics`` shows.

A Redis at its ``maxmemory`` (policy ``noeviction``) still answers ``PING`` but refuses
every write: players hear ``busy`` on their next move. So the check writes (the instance's
own heartbeat key, which the janitor renews anyway) and reads the memory in use against
the cap: past ``--store-memory-alert`` of it, or refusing the write, the answer is 503 with
the reason, before players are refused. The memory is also kept in two gauges, renewed
every :data:`MEMORY_PERIOD_S` by :func:`memory_loop`, so that a scrape of ``/metrics``
never calls Redis.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final, Protocol

from .metrics import Metrics
from .periodic import periodic
from .quiet import Quiet
from .settings import Settings
from .transport.clients import Client, answers, memory

log = logging.getLogger(__name__)
QUIET = Quiet(log)

#: How often the store's memory gauges are renewed.
MEMORY_PERIOD_S: Final = 5.0
#: How long the health check's write (the instance's heartbeat) lives.
PROBE_TTL_S: Final = 15


class Heartbeat(Protocol):
    """The one write the check makes: the instance's heartbeat key."""

    async def heartbeat(self, instance_id: str, seconds: int) -> None:
        """Say that an instance runs, for ``seconds``."""


class Probed(Protocol):
    """What the health check and ``/healthz`` use of an instance: its Redis client, the
    heartbeat write, the memory gauges and the settings that bound them. The full context
    (:class:`server.context.Context`) has this and more."""

    settings: Settings
    metrics: Metrics
    instance_id: str
    embedded: bool

    @property
    def redis(self) -> Client:
        """The instance's Redis client."""

    @property
    def store(self) -> Heartbeat:
        """Where the heartbeat is written."""


async def check(ctx: Probed) -> tuple[bool, dict[str, Any]]:
    """Ask the store whether it answers, takes a write and has room; ``(healthy, report)``.

    The report says ``reason`` when unhealthy: ``redis_down`` (no answer), ``store_refuses_
    writes`` (a write failed: full, read-only or a replica) or ``store_memory_high`` (used
    memory above the alert share of the cap).
    """
    timeout = ctx.settings.redis_timeout
    report: dict[str, Any] = {"redis": False, "writable": False}
    try:
        report["redis"] = await asyncio.wait_for(answers(ctx.redis), timeout)
    except Exception:
        ctx.metrics.redis_errors.inc()
    if not report["redis"]:
        return False, {**report, "reason": "redis_down"}
    try:
        await asyncio.wait_for(ctx.store.heartbeat(ctx.instance_id, PROBE_TTL_S), timeout)
        report["writable"] = True
    except Exception:
        ctx.metrics.redis_errors.inc()
    try:
        used, most = await asyncio.wait_for(memory(ctx.redis), timeout)
        ctx.metrics.store_memory(used, most)
        report["memory_used"], report["memory_max"] = used, most
    except Exception:
        ctx.metrics.redis_errors.inc()
        used, most = 0, 0
    if not report["writable"]:
        return False, {**report, "reason": "store_refuses_writes"}
    alert = ctx.settings.store_memory_alert
    if most > 0 and used > alert * most:
        return False, {**report, "reason": "store_memory_high"}
    return True, report


async def memory_loop(ctx: Probed) -> None:
    """Keep the store's memory gauges of ``/metrics`` fresh (a scrape reads no Redis)."""

    async def step() -> None:
        used, most = await asyncio.wait_for(memory(ctx.redis), ctx.settings.redis_timeout)
        ctx.metrics.store_memory(used, most)

    await periodic(
        step, MEMORY_PERIOD_S, QUIET, "memory", "reading the store's memory failed", at_once=True
    )

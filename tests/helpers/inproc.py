"""A whole server instance on the test's own event loop, on a clock the test moves.

What ``seahaven serve`` runs (the context, its background tasks, the websocket and HTTP
front, the solver processes) on the machine's Redis, in this process: a test of the pace
model, the review or a time limit plays at a person's pace, or lets minutes pass, by
advancing :attr:`Served.clock` instead of sleeping.

The server shares the test's loop, so a blocking request to it would never be answered:
the HTTP helpers here run in a thread.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from server import clock
from server.app import build_context, build_registry, close, listening, start_tasks
from server.commands import serve
from server.context import Context
from server.daily.deal import TEST_SECRET
from server.settings import Settings
from server.transport.clients import redis_client
from tests.helpers.dailies import plant
from tests.helpers.serverproc import FAST, TEST_ENV, ahead_dates, drop_keys, http_request, redis_url


def settings(args: Sequence[str] = FAST, env: Mapping[str, str] | None = None) -> Settings:
    """The settings ``seahaven serve ARGS`` would have with ``SEAHAVEN_*`` variables ``env``
    (over those of every test server and the documented test key), as a test server
    process gets them (:func:`tests.helpers.serverproc.start_server`)."""
    parser = argparse.ArgumentParser()
    serve.register(parser.add_subparsers())
    flags = parser.parse_args(["serve", *args])
    given: dict[str, Any] = {"daily_secret": TEST_SECRET, "redis_url": redis_url()}
    for name, value in {**TEST_ENV, **(env or {})}.items():
        given[name.removeprefix("SEAHAVEN_").lower()] = value
    for name in Settings.model_fields:
        if getattr(flags, name) is not None:
            given[name] = getattr(flags, name)
    return Settings(**given)


@dataclass
class Served:
    """A server instance running on the test's loop."""

    ctx: Context
    port: int
    clock: clock.ShiftedClock

    @property
    def http_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """``ws://127.0.0.1:PORT/ws``."""
        return f"ws://127.0.0.1:{self.port}/ws"

    async def request(self, method: str, path: str, token: str | None = None) -> tuple[int, Any]:
        """An HTTP request, in a thread: (status, JSON body, or text when it is not JSON);
        with ``Authorization: Bearer TOKEN`` if given."""
        return await asyncio.to_thread(http_request, self.http_url + path, method, token)

    async def get(self, path: str, token: str | None = None) -> tuple[int, Any]:
        """GET a route (see :meth:`request`)."""
        return await self.request("GET", path, token)


@contextlib.asynccontextmanager
async def serving(
    settings: Settings, shifted: clock.ShiftedClock | None = None
) -> AsyncIterator[Served]:
    """Serve on a free port of 127.0.0.1, the machine's Redis and a shifted clock (``shifted``,
    for instances that share one, else a new one), until the block ends; then the
    instance's keys (its ``key_prefix``, which must be the test's own) are deleted.

    Today's and tomorrow's deals are stored as the server would certify them under the
    settings' daily secret (as :func:`tests.helpers.serverproc.start_server` does).
    """
    if not settings.key_prefix:
        raise ValueError("an in-process server needs a key prefix of the test's own")
    settings = settings.model_copy(update={"host": "127.0.0.1", "port": 0})
    plant(settings.key_prefix, *ahead_dates())
    shifted = shifted or clock.ShiftedClock()
    with clock.use(shifted):
        ctx = build_context(settings, redis_client(redis_url(), settings.redis_timeout))
        await ctx.solver.start()
        try:
            start_tasks(ctx)
            async with listening(ctx, build_registry()) as port:
                yield Served(ctx, port, shifted)
        finally:
            await ctx.stop_tasks()
            await ctx.solver.close()
            await close(ctx)
            drop_keys(settings.key_prefix)


@contextlib.asynccontextmanager
async def serving_two(settings: Settings) -> AsyncIterator[tuple[Served, Served]]:
    """Two instances of one deployment (one Redis, one key prefix, one clock), as
    :func:`serving`; they meet only through Redis, as on two machines."""
    shifted = clock.ShiftedClock()
    async with serving(settings, shifted) as one, serving(settings, shifted) as two:
        yield one, two

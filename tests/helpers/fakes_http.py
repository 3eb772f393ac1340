"""The HTTP front's decisions without a socket: a request's head handed to
:meth:`server.http.server.HttpFront.respond`, as the listening server hands it, and the
answer it would send.

- :class:`FakeInstance`: what the front and ``/metrics`` use of an instance
  (:class:`server.http.server.Front`, :class:`server.http.server.Scraped`): settings as
  ``seahaven serve`` would have them, and real counters.
- :class:`Clock`: monotonic seconds that a test moves (the API's rate limit refills on it).
- :func:`head`: a request's head as websockets parses it; :func:`ask`: the front's answer.
- :func:`on_redis`: the front on a whole context over the machine's Redis, for the routes
  that read the store (replays, the operator's).

Usage::

    front = HttpFront(FakeInstance(settings(["--api-burst", "3"])), registry, clock)
    answer = await ask(front, "GET", "/api/daily", {"X-Forwarded-For": "203.0.113.5"})
    answer.status_code, answer.headers["Retry-After"], answer.body
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from ipaddress import ip_address
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.app import build_context, build_registry, close
from server.context import Context
from server.http.server import HttpFront
from server.metrics import Metrics
from server.settings import Settings
from server.transport.clients import redis_client
from tests.helpers.dailies import plant
from tests.helpers.serverproc import ahead_dates, drop_keys, redis_url

#: The peer of a request that names none: a client on the server's own machine.
LOOPBACK = "127.0.0.1"


@dataclass
class FakeInstance:
    """An instance as the front sees it: its settings and its counters, nothing else (no
    store: a route that needs one is tested on :func:`on_redis`)."""

    settings: Settings
    metrics: Metrics = field(default_factory=Metrics)

    def close(self) -> None:
        """Let go of the counters (they time the garbage collector while they live)."""
        self.metrics.close()


@dataclass
class Clock:
    """Monotonic seconds, moved by the test."""

    now: float = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass."""
        self.now += seconds


def head(
    method: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    body: int | None = None,
    chunked: bool = False,
) -> Request:
    """A request's head as the server's connection hands it on: ``body`` bytes announced
    by a ``Content-Length`` (``chunked``: a ``Transfer-Encoding: chunked``), as
    :class:`server.http.connection.HttpConnection` puts those lines back."""
    fields = Headers([("Host", "127.0.0.1:8000"), *(headers or {}).items()])
    if body is not None:
        fields["Content-Length"] = str(body)
    if chunked:
        fields["Transfer-Encoding"] = "chunked"
    return Request(path, fields, method)


async def ask(
    front: HttpFront,
    method: str,
    path: str,
    headers: Mapping[str, str] | None = None,
    *,
    peer: str | None = LOOPBACK,
    body: int | None = None,
    chunked: bool = False,
) -> Response:
    """The front's answer to one request from ``peer`` (None: an unknown peer).

    Raises:
        AssertionError: the front let the request through to the websocket handshake.
    """
    request = head(method, path, headers, body=body, chunked=chunked)
    answer = await front.respond(request, None if peer is None else ip_address(peer))
    assert answer is not None, f"{method} {path} went on to the websocket handshake"
    return answer


def header(answer: Response, name: str) -> str | None:
    """A header of an answer, or None."""
    return answer.headers.get(name)


def body_json(answer: Response) -> Any:
    """An answer's body as JSON."""
    return json.loads(answer.body)


@contextlib.asynccontextmanager
async def on_redis(settings: Settings, url: str | None = None) -> AsyncIterator[Context]:
    """A whole instance's context on a real Redis (no background task, no port, no solver
    process): for the routes that read the store.

    On the machine's Redis (``url`` None) today's and tomorrow's deals are stored first, as
    the server would have certified them, and every key of ``settings.key_prefix`` (which
    must be the test's own) is deleted afterwards.
    """
    if not settings.key_prefix:
        raise ValueError("a context on the machine's Redis needs a key prefix of the test's own")
    if url is None:
        plant(settings.key_prefix, *ahead_dates())
    ctx = build_context(settings, redis_client(url or redis_url(), settings.redis_timeout))
    try:
        yield ctx
    finally:
        await close(ctx)
        if url is None:
            drop_keys(settings.key_prefix)


def real_front(ctx: Context, clock: Clock | None = None) -> HttpFront:
    """The front the server builds on ``ctx``, with every route of the server."""
    if clock is None:
        return HttpFront(ctx, build_registry())
    return HttpFront(ctx, build_registry(), clock)
